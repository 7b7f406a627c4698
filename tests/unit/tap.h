/* SPDX-License-Identifier: MIT */
/*
 * A tiny TAP producer for unit tests: ok(), is_int(), is_str(),
 * done_testing().  Each unit test is one binary run by prove.
 */
#ifndef IOTRACE_TAP_H
#define IOTRACE_TAP_H

#include <stdio.h>
#include <string.h>

static int tap_run, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int tap_ok(int pass, const char *file, int line,
			 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static inline int tap_ok(int pass, const char *file, int line,
			 const char *fmt, ...)
{
	va_list ap;

	tap_run++;
	if (!pass)
		tap_failed++;
	printf("%s %d - ", pass ? "ok" : "not ok", tap_run);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass)
		printf("#   failed at %s:%d\n", file, line);
	return pass;
}

#define is_int(got, want, ...)                                              \
	do {                                                                \
		long long g_ = (long long)(got), w_ = (long long)(want);    \
		if (!ok(g_ == w_, __VA_ARGS__))                             \
			printf("#   got %lld, want %lld\n", g_, w_);        \
	} while (0)

#define is_str(got, want, ...)                                              \
	do {                                                                \
		const char *g_ = (got), *w_ = (want);                       \
		if (!ok(g_ && w_ && !strcmp(g_, w_), __VA_ARGS__))          \
			printf("#   got:\n%s\n#   want:\n%s\n",             \
			       g_ ? g_ : "(null)", w_ ? w_ : "(null)");     \
	} while (0)

static inline int done_testing(void)
{
	printf("1..%d\n", tap_run);
	return tap_failed ? 1 : 0;
}

#endif
