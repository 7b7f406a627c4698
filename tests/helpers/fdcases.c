// SPDX-License-Identifier: MIT
/*
 * Writes whose fd changes file under them, for the fast path's per-file
 * counts (t0955): the counters are kept per fd, so each of these must
 * land on the file the fd named when the write was made.
 *   fdcases CASE DIR
 * CASE:
 *   dup2    100 writes to DIR/a through fd 3, dup2 of DIR/b onto fd 3,
 *           50 more: a gets 100, b 50
 *   reopen  100 to DIR/a on fd 3, close, DIR/b opened as fd 3, 70 more
 *   fork    the parent 100 to DIR/a on fd 3; its fork child, after
 *           closing fd 3 and opening DIR/b as fd 3, 200 to b
 *   vfork   a vfork child writes 30 times to fd 3 (DIR/a) and _exits;
 *           then the parent 40 more: a gets 70
 *   cloexec 100 to DIR/a, opened O_CLOEXEC, then exec of /bin/true
 *   noclose 100 to DIR/a, then exit without closing it
 *   other   100 to DIR/a, then DIR/b opened and closed unwritten (fd 4),
 *           then exit without closing fd 3: a gets 100, b none
 *   raw     50 to DIR/a on fd 3 by syscall(3) (stops: the tracer names
 *           the file), close through libc (no write of libc's to
 *           fold: the fast path's), DIR/b opened as fd 3, 60 more by
 *           syscall(3): a gets 50, b 60
 *   many    100 to DIR/a on fd 3, close; then DIR/f1 .. DIR/f15, each
 *           opened as fd 3, written i times (f7: 7 writes) and closed:
 *           a tar-like loop, every close of a written fd
 * Each write is 1 byte through libc's write(2), but raw's.  Prints
 * nothing; exits 0.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int open3(const char *dir, const char *name, int flags)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | flags, 0644);
	if (fd < 0 || (fd != 3 && (dup2(fd, 3) < 0 || close(fd) < 0)))
		exit(1);
	return 3;
}

static void writes(int fd, int n)
{
	while (n--)
		if (write(fd, "x", 1) != 1)
			exit(1);
}

/* The same by syscall(3): a site no rewrite takes. */
static void raw_writes(int fd, int n)
{
	while (n--)
		if (syscall(SYS_write, fd, "x", 1) != 1)
			exit(1);
}

int main(int argc, char **argv)
{
	const char *c = argc > 2 ? argv[1] : "", *dir = argv[2];
	int fd, b, status;
	pid_t pid;

	if (argc != 3)
		return 2;
	close(3);
	if (!strcmp(c, "dup2")) {
		fd = open3(dir, "a", 0);
		writes(fd, 100);
		b = open(strcat(strcat(strcpy(malloc(4200), dir), "/"), "b"),
			 O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (b < 0 || dup2(b, 3) < 0)
			return 1;
		writes(3, 50);
	} else if (!strcmp(c, "reopen")) {
		writes(open3(dir, "a", 0), 100);
		close(3);
		writes(open3(dir, "b", 0), 70);
	} else if (!strcmp(c, "fork")) {
		fd = open3(dir, "a", 0);
		pid = fork();
		if (pid == 0) {
			close(3);
			writes(open3(dir, "b", 0), 200);
			_exit(0);
		}
		writes(fd, 100);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			return 1;
	} else if (!strcmp(c, "vfork")) {
		fd = open3(dir, "a", 0);
		pid = vfork();
		if (pid == 0) {
			writes(fd, 30);
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
			return 1;
		writes(fd, 40);
	} else if (!strcmp(c, "cloexec")) {
		writes(open3(dir, "a", 0), 0);
		close(3);
		fd = open3(dir, "a", O_CLOEXEC);
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
			return 1;
		writes(fd, 100);
		execl("/bin/true", "true", (char *)NULL);
		return 1;
	} else if (!strcmp(c, "raw")) {
		raw_writes(open3(dir, "a", 0), 50);
		if (close(3) < 0)
			return 1;
		raw_writes(open3(dir, "b", 0), 60);
	} else if (!strcmp(c, "many")) {
		char name[16];

		writes(open3(dir, "a", 0), 100);
		for (int i = 1; i <= 15; i++) {
			if (close(3) < 0)
				return 1;
			snprintf(name, sizeof(name), "f%d", i);
			writes(open3(dir, name, 0), i);
		}
		if (close(3) < 0)
			return 1;
	} else if (!strcmp(c, "noclose")) {
		writes(open3(dir, "a", 0), 100);
	} else if (!strcmp(c, "other")) {
		writes(open3(dir, "a", 0), 100);
		b = open(strcat(strcat(strcpy(malloc(4200), dir), "/"), "b"),
			 O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (b < 0 || close(b) < 0)
			return 1;
	} else {
		return 2;
	}
	return 0;
}
