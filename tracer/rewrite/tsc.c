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
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include "tracer/rewrite/rewrite.h"

#define TSC_SHIFT 32

static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = flags;

	while ((p = strstr(p, flag))) {
		if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' ||
						     !p[n]))
			return true;
		p += n;
	}
	return false;
}

/* /proc/cpuinfo's answer, read once: the kernel writes it out for
 * every CPU at each read, which takes longer than the rest of a run's
 * start. */
static const char *tsc_why_not(void)
{
	char line[4096];
	bool constant = false, nonstop = false, cx16 = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return "/proc/cpuinfo cannot be read";
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			constant = has_flag(line, "constant_tsc");
			nonstop = has_flag(line, "nonstop_tsc");
			cx16 = has_flag(line, "cx16");
			break;
		}
	fclose(f);
	if (!constant)
		return "the TSC rate varies (no constant_tsc)";
	if (!nonstop)
		return "the TSC stops in deep idle states (no nonstop_tsc)";
	if (!cx16)
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
