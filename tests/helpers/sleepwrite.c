// SPDX-License-Identifier: MIT
/*
 * Tracee whose truth is known: N threads sleep in pthread_cond_wait
 * (futex) from before the first write to after the last, while the main
 * thread makes exactly K write(2) calls of SIZE bytes each to FILE, and
 * nothing else writes.  So a table has K writes moving K * SIZE bytes,
 * and futex calls from at least N threads, whose count and time timing
 * decides (a wake-up may wait again; pthread_join may wait or not) but
 * whose time is about N times the writing's: the waits lead strace's
 * table, the work is the writes.  Usage: sleepwrite N K SIZE FILE.
 * Prints nothing; exit 0, 1 when a call fails, 2 for bad arguments.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int ready, done;

/* Says it is waiting, then waits until the writes are over. */
static void *sleeper(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	ready++;
	pthread_cond_signal(&ready_cv);
	while (!done)
		pthread_cond_wait(&done_cv, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* K writes of size bytes, every one whole. */
static int write_all(const char *path, long k, size_t size)
{
	char *buf = malloc(size);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	long i;

	if (!buf || fd < 0)
		return -1;
	memset(buf, 'x', size);
	for (i = 0; i < k; i++)
		if (write(fd, buf, size) != (ssize_t)size)
			return -1;
	free(buf);
	return close(fd);
}

int main(int argc, char **argv)
{
	pthread_t *t;
	long n, k, size, i;

	if (argc != 5)
		return 2;
	n = atol(argv[1]);
	k = atol(argv[2]);
	size = atol(argv[3]);
	t = calloc(n > 0 ? (size_t)n : 1, sizeof(*t));
	if (n < 1 || k < 0 || size < 1 || !t)
		return 2;
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i], NULL, sleeper, NULL))
			return 1;
	/* Every sleeper waits before the first write. */
	pthread_mutex_lock(&lock);
	while (ready < n)
		pthread_cond_wait(&ready_cv, &lock);
	pthread_mutex_unlock(&lock);
	if (write_all(argv[4], k, (size_t)size) < 0)
		return 1;
	pthread_mutex_lock(&lock);
	done = 1;
	pthread_cond_broadcast(&done_cv);
	pthread_mutex_unlock(&lock);
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	free(t);
	return 0;
}
