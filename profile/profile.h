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
#include <stddef.h>
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

/*
 * One syscall of one personality: rows are keyed by (pers, nr), so
 * i386's write is a row apart from x86_64's, and named when shown
 * (profile_row_name, profile_row_label).  A name read from a file that no
 * personality of this build knows keeps its own row, by name.
 */
#define PROFILE_PERS_NONE (-1)
#define PROFILE_ROW_LABEL_MAX (PROFILE_NAME_MAX + 16) /* "write/i386" */

struct profile_row {
	int pers;			/* personality (syscalls/syscalls.h), or
					   PROFILE_PERS_NONE */
	int nr;				/* number in pers (syscall_N) */
	char unknown[PROFILE_NAME_MAX];	/* PROFILE_PERS_NONE: the name read */
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
	/* Of the timed calls, those the fast path timed in the program
	   (no stop in their time) and their raw time: the untraced
	   estimate corrects the others only. */
	uint64_t fast_timed, fast_raw_ns;
	int io_arg;			/* IO_* or the arg with the size */
	int8_t fd_arg, fd_arg2;		/* args with the fds, or -1 */
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
	uint64_t clock_ns;		/* what one of its clock reads took: it
					   made two a call (0: not known) */
	size_t nrows;
	struct profile_truth_row rows[PROFILE_TRUTH_MAX];
};

/*
 * --baseline: the same command run untraced N times before the traced
 * run (session/baseline.c), measured as time(1) does: wall clock from
 * fork to reap, user and system CPU from wait4's rusage (the run's whole
 * tree).
 */
#define PROFILE_BASELINE_MAX 100	/* most untraced runs */
#define PROFILE_STREAM_MAX 16		/* a stream's kind, in words */

struct profile_baseline {
	uint32_t runs;		/* untraced runs; 0: no baseline */
	uint64_t wall_ns;		/* wall of the median run */
	uint64_t wall_min_ns, wall_max_ns;	/* spread over the runs */
	uint64_t user_ns, sys_ns;	/* CPU of the median run */
	/*
	 * What the untraced runs' stdin and stdout were, and the traced
	 * run's, as profile_stream_kind() names them ("/dev/null", "a
	 * pipe", "a terminal", "a file"...); "" not known.  They differ
	 * when the command's output went to a pipe: the untraced runs
	 * never show it (it would be the user's output twice).
	 */
	char in[PROFILE_STREAM_MAX], out[PROFILE_STREAM_MAX];
	char traced_in[PROFILE_STREAM_MAX], traced_out[PROFILE_STREAM_MAX];
};

/*
 * Breakdowns (breakdown.c): a syscall row broken down by a further key, a
 * dimension.  Files are the first dimension, call sites the second.  A
 * dimension is a key type, struct profile_dim (how to compare, hash,
 * save, load and print a key), and one row in profile_dims[]; everything
 * else is generic.  A profile keeps, per dimension, a table of keys in
 * first-seen order and sub-rows keyed by (syscall row, key[, key2]) with
 * the counters of struct profile_sub.  The second key is for calls with
 * two fds (sendfile, splice, tee, copy_file_range): one sub-row per
 * (source, destination) pair, so the bytes are counted once.  Memory is
 * bounded per dimension: past max_keys - 1 keys, new keys share one
 * "(other ...)" key; past max_subs sub-rows, new ones go to that key, one
 * per syscall.
 */
#define PROFILE_KEY_NONE UINT32_MAX	/* no second key */
#define PROFILE_DIMS_MAX 4		/* dimensions one profile holds */
#define PROFILE_KEY_MAX 2048		/* largest key, in bytes */
#define PROFILE_LABEL_MAX 512		/* a key as reports print it */

/* One (syscall row, key, key2) sub-row. */
struct profile_sub {
	uint32_t key;			/* the source, or the only key */
	uint32_t key2;			/* destination, or KEY_NONE */
	uint32_t row;			/* the syscall's profile_row */
	int32_t next;			/* the key's next sub-row, or -1 */
	uint64_t calls, errors, einval, timed, time_ns, raw_time_ns;
	uint64_t bytes_req, bytes_done, short_calls;
	uint64_t size_max;		/* largest size asked for */
	uint64_t size_max_calls;	/* calls that asked exactly size_max */
};

/* The counters of a sub-row, as data: JSON keys, CSV columns. */
struct profile_sub_counter {
	const char *name;	/* JSON key and CSV header */
	size_t offset;		/* of a uint64_t in struct profile_sub */
	bool summed;		/* added up over sub-rows (sums.c) */
};
extern const struct profile_sub_counter profile_sub_counters[]; /* NULL-ended */
uint64_t profile_sub_counter_get(const struct profile_sub *s,
				 const struct profile_sub_counter *c);

struct json_t;	/* jansson's */
struct jload;	/* the JSON loader's walk (jload.h) */

/*
 * A dimension: its key type.  A key is plain data of key_size bytes,
 * built in zeroed memory (so two equal keys are equal byte for byte).
 */
struct profile_dim {
	const char *name;	/* "file": JSON, CSV, diff and messages */
	const char *plural;	/* "files", for messages */
	const char *identity;	/* what cmp compares: "path and flags" */
	size_t key_size;	/* at most PROFILE_KEY_MAX */
	size_t max_keys;	/* the last one is the other() key */
	size_t max_subs;	/* sub-rows before they go to other() */
	/* 0: the same key (the rest of a key describes it). */
	int (*cmp)(const void *a, const void *b);
	/* Keys cmp calls the same hash the same. */
	uint64_t (*hash)(const void *key);
	/* The key the rest share past the bounds, into zeroed memory. */
	void (*other)(void *key);
	/* The key as reports print it. */
	void (*label)(char *buf, size_t size, const void *key);
	/* The key as a JSON object; NULL: no memory. */
	struct json_t *(*save)(const void *key);
	/* From a JSON object into a zeroed key; 0, or -1 through jfail(). */
	int (*load)(struct jload *j, struct json_t *o, void *key);
	/*
	 * Where the JSON document keeps its keys and sub-rows, and how a
	 * sub-row names its keys: the file dimension predates "breakdowns"
	 * ("files", "ios", "file", "file2").  NULL: breakdowns.NAME.keys,
	 * breakdowns.NAME.rows, "key", "key2".
	 */
	const char *json_keys, *json_subs, *json_ref, *json_ref2;
};

/* The dimensions every profile has, NULL-terminated (breakdown.c). */
extern const struct profile_dim *const profile_dims[];

/* A profile's data for one dimension. */
struct profile_breakdown {
	const struct profile_dim *dim;	/* NULL: an unused slot */
	unsigned char *keys;		/* nkeys keys, first-seen order */
	int32_t *first;			/* per key: newest sub-row, or -1 */
	size_t nkeys, keys_cap;
	uint32_t *slots;		/* hash index: key + 1, 0 empty */
	size_t nslots;			/* a power of two, 2 * keys_cap */
	struct profile_sub *subs;	/* first-seen order */
	size_t nsubs, subs_cap;
};

/*
 * The file dimension (files.c).  A file is a path as /proc showed it
 * ("/tmp/out", "pipe:[123]", "anon_inode:[eventfd]") with the open flags
 * that change how I/O behaves; the same path opened with other flags is
 * another file.  Past PROFILE_FILES_MAX files, the rest share one
 * "(other files)" key.
 */
#define PROFILE_FILES_MAX 256
#define PROFILE_IOS_MAX 1024
#define PROFILE_PATH_MAX 256
#define PROFILE_FILE_NONE PROFILE_KEY_NONE

enum {
	PF_DIRECT = 1 << 0,
	PF_SYNC = 1 << 1,
	PF_DSYNC = 1 << 2,
	PF_APPEND = 1 << 3,
};

/* PF_* and their names ("O_DIRECT"), NULL-name terminated (files.c). */
struct profile_file_flag {
	unsigned flag;
	const char *name;
};
extern const struct profile_file_flag profile_file_flags[];

/* The file dimension's key. */
struct profile_file {
	char path[PROFILE_PATH_MAX];
	unsigned kind;			/* enum fd_kind (tracer.h) */
	unsigned flags;			/* PF_* */
	uint32_t blksize;		/* st_blksize; 0: unknown */
	uint32_t lbs;			/* device logical block size; 0: none */
	unsigned backing;		/* enum fd_backing (tracer.h): whether
					   a block device is behind it */
};

extern const struct profile_dim profile_dim_file;

/*
 * The call-site dimension (callsites.c): the user stack a call was made
 * from (-k), frames innermost first, each a function and an offset in
 * it (or an offset in its object when the object has no symbols) and
 * the object's path.  A key holds its text itself, so a saved profile
 * needs nothing of the machine it came from; frames that do not fit are
 * cut from the outermost end (cut).  Past PROFILE_CALLSITES_MAX stacks,
 * the rest share "(other call sites)".
 */
#define PROFILE_CALLSITES_MAX 1024
#define PROFILE_CALLSITE_SUBS 4096
#define PROFILE_FRAMES_MAX 32	/* = TRACER_STACK_MAX */

enum {
	PCS_TRUNCATED = 1 << 0,	/* unwinding stopped before the outermost
				   frame (no unwind info, corrupt frame) */
	PCS_CUT = 1 << 1,	/* outer frames left out: no room */
	PCS_OTHER = 1 << 2,	/* the "(other call sites)" key */
};

struct profile_callsite {
	uint16_t nframes;
	uint16_t flags;			/* PCS_* */
	uint16_t at[PROFILE_FRAMES_MAX]; /* frame i: "function\0object\0"
					   in text; function "" if none */
	uint32_t offset[PROFILE_FRAMES_MAX]; /* in the function, or the
					   object when there is none */
	char text[PROFILE_KEY_MAX - 4 - 6 * PROFILE_FRAMES_MAX];
};

/* One frame of a call site, pointing into the key. */
struct profile_frame {
	const char *function;	/* NULL: none known */
	const char *object;	/* path; "" where nothing was mapped */
	uint32_t offset;
};

extern const struct profile_dim profile_dim_callsite;

/*
 * The process and thread dimensions (procs.c, -P and --per-thread): the
 * task a call was made by, keyed by its id (a tgid, a tid) alone; its
 * names and, for a process, its storage accounting at exit (the sum of
 * its threads' /proc/TGID/task/TID/io) describe it.  Names are those at
 * exit (after execve), or at the first call for a task that never
 * exited in the run.  Past PROFILE_TASKS_MAX, the rest share
 * "(other processes)" or "(other threads)".
 */
#define PROFILE_TASKS_MAX 1024
#define PROFILE_TASK_SUBS 8192

struct profile_task {
	int32_t id;			/* tgid or tid; 0: the other() key */
	int32_t tgid;			/* a thread's process (= id for one) */
	char comm[16];			/* comm; "" unknown */
	char cmd[64];			/* process: argv[0]'s last component */
	uint32_t threads_io;		/* process: threads whose io was read */
	uint32_t threads_exited;	/* process: threads seen exiting */
	uint64_t rchar, wchar, read_bytes, write_bytes, cancelled;
};

extern const struct profile_dim profile_dim_process;
extern const struct profile_dim profile_dim_thread;

/*
 * Storage accounting over the run (storage.c): every traced task's own
 * /proc I/O counters at its exit, summed, and the machine's dirty and
 * writeback memory before and after.  write_bytes counts writes as they
 * dirty the page cache (or at submission for O_DIRECT), so whether they
 * reached the device before exit is what the dirty memory left says.
 * tasks == 0: not known (a run saved before, an strace table).
 */
struct profile_storage {
	uint64_t tasks;			/* tasks seen exiting */
	uint64_t tasks_io;		/* of them, whose io could be read */
	uint64_t rchar, wchar, read_bytes, write_bytes, cancelled;
	bool mem_known;
	uint64_t dirty_before, dirty_after;	/* /proc/meminfo, bytes */
	uint64_t writeback_before, writeback_after;
};

/* How the traced command ended. */
struct profile_exit {
	bool known;		/* false for strace tables */
	int code;		/* exit code, when !signal */
	int signal;		/* killed by this signal, or 0 */
	bool core;		/* dumped core */
	int fatal_signal;	/* iotrace got SIGTERM/SIGHUP and killed it */
	bool attached;		/* running processes attached to (-p) */
	bool detached;		/* attached: let go of, still running;
				   else they exited */
};

/*
 * What tracing cost, measured by calibration before and after the run, and
 * the CPU time of the traced processes: the ingredients of the untraced
 * estimate (untraced.c).  known false: a profile without them (strace
 * tables, older files, --count-only).
 */
struct profile_cost {
	bool known;
	uint64_t overhead_lo_ns;	/* spread of the per-call correction */
	uint64_t overhead_hi_ns;	/*   over both calibrations */
	uint64_t busy_ns;		/* the tracer's work at the stops */
	bool many_tasks;		/* more than one task: stops overlap
					   work, tracer and tasks unpinned */
	uint64_t stop_lo_ns;		/* wall a stop adds besides that work, */
	uint64_t stop_hi_ns;		/*   lowest and highest calibration */
	bool cpu_known;
	uint64_t user_ns, sys_ns;	/* CPU of the traced tree (rusage) */
	/*
	 * Each task's time on a CPU at its exit (schedstat): the busiest
	 * task's, and the busiest of the tasks of any other process.  A
	 * second process nearly as busy means the tree shared the work
	 * side by side (a pipeline), whose traced wall bounds nothing
	 * above.
	 */
	uint32_t cpu_tasks;		/* tasks whose CPU time was read */
	int32_t busiest_tgid;
	uint64_t busiest_ns, other_ns;
	/* The most user CPU time of one task (stat's utime, counted in
	   ticks of tick_ns): the stops inflate a task's system time, far
	   past their calibrated cost in a busy tree, not its user time. */
	uint32_t user_tasks;
	uint64_t user_most_ns, tick_ns;
};

/*
 * The untraced picture of a traced run (profile_untraced()): what tracing
 * added and what the program would have taken without it, as a range.
 */
struct profile_estimate {
	bool known;			/* false: no ingredients */
	uint64_t added_ns, added_lo_ns, added_hi_ns;	/* tracing added */
	uint64_t wall_ns, wall_lo_ns, wall_hi_ns;	/* untraced wall */
	bool resolved;			/* the range is narrow enough to trust */
	bool no_ceiling;		/* processes shared the work: wall_hi_ns
					   is the traced wall, not a bound */
	uint64_t syscall_ns;		/* in syscalls, waits left out */
	uint64_t syscall_lo_ns, syscall_hi_ns;	/* with the correction's spread */
	uint64_t wait_ns;		/* in calls that wait for others */
	uint64_t wait_lo_ns;		/* the same, the correction's most off */
	uint64_t resolution_ns;		/* per call: below it, noise */
	const char *method;		/* how, in words (static) */
};

/*
 * The ptrace engine's fast path in the run (tracer_fast_use): on, or why
 * not; what it rewrote and counted.  known: the run said (a profile
 * saved before has none).
 */
#define PROFILE_WHY_MAX 48

struct profile_fast {
	bool known, on;
	char why_off[PROFILE_WHY_MAX];
	uint64_t calls, calls_locked, interrupted;
	uint64_t procs, procs_failed;
	/* Processes that ended before their rewrite_after-th hot call,
	   their text as it was (0 and 0 in runs saved before: rewritten
	   at exec). */
	uint64_t procs_short, procs_unsafe, rewrite_after;
	uint64_t sites, sites_unpatched, sites_refused;
	/* Calibrated at the run's start (tracer_fast_use): what a call
	   through a trampoline adds to the wall, as a range, through a
	   process of one thread's twin and through the locked one (0 in
	   runs saved before it: the call_ figures then), and what its own
	   clock counts that the call untraced would not take (the filter's
	   entry), subtracted from the times. */
	uint64_t call_lo_ns, call_hi_ns;
	uint64_t locked_call_lo_ns, locked_call_hi_ns;
	uint64_t inflation_ns;
};

struct profile {
	struct profile_row *rows;
	size_t nrows, cap;
	int32_t *index;		/* [pers][nr] -> row + 1, the hot path */
	uint32_t native_arch;

	char **argv;		/* the command (or workload) and arguments */
	int argc;
	time_t start_time;	/* wall-clock start, seconds since epoch */
	char kernel[65];	/* uname -r */
	int ncpus;
	uint64_t wall_ns;	/* elapsed wall time of the traced run */
	uint64_t stops;		/* ptrace stops taken */
	uint64_t overhead_ns;	/* subtracted per timed call (calibration) */
	bool calibrated;	/* overhead_ns was measured */
	char engine[16];	/* "seccomp-bpf", "ptrace"; "" unknown */
	char trace_expr[128];	/* -e trace=EXPR as given; "": every call */
	struct profile_cost cost;	/* untraced.c's ingredients */
	struct profile_fast fast;	/* ptrace engine: its fast path */
	struct profile_exit exit;
	struct profile_truth truth;	/* truth.nrows == 0: none */
	struct profile_baseline baseline;	/* baseline.runs == 0: none */
	struct profile_storage storage;	/* page cache vs device */
	uint32_t stack_sample;	/* -k: 1 call in N has a stack; 0: -k
				   unwound every call (or no -k) */
	const char *source;	/* "iotrace", or "strace" for text tables */
	/* How a task first seen is named (procs.c): the sink's reader of
	   /proc, tracer_task_comm(); NULL: by its exit's names only. */
	void (*task_comm)(pid_t tgid, pid_t tid, char *buf, size_t size);
	/* Threads that made a call that waits (waiters.c): a count, and
	   the set of their tids while the run is being counted. */
	uint64_t wait_tasks;
	uint32_t *waiters;
	size_t waiter_cap;
	/* Rows broken down per file ... (breakdown.c), as profile_dims[] */
	struct profile_breakdown breakdowns[PROFILE_DIMS_MAX];
};

void profile_init(struct profile *p);
void profile_release(struct profile *p);

/*
 * Copies argv as the run's command line, bytes that are not UTF-8 and
 * controls made '?' (JSON strings are UTF-8; the command is printed to
 * terminals, as a loaded one is).  0 or -ENOMEM.
 */
int profile_set_command(struct profile *p, int argc, char *const argv[]);
/* Records -e trace=EXPR (NULL: none), cut to fit, controls made '?'. */
void profile_set_trace_expr(struct profile *p, const char *expr);
/* Bytes that are not UTF-8, and controls if asked, become '?' (utf8.c). */
void profile_clean_text(char *s, bool controls);

/* Accounts one completed syscall.  0 or -ENOMEM. */
int profile_add(struct profile *p, const struct tracer_event *ev);
/* tid made a call that waits: counted once in p->wait_tasks, up to
 * PROFILE_WAITERS_MAX (waiters.c).  0 or -ENOMEM. */
#define PROFILE_WAITERS_MAX 65536
int profile_note_waiter(struct profile *p, pid_t tid);
void profile_waiters_release(struct profile *p);

/*
 * Accounts calls an engine counted in aggregate (tracer.h), times as
 * measured (aggregate.c); one with a file, to that file's sub-row only.
 * 0 or -ENOMEM.
 */
int profile_add_aggregate(struct profile *p, const struct tracer_aggregate *a);
void profile_set_fast(struct profile *p, const struct tracer_fast_use *u);

/* The row of number nr of personality pers, added when absent; NULL. */
struct profile_row *profile_row_key(struct profile *p, int pers, int nr);
/*
 * The row of a name as people write it, "write" or "write/i386" (the
 * native personality first; see syscall_lookup), added when absent (for
 * loaders).  A name no personality knows gets a row of its own.  NULL:
 * no memory.
 */
struct profile_row *profile_row_get(struct profile *p, const char *name);
const struct profile_row *profile_row_find(const struct profile *p,
					   const char *name);
/* The same for a name in personality pers (-1: any, as above). */
struct profile_row *profile_row_get_in(struct profile *p, int pers,
				       const char *name);
const struct profile_row *profile_row_find_in(const struct profile *p,
					      int pers, const char *name);
/* The row of p with the personality and name of r, a row of another. */
const struct profile_row *profile_row_match(const struct profile *p,
					    const struct profile_row *r);
/* Forgets every row (a loader starting over). */
void profile_rows_clear(struct profile *p);
/*
 * Keeps only the rows of syscalls in set, and their sub-rows (report -e,
 * diff -e; keep.c); expr, the set as written, is added to the run's own
 * -e for the header.  The run's wall, stops and the rest stay.  0 or
 * -ENOMEM.
 */
int profile_keep(struct profile *p, const struct syscall_set *set,
		 const char *expr);

/*
 * Naming, the one place: the syscall's name ("fstat64", "syscall_5000",
 * or the name read for a row of no personality), in buf or a constant.
 */
const char *profile_row_name(const struct profile_row *r, char *buf,
			     size_t size);
/*
 * What every renderer shows: the name, and after a slash the personality
 * when it is not the native one ("fstat64/i386", "write/x32").  buf holds
 * PROFILE_ROW_LABEL_MAX.
 */
/*
 * The syscall facts of a row (syscalls/systab.c), whatever its personality
 * (i386's write is a write), by name for a row read from a file whose
 * name no personality here knows; NULL: none.
 */
const struct syscall_fact *profile_row_fact(const struct profile_row *r);
const char *profile_row_label(const struct profile_row *r, char *buf,
			      size_t size);
/*
 * The personality a row's name leaves unsaid: "i386", "x32"; NULL for
 * the native one (a name alone is the native personality's) and for a
 * row of no personality.
 */
const char *profile_row_pers(const struct profile_row *r);

/*
 * The integer counters of a row, as data: one table for the JSON keys, the
 * JSON loader and the CSV's raw columns, so the three cannot drift.
 */
struct profile_counter {
	const char *name;	/* JSON key and CSV header */
	size_t offset;		/* of a uint64_t in struct profile_row */
	bool column;		/* also a table column (the CSV has it) */
	bool summed;		/* totals add it up over rows (sums.c) */
	bool later;		/* added later: 0 when a file lacks it */
};
extern const struct profile_counter profile_counters[]; /* NULL-terminated */
/* The value of a counter; an untimed row's min_ns reads 0, not UINT64_MAX. */
uint64_t profile_counter_get(const struct profile_row *r,
			     const struct profile_counter *c);

/* Counts one error with its errno into a row. */
void profile_row_add_errno(struct profile_row *r, int err, uint64_t n);

/*
 * A time as the tables print it: whole microseconds, rounded half up
 * (strace's "%.6f" seconds).
 */
static inline uint64_t profile_round_us(uint64_t ns)
{
	return ns / 1000 + (ns % 1000 >= 500);
}

/*
 * Sums over all rows, as the table's total line shows them: time_us and
 * raw_time_us sum each row's time rounded (profile_round_us()), so the
 * total's seconds are the rows' seconds added up.
 */
struct profile_totals {
	uint64_t calls, errors, timed, time_ns, raw_time_ns;
	uint64_t time_us, raw_time_us;
};
void profile_totals(const struct profile *p, struct profile_totals *t);
/* The same over the rows keep says yes to (NULL: every row). */
void profile_totals_where(const struct profile *p, struct profile_totals *t,
			  bool (*keep)(const struct profile_row *r));

/* Fills exit from a wait status and the signal iotrace got, if any. */
void profile_set_exit(struct profile *p, int wait_status, int fatal_signal);

/*
 * --- the untraced picture (untraced.c) ---
 * Fills e from the traced wall, the stops and the measured cost of a stop
 * pair.  The untraced wall is traced wall minus what tracing added, as a
 * range from the spread of that cost; never below the program's own user
 * CPU time, never above the traced wall.
 */
void profile_untraced(const struct profile *p, struct profile_estimate *e);
/* A task's exit: its CPU time into the busiest's (p->cost). */
void profile_cost_exit(struct profile *p, const struct tracer_task_exit *x);
/* Calls that wait for other processes or events (wait4, poll, futex...). */
bool profile_row_waits(const struct profile_row *r);
/* The others: calls that do the program's own work. */
bool profile_row_works(const struct profile_row *r);

/* IO_NONE, IO_UNSIZED or the index of the size argument of a syscall. */
int profile_io_arg(const char *name);

/*
 * --- breakdowns (breakdown.c) ---
 * Gives p the dimensions dims (NULL: profile_dims), emptying its
 * breakdowns; profile_init() gives it profile_dims.  Tests use it for
 * dimensions of their own.  -EINVAL: more than PROFILE_DIMS_MAX, or a
 * key larger than PROFILE_KEY_MAX.
 */
int profile_set_dims(struct profile *p, const struct profile_dim *const *dims);
/* Frees the keys and sub-rows of every breakdown; the dimensions stay. */
void profile_breakdowns_release(struct profile *p);
/* p's breakdown by dim; an empty one (dim NULL) when p has no such. */
const struct profile_breakdown *
profile_breakdown(const struct profile *p, const struct profile_dim *dim);
/* The same, to add to; NULL when p has no such dimension. */
struct profile_breakdown *profile_breakdown_rw(struct profile *p,
					       const struct profile_dim *dim);
/* Key i of a breakdown. */
static inline const void *profile_key(const struct profile_breakdown *b,
				      uint32_t i)
{
	return b->keys + (size_t)i * b->dim->key_size;
}
/* The index of key, or -1. */
int profile_key_find(const struct profile_breakdown *b, const void *key);
/* The index of key, added when absent; past the bound the other() key. */
int profile_key_get(struct profile_breakdown *b, const void *key);
/* The sub-row (key, key2, row), or NULL. */
const struct profile_sub *profile_sub_find(const struct profile_breakdown *b,
					   uint32_t key, uint32_t key2,
					   uint32_t row);
/* The same, added when absent (past the bound, other()'s); NULL: ENOMEM. */
struct profile_sub *profile_sub_get(struct profile_breakdown *b, uint32_t key,
				    uint32_t key2, uint32_t row);
/* Sums an engine's share (tracer.h) into a sub-row, as events add. */
void profile_sub_add_share(struct profile_sub *s,
			   const struct tracer_aggregate *a);
/* Accounts one event of the sub-row's syscall to it.  0. */
int profile_sub_event(const struct profile *p, struct profile_sub *s,
		      const struct tracer_event *ev);
/* Accounts one event of syscall row `row` to a sub-row.  0 or -ENOMEM. */
int profile_sub_add(struct profile *p, struct profile_breakdown *b,
		    uint32_t row, uint32_t key, uint32_t key2,
		    const struct tracer_event *ev);
/* "key" or "key -> key2" as reports print a sub-row's keys. */
void profile_sub_label(const struct profile_breakdown *b,
		       const struct profile_sub *s, char *buf, size_t size);
/* FNV-1a over len bytes, continuing from h (0 to start): for hash(). */
uint64_t profile_hash_bytes(uint64_t h, const void *data, size_t len);

/*
 * --- the file dimension (files.c) ---
 * p's per-file breakdown, and file i of it.
 */
static inline const struct profile_breakdown *
profile_files(const struct profile *p)
{
	return profile_breakdown(p, &profile_dim_file);
}
static inline const struct profile_file *
profile_file_at(const struct profile_breakdown *b, uint32_t i)
{
	return profile_key(b, i);
}
/*
 * The index of the file described by f (path and flags), added when
 * absent; past PROFILE_FILES_MAX the "(other files)" key.  -ENOMEM.
 */
int profile_file_get(struct profile *p, const struct profile_file *f);
/*
 * The index of the file an engine described for an aggregate (the same
 * key fd_describe() would give; "(unresolved fd)").
 */
int profile_file_from(struct profile *p, const struct tracer_file *tf);
/* The index of the file d describes, added when absent; -ENOMEM. */
int profile_file_desc(struct profile *p, const struct fd_desc *d);
/* The index of "(unresolved fd)": an fd that named nothing. */
int profile_file_unresolved(struct profile *p);
/* The sub-row of (file, file2, syscall row), added when absent. */
struct profile_sub *profile_io_get(struct profile *p, uint32_t file,
				   uint32_t file2, uint32_t row);
/* Accounts one event of syscall row `row` to a file.  0 or -ENOMEM. */
int profile_add_io(struct profile *p, uint32_t row, uint32_t file,
		   uint32_t file2, const struct tracer_event *ev);
/* The row an event is counted in (what profile_add uses); NULL: ENOMEM. */
struct profile_row *profile_event_row(struct profile *p,
				      const struct tracer_event *ev);
/*
 * The index of the file fd of task tid points at (profile_file_desc(),
 * profile_file_unresolved()), or -ENOMEM: the sink's, which knows /proc
 * and the fd cache (session/sink.c), so the profile reads neither.
 */
typedef int profile_file_of_fn(void *ctx, struct profile *p, pid_t tid,
			       int fd);
/*
 * Accounts a completed event to the files its fds point at, which
 * file_of(ctx, ...) names.  0 or -ENOMEM.
 */
int profile_add_files(struct profile *p, const struct tracer_event *ev,
		      profile_file_of_fn *file_of, void *ctx);
/* "O_DIRECT, blksize 4096" for a file's flags and sizes, into buf. */
const char *profile_file_notes(const struct profile_file *f, char *buf,
			       size_t size);

/*
 * --- the call-site dimension (callsites.c) ---
 * p's call-site breakdown; frame i of a call site.
 */
static inline const struct profile_breakdown *
profile_callsites(const struct profile *p)
{
	return profile_breakdown(p, &profile_dim_callsite);
}
struct profile_frame profile_callsite_frame(const struct profile_callsite *c,
					    unsigned i);
/*
 * Frames from..to-1 as reports print them, "f <- g (app) <- h (libx.so)"
 * (a run of frames in one object names it once; a frame without a
 * function is "libx.so+0x1a2b"; offsets: "f+0x1a"), to out.
 */
void profile_callsite_print(FILE *out, const struct profile_callsite *c,
			    unsigned from, unsigned to, bool offsets);
/* The same, whole, in memory the caller frees; NULL: no memory. */
char *profile_callsite_string(const struct profile_callsite *c,
			      unsigned from, unsigned to, bool offsets);
/* The same into buf, cut to fit (labels); its length. */
size_t profile_callsite_text(char *buf, size_t size,
			     const struct profile_callsite *c, unsigned from,
			     unsigned to, bool offsets);
/* The object's file name ("libc.so.6"), from its path. */
const char *profile_object_name(const char *path);
/*
 * Whether -k's stacks were sampled through the fast path: 1 call in
 * stack_sample of the rewritten sites' sent to a ptrace stop, among
 * calls that made none, so a sample's time is not its calls'.
 */
bool profile_sites_fast_sampled(const struct profile *p);
/*
 * The time the calls of a call site of row r took, as reports show it:
 * calls (as sampled) and time_ns, theirs; row_ns, the row's (raw or
 * corrected, as the report).  Unsampled, time_ns; sampled, time_ns
 * times stack_sample; sampled through the fast path, the row's time
 * shared by the site's calls, scaled.
 */
uint64_t profile_site_time(const struct profile *p,
			   const struct profile_row *r, uint64_t calls,
			   uint64_t time_ns, uint64_t row_ns);
/*
 * Fills a zeroed key from frames (innermost first); frames past the
 * key's room are cut (PCS_CUT).  Bytes that are not UTF-8 and controls
 * become '?' (they are printed and saved).  0.
 */
int profile_callsite_set(struct profile_callsite *c,
			 const struct profile_frame *frames, size_t n,
			 bool truncated);
/*
 * Which call-site key each tracer stack id was given, so a stack is
 * turned into a key once (profile_add_callsite).
 */
struct profile_stack_cache {
	int32_t *key;		/* per stack id: key + 1, 0 unknown */
	size_t n;
};
void profile_stack_cache_release(struct profile_stack_cache *c);
/*
 * Accounts an event with a stack (ev->stack_id, whose frames the sink
 * looked up: tracer_stacks_get()) to its call site.  Events without one
 * (stack NULL) are not in the dimension.  0 or -ENOMEM.
 */
int profile_add_callsite(struct profile *p, struct profile_stack_cache *c,
			 const struct tracer_stack *stack,
			 const struct tracer_event *ev);

/*
 * --- the process and thread dimensions (procs.c) ---
 * Accounts a completed event to its process (its thread); a task first
 * seen gets its comm from p->task_comm (the sink's /proc).  0 or -ENOMEM.
 */
int profile_add_process(struct profile *p, const struct tracer_event *ev);
int profile_add_thread(struct profile *p, const struct tracer_event *ev);
/* An aggregate's calls (its totals, not a file share) to its process. */
int profile_add_process_aggregate(struct profile *p,
				  const struct tracer_aggregate *a);
/* A task's exit: its names, and its io added to its process's. */
void profile_process_exit(struct profile *p, const struct tracer_task_exit *x);
void profile_thread_exit(struct profile *p, const struct tracer_task_exit *x);
/* Key i of a process or thread breakdown. */
static inline const struct profile_task *
profile_task_at(const struct profile_breakdown *b, uint32_t i)
{
	return profile_key(b, i);
}

/*
 * --- storage accounting (storage.c) ---
 * A task's exit counters into p->storage; the memory around the run.
 */
void profile_storage_exit(struct profile *p, const struct tracer_task_exit *x);
void profile_storage_mem(struct profile *p, const struct tracer_meminfo *before,
			 const struct tracer_meminfo *after);
/* Every exited task's io was read (and some task exited). */
bool profile_storage_known(const struct profile *p);
/*
 * Of the bytes the run's writes dirtied or sent (write_bytes), those
 * still dirty or under writeback at its end, from the growth of that
 * memory over the run plus the dirty pages truncated away unwritten
 * (cancelled), at most write_bytes.  Machine-wide: other writers blur
 * it, which is why the findings ask for a large share.
 */
uint64_t profile_storage_unflushed(const struct profile_storage *s);

/*
 * Latency percentile q (0..100) of a row from its log2 histogram: the
 * upper bound of the bucket holding it, so it is exact only to a factor
 * of two.  0 when the row has no timed call.
 */
uint64_t profile_row_percentile(const struct profile_row *r, double q);
/* The highest time in ns log2 bucket b holds: 2^(b+1) - 1. */
static inline uint64_t profile_hist_high(unsigned b)
{
	return ((uint64_t)2 << b) - 1;
}

/*
 * --- sums (sums.c) ---
 * Every total made of a profile's counters (a summed counter over all
 * rows or all sub-rows of a breakdown, a row's errno counts and latency
 * buckets, a sampled run's call sites times stack_sample) fits in
 * PROFILE_SUM_MAX: the most a saved file holds, and what diff's signed
 * changes need.  The loaders refuse a file whose sums pass it.
 */
#define PROFILE_SUM_MAX ((uint64_t)INT64_MAX)

/* Where a sum passed PROFILE_SUM_MAX. */
struct profile_overflow {
	const char *counter;	/* its JSON key: "calls"; "errnos", "hist" */
	const struct profile_dim *dim;	/* the breakdown; NULL: the rows */
	size_t index;		/* the row or sub-row at which it passed */
	bool within_row;	/* the row's own errnos or hist */
};

/* 0 when every sum fits; -ERANGE with o filled at the first that does not. */
int profile_check_sums(const struct profile *p, struct profile_overflow *o);
/* "the calls of all syscalls add up to more than 2^63-1", into buf. */
void profile_overflow_text(const struct profile *p,
			   const struct profile_overflow *o, char *buf,
			   size_t size);

/*
 * --- persistence (json.c, load*.c, strace-load.c) ---
 * Reading saved runs back into a struct profile: iotrace's own JSON
 * (schema "iotrace/1") and the text table of `strace -c`, found at the end
 * of a longer log if need be.  Input is untrusted: every loader either
 * fills the whole profile or returns -1 with the line and a one-phrase
 * reason in struct load_error, leaving the profile empty.  Only cli/
 * prints the message.
 */
/* Largest JSON profile read: real ones are a few hundred KiB at most. */
#define LOAD_JSON_MAX (16u << 20)
/*
 * Largest text read as an strace log (the table may end a long trace):
 * an endless input (/dev/zero, a pipe) is refused, never read for ever.
 */
#define LOAD_TEXT_MAX (256u << 20)
/* Longest line of an strace table; longer lines of a log are skipped. */
#define LOAD_LINE_MAX 4096

struct load_error {
	unsigned long line;	/* 1-based line of the problem */
	char msg[200];		/* lowercase, no full stop */
};

/*
 * Fills an initialized, empty profile from text of len bytes.  0, or -1
 * with e filled and p released (empty again).
 */
int profile_from_json(struct profile *p, const char *text, size_t len,
		      struct load_error *e);
/* Reads f to its end; first_line is the line number f is at. */
int profile_from_strace_at(struct profile *p, FILE *f, unsigned long first_line,
			   struct load_error *e);
int profile_from_strace_text(struct profile *p, const char *text,
			     size_t len, struct load_error *e);

/*
 * Reads path, telling JSON (first non-blank byte '{') from an strace
 * table.  Initializes p.  0, or -1 with e filled (line 0: the file
 * itself could not be read; msg says why).
 */
int profile_load(struct profile *p, const char *path, struct load_error *e);

/* Writes the JSON document (schema "iotrace/1") of p to f.  0 or -1. */
int profile_save_json(FILE *f, const struct profile *p);

#endif
