// SPDX-License-Identifier: MIT
/*
 * Programs with a seccomp filter of their own (sandboxes) or in strict
 * mode, under iotrace's filter.  The kernel runs every filter a task has
 * and keeps the result of highest precedence (KILL, TRAP, ERRNO, then
 * USER_NOTIF, TRACE, LOG, ALLOW; kernel/seccomp.c, seccomp_run_filters);
 * between two TRACE the newest filter's data wins, and a program's are
 * newer than iotrace's.  Left alone, a call the program's filter refuses
 * (ERRNO, TRAP, KILL) never reaches iotrace's stop and goes uncounted; a
 * call it gives to a tracer (TRACE) stops iotrace with the program's
 * data, where untraced it fails with ENOSYS (no tracer wants it); strict
 * mode, asked for when a filter is in, fails with EINVAL.
 *
 * So seccomp(2) and prctl are seen at entry (ACT_SECCOMP).  Once a task
 * loads a filter, every task of the run stops at the entry and exit of
 * every call (PTRACE_SYSCALL, as with --no-seccomp; loop.c): refused
 * calls are seen at entry and their results at exit, as strace sees
 * them, and iotrace's own seccomp stops (tagged, PLAN_DATA_TAG) are
 * passed over.  A seccomp stop without the tag is the program's TRACE:
 * the call is skipped with ENOSYS, as the kernel does with no tracer.
 * Strict mode is emulated: the call is skipped with 0 and each later
 * call of the task checked at its entry; one that strict mode forbids
 * gets the task killed (SIGKILL), as the kernel kills it.  PR_GET_SECCOMP
 * answers 0 to a task with no filter but iotrace's.  Registers are
 * written on x86_64 only; elsewhere these calls are left to the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

/* What an ACT_SECCOMP call asks for. */
enum own_op {
	OWN_NONE,	/* another prctl, or a seccomp op changing nothing */
	OWN_FILTER,	/* a filter of the task's own */
	OWN_STRICT,	/* strict mode, with arguments the kernel takes */
	OWN_GET,	/* PR_GET_SECCOMP: which mode the task is in */
};

#if defined(__x86_64__)
/*
 * Skips the call tid is stopped in (at its entry or seccomp stop): it
 * returns ret without running.  A number of -1 is what the kernel skips.
 */
static void skip_call(pid_t tid, int64_t ret)
{
	long nr = offsetof(struct user_regs_struct, orig_rax),
	     rv = offsetof(struct user_regs_struct, rax);

	ptrace(PTRACE_POKEUSER, tid, (void *)nr, (void *)-1L);
	ptrace(PTRACE_POKEUSER, tid, (void *)rv, (void *)ret);
}
#else
static void skip_call(pid_t tid, int64_t ret)
{
	(void)tid;
	(void)ret;
}
#endif

static enum own_op classify(const struct task *t)
{
	int pnr, pers = syscall_locate(t->arch, t->nr, &pnr);
	const struct syscall_fact *f = syscall_fact(pers, pnr);
	const uint64_t *a = t->args;

	if (!f)
		return OWN_NONE;
	/* A filter at NULL is EFAULT: libseccomp probes flags so. */
	if (!strcmp(f->name, "seccomp")) {
		if (a[0] == SECCOMP_SET_MODE_FILTER)
			return a[2] ? OWN_FILTER : OWN_NONE;
		/* With flags or an argument, EINVAL: the kernel says it. */
		return a[0] == SECCOMP_SET_MODE_STRICT && !a[1] && !a[2] ?
		       OWN_STRICT : OWN_NONE;
	}
	if ((int)a[0] == PR_GET_SECCOMP)
		return OWN_GET;
	if ((int)a[0] != PR_SET_SECCOMP)
		return OWN_NONE;
	if (a[1] == SECCOMP_MODE_FILTER)
		return a[2] ? OWN_FILTER : OWN_NONE;
	return a[1] == SECCOMP_MODE_STRICT ? OWN_STRICT : OWN_NONE;
}

/*
 * Whether tid has a filter besides iotrace's (its own, or one iotrace
 * itself runs under): Seccomp_filters in /proc/TID/status, one read at
 * these rare calls.  false where the kernel does not say (before 5.9).
 */
static bool other_filters(pid_t tid)
{
	return task_status_field(tid, "Seccomp_filters", 0) > 1;
}

void ownfilter_at_entry(struct loop *l, struct task *t)
{
	switch (classify(t)) {
	case OWN_FILTER:
		l->own_filters = true;
		break;
	case OWN_STRICT:
		/* Untraced, a task with a filter gets EINVAL: so here. */
		if (other_filters(t->tid))
			break;
		skip_call(t->tid, 0);
		t->strict = true;
		l->own_filters = true;
		break;
	case OWN_GET:
		/* iotrace's filter alone: untraced, mode 0. */
		if (!other_filters(t->tid))
			skip_call(t->tid, 0);
		break;
	default:
		break;
	}
}

void ownfilter_refuse(struct loop *l, pid_t tid)
{
	skip_call(tid, -ENOSYS);
	l->own_filters = true;
}

/*
 * Strict mode allows read, write, exit and the personality's signal
 * return: sigreturn where it has one (i386), rt_sigreturn otherwise.
 */
static bool strict_allows(uint32_t arch, int nr)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);
	const struct syscall_fact *f = syscall_fact(pers, pnr);

	if (!f || !(f->flags & SF_STRICT))
		return false;
	return strcmp(f->name, "rt_sigreturn") ||
	       syscall_pers_number(pers, "sigreturn") < 0;
}

bool ownfilter_strict_kills(struct task *t, uint32_t arch, int nr)
{
	if (strict_allows(arch, nr))
		return false;
	/* The kernel kills the thread; a signal takes its whole group. */
	kill(t->tid, SIGKILL);
	return true;
}
