// SPDX-License-Identifier: MIT
/*
 * The ptrace engine: iotrace stops the traced tasks and reads each call
 * from outside.  It has two modes.  With the seccomp-bpf filter (the
 * default where the kernel and the options allow it) tasks run freely
 * until the filter stops them at a call to trace, so untraced calls cost
 * nothing; without it (PTRACE_SYSCALL) every call stops at entry and exit.
 * Reports name the mode: "seccomp-bpf" or "ptrace".
 *
 * A run builds the plan (the action per syscall, and the filter), lets
 * the target take hold of its first tasks, and hands them to the stop loop
 * (loop.c) until no traced task is left.  What the engine can trace is
 * the table below, one row per kind of target; each row is a file that
 * knows how to get hold of tasks and let go of them (spawn.c, attach.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "tracer/ptrace/ptrace-int.h"
#include "unwind/unwind.h"

static const struct ptrace_target *const ptrace_targets[TARGET_NKINDS] = {
	[TARGET_COMMAND] = &spawn_target,
	[TARGET_FUNCTION] = &spawn_target,
	[TARGET_PIDS] = &attach_target,
};

/*
 * The stop loop's extensions (ptrace.h), tried in order: the first whose
 * start() says it is on serves the run.
 */
const struct loop_hooks *const loop_extensions[] = {
	&fast_hooks,
	NULL,
};

static const struct ptrace_target *target_of(const struct tracer_target *t)
{
	return (unsigned)t->kind < TARGET_NKINDS ? ptrace_targets[t->kind] :
						    NULL;
}

/*
 * The filter is loaded by the traced program's first task before it runs
 * the program, so only a target started by iotrace can have it; the rest
 * is the kernel's and the options' say (seccomp.c).
 */
static const char *target_probe(const struct ptrace_target *pt,
				const struct tracer_opts *opts,
				const struct tracer_target *target)
{
	const char *why;

	if (opts->seccomp) {
		if (!pt->from_birth)
			return "the seccomp filter can only be given to a "
			       "process iotrace starts";
		why = tracer_seccomp_unusable(opts);
		if (why)
			return why;
	}
	return pt->probe ? pt->probe(opts, target) : NULL;
}

static const char *ptrace_probe(const struct tracer_opts *opts,
				const struct tracer_target *target)
{
	const struct ptrace_target *pt = target_of(target);

	if (!pt)
		return "the ptrace engine cannot trace this kind of target";
	return target_probe(pt, opts, target);
}

static void result_init(struct tracer_result *res,
			const struct tracer_opts *opts)
{
	memset(res, 0, sizeof(*res));
	res->engine = opts->seccomp ? "seccomp-bpf" : "ptrace";
}

/* The extensions' prepare() runs in the run's own calibrate_start(). */
static int ptrace_calibrate(const struct tracer_opts *opts,
			    struct tracer_calibration *c)
{
	return calibrate_by_run(&ptrace_engine, opts, c);
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u +
	       (uint64_t)tv->tv_usec * 1000u;
}

/*
 * CPU time of what the run started: iotrace's reaped children grow by
 * the first process, which carries the children it waited for.  Read
 * around the run rather than from each wait: wait4's rusage would sum
 * the task's threads at every stop.  Nothing for attached processes,
 * which are not iotrace's children.
 */
static void children_cpu(struct rusage *ru)
{
	if (getrusage(RUSAGE_CHILDREN, ru) < 0)
		memset(ru, 0, sizeof(*ru));
}

static void cpu_delta(struct tracer_result *res, const struct rusage *a,
		      const struct rusage *b)
{
	res->user_ns = tv_ns(&b->ru_utime) - tv_ns(&a->ru_utime);
	res->sys_ns = tv_ns(&b->ru_stime) - tv_ns(&a->ru_stime);
}

/*
 * The first extension of the loop that is on for this run becomes
 * l->hooks.  Each start() may add to the plan's filter, so after it.
 */
static int hooks_start(struct loop *l, const struct tracer_target *target)
{
	const struct loop_hooks *const *h;
	int on;

	for (h = loop_extensions; *h; h++) {
		on = (*h)->start(l, target);
		if (on < 0)
			return on;
		if (on) {
			l->hooks = *h;
			break;
		}
	}
	return 0;
}

static void hooks_finish(struct loop *l)
{
	if (l->hooks)
		l->hooks->finish(l);
}

/*
 * opts->calibrate: a target started for the run makes the calibration's
 * calls in its first task (calibrate.c); for any other, a run of its own
 * first.  The extensions' own measurements start before either.
 */
static int calibrate_start(struct loop *l)
{
	const struct loop_hooks *const *h;
	struct tracer_calibration c;
	int err;

	for (h = loop_extensions; *h; h++)
		if ((*h)->prepare)
			(*h)->prepare(l->opts, pin_allowed(&l->pin));
	if (!l->opts->calibrate)
		return 0;
	if (l->target->from_birth) {
		l->calib = calib_run_new();
		return l->calib ? 0 : -ENOMEM;
	}
	err = calibrate_by_run(&ptrace_engine, l->opts, &c);
	if (l->sink->calibrated)
		l->sink->calibrated(l->sink->ctx, &c, err);
	return 0;
}

/* The plan, the target's first tasks, the stop loop, and what it leaves. */
static int run_loop(struct loop *l, const struct tracer_target *target)
{
	const struct ptrace_target *pt = l->target;
	struct tracer_result *res = l->res;
	struct rusage before, after;
	int err;

	task_table_init(&l->tasks);
	/*
	 * Pinned first: the fast path's calibration thread (an extension's
	 * prepare, in calibrate_start) takes a CPU of iotrace's mask before
	 * the pin other than the one iotrace is pinned to.  Pinned after
	 * it, iotrace could be pinned to the thread's CPU, and the
	 * command's start wait for its ms of calls.
	 */
	if (l->opts->pin && pt->from_birth)
		pin_start(&l->pin);
	err = calibrate_start(l);
	if (!err)
		err = plan_build(&l->plan, l->opts);
	if (!err)
		err = hooks_start(l, target);
	if (err < 0)
		goto out_plan;
	if (l->opts->stacks) {
		l->unwind = unwinder_new(l->opts->stacks, l->opts->stack_depth,
					 l->opts->stack_sample);
		if (!l->unwind) {
			err = -ENOMEM;
			goto out_plan;
		}
	}
	children_cpu(&before);
	tracer_meminfo_read(&res->mem_before);
	err = pt->start(l, target);
	if (err < 0)
		goto out_unpin;
	res->start_ns = mono_ns();
	err = loop_run(l);
	calib_run_end(l);	/* -EIO: the first task ended it early */
	hooks_finish(l);
	res->end_ns = mono_ns();
	tracer_meminfo_read(&res->mem_after);
	if (pt->finish)
		pt->finish(l);
	children_cpu(&after);
	if (pt->from_birth)
		cpu_delta(res, &before, &after);
	res->fatal_signal = tracer_fatal_signal;
	/* The signal handler has nothing left to kill. */
	tracer_leader_reaped();
out_unpin:
	unwinder_free(l->unwind);
out_plan:
	free(l->calib);		/* the run never started: nothing to say */
	l->calib = NULL;
	hooks_finish(l);
	plan_release(&l->plan);
	task_table_release(&l->tasks);
	if (l->pin.active)
		pin_end(&l->pin, 0, 0);
	return err;
}

int ptrace_run_target(const struct ptrace_target *pt,
		      const struct tracer_opts *opts,
		      const struct tracer_target *target,
		      const struct tracer_sink *sink, struct tracer_result *res)
{
	struct loop l = { .opts = opts, .target = pt, .sink = sink,
			  .res = res };

	result_init(res, opts);
	if (target_probe(pt, opts, target))
		return -EINVAL;
	return run_loop(&l, target);
}

static int ptrace_run(const struct tracer_opts *opts,
		      const struct tracer_target *target,
		      const struct tracer_sink *sink, struct tracer_result *res)
{
	const struct ptrace_target *pt = target_of(target);

	if (!pt) {
		result_init(res, opts);
		return -EINVAL;
	}
	return ptrace_run_target(pt, opts, target, sink, res);
}

/* Without the filter every call stops, but every target can be had. */
static bool drop_seccomp(struct tracer_opts *opts)
{
	if (!opts->seccomp)
		return false;
	opts->seccomp = false;
	return true;
}

static const struct tracer_fallback ptrace_fallbacks[] = {
	{ "no seccomp filter", "every call stops", drop_seccomp },
	{ NULL, NULL, NULL },
};

const struct tracer_engine ptrace_engine = {
	.name = "ptrace",
	.probe = ptrace_probe,
	.calibrate = ptrace_calibrate,
	.run = ptrace_run,
	.fallbacks = ptrace_fallbacks,
};
