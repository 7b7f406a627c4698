/* SPDX-License-Identifier: MIT */
/*
 * The fast path inside the ptrace engine (docs/fastpath.md), shared by
 * its files only: fast.c (the run: what is on, the hooks the stop loop
 * calls; hooks.c, their row in the loop's table of extensions, struct
 * loop_hooks of ptrace.h), procs.c (the processes that have the pool),
 * map.c (the pool and the counters mapped into a process), patch.c (an
 * object's sites rewritten where it is mapped), fold.c (the counters
 * turned into the sink's aggregates), calib.c (a call's cost, the
 * clock) and remote.c (syscalls made in a stopped task).
 * rewrite.h is the machine code they put in place.
 */
#ifndef IOTRACE_FAST_INT_H
#define IOTRACE_FAST_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/user.h>
#include "tracer/ptrace/ptrace.h"
#include "tracer/rewrite/rewrite.h"

/*
 * --- the stop loop's hooks (fast.c), its row of loop_extensions[] in
 * hooks.c; each does nothing when l->fast is NULL.  fast_start() decides
 * at the plan (the pool's test put before the filter), fast_finish()
 * folds what is left after the loop.  What each is for: struct
 * loop_hooks (ptrace.h). ---
 */
/*
 * Why opts keep the fast path off, or NULL (calib.c: the warm start asks
 * first, fast_start() again).
 */
const char *fast_opts_why_not(const struct tracer_opts *opts);
/* Before the stop calibration: the fast path's own, beside it
 * (calib.c). */
void fast_warm_start(const struct tracer_opts *opts, const cpu_set_t *cpus);
int fast_start(struct loop *l, const struct tracer_target *target);
void fast_finish(struct loop *l);
bool fast_own_stop(struct loop *l, uint64_t ip);
bool fast_replay(struct loop *l, struct task *t);
void fast_entry(struct loop *l, struct task *t);
void fast_exit(struct loop *l, struct task *t, uint32_t arch, int64_t ret);
void fast_exec_event(struct loop *l, pid_t tgid);
void fast_spawned(struct loop *l, struct task *t);
void fast_exit_event(struct loop *l, struct task *t);
void fast_gone(struct loop *l, struct task *t);
bool fast_hold_first(struct loop *l, struct task *t, int status);
pid_t fast_new_task(struct loop *l, pid_t parent_tgid, pid_t child,
		    bool vfork);
void fast_any_stop(struct loop *l, struct task *t);
/*
 * A call a trampoline sent to its stub (an fd the cells do not cover, or
 * one of -k's 1 in N with --stack-sample, then *sample is set): where
 * the program made it (after the site's syscall), to unwind it from.
 */
uint64_t fast_stub_site(struct loop *l, struct task *t, uint64_t ip,
			bool *sample);
/* t taken out of a trampoline if it was in one. */
bool fast_signal_stop(struct loop *l, struct task *t, int sig);

/*
 * What the fast path keeps per task, in the loop's words for it
 * (union task_ext, ptrace.h); may_alias, as those words have a type of
 * their own.
 */
struct __attribute__((may_alias)) fast_task {
	bool map;		/* an mmap of code: patch at its exit */
	bool shares;		/* a process on its parent's memory (vfork,
				   CLONE_VM, or kcmp could not tell) */
	pid_t parent;		/* set up at its first stop as its child */
};
_Static_assert(sizeof(struct fast_task) <= sizeof(union task_ext),
	       "struct fast_task must fit in union task_ext");

static inline struct fast_task *fast_task(struct task *t)
{
	return (struct fast_task *)&t->ext;
}

/* --- syscalls in a stopped task (remote.c) --- */
struct remote {
	pid_t tid;
	uint64_t insn;		/* a `syscall` instruction in the task */
	struct user_regs_struct regs;	/* the task's, put back at the end */
	uint64_t mask;		/* its blocked signals, likewise */
	bool masked;
	bool skipped;		/* remote_begin_entry(): its call put off */
	bool gone;		/* the task died meanwhile */
	int gone_status;	/* its wait status then */
};

/* Takes tid's registers and mask, blocks its signals.  0 or -errno. */
int remote_begin(struct remote *r, pid_t tid, uint64_t insn);
/*
 * At a seccomp stop of tid: its call skipped, to make calls from the
 * program's own `syscall` just before rip; remote_end() puts the task
 * back on that instruction with the call's number, to make it again
 * (r->skipped: even after an error).  0, or -errno (-ENOEXEC: no
 * `syscall` there).
 */
int remote_begin_entry(struct remote *r, pid_t tid);
/* nr(a..f) made by the task from r->insn: its result, or -ESRCH. */
int64_t remote_call(struct remote *r, long nr, uint64_t a, uint64_t b,
		    uint64_t c, uint64_t d, uint64_t e, uint64_t f);
/* Registers and mask back.  0, or -errno (-ESRCH: r->gone). */
int remote_end(struct remote *r);

/* --- the objects a run has looked at (patch.c) --- */
struct fast_object {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	int err;		/* rw_sites_find()'s, 0: sites below */
	struct rw_sites sites;
};

/*
 * The code a process runs from the pool: a memfd mapped read-execute at
 * P in the process (and in its fork children, which share it) and
 * read-write here; its trampolines, its islands near the objects.
 */
#define FAST_STUB 0		/* `syscall; int3`: remote calls */
#define FAST_NAME 8		/* "iotrace\0": memfd_create's name */
#define FAST_TRAMPS 64		/* the first trampoline */
#define FAST_ISLANDS (64u << 10)	/* bytes of islands */

/*
 * A trampoline: each site has two, locked and unlocked (no lock prefix,
 * for a process of one thread), its island jumping to one of them.
 */
struct fast_tramp {
	struct rw_tramp_spec spec;
	uint32_t len;
	bool unlocked;
	uint64_t island;	/* the site's island */
	uint64_t twin;		/* the unlocked one's locked twin */
};

struct fast_code {
	int refs;		/* processes mapping it */
	uint8_t *mem;		/* RW_POOL_CODE, then FAST_ISLANDS */
	size_t used;		/* code bytes taken */
	uint64_t islands;	/* where the islands are in the processes */
	size_t isl_used;
	struct fast_tramp *tramp;	/* ascending spec.at */
	size_t ntramp, captramp;
	bool threaded;		/* a process of it has threads (or shares
				   its memory): locked trampolines only */
};
/* c's islands to the locked trampolines, before a second thread runs. */
void fast_code_threaded(struct fast_code *c);

/* The counters a process's trampolines add to, and what was folded. */
struct fast_counters {
	int refs;		/* processes adding to it (vfork) */
	struct rw_counters *mem;	/* shared with the process(es) */
	struct rw_counters *folded;	/* what went to the sink already */
	/* Each slot's calls (its histogram's sum) when all its fds were
	   last folded: a slot with no call since is not read (fold.c). */
	uint64_t seen[RW_SLOTS];
	uint64_t fd_changes;	/* mem->fd_changes the sink last heard of */
};

struct fast_proc {
	pid_t tgid;
	struct fast_code *code;
	struct fast_counters *cnt;
	/*
	 * Not rewritten yet: at its rewrite_after-th hot call (hot counts
	 * them), or as it starts a thread, whichever comes first
	 * (fast_replay()); false once done, or given up (threads already,
	 * a memory shared with another process).
	 */
	bool pending;
	uint32_t hot;
	/*
	 * While pending: handlers of its entered and not returned from
	 * (signal deliveries with a handler, less rt_sigreturns).  One may
	 * have interrupted the program inside a site's bytes, where its
	 * sigreturn would land in the middle of the jmp: no rewrite while
	 * any may be running (one left by siglongjmp never returns: none).
	 */
	uint32_t handlers;
	bool counted;		/* in use->procs (an image before had the
				   pool: one process, as strace counts) */
	bool unsafe;		/* not rewritten where a rewrite was due:
				   not safe then (use->procs_unsafe) */
};

/*
 * calib.c: f->use's call costs, measured by a thread of iotrace's,
 * started before the TSC's calibration (whose pause it fills) and read
 * after it, when its ticks can be turned into ns.  0 or -errno.
 */
struct calib_out;
struct fast_calib {
	pthread_t thread;
	struct calib_out *out;	/* what it writes; NULL: no thread */
	bool measured;		/* in a child, waited for: no thread */
};
int fast_calibrate_start(struct fast_calib *c, bool in_child,
			 const cpu_set_t *cpus);

struct fast_run {
	uint64_t pool;		/* P */
	struct rw_tsc tsc;
	uint8_t hot[128];	/* rw_sites_find()'s bitmap of hot calls */
	int8_t slot_of[512];	/* native nr -> counter slot, -1: none */
	int nr_of[RW_SLOTS];
	struct {
		enum rw_reg fd, size;
		bool two_fd;	/* the destination fd in fd2 (fold.c) */
		enum rw_reg fd2;
		bool moves;
		enum rw_fdop fdop;	/* close, fcntl */
		bool timed;	/* the plan times it (else counts only) */
	} how[RW_SLOTS];
	int nslots;
	struct fast_proc *proc;
	size_t nproc, capproc;
	struct fast_object *obj;
	size_t nobj, capobj;
	struct tracer_fast_use *use;	/* the result's */
	const struct tracer_sink *sink;
	struct rw_tsc_mark mark;	/* the TSC's first reading */
	struct fast_calib calib;	/* the calibration child */
	bool calibrating, clock_tried, clock_ok;
	uint64_t sample;	/* -k --stack-sample N: N; else 0 */
	pid_t exec_counted;	/* the process an execve is replacing the
				   counted image of (fast_exec_event()) */
};
int fast_calibrate_end(struct fast_run *f, struct fast_calib *c);
/* The warm start's mark and thread into f, if fast_warm_start() made
 * them and no run took them yet. */
bool fast_warm_take(struct fast_run *f);
/* The clock's scale and the call costs, at first use (calib.c). */
bool fast_clock(struct fast_run *f);

/* The run's processes, their code and counters shared (procs.c). */
struct fast_proc *fast_proc_find(struct fast_run *f, pid_t tgid);
struct fast_proc *fast_proc_add(struct fast_run *f, pid_t tgid);
void fast_proc_drop(struct fast_run *f, pid_t tgid);
struct fast_code *fast_code_get(struct fast_code *c);
void fast_code_put(struct fast_code *c);
struct fast_counters *fast_counters_get(struct fast_counters *c);
void fast_counters_put(struct fast_counters *c);

/* map.c: the pool and counters into the process of t at execve's exit. */
int fast_map_exec(struct loop *l, struct task *t, struct fast_proc *p);
/*
 * At a seccomp stop of t: its call put off (*skipped: it is made again
 * when the task goes on, from its `syscall` at *insn), the pool and
 * counters mapped.
 */
int fast_map_entry(struct loop *l, struct task *t, struct fast_proc *p,
		   bool *skipped, uint64_t *insn);
/* A built-in workload's child at its SIGSTOP, just after the kill. */
int fast_map_stopped(struct loop *l, struct task *t, struct fast_proc *p);
/* A fork child (own memory) of parent: counters of its own. */
int fast_map_fork(struct loop *l, pid_t tid, struct fast_proc *child);

/*
 * patch.c: the sites of the object fd maps at addr (file offset off).
 * ip (or NULL): where t, stopped on a `syscall` it makes again, goes on;
 * the start of that syscall's site once it is rewritten, so the call
 * takes its trampoline.
 */
void fast_patch_mapping(struct loop *l, struct task *t, struct fast_proc *p,
			uint64_t addr, uint64_t len, uint64_t off,
			const char *file, uint64_t *ip);
/* Every executable mapping of a file that the process of t has. */
void fast_patch_image(struct loop *l, struct task *t, struct fast_proc *p,
		      uint64_t *ip);
/* The trampoline holding ip in code, or NULL. */
const struct fast_tramp *fast_tramp_at(const struct fast_code *c,
				       uint64_t ip);
/* The trampoline whose stub's syscall ends at ip (a stop there), or NULL. */
const struct fast_tramp *fast_tramp_of_stub(const struct fast_code *c,
					    uint64_t ip);
void fast_objects_free(struct fast_run *f);
/* rw_sites_find(), answered from the cache of earlier runs (cache.c). */
int fast_sites_of(const char *path, const uint8_t hot[128],
		  struct rw_sites *out);


/* fold.c: the cells of fds [lo, hi] of p to the sink (all: hi < 0). */
void fast_fold(struct fast_run *f, struct fast_proc *p, int lo, int hi);

#endif
