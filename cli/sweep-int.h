/* SPDX-License-Identifier: MIT */
/*
 * Between the files of `iotrace sweep`: its options (sweep.c parses
 * them, runs and draws the points) and the values and command lines of
 * its points (sweep-args.c).
 */
#ifndef IOTRACE_CLI_SWEEP_H
#define IOTRACE_CLI_SWEEP_H

#include <stdbool.h>
#include <stddef.h>

#define SWEEP_MAX_POINTS 64
#define SWEEP_MAX_REPEAT 100

struct sweep_opts {
	int repeat;			/* untraced runs per point */
	bool show_output;		/* the command's output, on stderr */
	const char *svg;
	const char *save_dir;
	const char *from;		/* --from DIR: saved points, no runs */
	bool repeat_set;		/* --repeat given */
	char *key;			/* "bs" */
	char *values[SWEEP_MAX_POINTS];	/* "512", "4K", ... */
	size_t nvalues;
	bool run;			/* a built-in workload, not -- CMD */
	int argc;			/* what follows "run" or "--" */
	char **argv;
};

/* KEY=V1,V2,... into so; a usage error for what cannot be swept. */
void parse_values(struct sweep_opts *so, char *spec);
/* Whether word is NAME={}, which an empty value drops. */
bool key_word(const char *word);
/* A CMD sweep must have a {} for its values, a NAME={} for an empty one. */
void check_placeholders(const struct sweep_opts *so);
/*
 * The command line of one point: the workload's words plus KEY=value, or
 * the command with {} replaced; an empty value adds no KEY=, or drops
 * the command's NAME={} words.  NULL-terminated; free_argv() frees.
 */
char **point_argv(const struct sweep_opts *so, const char *value, int *argc);
void free_argv(char **argv);

#endif
