// SPDX-License-Identifier: MIT
/*
 * iotrace's own signals while it traces: SIGTERM, SIGHUP and SIGPIPE end
 * the run (the first traced process killed at once, through its pidfd
 * while iotrace has not reaped it), SIGINT and SIGQUIT are noted and
 * left to the command; the dispositions and mask they replace are kept,
 * for a spawned child to put back before it runs the command (spawn.c)
 * and for tracer_pending_signal() to be asked between runs.  The stop
 * loop reads tracer_fatal_signal and tells tracer_leader_reaped().
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

volatile sig_atomic_t tracer_fatal_signal;
static volatile sig_atomic_t tracer_interrupt;
volatile sig_atomic_t tracer_leader;
/* A pidfd of tracer_leader, -1 if none: it never names another process. */
static volatile sig_atomic_t leader_pidfd = -1;

/*
 * Signals whose disposition iotrace changes while it traces.  SIGPIPE
 * (sent, or the report written to a closed pipe) is handled as SIGTERM:
 * it must not kill iotrace and lose --save.
 */
static const int handled_signals[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP,
				       SIGPIPE };
#define NHANDLED (sizeof(handled_signals) / sizeof(handled_signals[0]))
static struct sigaction saved_actions[NHANDLED];
static sigset_t saved_mask;

/*
 * glibc reserves the signals from the kernel's first real-time one up to
 * its SIGRTMIN (32 and 33: SIGCANCEL, SIGSETXID) and refuses sigaction on
 * them; its first pthread_create catches SIGSETXID.  One the command was
 * given ignored (make ignores both) would then be reset by the exec, so
 * the raw call reads them before iotrace starts a thread and puts an
 * ignored one back in the child.
 */
#define RESERVED_FIRST __SIGRTMIN
#define RESERVED_MAX 8
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	unsigned long mask;
};
static bool reserved_ignored[RESERVED_MAX];

static int reserved_count(void)
{
	int n = SIGRTMIN - RESERVED_FIRST;

	return n < 0 ? 0 : n > RESERVED_MAX ? RESERVED_MAX : n;
}

/*
 * SIGTERM and SIGHUP sent to iotrace alone end the traced command: kill
 * the first process now (the stop loop kills the rest), so the wait in the
 * loop returns even when nothing else would happen.  Only while iotrace
 * has not reaped it: then its pid may be anyone's.  Through its pidfd
 * where the kernel has them (5.3), so even a signal between the reaping
 * and tracer_leader_reaped() signals nobody; by pid otherwise.
 */
static void on_fatal_signal(int sig)
{
	int saved_errno = errno;	/* the interrupted code's, kept */

	tracer_fatal_signal = sig;
	if (leader_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, (int)leader_pidfd, SIGKILL,
			NULL, 0);
	else if (tracer_leader > 0)
		kill(tracer_leader, SIGKILL);
	errno = saved_errno;
}

void tracer_leader_set(pid_t pid)
{
	tracer_leader = pid;
	leader_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
}

void tracer_leader_reaped(void)
{
	int fd = leader_pidfd;

	tracer_leader = 0;
	leader_pidfd = -1;
	if (fd >= 0)
		close(fd);
}

/*
 * SIGINT and SIGQUIT from the terminal reach the whole foreground group:
 * the command decides what they do, and iotrace stays to print the table
 * of what ran.  iotrace only notes them: one that comes before the command
 * has started (during calibration) or between the runs of a sweep means
 * the user wants to stop.  Signals the user had iotrace ignore (nohup)
 * stay ignored.
 */
static void on_interrupt(int sig)
{
	int saved_errno = errno;

	tracer_interrupt = sig;
	errno = saved_errno;
}

int tracer_pending_signal(void)
{
	return tracer_fatal_signal ? tracer_fatal_signal : tracer_interrupt;
}

void tracer_signals_init(void)
{
	static bool done;	/* a second call must not save our own state */
	struct sigaction sa;
	size_t i;

	if (done)
		return;
	done = true;
	sigprocmask(SIG_SETMASK, NULL, &saved_mask);
	for (i = 0; i < (size_t)reserved_count(); i++) {
		struct ksigaction ksa;

		if (syscall(SYS_rt_sigaction, RESERVED_FIRST + (int)i, NULL,
			    &ksa, sizeof(ksa.mask)) == 0)
			reserved_ignored[i] = ksa.handler == SIG_IGN;
	}
	for (i = 0; i < NHANDLED; i++) {
		int sig = handled_signals[i];

		sigaction(sig, NULL, &saved_actions[i]);
		if (saved_actions[i].sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		/* No SA_RESTART: waitpid returns EINTR to the stop loop. */
		sa.sa_handler = (sig == SIGTERM || sig == SIGHUP ||
				 sig == SIGPIPE) ? on_fatal_signal : on_interrupt;
		sigaction(sig, &sa, NULL);
	}
}

/* In the child, before exec: only async-signal-safe calls. */
void tracer_signals_restore(void)
{
	struct ksigaction ign = { .handler = SIG_IGN };
	size_t i;

	for (i = 0; i < NHANDLED; i++)
		sigaction(handled_signals[i], &saved_actions[i], NULL);
	for (i = 0; i < (size_t)reserved_count(); i++)
		if (reserved_ignored[i])
			syscall(SYS_rt_sigaction, RESERVED_FIRST + (int)i,
				&ign, NULL, sizeof(ign.mask));
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}
