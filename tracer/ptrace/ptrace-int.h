/* SPDX-License-Identifier: MIT */
/*
 * Shared between the ptrace engine's files (tracer/ptrace/) only;
 * ptrace.h is what a target or an extension of the stop loop sees,
 * tracer.h what everything else does.  The engine is ptrace.c (the
 * engine, its tables of targets and of the loop's extensions), loop.c
 * (the stop loop), spawn.c and attach.c (its targets), and the plan,
 * pinning and the program's own seccomp below.
 */
#ifndef IOTRACE_PTRACE_INT_H
#define IOTRACE_PTRACE_INT_H

#include <signal.h>
#include "tracer/ptrace/ptrace.h"

/* SIGTERM or SIGHUP received by iotrace while tracing; 0 if none. */
extern volatile sig_atomic_t tracer_fatal_signal;
/*
 * The first traced process, killed by the handler of those signals while
 * iotrace has not reaped it; 0 if none.
 */
extern volatile sig_atomic_t tracer_leader;
/* The first process is reaped (or the run over): the handler forgets it. */
void tracer_leader_reaped(void);
/* pid is the first process, from its fork on (signals.c). */
void tracer_leader_set(pid_t pid);
int plan_build(struct plan *pl, const struct tracer_opts *opts);
void plan_release(struct plan *pl);

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

/* --- the ptrace engine (ptrace.c) --- */

/*
 * Calibration by a run (calibrate.c): a child makes a trivial call many
 * times under engine e with opts; the engine's median time for it minus
 * the untraced median.  For any engine that times calls from outside.
 */
int calibrate_by_run(const struct tracer_engine *e,
		     const struct tracer_opts *opts,
		     struct tracer_calibration *c);
/*
 * Calibration in the run's first task (calibrate.c), for opts->calibrate
 * with a target started for the run.  The task makes calib_run_calls()
 * before the command (spawn.c), getppid with CALIB_MAGIC for its first
 * argument, which the plan's filter stops (seccomp.c).  At an entry stop,
 * calib_act() gives the action of the call: ACT_TIME and *ours for the
 * calibration's, the plan's for the program's own getppid(CALIB_MAGIC);
 * calib_event() takes the calibration's events from emit().  Once
 * calib_run_full(), calib_run_end() at the next stop gives the figures
 * to sink->calibrated() (-EIO if the loop ends first), and the run's wall
 * starts at the last calibration call's exit stop.
 */
#define CALIB_MAGIC 0x696f7472616365ull		/* "iotrace" */
struct calib_run *calib_run_new(void);
void calib_run_calls(void);
uint8_t calib_act(struct loop *l, const struct task *t, uint32_t arch,
		  int nr, const uint64_t *args, uint8_t act, bool *ours);
bool calib_event(struct loop *l, const struct tracer_event *ev);
bool calib_run_full(const struct loop *l);
void calib_run_end(struct loop *l);
/* The median of n times (v sorted in place); 0 for none. */
uint64_t median_u64(uint64_t *v, size_t n);

extern const struct ptrace_target spawn_target;
extern const struct ptrace_target attach_target;
/* The fast path's row of loop_extensions[] (tracer/rewrite/hooks.c). */
extern const struct loop_hooks fast_hooks;

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

/* Handles stops until no traced task is left.  0 or -errno. */
int loop_run(struct loop *l);

#endif
