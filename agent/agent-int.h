/* SPDX-License-Identifier: MIT */
/*
 * Shared by the agent's files only (agent.c: the SIGSYS handler, arm.c:
 * arming, files.c: per-file counts, probe.c: the dispatch cost, sites.c:
 * -k's stacks, libc.c: string functions; no libc is linked): its
 * syscall stub and code region, the state they use.  What iotrace
 * shares with the agent is agent-abi.h.
 */
#ifndef IOTRACE_AGENT_INT_H
#define IOTRACE_AGENT_INT_H

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include "agent/agent-abi.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif
#define SUD_ON 1
#define SYS_USER_DISPATCH_CODE 2	/* si_code of a dispatched call */
#define X32_BIT 0x40000000		/* an x32 call's number has it */
#define SIGSYS_BIT (1ull << (SIGSYS - 1))

#define SA_RESTORER_FLAG 0x04000000
/* What iotrace finds by name in the agent (agent-abi.h). */
#define AGENT_EXPORT __attribute__((visibility("default")))

/*
 * The code region: every syscall the agent makes is the one instruction
 * in agent_sys6 or agent_sigreturn, so dispatch lets them through and
 * iotrace knows them for the agent's (HELLO names the range).
 */
long agent_sys6(long nr, long a, long b, long c, long d, long e, long f);
extern const char agent_region_start[], agent_region_end[];
extern const char agent_sigreturn[];
#define sys0(nr) agent_sys6((nr), 0, 0, 0, 0, 0, 0)
#define sys3(nr, a, b, c) \
	agent_sys6((nr), (long)(a), (long)(b), (long)(c), 0, 0, 0)
/* Where the region starts, and its length (as addresses: two symbols). */
#define REGION_START ((long)(uintptr_t)agent_region_start)
#define REGION_LEN \
	((long)((uintptr_t)agent_region_end - (uintptr_t)agent_region_start))
#define mark(op, a, b) \
	agent_sys6(SYS_getpid, (long)AGENT_MAGIC, (op), (long)(a), \
		   (long)(b), REGION_START, REGION_LEN)

/* The kernel's struct sigaction for rt_sigaction (x86_64). */
struct ksigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

extern struct agent_shm *shm;		/* the counters, mapped shared */
extern struct ksigaction sigsys_orig;	/* what the program would see */
extern struct agent_cfg iotrace_agent_cfg;	/* from iotrace */

/*
 * iotrace's pid, to signal; 0: none to signal (the run is over, or
 * iotrace keeps this process traced, where that pid may be another
 * process's: another pid namespace).
 */
static inline long tracer_to_signal(void)
{
	if (__atomic_load_n(&iotrace_agent_cfg.stay_traced, __ATOMIC_ACQUIRE))
		return 0;
	return __atomic_load_n(&shm->tracer_pid, __ATOMIC_ACQUIRE);
}

/* CLOCK_MONOTONIC through the vDSO, in ns (agent.c). */
uint64_t now_ns(void);

/*
 * The in-run probe of what dispatch costs (probe.c).  probe_due(): this
 * timed call should be a probe; probe_launch(): send it back to its
 * syscall instruction unissued (false: not now, issue it); probe_entry(),
 * first in the handler: the clock when this is a probed call coming back
 * (0 otherwise), with its round trip in trip (0: no sample);
 * probe_done(): its call was issued between t0 and t1.
 */
bool probe_due(void);
bool probe_launch(greg_t *g);
uint64_t probe_entry(const greg_t *g, uint64_t *trip);
void probe_done(uint64_t trip, uint64_t ta, uint64_t t0, uint64_t t1);

/* The SIGSYS handler (agent.c). */
void on_sigsys(int sig, siginfo_t *si, void *ctx);
/*
 * Per-file counts (files.c): the process's own state, at arming; after
 * each call the handler issued (its return in g's RAX, ns as measured
 * when act times it), what it did to fds and to which file it went.
 */
void agent_files_init(void);
void agent_files_after(int nr, int act, uint64_t ns, const greg_t *g);

/*
 * -k (sites.c): agent_site_wanted(): this call of nr is one whose stack
 * iotrace unwinds (-k on, 1 in --stack-sample); agent_site(): leave its
 * registers (g, as dispatched) and stack for iotrace, with ret and ns
 * as measured when flags has AGENT_SITE_TIMED; agent_sites_flush():
 * before the process (or the thread) exits, wait until iotrace has
 * taken its slots.
 */
bool agent_site_wanted(int nr);
void agent_site(int nr, const greg_t *g, long ret, uint64_t ns,
		unsigned flags);
void agent_sites_flush(bool process);

#endif
