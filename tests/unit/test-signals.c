// SPDX-License-Identifier: MIT
/*
 * Unit tests of iotrace's own signal handling while it traces (spawn.c,
 * loop.c): a handler must leave errno as it found it, and a SIGTERM that
 * interrupts the stop loop's wait must end the run cleanly (the tasks
 * killed, the loop running on until they are gone), whatever the calls
 * made to end the run leave in errno.  The loop runs here over a target
 * of the test's own, whose end hook fails one kill(2) on purpose, as a
 * kill of a task that is already gone does.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"
#include "tests/unit/tap.h"

static pid_t gone_pid;		/* a child forked and reaped: no such pid */
static pid_t main_tid;

static pid_t reaped_child(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

static void test_handler_keeps_errno(void)
{
	sig_atomic_t leader = tracer_leader;

	tracer_leader = gone_pid;	/* the handler's kill fails */
	errno = EILSEQ;
	raise(SIGTERM);
	is_int(errno, EILSEQ, "the SIGTERM handler leaves errno alone");
	errno = EILSEQ;
	raise(SIGINT);
	is_int(errno, EILSEQ, "the SIGINT handler leaves errno alone");
	tracer_leader = leader;
	tracer_fatal_signal = 0;
}

/* --- a target that seizes a child blocked in pause() --- */

static int pause_start(struct loop *l, const struct tracer_target *target)
{
	pid_t pid = target->attach.pids[0];

	if (ptrace(PTRACE_SEIZE, pid, 0L, PTRACE_O_EXITKILL) < 0)
		return -errno;
	if (!loop_add_task(l, pid, pid))
		return -ENOMEM;
	l->leader = pid;
	return 0;
}

/* Kills the task, then fails a kill: errno is ESRCH on return. */
static void pause_end(struct loop *l)
{
	kill(l->leader, SIGKILL);
	kill(gone_pid, SIGKILL);
}

static bool pause_end_task(struct loop *l, struct task *t)
{
	(void)l;
	(void)t;
	return false;
}

static const struct ptrace_target pause_target = {
	.from_birth = false,
	.start = pause_start,
	.end = pause_end,
	.end_task = pause_end_task,
};

/* Whether /proc/self/task/TID/syscall starts with syscall number nr. */
static bool blocked_in(pid_t pid, pid_t tid, long nr)
{
	char path[64], buf[64], want[24];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid,
		 (int)tid);
	snprintf(want, sizeof(want), "%ld ", nr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return !strncmp(buf, want, strlen(want));
}

/* SIGTERM to the main thread once it waits in the loop, the child paused. */
static void *terminator(void *arg)
{
	pid_t child = (pid_t)(long)arg;
	int i;

	for (i = 0; i < 20000; i++) {
		if (blocked_in(getpid(), main_tid, SYS_wait4) &&
		    blocked_in(child, child, SYS_pause))
			break;
		usleep(1000);
	}
	syscall(SYS_tgkill, getpid(), main_tid, SIGTERM);
	return NULL;
}

static void test_sigterm_in_wait(void)
{
	struct tracer_opts o = { .follow = true };
	struct tracer_sink sink = { NULL, NULL, NULL, NULL, NULL, NULL };
	struct tracer_target target = { .kind = TARGET_PIDS };
	struct tracer_result res;
	pthread_t t;
	pid_t pid;
	int err;

	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	main_tid = (pid_t)syscall(SYS_gettid);
	target.attach.pids = &pid;
	target.attach.npids = 1;
	pthread_create(&t, NULL, terminator, (void *)(long)pid);
	err = ptrace_run_target(&pause_target, &o, &target, &sink, &res);
	pthread_join(t, NULL);
	is_int(err, 0, "a SIGTERM during the wait ends the loop cleanly");
	is_int(res.fatal_signal, SIGTERM, "the run says SIGTERM ended it");
	ok(res.exited && WIFSIGNALED(res.status) &&
	   WTERMSIG(res.status) == SIGKILL, "the task was killed (0x%x)",
	   res.status);
	waitpid(pid, NULL, WNOHANG);
	tracer_fatal_signal = 0;
}

int main(void)
{
	tracer_signals_init();
	gone_pid = reaped_child();
	test_handler_keeps_errno();
	test_sigterm_in_wait();
	return done_testing();
}
