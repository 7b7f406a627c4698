// SPDX-License-Identifier: MIT
/*
 * The in-process agent (build/iotrace-agent.so): mapped into a traced
 * program by the agent engine after each execve, before the program's
 * first instruction (tracer/agent-inject.c), it turns on Syscall User
 * Dispatch for the program and receives every syscall as SIGSYS, the
 * dynamic loader's too.  The handler issues the call itself from the
 * agent's own code region (the one range dispatch lets through), times
 * it with the vDSO's CLOCK_MONOTONIC and adds it to counters shared with
 * iotrace (agent-abi.h): no stop and no extra syscall per call.  An armed
 * task runs detached from ptrace; before a fork, clone, execve or
 * fallback it asks iotrace to trace it again (attach_me()), and ptrace
 * does the rest (following children, arming them, mapping the agent into
 * the next program); the agent tells it what it does with marker calls.
 *
 * What the program must not notice: nothing is added to its environment
 * and the dynamic loader knows nothing of the agent (no library, no TLS,
 * no allocation of the loader's: its calls are as untraced); the
 * shared counters leave no descriptor open; SIGSYS stays its own: a
 * program that ignores or blocks SIGSYS at start, installs a SIGSYS
 * handler or a seccomp filter, or uses dispatch itself, is handed back to
 * ptrace (a fallback marker) before that changes anything; a SIGSYS it
 * blocks later is blocked virtually (the agent's own never is), and one
 * in a handler's sa_mask is left out of the mask the kernel gets.
 *
 * Calls the handler cannot issue itself (fork, vfork, clone, clone3: the
 * child would return into the handler's frame, on another stack or none)
 * are run by the program natively under ptrace, which arms the task
 * again at their exit and arms every new task; so are the CPU mask calls
 * (ptrace keeps its same-CPU placement invisible).  Only the native x86_64
 * personality; no libc at all (libc.c has the string functions).
 */
#include "agent/agent-int.h"

/* The code region (declared in agent-int.h). */
__asm__(".pushsection .text.iotrace_agent,\"ax\",@progbits\n"
	".globl agent_region_start\n.hidden agent_region_start\n"
	".globl iotrace_agent_region\n"	/* iotrace finds it by name */
	"agent_region_start:\n"
	"iotrace_agent_region:\n"
	".globl agent_sys6\n.hidden agent_sys6\n"
	".type agent_sys6,@function\n"
	"agent_sys6:\n"
	"	mov %rdi, %rax\n"
	"	mov %rsi, %rdi\n"
	"	mov %rdx, %rsi\n"
	"	mov %rcx, %rdx\n"
	"	mov %r8, %r10\n"
	"	mov %r9, %r8\n"
	"	mov 8(%rsp), %r9\n"
	"	syscall\n"
	"	ret\n"
	/* Our SIGSYS handler's restorer, and where a program's own
	   rt_sigreturn is issued from (its frame where it was). */
	".globl agent_sigreturn\n.hidden agent_sigreturn\n"
	"agent_sigreturn:\n"
	"	mov $15, %eax\n"
	"	syscall\n"
	"	hlt\n"
	".globl agent_region_end\n.hidden agent_region_end\n"
	"agent_region_end:\n"
	".popsection\n");


struct agent_shm *shm;
struct ksigaction sigsys_orig;
AGENT_EXPORT struct agent_cfg iotrace_agent_cfg;
/* The threads whose program blocked SIGSYS (their tids; 0: free): per
   thread, with no TLS (no loader gives the agent any); iotrace copies a
   parent's entry to its new task. */
AGENT_EXPORT int32_t iotrace_agent_vblocked[AGENT_VBLOCKED_SLOTS];
static uint8_t mask_has_sigsys[65];	/* per signal: its handler's
					   sa_mask had SIGSYS */
static void mark_traced(long op, long a, long b);
static bool attach_me(void);

/*
 * What now_ns() puts in its timespec before the clock call: when the
 * vDSO cannot read the clock it makes the syscall, which is dispatched
 * again; the handler knows it for the agent's own by this content (an
 * invalid tv_nsec) in a buffer on its own stack (clock_nested()).
 */
#define CLOCK_MAGIC_SEC 0x696f7472
#define CLOCK_MAGIC_NSEC 0x6163656b

uint64_t now_ns(void)
{
	int (*fn)(clockid_t, struct timespec *) =
		(int (*)(clockid_t, struct timespec *))(uintptr_t)
		iotrace_agent_cfg.clock_fn;
	struct timespec ts = { CLOCK_MAGIC_SEC, CLOCK_MAGIC_NSEC };

	if (fn)
		fn(CLOCK_MONOTONIC, &ts);
	else
		sys3(SYS_clock_gettime, CLOCK_MONOTONIC, &ts, 0);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether a dispatched clock_gettime is now_ns()'s own (see above): its
 * buffer above this handler's frame on the same stack (so reading it is
 * safe), still holding the marks.  A signal handler of the program's
 * interrupting now_ns() makes its own calls with its own buffers.
 */
static bool clock_nested(const greg_t *g)
{
	const struct timespec *ts = (const struct timespec *)g[REG_RSI];
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	return g[REG_RAX] == SYS_clock_gettime &&
	       g[REG_RDI] == CLOCK_MONOTONIC &&
	       (uintptr_t)ts - here < 65536 &&
	       ts->tv_sec == CLOCK_MAGIC_SEC &&
	       ts->tv_nsec == CLOCK_MAGIC_NSEC;
}

static bool vblocked(int32_t tid)
{
	int i;

	for (i = 0; i < AGENT_VBLOCKED_SLOTS; i++)
		if (__atomic_load_n(&iotrace_agent_vblocked[i],
				    __ATOMIC_RELAXED) == tid)
			return true;
	return false;
}

/* tid's SIGSYS blocked (on) or not; past the slots, not kept. */
static void vblock_set(int32_t tid, bool on)
{
	int32_t *slot = iotrace_agent_vblocked, cur;
	int i;

	for (i = 0; i < AGENT_VBLOCKED_SLOTS; i++)
		if (__atomic_load_n(&slot[i], __ATOMIC_RELAXED) == tid) {
			if (!on)
				__atomic_store_n(&slot[i], 0,
						 __ATOMIC_RELAXED);
			return;
		}
	for (i = 0; on && i < AGENT_VBLOCKED_SLOTS; i++) {
		cur = 0;
		if (__atomic_compare_exchange_n(&slot[i], &cur, tid, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return;
	}
}

static void add(uint64_t *p, uint64_t n)
{
	__atomic_fetch_add(p, n, __ATOMIC_RELAXED);
}

static void keep_min(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while ((!cur || v < cur) &&
	       !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static void keep_max(uint64_t *p, uint64_t v)
{
	uint64_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);

	while (v > cur &&
	       !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
}

static void add_errno(struct agent_row *r, uint64_t err)
{
	uint64_t cur;
	int i;

	add(&r->errors, 1);
	for (i = 0; i < AGENT_ERRNO_SLOTS; i++) {
		cur = __atomic_load_n(&r->errnos[i][0], __ATOMIC_RELAXED);
		if (!cur && __atomic_compare_exchange_n(&r->errnos[i][0], &cur,
				err, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
			cur = err;
		if (cur == err) {
			add(&r->errnos[i][1], 1);
			return;
		}
	}
	add(&r->errno_other, 1);
}

/* Calibration: the call's time as measured, for iotrace's medians. */
static void calib_record(int nr, uint64_t ns)
{
	uint32_t i = __atomic_fetch_add(&shm->calib.n, 1, __ATOMIC_RELAXED);

	if (i < AGENT_CALIB_MAX)
		shm->calib.rec[i] = (uint32_t)nr << 22 |
				    (uint32_t)(ns < AGENT_CALIB_NS_MAX ? ns :
					       AGENT_CALIB_NS_MAX);
}

/*
 * A timed call's result: errors, time (less what dispatch adds, as
 * calibrated), bytes; calls are counted apart.
 */
static void account(int nr, long ret, uint64_t ns, const greg_t *g)
{
	static const int argreg[6] = { REG_RDI, REG_RSI, REG_RDX, REG_R10,
				       REG_R8, REG_R9 };
	struct agent_row *r = &shm->rows[nr];
	int size = shm->size_arg[nr];
	uint64_t corr = agent_correction(shm, nr);
	unsigned b;

	if (shm->calib.on)
		calib_record(nr, ns);
	add(&r->timed, 1);
	add(&r->raw_time_ns, ns);
	ns = ns > corr ? ns - corr : 0;
	b = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;
	add(&r->time_ns, ns);
	keep_min(&r->min_ns, ns ? ns : 1);
	keep_max(&r->max_ns, ns);
	add(&r->hist[b < AGENT_HIST_BUCKETS ? b : AGENT_HIST_BUCKETS - 1], 1);
	if (ret < 0 && ret >= -4095) {
		add_errno(r, (uint64_t)-ret);
		return;
	}
	if (size < 0)
		return;
	add(&r->bytes_done, (uint64_t)ret);
	if (size < 6) {
		add(&r->bytes_req, (uint64_t)g[argreg[size]]);
		if ((uint64_t)ret < (uint64_t)g[argreg[size]])
			add(&r->short_calls, 1);
	}
}

static long issue(const greg_t *g)
{
	return agent_sys6(g[REG_RAX], g[REG_RDI], g[REG_RSI], g[REG_RDX],
			  g[REG_R10], g[REG_R8], g[REG_R9]);
}

/* A timed call: issued and accounted, t[0] and t[1] read around it. */
static void timed_call(int nr, greg_t *g, uint64_t t[2])
{
	long ret;

	t[0] = now_ns();
	ret = issue(g);
	t[1] = now_ns();
	g[REG_RAX] = ret;
	account(nr, ret, t[1] - t[0], g);
	agent_files_after(nr, AGENT_ACT_TIME, t[1] - t[0], g);
}

/*
 * The ordinary case: issue the call as the program made it, and count
 * it once it returns, as ptrace and strace do: a call still blocked when
 * its process is killed, or its thread is by another thread's execve,
 * is not counted (it was: `timeout -s KILL 0.2 sleep 5` counted sleep's
 * clock_nanosleep).  counted: already (an execve, which on success
 * never returns).
 */
/* -k: a counted call's stack, for iotrace to unwind (sites.c). */
static void site_of(int nr, const greg_t *g, uint64_t ns, unsigned flags)
{
	if (agent_site_wanted(nr))
		agent_site(nr, g, g[REG_RAX], ns, flags);
}

/* What the call took, as measured (0: not timed). */
static uint64_t run_call(int nr, greg_t *g, bool counted)
{
	uint8_t act = shm->act[nr];
	uint64_t t[2] = { 0, 0 };

	if (act == AGENT_ACT_SKIP) {
		g[REG_RAX] = issue(g);
		agent_files_after(nr, act, 0, g);
		return 0;
	}
	if (act == AGENT_ACT_COUNT) {
		g[REG_RAX] = issue(g);
		agent_files_after(nr, act, 0, g);
	} else {
		timed_call(nr, g, t);
	}
	if (!counted) {
		add(&shm->rows[nr].calls, 1);
		site_of(nr, g, t[1] - t[0], AGENT_SITE_CALL |
			(act == AGENT_ACT_TIME ? AGENT_SITE_TIMED : 0));
	}
	return t[1] - t[0];
}

static void generic(int nr, greg_t *g)
{
	run_call(nr, g, false);
}

/*
 * A timed call that measures dispatch (probe.c): sent back once
 * unissued, then issued as generic() would when it comes back at ta.
 */
static void probed(int nr, greg_t *g, uint64_t ta, uint64_t trip)
{
	uint64_t t[2];

	if (!ta && probe_launch(g))
		return;
	timed_call(nr, g, t);
	add(&shm->rows[nr].calls, 1);
	site_of(nr, g, t[1] - t[0], AGENT_SITE_CALL | AGENT_SITE_TIMED);
	if (ta)
		probe_done(trip, ta, t[0], t[1]);
}

/*
 * rt_sigprocmask: SIGSYS is never really blocked (a dispatched call
 * would then kill the program); the program's wish is kept per thread
 * and shown in the old set it reads back.  The handler runs with the
 * program's mask, so the call computes the right one, but returning
 * from the handler would restore the mask it interrupted: the new mask
 * goes into the interrupted context (uc) too.
 */
static void sigprocmask_call(greg_t *g, ucontext_t *uc)
{
	uint64_t *set = (uint64_t *)g[REG_RSI], *old = (uint64_t *)g[REG_RDX];
	uint64_t copy, now_mask;
	int32_t tid = (int32_t)sys0(SYS_gettid);
	int how = (int)g[REG_RDI], was = vblocked(tid), now = was;

	if (set && g[REG_R10] == 8) {
		copy = *set;
		if (copy & SIGSYS_BIT)
			now = how != SIG_UNBLOCK;
		else if (how == SIG_SETMASK)
			now = 0;
		if (how != SIG_UNBLOCK)
			copy &= ~SIGSYS_BIT;
		g[REG_RSI] = (greg_t)&copy;
	}
	generic(SYS_rt_sigprocmask, g);
	g[REG_RSI] = (greg_t)set;
	if (g[REG_RAX] != 0)
		return;
	if (now != was)
		vblock_set(tid, now);
	if (old && was)
		*old |= SIGSYS_BIT;
	if (set && agent_sys6(SYS_rt_sigprocmask, SIG_BLOCK, 0,
			      (long)&now_mask, 8, 0, 0) == 0)
		memcpy(&uc->uc_sigmask, &now_mask, sizeof(now_mask));
}

/*
 * sigaltstack: returning from the handler would restore the alternate
 * stack it interrupted, so a new one goes into that context too.
 */
static void sigaltstack_call(greg_t *g, ucontext_t *uc)
{
	stack_t now;

	generic(SYS_sigaltstack, g);
	if (g[REG_RAX] == 0 && g[REG_RDI] &&
	    agent_sys6(SYS_sigaltstack, 0, (long)&now, 0, 0, 0, 0) == 0)
		uc->uc_stack = now;
}

/*
 * rt_sigaction of SIGSYS: a handler of the program's is its own business
 * (back to ptrace); the default or ignoring is kept virtually, the
 * agent's handler staying in place (and carried to an execve), and the
 * call made as a query.  Returns false when the program must run the
 * call natively (after the fallback marker).
 */
static bool sigsys_action(greg_t *g)
{
	struct ksigaction *act = (struct ksigaction *)g[REG_RSI];
	struct ksigaction *old = (struct ksigaction *)g[REG_RDX];
	struct ksigaction was = sigsys_orig;

	if (act && act->handler != SIG_DFL && act->handler != SIG_IGN) {
		mark_traced(AGENT_OP_FALLBACK, AGENT_WHY_SIGSYS_HANDLER, 1);
		return false;
	}
	g[REG_RSI] = 0;
	generic(SYS_rt_sigaction, g);
	g[REG_RSI] = (greg_t)act;
	if (g[REG_RAX] != 0)
		return true;
	if (act)
		sigsys_orig = *act;
	if (old)
		*old = was;
	return true;
}

/*
 * rt_sigaction: SIGSYS as above; another signal's handler gets SIGSYS
 * left out of its sa_mask (shown again when the program reads the
 * action back): a call in that handler would otherwise kill it.
 */
static bool sigaction_call(greg_t *g)
{
	int sig = (int)g[REG_RDI];
	struct ksigaction *act = (struct ksigaction *)g[REG_RSI];
	struct ksigaction *old = (struct ksigaction *)g[REG_RDX], copy;
	uint8_t had;

	if (sig == SIGSYS && g[REG_R10] == 8)
		return sigsys_action(g);
	if (sig <= 0 || sig > 64 || g[REG_R10] != 8) {
		generic(SYS_rt_sigaction, g);
		return true;
	}
	had = mask_has_sigsys[sig];
	if (act) {
		copy = *act;
		copy.mask &= ~SIGSYS_BIT;
		g[REG_RSI] = (greg_t)&copy;
	}
	generic(SYS_rt_sigaction, g);
	g[REG_RSI] = (greg_t)act;
	if (g[REG_RAX] != 0)
		return true;
	if (act)
		mask_has_sigsys[sig] = (act->mask & SIGSYS_BIT) != 0;
	if (old && had)
		old->mask |= SIGSYS_BIT;
	return true;
}

/*
 * Around an execve: the new program inherits SIGSYS as the program left
 * it (ignored, blocked), not as the agent keeps it; on == false puts the
 * agent's back after a failed execve.
 */
static void sigsys_for_exec(bool on, bool blocked)
{
	struct ksigaction ign = { SIG_IGN, 0, NULL, 0 };
	struct ksigaction sa = { (void *)on_sigsys, SA_SIGINFO |
				 SA_NODEFER | SA_RESTORER_FLAG,
				 (void *)agent_sigreturn, 0 };
	uint64_t bit = SIGSYS_BIT;

	if (sigsys_orig.handler == SIG_IGN)
		agent_sys6(SYS_rt_sigaction, SIGSYS, (long)(on ? &ign : &sa), 0,
			   8, 0, 0);
	if (blocked)
		agent_sys6(SYS_rt_sigprocmask, on ? SIG_BLOCK : SIG_UNBLOCK,
			   (long)&bit, 0, 8, 0, 0);
}

/*
 * A slot for tid's timed execve, or NULL (all taken: the call is counted
 * before, untimed).  A slot tid holds already is a call of its that
 * never ended (its process killed in it): taken again.
 */
static struct agent_exec *exec_slot(uint32_t tid)
{
	struct agent_exec *x;
	uint32_t none;
	int i;

	for (i = 0; i < AGENT_EXEC_SLOTS; i++)
		if (__atomic_load_n(&shm->execs[i].tid, __ATOMIC_ACQUIRE) ==
		    tid)
			return &shm->execs[i];
	for (i = 0; i < AGENT_EXEC_SLOTS; i++) {
		x = &shm->execs[i];
		none = 0;
		if (__atomic_compare_exchange_n(&x->tid, &none, tid, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return x;
	}
	return NULL;
}

/*
 * A timed execve, made while iotrace traces the task: its start goes to
 * slot x, and iotrace counts the call at its exec event
 * (tracer/agent-stops.c); a failure comes back and is counted here.
 */
static uint64_t exec_timed(int nr, greg_t *g, struct agent_exec *x)
{
	static const int argreg[6] = { REG_RDI, REG_RSI, REG_RDX, REG_R10,
				       REG_R8, REG_R9 };
	uint64_t t[2];
	long ret;
	int i;

	x->nr = nr;
	for (i = 0; i < 6; i++)
		x->args[i] = (uint64_t)g[argreg[i]];
	t[0] = now_ns();
	__atomic_store_n(&x->start_ns, t[0], __ATOMIC_RELEASE);
	ret = issue(g);
	t[1] = now_ns();
	__atomic_store_n(&x->tid, 0, __ATOMIC_RELEASE);
	g[REG_RAX] = ret;
	add(&shm->rows[nr].calls, 1);
	account(nr, ret, t[1] - t[0], g);
	agent_files_after(nr, AGENT_ACT_TIME, t[1] - t[0], g);
	return t[1] - t[0];
}

/*
 * execve and execveat.  Timed, once iotrace traces the task again: on
 * success nothing comes back, and iotrace counts and times the call at
 * its exec event; a failure is counted here.  Otherwise (counted only,
 * iotrace did not answer, no slot free) counted before, untimed.  With
 * -k its stack goes first (iotrace unwinds it as it seizes the task,
 * the old program still there); a failure's time and result go to the
 * same site after.  iotrace maps the agent into the new program at the
 * call's exit; not traced again, the new program goes uncounted, which
 * the header says (unless the call fails).
 */
static void exec_call(int nr, greg_t *g)
{
	uint32_t tid = (uint32_t)sys0(SYS_gettid);
	bool blocked = vblocked((int32_t)tid);
	uint8_t act = shm->act[nr];
	bool site = act != AGENT_ACT_SKIP && agent_site_wanted(nr);
	struct agent_exec *x = NULL;
	uint64_t ns;
	bool lost;

	sigsys_for_exec(true, blocked);
	if (site)
		agent_site(nr, g, 0, 0, AGENT_SITE_CALL);
	lost = !attach_me();
	if (!lost && act == AGENT_ACT_TIME)
		x = exec_slot(tid);
	if (act != AGENT_ACT_SKIP && !x)
		add(&shm->rows[nr].calls, 1);
	if (lost)
		__atomic_fetch_add(&shm->untraced, 1, __ATOMIC_RELAXED);
	ns = x ? exec_timed(nr, g, x) : run_call(nr, g, true);
	if (lost)
		__atomic_fetch_sub(&shm->untraced, 1, __ATOMIC_RELAXED);
	sigsys_for_exec(false, blocked);
	if (site && act == AGENT_ACT_TIME)
		agent_site(nr, g, g[REG_RAX], ns, AGENT_SITE_TIMED);
}

/*
 * A request slot of the task's own (agent-abi.h), claimed from req_head
 * on: every slot taken, it waits a millisecond for one to be freed
 * (before, a 65th asker overwrote a slot in use and one of the two was
 * never seized).
 */
static uint32_t claim_slot(void)
{
	struct timespec ms = { 0, 1000000 };
	uint32_t i, n, free_tid;

	for (;;) {
		for (n = 0; n < AGENT_REQ_SLOTS; n++) {
			i = __atomic_fetch_add(&shm->req_head, 1,
					       __ATOMIC_RELAXED) % AGENT_REQ_SLOTS;
			free_tid = 0;
			if (__atomic_compare_exchange_n(&shm->req[i].tid,
							&free_tid,
							AGENT_REQ_CLAIMED, false,
							__ATOMIC_ACQUIRE,
							__ATOMIC_RELAXED))
				return i;
		}
		agent_sys6(SYS_nanosleep, (long)&ms, 0, 0, 0, 0, 0);
	}
}

/*
 * An armed task runs detached from ptrace: ask iotrace to trace it again
 * (agent-abi.h) and wait until it has, re-sending the signal every 2 ms
 * in case iotrace was not waiting yet, for as long as iotrace lives (a
 * stopped iotrace stops the program, as a stopped strace does; the
 * watchdog clears tracer_pid should it die).  False when iotrace could
 * not seize it or cannot be signalled: it runs untraced.  iotrace keeps
 * under ptrace every task that could not signal it (agent-wait.c) and
 * the agent hands back those that change their credentials, so neither
 * is the case of a program that runs as it started.
 */
static bool attach_me(void)
{
	struct timespec ts = { 0, 2000000 };
	uint32_t i, *done, answer;
	long pid, err = 0;

	if (!tracer_to_signal())
		return true;	/* none to ask: traced all along, or the
				   run is over; its pid may not even be
				   iotrace's here (another namespace) */
	i = claim_slot();
	done = &shm->req[i].done;
	__atomic_store_n(done, 0, __ATOMIC_RELAXED);
	shm->req[i].pid = (uint32_t)sys0(SYS_getpid);
	__atomic_store_n(&shm->req[i].tid, (uint32_t)sys0(SYS_gettid),
			 __ATOMIC_RELEASE);
	while (!(answer = __atomic_load_n(done, __ATOMIC_ACQUIRE))) {
		pid = tracer_to_signal();
		if (!pid)
			break;
		err = sys3(SYS_tgkill, pid, pid, shm->attach_sig);
		if (err < 0 && err != -EAGAIN)	/* EAGAIN: its queue is
						   full, it was told */
			break;
		agent_sys6(SYS_futex, (long)done, FUTEX_WAIT, 0, (long)&ts, 0,
			   0);
	}
	__atomic_store_n(&shm->req[i].tid, 0, __ATOMIC_RELEASE);
	return answer == 1 || (!answer && err >= 0);
}

/*
 * A marker from the handler: traced again first.  No tracer answered
 * (-ENOSYS): dispatch off, the task goes on untraced and uncounted, and
 * the header says how many did.
 */
static void mark_traced(long op, long a, long b)
{
	attach_me();
	if (mark(op, a, b) != -ENOSYS)
		return;
	agent_sys6(SYS_prctl, PR_SET_SYSCALL_USER_DISPATCH, 0, 0, 0, 0, 0);
	__atomic_fetch_add(&shm->untraced, 1, __ATOMIC_RELAXED);
}

/*
 * Calls the program runs itself, traced by ptrace (see the top); the CPU
 * mask calls too, so that iotrace's same-CPU placement stays invisible
 * (it rewrites what sched_getaffinity returns, and ends on the
 * program's own mask).
 */
static bool native_call(int nr)
{
	return nr == SYS_clone || nr == SYS_clone3 || nr == SYS_fork ||
	       nr == SYS_vfork || nr == SYS_sched_getaffinity ||
	       nr == SYS_sched_setaffinity;
}

/*
 * Calls after which a detached task might no longer signal iotrace, nor
 * iotrace seize it (runuser's setuid, a daemon's dumpable 0): the
 * process is handed back to ptrace before the call, for good.  glibc
 * makes every thread of a process run a set*id call (SIGSETXID), so
 * the first thread's hands back all of them.
 */
static bool changes_creds(int nr, const greg_t *g)
{
	switch (nr) {
	case SYS_setuid: case SYS_setgid: case SYS_setreuid:
	case SYS_setregid: case SYS_setresuid: case SYS_setresgid:
	case SYS_setfsuid: case SYS_setfsgid: case SYS_setgroups:
	case SYS_capset:
		return true;
	case SYS_prctl:
		return g[REG_RDI] == PR_SET_DUMPABLE;
	default:
		return false;
	}
}

/*
 * Calls after which the agent cannot stay: a seccomp filter of the
 * program's (its traps are SIGSYS too), its own dispatch.  The marker
 * hands the process back to ptrace; the program then runs the call.
 */
static bool falls_back(int nr, const greg_t *g)
{
	if (nr == SYS_seccomp ||
	    (nr == SYS_prctl && (g[REG_RDI] == PR_SET_SECCOMP ||
				 g[REG_RDI] == PR_GET_SECCOMP))) {
		mark_traced(AGENT_OP_FALLBACK, AGENT_WHY_SECCOMP, 1);
		return true;
	}
	if (nr == SYS_prctl && g[REG_RDI] == PR_SET_SYSCALL_USER_DISPATCH) {
		mark_traced(AGENT_OP_FALLBACK, AGENT_WHY_SUD, 0);
		return true;
	}
	if (changes_creds(nr, g)) {
		mark_traced(AGENT_OP_FALLBACK, AGENT_WHY_CREDS, 1);
		return true;
	}
	return false;
}

/*
 * The program's rt_sigreturn, issued from agent_sigreturn: it never
 * returns to the agent, so nothing of it runs after the call to read a
 * clock.  Timed, it is counted as taking no time (what ptrace measures
 * of it is under a microsecond once the stop overhead is subtracted),
 * so that its row in the table is numbers as every other row of a
 * timed run is; the -EINTR it may restore, an error to ptrace, is not
 * seen.  -e count= keeps it counted only.
 */
static void sigreturn_call(int nr, const greg_t *g)
{
	uint8_t act = shm->act[nr];

	if (act == AGENT_ACT_SKIP)
		return;
	add(&shm->rows[nr].calls, 1);
	if (act == AGENT_ACT_TIME)
		account(nr, 0, 0, g);
	site_of(nr, g, 0, AGENT_SITE_CALL |
		(act == AGENT_ACT_TIME ? AGENT_SITE_TIMED : 0));
}

/*
 * A SIGSYS that is not a dispatched call (kill -SYS, a seccomp trap): it
 * does what it would do untraced: nothing if the program ignores SIGSYS,
 * else the default action (a handler of the program's would have handed
 * the program back to ptrace).
 */
static void foreign_sigsys(void)
{
	struct ksigaction dfl = { SIG_DFL, 0, NULL, 0 };
	long tid = sys0(SYS_gettid);

	if (sigsys_orig.handler == SIG_IGN)
		return;
	agent_sys6(SYS_rt_sigaction, SIGSYS, (long)&dfl, 0, 8, 0, 0);
	sys3(SYS_tgkill, sys0(SYS_getpid), tid, SIGSYS);
}

void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	greg_t *g = uc->uc_mcontext.gregs;
	int nr = (int)g[REG_RAX];
	uint64_t ta, trip = 0;

	(void)sig;
	if (si->si_code != SYS_USER_DISPATCH_CODE)
		return foreign_sigsys();
	/*
	 * int $0x80 (i386 numbers and registers) or an x32 call: not the
	 * calls the agent issues and counts.  Issued as native ones they
	 * would be other calls (i386 getpid, 20, is writev here): the
	 * process goes back to ptrace, which counts them per personality,
	 * and the program makes the call itself.  So does a number outside
	 * the agent's table (-1, 5000: ptrace counts them as syscall_N).
	 */
	if (si->si_arch != AUDIT_ARCH_X86_64 || (g[REG_RAX] & X32_BIT) ||
	    nr < 0 || nr >= AGENT_NR_MAX) {
		mark_traced(AGENT_OP_FALLBACK, AGENT_WHY_PERSONALITY, 1);
		g[REG_RIP] -= 2;	/* int $0x80 is two bytes too */
		return;
	}
	ta = probe_entry(g, &trip);
	/*
	 * Only the clock call itself: a signal handler of the program's can
	 * run inside now_ns(), and its calls are its own (its rt_sigreturn
	 * issued here would take the handler's stack for its frame and kill
	 * the program).
	 */
	if (nr == SYS_clock_gettime && clock_nested(g)) {
		g[REG_RAX] = issue(g);
		return;
	}
	if (nr == SYS_exit)	/* the thread's SIGSYS wish goes with it */
		vblock_set((int32_t)sys0(SYS_gettid), false);
	/* -k: the stacks are unwound with the process's maps, alive */
	if (nr == SYS_exit || nr == SYS_exit_group)
		agent_sites_flush(nr == SYS_exit_group);
	if (nr == SYS_rt_sigreturn) {
		sigreturn_call(nr, g);
		g[REG_RIP] = (greg_t)agent_sigreturn;
		return;
	}
	if (native_call(nr)) {
		mark_traced(AGENT_OP_NATIVE, nr, 0);
		g[REG_RIP] -= 2;	/* the syscall instruction again */
		return;
	}
	if (falls_back(nr, g) ||
	    (nr == SYS_rt_sigaction && !sigaction_call(g))) {
		g[REG_RIP] -= 2;
		return;
	}
	if (nr == SYS_rt_sigaction)
		return;
	if (nr == SYS_rt_sigprocmask)
		sigprocmask_call(g, uc);
	else if (nr == SYS_sigaltstack)
		sigaltstack_call(g, uc);
	else if (nr == SYS_execve || nr == SYS_execveat)
		exec_call(nr, g);
	else if (shm->act[nr] == AGENT_ACT_TIME && (ta || probe_due()))
		probed(nr, g, ta, trip);
	else
		generic(nr, g);
}
