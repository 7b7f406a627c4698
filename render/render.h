/* SPDX-License-Identifier: MIT */
/*
 * Renderers: everything that turns a profile (profile/profile.h)
 * into text for people or programs.  Each format lives in its own file and
 * has the shape
 *	int X_render(FILE *, const struct profile *, const struct report_opts *);
 * Renderers read the profile only; they never see ptrace.
 */
#ifndef IOTRACE_RENDER_H
#define IOTRACE_RENDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "profile/profile.h"

/* --- rendering --- */

enum report_format {
	FMT_TABLE, FMT_JSON, FMT_CSV, FMT_CSV_BREAKDOWN,
	FMT_PPROF,	/* binary (gzipped protobuf): only to a file */
};

#define REPORT_COLUMNS_MAX 16	/* more than there are columns */

struct report_opts {
	const struct column *sort;	/* -S; NULL: time */
	/* -U: the table's columns in order (columns_parse); none: strace's
	   six */
	const struct column *columns[REPORT_COLUMNS_MAX];
	size_t ncolumns;
	enum report_format format;
	bool raw_time;			/* --raw-time: uncorrected times */
	bool verbose;			/* -v: the header's bookkeeping too */
	bool findings;			/* print the findings section */
	bool histogram;			/* print latency histograms */
	unsigned top_sites;		/* --top-sites K: call sites shown
					   per syscall; 0: 3 */
	bool folded_time;		/* --folded-weight=time: folded
					   stacks weighted by ns, not calls */
};

/* What a cell is computed from, beyond its row. */
struct cell_ctx {
	const struct profile *p;
	const struct profile_totals *t;
	const struct report_opts *o;
	uint64_t untraced_wall_ns;	/* --baseline's, or the estimate's
					   when resolved; 0: none */
	bool untraced_measured;		/* ... it is --baseline's */
};

void cell_ctx_init(struct cell_ctx *x, const struct profile *p,
		   const struct profile_totals *t, const struct report_opts *o);

enum {
	COLF_TABLE = 1 << 0,	/* one of strace's six default columns */
	COLF_LEFT = 1 << 1,	/* left-aligned (the name), its width the
				   longest cell + 1, as strace's */
	COLF_DESC = 1 << 2,	/* -S sorts it largest first */
};

/*
 * A column of the syscall table: one descriptor drives the text table
 * (-U chooses and orders them), the CSV header, the JSON keys and -S.
 */
struct column {
	const char *name;	/* -S and -U key, CSV header */
	const char *header;	/* text table header */
	int width;		/* least text width (strace's); it grows
				   to the widest cell, as strace's does */
	unsigned flags;		/* COLF_* */
	/* Text cell into buf; "-" where the value was not measured. */
	void (*text)(char *buf, size_t size, const struct profile_row *r,
		     const struct cell_ctx *x);
	/* The total row's cell, when it is not text() of the rows' sums. */
	void (*total)(char *buf, size_t size, const struct profile_row *r,
		      const struct cell_ctx *x);
	int (*cmp)(const struct profile_row *a, const struct profile_row *b,
		   const struct report_opts *o);
	/* A line under the table on what its cells are, or NULL. */
	void (*note)(FILE *f, const struct cell_ctx *x);
};

extern const struct column table_columns[];	/* NULL-name terminated */
/* The column for a -S key (strace's names and aliases), or NULL. */
const struct column *column_find(const char *key);
/*
 * -U COLUMNS, strace 6's words and iotrace's own column names, comma
 * separated, into o->columns (the name added last when not given, as
 * strace does).  0; -EINVAL for an unknown word, -EEXIST for a column
 * given twice: that word into bad.
 */
int columns_parse(struct report_opts *o, const char *list, char *bad,
		  size_t size);
/*
 * The columns a report shows, into out (REPORT_COLUMNS_MAX): -U's, else
 * strace's six, or with all every column (CSV).  Their number.
 */
size_t report_columns(const struct report_opts *o, bool all,
		      const struct column **out);
/* Sorted row pointers per o->sort; caller frees.  NULL: no memory. */
const struct profile_row **profile_sorted(const struct profile *p,
					  const struct report_opts *o);
/* Time of a row as the options want it: corrected, or raw. */
uint64_t row_time(const struct profile_row *r, const struct report_opts *o);
uint64_t totals_time(const struct profile_totals *t,
		     const struct report_opts *o);
/* The same as the seconds cells print it: whole microseconds, rounded. */
uint64_t row_time_us(const struct profile_row *r, const struct report_opts *o);
uint64_t totals_time_us(const struct profile_totals *t,
			const struct report_opts *o);
/* "0.000304": us microseconds as a seconds cell. */
void fmt_seconds_us(char *buf, size_t size, uint64_t us);
/* "1,000,000" */
const char *fmt_thousands(char *buf, size_t size, uint64_t n);
/* usecs/call, strace's: us over calls, truncated (0 without calls). */
uint64_t avg_us(uint64_t us, uint64_t calls);

int table_render(FILE *f, const struct profile *p, const struct report_opts *o);
/* The --truth section under the table; nothing when there is no truth. */
void truth_render(FILE *f, const struct profile *p,
		  const struct report_opts *o);
/*
 * The two lines above the table (header.c): how the command ended and
 * its traced wall; the untraced wall and its share in syscalls.  With
 * o->verbose, the engine's bookkeeping under them (header-verbose.c).
 */
void header_render(FILE *f, const struct profile *p,
		   const struct report_opts *o);
void header_render_verbose(FILE *f, const struct profile *p,
			   const struct report_opts *o);
/*
 * The fast path's line under it (fast.c): the calls its sites counted
 * without a stop, or why it was off; nothing for runs that do not say.
 */
void fast_render_header(FILE *f, const struct profile *p);
/*
 * The --baseline lines under it (baseline.c): the untraced wall split
 * like time(1), and the share of it in syscalls; nothing without one.
 */
/* One line when the untraced runs' stdin or stdout was not the traced
   run's (a pipe against /dev/null); nothing when alike or not known. */
void baseline_render_streams(FILE *f, const struct profile_baseline *b);
void baseline_render_header(FILE *f, const struct profile *p,
			    const struct report_opts *o);
/*
 * Time in syscalls (as o wants it, waiting calls left out) over the
 * untraced wall of the baseline: may pass 1.  -1 when there is no
 * baseline or nothing timed.
 */
double baseline_share(const struct profile *p, const struct report_opts *o);
/*
 * (wall - user) / wall of the baseline's median run: the share outside
 * user space (system CPU and waiting).  -1 without a baseline, or when
 * CPU exceeds the wall (tasks in parallel).
 */
double baseline_outside_user(const struct profile_baseline *b);
/*
 * Whether untraced runs whose walls spread from min to max did not run
 * alike (2x apart or more): their median is then no truth to measure
 * against, and the header or sweep says so.
 */
bool runs_apart(int runs, uint64_t min, uint64_t max);
/* CSV; JSON is the saved document (profile_save_json). */
int csv_render(FILE *f, const struct profile *p, const struct report_opts *o);
/* CSV of every dimension's sub-rows, a "dimension" column first. */
int csv_breakdown_render(FILE *f, const struct profile *p,
			 const struct report_opts *o);
/* Renders in o->format. */
int report_render(FILE *f, const struct profile *p, const struct report_opts *o);

/* Pointers to b's sub-rows, in order, for a renderer to sort; free(). */
const struct profile_sub **breakdown_subs(const struct profile_breakdown *b);
/* Width of the syscall column of a breakdown section: w at least. */
int breakdown_name_width(const struct profile *p,
			 const struct profile_breakdown *b, size_t w);
/* The I/O table under the syscall table (io.c): the file dimension's. */
int io_render(FILE *f, const struct profile *p, const struct report_opts *o);
/* The process and thread sections (procs.c): a line per task first. */
int processes_render(FILE *f, const struct profile *p,
		     const struct report_opts *o);
int threads_render(FILE *f, const struct profile *p,
		   const struct report_opts *o);
/* The Call sites section (callsites.c): the call-site dimension's. */
int callsites_render(FILE *f, const struct profile *p,
		     const struct report_opts *o);
/*
 * The call site of row r that made most of its calls (as the section
 * prints it, whole, in *site, which the caller frees) and its share of
 * r's calls as the section prints it (scaled by --stack-sample); 0 (and
 * *site NULL) when r has none.  For findings that name where calls come
 * from.
 */
double callsites_dominant(const struct profile *p, const struct profile_row *r,
			  const struct report_opts *o, char **site);
/*
 * Folded stacks (folded.c), one line per (call site, syscall):
 * "root;...;leaf;syscall N", N the calls (o->folded_time: nanoseconds),
 * as flamegraph.pl, inferno and speedscope read them.  Nothing without
 * call sites.
 */
int folded_render(FILE *f, const struct profile *p,
		  const struct report_opts *o);
/*
 * The call sites as a pprof profile (pprof.c): profile.proto, gzipped;
 * one sample per (call site, syscall), values calls/count and
 * time/nanoseconds.  Binary: for a file.
 */
int pprof_render(FILE *f, const struct profile *p,
		 const struct report_opts *o);
/* A section per dimension under the syscall table (breakdown.c). */
int breakdown_render(FILE *f, const struct profile *p,
		     const struct report_opts *o);
/* The generic section of one dimension, for those without their own. */
int breakdown_render_one(FILE *f, const struct profile *p,
			 const struct profile_breakdown *b,
			 const struct report_opts *o);
/* Latency histograms, one per syscall, with --histogram (histogram.c). */
int histogram_render(FILE *f, const struct profile *p,
		     const struct report_opts *o);
/*
 * Findings (findings.c): each one the rule that made it, what it is
 * about (a syscall, a file; "" for the whole run: a rule says one
 * finding per subject) and its sentences, whole, without bullet.
 */
struct finding {
	const char *rule;	/* the rule's id (static) */
	char *about;
	char *text;
};

struct findings {
	struct finding *v;	/* in the order they print */
	size_t n;
};

/*
 * The findings of p into out (released by findings_release), of rule
 * id only unless NULL.  0, -EINVAL for an unknown id, or -ENOMEM.
 */
int findings_collect(struct findings *out, const struct profile *p,
		     const struct report_opts *o, const char *id);
void findings_release(struct findings *fs);
/* The findings section: a heading and one "- " line per finding. */
int findings_render(FILE *f, const struct profile *p,
		    const struct report_opts *o);
/* Prints the lines of rule id (NULL: all); their number, or -errno. */
int findings_run(FILE *f, const struct profile *p,
		 const struct report_opts *o, const char *id);

/* One unit for a line of times, chosen by its largest: "s" from a
 * second on, else "ms" (header.c, baseline.c). */
struct time_unit {
	double scale;
	const char *name;
};

static inline struct time_unit time_unit_for(uint64_t ns)
{
	if (ns >= 1000000000)
		return (struct time_unit){ 1e9, "s" };
	return (struct time_unit){ 1e6, "ms" };
}

/* --- sweeps: one point per swept value (sweep.c, sweep-table.c, svg.c) --- */

struct sweep_point {
	char value[32];		/* as written: "4K" */
	double x;		/* numeric value for the chart; NAN: none */
	/* Untraced (the profile's baseline), or the traced run's own. */
	int runs;		/* untraced runs behind wall; 0: traced wall */
	uint64_t wall_ns;	/* median over runs */
	uint64_t wall_min_ns, wall_max_ns;	/* spread over runs */
	/* The traced run: what it called, and how long the calls took. */
	bool timed;		/* some calls were timed (not count-only) */
	uint64_t syscall_ns;	/* time in syscalls (timed calls) */
	uint64_t calls;		/* all syscalls */
	char dominant[PROFILE_ROW_LABEL_MAX]; /* data call with most time */
	uint64_t dominant_calls;
	uint64_t dominant_timed;	/* of its calls, those with a time */
	uint64_t dominant_ns;
	uint64_t bytes;		/* bytes that reached the destination */
	int status;		/* first failure's exit status, or 0 */
	bool failed;		/* a run did not exit 0: no throughput */
	struct findings findings;	/* of this point's traced run */
};

struct sweep {
	char key[32];		/* "bs" */
	int repeat;		/* untraced runs per point (--repeat) */
	size_t npoints;
	struct sweep_point *points;
};

/*
 * A point from the profile of its traced run: wall figures from its
 * baseline (the untraced runs) when it has one, the rest from the run.
 */
void sweep_point_from_profile(struct sweep_point *pt, const struct profile *p);
/*
 * Bytes that reached their destination: what the run's data calls
 * moved in from outside and out to outside, the larger of the two, so a
 * pipe between traced tasks, or the pipe in the middle of a splice
 * copy, counts once.  From the per-file rows; without any, the bytes of
 * the data syscall that took the most time.
 */
uint64_t sweep_bytes_delivered(const struct profile *p);
/* Frees what a point holds (its findings). */
void sweep_point_release(struct sweep_point *pt);
/* The value as tables and charts show it: "(none)" for the key left out. */
const char *sweep_value_label(const struct sweep_point *pt);
/* MB/s over the (untraced) wall; < 0 for a failed point or no wall. */
double sweep_point_mbps(const struct sweep_point *pt);
/*
 * Which point is best, and whether the runs can tell (sweep_judge()).
 * The best has the highest median throughput (or the shortest median
 * wall when no bytes are known); it is only called best when its spread
 * over the untraced runs overlaps no other point's: two points whose
 * order flips from one sweep to the next are a tie.
 */
enum sweep_verdict {
	SWEEP_BEST,		/* clear of every other point's spread */
	SWEEP_TIE,		/* spreads overlap: the tied points */
	SWEEP_ONE_RUN,		/* a point has one run: no spread to judge */
	SWEEP_NONE,		/* every point failed */
};

struct sweep_judgement {
	enum sweep_verdict verdict;
	size_t best;		/* highest median; npoints for SWEEP_NONE */
	size_t nties;		/* points tied with best, best included */
	bool by_bytes;		/* by MB/s, not by wall */
};

void sweep_judge(const struct sweep *s, struct sweep_judgement *j);
/* Whether point i is one of j's tied points (j->best included). */
bool sweep_tied(const struct sweep *s, const struct sweep_judgement *j,
		size_t i);
/* The best point by untraced medians; npoints when every one failed. */
size_t sweep_best(const struct sweep *s);
int sweep_table_render(FILE *f, const struct sweep *s);
/* A standalone SVG chart: throughput and calls against the value. */
int svg_render(FILE *f, const struct sweep *s);

#endif
