// SPDX-License-Identifier: MIT
/*
 * spinwrite FILE COUNT SIZE SPIN: COUNT write(2) calls of SIZE bytes to
 * FILE, with SPIN steps of work in registers before each (a multiply
 * and an add, ~1 ns here; no memory, whose speed a tracer can change: a
 * volatile counter's loop ran 30% faster between trampolined calls),
 * timing its own calls (CLOCK_MONOTONIC, vDSO: no syscall) and its loop,
 * and printing on stderr "spinwrite: N calls, S ns in calls, W ns loop
 * wall, X% in calls": the ground truth of a share of wall in syscalls,
 * which SPIN sets (shared/TRUTH.md, way 1).  About one clock read
 * (~24 ns) falls inside each call's time.
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

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	unsigned long long in_calls = 0, t0, t1, start, x = 1;
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
		in_calls += t1 - t0;
	}
	t1 = now_ns() - start;
	fprintf(stderr, "spinwrite: %ld calls, %llu ns in calls, %llu ns loop "
		"wall, %.1f%% in calls\n", count, in_calls, t1,
		t1 ? 100.0 * (double)in_calls / (double)t1 : 0.0);
	return close(fd) ? 1 : 0;
}
