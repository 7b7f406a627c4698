/* SPDX-License-Identifier: MIT */
/*
 * One traced run and its untraced runs, from options to a profile: the
 * engine chosen for the target (and what its fallbacks cost, said once),
 * the stop calibration and its second measurement after the run, the
 * sink that turns the engine's events into the profile's rows (naming
 * files through /proc, tasks, call sites), --baseline's untraced runs
 * and a traced run's hidden streams.  cli/ fills the options from the
 * command line and renders what comes back; unit tests drive the same
 * code.  Errors come back as 0/-errno or -1, said through the options'
 * error() in the words the command line prints.
 */
#ifndef IOTRACE_SESSION_H
#define IOTRACE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include "profile/profile.h"
#include "tracer/tracer.h"

/* What a run needs of the command line. */
struct session_opts {
	const char *engine_name;	/* --engine=NAME; NULL: auto */
	/* -f, -e trace=, -k's depth...: as given; each run works on a copy
	   that the engine's choice and the run change. */
	struct tracer_opts tracer;
	const char *trace_expr;		/* -e trace=EXPR as given; NULL */
	bool count_only;		/* --count-only: calls not timed */
	bool no_seccomp;		/* --no-seccomp */
	bool per_process;		/* -P: rows per process */
	bool stacks;			/* -k: call sites */
	int baseline;			/* --baseline=N untraced runs; 0 */
	/* Says one line, "iotrace: " and the message; returns -1.  Not
	   NULL (cli/ gives its error()). */
	int (*error)(const char *fmt, ...)
		__attribute__((format(printf, 1, 2)));
};

/*
 * The traced run of target to its end, by the engine
 * tracer_engine_choose() finds for so, in the mode its probe allows:
 * aggregated into p (initialised here; release it), argv the command
 * line it records.  0, or -1 with the error said.
 */
int session_trace(const struct session_opts *so,
		  const struct tracer_target *target, int argc, char **argv,
		  struct profile *p);

/* The status iotrace exits with for a profile's ending: the command's
   own, 128+N for a signal. */
int session_exit_status(const struct profile *p);

/*
 * The sink an engine is given (session_trace() makes one; a test can
 * feed it events): each call into p's rows, files named through the fd
 * cache and /proc, call sites from stacks (NULL: none), processes and
 * threads where so asks, the calibration's figure into p.
 */
struct session_sink {
	struct tracer_sink sink;	/* what the engine is given */
	struct profile *p;
	bool per_process, per_thread;	/* -P, --per-thread */
	struct fd_cache *fds;	/* per-file I/O; NULL: out of memory */
	const struct tracer_stacks *stacks;	/* -k; NULL: none */
	struct profile_stack_cache sites;	/* stack ids to call sites */
	struct tracer_calibration calib;	/* the run's first, if any */
	int (*error)(const char *fmt, ...)
		__attribute__((format(printf, 1, 2)));
};
void session_sink_init(struct session_sink *s, const struct session_opts *so,
		       const struct tracer_stacks *stacks, struct profile *p);
void session_sink_release(struct session_sink *s);

/*
 * Once the command is done, engine e calibrates again as opts traced
 * (unpinned past the first fork): p's cost gets the bounds of the two
 * measurements (before, the run's first) and res's CPU figures.  A run
 * of fewer than SESSION_RECALIBRATE_MIN_STOPS stops is bounded by the
 * first alone; nothing is bounded without a first (p->calibrated), when
 * the second fails or when a signal asks iotrace to stop.
 */
#define SESSION_RECALIBRATE_MIN_STOPS 4096
void session_recalibrate(const struct tracer_engine *e,
			 const struct tracer_opts *opts, struct profile *p,
			 const struct tracer_calibration *before,
			 const struct tracer_result *res);

/*
 * --- untraced runs (baseline.c) ---
 * "exited 1", "killed by SIGSEGV (core dumped)": a wait status in words.
 */
const char *wait_status_text(char *buf, size_t size, int status);

#define BASELINE_DEFAULT_RUNS 3

/* Which untraced run failed (1-based; 0: none) and its wait status. */
struct baseline_failure {
	int run;
	int status;
};

/*
 * Runs target untraced up to runs times (stdin /dev/null; stdout and
 * stderr to iotrace's stderr with show_output, else discarded), and
 * summarises them in b.  Stops at the first run that does not exit 0:
 * shows the end of its stderr, fills fail, returns 1 (b holds the runs
 * before it).  0 when all succeeded; -errno for a system error, -EINTR
 * when iotrace got a signal that asks it to stop.
 */
int baseline_measure(const struct tracer_target *target, int runs,
		     bool show_output, struct profile_baseline *b,
		     struct baseline_failure *fail);
/*
 * --baseline before a traced run: so->baseline runs of target (what:
 * the command's name in messages) into b, with the streams the traced
 * run will have.  0; else the reason said and 1 when a run failed
 * (nothing should be traced), -EINTR for a signal, -errno otherwise.
 */
int baseline_for_trace(const struct session_opts *so,
		       const struct tracer_target *target, const char *what,
		       struct profile_baseline *b);

/* The standard streams of a run whose output is hidden or shown. */
struct run_streams {
	int null_in, null_out;	/* /dev/null, or -1 */
	int capture;		/* memory file behind a hidden stderr, or -1 */
	int fd[3];		/* what the run's fds 0, 1, 2 become */
};

/*
 * A traced run with the command's output hidden (or, show_output, its
 * stdout sent to stderr) and stdin /dev/null: iotrace's own fds point
 * there between stdio_hide() and stdio_restore(), its messages still
 * reach the real stderr.  0 or -errno (nothing changed).
 */
struct stdio_saved {
	struct run_streams s;
	int fd[3];		/* copies of iotrace's fds 0, 1, 2, or -1 */
	bool closed[3];		/* that fd was closed to begin with */
	FILE *err;		/* stderr meanwhile, on fd[2] */
	FILE *stderr_was;
	bool active;
};
int stdio_hide(struct stdio_saved *sv, bool show_output);
/* With show_stderr, the end of what the hidden run wrote there too. */
void stdio_restore(struct stdio_saved *sv, bool show_stderr);

#endif
