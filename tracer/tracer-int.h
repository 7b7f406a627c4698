/* SPDX-License-Identifier: MIT */
/*
 * Shared between the files of tracer/ only; everything outside uses
 * tracer.h.
 */
#ifndef IOTRACE_TRACER_INT_H
#define IOTRACE_TRACER_INT_H

#include <linux/filter.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include "tracer/tracer.h"

/* SIGTERM or SIGHUP received by iotrace while tracing; 0 if none. */
extern volatile sig_atomic_t tracer_fatal_signal;
/* The first traced process, killed by the handler of those signals. */
extern volatile sig_atomic_t tracer_leader;

/*
 * What the tracer does with each syscall; in seccomp mode, also the
 * SECCOMP_RET_DATA the filter returns, so the stop says it without a
 * lookup.
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
};

/* The actions for every syscall, and the filter that encodes them. */
struct plan {
	uint8_t native[SYSCALL_SET_MAX];
	uint8_t compat[SYSCALL_SET_MAX];
	uint32_t native_arch;
	struct sock_filter *bpf;	/* NULL: PTRACE_SYSCALL mode */
	unsigned short bpf_len;
	bool no_new_privs;		/* needed to load it without privilege */
};

int plan_build(struct plan *pl, const struct tracer_opts *opts);
void plan_release(struct plan *pl);

static inline uint8_t plan_action(const struct plan *pl, uint32_t arch, int nr)
{
	const uint8_t *a = arch == pl->native_arch ? pl->native : pl->compat;

	return nr >= 0 && nr < SYSCALL_SET_MAX ? a[nr] : ACT_TIME;
}

/*
 * Marks ACT_TRACK on the syscalls the fd cache must see (close, dup2,
 * execve, clone...) where the plan would skip them: a cache that missed a
 * close could name the wrong file.
 */
void fd_mark_tracked(uint8_t *actions, uint32_t arch);

/* Forks the child and seizes it, stopped; returns its pid or -errno. */
pid_t tracer_spawn(const struct tracer_opts *opts, const struct plan *pl,
		   const struct tracer_child *child);

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
/* At the exit of a FIXUP call: make sched_getaffinity tell orig. */
void pin_fixup(struct pin *pin, pid_t tid, int nr, const uint64_t *args,
	       int64_t ret);

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

struct loop;
/* Adds a task the loop must know before its first stop.  NULL: ENOMEM. */
struct task *loop_add_task(struct loop *l, pid_t tid, pid_t tgid);

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
