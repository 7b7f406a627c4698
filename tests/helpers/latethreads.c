// SPDX-License-Identifier: MIT
/*
 * One thread writes, then eight (t0955): the fast path runs a process of
 * one thread through trampolines without lock prefixes and must switch
 * it to the locked ones before its second thread runs.  The main
 * thread writes N bytes to FILE, 1 a write(2), then 8 threads N each at
 * once through the same fd; prints the file's size: 9 x N.
 *   latethreads FILE N
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fd, n;

static void *writer(void *arg)
{
	int i;

	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			exit(1);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t[8];
	int i;

	if (argc != 3)
		return 2;
	n = atoi(argv[2]);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	writer(NULL);
	for (i = 0; i < 8; i++)
		if (pthread_create(&t[i], NULL, writer, NULL))
			return 1;
	for (i = 0; i < 8; i++)
		pthread_join(t[i], NULL);
	printf("%ld\n", (long)lseek(fd, 0, SEEK_END));
	return 0;
}
