/* SPDX-License-Identifier: MIT */
/*
 * Shared between the files of tracer/ only; everything outside uses
 * tracer.h.
 */
#ifndef IOTRACE_TRACER_INT_H
#define IOTRACE_TRACER_INT_H

#include <signal.h>
#include <time.h>
#include "tracer/tracer.h"

/* SIGTERM or SIGHUP received by iotrace while tracing; 0 if none. */
extern volatile sig_atomic_t tracer_fatal_signal;
/* The first traced process, killed by the handler of those signals. */
extern volatile sig_atomic_t tracer_leader;

/* Forks the child and seizes it, stopped; returns its pid or -errno. */
pid_t tracer_spawn(const struct tracer_opts *opts,
		   const struct tracer_child *child);

/* Per-task state, in a table keyed by tid (tasks.c). */
struct task {
	pid_t tid;		/* 0: free slot */
	bool in_syscall;	/* between the entry and the exit stop */
	uint32_t arch;
	int nr;
	uint64_t args[6];
	uint64_t entry_ns;
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

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
