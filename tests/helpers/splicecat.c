// SPDX-License-Identifier: MIT
/*
 * splicecat FILE: copies FILE to stdout with splice(2) through a pipe, 16
 * KiB a call (fastcat, the fourth seed): no byte crosses into user space.
 * A plain program, so it can be timed untraced and traced alike.
 * splicecat -t FILE: a thread started and joined first, so glibc takes
 * the process for multi-threaded from then on: its splice is the other
 * path, which loads two arguments between the number and the syscall
 * (the loads shape, rewrite.h).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (16 << 10)

static int pump(int from, int to, size_t n)
{
	ssize_t r;

	while (n) {
		r = splice(from, NULL, to, NULL, n, SPLICE_F_MOVE);
		if (r <= 0)
			return -1;
		n -= (size_t)r;
	}
	return 0;
}

static void *nothing(void *arg)
{
	return arg;
}

int main(int argc, char **argv)
{
	int fd, p[2];
	ssize_t n;
	pthread_t t;

	if (argc == 3 && !strcmp(argv[1], "-t")) {
		if (pthread_create(&t, NULL, nothing, NULL) ||
		    pthread_join(t, NULL))
			return 1;
		argc--;
		argv++;
	}
	if (argc != 2 || (fd = open(argv[1], O_RDONLY)) < 0 || pipe(p) < 0) {
		perror("splicecat");
		return 1;
	}
	while ((n = splice(fd, NULL, p[1], NULL, CHUNK, SPLICE_F_MOVE)) > 0)
		if (pump(p[0], 1, (size_t)n) < 0) {
			perror("splicecat: splice");
			return 1;
		}
	if (n < 0) {
		perror("splicecat: splice");
		return 1;
	}
	return 0;
}
