// SPDX-License-Identifier: MIT
/*
 * What the agent adds to a call, measured before a run as the ptrace
 * engine measures its stop cost: a child makes CALIB_CALLS getppid under
 * the agent, and iotrace the same calls untraced.
 *
 * - The correction: a task with dispatch on pays for it in every call
 *   the agent makes (the kernel's slower entry and exit paths), which the
 *   agent's clock sees.  The fastest getppid the agent times minus the
 *   fastest untraced one (the minimum: what the call cannot do faster,
 *   robust to preemption); the agent subtracts it.
 * - The dispatch cost: what each call handled by the agent adds to the
 *   wall (the signal, the handler, the return), for the untraced
 *   estimate: the child's loop, timed by the child itself, minus the
 *   untraced loop, per call.
 */
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/agent-int.h"

#define CALIB_CALLS 2000

/* Under the agent: the loop's wall goes to the shared page at arg. */
static int calib_child(void *arg)
{
	uint64_t t0 = mono_ns();
	int i;

	for (i = 0; i < CALIB_CALLS; i++)
		syscall(SYS_getppid);
	*(volatile uint64_t *)arg = mono_ns() - t0;
	return 0;
}

static void calib_event(void *ctx, const struct tracer_event *ev)
{
	(void)ctx;
	(void)ev;
}

static void calib_aggregate(void *ctx, const struct tracer_aggregate *a)
{
	if (a->nr == SYS_getppid && a->timed)
		*(uint64_t *)ctx = a->min_ns;
}

/* The same calls untraced: the fastest, and the loop's wall. */
static uint64_t untraced_min_ns(uint64_t *wall)
{
	uint64_t t0, t1, start = mono_ns(), min = UINT64_MAX;
	int i;

	for (i = 0; i < CALIB_CALLS; i++) {
		t0 = mono_ns();
		syscall(SYS_getppid);
		t1 = mono_ns();
		if (t1 - t0 < min)
			min = t1 - t0;
	}
	*wall = mono_ns() - start;
	return min;
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void agent_calibrate_costs(const struct tracer_opts *opts,
			   struct agent_costs *costs)
{
	uint64_t *wall, min = 0, untraced_min, untraced_wall;
	struct tracer_target t = { .kind = TARGET_FUNCTION };
	struct tracer_sink sink = { calib_event, &min, calib_aggregate };
	struct tracer_result res;

	memset(costs, 0, sizeof(*costs));
	wall = mmap(NULL, sizeof(*wall), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (wall == MAP_FAILED)
		return;
	*wall = 0;
	t.child.run = calib_child;
	t.child.arg = wall;
	if (agent_run(opts, &t, &sink, &res) == 0 && min) {
		untraced_min = untraced_min_ns(&untraced_wall);
		costs->correction_ns = minus(min, untraced_min);
		costs->dispatch_ns = minus(*wall, untraced_wall) /
				     CALIB_CALLS;
	}
	munmap(wall, sizeof(*wall));
}
