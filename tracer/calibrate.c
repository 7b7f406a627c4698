// SPDX-License-Identifier: MIT
/*
 * Calibration: what does tracing add to the time of one call?  A traced
 * helper makes a trivial syscall (getppid) CALIB_CALLS times under exactly
 * the run's engine and tracing mode (seccomp or not, pinned or not); the
 * median time the engine reports, minus the median of the same call made
 * untraced, is the fixed cost the engine adds (for ptrace, a stop pair).
 * The profile subtracts it from every timed call, never going below zero.
 * Medians, because a shared machine adds outliers that a mean would carry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/tracer-int.h"

#define CALIB_CALLS 64

struct samples {
	uint64_t ns[CALIB_CALLS];
	size_t n;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(struct samples *s)
{
	if (!s->n)
		return 0;
	qsort(s->ns, s->n, sizeof(s->ns[0]), cmp_u64);
	return s->ns[s->n / 2];
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

	if (ev->nr == SYS_getppid && s->n < CALIB_CALLS)
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

int calibrate_by_run(const struct tracer_engine *e,
		     const struct tracer_opts *opts, uint64_t *overhead_ns)
{
	struct tracer_opts o = *opts;
	struct tracer_target target = { .kind = TARGET_FUNCTION,
					.child = { calib_child, NULL } };
	struct samples *s = calloc(1, sizeof(*s));
	struct tracer_sink sink = { calib_sink, s };
	struct syscall_set only;
	struct tracer_result res;
	uint64_t traced, bare;
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
	if (!err) {
		traced = median(s);
		bare = untraced_median(s);
		*overhead_ns = traced > bare ? traced - bare : 0;
	}
	free(s);
	return err;
}
