// SPDX-License-Identifier: MIT
/*
 * -k under the agent: each call the handler counts (1 in sites.sample
 * per syscall) leaves the registers it was made with and a copy of the
 * stack above them in a slot shared with iotrace (agent-abi.h), which
 * unwinds them as the ptrace engine unwinds a stopped task.  No unwinder
 * here: the agent has no loader, no libunwind and no allocation.
 *
 * The copy is made with process_vm_readv on the process itself, a page
 * at a time, so it ends where the stack's mapping does instead of
 * faulting; where a policy refuses that call, the page holding the stack
 * pointer (always mapped) is copied alone, and the stacks are cut where
 * it ends.  A thread's first call waits until iotrace has unwound it
 * (which hints how much to copy next).  With no slot free the handler
 * wakes iotrace and waits: counts are exact, and a stack is not dropped
 * unless iotrace is gone or has not freed a slot in a second (iotrace
 * then counts the call as one without a stack).
 */
#include "agent/agent-int.h"
#include <sys/uio.h>

#define PAGE_SIZE_ 4096ul
#define WAIT_NS 2000000		/* between two wake-ups of iotrace */
#define WAIT_TRIES 500		/* a second of them */

/* The signal that wakes iotrace (its loop drains the slots on it). */
static void wake_tracer(void)
{
	long pid = tracer_to_signal();

	if (pid)
		sys3(SYS_tgkill, pid, pid, shm->attach_sig);
}

/* Waits for iotrace to free a slot; false: it is gone or too slow. */
static bool wait_freed(uint32_t seen, unsigned *tries)
{
	struct timespec ts = { 0, WAIT_NS };

	if (!__atomic_load_n(&shm->tracer_pid, __ATOMIC_ACQUIRE) ||
	    ++*tries > WAIT_TRIES)
		return false;
	wake_tracer();
	agent_sys6(SYS_futex, (long)&shm->sites.freed, FUTEX_WAIT, seen,
		   (long)&ts, 0, 0);
	return true;
}

static struct agent_site *claim(void)
{
	struct agent_sites *s = &shm->sites;
	uint32_t start, i, cur, seen;
	unsigned tries = 0;
	struct agent_site *slot;

	do {
		seen = __atomic_load_n(&s->freed, __ATOMIC_ACQUIRE);
		start = __atomic_fetch_add(&s->next, 1, __ATOMIC_RELAXED);
		for (i = 0; i < AGENT_SITE_SLOTS; i++) {
			slot = &s->slot[(start + i) % AGENT_SITE_SLOTS];
			cur = AGENT_SITE_FREE;
			if (__atomic_load_n(&slot->state, __ATOMIC_RELAXED) ==
			    AGENT_SITE_FREE &&
			    __atomic_compare_exchange_n(&slot->state, &cur,
					AGENT_SITE_BUSY, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				return slot;
		}
	} while (wait_freed(seen, &tries));
	return NULL;	/* iotrace counts the call without a stack */
}

/*
 * Whose hint tid's slot holds: tid's own, none (its first call, or its
 * first since an execve), or another thread's (two threads, one slot).
 */
enum { HINT_OWN, HINT_NONE, HINT_OTHER };

static int hint_of(uint64_t tid)
{
	uint64_t who = __atomic_load_n(&shm->sites.hint[tid %
					AGENT_SITE_HINTS].tid, __ATOMIC_ACQUIRE);

	return who == tid ? HINT_OWN : who ? HINT_OTHER : HINT_NONE;
}

/* How much stack to copy from sp: what iotrace's hint says. */
static uint64_t copy_len(uint64_t tid, uint64_t sp)
{
	const struct agent_site_hint *h =
		&shm->sites.hint[tid % AGENT_SITE_HINTS];
	int whose = hint_of(tid);
	uint64_t top;

	if (whose == HINT_NONE)		/* once: see agent_site() */
		return AGENT_SITE_STACK_MAX;
	if (whose == HINT_OTHER)
		return AGENT_SITE_STACK;
	top = __atomic_load_n(&h->top, __ATOMIC_RELAXED) + 4096;
	if (top <= sp || top - sp > AGENT_SITE_STACK_MAX)
		return AGENT_SITE_STACK;
	return top - sp;
}

/* The stack from sp up, as far as it is mapped (len bytes at most). */
static uint32_t copy_stack(unsigned char *dst, uint64_t sp, uint64_t len,
			   long pid)
{
	struct iovec local = { dst, len };
	struct iovec remote[AGENT_SITE_STACK_MAX / PAGE_SIZE_ + 1];
	uint64_t a = sp, end = sp + len, next;
	unsigned n = 0;
	long got;

	while (a < end) {
		next = (a | (PAGE_SIZE_ - 1)) + 1;
		if (next > end)
			next = end;
		remote[n++] = (struct iovec){ (void *)(uintptr_t)a, next - a };
		a = next;
	}
	got = agent_sys6(SYS_process_vm_readv, pid, (long)&local, 1,
			 (long)remote, n, 0);
	if (got >= 0)
		return (uint32_t)got;
	memcpy(dst, (const void *)(uintptr_t)sp, remote[0].iov_len);
	return (uint32_t)remote[0].iov_len;
}

bool agent_site_wanted(int nr)
{
	uint32_t n = __atomic_load_n(&shm->sites.sample, __ATOMIC_RELAXED);

	if (n <= 1)
		return n == 1;
	return __atomic_fetch_add(&shm->sites.seen[nr], 1,
				  __ATOMIC_RELAXED) % n == 0;
}

void agent_site(int nr, const greg_t *g, long ret, uint64_t ns,
		unsigned flags)
{
	struct agent_site *slot;
	long pid, tid;

	slot = claim();
	if (!slot)
		return;
	pid = sys0(SYS_getpid);
	tid = sys0(SYS_gettid);
	slot->flags = flags;
	slot->tgid = (uint32_t)pid;
	slot->tid = (uint32_t)tid;
	slot->nr = nr;
	slot->ret = ret;
	slot->ns = ns;
	memcpy(slot->gregs, g, sizeof(slot->gregs));
	slot->len = copy_stack(slot->stack, (uint64_t)g[REG_RSP],
			       copy_len((uint64_t)tid, (uint64_t)g[REG_RSP]),
			       pid);
	__atomic_store_n(&slot->state, AGENT_SITE_READY, __ATOMIC_RELEASE);
	if (__atomic_add_fetch(&shm->sites.ready, 1, __ATOMIC_RELAXED) ==
	    AGENT_SITE_SLOTS / 2)
		wake_tracer();
	/* A thread's first: unwound now, so its next copies are hinted. */
	if (hint_of((uint64_t)tid) == HINT_NONE)
		agent_sites_flush(false);
}

/* Whether a slot of this process (or thread) waits for iotrace. */
static bool pending(uint32_t tgid, uint32_t tid)
{
	const struct agent_site *slot;
	unsigned i;

	for (i = 0; i < AGENT_SITE_SLOTS; i++) {
		slot = &shm->sites.slot[i];
		if (__atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) ==
		    AGENT_SITE_READY && slot->tgid == tgid &&
		    (!tid || slot->tid == tid))
			return true;
	}
	return false;
}

void agent_sites_flush(bool process)
{
	uint32_t tgid, tid, seen;
	unsigned tries = 0;

	if (!shm->sites.sample)
		return;
	tgid = (uint32_t)sys0(SYS_getpid);
	tid = process ? 0 : (uint32_t)sys0(SYS_gettid);
	do {
		seen = __atomic_load_n(&shm->sites.freed, __ATOMIC_ACQUIRE);
		if (!pending(tgid, tid))
			return;
	} while (wait_freed(seen, &tries));
}
