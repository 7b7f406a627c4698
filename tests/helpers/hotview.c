// SPDX-License-Identifier: MIT
/*
 * Tracee: what a program sees of itself after making the hot calls.
 * With SIGHUP and SIGUSR2 blocked, the main thread and then a second one
 * each make every one of them on a scratch file (write, pwrite64,
 * writev, pwritev, lseek, read, pread64, readv, preadv, fsync,
 * fdatasync), which is then closed and removed; a SIGUSR1 handler
 * (SIGTERM in its sa_mask) writes to /dev/null and notes its mask.
 * Then it prints, from the main thread: its open descriptors (as
 * fdlist), its CPU mask, its signal mask, the handler's, the Sig* lines
 * of /proc/self/status (read with read(2)), the thread's CPU mask and
 * signal mask, and its environment.  Untraced that is the truth; a
 * tracer that leaves a descriptor, a mask, a handler or a variable
 * behind changes the output.  "calls=ok" when every hot call returned
 * what it would untraced.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

extern char **environ;

static char handler_mask[256], thread_cpus[1024], thread_mask[256];
static int bad;

/* The signals blocked in SET, as " N N ...". */
static void mask_text(char *out, size_t len, const sigset_t *set)
{
	size_t at = 0;
	int sig;

	out[0] = '\0';
	for (sig = 1; sig < NSIG && at < len; sig++)
		if (sigismember(set, sig) == 1)
			at += snprintf(out + at, len - at, " %d", sig);
}

static void blocked(char *out, size_t len)
{
	sigset_t set;

	pthread_sigmask(SIG_BLOCK, NULL, &set);
	mask_text(out, len, &set);
}

static void cpus(char *out, size_t len)
{
	size_t at = 0;
	cpu_set_t set;
	int cpu;

	out[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		bad++;
	for (cpu = 0; cpu < CPU_SETSIZE && at < len; cpu++)
		if (CPU_ISSET(cpu, &set))
			at += snprintf(out + at, len - at, " %d", cpu);
}

static void check(long got, long want)
{
	bad += got != want;
}

/* Every hot call once on the scratch file FD, 8 bytes at a time. */
static void hot_calls(int fd)
{
	char buf[8], more[8];
	struct iovec iov[2] = {{buf, 4}, {more, 4}};

	memcpy(buf, "abcdefgh", 8);
	check(write(fd, buf, 8), 8);
	check(pwrite(fd, buf, 8, 8), 8);
	check(writev(fd, iov, 2), 8);
	check(pwritev(fd, iov, 2, 24), 8);
	check(lseek(fd, 0, SEEK_SET), 0);
	check(read(fd, buf, 8), 8);
	check(pread(fd, buf, 8, 8), 8);
	check(readv(fd, iov, 2), 8);
	check(preadv(fd, iov, 2, 24), 8);
	check(fsync(fd), 0);
	check(fdatasync(fd), 0);
}

static void *thread_main(void *arg)
{
	hot_calls(*(int *)arg);
	cpus(thread_cpus, sizeof(thread_cpus));
	blocked(thread_mask, sizeof(thread_mask));
	return NULL;
}

static void on_usr1(int sig)
{
	int fd = open("/dev/null", O_WRONLY);

	(void)sig;
	if (fd < 0 || write(fd, "x", 1) != 1)
		bad++;
	close(fd);
	blocked(handler_mask, sizeof(handler_mask));
}

static void print_fds(void)
{
	char path[64], target[4096];
	DIR *d = opendir("/proc/self/fd");
	ssize_t n;
	int fd;

	for (fd = 0; d && fd < 1024; fd++) {
		if (fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		printf("fd %d %s flags=%#x fd_flags=%#x\n", fd, target,
		       fcntl(fd, F_GETFL), fcntl(fd, F_GETFD));
	}
	if (d)
		closedir(d);
}

/* /proc/self/status's SigBlk, SigIgn and SigCgt lines. */
static void print_status(void)
{
	char buf[8192], *line, *save;
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "SigBlk:", 7) ||
		    !strncmp(line, "SigIgn:", 7) ||
		    !strncmp(line, "SigCgt:", 7))
			printf("%s\n", line);
}

int main(void)
{
	char text[1024];
	struct sigaction sa;
	sigset_t set;
	pthread_t t;
	char **e;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR2);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaddset(&sa.sa_mask, SIGTERM);
	fd = open("hotview.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || sigprocmask(SIG_BLOCK, &set, NULL) ||
	    sigaction(SIGUSR1, &sa, NULL))
		return 1;
	hot_calls(fd);
	if (pthread_create(&t, NULL, thread_main, &fd) || pthread_join(t, NULL))
		return 1;
	raise(SIGUSR1);
	if (close(fd) || unlink("hotview.tmp"))
		return 1;
	printf("calls=%s\n", bad ? "wrong" : "ok");
	print_fds();
	cpus(text, sizeof(text));
	printf("cpus:%s\n", text);
	blocked(text, sizeof(text));
	printf("blocked:%s\nhandler blocked:%s\n", text, handler_mask);
	print_status();
	printf("thread cpus:%s\nthread blocked:%s\n", thread_cpus, thread_mask);
	for (e = environ; *e; e++)
		printf("env %s\n", *e);
	return 0;
}
