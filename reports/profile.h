/* SPDX-License-Identifier: MIT */
/*
 * The profile: everything iotrace knows about one run, aggregated from the
 * tracer's events.  It is the single data model shared by every renderer
 * (table, JSON, CSV), by `diff` and by `report`; a profile loaded from a
 * JSON file or a saved strace -c table is the same struct.  Memory is
 * constant in the number of syscalls: one row per distinct syscall.
 * Nothing is global, so diff can hold two at once.
 *
 * Renderers have the shape
 *	int X_render(FILE *, const struct profile *, const struct report_opts *);
 * and never see ptrace.
 */
#ifndef IOTRACE_PROFILE_H
#define IOTRACE_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "tracer/tracer.h"

#define PROFILE_ERRNO_SLOTS 8	/* distinct errnos kept per syscall */
#define PROFILE_HIST_BUCKETS 40	/* log2 ns buckets: [2^b, 2^(b+1)) */
#define PROFILE_NAME_MAX 40
#define PROFILE_TRUTH_MAX 8

struct profile_errno {
	int err;		/* positive errno value */
	uint64_t count;
};

struct profile_row {
	char name[PROFILE_NAME_MAX];	/* "write", "syscall_451" */
	uint64_t calls;			/* completed calls */
	uint64_t errors;		/* returns in [-4095, -1] */
	uint64_t timed;			/* calls with an exit stop (a time) */
	uint64_t time_ns;		/* total over timed calls, corrected */
	uint64_t raw_time_ns;		/* the same before calibration */
	uint64_t min_ns, max_ns;	/* over timed calls, corrected */
	struct profile_errno errnos[PROFILE_ERRNO_SLOTS];
	uint64_t errno_other;		/* errors past the slots */
	/* I/O accounting, for syscalls that move data */
	uint64_t bytes_req;		/* bytes asked for */
	uint64_t bytes_done;		/* bytes moved (from returns) */
	uint64_t short_calls;		/* returned less than asked */
	uint64_t hist[PROFILE_HIST_BUCKETS]; /* latency, corrected */
	int io_arg;			/* IO_* or the arg with the size */
};

enum {
	IO_NONE = -1,		/* moves no data */
	IO_UNSIZED = 6,		/* moves data; size not in an arg (iovec) */
};

/*
 * A built-in workload's own, untraced measurement of one syscall: the
 * ground truth the traced times are compared with (--truth).
 */
struct profile_truth_row {
	char name[PROFILE_NAME_MAX];
	uint64_t calls;
	uint64_t total_ns;
	uint64_t median_ns;
};

struct profile_truth {
	uint64_t wall_ns;		/* untraced run, wall clock */
	size_t nrows;
	struct profile_truth_row rows[PROFILE_TRUTH_MAX];
};

/* How the traced command ended. */
struct profile_exit {
	bool known;		/* false for strace tables */
	int code;		/* exit code, when !signal */
	int signal;		/* killed by this signal, or 0 */
	bool core;		/* dumped core */
	int fatal_signal;	/* iotrace got SIGTERM/SIGHUP and killed it */
};

struct profile {
	struct profile_row *rows;
	size_t nrows, cap;
	int32_t *index;		/* native syscall nr -> row + 1, hot path */
	uint32_t native_arch;

	char **argv;		/* the command (or workload) and arguments */
	int argc;
	time_t start_time;	/* wall-clock start, seconds since epoch */
	char kernel[65];	/* uname -r */
	int ncpus;
	uint64_t wall_ns;	/* elapsed wall time of the traced run */
	uint64_t stops;		/* ptrace stops taken */
	uint64_t overhead_ns;	/* subtracted per timed call (calibration) */
	struct profile_exit exit;
	struct profile_truth truth;	/* truth.nrows == 0: none */
	const char *source;	/* "iotrace", or "strace" for text tables */
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);

/* Copies argv as the run's command line. 0 or -ENOMEM. */
int profile_set_command(struct profile *p, int argc, char *const argv[]);

/* Accounts one completed syscall.  0 or -ENOMEM. */
int profile_add(struct profile *p, const struct tracer_event *ev);

/* The row named name, added when absent (for loaders). NULL: no memory. */
struct profile_row *profile_row_get(struct profile *p, const char *name);
const struct profile_row *profile_row_find(const struct profile *p,
					   const char *name);

/* Counts one error with its errno into a row. */
void profile_row_add_errno(struct profile_row *r, int err, uint64_t n);

/* Sums over all rows, as the table's total line shows them. */
struct profile_totals {
	uint64_t calls, errors, timed, time_ns, raw_time_ns;
};
void profile_totals(const struct profile *p, struct profile_totals *t);

/* Fills exit from a wait status and the signal iotrace got, if any. */
void profile_set_exit(struct profile *p, int wait_status, int fatal_signal);

/* IO_NONE, IO_UNSIZED or the index of the size argument of a syscall. */
int profile_io_arg(const char *name);

/* --- rendering --- */

enum report_format { FMT_TABLE, FMT_JSON, FMT_CSV };

struct report_opts {
	const struct column *sort;	/* -S; NULL: time */
	enum report_format format;
	bool raw_time;			/* --raw-time: uncorrected times */
	bool findings;			/* print the findings section */
	bool histogram;			/* print latency histograms */
};

/*
 * A column of the syscall table: one descriptor drives the text table,
 * the CSV header, the JSON keys and -S.
 */
struct column {
	const char *name;	/* -S key, CSV header, JSON key */
	const char *header;	/* text table header */
	int width;		/* text width; 0 for the last column */
	bool in_table;		/* one of strace's six table columns */
	bool descending;	/* default sort order for -S */
	/* Text cell into buf; "-" where the value was not measured. */
	void (*text)(char *buf, size_t size, const struct profile_row *r,
		     const struct profile_totals *t, const struct report_opts *o);
	int (*cmp)(const struct profile_row *a, const struct profile_row *b,
		   const struct report_opts *o);
};

extern const struct column table_columns[];	/* NULL-name terminated */
/* The column for a -S key (strace's names and aliases), or NULL. */
const struct column *column_find(const char *key);
/* Sorted row pointers per o->sort; caller frees.  NULL: no memory. */
const struct profile_row **profile_sorted(const struct profile *p,
					  const struct report_opts *o);
/* Time of a row as the options want it: corrected, or raw. */
uint64_t row_time(const struct profile_row *r, const struct report_opts *o);
uint64_t totals_time(const struct profile_totals *t,
		     const struct report_opts *o);

int table_render(FILE *f, const struct profile *p, const struct report_opts *o);
/* The line above the table that ties it to the wall clock. */
void table_render_header(FILE *f, const struct profile *p,
			 const struct report_opts *o);
/* JSON, schema "iotrace/1" (docs/json-schema.md), and CSV. */
int json_render(FILE *f, const struct profile *p, const struct report_opts *o);
int csv_render(FILE *f, const struct profile *p, const struct report_opts *o);
/* Renders in o->format. */
int report_render(FILE *f, const struct profile *p, const struct report_opts *o);

/* "1,000,000" */
const char *fmt_thousands(char *buf, size_t size, uint64_t n);

#endif
