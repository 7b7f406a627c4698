// SPDX-License-Identifier: MIT
/*
 * Calibration: what does tracing add to the time of one call?  A traced
 * helper makes a trivial syscall (getppid) CALIB_CALLS times under exactly
 * the run's engine and tracing mode (seccomp or not, pinned or not); the
 * median time the engine reports, minus the median of the same call made
 * untraced, is the fixed cost the engine adds (for ptrace, a stop pair).
 * The profile subtracts it from every timed call, never going below zero.
 * Medians, because a shared machine adds outliers that a mean would carry.
 *
 * Two more things come out of the same calls: the quartiles of that cost
 * (how far one corrected call can be trusted), and what a traced call
 * adds to the *wall clock*, which is more than the gap between its two
 * stops: the tracer's work after the exit stop and the wake-up before the
 * next call are outside it.  That is the median time from one call's
 * entry stop to the next's, minus an untraced call.
 *
 * A run that starts its target (spawn.c) measures in the target's own
 * first task, before it runs the command: the task makes the calls with
 * CALIB_MAGIC in their first argument, which the plan's filter stops and
 * the loop takes for the calibration's (calib_act(), calib_event()).
 * So the run's own filter, pinning and hooks are measured, and no child
 * is started for it.  Runs of other targets, and the measurement after a
 * run, run a child of their own (calibrate_by_run()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

/*
 * Enough for a median and quartiles.  The first measurement, in the
 * command's first task, is half as many: each of its calls is a stop pair
 * of every run's start (~15 us), and what its error adds up to is in
 * proportion to the run's stops; a run of many stops is measured again
 * after it, with all CALIB_CALLS (session.c).
 */
#define CALIB_CALLS 32
#define CALIB_RUN_CALLS 16

struct samples {
	uint64_t ns[CALIB_CALLS];
	uint64_t cycle_ns[CALIB_CALLS];	/* entry to the next call's entry */
	size_t n;
	uint64_t last_entry_ns;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t median_u64(uint64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

static uint64_t median(struct samples *s)
{
	return median_u64(s->ns, s->n);
}

static int calib_child(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < CALIB_CALLS; i++)
		syscall(SYS_getppid);
	return 0;
}

static void calib_sink(void *ctx, const struct tracer_event *ev)
{
	struct samples *s = ctx;

	if (ev->nr != SYS_getppid || s->n >= CALIB_CALLS)
		return;
	if (s->n)
		s->cycle_ns[s->n - 1] = ev->entry_ns - s->last_entry_ns;
	s->last_entry_ns = ev->entry_ns;
	s->ns[s->n++] = ev->exit_ns - ev->entry_ns;
}

static uint64_t untraced_median(struct samples *s)
{
	uint64_t t0;

	for (s->n = 0; s->n < CALIB_CALLS; s->n++) {
		t0 = mono_ns();
		syscall(SYS_getppid);
		s->ns[s->n] = mono_ns() - t0;
	}
	return median(s);
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The traced samples (sorted by median()) against the untraced median;
 * busy: the tracer's own work at one stop, on average. */
static void fill(struct tracer_calibration *c, struct samples *s,
		 uint64_t busy)
{

	/* Medians: one preemption would swell a mean by a whole slice. */
	uint64_t cycle = median_u64(s->cycle_ns, s->n - 1);
	uint64_t traced = median(s);
	size_t n = s->n;
	uint64_t q1 = s->ns[n / 4], q3 = s->ns[n * 3 / 4];

	c->bare_ns = untraced_median(s);
	c->overhead_ns = minus(traced, c->bare_ns);
	c->overhead_lo_ns = minus(q1, c->bare_ns);
	c->overhead_hi_ns = minus(q3, c->bare_ns);
	c->pair_ns = minus(cycle, c->bare_ns);
	c->stop_ns = minus(c->pair_ns, 2 * busy) / 2;
}

int calibrate_by_run(const struct tracer_engine *e,
		     const struct tracer_opts *opts,
		     struct tracer_calibration *c)
{
	struct tracer_opts o = *opts;
	struct tracer_target target = { .kind = TARGET_FUNCTION,
					.child = { calib_child, NULL } };
	struct samples *s = calloc(1, sizeof(*s));
	struct tracer_sink sink = { calib_sink, s, NULL, NULL, NULL, NULL };
	struct syscall_set only;
	struct tracer_result res;
	char bad[8];
	int err;

	if (!s)
		return -ENOMEM;
	/* Time getppid only, the way the run times what it times; -k's
	   unwinding is outside the times, so not calibrated either. */
	syscall_set_parse(&only, "getppid", bad, sizeof(bad));
	o.trace = &only;
	o.count = NULL;
	o.stacks = NULL;
	o.calibrate = false;
	err = e->run(&o, &target, &sink, &res);
	if (!err && s->n < CALIB_CALLS / 2)
		err = -EIO;
	if (!err)
		fill(c, s, res.stops ? res.busy_ns / res.stops : 0);
	free(s);
	return err;
}

/* --- measured in the run's first task --- */

struct calib_run {
	struct samples s;
	pid_t tid;		/* the task that makes the calls */
	bool full;		/* all its calls seen: delivered at the next
				   stop, whose wait ends the last one's work */
	uint64_t last_ns;	/* the last call's exit stop: the command's
				   calls start after it */
	uint64_t stops0, busy0;	/* the run's counts at the first call */
};

struct calib_run *calib_run_new(void)
{
	return calloc(1, sizeof(struct calib_run));
}

void calib_run_calls(void)
{
	int i;

	for (i = 0; i < CALIB_RUN_CALLS; i++)
		syscall(SYS_getppid, CALIB_MAGIC);
}

static bool is_magic(uint32_t arch, int nr, const uint64_t *args)
{
	return arch == syscall_pers[0].arch && nr == SYS_getppid &&
	       args[0] == CALIB_MAGIC;
}

uint8_t calib_act(struct loop *l, const struct task *t, uint32_t arch,
		  int nr, const uint64_t *args, uint8_t act, bool *ours)
{
	struct calib_run *c = l->calib;

	*ours = false;
	if (!is_magic(arch, nr, args))
		return act;
	/* The filter stops every getppid(CALIB_MAGIC): the program's own
	   get what the plan says of getppid. */
	if (!c || c->full || t->tid != l->leader)
		return plan_action(&l->plan, arch, nr);
	if (!c->tid) {
		c->tid = t->tid;
		c->stops0 = l->res->stops;
		c->busy0 = l->res->busy_ns;
	}
	*ours = true;
	return ACT_TIME;
}

bool calib_event(struct loop *l, const struct tracer_event *ev)
{
	struct calib_run *c = l->calib;

	if (!c || c->full || ev->tid != c->tid ||
	    !is_magic(ev->arch, ev->nr, ev->args))
		return false;
	calib_sink(&c->s, ev);
	c->full = c->s.n == CALIB_RUN_CALLS;
	c->last_ns = ev->exit_ns;
	return true;
}

bool calib_run_full(const struct loop *l)
{
	return l->calib && l->calib->full;
}

void calib_run_end(struct loop *l)
{
	struct calib_run *c = l->calib;
	struct tracer_calibration cal;
	uint64_t stops;
	int err = 0;

	if (!c)
		return;
	l->calib = NULL;
	memset(&cal, 0, sizeof(cal));
	if (!c->full) {
		err = -EIO;
	} else {
		/* From the first call's stop (counted at stops0, its work
		   not yet in busy0) to the last's: this stop is counted,
		   its work not done yet. */
		stops = l->res->stops - c->stops0;
		fill(&cal, &c->s,
		     stops ? (l->res->busy_ns - c->busy0) / stops : 0);
		/* The run's wall starts where the command's calls do: at
		   the last call's exit stop, not at the next stop, which
		   the fast path may leave for much later (a built-in
		   workload's 64th hot call, where it is rewritten). */
		l->res->start_ns = c->last_ns;
	}
	free(c);
	if (l->sink->calibrated)
		l->sink->calibrated(l->sink->ctx, &cal, err);
}
