/* SPDX-License-Identifier: MIT */
/*
 * The ptrace engine's two seams, for what plugs into it from outside
 * tracer/ptrace/: a kind of target (struct ptrace_target: how the
 * engine gets hold of a target's tasks and lets go of them; spawn.c,
 * attach.c) and an extension of the stop loop (struct loop_hooks: what
 * the loop calls at its stops, and the per-task state it keeps for it;
 * the fast path, tracer/rewrite/).  Both see the loop's state: the
 * plan, the task table, the run's options, sink and result.  What the
 * engine's own files share besides is ptrace-int.h.
 */
#ifndef IOTRACE_PTRACE_H
#define IOTRACE_PTRACE_H

#include <linux/filter.h>
#include <sched.h>
#include <time.h>
#include "tracer/tracer.h"

struct unwinder;
struct calib_run;

/* The engine (ptrace.c): its row of tracer_engines[] (engines.c). */
extern const struct tracer_engine ptrace_engine;

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
	bool calib;			/* the first task makes the stop
					   calibration's calls (calibrate.c) */
};

static inline uint8_t plan_action(const struct plan *pl, uint32_t arch, int nr)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);

	if (pers < 0 || pnr < 0 || pnr >= SYSCALL_SET_MAX)
		return pl->other;
	return pl->act[pers][pnr];
}

/*
 * Same-CPU placement (pin.c): while the traced tree is one task, the
 * tracer and it share a CPU; the task still sees its original mask.
 */
struct pin {
	bool active;		/* tracer and tracee pinned to one CPU */
	cpu_set_t orig;		/* the mask the command was started with */
};
/* The CPUs iotrace may use while it is pinned to one of them, else
 * NULL (not pinned: its own mask says). */
static inline const cpu_set_t *pin_allowed(const struct pin *pin)
{
	return pin->active ? &pin->orig : NULL;
}

/*
 * Per-task state of the loop's extension (struct loop_hooks), in a type
 * of its owner's (the fast path's: struct fast_task, fast-int.h) that
 * fits these words; the loop copies it with its task (an execve that
 * moves a thread's state to the leader's tid) and never reads it.
 */
union task_ext {
	uint64_t words[1];
};

/* Per-task state, in a table keyed by tid (tasks.c). */
struct task {
	pid_t tid;		/* 0: free slot */
	bool in_syscall;	/* waiting for the exit stop */
	uint8_t act;		/* ACT_* of the current call */
	uint32_t arch;
	int nr;
	uint64_t args[6];
	uint64_t ip;		/* the current call's: after its syscall */
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
	/* Held by the loop's extension at its first stop, met before its
	   parent's event (hold_first): released by that event. */
	bool held;
	int held_status;	/* that stop's status */
	pid_t held_ppid;	/* and its parent, as /proc said then */
	union task_ext ext;	/* the extension's (struct loop_hooks) */
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
/* The signals tid's process has handlers for (SigCgt: bit sig - 1);
   all when /proc cannot say. */
uint64_t task_caught(pid_t tid);
/* The value of type in tid's auxiliary vector (/proc/TID/auxv), or 0. */
uint64_t task_auxv(pid_t tid, uint64_t type);
/* tid as its own (innermost) pid namespace sees it: NSpid's last id. */
pid_t task_ns_tid(pid_t tid);

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
	const struct loop_hooks *hooks;	/* the extension that is on, or NULL */
	struct fast_run *fast;	/* the fast path's run (its hooks' state) */
	struct calib_run *calib; /* the stop calibration, until measured */
	pid_t deferred_tid;	/* a task that died while the extension */
	int deferred_status;	/* made calls in it: its status, handled
				   at the loop's next turn */
};

/*
 * An extension of the stop loop (the fast path, tracer/rewrite/): what
 * the loop calls at its stops, one row in loop_extensions[] (ptrace.c).
 * prepare() runs first; start() decides at the plan (it may put a test
 * of its own before the filter); the loop calls the rest only once start() said 1, each at
 * the point named; finish() undoes start() after the loop (it may be
 * called twice).
 */
struct loop_hooks {
	/*
	 * Before the plan and the stop calibration, once per iotrace: what
	 * the extension measures for itself, started to run beside them
	 * (may be NULL).  cpus: the CPUs iotrace may use, when it has
	 * pinned itself to one of them (pin.c), else NULL.
	 */
	void (*prepare)(const struct tracer_opts *opts, const cpu_set_t *cpus);
	/* 1: on, and the hooks below are called; 0: off; or -errno. */
	int (*start)(struct loop *l, const struct tracer_target *target);
	void (*finish)(struct loop *l);
	/* A syscall stop at ip: the extension's own call (counted there). */
	bool (*own_stop)(struct loop *l, uint64_t ip);
	/*
	 * At an entry of t (its call known, nothing of it handled yet;
	 * t->entered: an entry stop, else a seccomp stop): true when the
	 * extension took the call back (the task will make it again from
	 * where the program made it): the stop counts nothing and the
	 * task goes on to that second entry.
	 */
	bool (*replay)(struct loop *l, struct task *t);
	/* After the loop's entry handling (t's call known). */
	void (*entry)(struct loop *l, struct task *t);
	/* After the exit stop's; arch: the task's now (a new image's). */
	void (*exit_stop)(struct loop *l, struct task *t, uint32_t arch,
			  int64_t ret);
	/* PTRACE_EVENT_EXEC of tgid, before the loop's own handling. */
	void (*exec_event)(struct loop *l, pid_t tgid);
	/* A built-in workload's child at its first stop (spawn.c). */
	void (*spawned)(struct loop *l, struct task *t);
	/* PTRACE_EVENT_EXIT of t, before its exit is reported. */
	void (*exit_event)(struct loop *l, struct task *t);
	/* t is gone (reaped). */
	void (*gone)(struct loop *l, struct task *t);
	/* A task met before its parent's event: true when held (t->held). */
	bool (*hold_first)(struct loop *l, struct task *t, int status);
	/* Its parent's event: the child's tid if it was held (resume it). */
	pid_t (*new_task)(struct loop *l, pid_t parent_tgid, pid_t child,
			  bool vfork);
	/* Any stop of t, first. */
	void (*any_stop)(struct loop *l, struct task *t);
	/*
	 * At t's entry stop at ip (its call known), for -k: where the
	 * program made a call the extension moved elsewhere, to unwind it
	 * from, and whether it is one of --stack-sample's (*sample); else 0.
	 */
	uint64_t (*stub_site)(struct loop *l, struct task *t, uint64_t ip,
			      bool *sample);
	/* A signal-delivery stop of sig. */
	bool (*signal_stop)(struct loop *l, struct task *t, int sig);
};

/* The loop's extensions, tried in order; NULL last (ptrace.c). */
extern const struct loop_hooks *const loop_extensions[];

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

/* Adds a task the loop must know before its first stop.  NULL: ENOMEM. */
struct task *loop_add_task(struct loop *l, pid_t tid, pid_t tgid);

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
