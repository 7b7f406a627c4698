// SPDX-License-Identifier: MIT
/*
 * The stop loop: wait for a ptrace stop, look at it once, resume.  Each
 * syscall costs two stops (entry and exit); at the exit stop one event is
 * handed to the sink.  Nothing here allocates, formats or reads /proc per
 * stop: PTRACE_GET_SYSCALL_INFO gives everything in one call, and the
 * per-task state lives in a table that only changes when tasks come and go.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include "tracer/tracer-int.h"

struct loop {
	const struct tracer_opts *opts;
	const struct tracer_sink *sink;
	struct tracer_result *res;
	struct task_table tasks;
	pid_t leader;
	bool killed_all;
};

static void resume(pid_t tid, int sig)
{
	/* ESRCH: the task was killed meanwhile; its exit is reported later. */
	ptrace(PTRACE_SYSCALL, tid, 0L, (long)sig);
}

static void emit(struct loop *l, struct task *t,
		 const struct __ptrace_syscall_info *info, uint64_t now)
{
	struct tracer_event ev;

	if (l->opts->trace && !syscall_set_has(l->opts->trace, t->arch, t->nr))
		return;
	ev.tid = t->tid;
	ev.arch = t->arch;
	ev.nr = t->nr;
	ev.flags = 0;
	memcpy(ev.args, t->args, sizeof(ev.args));
	ev.ret = info->exit.rval;
	ev.entry_ns = t->entry_ns;
	ev.exit_ns = now;
	l->sink->syscall(l->sink->ctx, &ev);
}

static void on_syscall_stop(struct loop *l, struct task *t, uint64_t now)
{
	struct __ptrace_syscall_info info;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info),
		   &info) <= 0)
		return;
	switch (info.op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
		t->in_syscall = true;
		t->arch = info.arch;
		t->nr = (int)info.entry.nr;
		memcpy(t->args, info.entry.args, sizeof(t->args));
		t->entry_ns = now;
		break;
	case PTRACE_SYSCALL_INFO_EXIT:
		/* A task seized mid-call has an exit without an entry. */
		if (t->in_syscall)
			emit(l, t, &info, now);
		t->in_syscall = false;
		break;
	}
}

/*
 * execve from a thread other than the leader: the kernel gives the
 * leader's tid to the execing thread, whose own tid vanishes without an
 * exit report.  Its state (inside execve) moves to the leader's tid.
 */
static void on_exec(struct loop *l, pid_t tid)
{
	unsigned long former;
	struct task *from, *to;

	if (ptrace(PTRACE_GETEVENTMSG, tid, 0L, &former) < 0 ||
	    (pid_t)former == tid)
		return;
	/* task_get() may grow the table: find from only after it. */
	to = task_get(&l->tasks, tid);
	from = task_find(&l->tasks, (pid_t)former);
	if (from && to) {
		*to = *from;
		to->tid = tid;
	}
	task_del(&l->tasks, (pid_t)former);
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

static void on_stop(struct loop *l, struct task *t, int status, uint64_t now)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	pid_t tid = t->tid;	/* on_exec() may move the table under t */

	if (sig == (SIGTRAP | 0x80)) {
		on_syscall_stop(l, t, now);
		resume(tid, 0);
		return;
	}
	switch (event) {
	case 0:
		/* Signal-delivery-stop: deliver it, exactly once. */
		resume(tid, sig);
		break;
	case PTRACE_EVENT_STOP:
		/* Group-stop (Ctrl-Z, SIGSTOP): stay stopped until SIGCONT. */
		if (is_stop_signal(sig))
			ptrace(PTRACE_LISTEN, tid, 0L, 0L);
		else
			resume(tid, 0);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(l, tid);
		resume(tid, 0);
		break;
	default:
		/* Fork, vfork, clone: the child reports its own first stop. */
		resume(tid, 0);
		break;
	}
}

static void on_gone(struct loop *l, pid_t tid, int status)
{
	if (tid == l->leader) {
		l->res->status = status;
		l->res->exited = true;
	}
	task_del(&l->tasks, tid);
}

static void kill_all(struct loop *l)
{
	size_t i;

	for (i = 0; i < l->tasks.cap; i++)
		if (l->tasks.slots[i].tid)
			kill(l->tasks.slots[i].tid, SIGKILL);
	l->killed_all = true;
}

static int run_loop(struct loop *l)
{
	struct task *t;
	uint64_t now;
	int status;
	pid_t tid;

	for (;;) {
		tid = waitpid(-1, &status, __WALL);
		now = mono_ns();
		if (tracer_fatal_signal && !l->killed_all)
			kill_all(l);
		if (tid < 0) {
			if (errno == EINTR)
				continue;
			return errno == ECHILD ? 0 : -errno;
		}
		l->res->stops++;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			on_gone(l, tid, status);
			continue;
		}
		t = task_get(&l->tasks, tid);
		if (!t)
			return -ENOMEM;
		if (l->killed_all)
			kill(tid, SIGKILL);
		on_stop(l, t, status, now);
	}
}

int tracer_run(const struct tracer_opts *opts,
	       const struct tracer_child *child,
	       const struct tracer_sink *sink, struct tracer_result *res)
{
	struct loop l = { .opts = opts, .sink = sink, .res = res };
	int err;

	memset(res, 0, sizeof(*res));
	task_table_init(&l.tasks);
	l.leader = tracer_spawn(opts, child);
	if (l.leader < 0)
		return l.leader;
	tracer_leader = l.leader;
	res->start_ns = mono_ns();
	err = run_loop(&l);
	res->end_ns = mono_ns();
	res->fatal_signal = tracer_fatal_signal;
	tracer_leader = 0;
	task_table_release(&l.tasks);
	return err;
}
