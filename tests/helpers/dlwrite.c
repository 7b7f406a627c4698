// SPDX-License-Identifier: MIT
/*
 * Tracee: code loaded by dlopen while other threads make calls.  Two
 * threads start and meet the main thread at a barrier; then they write
 * N bytes to /dev/null one write(2) at a time while the main thread
 * dlopens LIB (tests/helpers/lib/hotwrite.c) and calls its two
 * functions: N writes through libc's write(), N by the library's own
 * `mov $NR,%eax; syscall` (int $0x80 on i386).  Prints
 * "libc=L raw=R threads=T", the writes that returned 1 (N, N, 2N).
 * The truth: the write row is 4N + 1 calls, no error; the barrier and
 * the joins make as many futex calls as timing takes.
 * Usage: dlwrite LIB N.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_barrier_t start;
static int fd, n;

static void *writer(void *arg)
{
	long i, ok = 0;

	(void)arg;
	pthread_barrier_wait(&start);
	for (i = 0; i < n; i++)
		ok += write(fd, "x", 1) == 1;
	return (void *)ok;
}

int main(int argc, char **argv)
{
	int (*libc_writes)(int, int), (*raw_writes)(int, int);
	int libc = 0, raw = 0, threads = 0, i;
	pthread_t t[2];
	void *lib, *ok;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || pthread_barrier_init(&start, NULL, 3))
		return 1;
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, writer, NULL))
			return 1;
	pthread_barrier_wait(&start);
	lib = dlopen(argv[1], RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	libc_writes = (int (*)(int, int))dlsym(lib, "hotwrite_libc");
	raw_writes = (int (*)(int, int))dlsym(lib, "hotwrite_raw");
	if (!libc_writes || !raw_writes)
		return 1;
	libc = libc_writes(fd, n);
	raw = raw_writes(fd, n);
	for (i = 0; i < 2; i++) {
		if (pthread_join(t[i], &ok))
			return 1;
		threads += (int)(long)ok;
	}
	printf("libc=%d raw=%d threads=%d\n", libc, raw, threads);
	return 0;
}
