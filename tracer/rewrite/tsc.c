// SPDX-License-Identifier: MIT
/*
 * The trampolines' clock: rdtsc, two per call (cheaper than a vDSO
 * clock_gettime, and callable from a trampoline), turned into ns by a multiply and a
 * shift that iotrace calibrates against CLOCK_MONOTONIC once per run.
 * Only where the TSC ticks at one rate in every state and on every CPU
 * (constant_tsc and nonstop_tsc): elsewhere there is no fast path, and
 * the header says why.  rw_tsc_unusable() also says so of a CPU without
 * cmpxchg16b (cx16: the first AMD64s), which the trampolines take.
 */
#include <cpuid.h>
#include <errno.h>
#include <time.h>
#include <x86intrin.h>
#include "tracer/rewrite/rewrite.h"

#define TSC_SHIFT 32

/*
 * The CPU's answer: the kernel's constant_tsc and nonstop_tsc flags both
 * come from CPUID's invariant-TSC bit (leaf 0x80000007, EDX bit 8) on
 * Intel and AMD, cx16 from leaf 1's ECX.  Asked of the CPU, not of
 * /proc/cpuinfo, which the kernel writes out for every CPU at each read:
 * 30-90 us of every run's start.
 */
static const char *tsc_why_not(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(0x80000007, &a, &b, &c, &d) || !(d & (1u << 8)))
		return "the TSC is not invariant (no constant_tsc and "
		       "nonstop_tsc)";
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_CMPXCHG16B))
		return "the CPU lacks cmpxchg16b (no cx16)";
	return NULL;
}

const char *rw_tsc_unusable(void)
{
	static const char *why;
	static bool known;

	if (!known) {
		why = tsc_why_not();
		known = true;
	}
	return why;
}

int rw_tsc_scale(uint64_t ticks, uint64_t ns, struct rw_tsc *t)
{
	if (!ticks || !ns || ns >= (1ull << 32) * 1000)
		return -EINVAL;
	t->shift = TSC_SHIFT;
	t->mult = (uint64_t)(((unsigned __int128)ns << TSC_SHIFT) / ticks);
	return t->mult ? 0 : -EINVAL;
}

uint64_t rw_tsc_ns(const struct rw_tsc *t, uint64_t ticks)
{
	return (uint64_t)(((unsigned __int128)ticks * t->mult) >> t->shift);
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A TSC reading and the CLOCK_MONOTONIC time it was taken at: of five
 * readings between two clock reads, the one with the tightest pair, so
 * a preemption costs its own width, not the calibration.
 */
static void tight_reading(uint64_t *mono, uint64_t *ticks)
{
	uint64_t a0, a1, c, best = ~0ull;
	int i;

	for (i = 0; i < 5; i++) {
		a0 = mono_now(); c = __rdtsc(); a1 = mono_now();
		if (a1 - a0 < best) {
			best = a1 - a0;
			*mono = a0 + (a1 - a0) / 2;
			*ticks = c;
		}
	}
}

/*
 * Ticks against ns over about 2 ms, a tight reading at each end: each
 * end is good to a few tens of ns, so the scale to a few parts in
 * 100,000, and a short run does not wait 20 ms for it.
 */
int rw_tsc_calibrate(struct rw_tsc *t)
{
	struct rw_tsc_mark m;

	rw_tsc_mark(&m);
	return rw_tsc_since(&m, 2000000, t);
}

void rw_tsc_mark(struct rw_tsc_mark *m)
{
	tight_reading(&m->mono, &m->ticks);
}

int rw_tsc_since(const struct rw_tsc_mark *m, uint64_t min_ns,
		 struct rw_tsc *t)
{
	uint64_t m1, k1, now = mono_now();

	if (now < m->mono + min_ns) {
		uint64_t left = m->mono + min_ns - now;
		struct timespec pause = { (time_t)(left / 1000000000u),
					  (long)(left % 1000000000u) };

		nanosleep(&pause, NULL);
	}
	tight_reading(&m1, &k1);
	if (k1 <= m->ticks || m1 <= m->mono)
		return -EINVAL;
	return rw_tsc_scale(k1 - m->ticks, m1 - m->mono, t);
}
