// SPDX-License-Identifier: MIT
/*
 * spinwrite FILE COUNT SIZE SPIN: COUNT write(2) calls of SIZE bytes to
 * FILE, with SPIN steps of work in registers before each (a multiply
 * and an add; no memory, whose speed a tracer can change: a volatile
 * counter's loop ran faster between trampolined calls than untraced),
 * timing its own calls (CLOCK_MONOTONIC, vDSO: no syscall) and its loop,
 * and printing on stderr "spinwrite: N calls, S ns in calls, W ns loop
 * wall, X% in calls": the ground truth of a share of wall in syscalls,
 * which SPIN sets (shared/TRUTH.md, way 1).  A call's time spans one
 * clock read (the end of the first, the start of the second): what two
 * reads back to back span (the median of 101 pairs) is taken off each,
 * as --truth does (workloads/selftime.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The median span of two clock reads back to back. */
static unsigned long long clock_cost(void)
{
	unsigned long long d[101], t0;
	int i;

	for (i = 0; i < 101; i++) {
		t0 = now_ns();
		d[i] = now_ns() - t0;
	}
	qsort(d, 101, sizeof(*d), cmp_ull);
	return d[50];
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	unsigned long long in_calls = 0, t0, t1, start, x = 1, clock;
	long count, size, spin, i, k;
	int fd;

	if (argc != 5)
		return 2;
	count = atol(argv[2]);
	size = atol(argv[3]);
	spin = atol(argv[4]);
	if (size < 0 || size > (long)sizeof(buf))
		return 2;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	clock = clock_cost();
	start = now_ns();
	for (i = 0; i < count; i++) {
		/* work in registers: a multiply the compiler cannot drop */
		for (k = 0; k < spin; k++) {
			x = x * 6364136223846793005ull + 1;
			__asm__ volatile("" : "+r"(x));
		}
		t0 = now_ns();
		if (write(fd, buf, (size_t)size) != size)
			return 1;
		t1 = now_ns();
		in_calls += t1 - t0 > clock ? t1 - t0 - clock : 0;
	}
	t1 = now_ns() - start;
	fprintf(stderr, "spinwrite: %ld calls, %llu ns in calls, %llu ns loop "
		"wall, %.1f%% in calls\n", count, in_calls, t1,
		t1 ? 100.0 * (double)in_calls / (double)t1 : 0.0);
	return close(fd) ? 1 : 0;
}
