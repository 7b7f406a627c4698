// SPDX-License-Identifier: MIT
/*
 * The debug channel (--debug, IOTRACE_DEBUG=1): the engine's decisions,
 * one line each on stderr, stamped with the ms since main() began
 * (iotrace's own loading, before it, is not in the stamps).  What is patched and what is refused,
 * the filter's plan, fallbacks, calibrations, the untraced runs: what a
 * developer or a puzzled user needs to see why a run went the way it
 * did.  Off, a line costs one test of a flag; nothing here runs in the
 * stop loop's common path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "tracer/tracer.h"

bool tracer_debug_on;
static uint64_t debug_t0_ns;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tracer_debug_init(bool asked)
{
	const char *env = getenv("IOTRACE_DEBUG");

	if (tracer_debug_on)
		return;		/* the first call's start stays */
	tracer_debug_on = asked || (env && *env && strcmp(env, "0"));
	debug_t0_ns = now_ns();
}

void tracer_debugf(const char *fmt, ...)
{
	char line[512];
	uint64_t t = now_ns() - debug_t0_ns;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One write, so lines from iotrace and the command do not mix. */
	fprintf(stderr, "iotrace: debug: %4llu.%03llu ms %s\n",
		(unsigned long long)(t / 1000000),
		(unsigned long long)(t / 1000 % 1000), line);
}
