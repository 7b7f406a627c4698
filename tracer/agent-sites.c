// SPDX-License-Identifier: MIT
/*
 * -k under the agent engine: the agent leaves, for each call it counts
 * (1 in --stack-sample per syscall), the registers the call was made
 * with and a copy of the stack above them in a shared slot
 * (agent/sites.c, agent-abi.h); here the loop takes the slots as it
 * goes, unwinds each with the ptrace engine's unwinder (unwind.c, the
 * copy read before the live process) and gives the call to the sink as
 * a one-call aggregate at its stack: calls, time, errors and bytes at
 * that call site, never in the rows again (the agent's counters gave
 * those).  Calls without one are counted at the end.
 *
 * The loop drains the slots whenever it wakes with some ready: the
 * agent wakes it when half are, when none is free (the agent then waits
 * for one), before an execve (the task asks to be traced) and before
 * its process exits (it waits until its slots are taken), so the maps
 * the unwinder reads are the ones the calls were made under.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <linux/futex.h>
#include <unistd.h>
#include "tracer/agent-int.h"
#include "tracer/unwind.h"

int agent_sites_start(struct agent_run *ar, const struct tracer_opts *opts)
{
	if (!opts->stacks)
		return 0;
	ar->site_calls = calloc(AGENT_NR_MAX, sizeof(*ar->site_calls));
	if (!ar->site_calls)
		return -ENOMEM;
	ar->shm->sites.sample = opts->stack_sample > 1 ? opts->stack_sample :
			       1;
	return 0;
}

static void regs_of(const struct agent_site *s, struct user_regs_struct *r)
{
	const uint64_t *g = s->gregs;

	memset(r, 0, sizeof(*r));
	r->r8 = g[REG_R8], r->r9 = g[REG_R9], r->r10 = g[REG_R10];
	r->r11 = g[REG_R11], r->r12 = g[REG_R12], r->r13 = g[REG_R13];
	r->r14 = g[REG_R14], r->r15 = g[REG_R15];
	r->rdi = g[REG_RDI], r->rsi = g[REG_RSI], r->rbp = g[REG_RBP];
	r->rbx = g[REG_RBX], r->rdx = g[REG_RDX], r->rax = g[REG_RAX];
	r->rcx = g[REG_RCX], r->rsp = g[REG_RSP], r->rip = g[REG_RIP];
	r->orig_rax = (unsigned long long)s->nr;
}

/*
 * The call as a one-call share of its syscall at its site: what the
 * agent adds to a file's cell (agent/files.c add_result()), with the
 * correction the agent subtracts.
 */
static void share_of(const struct agent_shm *shm, const struct agent_site *s,
		     struct tracer_aggregate *a)
{
	static const int argreg[6] = { REG_RDI, REG_RSI, REG_RDX, REG_R10,
				       REG_R8, REG_R9 };
	int size = shm->size_arg[s->nr];
	uint64_t asked, corr;

	a->calls = (s->flags & AGENT_SITE_CALL) != 0;
	if (!(s->flags & AGENT_SITE_TIMED))
		return;
	a->timed = 1;
	a->raw_time_ns = s->ns;
	corr = agent_correction(shm, s->nr);
	a->time_ns = s->ns > corr ? s->ns - corr : 0;
	if (s->ret < 0 && s->ret >= -4095) {
		a->errors = 1;
		a->einval = s->ret == -EINVAL;
	} else if (size >= 0) {
		a->bytes_done = (uint64_t)s->ret;
	}
	if (size < 0 || size >= 6)
		return;
	asked = s->gregs[argreg[size]];
	a->size_max = asked;
	a->size_max_calls = 1;
	if (s->ret < 0)
		return;
	a->bytes_req = asked;
	a->short_calls = (uint64_t)s->ret < asked;
}

/*
 * The highest stack address tid's unwinds read (from sp), for its next
 * copies: raised, or replaced when the one there is of another stack.
 */
static void hint(struct agent_shm *shm, pid_t tid, uint64_t sp,
		 uint64_t top)
{
	struct agent_site_hint *h =
		&shm->sites.hint[(uint64_t)tid % AGENT_SITE_HINTS];
	uint64_t was = __atomic_load_n(&h->top, __ATOMIC_RELAXED);

	if (__atomic_load_n(&h->tid, __ATOMIC_RELAXED) == (uint64_t)tid &&
	    was >= top && was - sp < AGENT_SITE_STACK_MAX)
		return;
	__atomic_store_n(&h->tid, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&h->top, top, __ATOMIC_RELAXED);
	__atomic_store_n(&h->tid, (uint64_t)tid, __ATOMIC_RELEASE);
}

/* One slot: unwound, given to the sink. */
static void take(struct loop *l, const struct agent_site *s)
{
	struct agent_run *ar = l->agent;
	struct user_regs_struct regs;
	struct tracer_aggregate a;
	size_t need;
	uint32_t id;

	if (s->nr < 0 || s->nr >= AGENT_NR_MAX)
		return;
	regs_of(s, &regs);
	id = unwinder_stack_copy(l->unwind, (pid_t)s->tgid, &regs, s->stack,
				 s->len < AGENT_SITE_STACK_MAX ? s->len :
				 AGENT_SITE_STACK_MAX, &need);
	/* Nothing read (a leaf in JIT code): the thread has a hint all
	   the same, or each of its calls would wait for one. */
	hint(ar->shm, (pid_t)s->tid, regs.rsp, regs.rsp +
	     (need ? need : AGENT_SITE_STACK - 4096));
	/* Code mapped by the call: the maps read next are not these. */
	if ((l->plan.act[0][s->nr] & ACT_MAPS) && (regs.rdx & PROT_EXEC))
		unwinder_maps_changed(l->unwind, (pid_t)s->tgid);
	if (id == TRACER_ID_NONE)
		return;
	ar->site_calls[s->nr] += (s->flags & AGENT_SITE_CALL) != 0;
	memset(&a, 0, sizeof(a));
	a.arch = syscall_pers[0].arch;
	a.nr = s->nr;
	a.stack_id = id;
	share_of(ar->shm, s, &a);
	if (ar->sink->aggregate)
		ar->sink->aggregate(ar->sink->ctx, &a);
}

void agent_sites_exec(struct agent_run *ar, pid_t tid)
{
	struct agent_site_hint *h =
		&ar->shm->sites.hint[(uint64_t)tid % AGENT_SITE_HINTS];

	if (__atomic_load_n(&h->tid, __ATOMIC_RELAXED) == (uint64_t)tid)
		__atomic_store_n(&h->tid, 0, __ATOMIC_RELEASE);
}

void agent_sites_drain(struct loop *l)
{
	struct agent_sites *ss = &l->agent->shm->sites;
	struct agent_site *s;
	uint32_t n = 0;
	unsigned i;

	if (!ss->sample || !l->unwind || !l->agent->site_calls ||
	    !__atomic_load_n(&ss->ready, __ATOMIC_ACQUIRE))
		return;
	for (i = 0; i < AGENT_SITE_SLOTS; i++) {
		s = &ss->slot[i];
		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) !=
		    AGENT_SITE_READY)
			continue;
		take(l, s);
		__atomic_store_n(&s->state, AGENT_SITE_FREE, __ATOMIC_RELEASE);
		n++;
	}
	if (!n)
		return;
	__atomic_fetch_sub(&ss->ready, n, __ATOMIC_RELEASE);
	__atomic_fetch_add(&ss->freed, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &ss->freed, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/*
 * After the last drain: the calls the agents counted that have no
 * stack, whatever kept it (a process killed before its stack was
 * unwound, or as it counted a call or filled its slot; no slot for a
 * second; a stack no unwinder could name): the counted calls the
 * stacks should have been (1 in sample of each syscall) less those
 * given.
 */
void agent_sites_end(struct agent_run *ar)
{
	uint32_t n = ar->shm->sites.sample;
	uint64_t want;
	int nr;

	if (!n || !ar->site_calls)
		return;
	for (nr = 0; nr < AGENT_NR_MAX; nr++) {
		want = (ar->shm->rows[nr].calls + n - 1) / n;
		if (want > ar->site_calls[nr])
			ar->use->stacks_missed += want - ar->site_calls[nr];
	}
}
