/* SPDX-License-Identifier: MIT */
/*
 * Shared between the files of tracer/ only; everything outside uses
 * tracer.h.  The ptrace engine is ptrace.c (the engine and its table of
 * targets), loop.c (the stop loop), spawn.c (the target it starts itself)
 * and the plan, pinning and task table below.
 */
#ifndef IOTRACE_TRACER_INT_H
#define IOTRACE_TRACER_INT_H

#include <linux/filter.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include "tracer/tracer.h"

struct unwinder;

/* SIGTERM or SIGHUP received by iotrace while tracing; 0 if none. */
extern volatile sig_atomic_t tracer_fatal_signal;
/*
 * The first traced process, killed by the handler of those signals while
 * iotrace has not reaped it; 0 if none.
 */
extern volatile sig_atomic_t tracer_leader;
/* The first process is reaped (or the run over): the handler forgets it. */
void tracer_leader_reaped(void);

/*
 * What the tracer does with each syscall; in seccomp mode, also the
 * SECCOMP_RET_DATA the filter returns (with PLAN_DATA_TAG), so the stop
 * says it without a lookup.
 */
enum {
	ACT_SKIP = 0,		/* not traced: no stop at all with seccomp */
	ACT_COUNT = 1,		/* count at entry, no exit stop */
	ACT_TIME = 2,		/* count and time: entry and exit stops */
	ACT_FIXUP = 4,		/* exit stop needed for pinning (pin.c) */
	ACT_TRACK = 8,		/* untraced, but changes fd tables: its exit
				   goes out as a hidden event (fds.c) */
	ACT_TRACK_ENTRY = 16,	/* the same, seen at entry (one stop): what
				   it frees is known from its arguments */
	ACT_CLONE = 32,		/* seen at entry: CLONE_UNTRACED is cleared
				   so the child is followed (clone.c) */
	ACT_SECCOMP = 64,	/* seen at entry: may give the task a seccomp
				   filter or strict mode (ownfilter.c) */
	ACT_MAPS = 128,		/* -k, seen at entry: may map code, so the
				   process's map cache is read again
				   (unwind.c) */
};

/*
 * The filter's SECCOMP_RET_DATA is PLAN_DATA_TAG | the action: a stop
 * whose data lacks the tag comes from a filter of the program's own that
 * returned SECCOMP_RET_TRACE (ownfilter.c).
 */
#define PLAN_DATA_TAG 0xa500u
#define PLAN_DATA_MASK 0xff00u

static inline bool plan_data_ours(uint32_t data)
{
	return (data & PLAN_DATA_MASK) == PLAN_DATA_TAG;
}

/*
 * The actions for every syscall of every personality (syscalls.h), one
 * for the numbers outside the tables, and the filter that encodes them.
 */
struct plan {
	uint8_t act[SYSCALL_PERS_MAX][SYSCALL_SET_MAX];
	uint8_t other;			/* numbers outside every table */
	struct sock_filter *bpf;	/* NULL: PTRACE_SYSCALL mode */
	unsigned short bpf_len;
	bool no_new_privs;		/* needed to load it without privilege */
};

int plan_build(struct plan *pl, const struct tracer_opts *opts);
void plan_release(struct plan *pl);
static inline uint8_t plan_action(const struct plan *pl, uint32_t arch, int nr)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);

	if (pers < 0 || pnr < 0 || pnr >= SYSCALL_SET_MAX)
		return pl->other;
	return pl->act[pers][pnr];
}

/*
 * Marks ACT_TRACK on the syscalls the fd cache must see (close, dup2,
 * execve, clone...) where the plan would skip them: a cache that missed a
 * close could name the wrong file.
 */
void fd_mark_tracked(uint8_t *actions, int pers);

/*
 * Why the seccomp filter cannot be used with opts here, or NULL
 * (seccomp.c): the kernel (before 4.8 the stop order differs; without
 * CONFIG_SECCOMP_FILTER), a sandbox that refuses seccomp(2) to iotrace
 * (a container's own filter), or --no-follow (untraced children would
 * inherit a filter nobody answers).
 */
const char *tracer_seccomp_unusable(const struct tracer_opts *opts);

/*
 * At the entry of an ACT_CLONE call: clears CLONE_UNTRACED in the call's
 * flags, in the task's registers or memory, so that its child is traced
 * like any other (one with the flag would inherit the filter untraced).
 */
void clone_keep_traced(pid_t tid, uint32_t arch, int nr,
		       const uint64_t *args);


/*
 * Same-CPU placement (pin.c): while the traced tree is one task, the
 * tracer and it share a CPU; the task still sees its original mask.
 */
struct pin {
	bool active;		/* tracer and tracee pinned to one CPU */
	cpu_set_t orig;		/* the mask the command was started with */
};

void pin_start(struct pin *pin);
/* A second task appeared (child tid): everyone gets orig back. */
void pin_end(struct pin *pin, pid_t parent, pid_t child);
/*
 * At the entry of any call: one that makes a task ends pinning, and so
 * does a sched_getaffinity whose result could not be rewritten.
 */
void pin_at_entry(struct pin *pin, pid_t tid, uint32_t arch, int nr,
		  const uint64_t *args);
/* At the exit of a FIXUP call: make sched_getaffinity tell orig. */
void pin_fixup(struct pin *pin, pid_t tid, uint32_t arch, int nr,
	       const uint64_t *args, int64_t ret);

/* Per-task state, in a table keyed by tid (tasks.c). */
struct task {
	pid_t tid;		/* 0: free slot */
	bool in_syscall;	/* waiting for the exit stop */
	uint8_t act;		/* ACT_* of the current call */
	uint32_t arch;
	int nr;
	uint64_t args[6];
	uint64_t entry_ns;
	pid_t tgid;		/* thread group; 0 until known (loop.c) */
	bool entered;		/* between a syscall-entry stop and its exit
				   stop (PTRACE_SYSCALL): a seccomp stop of
				   the same call is not a second entry */
	bool strict;		/* in strict mode, as iotrace emulates it */
	uint32_t stack_id;	/* -k: the current call's stack, or NONE */
	pid_t forked;		/* the child the current call (fork, vfork,
				   clone) has made: it completed, even if
				   the task is gone before its exit stop */
	/* The fast path only (tracer/rewrite/fast.c): */
	bool fast_map;		/* an mmap of code: patch at its exit */
	bool fast_held;		/* a new task held at its first stop */
	bool fast_shares;	/* a process on its parent's memory (vfork,
				   CLONE_VM, or kcmp could not tell) */
	int fast_held_status;	/* that stop's status */
	pid_t fast_held_ppid;	/* and its parent, as /proc said then */
	pid_t fast_parent;	/* set up at its first stop as its child */
};

struct task_table {
	struct task *slots;
	size_t cap;		/* power of two */
	size_t count;
};

void task_table_init(struct task_table *tt);
void task_table_release(struct task_table *tt);
/* The task of tid, added when absent; NULL when out of memory. */
struct task *task_get(struct task_table *tt, pid_t tid);
struct task *task_find(struct task_table *tt, pid_t tid);
void task_del(struct task_table *tt, pid_t tid);
/* Number field of /proc/TID/status ("Tgid"), or missing. */
long task_status_field(pid_t tid, const char *field, long missing);
/* The value of type in tid's auxiliary vector (/proc/TID/auxv), or 0. */
uint64_t task_auxv(pid_t tid, uint64_t type);
/* tid as its own (innermost) pid namespace sees it: NSpid's last id. */
pid_t task_ns_tid(pid_t tid);

/* --- the ptrace engine (ptrace.c) --- */

extern const struct tracer_engine ptrace_engine;

/*
 * Calibration by a run (calibrate.c): a child makes a trivial call many
 * times under engine e with opts; the engine's median time for it minus
 * the untraced median.  For any engine that times calls from outside.
 */
int calibrate_by_run(const struct tracer_engine *e,
		     const struct tracer_opts *opts,
		     struct tracer_calibration *c);
/* The median of n times (v sorted in place); 0 for none. */
uint64_t median_u64(uint64_t *v, size_t n);

struct ptrace_target;

/* One run of the ptrace engine: the stop loop's state (loop.c). */
struct loop {
	const struct tracer_opts *opts;
	const struct ptrace_target *target;
	const struct tracer_sink *sink;
	struct tracer_result *res;
	struct plan plan;
	struct pin pin;
	struct task_table tasks;
	struct unwinder *unwind;	/* -k (unwind.h); NULL: none */
	pid_t leader;		/* the first process: its status is the run's */
	bool leader_iotrace;	/* the leader still runs iotrace's code, up
				   to the execve of a spawned command: -k's
				   stacks there are iotrace's, not shown */
	bool ending;		/* told to stop: target->end() ran */
	bool own_filters;	/* a task has a seccomp filter or strict mode
				   of its own: every task stops at every
				   call (PTRACE_SYSCALL) from now on */
	int status;		/* wait status of the stop being handled */
	struct fast_run *fast;	/* the fast path's run; NULL: off */
	pid_t deferred_tid;	/* a task that died while the fast path */
	int deferred_status;	/* made calls in it: its status, handled
				   at the loop's next turn */
};

/*
 * How the ptrace engine gets hold of one kind of target's tasks and lets
 * go of them: one file each (spawn.c; attaching would be another), one
 * row in ptrace_targets[] (ptrace.c).  The stop loop is the same for all:
 * it assumes nothing about how it came to know a task.
 */
struct ptrace_target {
	/*
	 * Every task is seen from its first instruction (it is started by
	 * iotrace): only then can the seccomp filter be loaded into it, and
	 * tracer and task be pinned to one CPU.
	 */
	bool from_birth;
	/* Why opts cannot serve target here, or NULL; NULL: never. */
	const char *(*probe)(const struct tracer_opts *opts,
			     const struct tracer_target *target);
	/*
	 * Takes hold of the target's first tasks, seized with the options
	 * of l->opts (and l->plan's filter, from_birth only), each added
	 * with loop_add_task(); sets l->leader.  0, or -errno with nothing
	 * left traced or running.
	 */
	int (*start)(struct loop *l, const struct tracer_target *target);
	/*
	 * iotrace was told to stop (SIGTERM, SIGHUP): make every task in
	 * l->tasks go away (spawned ones are killed).  Called once.
	 */
	void (*end)(struct loop *l);
	/*
	 * A stop of task t after end(): true when end_task dealt with it
	 * and the loop must not resume it.
	 */
	bool (*end_task)(struct loop *l, struct task *t);
	/*
	 * Optional: whether the run must end now (besides SIGTERM and
	 * SIGHUP), checked at every wake-up of the loop; true makes the
	 * loop call end().  now is CLOCK_MONOTONIC.
	 */
	bool (*should_end)(struct loop *l, uint64_t now);
	/* Optional: undoes what start() set up, once the loop is over. */
	void (*finish)(struct loop *l);
};

extern const struct ptrace_target spawn_target;
extern const struct ptrace_target attach_target;

/*
 * The ptrace engine's run() over target, whose tasks pt takes hold of:
 * the row of ptrace_targets[] for target's kind (or, in a unit test, a
 * target of its own).  Refuses with -EINVAL what the probe would refuse.
 */
int ptrace_run_target(const struct ptrace_target *pt,
		      const struct tracer_opts *opts,
		      const struct tracer_target *target,
		      const struct tracer_sink *sink,
		      struct tracer_result *res);

/*
 * The program's own seccomp (ownfilter.c).  At the entry of an
 * ACT_SECCOMP call of t: a filter being loaded sets l->own_filters;
 * strict mode, which iotrace's filter would refuse, is emulated; the
 * mode asked for with PR_GET_SECCOMP is the one the task would have
 * untraced.
 */
void ownfilter_at_entry(struct loop *l, struct task *t);
/*
 * At a seccomp stop without iotrace's tag: the task's own filter
 * returned SECCOMP_RET_TRACE, and with no tracer for it the call fails
 * with ENOSYS, as it does untraced.
 */
void ownfilter_refuse(struct loop *l, pid_t tid);
/* At an entry stop of a strict task: kills it at a call strict forbids. */
bool ownfilter_strict_kills(struct task *t, uint32_t arch, int nr);

/* Adds a task the loop must know before its first stop.  NULL: ENOMEM. */
struct task *loop_add_task(struct loop *l, pid_t tid, pid_t tgid);
/* Handles stops until no traced task is left.  0 or -errno. */
int loop_run(struct loop *l);

/*
 * --- the fast path's hooks in the stop loop (tracer/rewrite/fast.c) ---
 * Each does nothing when l->fast is NULL.  fast_start() decides at the
 * plan (the pool's test put before the filter), fast_finish() folds what
 * is left after the loop.
 */
struct fast_run;
/* Why opts keep the fast path off, or NULL. */
const char *fast_opts_why_not(const struct tracer_opts *opts);
/* Before the stop calibration: the fast path's own, beside it. */
void fast_warm_start(const struct tracer_opts *opts);
int fast_start(struct loop *l, const struct tracer_target *target);
void fast_finish(struct loop *l);
/* A syscall stop at ip: a trampoline's own call (counted there). */
bool fast_own_stop(struct loop *l, uint64_t ip);
/* After on_entry (t's call known): folds, or wants mmap's exit. */
void fast_entry(struct loop *l, struct task *t);
/* After on_exit_stop; arch: the task's now (a new image's). */
void fast_exit(struct loop *l, struct task *t, uint32_t arch, int64_t ret);
void fast_exec_event(struct loop *l, pid_t tgid);
/* A built-in workload's child at its first stop (spawn.c). */
void fast_spawned(struct loop *l, struct task *t);
void fast_exit_event(struct loop *l, struct task *t);
void fast_gone(struct loop *l, struct task *t);
/* A task met before its parent's event: true when held (not resumed). */
bool fast_hold_first(struct loop *l, struct task *t, int status);
/* Its parent's event: the child's tid if it was held (resume it). */
pid_t fast_new_task(struct loop *l, pid_t parent_tgid, pid_t child,
		    bool vfork);
void fast_any_stop(struct loop *l, struct task *t);
/*
 * At t's entry stop at ip (its call known): a call a trampoline sent to
 * its stub (an fd the cells do not cover, or one of -k's 1 in N with
 * --stack-sample, then *sample is set): where the program made it
 * (after the site's syscall), to unwind it from; else 0.
 */
uint64_t fast_stub_site(struct loop *l, struct task *t, uint64_t ip,
			bool *sample);
/* A signal-delivery stop of sig: t taken out of a trampoline if it was
 * in one. */
bool fast_signal_stop(struct loop *l, struct task *t, int sig);

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
