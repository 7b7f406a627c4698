// SPDX-License-Identifier: MIT
/*
 * Tracee: signal masks, waits and small stacks, each with a known
 * outcome.  Usage: sigwait MODE [N], MODE one of
 *   sigsuspend, ppoll, pselect
 *            blocks every signal, forks a child that sends it SIGUSR1
 *            and exits, and waits for the signal with every signal but
 *            SIGUSR1 blocked (the common idiom), by that call; the
 *            handler runs once: prints "MODE: usr1=1", then reaps the
 *            child
 *   altstack a handler on an 8 KiB sigaltstack making calls (getpid,
 *            write to /dev/null, open and close /dev/null), N signals
 *            raised: prints "altstack=N onstack=N"
 *   thread   a thread on a 16 KiB stack making N such rounds of calls:
 *            prints "thread=N"
 *   badptr   rt_sigprocmask and rt_sigaction with a bad pointer for the
 *            new set or action, then for the old one: prints the four
 *            errno names ("EFAULT" each, as the kernel answers)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define ALTSTACK_SIZE 8192
#define THREAD_STACK 16384

static volatile sig_atomic_t got, onstack;
static char *altstack;

/* A few calls of every kind the tracer stops at: a handler's or not. */
static void calls(void)
{
	int fd;

	if (getpid() <= 0)
		_exit(3);
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0 || write(fd, "x", 1) != 1 || close(fd) < 0)
		_exit(3);
}

static void on_signal(int sig)
{
	char here;

	(void)sig;
	got++;
	if (altstack && &here >= altstack && &here < altstack + ALTSTACK_SIZE)
		onstack++;
	calls();
}

static void handle(int sig, int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

static int wait_by(const char *how, const sigset_t *mask)
{
	if (!strcmp(how, "sigsuspend"))
		return sigsuspend(mask);
	if (!strcmp(how, "ppoll"))
		return ppoll(NULL, 0, NULL, mask);
	return pselect(0, NULL, NULL, NULL, NULL, mask);
}

static int mode_wait(const char *how)
{
	sigset_t all, but_usr1;
	int status;
	pid_t pid;

	handle(SIGUSR1, 0);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	but_usr1 = all;
	sigdelset(&but_usr1, SIGUSR1);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(kill(getppid(), SIGUSR1) < 0);
	while (!got)
		if (wait_by(how, &but_usr1) >= 0 || errno != EINTR)
			return 1;
	printf("%s: usr1=%d\n", how, (int)got);
	if (waitpid(pid, &status, 0) != pid || status != 0)
		return 1;
	return 0;
}

static int mode_altstack(int n)
{
	stack_t ss;
	int i;

	altstack = malloc(ALTSTACK_SIZE);
	if (!altstack)
		return 1;
	ss.ss_sp = altstack;
	ss.ss_size = ALTSTACK_SIZE;
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0)
		return 1;
	handle(SIGUSR1, SA_ONSTACK);
	for (i = 0; i < n; i++)
		raise(SIGUSR1);
	printf("altstack=%d onstack=%d\n", (int)got, (int)onstack);
	return 0;
}

static void *thread_main(void *arg)
{
	intptr_t i, n = (intptr_t)arg;

	for (i = 0; i < n; i++)
		calls();
	return (void *)i;
}

static int mode_thread(int n)
{
	pthread_attr_t attr;
	pthread_t t;
	void *done;

	if (pthread_attr_init(&attr) ||
	    pthread_attr_setstacksize(&attr, THREAD_STACK) ||
	    pthread_create(&t, &attr, thread_main, (void *)(intptr_t)n) ||
	    pthread_join(t, &done))
		return 1;
	printf("thread=%d\n", (int)(intptr_t)done);
	return 0;
}

static const char *errno_after(long ret)
{
	if (ret == 0)
		return "ok";
	return errno == EFAULT ? "EFAULT" : "other";
}

/* Raw calls: libc's wrappers copy the sets and would fault themselves. */
static int mode_badptr(void)
{
	void *bad = (void *)(uintptr_t)1;
	sigset_t set;
	long r1, r2, r3, r4;

	sigemptyset(&set);
	r1 = syscall(SYS_rt_sigprocmask, SIG_BLOCK, bad, NULL, 8);
	printf("rt_sigprocmask(set)=%s", errno_after(r1));
	r2 = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, bad, 8);
	printf(" rt_sigprocmask(oldset)=%s", errno_after(r2));
	r3 = syscall(SYS_rt_sigaction, SIGUSR1, bad, NULL, 8);
	printf(" rt_sigaction(act)=%s", errno_after(r3));
	r4 = syscall(SYS_rt_sigaction, SIGUSR1, NULL, bad, 8);
	printf(" rt_sigaction(oldact)=%s\n", errno_after(r4));
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int n = argc > 2 ? atoi(argv[2]) : 1;

	if (!strcmp(mode, "sigsuspend") || !strcmp(mode, "ppoll") ||
	    !strcmp(mode, "pselect"))
		return mode_wait(mode);
	if (!strcmp(mode, "altstack"))
		return mode_altstack(n);
	if (!strcmp(mode, "thread"))
		return mode_thread(n);
	if (!strcmp(mode, "badptr"))
		return mode_badptr();
	fprintf(stderr, "usage: sigwait MODE [N]\n");
	return 2;
}
