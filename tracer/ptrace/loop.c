// SPDX-License-Identifier: MIT
/*
 * The stop loop: wait for a ptrace stop, look at it once, resume.  A timed
 * syscall costs two stops (entry, or the seccomp stop, and exit); a
 * count-only one costs one; with the seccomp filter an untraced one costs
 * none.  At the last stop of a call one event goes to the sink.  Nothing
 * here allocates, formats or reads /proc per stop:
 * PTRACE_GET_SYSCALL_INFO gives everything in one call, and the per-task
 * state lives in a table that only changes when tasks come and go.
 *
 * The loop is the same whatever the target (ptrace.c): it assumes nothing
 * about how it came to know a task.  A task first met at an exit stop
 * (seized mid-call) has no entry, and that call is not reported; a task
 * first met anywhere else gets its thread group from its parent's clone
 * event or, failing that, one /proc read in its life.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"
#include "unwind/unwind.h"

static pid_t task_tgid(struct task *t)
{
	/* At most once per task, for one whose parent's clone event has
	   not been seen yet; tid itself when /proc cannot say. */
	if (!t->tgid)
		t->tgid = (pid_t)task_status_field(t->tid, "Tgid", t->tid);
	return t->tgid;
}

/*
 * In seccomp mode a task runs freely (PTRACE_CONT) until the filter stops
 * it; only a call waiting for its exit stop needs PTRACE_SYSCALL, and
 * every call once a program has a filter of its own (ownfilter.c).
 */
static void resume(struct loop *l, pid_t tid, bool in_syscall, int sig)
{
	int req = in_syscall || !l->plan.bpf || l->own_filters ?
		  PTRACE_SYSCALL : PTRACE_CONT;

	/* ESRCH: the task was killed meanwhile; its exit is reported later. */
	ptrace(req, tid, 0L, (long)sig);
}

static void emit(struct loop *l, struct task *t, int64_t ret,
		 unsigned flags, uint64_t now)
{
	struct tracer_event ev;

	ev.tid = t->tid;
	ev.tgid = task_tgid(t);
	ev.arch = t->arch;
	ev.nr = t->nr;
	ev.flags = flags;
	memcpy(ev.args, t->args, sizeof(ev.args));
	ev.ret = ret;
	ev.entry_ns = t->entry_ns;
	ev.exit_ns = now;
	ev.file_id = TRACER_ID_NONE;
	ev.stack_id = flags & EVF_HIDDEN ? TRACER_ID_NONE : t->stack_id;
	if (l->calib && calib_event(l, &ev))
		return;
	l->sink->syscall(l->sink->ctx, &ev);
}

/*
 * A task at its exit stop, where /proc still shows its own I/O
 * accounting: to the sink, if it asks.  One read per task that exits,
 * never at an ordinary stop.
 */
static void report_exit(struct loop *l, struct task *t)
{
	struct tracer_task_exit x;

	if (!l->sink->task_exit)
		return;
	tracer_task_exit_read(task_tgid(t), t->tid, &x);
	l->sink->task_exit(l->sink->ctx, &x);
}

/*
 * -k: the stack of a traced call, unwound at its entry; its time starts
 * once the unwinding is done, so -k does not lengthen it.  A call that
 * may map code makes the process's map cache stale.
 */
static uint64_t entry_stack(struct loop *l, struct task *t, uint8_t act,
			    const uint64_t *args, uint64_t ip, uint64_t now)
{
	bool sample = false;
	uint64_t at;

	t->stack_id = TRACER_ID_NONE;
	if (!l->unwind)
		return now;
	if ((act & ACT_MAPS) && (args[2] & PROT_EXEC))
		unwinder_maps_changed(l->unwind, task_tgid(t));
	if (!(act & (ACT_TIME | ACT_COUNT)))
		return now;
	/* The execve that starts a command is made by iotrace's code. */
	if (l->leader_iotrace && t->tid == l->leader)
		return now;
	at = l->hooks ? l->hooks->stub_site(l, t, ip, &sample) : 0;
	t->stack_id = unwinder_stack(l->unwind, t->tid, task_tgid(t),
				     t->arch, t->nr, at, sample);
	return mono_ns();
}

/* Entry (or seccomp) stop of a call whose action is act. */
static void on_entry(struct loop *l, struct task *t, uint32_t arch,
		     uint64_t nr, const uint64_t *args, uint64_t ip,
		     uint8_t act, uint64_t now)
{
	bool calib;

	act = calib_act(l, t, arch, (int)nr, args, act, &calib);
	t->arch = arch;
	t->nr = (int)nr;
	t->act = act;
	t->forked = 0;
	t->ip = ip;
	memcpy(t->args, args, sizeof(t->args));
	/* The extension may take the call back first (the fast path
	   rewriting the process): its second entry counts. */
	if (l->hooks && !calib) {
		task_tgid(t);
		if (l->hooks->replay(l, t)) {
			t->in_syscall = false;
			return;
		}
	}
	/* The calibration's calls are timed as the run's, unwound never. */
	t->stack_id = TRACER_ID_NONE;
	if (!calib)
		now = entry_stack(l, t, act, args, ip, now);
	t->entry_ns = now;
	if (l->pin.active)
		pin_at_entry(&l->pin, t->tid, arch, (int)nr, args);
	if (act & ACT_CLONE)
		clone_keep_traced(t->tid, arch, (int)nr, args);
	if (act & ACT_SECCOMP)
		ownfilter_at_entry(l, t);
	if (act & ACT_COUNT)
		emit(l, t, 0, EVF_COUNT_ONLY, now);
	if (act & ACT_TRACK_ENTRY)
		emit(l, t, 0, EVF_COUNT_ONLY | EVF_HIDDEN, now);
	/* The exit stop is wanted for timing or for a pinning fix-up. */
	t->in_syscall = (act & (ACT_TIME | ACT_FIXUP | ACT_TRACK)) != 0;
	if (l->hooks) {
		task_tgid(t);
		l->hooks->entry(l, t);
	}
}

static void on_exit_stop(struct loop *l, struct task *t, int64_t ret,
			 uint64_t now)
{
	/* A task seized mid-call has an exit without an entry. */
	if (!t->in_syscall)
		return;
	t->in_syscall = false;
	if ((t->act & ACT_FIXUP) && l->pin.active)
		pin_fixup(&l->pin, t->tid, t->arch, t->nr, t->args, ret);
	if (t->act & ACT_TIME)
		emit(l, t, ret, 0, now);
	else if (t->act & ACT_TRACK)
		emit(l, t, ret, EVF_HIDDEN, now);
}

/*
 * A seccomp stop.  iotrace's filter's data is the action, tagged; data
 * without the tag is a filter of the program's own returning
 * SECCOMP_RET_TRACE, and the call fails with ENOSYS as it would
 * untraced, counted by the plan like any other.  A task that stops at
 * every call (l->own_filters) had its entry stop for it already.
 */
static void on_seccomp_stop(struct loop *l, struct task *t,
			    const struct __ptrace_syscall_info *info,
			    uint64_t now)
{
	uint32_t data = info->seccomp.ret_data;
	uint8_t act;

	if (!plan_data_ours(data))
		ownfilter_refuse(l, t->tid);
	if (t->entered)
		return;
	act = plan_data_ours(data) ? (uint8_t)(data & ~PLAN_DATA_MASK) :
	      plan_action(&l->plan, info->arch, (int)info->seccomp.nr);
	on_entry(l, t, info->arch, info->seccomp.nr, info->seccomp.args,
		 info->instruction_pointer, act, now);
}

static void on_syscall_stop(struct loop *l, struct task *t, uint64_t now)
{
	struct __ptrace_syscall_info info;
	uint8_t act;

	if (ptrace(PTRACE_GET_SYSCALL_INFO, t->tid, (void *)sizeof(info),
		   &info) <= 0)
		return;
	/* A trampoline's call (a task that stops at every call): its
	   trampoline counts it; a filter of the program's own still has
	   its say. */
	if (l->hooks && l->hooks->own_stop(l, info.instruction_pointer)) {
		if (info.op == PTRACE_SYSCALL_INFO_SECCOMP &&
		    !plan_data_ours(info.seccomp.ret_data))
			ownfilter_refuse(l, t->tid);
		return;
	}
	switch (info.op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
		t->entered = true;
		if (t->strict && ownfilter_strict_kills(t, info.arch,
							(int)info.entry.nr))
			break;
		act = plan_action(&l->plan, info.arch, (int)info.entry.nr);
		on_entry(l, t, info.arch, info.entry.nr, info.entry.args,
			 info.instruction_pointer, act, now);
		break;
	case PTRACE_SYSCALL_INFO_SECCOMP:
		on_seccomp_stop(l, t, &info, now);
		break;
	case PTRACE_SYSCALL_INFO_EXIT:
		t->entered = false;
		on_exit_stop(l, t, info.exit.rval, now);
		if (l->hooks)
			l->hooks->exit_stop(l, t, info.arch, info.exit.rval);
		break;
	}
}

/*
 * A task gone (killed, or its leader's tid taken by an execve) inside a
 * fork or clone whose child exists: the call completed, and
 * untraced it would have returned the child's tid (the event stop that
 * held it is tracing's own).  Counted so: a thread that execs at once
 * can kill its leader still inside the clone3 that made it.
 */
static void end_forked(struct loop *l, struct task *t)
{
	if (t->in_syscall && t->forked)
		on_exit_stop(l, t, t->forked, mono_ns());
}

/*
 * execve from a thread other than the leader: the kernel gives the
 * leader's tid to the execing thread, whose own tid vanishes without an
 * exit report.  Its state (inside execve) moves to the leader's tid,
 * which is the thread group's id.
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
	if (to)
		end_forked(l, to);
	from = task_find(&l->tasks, (pid_t)former);
	if (from && to)
		*to = *from;
	if (to) {
		to->tid = tid;
		to->tgid = tid;
	}
	task_del(&l->tasks, (pid_t)former);
}

/* Whether tid is still traced by iotrace: not gone and reaped. */
static bool is_tracee(pid_t tid)
{
	siginfo_t si;

	return waitid(P_PID, (id_t)tid, &si,
		      WEXITED | WSTOPPED | WNOHANG | WNOWAIT | __WALL) == 0;
}

/*
 * PTRACE_EVENT_FORK, VFORK or CLONE of parent: pinning ends (a second
 * task exists), and the new task gets its thread group before its first
 * stop, in three syscalls.  Whether it is a thread of the parent is asked
 * of the kernel, not read from the clone flags (a thread may even be
 * reported as a fork): tgkill(group, child, 0) finds child in the
 * parent's group or fails with ESRCH.  A child already gone and reaped
 * gets no entry.  May grow the task table.
 */
static pid_t on_new_task(struct loop *l, struct task *parent)
{
	unsigned long msg;
	pid_t child, group, tgid;
	struct task *c;

	if (ptrace(PTRACE_GETEVENTMSG, parent->tid, 0L, &msg) < 0)
		return 0;
	child = (pid_t)msg;
	/* A vfork's parent waits for its child untraced too: not one. */
	if ((l->status >> 16) != PTRACE_EVENT_VFORK)
		parent->forked = child;
	l->res->tasks++;
	if (l->pin.active)
		pin_end(&l->pin, parent->tid, child);
	c = task_find(&l->tasks, child);
	if (c && c->tgid)
		return child;
	group = task_tgid(parent);
	tgid = syscall(SYS_tgkill, group, child, 0) == 0 || errno == EPERM ?
	       group : child;
	if (c || is_tracee(child))
		loop_add_task(l, child, tgid);
	return child;
}

static bool is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/*
 * A new task the loop's extension held at its first stop, its parent's
 * event now seen: that stop handled as any other.
 */
static void on_stop(struct loop *l, struct task *t, int status, uint64_t now);
static void release_held(struct loop *l, pid_t tid, uint64_t now)
{
	struct task *c = tid > 0 ? task_find(&l->tasks, tid) : NULL;

	if (c) {
		c->held = false;
		on_stop(l, c, c->held_status, now);
	}
}

static void on_stop(struct loop *l, struct task *t, int status, uint64_t now)
{
	int sig = WSTOPSIG(status), event = status >> 16;
	pid_t tid = t->tid;	/* on_exec() may move the table under t */
	pid_t child;
	bool in_syscall;

	if (l->hooks)
		l->hooks->any_stop(l, t);
	if (sig == (SIGTRAP | 0x80) || event == PTRACE_EVENT_SECCOMP) {
		on_syscall_stop(l, t, now);
		resume(l, tid, t->in_syscall, 0);
		return;
	}
	switch (event) {
	case 0:
		/* Signal-delivery-stop: deliver it, exactly once (from
		   where the program is, if it was in a trampoline). */
		if (l->hooks)
			l->hooks->signal_stop(l, t, sig);
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
		if (l->hooks)
			l->hooks->exec_event(l, tid);
		on_exec(l, tid);
		unwinder_maps_changed(l->unwind, tid);
		if (tid == l->leader)
			l->leader_iotrace = false;
		t = task_find(&l->tasks, tid);
		resume(l, tid, t && t->in_syscall, 0);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		/* The child reports its own first stop. */
		in_syscall = t->in_syscall;
		child = on_new_task(l, t);	/* t is stale after it */
		t = task_find(&l->tasks, tid);
		if (child && t && l->hooks)
			release_held(l, l->hooks->new_task(l, task_tgid(t),
					child, event == PTRACE_EVENT_VFORK), now);
		resume(l, tid, in_syscall, 0);
		break;
	case PTRACE_EVENT_EXIT:
		if (l->hooks)	/* its counters folded first */
			l->hooks->exit_event(l, t);
		report_exit(l, t);
		resume(l, tid, t->in_syscall, 0);
		break;
	default:
		resume(l, tid, t->in_syscall, 0);
		break;
	}
}

/* Tasks held for the event of a parent that died before making it. */
static void release_orphans(struct loop *l, pid_t parent)
{
	size_t i;

	for (i = 0; i < l->tasks.cap; i++)
		if (l->tasks.slots[i].tid && l->tasks.slots[i].held &&
		    l->tasks.slots[i].held_ppid == parent)
			release_held(l, l->tasks.slots[i].tid, mono_ns());
}

static void on_gone(struct loop *l, pid_t tid, int status)
{
	struct task *t = task_find(&l->tasks, tid);

	/* A process's leader gone: its map cache goes. */
	if (l->unwind && t && t->tgid == tid)
		unwinder_forget(l->unwind, tid);
	TRACER_DEBUG("pid %d: gone (%s %d)", (int)tid,
		     WIFEXITED(status) ? "exit" : "signal",
		     WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	if (tid == l->leader) {
		tracer_leader_reaped();	/* its pid is free for anyone now */
		l->res->status = status;
		l->res->exited = true;
	}
	if (t)
		end_forked(l, t);
	if (l->hooks && t) {
		l->hooks->gone(l, t);
		release_orphans(l, t->tgid ? t->tgid : tid);
	}
	task_del(&l->tasks, tid);
}

struct task *loop_add_task(struct loop *l, pid_t tid, pid_t tgid)
{
	struct task *t = task_get(&l->tasks, tid);

	if (t)
		t->tgid = tgid;
	return t;
}

/* SIGTERM or SIGHUP to iotrace, or whatever ends the target's run. */
static bool told_to_end(struct loop *l, uint64_t now)
{
	return tracer_fatal_signal ||
	       (l->target->should_end && l->target->should_end(l, now));
}

int loop_run(struct loop *l)
{
	struct task *t;
	uint64_t now;
	int status, err;
	pid_t tid;

	for (;;) {
		if (l->deferred_tid) {	/* died in the extension's calls */
			tid = l->deferred_tid;
			status = l->deferred_status;
			l->deferred_tid = 0;
			err = 0;
		} else {
			tid = waitpid(-1, &status, __WALL);
			err = errno;	/* before end() makes calls */
		}
		now = mono_ns();
		if (!l->ending && told_to_end(l, now)) {
			l->ending = true;
			l->target->end(l);
		}
		if (tid < 0) {
			if (err == EINTR)
				continue;
			return err == ECHILD ? 0 : -err;
		}
		l->res->stops++;
		if (l->calib && calib_run_full(l))
			calib_run_end(l);
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			on_gone(l, tid, status);
			continue;
		}
		t = task_find(&l->tasks, tid);
		if (!t) {
			t = task_get(&l->tasks, tid);
			if (!t)
				return -ENOMEM;
			if (!l->ending && l->hooks &&
			    l->hooks->hold_first(l, t, status))
				continue;
		}
		l->status = status;
		if (l->ending && l->target->end_task(l, t))
			continue;
		on_stop(l, t, status, now);
		/* What tracing costs that the stops' count cannot tell. */
		l->res->busy_ns += mono_ns() - now;
	}
}
