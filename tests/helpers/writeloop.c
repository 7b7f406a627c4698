// SPDX-License-Identifier: MIT
/*
 * writeloop FILE COUNT SIZE [THREADS] [-t]: COUNT write(2) calls of SIZE
 * bytes to FILE from each of THREADS threads (default 1).  With -t it
 * times each call itself (CLOCK_MONOTONIC, vDSO: no syscall) and prints
 * "self-timed write: N calls, mean M ns, median D ns" on stderr: the
 * ground truth for the benchmark.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long count, size;
static int fd, timed;
static char buf[1 << 16];
static unsigned long long *samples;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void *writer(void *arg)
{
	unsigned long long t0;
	long i;

	(void)arg;
	for (i = 0; i < count; i++) {
		t0 = timed ? now_ns() : 0;
		if (write(fd, buf, size) != size) {
			perror("write");
			exit(1);
		}
		if (timed)
			samples[i] = now_ns() - t0;
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

static void report(void)
{
	unsigned long long sum = 0;
	long i;

	for (i = 0; i < count; i++)
		sum += samples[i];
	qsort(samples, count, sizeof(*samples), cmp);
	fprintf(stderr, "self-timed write: %ld calls, mean %llu ns, "
		"median %llu ns\n", count, sum / count, samples[count / 2]);
}

int main(int argc, char **argv)
{
	pthread_t tids[64];
	long i, threads = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: writeloop FILE COUNT SIZE [THREADS] [-t]\n");
		return 2;
	}
	count = atol(argv[2]);
	size = atol(argv[3]);
	if (argc > 4 && strcmp(argv[4], "-t"))
		threads = atol(argv[4]);
	timed = !strcmp(argv[argc - 1], "-t") && threads == 1;
	if (count < 1 || size < 1 || size > (long)sizeof(buf) || threads < 1 ||
	    threads > 64)
		return 2;
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	if (timed && !(samples = malloc(count * sizeof(*samples))))
		return 1;
	/* One writer runs in main: no thread, so the process stays one task. */
	if (threads == 1)
		writer(NULL);
	for (i = 0; threads > 1 && i < threads; i++)
		pthread_create(&tids[i], NULL, writer, NULL);
	for (i = 0; threads > 1 && i < threads; i++)
		pthread_join(tids[i], NULL);
	if (timed)
		report();
	return close(fd) ? 1 : 0;
}
