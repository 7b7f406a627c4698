// SPDX-License-Identifier: MIT
/*
 * attachee GO STOP K SIZE THREADS: a process for iotrace -p to attach to.
 * THREADS threads (the main one included) each wait until the file GO
 * exists (polling with access and nanosleep: no write), then make exactly
 * K write(2) calls of SIZE bytes to /dev/null; then, unless STOP is "-",
 * each goes on writing (one call per millisecond) until the file STOP
 * exists.  Exits 3 when all are done, so a test sees it finished its own
 * work.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *go, *stop;
static long k, size;
static int fd;
static char buf[1 << 16];

static void wait_for(const char *path)
{
	struct timespec ms = { 0, 1000000 };

	while (access(path, F_OK) < 0)
		nanosleep(&ms, NULL);
}

static void *work(void *arg)
{
	struct timespec ms = { 0, 1000000 };
	long i;

	(void)arg;
	wait_for(go);
	for (i = 0; i < k; i++)
		if (write(fd, buf, (size_t)size) != size)
			_exit(1);
	if (stop[0] == '-' && !stop[1])
		return NULL;
	while (access(stop, F_OK) < 0) {
		if (write(fd, buf, (size_t)size) != size)
			_exit(1);
		nanosleep(&ms, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	long n, i;

	if (argc != 6)
		return 2;
	go = argv[1];
	stop = argv[2];
	k = atol(argv[3]);
	size = atol(argv[4]);
	n = atol(argv[5]);
	if (size < 0 || size > (long)sizeof(buf) || n < 1 || n > 64)
		return 2;
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, work, NULL))
			return 1;
	work(NULL);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	return 3;
}
