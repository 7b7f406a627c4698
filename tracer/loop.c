// SPDX-License-Identifier: MIT
/*
 * The stop loop: wait for a ptrace stop, look at it once, resume.  A timed
 * syscall costs two stops (entry, or the seccomp stop, and exit); a
 * count-only one costs one; with the seccomp filter an untraced one costs
 * none.  At the last stop of a call one event goes to the sink.  Nothing
 * here allocates, formats or reads /proc per stop:
 * PTRACE_GET_SYSCALL_INFO gives everything in one call, and the per-task
 * state lives in a table that only changes when tasks come and go.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include "tracer/tracer-int.h"

struct loop {
	const struct tracer_opts *opts;
	const struct tracer_sink *sink;
	struct tracer_result *res;
	struct plan plan;
	struct pin pin;
	struct task_table tasks;
	pid_t leader;
	bool killed_all;
};

/*
 * In seccomp mode a task runs freely (PTRACE_CONT) until the filter stops
 * it; only a call waiting for its exit stop needs PTRACE_SYSCALL.
 */
static void resume(struct loop *l, pid_t tid, bool in_syscall, int sig)
{
	int req = in_syscall || !l->plan.bpf ? PTRACE_SYSCALL : PTRACE_CONT;

	/* ESRCH: the task was killed meanwhile; its exit is reported later. */
	ptrace(req, tid, 0L, (long)sig);
}

static void emit(struct loop *l, const struct task *t, int64_t ret,
		 unsigned flags, uint64_t now)
{
	struct tracer_event ev;

	ev.tid = t->tid;
	ev.arch = t->arch;
	ev.nr = t->nr;
	ev.flags = flags;
	memcpy(ev.args, t->args, sizeof(ev.args));
	ev.ret = ret;
	ev.entry_ns = t->entry_ns;
	ev.exit_ns = now;
	l->sink->syscall(l->sink->ctx, &ev);
}

/* Entry (or seccomp) stop of a call whose action is act. */
static void on_entry(struct loop *l, struct task *t, uint32_t arch,
		     uint64_t nr, const uint64_t *args, uint8_t act,
		     uint64_t now)
{
	t->arch = arch;
	t->nr = (int)nr;
	t->act = act;
	memcpy(t->args, args, sizeof(t->args));
	t->entry_ns = now;
	if (act & ACT_COUNT)
		emit(l, t, 0, EVF_COUNT_ONLY, now);
	if (act & ACT_TRACK_ENTRY)
		emit(l, t, 0, EVF_COUNT_ONLY | EVF_HIDDEN, now);
	/* The exit stop is wanted for timing or for a pinning fix-up. */
	t->in_syscall = (act & (ACT_TIME | ACT_FIXUP | ACT_TRACK)) != 0;
}

static void on_exit_stop(struct loop *l, struct task *t, int64_t ret,
			 uint64_t now)
{
	/* A task seized mid-call has an exit without an entry. */
	if (!t->in_syscall)
		return;
	t->in_syscall = false;
	if ((t->act & ACT_FIXUP) && l->pin.active)
		pin_fixup(&l->pin, t->tid, t->nr, t->args, ret);
	if (t->act & ACT_TIME)
		emit(l, t, ret, 0, now);
	else if (t->act & ACT_TRACK)
		emit(l, t, ret, EVF_HIDDEN, now);
}

static void on_syscall_stop(struct loop *l, struct task *t, uint64_t now)
{
	struct __ptrace_syscall_info info;
	uint8_t act;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info),
		   &info) <= 0)
		return;
	switch (info.op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
		act = plan_action(&l->plan, info.arch, (int)info.entry.nr);
		on_entry(l, t, info.arch, info.entry.nr, info.entry.args, act,
			 now);
		break;
	case PTRACE_SYSCALL_INFO_SECCOMP:
		/* The filter's SECCOMP_RET_DATA is the action. */
		on_entry(l, t, info.arch, info.seccomp.nr, info.seccomp.args,
			 (uint8_t)info.seccomp.ret_data, now);
		break;
	case PTRACE_SYSCALL_INFO_EXIT:
		on_exit_stop(l, t, info.exit.rval, now);
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

static void on_new_task(struct loop *l, pid_t parent)
{
	unsigned long child;

	if (l->pin.active && ptrace(PTRACE_GETEVENTMSG, parent, 0L, &child) == 0)
		pin_end(&l->pin, parent, (pid_t)child);
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

	if (sig == (SIGTRAP | 0x80) || event == PTRACE_EVENT_SECCOMP) {
		on_syscall_stop(l, t, now);
		resume(l, tid, t->in_syscall, 0);
		return;
	}
	switch (event) {
	case 0:
		/* Signal-delivery-stop: deliver it, exactly once. */
		resume(l, tid, t->in_syscall, sig);
		break;
	case PTRACE_EVENT_STOP:
		/* Group-stop (Ctrl-Z, SIGSTOP): stay stopped until SIGCONT. */
		if (is_stop_signal(sig))
			ptrace(PTRACE_LISTEN, tid, 0L, 0L);
		else
			resume(l, tid, t->in_syscall, 0);
		break;
	case PTRACE_EVENT_EXEC:
		on_exec(l, tid);
		t = task_find(&l->tasks, tid);
		resume(l, tid, t && t->in_syscall, 0);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		/* The child reports its own first stop. */
		on_new_task(l, tid);
		resume(l, tid, t->in_syscall, 0);
		break;
	default:
		resume(l, tid, t->in_syscall, 0);
		break;
	}
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

static void on_gone(struct loop *l, pid_t tid, int status,
		    const struct rusage *ru)
{
	if (tid == l->leader) {
		l->res->status = status;
		l->res->exited = true;
		l->res->user_ns = tv_ns(&ru->ru_utime);
		l->res->sys_ns = tv_ns(&ru->ru_stime);
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
	struct rusage ru;
	struct task *t;
	uint64_t now;
	int status;
	pid_t tid;

	for (;;) {
		tid = wait4(-1, &status, __WALL, &ru);
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
			on_gone(l, tid, status, &ru);
			continue;
		}
		t = task_get(&l->tasks, tid);
		if (!t)
			return -ENOMEM;
		if (l->killed_all)
			kill(tid, SIGKILL);
		on_stop(l, t, status, now);
		/* What tracing costs that the stops' count cannot tell. */
		l->res->busy_ns += mono_ns() - now;
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
	err = plan_build(&l.plan, opts);
	if (err < 0)
		return err;
	if (opts->pin)
		pin_start(&l.pin);
	l.leader = tracer_spawn(opts, &l.plan, child);
	if (l.leader < 0) {
		err = l.leader;
		goto out_unpin;
	}
	tracer_leader = l.leader;
	res->start_ns = mono_ns();
	err = run_loop(&l);
	res->end_ns = mono_ns();
	res->fatal_signal = tracer_fatal_signal;
	tracer_leader = 0;
out_unpin:
	if (l.pin.active)
		pin_end(&l.pin, 0, 0);
	plan_release(&l.plan);
	task_table_release(&l.tasks);
	return err;
}
