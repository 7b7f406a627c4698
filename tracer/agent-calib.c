// SPDX-License-Identifier: MIT
/*
 * What the agent adds to a call, measured before a run as the ptrace
 * engine measures its stop cost: a child makes CALIB_CALLS getppid and
 * as many 1-byte pwrite to a memfd under the agent, and iotrace the same
 * calls untraced.
 *
 * - The corrections: a task with dispatch on pays for it in every call
 *   the agent makes (the kernel's slower entry and exit paths), which the
 *   agent's clock sees.  For calls that move no data, the fastest
 *   getppid the agent times minus the fastest untraced one (the minimum:
 *   what the call cannot do faster, robust to preemption).  A call that
 *   moves data pays more: the signal's frame and the handler leave the
 *   caches its longer path uses colder (1-byte writes to tmpfs, means of
 *   200,000: 0.24 us more than untraced after getppid's correction).  Its
 *   correction is the median pwrite the agent times minus the median
 *   untraced one (the agent records each time it measured, in the
 *   calibration run only).
 * - The dispatch cost: what each call handled by the agent adds to the
 *   wall (the signal, the handler, the return), for the untraced
 *   estimate: the child's getppid loop, timed by the child itself, minus
 *   the untraced loop, per call.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/agent-int.h"

#define CALIB_CALLS 2000

struct calib_shared {
	uint64_t wall;		/* the child's getppid loop */
	int fd;			/* the memfd its writes go to */
};

/* Under the agent: the getppid loop's wall goes to the shared page. */
static int calib_child(void *arg)
{
	struct calib_shared *c = arg;
	uint64_t t0 = mono_ns();
	char b = 0;
	int i;

	for (i = 0; i < CALIB_CALLS; i++)
		syscall(SYS_getppid);
	c->wall = mono_ns() - t0;
	for (i = 0; i < CALIB_CALLS && c->fd >= 0; i++)
		if (pwrite(c->fd, &b, 1, 0) != 1)
			return 1;
	return 0;
}

static void calib_event(void *ctx, const struct tracer_event *ev)
{
	(void)ctx;
	(void)ev;
}

static void calib_aggregate(void *ctx, const struct tracer_aggregate *a)
{
	if (a->nr == SYS_getppid && a->timed && !a->file)
		*(uint64_t *)ctx = a->min_ns;
}

/* The median of the times the agent recorded for nr. */
static uint64_t agent_median(const struct agent_calib *c, int nr,
			     uint64_t *v)
{
	uint32_t i, n = c->n < AGENT_CALIB_MAX ? c->n : AGENT_CALIB_MAX;
	size_t k = 0;

	for (i = 0; i < n; i++)
		if ((int)(c->rec[i] >> 22) == nr)
			v[k++] = c->rec[i] & AGENT_CALIB_NS_MAX;
	return median_u64(v, k);
}

/*
 * The same calls untraced: getppid's fastest and its loop's wall, the
 * writes' median; v has room for CALIB_CALLS.
 */
static void untraced(int fd, uint64_t *v, uint64_t *min, uint64_t *wall,
		     uint64_t *write_median)
{
	uint64_t t0, t1, start = mono_ns();
	char b = 0;
	int i;

	*min = UINT64_MAX;
	for (i = 0; i < CALIB_CALLS; i++) {
		t0 = mono_ns();
		syscall(SYS_getppid);
		t1 = mono_ns();
		if (t1 - t0 < *min)
			*min = t1 - t0;
	}
	*wall = mono_ns() - start;
	for (i = 0; i < CALIB_CALLS && fd >= 0; i++) {
		t0 = mono_ns();
		if (pwrite(fd, &b, 1, 0) != 1)
			break;
		v[i] = mono_ns() - t0;
	}
	*write_median = median_u64(v, (size_t)i);
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The run under the agent, its calls recorded into calib. */
static int run_child(const struct tracer_opts *opts, struct calib_shared *c,
		     struct agent_calib *calib, uint64_t *min)
{
	struct tracer_target t = { .kind = TARGET_FUNCTION };
	struct tracer_sink sink = { calib_event, min, calib_aggregate };
	struct tracer_result res;
	int err;

	t.child.run = calib_child;
	t.child.arg = c;
	agent_calib_out = calib;
	err = agent_run(opts, &t, &sink, &res);
	agent_calib_out = NULL;
	return err;
}

void agent_calibrate_costs(const struct tracer_opts *opts,
			   struct agent_costs *costs)
{
	uint64_t min = 0, untraced_min, untraced_wall, write_median, *v;
	struct agent_calib *calib = calloc(1, sizeof(*calib));
	struct calib_shared *c;

	memset(costs, 0, sizeof(*costs));
	v = calloc(AGENT_CALIB_MAX, sizeof(*v));
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED)
		c = NULL;
	if (!calib || !v || !c)
		goto out;
	/* No memfd: data calls get getppid's correction. */
	c->fd = memfd_create("iotrace-calib", MFD_CLOEXEC);
	if (run_child(opts, c, calib, &min) == 0 && min) {
		untraced(c->fd, v, &untraced_min, &untraced_wall,
			 &write_median);
		costs->correction_ns = minus(min, untraced_min);
		costs->correction_io_ns = c->fd < 0 ? 0 :
			minus(agent_median(calib, SYS_pwrite64, v),
			      write_median);
		if (costs->correction_io_ns < costs->correction_ns)
			costs->correction_io_ns = costs->correction_ns;
		costs->dispatch_ns = minus(c->wall, untraced_wall) /
				     CALIB_CALLS;
	}
	if (c->fd >= 0)
		close(c->fd);
out:
	if (c)
		munmap(c, sizeof(*c));
	free(v);
	free(calib);
}
