// SPDX-License-Identifier: MIT
/*
 * Tracee: N threads each write K bytes to /dev/null, one write(2) each,
 * so a tracer must count exactly N*K writes.  Usage: threads N K.
 * The main thread writes nothing itself.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fd, per_thread;

static void *writer(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < per_thread; i++)
		if (write(fd, "x", 1) != 1)
			abort();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t *t;
	int n, i;

	if (argc != 3)
		return 2;
	n = atoi(argv[1]);
	per_thread = atoi(argv[2]);
	fd = open("/dev/null", O_WRONLY);
	t = calloc((size_t)n, sizeof(*t));
	if (fd < 0 || !t)
		return 1;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, writer, NULL))
			return 1;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
