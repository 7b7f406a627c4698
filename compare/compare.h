/* SPDX-License-Identifier: MIT */
/*
 * Comparing two runs: one row per syscall present in either profile, the
 * sub-rows (per file ...) whose counts changed, the totals of both, a
 * one-line verdict, and --fail-if thresholds for CI.
 * BASE and NEW are plain profiles, so a JSON run and an strace -c table
 * compare the same way.  Times follow report_opts (raw or corrected).
 */
#ifndef IOTRACE_DIFF_H
#define IOTRACE_DIFF_H

#include <stdbool.h>
#include <stdio.h>
#include "render/render.h"

struct diff_row {
	const char *name;	/* profile_row_label(), or a sub-row's */
	const struct profile_row *base, *new;	/* NULL: not in that run */
};

/*
 * A sub-row of a breakdown (per file today) whose counts (calls, errors,
 * bytes moved) changed between the runs, matched by its syscall's
 * diff_row and its keys; only for dimensions both runs have rows in.
 */
struct diff_sub {
	const struct profile_breakdown *bbase, *bnew;	/* the dimension */
	const struct profile_row *rbase, *rnew;	/* its diff_row's rows */
	const struct profile_sub *base, *new;	/* NULL: not in that run */
	size_t seq;				/* found order, for ties */
};

struct diff {
	const struct profile *base, *new;
	const char *base_name, *new_name;	/* file names, for headers */
	struct diff_row *rows;
	size_t nrows;
	char (*labels)[PROFILE_ROW_LABEL_MAX];	/* the rows' names */
	struct diff_sub *subs;		/* diff-breakdown.c */
	size_t nsubs;
	struct profile_totals tbase, tnew;
	/* The calls that do not wait (profile_row_waits()) of each run:
	   the headline ranks them, and says the waits apart, when a run
	   has both; waits_apart false: one kind only, all rows ranked. */
	struct profile_totals work_base, work_new;
	bool waits_apart;
	const struct report_opts *o;
};

/* 0 or -ENOMEM.  Keeps pointers into both profiles and o. */
int diff_build(struct diff *d, const struct profile *base,
	       const struct profile *new, const struct report_opts *o);
void diff_release(struct diff *d);

/*
 * Orders rows by the absolute change of key ("time", "calls", "errors",
 * "avg-time"; "percent" is "time"), largest first, or by "name".
 * -EINVAL for other keys.
 */
int diff_sort(struct diff *d, const char *key);
extern const char diff_sort_keys[];	/* "time, calls, ..." for messages */

/*
 * The row that explains most of the change: the largest change in time,
 * then in calls; of the calls that work when the runs have waits apart.
 * NULL when there are no rows.
 */
const struct diff_row *diff_top(const struct diff *d);
/*
 * "NEW spends 4.1x less time in syscalls (0.579 s -> 0.141 s): ...": the
 * work, ranked; then "; waits 43.2 s -> 0.8 s in 19 -> 12 threads" where
 * a run has calls that wait.
 */
void diff_headline(const struct diff *d, char *buf, size_t size);

/* --- walls and noise (diff-wall.c) --- */

enum diff_walls {
	DIFF_WALLS_NONE,	/* a side has no wall (an strace table) */
	DIFF_WALLS_ONE_RUN,	/* a side has no untraced runs: no spread */
	DIFF_WALLS_NOISE,	/* the untraced spreads overlap */
	DIFF_WALLS_APART,	/* the untraced spreads are apart */
};

/* Whether both runs carry untraced runs (a baseline). */
bool diff_both_baselines(const struct diff *d);
enum diff_walls diff_walls(const struct diff *d);
/*
 * The larger of the two runs' untraced spreads over their medians: a
 * change smaller than this share is within noise.  0 without both.
 */
double diff_noise(const struct diff *d);
/*
 * "untraced wall: 0.050 s -> 0.030 s (medians of 3 and 3 runs): NEW
 * 1.67x shorter (spreads ...)", or "within noise, ...", or the traced
 * walls and why they cannot tell; "" when a side has no wall.
 */
void diff_wall_line(const struct diff *d, char *buf, size_t size);

/* Time of a row as o wants it; 0 for an absent row. */
uint64_t diff_time(const struct diff *d, const struct profile_row *r);

/* --- sub-rows (diff-breakdown.c) --- */

/* Fills d->subs from d->rows.  0 or -ENOMEM. */
int diff_build_subs(struct diff *d);
/* Whether s is a sub-row of the syscall of r. */
bool diff_sub_of(const struct diff_sub *s, const struct diff_row *r);
/* "file /tmp/x (blksize 4096)": the dimension and the keys. */
void diff_sub_label(const struct diff_sub *s, char *buf, size_t size);

/* --- --fail-if (fail-if.c) --- */

#define FAIL_IF_MAX 16

struct fail_if_term {
	char text[64];			/* the term as written */
	char syscall[PROFILE_ROW_LABEL_MAX]; /* "" for totals; "write/i386" */
	int metric;			/* index in the metrics table */
	bool greater, or_equal;		/* > >= < <= */
	bool percent;			/* relative change, in % of BASE */
	double value;			/* % or calls or ns */
};

struct fail_if {
	struct fail_if_term terms[FAIL_IF_MAX];
	size_t n;
};

/*
 * Adds the comma-separated terms of expr.  0, or -EINVAL with the
 * offending term and why in bad.
 */
int fail_if_parse(struct fail_if *f, const char *expr, char *bad,
		  size_t size);
/*
 * Evaluates term i: 1 tripped, 0 not, -EINVAL when the runs lack what it
 * needs (wall time of an strace table).  what says the change measured.
 */
int fail_if_eval(const struct fail_if *f, size_t i, const struct diff *d,
		 char *what, size_t size);

/* --- rendering (diff-render.c) --- */

int diff_render_table(FILE *out, const struct diff *d);
/* results: per term 1/0, or NULL without --fail-if. */
int diff_render_json(FILE *out, const struct diff *d, const struct fail_if *f,
		     const int *results);

#endif
