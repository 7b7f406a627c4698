// SPDX-License-Identifier: MIT
/*
 * Unit tests of the ptrace engine's stop loop over a target it did not
 * start: the seam an attach target plugs into (ptrace-int.h, struct
 * ptrace_target).  A target defined here seizes a process the test forked
 * earlier, while it is blocked in read(), and interrupts it mid-call.
 * The loop must then count exactly what the process does from there on,
 * with its thread group, for a thread it starts too; the read in flight
 * is restarted by the kernel and counted once, never twice or invented.
 * Neither the seccomp filter nor pinning is offered to such a target.
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

#define MAIN_CALLS 40
#define THREAD_CALLS 60

static int pipe_fds[2];
static volatile int interrupted;	/* PTRACE_INTERRUPT has returned */

/* --- the test's own target: seize running processes --- */

static int seize_start(struct loop *l, const struct tracer_target *target)
{
	unsigned long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
				PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
				PTRACE_O_TRACEVFORK;
	pid_t pid = target->attach.pids[0];

	if (ptrace(PTRACE_SEIZE, pid, 0L, options) < 0 ||
	    ptrace(PTRACE_INTERRUPT, pid, 0L, 0L) < 0)
		return -errno;
	__atomic_store_n(&interrupted, 1, __ATOMIC_SEQ_CST);
	if (!loop_add_task(l, pid, pid))
		return -ENOMEM;
	l->leader = pid;
	return 0;
}

static void seize_end(struct loop *l)
{
	(void)l;
}

static bool seize_end_task(struct loop *l, struct task *t)
{
	(void)l;
	(void)t;
	return false;
}

static const struct ptrace_target seize_target = {
	.from_birth = false,
	.start = seize_start,
	.end = seize_end,
	.end_task = seize_end_task,
};

/* --- the process it seizes --- */

static void *caller(void *arg)
{
	long i;

	for (i = 0; i < (long)arg; i++)
		syscall(SYS_getppid);
	return NULL;
}

static void seized_main(void)
{
	pthread_t t;
	char c;

	close(pipe_fds[1]);
	if (read(pipe_fds[0], &c, 1) != 1)
		_exit(1);
	caller((void *)(long)MAIN_CALLS);
	if (pthread_create(&t, NULL, caller, (void *)(long)THREAD_CALLS))
		_exit(2);
	pthread_join(t, NULL);
	_exit(0);
}

/* Whether pid is blocked in read(2), per /proc/PID/syscall. */
static bool in_read(pid_t pid)
{
	char path[64], buf[64], want[16];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	snprintf(want, sizeof(want), "%d ", SYS_read);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return !strncmp(buf, want, strlen(want));
}

static bool wait_in_read(pid_t pid)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (in_read(pid))
			return true;
		usleep(1000);
	}
	return false;
}

/* The task's voluntary context switches, per /proc; -1 if unknown. */
static long voluntary_switches(pid_t pid)
{
	char path[64], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

static long switches_before;	/* while blocked in read, before the seize */

/*
 * Once the seized process is back in its read (restarted after the
 * interrupt, so the loop has resumed it), let the read complete.  Being
 * in read is not enough: woken by the interrupt but not yet run, the task
 * still shows its read in /proc, and data written then is read by the
 * call in flight, which then completes with no stop to count it.  A
 * voluntary switch since the seize is the interrupt's stop: the read in
 * flight has been left for its restart by then.
 */
static void *writer(void *arg)
{
	pid_t pid = (pid_t)(long)arg;
	int i;

	while (!__atomic_load_n(&interrupted, __ATOMIC_SEQ_CST))
		usleep(100);
	for (i = 0; i < 5000; i++) {
		if (voluntary_switches(pid) > switches_before && in_read(pid))
			break;
		usleep(1000);
	}
	if (write(pipe_fds[1], "x", 1) != 1)
		abort();
	close(pipe_fds[1]);
	return NULL;
}

/* --- what the sink sees --- */

struct seen {
	pid_t pid;
	unsigned reads, main_calls, thread_calls, wrong_tgid, other;
	pid_t thread;
	int64_t read_ret;
};

static void on_syscall(void *ctx, const struct tracer_event *ev)
{
	struct seen *s = ctx;

	if (ev->tgid != s->pid)
		s->wrong_tgid++;
	if (ev->nr == SYS_read && ev->tid == s->pid) {
		s->reads++;
		s->read_ret = ev->ret;
	} else if (ev->nr == SYS_getppid && ev->tid == s->pid) {
		s->main_calls++;
	} else if (ev->nr == SYS_getppid) {
		s->thread_calls++;
		if (s->thread && s->thread != ev->tid)
			s->other++;
		s->thread = ev->tid;
	}
}

static void test_seized_mid_call(void)
{
	struct tracer_opts o = { .follow = true, .pin = true };
	struct seen s = { 0 };
	struct tracer_sink sink = { on_syscall, &s, NULL, NULL, NULL, NULL };
	struct tracer_target target = { .kind = TARGET_PIDS };
	struct tracer_result res;
	pthread_t w;
	pid_t pid;
	int err;

	if (pipe(pipe_fds) < 0)
		abort();
	pid = fork();
	if (pid == 0)
		seized_main();
	close(pipe_fds[0]);
	ok(wait_in_read(pid), "the process is blocked in read before");
	switches_before = voluntary_switches(pid);
	ok(switches_before >= 0, "its context switches are known");
	s.pid = pid;
	target.attach.pids = &pid;
	target.attach.npids = 1;
	pthread_create(&w, NULL, writer, (void *)(long)pid);
	err = ptrace_run_target(&seize_target, &o, &target, &sink, &res);
	pthread_join(w, NULL);
	is_int(err, 0, "the loop ran to the end");
	ok(res.exited && WIFEXITED(res.status) && !WEXITSTATUS(res.status),
	   "its exit status came back (0x%x)", res.status);
	is_str(res.engine, "ptrace", "named as the ptrace mode");
	is_int(s.reads, 1, "the read in flight: counted once");
	is_int(s.read_ret, 1, "... with what it returned");
	is_int(s.main_calls, MAIN_CALLS, "calls after the seize: exact");
	is_int(s.thread_calls, THREAD_CALLS, "a thread started after: exact");
	ok(s.thread && s.thread != pid && !s.other, "... from one new tid");
	is_int(s.wrong_tgid, 0, "every event has the process as tgid");
}

static void test_refused(void)
{
	struct tracer_opts o = { .follow = true, .seccomp = true };
	struct tracer_target target = { .kind = TARGET_PIDS };
	struct tracer_sink sink = { on_syscall, NULL, NULL, NULL, NULL, NULL };
	struct tracer_result res;

	is_int(ptrace_run_target(&seize_target, &o, &target, &sink, &res),
	       -EINVAL, "no seccomp filter for tasks not seen from birth");
}

int main(void)
{
	test_refused();
	test_seized_mid_call();
	return done_testing();
}
