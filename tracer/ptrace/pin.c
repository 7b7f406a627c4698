// SPDX-License-Identifier: MIT
/*
 * Same-CPU placement.  A ptrace stop is two context switches; when tracer
 * and tracee sit on different CPUs each one is also a cross-CPU wake-up,
 * which about doubles the cost of a traced syscall.  So while the traced
 * tree is a single task, iotrace pins itself and the task (which inherits
 * the mask at fork) to the CPU iotrace is running on.
 *
 * The CPU mask is part of the program's environment (sort and nproc read
 * it), so the program must not notice: sched_getaffinity on itself has
 * its result rewritten to the original mask at the exit stop (or, where
 * iotrace may not write the task's memory, pinning ends before the call
 * runs), and as soon as a second task exists (the first fork or thread)
 * every task gets the original mask back for good.  If the program sets
 * its own mask, that wins and pinning ends.  Which calls those are is a
 * fact of the syscall table (SF_GETAFFINITY, SF_SETAFFINITY), in every
 * personality: a lone 32-bit program is fixed up like a 64-bit one.
 * /proc/self/status shows the pinned mask while pinning lasts: that is
 * documented, not hidden.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

void pin_start(struct pin *pin)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	memset(pin, 0, sizeof(*pin));
	if (sched_getaffinity(0, sizeof(pin->orig), &pin->orig) < 0 ||
	    cpu < 0 || !CPU_ISSET(cpu, &pin->orig) ||
	    CPU_COUNT(&pin->orig) < 2)
		return;		/* nothing to gain, or nothing known */
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one) == 0)
		pin->active = true;
	TRACER_DEBUG("%s CPU %d", pin->active ? "pinned to" : "not pinned to",
		     cpu);
}

void pin_end(struct pin *pin, pid_t parent, pid_t child)
{
	if (!pin->active)
		return;
	if (parent > 0)
		sched_setaffinity(parent, sizeof(pin->orig), &pin->orig);
	if (child > 0)
		sched_setaffinity(child, sizeof(pin->orig), &pin->orig);
	sched_setaffinity(0, sizeof(pin->orig), &pin->orig);
	pin->active = false;
}

/* A call about the task itself (pid 0 or its own); while pinned it is
   alone. */
static bool about_itself(pid_t tid, const uint64_t *args)
{
	pid_t target = (pid_t)args[0];

	return target == 0 || target == tid;
}

/*
 * Whether iotrace may write the task's memory: not when it is not
 * dumpable (PR_SET_DUMPABLE 0, a set-user-ID program) and iotrace has no
 * privilege over it, though it traces it.  One byte of the buffer read
 * tells (EPERM); a bad buffer fails the call itself, with no result to
 * rewrite.
 */
static bool may_write(pid_t tid, uint64_t addr)
{
	char byte;
	struct iovec local = { &byte, 1 };
	struct iovec remote = { (void *)(uintptr_t)addr, 1 };

	return process_vm_readv(tid, &local, 1, &remote, 1, 0) == 1 ||
	       errno != EPERM;
}

/*
 * At the entry of a call that makes a task (fork, vfork, clone, clone3:
 * FX_CHILD in the syscall table): pinning ends before the task exists, so
 * it is born with the original mask.  This is what ends pinning when
 * children are not followed (--no-follow): iotrace gets no event for
 * them, and at the call's exit a vfork child or a quick one would already
 * have run, or forked, pinned.  Without the filter (the only mode of
 * --no-follow) every entry stops.  A call that then fails has ended
 * pinning for nothing, which only costs speed.  So it does at the entry
 * of a sched_getaffinity whose result iotrace could not rewrite at its
 * exit (may_write()): the call reads the original mask itself.
 */
void pin_at_entry(struct pin *pin, pid_t tid, uint32_t arch, int nr,
		  const uint64_t *args)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);
	const struct syscall_fact *f = syscall_fact(pers, pnr);

	if (!f)
		return;
	if (f->fx == FX_CHILD ||
	    ((f->flags & SF_GETAFFINITY) && about_itself(tid, args) &&
	     !may_write(tid, args[2])))
		pin_end(pin, tid, 0);
}

/* Writes the original mask over what sched_getaffinity returned. */
static void rewrite_mask(struct pin *pin, pid_t tid, const uint64_t *args,
			 int64_t ret)
{
	size_t len = (size_t)ret;
	struct iovec local, remote;

	if (len > sizeof(pin->orig))
		len = sizeof(pin->orig);
	local.iov_base = &pin->orig;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)args[2];
	remote.iov_len = len;
	process_vm_writev(tid, &local, 1, &remote, 1, 0);
}

void pin_fixup(struct pin *pin, pid_t tid, uint32_t arch, int nr,
	       const uint64_t *args, int64_t ret)
{
	int pnr, pers = syscall_locate(arch, nr, &pnr);
	const struct syscall_fact *f = syscall_fact(pers, pnr);

	if (!f || ret < 0 || !about_itself(tid, args))
		return;
	if ((f->flags & SF_GETAFFINITY) && ret > 0)
		rewrite_mask(pin, tid, args, ret);
	else if (f->flags & SF_SETAFFINITY)
		pin_end(pin, 0, 0);	/* the program's own choice wins */
}
