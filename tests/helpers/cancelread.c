// SPDX-License-Identifier: MIT
/*
 * Tracee: pthread_cancel of a thread blocked in read(2), or with "write"
 * in write(2) to a full pipe.  N times, a thread pushes a cleanup
 * handler and reads an empty pipe (writes a full one); once
 * /proc/self/task/TID/stat says it sleeps (the call is the only place
 * it can: tracing stops show as "t"), the main thread cancels it and
 * joins it.  Prints "cancelled=C cleanups=K": C joins that returned
 * PTHREAD_CANCELED, K cleanup handlers run (N and N).  Built with
 * -fexceptions (cancelread-eh), pthread_cleanup_push is a cleanup that
 * only unwinding runs, as a C++ destructor is: the unwinder must find
 * the frames from where the call was interrupted.  The truth: each
 * cancelled call is one call and one error (ERESTARTSYS, never made
 * again), as strace -f counts it; the main thread's polling (pread64,
 * sched_yield) and the joins (futex) make as many calls as timing
 * takes.  Usage: cancelread N [write].
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pipefd[2], cleanups, writes;
static volatile pid_t tid;

static void cleanup(void *arg)
{
	(void)arg;
	cleanups++;
}

static void *reader(void *arg)
{
	char c;

	(void)arg;
	pthread_cleanup_push(cleanup, NULL);
	tid = gettid();
	c = 'x';
	/* nothing ever comes; nothing more fits */
	if ((writes ? write(pipefd[1], &c, 1) : read(pipefd[0], &c, 1)) >= 0)
		abort();
	pthread_cleanup_pop(0);
	return NULL;
}

/* Whether /proc/self/task/T/stat says thread T sleeps ("S"). */
static int sleeping(pid_t t)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)t);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		abort();
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	while (n > 0) {
		buf[n] = '\0';
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'S')
			break;
		sched_yield();
		n = pread(fd, buf, sizeof(buf) - 1, 0);
	}
	close(fd);
	return n > 0;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 1, cancelled = 0;
	pthread_t t;
	void *ret;

	static char full[1 << 16];

	writes = argc > 2 && !strcmp(argv[2], "write");
	if (pipe(pipefd) < 0)
		return 1;
	/* A full pipe: its writes block (the buffer is 64 KiB here). */
	if (writes && (fcntl(pipefd[1], F_SETFL, O_NONBLOCK) < 0 ||
		       write(pipefd[1], full, sizeof(full)) <= 0 ||
		       (write(pipefd[1], full, sizeof(full)) >= 0) ||
		       fcntl(pipefd[1], F_SETFL, 0) < 0))
		return 1;
	for (i = 0; i < n; i++) {
		tid = 0;
		if (pthread_create(&t, NULL, reader, NULL))
			return 1;
		while (!tid)
			sched_yield();
		if (!sleeping(tid) || pthread_cancel(t) ||
		    pthread_join(t, &ret))
			return 1;
		cancelled += ret == PTHREAD_CANCELED;
	}
	printf("cancelled=%d cleanups=%d\n", cancelled, cleanups);
	return 0;
}
