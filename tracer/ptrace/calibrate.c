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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

/* Enough for a median and quartiles; each is a stop pair of every run's
 * start-up. */
#define CALIB_CALLS 32

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

/* The traced samples (sorted by median()) against the untraced median. */
static void fill(struct tracer_calibration *c, struct samples *s,
		 const struct tracer_result *res)
{
	uint64_t busy = res->stops ? res->busy_ns / res->stops : 0;

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
	struct tracer_sink sink = { calib_sink, s, NULL, NULL };
	struct syscall_set only;
	struct tracer_result res;
	char bad[8];
	int err;

	if (!s)
		return -ENOMEM;
	/* Time getppid only, the way the run times what it times. */
	syscall_set_parse(&only, "getppid", bad, sizeof(bad));
	o.trace = &only;
	o.count = NULL;
	err = e->run(&o, &target, &sink, &res);
	if (!err && s->n < CALIB_CALLS / 2)
		err = -EIO;
	if (!err)
		fill(c, s, &res);
	free(s);
	return err;
}
