// SPDX-License-Identifier: MIT
/*
 * What dispatch costs the wall, measured inside the run.  Each call the
 * agent handles adds the kernel's signal delivery, the handler's own work
 * around the call and the sigreturn: ~3-5 us, more than a small call
 * takes, and not the same in a calibration loop as in the program (a
 * calibration measured 4.9 us where the run paid 3.5).  The handler sees
 * its own part; the kernel's two transitions happen where no clock of the
 * agent runs.
 *
 * So now and then a timed call is a probe: the handler does not issue it
 * but returns to the program's syscall instruction (as for a call the
 * program must run itself), which dispatches the same call again at once.
 * The clock read as the handler returns and again as the second SIGSYS
 * arrives spans one sigreturn and one delivery on the program's own path,
 * with none of the program's code in between; the second time the call is
 * issued and accounted as any other, and the handler's time around it is
 * the rest of one sample.  Nothing is saved or changed: the program's
 * registers still hold the call.  A signal of the program's caught in
 * between runs its handler first, as it would have before the call (its
 * time is then in that sample: rare, and a long one is cut short by the
 * histogram, agent-abi.h).
 */
#include "agent/agent-int.h"

/*
 * How often: every PROBE_FIRST timed calls of the process's first
 * PROBE_EARLY (short runs get some samples), then every PROBE_EVERY: under
 * 1% more dispatch.
 */
#define PROBE_FIRST 8
#define PROBE_EARLY 512
#define PROBE_EVERY 128
/*
 * A probe on its way is known by its thread's stack pointer and the call's
 * address, which it comes back with, kept in a small table: no
 * thread-local storage (a few bytes more of it than the agent has made
 * the dynamic loader of tar allocate one more page, a call the program
 * would not have made).  A trip longer than PROBE_STALE is a thread that
 * left and another at the same place, or a preemption: no sample.
 */
#define PROBE_SLOTS 64
#define PROBE_STALE 10000000ull

static struct {
	greg_t rsp, rip;	/* rsp 0: free */
	uint64_t ns;		/* the clock as it was sent back */
} slot[PROBE_SLOTS];
static uint32_t out;		/* slots in use */
static uint64_t timed;		/* timed calls seen, every thread */

static unsigned slot_of(greg_t rsp)
{
	return (unsigned)(((uint64_t)rsp >> 4) * 0x9e3779b97f4a7c15ull >> 58);
}

bool probe_due(void)
{
	uint64_t n = __atomic_add_fetch(&timed, 1, __ATOMIC_RELAXED);

	return !(n % (n <= PROBE_EARLY ? PROBE_FIRST : PROBE_EVERY));
}

bool probe_launch(greg_t *g)
{
	unsigned i = slot_of(g[REG_RSP]);
	greg_t none = 0;

	if (!__atomic_compare_exchange_n(&slot[i].rsp, &none, g[REG_RSP],
					 false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;	/* another thread's probe: none now */
	slot[i].rip = g[REG_RIP];
	__atomic_fetch_add(&out, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&shm->probe.launched, 1, __ATOMIC_RELAXED);
	g[REG_RIP] -= 2;	/* the syscall instruction again */
	slot[i].ns = now_ns();	/* last: the rest is the round trip's */
	return true;
}

uint64_t probe_entry(const greg_t *g, uint64_t *trip)
{
	unsigned i;
	uint64_t now;

	if (!__atomic_load_n(&out, __ATOMIC_RELAXED))
		return 0;
	i = slot_of(g[REG_RSP]);
	if (__atomic_load_n(&slot[i].rsp, __ATOMIC_ACQUIRE) != g[REG_RSP] ||
	    slot[i].rip != g[REG_RIP])
		return 0;
	now = now_ns();
	*trip = now - slot[i].ns;
	if (*trip > PROBE_STALE)
		*trip = 0;
	__atomic_store_n(&slot[i].rsp, 0, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&out, 1, __ATOMIC_RELAXED);
	return now;
}

void probe_done(uint64_t trip, uint64_t ta, uint64_t t0, uint64_t t1)
{
	uint64_t ns, b;

	if (!trip)
		return;
	ns = trip + (t0 - ta) + (now_ns() - t1);
	b = ns / AGENT_PROBE_NS;
	if (b >= AGENT_PROBE_BUCKETS)
		b = AGENT_PROBE_BUCKETS - 1;
	__atomic_fetch_add(&shm->probe.hist[b], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&shm->probe.samples, 1, __ATOMIC_RELAXED);
}
