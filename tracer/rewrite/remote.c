// SPDX-License-Identifier: MIT
/*
 * Syscalls made in a stopped task on iotrace's behalf (fast-int.h): the
 * pool and the counters are mapped into a process by its own mmap calls,
 * made from a `syscall` instruction iotrace points the task at.  Each
 * call is one round trip handled here, synchronously, on this task only:
 * the registers set, PTRACE_SYSCALL, its entry stop (and a seccomp stop
 * if the plan stops at it), its exit stop, the result read.  The task's
 * signals are blocked around the calls (PTRACE_SETSIGMASK), so no
 * handler of the program can run in between; the mask and registers go
 * back at the end.  A stop this does not expect (the task killed, a
 * group-stop) ends the calls with -ESRCH or is stepped over.
 *
 * From a seccomp stop (remote_begin_entry()), the call the task is
 * entering is skipped first, and made again when the task goes on: its
 * `syscall` is the calls', and the registers put back at the end are
 * the entry's, rip on that instruction and rax the call's number.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <linux/ptrace.h>
#include "tracer/rewrite/fast-int.h"

int remote_begin(struct remote *r, pid_t tid, uint64_t insn)
{
	uint64_t all = ~0ull;

	memset(r, 0, sizeof(*r));
	r->tid = tid;
	r->insn = insn;
	if (ptrace(PTRACE_GETREGS, tid, 0L, &r->regs) < 0 ||
	    ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(r->mask),
		   &r->mask) < 0 ||
	    ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(all), &all) < 0)
		return -errno;
	r->masked = true;
	return 0;
}

/* The signals an instruction raises when it faults. */
static bool is_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGTRAP;
}

/* Waits for tid's next syscall stop; its op, or -ESRCH (gone: *gone). */
static int next_syscall_stop(struct remote *r, int64_t *rval)
{
	struct __ptrace_syscall_info info;
	int status;

	for (;;) {
		if (waitpid(r->tid, &status, __WALL) < 0)
			return -errno;
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			r->gone = true;
			r->gone_status = status;
			return -ESRCH;
		}
		if (WSTOPSIG(status) == (SIGTRAP | 0x80) ||
		    status >> 16 == PTRACE_EVENT_SECCOMP) {
			if (ptrace(PTRACE_GET_SYSCALL_INFO, r->tid,
				   (void *)sizeof(info), &info) <= 0)
				return -errno;
			if (info.op == PTRACE_SYSCALL_INFO_EXIT) {
				*rval = info.exit.rval;
				return 0;
			}
		}
		/*
		 * A fault of the instruction the task was sent to (no
		 * `syscall` there, or not mapped): the calls end, the
		 * fault undelivered (remote_end() puts the task back where
		 * it was); resumed, it would only fault again.
		 */
		if (status >> 16 == 0 && is_fault(WSTOPSIG(status)))
			return -EFAULT;
		/*
		 * An entry or seccomp stop of the call, or a stop no
		 * blocked signal can make (SIGSTOP's group-stop): on to
		 * its exit.  A signal-delivery stop of SIGSTOP is let
		 * through, as the kernel would deliver it.
		 */
		if (ptrace(PTRACE_SYSCALL, r->tid, 0L,
			   status >> 16 == 0 && WSTOPSIG(status) == SIGSTOP ?
			   (void *)(long)SIGSTOP : NULL) < 0)
			return -errno;
	}
}

int remote_begin_entry(struct remote *r, pid_t tid)
{
	struct user_regs_struct regs;
	int64_t rval;
	uint64_t word;
	int err = remote_begin(r, tid, 0);

	if (err)
		return err;
	/* The program's `syscall`, which its calls are made from again. */
	errno = 0;
	word = (uint64_t)ptrace(PTRACE_PEEKTEXT, tid,
				(void *)(r->regs.rip - 2), 0L);
	if (errno || (word & 0xffff) != 0x050f)
		return errno ? -errno : -ENOEXEC;
	r->insn = r->regs.rip - 2;
	/* Its call skipped (-1: none), to its exit stop. */
	regs = r->regs;
	regs.orig_rax = (uint64_t)-1;
	if (ptrace(PTRACE_SETREGS, tid, 0L, &regs) < 0)
		return -errno;
	/* Skipped: back at the end, it makes the call again. */
	r->skipped = true;
	r->regs.rip = r->insn;
	r->regs.rax = r->regs.orig_rax;
	if (ptrace(PTRACE_SYSCALL, tid, 0L, 0L) < 0)
		return -errno;
	return next_syscall_stop(r, &rval);
}

int64_t remote_call(struct remote *r, long nr, uint64_t a, uint64_t b,
		    uint64_t c, uint64_t d, uint64_t e, uint64_t f)
{
	struct user_regs_struct regs = r->regs;
	int64_t rval = 0;
	int err;

	if (r->gone)
		return -ESRCH;
	regs.rip = r->insn;
	regs.rax = (uint64_t)nr;
	regs.orig_rax = (uint64_t)-1;
	regs.rdi = a;
	regs.rsi = b;
	regs.rdx = c;
	regs.r10 = d;
	regs.r8 = e;
	regs.r9 = f;
	if (ptrace(PTRACE_SETREGS, r->tid, 0L, &regs) < 0 ||
	    ptrace(PTRACE_SYSCALL, r->tid, 0L, 0L) < 0)
		return -errno;
	err = next_syscall_stop(r, &rval);
	return err ? err : rval;
}

int remote_end(struct remote *r)
{
	if (r->gone)
		return -ESRCH;
	/* A remote_begin() that failed changed nothing to put back. */
	if (!r->masked)
		return 0;
	if (ptrace(PTRACE_SETREGS, r->tid, 0L, &r->regs) < 0 ||
	    ptrace(PTRACE_SETSIGMASK, r->tid, (void *)sizeof(r->mask),
		   &r->mask) < 0)
		return -errno;
	return 0;
}
