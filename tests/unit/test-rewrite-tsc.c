// SPDX-License-Identifier: MIT
/*
 * The trampolines' clock: the scale is the ratio given, exact to a part
 * in 2^32; the calibration turns a sleep's ticks into about its length
 * (a wide bound: a sanity check, not a timing); and where the CPU says
 * its TSC is usable, iotrace agrees, as it does on cmpxchg16b, and so
 * does the kernel's /proc/cpuinfo (iotrace asks CPUID).
 */
#include <cpuid.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>
#include "tap.h"
#include "tracer/rewrite/rewrite.h"

/* Whether the kernel's first flags line in /proc/cpuinfo has flag. */
static bool kernel_flag(const char *flag)
{
	char line[8192], *p;
	size_t n = strlen(flag);
	bool has = false;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			for (p = line; (p = strstr(p, flag)); p += n)
				if (p[-1] == ' ' && (p[n] == ' ' || p[n] == '\n'))
					has = true;
			break;
		}
	if (f)
		fclose(f);
	return has;
}

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int main(void)
{
	struct timespec d = { 0, 50000000 };
	struct rw_tsc t;
	uint64_t c0, c1, n0, n1, ns;
	const char *why;

	is_int(rw_tsc_scale(2100000000ull, 1000000000ull, &t), 0,
	       "2.1 GHz: a scale");
	is_int(rw_tsc_ns(&t, 2100), 999, "2,100 ticks are 1 us (less a part "
	       "in 2^32, rounded down)");
	ns = rw_tsc_ns(&t, 2100000000ull * 3600);
	ok(ns <= 3600000000000ull && 3600000000000ull - ns < 3600000000000ull >> 31,
	   "an hour's ticks, to a part in 2^31 (%llu ns)",
	   (unsigned long long)ns);
	is_int(rw_tsc_ns(&t, 0), 0, "no ticks, no time");
	is_int(rw_tsc_scale(0, 1000, &t), -EINVAL, "no ticks: no scale");
	is_int(rw_tsc_scale(1000, 0, &t), -EINVAL, "no time: no scale");

	why = rw_tsc_unusable();
	{
		unsigned a, b, c = 0, d;
		bool cx16 = __get_cpuid(1, &a, &b, &c, &d) &&
			    (c & bit_CMPXCHG16B);

		ok(cx16 ? !(why && strstr(why, "cx16")) : why != NULL,
		   "cmpxchg16b %s here, and iotrace says so (%s)",
		   cx16 ? "runs" : "lacks", why ? why : "usable");
	}
	{
		bool usable = kernel_flag("constant_tsc") &&
			      kernel_flag("nonstop_tsc") && kernel_flag("cx16");

		ok(usable == !why, "the kernel's flags say the TSC is %s, and "
		   "so does iotrace (%s)", usable ? "usable" : "not usable",
		   why ? why : "usable");
	}
	if (why) {
		printf("# skipped calibration: %s\n", why);
	} else {
		is_int(rw_tsc_calibrate(&t), 0, "calibrated");
		n0 = mono(); c0 = __rdtsc();
		nanosleep(&d, NULL);
		c1 = __rdtsc(); n1 = mono();
		ns = rw_tsc_ns(&t, c1 - c0);
		ok(ns > (n1 - n0) / 2 && ns < (n1 - n0) * 2,
		   "a 50 ms sleep in ticks is about its monotonic length "
		   "(%llu ns vs %llu)", (unsigned long long)ns,
		   (unsigned long long)(n1 - n0));
	}
	done_testing();
}
