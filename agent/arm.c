// SPDX-License-Identifier: MIT
/*
 * Arming the agent (agent.c is the handler): in a program iotrace has
 * mapped it into, iotrace_agent_boot() says HELLO (its code region) to
 * iotrace, checks that SIGSYS is free, maps the shared counters, installs
 * the handler, turns Syscall User Dispatch on and says ARMED, or FALLBACK
 * with why.  In a function iotrace runs in a fork of itself (a built-in
 * workload), iotrace_agent_start() does the same with the counters' fd.
 */
#include "agent/agent-int.h"

/* SIGSYS as the program starts: ignored or blocked, it is not ours. */
static int sigsys_taken(void)
{
	uint64_t mask = 0;

	if (agent_sys6(SYS_rt_sigaction, SIGSYS, 0, (long)&sigsys_orig, 8, 0,
		       0) < 0 ||
	    sigsys_orig.handler == SIG_IGN)
		return AGENT_WHY_SIGSYS_IGNORED;
	if (agent_sys6(SYS_rt_sigprocmask, SIG_BLOCK, 0, (long)&mask, 8, 0,
		       0) < 0 ||
	    (mask & SIGSYS_BIT))
		return AGENT_WHY_SIGSYS_BLOCKED;
	return AGENT_WHY_NONE;
}

/*
 * Maps the shared counters (fd closed after), all of them with -k (the
 * size they say); 0 or AGENT_WHY_NO_SHM.
 */
static int map_counters(const char *path, long fd)
{
	long size = (long)AGENT_SHM_BASE, p;

	if (fd < 0)
		fd = agent_sys6(SYS_openat, AT_FDCWD, (long)path,
				O_RDWR | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return AGENT_WHY_NO_SHM;
	p = agent_sys6(SYS_mmap, 0, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, 0);
	sys3(SYS_close, fd, 0, 0);
	if ((p < 0 && p >= -4095) || !p)
		return AGENT_WHY_NO_SHM;
	shm = (struct agent_shm *)p;
	if (shm->magic == AGENT_MAGIC && shm->version == AGENT_VERSION &&
	    shm->size == sizeof(*shm)) {
		p = agent_sys6(SYS_mremap, p, size, sizeof(*shm),
			       MREMAP_MAYMOVE, 0, 0);
		if ((p < 0 && p >= -4095) || !p)
			p = (long)shm;	/* unmapped below */
		else
			size = sizeof(*shm);
		shm = (struct agent_shm *)p;
	}
	if (shm->magic != AGENT_MAGIC || shm->version != AGENT_VERSION ||
	    shm->size != size) {
		agent_sys6(SYS_munmap, p, size, 0, 0, 0, 0);
		shm = NULL;
		return AGENT_WHY_NO_SHM;
	}
	return AGENT_WHY_NONE;
}

/* The handler in, dispatch on: 0, or why not (the handler out again). */
static int dispatch_on(void)
{
	struct ksigaction sa = { (void *)on_sigsys, SA_SIGINFO | SA_NODEFER |
				 SA_RESTORER_FLAG, (void *)agent_sigreturn, 0 };

	if (agent_sys6(SYS_rt_sigaction, SIGSYS, (long)&sa, 0, 8, 0, 0) < 0)
		return AGENT_WHY_NO_SUD;
	if (agent_sys6(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, SUD_ON,
		       REGION_START, REGION_LEN, 0, 0) == 0)
		return AGENT_WHY_NONE;
	agent_sys6(SYS_rt_sigaction, SIGSYS, (long)&sigsys_orig, 0, 8, 0, 0);
	return AGENT_WHY_NO_SUD;
}

/*
 * Arming, in the order iotrace follows: HELLO first (every call after it
 * from the region is the agent's), then the checks, the counters and
 * dispatch, then ARMED or FALLBACK.  The process is one thread here.
 */
static int arm(const char *path, long fd)
{
	int why;

	mark(AGENT_OP_HELLO, REGION_START, REGION_LEN);
	why = sigsys_taken();
	if (!why)
		why = map_counters(path, fd);
	else if (fd >= 0)
		sys3(SYS_close, fd, 0, 0);
	if (!why) {
		agent_files_init();
		why = dispatch_on();
	}
	if (why) {
		mark(AGENT_OP_FALLBACK, why, 0);
		return -1;
	}
	mark(AGENT_OP_ARMED, 0, 0);
	return 0;
}

/*
 * The entry iotrace runs in a program it has just mapped the agent into
 * (tracer/agent-inject.c), on the program's stack before its first
 * instruction: the counters' path and the clock are in iotrace_agent_cfg.
 * The last marker (ARMED or FALLBACK) never returns here: iotrace puts
 * the program's registers back at it.
 */
AGENT_EXPORT __attribute__((noreturn)) void iotrace_agent_boot(void)
{
	arm(iotrace_agent_cfg.shm_path, -1);
	for (;;)
		__asm__ volatile("hlt");
}

/*
 * For a function run in a child iotrace forked (a built-in workload):
 * the agent was dlopen()ed into iotrace before the fork (iotrace filled
 * iotrace_agent_cfg's clock), and the counters are fd, closed here.  0,
 * or -1 when the child falls back to ptrace.
 */
AGENT_EXPORT int iotrace_agent_start(int fd)
{
	return arm(NULL, fd);
}
