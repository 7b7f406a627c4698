/* SPDX-License-Identifier: MIT */
/*
 * The command line: main.c parses the options common to every traced run,
 * then hands the rest to a subcommand (one file each).  Only cli/ prints
 * usage errors or exits (usage.c, a leaf all of them use).
 */
#ifndef IOTRACE_CLI_H
#define IOTRACE_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include "render/render.h"
#include "session/session.h"
#include "tracer/tracer.h"

#define EXIT_USAGE 2

/* Options given before `--` or a subcommand word. */
struct cli_opts {
	const char *output;		/* -o FILE; NULL: stderr */
	const char *save;		/* --save FILE.json */
	struct report_opts report;	/* -S, --format, --raw-time ... */
	const char *engine_name;	/* --engine=NAME; NULL: auto */
	struct tracer_opts tracer;	/* -f, -e trace= ... */
	struct syscall_set trace_set;	/* storage for tracer.trace */
	const char *trace_expr;		/* -e trace=EXPR as given; NULL */
	struct syscall_set count_set;	/* storage for tracer.count */
	bool truth;			/* --truth (built-in workloads) */
	int baseline;			/* --baseline=N untraced runs; 0 */
	bool count_only;		/* --count-only */
	bool no_seccomp;		/* --no-seccomp */
	pid_t *pids;			/* -p PID[,PID...]: attach */
	size_t npids;
	uint64_t duration_ns;		/* --duration SECS; 0: none */
	bool stacks;			/* -k: call sites (stacks.c) */
	bool per_process;		/* -P: rows per process */
	/* --per-thread is tracer.per_thread: rows per thread */
	const char *folded;		/* --folded FILE */
};

struct cli_command {
	const char *name;
	int (*fn)(struct cli_opts *o, int argc, char **argv);
	const char *summary;	/* one line for --help */
};

/* Subcommands; argv[0] is the subcommand word. */
int cmd_trace(struct cli_opts *o, int argc, char **argv);
int cmd_run(struct cli_opts *o, int argc, char **argv);
int cmd_sweep(struct cli_opts *o, int argc, char **argv);
int cmd_report(struct cli_opts *o, int argc, char **argv);
int cmd_diff(struct cli_opts *o, int argc, char **argv);

/*
 * iotrace -p (attach.c): -p's and --duration's values, parsed into o (a
 * usage error exits 2); the run over those pids, with its exit status.
 */
void attach_parse_pids(struct cli_opts *o, const char *arg);
void attach_parse_duration(struct cli_opts *o, const char *arg);
int cmd_attach(struct cli_opts *o);

/*
 * Loads a saved profile (JSON or strace -c table) into p, initializing
 * it.  0, or -1 after printing "iotrace: FILE: line L: what is wrong".
 */
int cli_load(struct profile *p, const char *path);
/*
 * -o, -S, --format, --raw-time after report's or diff's word; getopt
 * returns these values for the long ones.
 */
enum { REPORT_OPT_FORMAT = 300, REPORT_OPT_RAW_TIME, REPORT_OPT_FAIL_IF,
       REPORT_OPT_TOP_SITES, REPORT_OPT_FOLDED, REPORT_OPT_FOLDED_WEIGHT };
bool cli_parse_report_option(struct cli_opts *o, int c);
/* The same, a usage error (exit 2) for anything else: report and diff. */
void cli_parse_subcommand_option(struct cli_opts *o, int c, char **argv);

/* Prints "iotrace: <message>" on stderr. Returns -1. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "iotrace: <message>" and exits with EXIT_USAGE. */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* A whole number from lo to hi for option name, or a usage error. */
unsigned parse_count(const char *name, const char *arg, unsigned lo,
		     unsigned hi);

/*
 * -e trace=SET (a bare SET too) or -e count=SET into o; a bad set is a
 * usage error (exit 2), before anything runs or is read.  For report
 * and diff, trace=SET is the rows kept of the saved runs (cli_keep).
 */
void cli_parse_e(struct cli_opts *o, const char *arg);
/*
 * report's and diff's -e: p narrowed to the syscalls of -e trace=SET
 * (profile_keep()), nothing without one; 0, or -1 with the error
 * printed.
 */
int cli_keep(const struct cli_opts *o, struct profile *p);

/* Parses --format's value; -1 when it names no format. */
int parse_format(const char *s);

/*
 * Files the user keeps are written atomically: to an unnamed file in the
 * same directory, named (over the target) only once complete.  Opened
 * before anything runs, so an unwritable path fails first.
 */
struct outfile {
	char *path;		/* the target */
	char *tmp;		/* a named temporary file, when there is one */
	FILE *f;
	int unnamed;		/* f is an O_TMPFILE file, linked at commit */
};
int outfile_open(struct outfile *out, const char *path);
int outfile_commit(struct outfile *out);	/* 0, or -1 with a message */
void outfile_abort(struct outfile *out);

/*
 * -k and its options (stacks.c): -k/--stacks, --stack-depth N,
 * --stack-sample N before the command; --top-sites K, --folded FILE and
 * --folded-weight=calls|time wherever report options go.  false: not
 * one of them.
 */
enum { STACK_OPT_DEPTH = 320, STACK_OPT_SAMPLE };
bool stacks_parse_option(struct cli_opts *o, int c);
bool stacks_parse_report_option(struct cli_opts *o, int c);
/* --format=pprof is binary: only with -o (a usage error otherwise). */
void stacks_check_format(const struct cli_opts *o);
/*
 * --folded for traced runs (a usage error otherwise): only with -k, the
 * stacks' one source, else the file would be written empty; never for a
 * sweep, which writes none.  report reads a saved run's stacks instead.
 */
void stacks_check_folded(const struct cli_opts *o, bool sweep);
/*
 * --folded FILE: opened before anything runs (an unwritable path fails
 * first; nothing opened without --folded), then written and committed
 * atomically, or aborted.  0 or -1 with the error printed.
 */
int folded_open(const struct cli_opts *o, struct outfile *out);
int folded_commit(const struct cli_opts *o, const struct profile *p,
		  struct outfile *out);

/*
 * Traces target to the end, aggregates, renders per o, and returns the
 * exit status iotrace should end with: the command's own, 128+N for a
 * signal.  argv is the command line recorded in the profile.  When before
 * is not NULL it is called on the finished profile before rendering (to
 * attach ground truth, say).
 */
int trace_and_report(struct cli_opts *o, const struct tracer_target *target,
		     int argc, char **argv,
		     int (*before)(struct profile *p, void *arg), void *arg);

/*
 * The traced run alone (session_trace() with o's options): aggregates
 * into p (initialised here; release it).  0, or -1 with the error
 * printed.
 */
int trace_collect(const struct cli_opts *o, const struct tracer_target *target,
		  int argc, char **argv, struct profile *p);

/*
 * A command target: argv (NULL-terminated, kept as it is: it must outlive
 * the target), PATH searched as by execvp.  0, or the exit status for a
 * command that cannot run (127, 126), with the reason printed.
 * exec_child_release() frees what it allocated.
 */
int exec_child(int argc, char **argv, struct tracer_target *target);
void exec_child_release(struct tracer_target *target);

/*
 * A built-in workload (argv: WORKLOAD KEY=VALUE...) as a function target:
 * checked (a usage error exits 2), prepared, released with its clean-up.
 */
void workload_validate(int argc, char **argv);
int workload_child(int argc, char **argv, struct tracer_target *target);
void workload_child_release(struct tracer_target *target);

#endif
