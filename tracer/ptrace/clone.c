// SPDX-License-Identifier: MIT
/*
 * Children made with CLONE_UNTRACED.  The flag keeps a child from being
 * traced through PTRACE_O_TRACECLONE/FORK, but the child still inherits
 * the seccomp filter: with nobody to answer SECCOMP_RET_TRACE every call
 * the filter traces fails with ENOSYS (the child cannot even write), and
 * iotrace never learns that a second task exists, so pinning never ends.
 * strace -f, without a filter, leaves such a child merely untraced.
 *
 * iotrace clears the flag instead: clone and clone3 are always seen at
 * entry when children are followed (ACT_CLONE, from the facts
 * SF_CLONE_FLAGS and SF_CLONE_ARGS of the syscall table), and the flag
 * is cleared in the task's register (clone) or in its struct clone_args
 * (clone3) before the call runs.  The child is then traced and counted
 * like any other, and its birth ends pinning as any fork does.  The flag
 * is documented as something a tracer may override (it exists so that
 * kernel threads escape tracing), and the child sees no difference but
 * the tracer.  One word read and written per such call; clone is rare.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/sched.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include "tracer/ptrace/ptrace-int.h"

#ifndef CLONE_UNTRACED
#define CLONE_UNTRACED 0x00800000
#endif

#if defined(__x86_64__)
/* Where arg 0 lives in the registers: ebx for i386, rdi otherwise. */
static long arg0_offset(uint32_t arch)
{
	return arch == AUDIT_ARCH_I386 ?
	       (long)offsetof(struct user_regs_struct, rbx) :
	       (long)offsetof(struct user_regs_struct, rdi);
}

/* clone: the flags are arg 0, in a register. */
static void clear_in_register(pid_t tid, uint32_t arch, uint64_t flags)
{
	uint64_t v = flags & ~(uint64_t)CLONE_UNTRACED;

	if (arch == AUDIT_ARCH_I386)
		v = (uint32_t)v;
	ptrace(PTRACE_POKEUSER, tid, (void *)arg0_offset(arch), (void *)v);
}

/*
 * clone3: the flags are the first 64-bit word of struct clone_args at
 * arg 0.  PTRACE_PEEKDATA/POKEDATA, not process_vm_*: they work on
 * read-only memory too.  errno tells a failed peek from a word of -1.
 */
static void clear_in_memory(pid_t tid, uint64_t addr)
{
	long word;

	errno = 0;
	word = ptrace(PTRACE_PEEKDATA, tid, (void *)addr, 0L);
	if (errno || !(word & CLONE_UNTRACED))
		return;
	word &= ~(long)CLONE_UNTRACED;
	ptrace(PTRACE_POKEDATA, tid, (void *)addr, (void *)word);
}

void clone_keep_traced(pid_t tid, uint32_t arch, int nr,
		       const uint64_t *args)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);
	const struct syscall_fact *f = syscall_fact(pers, pnr);

	if (!f)
		return;
	if ((f->flags & SF_CLONE_FLAGS) && (args[0] & CLONE_UNTRACED))
		clear_in_register(tid, arch, args[0]);
	else if ((f->flags & SF_CLONE_ARGS) && args[0])
		clear_in_memory(tid, args[0]);
}
#else
/* Other hosts: no register layout known here; the flag is left. */
void clone_keep_traced(pid_t tid, uint32_t arch, int nr,
		       const uint64_t *args)
{
	(void)tid;
	(void)arch;
	(void)nr;
	(void)args;
}
#endif
