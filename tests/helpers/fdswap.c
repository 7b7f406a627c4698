// SPDX-License-Identifier: MIT
/*
 * Tracee: data calls on fds whose files change under them, for the
 * per-file I/O of both engines (tests/t0915-agent-files.sh).  Every
 * write is checked; sizes differ per file so a call counted on the wrong
 * file shows.  Usage: fdswap MODE A B N, with A and B file paths:
 *   threads  two threads, one writing N times 100 bytes to A, the other
 *            N times 200 bytes to B, at once
 *   dup2     N writes of 100 to A, then B dup2()ed onto A's fd and N
 *            writes of 200 to it, then the fd closed and reused by an
 *            open of A (O_APPEND) for N writes of 300
 *   pipe     N writes of 100 into a pipe and N reads back, both ends
 *            closed, then their numbers reused by A and B (N writes each)
 *   spawn    a posix_spawn (a vfork-like child) whose file actions dup2
 *            B onto A's fd and close it, N times; the parent writes 100
 *            to A between spawns: its fd never changed
 *   high     A dup2()ed onto fd 5000 for N writes of 100, then B onto
 *            it for N writes of 200
 *   vfork    N times a vfork() child, sharing the memory but not the
 *            fds, dup2()s B onto A's fd and writes 200 to it; the parent
 *            writes 100 to A after each
 */
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char buf[300];
static int nwrites;

static void put(int fd, size_t n)
{
	if (write(fd, buf, n) != (ssize_t)n)
		abort();
}

static int open_w(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | flags, 0644);

	if (fd < 0)
		abort();
	return fd;
}

struct job {
	int fd;
	size_t size;
};

static void *writer(void *arg)
{
	const struct job *j = arg;
	int i;

	for (i = 0; i < nwrites; i++)
		put(j->fd, j->size);
	return NULL;
}

static int mode_threads(const char *a, const char *b)
{
	struct job ja = { open_w(a, 0), 100 }, jb = { open_w(b, 0), 200 };
	pthread_t ta, tb;

	if (pthread_create(&ta, NULL, writer, &ja) ||
	    pthread_create(&tb, NULL, writer, &jb))
		return 1;
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	return 0;
}

static int mode_dup2(const char *a, const char *b)
{
	struct job j = { open_w(a, 0), 100 };
	int fb = open_w(b, 0);

	writer(&j);
	if (dup2(fb, j.fd) != j.fd)
		return 1;
	j.size = 200;
	writer(&j);
	close(j.fd);
	if (open(a, O_WRONLY | O_APPEND) != j.fd)
		return 1;
	j.size = 300;
	writer(&j);
	return 0;
}

static int mode_pipe(const char *a, const char *b)
{
	struct job j = { -1, 100 };
	int p[2], i;

	if (pipe(p))
		return 1;
	j.fd = p[1];
	writer(&j);
	for (i = 0; i < nwrites; i++)
		if (read(p[0], buf, 100) != 100)
			return 1;
	close(p[0]);
	close(p[1]);
	j.fd = open_w(a, 0);
	writer(&j);
	j.fd = open_w(b, 0);
	j.size = 200;
	writer(&j);
	return 0;
}

static int mode_high(const char *a, const char *b)
{
	struct job j = { 5000, 100 };

	if (dup2(open_w(a, 0), j.fd) != j.fd)
		return 1;
	writer(&j);
	if (dup2(open_w(b, 0), j.fd) != j.fd)
		return 1;
	j.size = 200;
	writer(&j);
	return 0;
}

static int mode_spawn(const char *a, const char *b)
{
	char *argv[] = { "true", NULL };
	posix_spawn_file_actions_t fa;
	int fa_fd = open_w(a, 0), fb = open_w(b, 0), i, st;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_adddup2(&fa, fb, fa_fd) ||
	    posix_spawn_file_actions_addclose(&fa, fa_fd))
		return 1;
	for (i = 0; i < nwrites; i++) {
		if (posix_spawnp(&pid, "true", &fa, NULL, argv, environ) ||
		    waitpid(pid, &st, 0) != pid)
			return 1;
		put(fa_fd, 100);
	}
	posix_spawn_file_actions_destroy(&fa);
	return 0;
}

static int mode_vfork(const char *a, const char *b)
{
	int fa = open_w(a, 0), fb = open_w(b, 0), i, st;
	pid_t pid;

	for (i = 0; i < nwrites; i++) {
		pid = vfork();
		if (pid < 0)
			return 1;
		if (!pid) {
			if (dup2(fb, fa) != fa ||
			    write(fa, buf, 200) != 200)
				_exit(1);
			_exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || st)
			return 1;
		put(fa, 100);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 5)
		return 2;
	nwrites = atoi(argv[4]);
	memset(buf, 'x', sizeof(buf));
	if (!strcmp(argv[1], "threads"))
		return mode_threads(argv[2], argv[3]);
	if (!strcmp(argv[1], "dup2"))
		return mode_dup2(argv[2], argv[3]);
	if (!strcmp(argv[1], "pipe"))
		return mode_pipe(argv[2], argv[3]);
	if (!strcmp(argv[1], "spawn"))
		return mode_spawn(argv[2], argv[3]);
	if (!strcmp(argv[1], "high"))
		return mode_high(argv[2], argv[3]);
	if (!strcmp(argv[1], "vfork"))
		return mode_vfork(argv[2], argv[3]);
	return 2;
}
