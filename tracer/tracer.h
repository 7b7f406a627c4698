/* SPDX-License-Identifier: MIT */
/*
 * The tracer: engines that run a target (a command, a built-in workload,
 * running processes) and report every completed system call as a plain
 * event.  It knows nothing about tables or statistics; the caller
 * aggregates events (profile/profile.h).
 *
 * An engine is a const struct tracer_engine in the registry
 * tracer_engines[] (engines.c); the ptrace engine (ptrace.c, loop.c,
 * spawn.c) is the first.  A caller picks one, asks probe() whether it can
 * serve the options and the target here, then calls run() (with
 * opts->calibrate, run() measures what a stop costs first and says it
 * to sink->calibrated(); calibrate() measures it apart, as after a run).
 * Every syscall of the target and, with follow, of its descendants
 * reaches sink->syscall() once, at its end; run() returns when no traced
 * task is left.
 */
#ifndef IOTRACE_TRACER_H
#define IOTRACE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "procfd/procfd.h"	/* what an fd names: struct fd_desc */
#include "syscalls/syscalls.h"	/* names, facts and sets per personality */

/* Flags of an event. */
enum {
	EVF_COUNT_ONLY = 1 << 0, /* no exit stop was taken: ret, times unknown */
	EVF_HIDDEN = 1 << 1,	/* outside -e trace=, seen only to keep the fd
				   cache right: never counted */
};

/* An optional id an engine does not give (file_id, stack_id). */
#define TRACER_ID_NONE 0u

struct tracer_event {
	pid_t tid;
	pid_t tgid;		/* thread group (process) of tid */
	uint32_t arch;		/* AUDIT_ARCH_* of the call */
	int nr;			/* syscall number in that arch */
	unsigned flags;		/* EVF_* */
	uint64_t args[6];
	int64_t ret;		/* return value, -errno on error */
	uint64_t entry_ns;	/* CLOCK_MONOTONIC at the entry stop */
	uint64_t exit_ns;	/* CLOCK_MONOTONIC at the exit stop */
	/*
	 * Ids an engine may give with the call, TRACER_ID_NONE when it does
	 * not: the file the call used (none today: the sink finds files from
	 * the arguments, fds.c) and its call-site stack (from an unwinder).
	 * An engine that gives them documents what they index.
	 */
	uint32_t file_id;
	uint32_t stack_id;
};

/*
 * Calls an engine counted in aggregate, without an event each (the
 * fast path: counters kept in the traced program, folded at stops).
 * Times come corrected by the engine itself (raw_time_ns keeps them as
 * measured): nothing to subtract.
 */
#define TRACER_HIST_BUCKETS 40	/* log2 ns: [2^b, 2^(b+1)) */
#define TRACER_ERRNO_SLOTS 4

struct tracer_aggregate {
	uint32_t arch;		/* AUDIT_ARCH_* */
	int nr;
	uint64_t calls;		/* counted */
	uint64_t timed;		/* of which timed: the rest count only */
	uint64_t errors;	/* returns in [-4095, -1], of timed calls */
	uint64_t time_ns, min_ns, max_ns;	/* over timed calls, corrected */
	uint64_t raw_time_ns;	/* the same before the engine's correction */
	uint64_t bytes_req, bytes_done, short_calls;
	uint64_t hist[TRACER_HIST_BUCKETS];
	struct { int err; uint64_t count; } errnos[TRACER_ERRNO_SLOTS];
	uint64_t errno_other;	/* errors past the slots */
	/*
	 * file set: not the call's totals (an aggregate without file gave
	 * them) but its share on one file: for the sink's per-file
	 * breakdown only.  Such a share has no histogram, no min or max, no
	 * errnos; it has the EINVAL errors and the largest size asked (and
	 * how many calls asked it).
	 */
	const struct tracer_file *file;
	const struct tracer_file *file2;	/* a two-fd call's destination,
						   or NULL */
	uint64_t einval, size_max, size_max_calls;
	/* Timed in the program by the fast path: no stop in its times. */
	bool fast;
	pid_t tgid;		/* the process that made the calls (the fast
				   path counts per process, not per thread);
				   0: not said */
};

/*
 * A task at its exit (the ptrace engine's PTRACE_EVENT_EXIT stop, where
 * /proc still shows it): its own I/O accounting, from
 * /proc/TGID/task/TID/io (the thread's alone: neither its process's other
 * threads nor the children it reaped), and its names.  read_bytes and
 * write_bytes are what the kernel counts as sent to storage: reads at
 * submission, writes when they dirty the page cache (or at submission for
 * O_DIRECT), so write_bytes says nothing of whether they reached the
 * device yet.
 */
struct tracer_task_exit {
	pid_t tid, tgid;
	bool io_known;		/* false: io unreadable (no
				   CONFIG_TASK_IO_ACCOUNTING, permissions) */
	uint64_t rchar, wchar;	/* bytes the calls moved */
	uint64_t read_bytes, write_bytes, cancelled_write_bytes;
	bool cpu_known;		/* false: no schedstat (CONFIG_SCHED_INFO) */
	uint64_t cpu_ns;	/* time on a CPU, user and system, ns
				   (/proc/TGID/task/TID/schedstat) */
	bool user_known;
	uint64_t user_ns;	/* user CPU time (stat's utime, in ticks) */
	uint64_t tick_ns;	/*   and the tick it is counted in */
	char comm[16];		/* /proc/TGID/task/TID/comm; "" unknown */
	char cmd[64];		/* leader: cmdline's first word, its last
				   path component; "" unknown or a thread */
};

/* What tracing costs a timed call, measured by an engine's calibrate(). */
struct tracer_calibration {
	uint64_t overhead_ns;	/* median: added between entry and exit stop */
	uint64_t overhead_lo_ns, overhead_hi_ns; /* its quartiles */
	uint64_t pair_ns;	/* wall clock a timed call adds to the run */
	uint64_t stop_ns;	/* of which each stop adds outside the
				   tracer's own work (switches, wake-ups) */
	uint64_t bare_ns;	/* the same trivial call, untraced */
};

struct tracer_sink {
	void (*syscall)(void *ctx, const struct tracer_event *ev);
	void *ctx;
	/* Optional (NULL: aggregates are dropped): see above. */
	void (*aggregate)(void *ctx, const struct tracer_aggregate *a);
	/* Optional: each traced task at its exit (an engine that cannot
	   see exits does not call it). */
	void (*task_exit)(void *ctx, const struct tracer_task_exit *x);
	/* With opts->calibrate: what a stop costs (err 0), or -errno when
	   it could not be measured; once, before the first event. */
	void (*calibrated)(void *ctx, const struct tracer_calibration *c,
			   int err);
	/* Optional: fds were closed or changed where no event showed it
	   (the fast path's closes and fcntls), before the next event of
	   their process: what is known of any fd may be stale. */
	void (*fds_changed)(void *ctx);
};

/* How an engine traces; the same options go to probe, calibrate and run. */
struct tracer_opts {
	bool follow;			/* trace forks, vforks and threads */
	const struct syscall_set *trace; /* count only these; NULL: all */
	const struct syscall_set *count; /* of those, count without timing */
	bool seccomp;			/* ptrace engine: stop only where needed
					   (seccomp-bpf); else at every call */
	bool pin;			/* tracer and a lone tracee on one CPU */
	/*
	 * -k: the user stack of each traced call, unwound at its entry
	 * and interned here (events carry its stack_id); NULL: no
	 * unwinding at all.  stack_depth frames at most; 1 call in
	 * stack_sample per syscall (0 or 1: every call).
	 */
	struct tracer_stacks *stacks;
	unsigned stack_depth;
	unsigned stack_sample;
	/*
	 * The fast path (ptrace engine): hot calls of libc's sites run
	 * through rewritten sites without a stop (docs/fastpath.md),
	 * where the run allows it (tracer_fast_use says why not).
	 */
	bool rewrite;
	/*
	 * When a process's sites are rewritten: at its rewrite_after-th
	 * hot call (or as it starts a second thread first), 0: at its
	 * execve.  A process that makes fewer keeps its text as it is:
	 * the rewrite costs as much as ~100 stops, which a short command
	 * never pays back.
	 */
	unsigned rewrite_after;
	/* Every call an event with its thread (--per-thread): nothing
	   counted in aggregate, which is per process (no fast path). */
	bool per_thread;
	/*
	 * The target runs in a fork of iotrace (a built-in workload):
	 * iotrace starts no thread before it, since glibc would then take
	 * the child for multi-threaded and its wrappers their other path.
	 */
	bool in_fork;
	/*
	 * Measure what tracing adds to a timed call at the run's start,
	 * for sink->calibrated(): in the first task of a target started
	 * for the run, before it runs the command (no child of its own);
	 * by calibrate() first for others.
	 */
	bool calibrate;
};


/* What a traced child runs once it is traced; returns its exit status. */
struct tracer_child {
	int (*run)(void *arg);
	void *arg;
};

/* What is traced: one kind of target, with what that kind needs. */
enum tracer_target_kind {
	TARGET_COMMAND,		/* a command started for the run */
	TARGET_FUNCTION,	/* a function run in a child started for the
				   run: a built-in workload, calibration */
	TARGET_PIDS,		/* processes already running (attach) */
	TARGET_NKINDS,
};

struct tracer_target {
	enum tracer_target_kind kind;
	union {
		struct tracer_command {
			const char *path;	/* what execv runs, as
						   tracer_resolve() gives */
			char **argv;		/* as typed: argv[0] too */
		} command;
		struct tracer_child child;	/* FUNCTION */
		struct tracer_pids {
			const pid_t *pids;	/* PIDS: process ids */
			size_t npids;
			uint64_t duration_ns;	/* let go after it; 0:
						   when they exit or on a
						   signal to iotrace */
		} attach;
	};
};

/* Dirty data in the page cache, machine-wide (/proc/meminfo). */
struct tracer_meminfo {
	bool known;
	uint64_t dirty;		/* bytes waiting to be written back */
	uint64_t writeback;	/* bytes being written back */
};

/* tracer_opts.rewrite_after's default (iotrace --rewrite-after). */
#define TRACER_REWRITE_AFTER 64

/* What the fast path did in a run (ptrace engine). */
struct tracer_fast_use {
	bool on;		/* the pool was in the run's filter */
	const char *why_off;	/* static; NULL when on */
	uint64_t procs;		/* processes that had the pool mapped */
	uint64_t procs_failed;	/* ones where mapping it failed */
	uint64_t procs_short;	/* processes that ended before their
				   rewrite_after-th hot call: their text
				   left as it was */
	uint64_t procs_unsafe;	/* ones left on stops where a rewrite
				   was not safe: threads or a handler
				   running, memory shared, a seccomp
				   filter of their own */
	unsigned rewrite_after;	/* tracer_opts.rewrite_after */
	uint64_t sites;		/* call sites rewritten */
	uint64_t sites_unpatched;	/* hot sites left on ptrace stops:
					   no room, out of reach, bytes
					   not as in the file */
	uint64_t sites_refused;	/* syscall instructions of other shapes
				   (rewrite.h's refusals), in the objects
				   looked at */
	uint64_t calls;		/* calls the trampolines counted */
	uint64_t calls_locked;	/* of them, in processes that had threads
				   (or shared their memory): locked code */
	uint64_t interrupted;	/* of them, interrupted by a signal */
	/* Measured at the start (tracer/rewrite/calib.c): what a call
	   through a trampoline adds to the wall (a range), through the
	   twin a process of one thread runs and through the locked one,
	   and what the trampoline's clock counts that the call untraced
	   would not take: subtracted from each call's time. */
	uint64_t call_lo_ns, call_hi_ns;
	uint64_t locked_call_lo_ns, locked_call_hi_ns;
	uint64_t inflation_ns;
};

struct tracer_result {
	int status;		/* wait status of the first process */
	bool exited;		/* status is valid */
	int fatal_signal;	/* SIGTERM/SIGHUP that made iotrace kill it */
	uint64_t start_ns;	/* CLOCK_MONOTONIC when the child was released */
	uint64_t end_ns;	/* CLOCK_MONOTONIC when the last task was gone */
	bool detached;		/* attached processes were let go of,
				   still running (PIDS targets) */
	uint64_t stops;		/* ptrace stops handled */
	uint64_t tasks;		/* tasks (processes, threads) it created */
	uint64_t busy_ns;	/* the tracer's own work at the stops, from
				   wait's return to the resume */
	uint64_t user_ns, sys_ns; /* CPU time of the first process and the
				   children it waited for (RUSAGE_CHILDREN
				   around the run; 0 for attached pids) */
	/*
	 * How the calls were measured, as reports and saved profiles name
	 * it: the engine's mode where it has several ("seccomp-bpf" or
	 * "ptrace" for the ptrace engine), else its name.  Static storage.
	 */
	const char *engine;
	struct tracer_fast_use fast;	/* the ptrace engine's fast path */
	/* /proc/meminfo before the target started and after the last task
	   was gone: the page cache's dirty data */
	struct tracer_meminfo mem_before, mem_after;
};

/*
 * An engine: a source of events over a target.  One const struct per
 * engine, one row in tracer_engines[]; nothing outside the engine's own
 * files knows how it works.
 */
struct tracer_engine {
	const char *name;	/* "ptrace": what --engine= would take */
	/*
	 * Whether the engine can trace target with opts on this machine:
	 * NULL when it can, else why not in one phrase ("kernel older than
	 * 4.8", "--no-follow: ...") for a caller to print or to try other
	 * options.  Cheap, starts nothing, changes nothing.  calibrate()
	 * and run() may only be given what probe() accepted.
	 */
	const char *(*probe)(const struct tracer_opts *opts,
			     const struct tracer_target *target);
	/*
	 * The fixed time the engine adds to each timed call, measured now
	 * as opts would trace (a few ms; it runs a target of its own), for
	 * the profile to subtract, with its spread and what a call costs
	 * the wall clock (struct tracer_calibration).  0 or -errno.
	 */
	int (*calibrate)(const struct tracer_opts *opts,
			 struct tracer_calibration *c);
	/*
	 * Traces target until no traced task is left, giving each call to
	 * sink->syscall() once, from the calling thread, before returning.
	 * res is always filled: res->exited says whether the
	 * first process's status is in it.  0 or -errno; an error after
	 * the target started leaves what was traced delivered.
	 */
	int (*run)(const struct tracer_opts *opts,
		   const struct tracer_target *target,
		   const struct tracer_sink *sink, struct tracer_result *res);
	/*
	 * Optional: what the engine can do without, tried in order when
	 * probe() refuses the options as given; the last row's what is
	 * NULL.
	 */
	const struct tracer_fallback *fallbacks;
};

/*
 * A capability an engine can do without: when its probe refuses opts,
 * give_up() turns it off in opts and says true, or says false when opts
 * did not ask for it; the probe is then asked again.
 */
struct tracer_fallback {
	const char *what;	/* "no seccomp filter": what is given up */
	const char *then;	/* "every call stops": what that means */
	bool (*give_up)(struct tracer_opts *opts);
};

/* The registry (engines.c): the default engine first, NULL last. */
extern const struct tracer_engine *const tracer_engines[];
/* The engine named name, or NULL. */
const struct tracer_engine *tracer_engine_find(const char *name);

/*
 * What tracer_engine_choose() settled on.  why is NULL when engine
 * traces the target with the options it left; gave_up, when it took a
 * fallback, with the probe's refusal before it.
 */
struct tracer_choice {
	const struct tracer_engine *engine;
	const char *why;	/* NULL, or the probe's last refusal */
	const struct tracer_fallback *gave_up;	/* NULL: none taken */
	const char *gave_up_why;	/* why it was taken */
};

/*
 * The engine for target: the one named name, or with name NULL or
 * "auto" the first of tracer_engines[] that can trace it; either with
 * the fallbacks of its row taken, in order, until its probe accepts
 * opts (changed accordingly).  When none can, c is the named engine's
 * (auto: the default's) refusal and opts as it left them.  0, or
 * -EINVAL (c->why says why; c->engine is NULL for an unknown name).
 */
int tracer_engine_choose(const char *name, struct tracer_opts *opts,
			 const struct tracer_target *target,
			 struct tracer_choice *c);

/*
 * In a child forked to run a COMMAND or FUNCTION target: runs it (exec,
 * or the function) and returns the status to _exit() with, 127 or 126
 * when the command cannot be executed.  Allocates nothing itself, so it
 * may run between fork and exec.
 */
int tracer_target_exec(const struct tracer_target *target);

/*
 * Finds the program argv0 would run, like execvp: a path with a slash is
 * used as is, otherwise PATH is searched.  Returns 0 and the path in buf,
 * or -errno (ENOENT, EACCES) with the same meaning as the shell's.
 */
int tracer_resolve(const char *argv0, char *buf, size_t size);

/* Signals: install iotrace's handlers, remembering what they replace. */
void tracer_signals_init(void);
/*
 * In a child about to run the command (traced or not), before exec: the
 * dispositions and mask iotrace started with.  Async-signal-safe.
 */
void tracer_signals_restore(void);
/*
 * A signal iotrace itself got that asks it to stop: SIGTERM or SIGHUP,
 * else SIGINT or SIGQUIT (which during a run are the command's to handle).
 * 0 if none.  Checked before a run starts and between a sweep's runs.
 */
int tracer_pending_signal(void);

/*
 * --- call-site stacks (stacks.c) ---
 * The stacks an engine unwound, symbolized and interned: an event's
 * stack_id is an index into this table (TRACER_ID_NONE: no stack).  A
 * stack is plain data that outlives the processes it came from, so a
 * profile can copy it.  Bounded: past TRACER_STACKS_MAX distinct stacks,
 * calls get no stack.
 */
#define TRACER_STACK_MAX 32		/* frames in a stack, at most */
#define TRACER_STACK_DEPTH 16		/* frames kept unless told */
#define TRACER_STACKS_MAX 65536		/* distinct stacks in a table */

struct tracer_frame {
	const char *object;	/* path of the object mapped there, "[vdso]",
				   or "" where nothing is mapped */
	const char *function;	/* symbol; NULL: none known (a stripped
				   object): offset is then in the object */
	uint64_t offset;	/* from the function's start, or the
				   object's load address (its vaddr 0) */
};

struct tracer_stack {
	const struct tracer_frame *frames;	/* innermost first */
	uint32_t nframes;
	bool truncated;		/* unwinding stopped before the outermost
				   frame: no unwind info, corrupt frame */
};

struct tracer_stacks;
struct tracer_stacks *tracer_stacks_new(void);
void tracer_stacks_free(struct tracer_stacks *st);
/*
 * The id of a stack of n frames (strings are copied), the same id for
 * the same frames; TRACER_ID_NONE when the table is full or out of
 * memory.
 */
uint32_t tracer_stacks_intern(struct tracer_stacks *st,
			      const struct tracer_frame *frames, size_t n,
			      bool truncated);
/* The stack of id, or NULL. */
const struct tracer_stack *tracer_stacks_get(const struct tracer_stacks *st,
					     uint32_t id);
/* Distinct stacks in st. */
size_t tracer_stacks_count(const struct tracer_stacks *st);

/*
 * A file as an engine describes it for an aggregate (the fast path's
 * per-file counts): what fd_describe() found, or that there was none.
 */
enum tracer_file_state {
	TRACER_FILE_DESC,		/* desc says what it is */
	TRACER_FILE_UNRESOLVED,		/* the fd named nothing (EBADF) */
};

struct tracer_file {
	enum tracer_file_state state;
	struct fd_desc desc;
};

/*
 * The debug channel (tracer/debug.c): --debug or IOTRACE_DEBUG=1 prints
 * the engine's decisions on stderr, one line each, stamped with the ms
 * since iotrace started.  TRACER_DEBUG() costs a test of a flag when off.
 */
/*
 * Answers kept between runs (cache.c), in $XDG_CACHE_HOME/iotrace:
 * tracer_cache_read() gives the data stored under kind and exactly key
 * (malloc'd, *len bytes) or NULL; tracer_cache_write() stores it, whole
 * or not at all.
 */
void *tracer_cache_read(const char *kind, const void *key, size_t klen,
			size_t *len);
void tracer_cache_write(const char *kind, const void *key, size_t klen,
			const void *data, size_t len);
/* A file as a key takes it: what changes when it is replaced or written. */
struct tracer_file_id {
	uint64_t dev, ino, size, mtime_s, mtime_ns;
};
/* path's identity (stat(2)); false when it cannot be had. */
bool tracer_file_id(const char *path, struct tracer_file_id *id);

extern bool tracer_debug_on;
void tracer_debug_init(bool asked);
void tracer_debugf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define TRACER_DEBUG(...)						\
	do {								\
		if (tracer_debug_on)					\
			tracer_debugf(__VA_ARGS__);			\
	} while (0)

#endif
