// SPDX-License-Identifier: MIT
/*
 * The fast path's run (docs/fastpath.md): whether it is on, and the
 * hooks the stop loop calls (struct loop_hooks, ptrace.h; the table of
 * processes that have the pool is procs.c).  The ptrace engine stays in charge of every task; this
 * file only decides, at the stops the engine takes anyway, what the
 * pool, the sites and the counters need:
 *   execve's entry:  the image's counters folded (its fds still open);
 *   execve's exit:   the pool and counters mapped (map.c), or, with
 *                    rewrite_after, nothing yet: the process is
 *                    pending;
 *   a hot call's entry, the rewrite_after-th of a pending process, or
 *   a clone that starts its second thread: the call put off, the pool
 *                    mapped and every object's sites patched, the
 *                    call made again (fast_replay());
 *   mmap's exit:     an executable object's sites patched (patch.c);
 *   a new process:   held at its first stop until its parent's event
 *                    says whose memory it has; a fork child gets
 *                    counters of its own, a vfork child shares;
 *   close, dup2...:  the fds they free folded, as the sink still knows
 *                    their files; a close its trampoline sent to the
 *                    stub (a written fd) made again from its site;
 *   a task's exit:   its process's counters folded;
 *   a signal in P:   the task put back where the program is (tramp.c).
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <x86intrin.h>
#include <linux/kcmp.h>
#include <linux/ptrace.h>
#include "tracer/rewrite/fast-int.h"
#include "unwind/unwind.h"

/* --- the run --- */

static enum rw_reg reg_of_arg(uint8_t arg)
{
	static const enum rw_reg regs[] = {
		RW_NOREG, RW_RDI, RW_RSI, RW_RDX, RW_R10, RW_R8, RW_R9,
	};

	return arg < sizeof(regs) / sizeof(*regs) ? regs[arg] : RW_NOREG;
}

/*
 * The hot calls the trampolines take: those the plan times or counts
 * whose registers the template has a trampoline for (one-fd calls,
 * the two-fd calls' own: splice, sendfile, copy_file_range, and the fd
 * table's close and fcntl).
 */
static void choose_slots(struct fast_run *f, const struct plan *pl)
{
	const struct syscall_fact *fact;
	uint8_t act;
	int nr, n;

	memset(f->slot_of, -1, sizeof(f->slot_of));
	for (nr = 0; nr < SYSCALL_SET_MAX && nr < 512; nr++) {
		fact = syscall_fact(0, nr);
		n = f->nslots;
		/* -k's ACT_MAPS is for the stops code maps still make */
		act = pl->act[0][nr] & ~ACT_MAPS;
		if (!fact || !(fact->flags & SF_HOT) ||
		    (act != ACT_TIME && act != ACT_COUNT) || n == RW_SLOTS)
			continue;
		f->how[n].fd = reg_of_arg(fact->fd);
		f->how[n].two_fd = fact->fd2 != 0;
		f->how[n].fd2 = reg_of_arg(fact->fd2);
		f->how[n].size = fact->size && fact->size != ARG_IOV ?
				 reg_of_arg(fact->size) : RW_NOREG;
		f->how[n].moves = fact->size != 0;
		f->how[n].fdop = fact->fx == FX_ARG0 ? RW_FDOP_FREES :
				 fact->fx == FX_FCNTL ? RW_FDOP_CHANGES :
				 fact->flags & SF_MAPS_CODE ? RW_FDOP_MAPS :
				 RW_FDOP_NONE;
		f->how[n].timed = act == ACT_TIME;
		if (!rw_tramp_shape_ok(f->how[n].fd, f->how[n].two_fd,
				       f->how[n].fd2, f->how[n].size,
				       f->how[n].moves, f->how[n].fdop))
			continue;
		f->slot_of[nr] = (int8_t)n;
		f->nr_of[n] = nr;
		f->hot[nr / 8] |= (uint8_t)(1u << nr % 8);
		f->nslots++;
	}
}

/* --debug: the hot calls by name, in their slots' order. */
static void debug_hot(const struct fast_run *f)
{
	char line[RW_SLOTS * 24], name[32];
	size_t at = 0;
	int n;

	line[0] = 0;
	for (n = 0; n < f->nslots && at < sizeof(line); n++)
		at += (size_t)snprintf(line + at, sizeof(line) - at, "%s%s",
				       n ? " " : "",
				       syscall_name(syscall_pers[0].arch,
						    f->nr_of[n], name,
						    sizeof(name)));
	TRACER_DEBUG("hot calls: %s", line);
}

/* Why the fast path cannot serve this run, or NULL. */
static const char *fast_why_not(const struct loop *l,
				const struct tracer_target *target)
{
	const char *why = fast_opts_why_not(l->opts);

	if (why)
		return why;
	if (!l->target->from_birth)
		return "attached processes stay on ptrace stops";
	if (target->kind != TARGET_COMMAND && target->kind != TARGET_FUNCTION)
		return "not a command or a built-in workload";
	if (!l->plan.bpf)
		return "no seccomp filter";
	return rw_tsc_unusable();
}

/* p's process ends: one that never had the pool made fewer hot calls
   than its rewrite waited for, or was not safe to rewrite when due. */
static void proc_end(struct fast_run *f, struct fast_proc *p)
{
	if (!p->counted && (p->unsafe || (p->pending &&
					  p->hot >= f->use->rewrite_after)))
		f->use->procs_unsafe++;
	else if (!p->counted && p->pending)
		f->use->procs_short++;
	fast_proc_drop(f, p->tgid);
}

int fast_start(struct loop *l, const struct tracer_target *target)
{
	struct tracer_fast_use *use = &l->res->fast;
	struct fast_run *f;
	int err;

	use->why_off = fast_why_not(l, target);
	if (use->why_off) {
		TRACER_DEBUG("fast path off: %s", use->why_off);
		return 0;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->use = use;
	use->rewrite_after = l->opts->rewrite_after;
	f->sample = l->opts->stacks ? l->opts->stack_sample : 0;
	f->sink = l->sink;
	choose_slots(f, &l->plan);
	if (!f->nslots) {
		use->why_off = "no hot call is traced";
		TRACER_DEBUG("fast path off: %s", use->why_off);
		free(f);
		return 0;
	}
	/*
	 * The calibration thread and the TSC's interval, started before the
	 * plan (fast_warm_start()), run beside the spawn and the stop
	 * calibration, iotrace's own work; fast_clock() takes them at the
	 * first rewrite, once the command is exec'd.  Run beside the
	 * command, the thread would measure calls dearer than they are.
	 */
	if (!fast_warm_take(f)) {
		rw_tsc_mark(&f->mark);
		f->calibrating = fast_calibrate_start(&f->calib,
						       l->opts->in_fork,
						       pin_allowed(&l->pin)) == 0;
	}
	f->pool = rw_pool_pick();
	err = rw_filter_allow_pool(&l->plan.bpf, &l->plan.bpf_len, f->pool,
				   RW_POOL_SIZE);
	if (err < 0) {
		free(f);
		return err;
	}
	use->on = true;
	l->fast = f;
	TRACER_DEBUG("fast path on: %d hot calls, pool at %#llx, filter %u "
		     "instructions", f->nslots, (unsigned long long)f->pool,
		     (unsigned)l->plan.bpf_len);
	if (tracer_debug_on)
		debug_hot(f);
	return 0;
}

void fast_finish(struct loop *l)
{
	struct fast_run *f = l->fast;

	if (!f)
		return;
	if (f->calibrating)
		fast_calibrate_end(f, &f->calib);
	while (f->nproc) {
		fast_fold(f, &f->proc[0], 0, -1);
		proc_end(f, &f->proc[0]);
	}
	free(f->proc);
	fast_objects_free(f);
	free(f);
	l->fast = NULL;
}

static bool in_pool(const struct fast_run *f, uint64_t ip)
{
	return ip - f->pool < RW_POOL_CODE;
}

bool fast_own_stop(struct loop *l, uint64_t ip)
{
	return l->fast && in_pool(l->fast, ip);
}

static bool is_exec(int nr)
{
	return nr == SYS_execve || nr == SYS_execveat;
}

/*
 * At a call's entry (native calls only): the fds it frees are folded
 * while the sink can still name their files; an mmap of a file with
 * PROT_EXEC wants its exit, where the mapping's address is known.
 */
/*
 * The fds [*lo, *hi] call nr of t frees (all for execve: hi < 0), as its
 * fact says; false for a call that frees none.  Decided from the call
 * alone, before any table is searched: most entries need nothing.
 */
static bool frees_fds(const struct task *t, int *lo, int *hi)
{
	const struct syscall_fact *fact;

	if (is_exec(t->nr)) {
		*lo = 0;
		*hi = -1;
		return true;
	}
	fact = syscall_fact(0, t->nr);
	switch (fact ? fact->fx : FX_NONE) {
	case FX_ARG0:		/* close */
		*lo = *hi = (int)t->args[0];
		return true;
	case FX_ARG1:		/* dup2, dup3: the target */
		*lo = *hi = (int)t->args[1];
		return true;
	case FX_RANGE:		/* close_range */
		*lo = (int)(t->args[0] < RW_FDS ? t->args[0] : RW_FDS);
		*hi = (int)(t->args[1] < RW_FDS ? t->args[1] : RW_FDS - 1);
		return true;
	default:
		return false;
	}
}

void fast_entry(struct loop *l, struct task *t)
{
	struct fast_run *f = l->fast;
	struct fast_proc *p;
	bool maps_code;
	int lo, hi;

	if (!f || t->arch != syscall_pers[0].arch)
		return;
	/* The new image gets the pool at the exit, whatever the plan. */
	if (is_exec(t->nr))
		t->in_syscall = true;
	maps_code = t->nr == SYS_mmap && (t->args[2] & PROT_EXEC) &&
		    (int)t->args[4] >= 0 && !(t->args[3] & MAP_ANONYMOUS);
	if (!maps_code && !frees_fds(t, &lo, &hi))
		return;
	p = fast_proc_find(f, t->tgid ? t->tgid : t->tid);
	if (!p || !p->cnt)	/* pending: its sites all at its rewrite */
		return;
	if (maps_code) {
		fast_task(t)->map = true;
		t->in_syscall = true;
	} else {
		fast_fold(f, p, lo, hi);
	}
}

/* p has the pool: one more process, unless an image before had it. */
static void count_proc(struct fast_run *f, struct fast_proc *p)
{
	if (!p->counted)
		f->use->procs++;
	p->counted = true;
}

/* At a call's exit: execve's new image, mmap's new object. */
void fast_exit(struct loop *l, struct task *t, uint32_t arch, int64_t ret)
{
	struct fast_run *f = l->fast;
	struct fast_proc *p;
	pid_t tgid = t->tgid ? t->tgid : t->tid;

	if (!f)
		return;
	if (fast_task(t)->map) {
		fast_task(t)->map = false;
		p = fast_proc_find(f, tgid);
		if (p && ret >= 0) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d/fd/%d",
				 (int)t->tid, (int)t->args[4]);
			fast_patch_mapping(l, t, p, (uint64_t)ret, t->args[1],
					   t->args[5], path, NULL);
		}
		return;
	}
	if (!is_exec(t->nr) || ret != 0 || t->arch != syscall_pers[0].arch)
		return;
	fast_proc_drop(f, tgid);	/* the image before, if any */
	if (arch != syscall_pers[0].arch)
		return;			/* an i386 program: ptrace */
	p = fast_proc_add(f, tgid);
	if (!p)
		return;
	p->counted = f->exec_counted == tgid;
	f->exec_counted = 0;
	if (f->use->rewrite_after) {
		TRACER_DEBUG("pid %d: execve returned: rewritten at hot call "
			     "%u", (int)tgid, f->use->rewrite_after);
		p->pending = true;
		return;
	}
	TRACER_DEBUG("pid %d: execve returned: the pool goes in", (int)tgid);
	if (fast_map_exec(l, t, p) < 0) {
		f->use->procs_failed++;
		fast_proc_drop(f, tgid);
		return;
	}
	count_proc(f, p);
	TRACER_DEBUG("pid %d: pool and counters mapped", (int)tgid);
	fast_patch_image(l, t, p, NULL);
	TRACER_DEBUG("pid %d: image patched", (int)tgid);
}

/*
 * A built-in workload's child (a fork of iotrace, no execve) at its
 * first stop, before the filter and the workload: the pool, and the
 * sites of what it has mapped (iotrace and its libraries).
 */
void fast_spawned(struct loop *l, struct task *t)
{
	struct fast_run *f = l->fast;
	struct fast_proc *p;

	if (!f || fast_proc_find(f, t->tid) || !(p = fast_proc_add(f, t->tid)))
		return;
	if (fast_map_stopped(l, t, p) < 0) {
		f->use->procs_failed++;
		fast_proc_drop(f, t->tid);
		return;
	}
	count_proc(f, p);
	fast_patch_image(l, t, p, NULL);
}

/* PTRACE_EVENT_EXEC: what the old image's threads counted, then none. */
void fast_exec_event(struct loop *l, pid_t tgid)
{
	struct fast_proc *p = l->fast ? fast_proc_find(l->fast, tgid) : NULL;

	if (!p)
		return;
	fast_fold(l->fast, p, 0, -1);
	/* One process, as strace -f counts them: its next image is not a
	   second one. */
	if (p->counted)
		l->fast->exec_counted = tgid;
	fast_proc_drop(l->fast, tgid);
}

/* PTRACE_EVENT_EXIT of a task: its fds are still open; fold them. */
void fast_exit_event(struct loop *l, struct task *t)
{
	struct fast_proc *p;

	if (!l->fast)
		return;
	p = fast_proc_find(l->fast, t->tgid ? t->tgid : t->tid);
	if (p)
		fast_fold(l->fast, p, 0, -1);
}

static bool others_of(const struct loop *l, pid_t tgid, pid_t except)
{
	size_t i;

	for (i = 0; i < l->tasks.cap; i++)
		if (l->tasks.slots[i].tid && l->tasks.slots[i].tid != except &&
		    l->tasks.slots[i].tgid == tgid)
			return true;
	return false;
}

/* t is gone: its process's counters folded; dropped with its last task. */
void fast_gone(struct loop *l, struct task *t)
{
	pid_t tgid = t->tgid ? t->tgid : t->tid;
	struct fast_proc *p;

	if (!l->fast || !(p = fast_proc_find(l->fast, tgid)))
		return;
	fast_fold(l->fast, p, 0, -1);
	if (!others_of(l, tgid, t->tid))
		proc_end(l->fast, p);
}

/* --- a process rewritten as it runs --- */

/*
 * Whether t's call is a clone whose child runs on this memory beside it
 * (a thread, CLONE_VM without vfork's wait); clone3's flags are the
 * first word of its struct clone_args.
 */
static bool starts_sharer(const struct task *t)
{
	uint64_t flags = t->args[0];

	if (t->nr == SYS_clone3) {
		errno = 0;
		flags = (uint64_t)ptrace(PTRACE_PEEKDATA, t->tid,
					 (void *)t->args[0], 0L);
		if (errno)
			return false;
	} else if (t->nr != SYS_clone) {
		return false;
	}
	return (flags & CLONE_VM) && !(flags & CLONE_VFORK);
}

/*
 * A close its trampoline sent to the stub's syscall because its fd is
 * dirty, at the seccomp stop: the fd's cells folded while it still
 * names its file, and the call taken back to its site (as a signal
 * before the frame takes it: the site's copied loads run again), whose
 * trampoline finds the fd clean and makes it, counted and timed as any
 * other; a site unpatched meanwhile makes it from its own `syscall`, a
 * stop as before.  One stop a file instead of an entry and an exit.
 * Not when the task stops at every call (its entry stop came first),
 * nor when a -k sample of the slot is pending (that stop may be the
 * sample).  True: the call was put off, and this stop counts nothing.
 * Two words of the task's registers are written (PTRACE_POKEUSER), not
 * all 27 read and written (GETREGS, SETREGS: a user access each, the
 * costliest of the stop's ptrace calls): the ip is the stop's own.
 */
static bool close_again(struct fast_run *f, struct task *t,
			struct fast_proc *p)
{
	const struct fast_tramp *tr;
	uint64_t fd = (unsigned int)t->args[0];	/* as the kernel reads it */

	if (f->how[f->slot_of[t->nr]].fdop != RW_FDOP_FREES ||
	    fd >= RW_FDS || t->entered)
		return false;
	if (p->pending || !p->cnt || !p->code ||
	    !__atomic_load_n(&p->cnt->mem->dirty[fd], __ATOMIC_RELAXED) ||
	    !(tr = fast_tramp_of_stub(p->code, t->ip)) ||
	    tr->spec.fdop != RW_FDOP_FREES ||
	    (f->sample && __atomic_load_n(
			&p->cnt->mem->sample_pending[tr->spec.slot],
			__ATOMIC_ACQUIRE)))
		return false;
	fast_fold(f, p, (int)fd, (int)fd);
	/* skipped, and no exit stop; then made again from its site */
	if (ptrace(PTRACE_POKEUSER, t->tid,
		   (void *)offsetof(struct user_regs_struct, orig_rax),
		   (void *)-1L) < 0 ||
	    ptrace(PTRACE_POKEUSER, t->tid,
		   (void *)offsetof(struct user_regs_struct, rip),
		   (void *)tr->spec.site) < 0)
		return false;		/* gone: nothing to make again */
	return true;
}

/*
 * The entry of t's call, in a process still pending: at its
 * rewrite_after-th hot call, or at a clone that would start a second
 * task on its text, the process gets the pool and every object it has
 * mapped its sites, while t is its only task and stopped: the call is
 * put off and made again once the sites are rewritten, from the start
 * of its own site when that is one of them (through the trampoline,
 * counted there), else from its `syscall`.  A dirty close is made again
 * too (close_again()).  True: the call was put off, and this stop counts
 * nothing.
 */
bool fast_replay(struct loop *l, struct task *t)
{
	struct fast_run *f = l->fast;
	struct user_regs_struct regs;
	struct fast_proc *p;
	bool hot, skipped = false;
	uint64_t insn = 0, ip;
	pid_t tgid = t->tgid ? t->tgid : t->tid;

	if (!f || t->arch != syscall_pers[0].arch || t->nr < 0)
		return false;
	hot = t->nr < 512 && f->slot_of[t->nr] >= 0;
	if (!hot && t->nr != SYS_clone && t->nr != SYS_clone3 &&
	    t->nr != SYS_rt_sigreturn)
		return false;
	p = fast_proc_find(f, tgid);
	if (p && hot && close_again(f, t, p))
		return true;
	if (!p || !p->pending)
		return false;
	if (t->nr == SYS_rt_sigreturn) {
		p->handlers -= p->handlers > 0;
		return false;
	}
	if (hot ? ++p->hot < f->use->rewrite_after : !starts_sharer(t))
		return false;
	/* A handler may be running: at a later hot call, once none is. */
	if (p->handlers) {
		p->pending = hot;
		p->unsafe = !hot;
		return false;
	}
	p->pending = false;
	/* Another task may be running this text, or a filter of the
	   program's own judge iotrace's calls (and stop the task at every
	   call, at an entry stop): left on stops. */
	if (t->entered || l->own_filters || others_of(l, tgid, t->tid)) {
		p->unsafe = true;
		return false;
	}
	TRACER_DEBUG("pid %d: its %s: the pool goes in", (int)tgid,
		     hot ? "hot call" : "second task");
	if (fast_map_entry(l, t, p, &skipped, &insn) < 0) {
		f->use->procs_failed++;
		return skipped;
	}
	count_proc(f, p);
	/* -k --stack-sample: its trampolines go on with ptrace's 1 in N */
	for (int slot = 0; f->sample > 1 && slot < f->nslots; slot++)
		p->cnt->mem->sample_left[slot] =
			unwinder_sample_wait(l->unwind, f->nr_of[slot]);
	ip = insn;
	fast_patch_image(l, t, p, &ip);
	if (ip != insn && ptrace(PTRACE_GETREGS, t->tid, 0L, &regs) == 0) {
		regs.rip = ip;
		ptrace(PTRACE_SETREGS, t->tid, 0L, &regs);
	}
	TRACER_DEBUG("pid %d: image patched, the call made again", (int)tgid);
	return true;
}

/* --- new processes --- */

/*
 * The child of parent (a PTRACE_EVENT_FORK, VFORK or CLONE) gets what
 * its memory holds: a thread nothing; a process sharing its parent's
 * memory (vfork, CLONE_VM) the parent's counters; any other process a
 * copy of the parent's mappings, so counters of its own over the copy.
 */
static void setup_child(struct loop *l, struct task *c, pid_t parent_tgid)
{
	struct fast_run *f = l->fast;
	struct fast_proc *pp = fast_proc_find(f, parent_tgid), *cp;
	pid_t ctgid = c->tgid ? c->tgid : c->tid;

	if (!pp || ctgid == parent_tgid || fast_proc_find(f, ctgid))
		return;
	cp = fast_proc_add(f, ctgid);
	if (!cp)
		return;
	pp = fast_proc_find(f, parent_tgid);	/* the table may have moved */
	cp->code = fast_code_get(pp->code);
	if (fast_task(c)->shares) {
		/* One memory (or kcmp cannot tell): one page of counters. */
		cp->cnt = fast_counters_get(pp->cnt);
		return;
	}
	if (fast_map_fork(l, c->tid, cp) < 0) {
		/* The shared mapping it inherited is its parent's page:
		   its calls are counted there, with the parent's. */
		f->use->procs_failed++;
		cp->cnt = fast_counters_get(pp->cnt);
		return;
	}
	count_proc(f, cp);
}

/*
 * The child c of a process without the pool, at its parent's event: a
 * copy of its memory as it is now, so without the pool whenever its own
 * first stop comes (the parent may be rewritten before): pending too,
 * rewritten at its own hot calls; one on the parent's memory never is
 * (it runs beside it, or its parent waits until it execs).
 */
static void copy_pending(struct fast_run *f, struct task *c,
			 pid_t parent_tgid)
{
	struct fast_proc *pp, *cp;

	if (fast_proc_find(f, c->tgid) || !(cp = fast_proc_add(f, c->tgid)))
		return;
	pp = fast_proc_find(f, parent_tgid);	/* the table may have moved */
	cp->pending = pp->pending && !fast_task(c)->shares;
	cp->handlers = pp->handlers;	/* a fork in a handler is in it */
}

bool fast_hold_first(struct loop *l, struct task *t, int status)
{
	if (!l->fast)
		return false;
	/* Met before its parent's event: held there until it comes. */
	t->held = true;
	t->held_status = status;
	t->held_ppid = (pid_t)task_status_field(t->tid, "PPid", 0);
	return true;
}

/*
 * Closes and fcntls the process of t made through its trampolines since
 * the sink last heard: what the sink knows of its fds may be stale, so
 * it hears it now, before this stop's event.
 */
static void fds_changed(struct fast_run *f, struct task *t)
{
	struct fast_proc *p = fast_proc_find(f, t->tgid ? t->tgid : t->tid);
	uint64_t n;

	if (!p || !p->cnt)
		return;
	n = __atomic_load_n(&p->cnt->mem->fd_changes, __ATOMIC_ACQUIRE);
	if (n == p->cnt->fd_changes)
		return;
	p->cnt->fd_changes = n;
	if (f->sink->fds_changed)
		f->sink->fds_changed(f->sink->ctx);
}

void fast_any_stop(struct loop *l, struct task *t)
{
	pid_t parent = fast_task(t)->parent;

	if (!l->fast)
		return;
	fds_changed(l->fast, t);
	if (!parent)
		return;
	fast_task(t)->parent = 0;
	setup_child(l, t, parent);
}

pid_t fast_new_task(struct loop *l, pid_t parent_tgid, pid_t child,
		    bool vfork)
{
	struct fast_proc *pp;
	struct task *c;

	if (!l->fast || !(c = task_find(&l->tasks, child)))
		return 0;
	pp = fast_proc_find(l->fast, parent_tgid);
	/* A process of the parent's memory: vfork's, CLONE_VM's (kcmp: 0
	   for one memory, 1 or 2, an order, for two; -1 cannot tell). */
	fast_task(c)->shares = pp && c->tgid != parent_tgid &&
			       (vfork || syscall(SYS_kcmp, parent_tgid, child,
						 KCMP_VM, 0, 0) <= 0);
	/*
	 * A second thread on the parent's memory (a thread, or a process
	 * sharing it but not vfork's, whose parent waits): the locked
	 * trampolines from now on, switched while the parent is at this
	 * event and the child has not run.
	 */
	if (pp && (c->tgid == parent_tgid ||
		   (fast_task(c)->shares && !vfork))) {
		fast_code_threaded(pp->code);
		/* Its text is run by two tasks now: left as it is. */
		pp->unsafe |= pp->pending;
		pp->pending = false;
	}
	if (pp && !pp->cnt && c->tgid != parent_tgid)
		copy_pending(l->fast, c, parent_tgid);
	if (!c->held) {
		fast_task(c)->parent = parent_tgid;	/* at its first stop */
		return 0;
	}
	c->held = false;
	setup_child(l, c, parent_tgid);
	return child;
}

/* --- signals inside a trampoline --- */

struct peek_ctx {
	pid_t tid;
};

static int peek_task(void *ctx, uint64_t addr, void *buf, size_t n)
{
	const struct peek_ctx *p = ctx;
	uint64_t word;
	size_t i;

	for (i = 0; i < n; i += sizeof(word)) {
		errno = 0;
		word = (uint64_t)ptrace(PTRACE_PEEKDATA, p->tid,
					(void *)(addr + i), 0L);
		if (errno)
			return -errno;
		memcpy((char *)buf + i, &word,
		       n - i < sizeof(word) ? n - i : sizeof(word));
	}
	return 0;
}

/* The interrupted call, as a ptrace exit stop would have reported it. */
static void emit_interrupted(struct loop *l, struct task *t, int nr,
			     const struct user_regs_struct *r,
			     uint64_t elapsed)
{
	struct tracer_event ev;
	uint64_t now = mono_ns();

	memset(&ev, 0, sizeof(ev));
	ev.tid = t->tid;
	ev.tgid = t->tgid ? t->tgid : t->tid;
	ev.arch = syscall_pers[0].arch;
	ev.nr = nr;
	ev.args[0] = r->rdi;
	ev.args[1] = r->rsi;
	ev.args[2] = r->rdx;
	ev.args[3] = r->r10;
	ev.args[4] = r->r8;
	ev.args[5] = r->r9;
	ev.ret = (int64_t)r->rax;
	ev.exit_ns = now;
	ev.entry_ns = now - elapsed;
	ev.file_id = TRACER_ID_NONE;
	ev.stack_id = TRACER_ID_NONE;
	l->sink->syscall(l->sink->ctx, &ev);
	l->fast->use->interrupted++;
}

/* Steps t out of the pool, its signals blocked meanwhile. */
static int step_out(struct loop *l, pid_t tid)
{
	struct user_regs_struct r;
	uint64_t mask, all = ~0ull;
	int status, n, err = 0;

	if (ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(mask), &mask) < 0 ||
	    ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(all), &all) < 0)
		return -errno;
	for (n = 0; n < 4096; n++) {
		if (ptrace(PTRACE_GETREGS, tid, 0L, &r) < 0) {
			err = -errno;
			break;
		}
		if (!in_pool(l->fast, r.rip))
			break;
		if (ptrace(PTRACE_SINGLESTEP, tid, 0L, 0L) < 0 ||
		    waitpid(tid, &status, __WALL) < 0) {
			err = -errno;
			break;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			l->deferred_tid = tid;
			l->deferred_status = status;
			return -ESRCH;
		}
	}
	ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask);
	return err;
}

/* The task's argument in register r (enum rw_reg), at a stop. */
static uint64_t arg_in(const struct task *t, enum rw_reg r)
{
	return r >= RW_RDI && r <= RW_R9 ? t->args[r - RW_RDI] : 0;
}

/*
 * Whether a call at tr's stub came by the fd checks, not as a sample:
 * an fd the cells do not cover, or a two-fd call whose destination is
 * not the one its cell counts.
 */
static bool by_fd_check(const struct fast_proc *p, const struct fast_tramp *tr,
			const struct task *t)
{
	const struct rw_tramp_spec *s = &tr->spec;
	uint64_t fd = (unsigned int)arg_in(t, s->fd_reg), fd2;

	if (s->fd_reg == RW_NOREG)
		return false;
	if (fd >= RW_FDS)
		return true;
	if (!s->two_fd)
		return false;
	fd2 = (unsigned int)arg_in(t, s->fd2_reg);
	return fd2 >= RW_FDS ||
	       __atomic_load_n(&p->cnt->mem->cell[s->slot][fd].fd2,
			       __ATOMIC_ACQUIRE) != fd2 + 1;
}

/*
 * A stop at ip just after a stub's syscall: the call a trampoline sent
 * there, unwound from where the program made it.  -k's sample when one
 * of its slot is pending and the fd checks did not send it (a restart at
 * the stub comes unsampled too).
 */
uint64_t fast_stub_site(struct loop *l, struct task *t, uint64_t ip,
			bool *sample)
{
	struct fast_run *f = l->fast;
	const struct fast_tramp *tr = NULL;
	struct fast_proc *p;
	uint64_t *pending;

	*sample = false;
	if (!f)
		return 0;
	p = fast_proc_find(f, t->tgid ? t->tgid : t->tid);
	if (!p || !p->cnt || !(tr = fast_tramp_of_stub(p->code, ip)))
		return 0;
	pending = &p->cnt->mem->sample_pending[tr->spec.slot];
	for (uint64_t n = f->sample && !by_fd_check(p, tr, t) ?
			  __atomic_load_n(pending, __ATOMIC_ACQUIRE) : 0;
	     n && !*sample;)
		*sample = __atomic_compare_exchange_n(pending, &n, n - 1,
						      false, __ATOMIC_ACQ_REL,
						      __ATOMIC_ACQUIRE);
	return tr->spec.site + tr->spec.resume - tr->spec.post_len;
}

/*
 * glibc's SIGCANCEL (__SIGRTMIN), which pthread_cancel sends: its handler
 * (installed with SA_RESTART since glibc 2.34) unwinds the thread when
 * cancellation is asynchronous, as it is in a blocking read or write.
 */
#define GLIBC_SIGCANCEL 32

/*
 * A signal-delivery stop of t: when t is inside a trampoline, it is put
 * where the program would be untraced before the signal goes in (its
 * handler must run on the program's frame, a restart must go through
 * a `syscall` outside the pool).  False: t is not in the pool, or is
 * gone.
 */
bool fast_signal_stop(struct loop *l, struct task *t, int sig)
{
	struct fast_run *f = l->fast;
	struct user_regs_struct r, at;
	const struct fast_tramp *tr;
	struct fast_proc *p;
	struct peek_ctx pc = { t->tid };
	uint64_t elapsed = 0;
	bool uncount = false;

	/* A pending process's handler about to run (fast_replay()). */
	p = f ? fast_proc_find(f, t->tgid ? t->tgid : t->tid) : NULL;
	if (p && p->pending && sig > 0 && sig <= 64 &&
	    (task_caught(t->tid) >> (sig - 1) & 1))
		p->handlers++;
	if (!f || ptrace(PTRACE_GETREGS, t->tid, 0L, &r) < 0 ||
	    !in_pool(f, r.rip))
		return false;
	p = fast_proc_find(f, t->tgid ? t->tgid : t->tid);
	tr = p && p->code ? fast_tramp_at(p->code, r.rip) : NULL;
	if (!tr)
		return step_out(l, t->tid) == 0;
	switch (rw_tramp_leave(&tr->spec, r.rip, &r, __rdtsc(), peek_task,
			       &pc, &uncount, &elapsed)) {
	case RW_AT_BEFORE:
		ptrace(PTRACE_SETREGS, t->tid, 0L, &r);
		break;
	case RW_AT_SYSCALL:
		at = r;
		/*
		 * The xor shape restarts from its stub, which no unwind
		 * information describes: a cancellation's unwinding would
		 * stop there, and skip the cleanups and C++ destructors
		 * above the call.  Its handler restarts the call if it
		 * returns (SA_RESTART), so the task goes back to the site
		 * instead, the call to be made again from there, and no
		 * restart left for the kernel to make.
		 */
		if (sig == GLIBC_SIGCANCEL && tr->spec.post_len) {
			at.rip = tr->spec.site;
			at.rax = 0;
		}
		if (ptrace(PTRACE_SETREGS, t->tid, 0L, &at) == 0)
			emit_interrupted(l, t, tr->spec.nr, &r, elapsed);
		break;
	case RW_AT_AFTER:
		return step_out(l, t->tid) == 0;
	}
	return true;
}
