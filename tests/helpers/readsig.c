// SPDX-License-Identifier: MIT
/*
 * Tracee: reads of an empty pipe that signals interrupt, N times, then a
 * read that gets its byte.  Usage: readsig MODE N, MODE one of
 *   longjmp  the SIGUSR1 handler leaves each read by siglongjmp: the
 *            read never returns to its caller (its exit is the kernel's
 *            ERESTARTSYS); N+1 reads, N of them failed
 *   restart  the handler has SA_RESTART: the kernel makes each
 *            interrupted read again, the program sees one read return
 *            its byte (strace -f counts each read made again: N+1
 *            reads, N failed, the last the one that returns)
 * With W (readsig MODE N W), each handler first makes W one-byte writes
 * to /dev/null: hot calls made while the read it interrupted waits to be
 * made again at its site (t0955: no rewrite lands under it).
 * Prints "MODE: signals=N read=1".  A child sends the signals: the
 * parent writes a byte to an ack pipe before its first read, and the
 * handler one each time it runs; the child reads a byte, waits until
 * /proc says the parent sleeps (the only place it can is the read:
 * tracing stops show as "t"), and sends SIGUSR1; after N, and their last
 * byte, it writes the byte the last read gets.  The child reads with
 * readv, so that the read row is the parent's (and the loader's).  The
 * child's polling (pread64 and sched_yield) makes as many calls as it
 * takes; every other count is exact.
 */
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static sigjmp_buf out;
static int jump, ack_fd, null_fd, handler_writes;

static void on_usr1(int sig)
{
	(void)sig;
	got++;
	for (int i = 0; i < handler_writes; i++)
		if (write(null_fd, "w", 1) != 1)
			_exit(3);
	if (write(ack_fd, "a", 1) != 1)
		_exit(3);
	if (jump)
		siglongjmp(out, 1);
}

/* The child's reads are readv: the read row is the parent's alone. */
static ssize_t readv1(int fd, char *c)
{
	struct iovec iov = { c, 1 };

	return readv(fd, &iov, 1);
}

/* Whether /proc/PID/stat (fd) says the process sleeps ("S"). */
static int sleeping(int fd)
{
	char buf[512], *p;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		_exit(3);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

static void signaller(pid_t parent, int ack, int data, int n)
{
	char path[64], c;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)parent);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		_exit(3);
	for (i = 0; i < n; i++) {
		if (readv1(ack, &c) != 1)
			_exit(3);
		while (!sleeping(fd))
			sched_yield();
		if (kill(parent, SIGUSR1) < 0)
			_exit(3);
	}
	if (readv1(ack, &c) != 1 || write(data, "d", 1) != 1)
		_exit(3);
	_exit(0);
}

/* One read: 1 once it got its byte, 0 if the handler left it. */
static int one_read(int data)
{
	char c;

	if (jump && sigsetjmp(out, 1))
		return 0;
	return read(data, &c, 1) == 1;
}

int main(int argc, char **argv)
{
	int ack[2], data[2], n, done = 0, status;
	struct sigaction sa;
	pid_t pid;

	if ((argc != 3 && argc != 4) || (strcmp(argv[1], "longjmp") &&
					 strcmp(argv[1], "restart"))) {
		fprintf(stderr, "usage: readsig longjmp|restart N [W]\n");
		return 2;
	}
	jump = !strcmp(argv[1], "longjmp");
	n = atoi(argv[2]);
	handler_writes = argc == 4 ? atoi(argv[3]) : 0;
	null_fd = open("/dev/null", O_WRONLY);
	if (null_fd < 0)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = jump ? 0 : SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || pipe(ack) < 0 ||
	    pipe(data) < 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		signaller(getppid(), ack[0], data[1], n);
	ack_fd = ack[1];
	if (write(ack_fd, "a", 1) != 1)
		return 1;
	while (!done)
		done = one_read(data[0]);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return 1;
	printf("%s: signals=%d read=%d\n", argv[1], (int)got, done);
	return 0;
}
