// SPDX-License-Identifier: MIT
/*
 * What the stop loop does for the agent engine (loop.c calls these when
 * l->agent is set).  A task starts traced call by call, as the ptrace
 * engine traces without its filter; the agent in it says HELLO (its code
 * region: calls from there are its own, never counted), then ARMED (the
 * task then runs unstopped, PTRACE_CONT, and the agent counts) or
 * FALLBACK (ptrace goes on counting).  An armed task is detached at
 * once (a dispatched call would otherwise be a signal-delivery stop) and
 * seized again when its agent asks (agent_requests()), before a marker
 * or an execve.  A fork or clone is run by the
 * task itself under ptrace (NATIVE), which arms it again at the call's
 * exit and arms every new task of an armed one with
 * PTRACE_SET_SYSCALL_USER_DISPATCH_CONFIG, since the kernel gives a new
 * task no dispatch (one whose first stop comes before its parent's event
 * waits in it for the event: agent_first_stop()).  An execve clears
 * dispatch: the new image's agent says HELLO again after iotrace maps it
 * in (agent-inject.c), or never comes (a set-user-ID or 32-bit program, a
 * filter of its own...), which is recorded when the process exits.  So
 * every call is counted once: by ptrace until the task is armed, by the
 * agent after.
 *
 * Markers reach the loop as seccomp stops (the engine's filter stops at
 * them only) and, while the task is traced call by call, at their entry
 * too, which is hidden.  Nothing here allocates; /proc is read once per
 * execve (what the new program is).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/futex.h>
#include <unistd.h>
#include "tracer/agent-int.h"

/* Linux 6.11: Syscall User Dispatch of a stopped tracee. */
#define PTRACE_SET_SUD_CONFIG 0x4210
struct sud_config {
	uint64_t mode, selector, offset, len;
};

static const char *const why_texts[AGENT_WHY_NWHY] = {
	[AGENT_WHY_NONE] = "",
	[AGENT_WHY_NOT_LOADED] = "agent not loaded",
	[AGENT_WHY_SETUID] = "set-user-ID or set-group-ID program",
	[AGENT_WHY_NOT64] = "not an x86_64 program",
	[AGENT_WHY_SIGSYS_IGNORED] = "SIGSYS ignored at start",
	[AGENT_WHY_SIGSYS_BLOCKED] = "SIGSYS blocked at start",
	[AGENT_WHY_SIGSYS_HANDLER] = "own SIGSYS handler",
	[AGENT_WHY_SECCOMP] = "own seccomp filter",
	[AGENT_WHY_SUD] = "uses Syscall User Dispatch itself",
	[AGENT_WHY_NO_SUD] = "Syscall User Dispatch refused",
	[AGENT_WHY_NO_SHM] = "shared counters not mapped",
	[AGENT_WHY_PERSONALITY] = "i386, x32 or unknown calls",
	[AGENT_WHY_CREDS] = "changes its credentials",
};

const char *agent_why_text(int why)
{
	return why > 0 && why < AGENT_WHY_NWHY ? why_texts[why] : "unknown";
}

static int sud_set(pid_t tid, const struct task *t, bool on)
{
	struct sud_config c = { on, 0, on ? t->agent_lo : 0,
				on ? t->agent_len : 0 };

	return ptrace(PTRACE_SET_SUD_CONFIG, tid, (void *)sizeof(c), &c) < 0 ?
	       -errno : 0;
}

static bool is_marker(uint32_t arch, uint64_t nr, const uint64_t *args)
{
	return arch == AUDIT_ARCH_X86_64 && nr == SYS_getpid &&
	       args[0] == AGENT_MAGIC;
}

static bool in_region(const struct task *t, uint64_t ip)
{
	return t->agent_len && ip - t->agent_lo < t->agent_len;
}

/*
 * A process left to ptrace, and why: once per process and reason (a
 * process whose filter made it fall back, then runs another program
 * under that filter, is one process).
 */
static void record_fallback(struct loop *l, pid_t pid, int why)
{
	struct tracer_engine_use *u = l->agent->use;
	size_t i;

	for (i = 0; i < u->fallbacks && i < TRACER_FALLBACKS_MAX; i++)
		if (u->fallback[i].pid == pid &&
		    u->fallback[i].why == agent_why_text(why))
			return;
	if (u->fallbacks < TRACER_FALLBACKS_MAX) {
		u->fallback[u->fallbacks].pid = pid;
		u->fallback[u->fallbacks].why = agent_why_text(why);
	}
	u->fallbacks++;
}

/*
 * A task is counted once, and a process once (by its leader), as strace
 * -f sees them: though its agent arms it again after each execve, and a
 * task seized again on request (agent_requests()) is a new entry of the
 * table, one counted already (only an armed task runs detached).
 */
static void armed(struct loop *l, struct task *t)
{
	t->agent = AGENT_T_ARMED;
	if (t->agent_counted)
		return;
	t->agent_counted = true;
	l->agent->use->agent_tasks++;
	if (!t->tgid || t->tgid == t->tid)
		l->agent->use->agent_procs++;
}

/* How agent_requests() and disarm_process() seize a detached task. */
static int seize(pid_t tid)
{
	unsigned long opts = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
			     PTRACE_O_EXITKILL | PTRACE_O_TRACESECCOMP |
			     PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			     PTRACE_O_TRACECLONE;

	return ptrace(PTRACE_SEIZE, tid, 0L, opts) < 0 ? -errno : 0;
}

/*
 * The other threads of t's process, armed ones running detached: each
 * is seized if need be, interrupted and disarmed at that stop.  Read
 * from /proc/TGID/task, once per process-wide fallback (rare).
 */
static void disarm_process(struct loop *l, const struct task *t)
{
	char path[40];
	struct dirent *d;
	struct task *o;
	pid_t tid;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->tgid);
	dir = t->tgid ? opendir(path) : NULL;
	while (dir && (d = readdir(dir))) {
		tid = (pid_t)atoi(d->d_name);
		if (tid <= 0 || tid == t->tid)
			continue;
		o = task_find(&l->tasks, tid);
		if (!o) {	/* detached: armed */
			if (seize(tid) < 0 ||
			    !(o = loop_add_task(l, tid, t->tgid)))
				continue;
			o->agent = AGENT_T_ARMED;
			o->agent_counted = true;
		}
		if (o->agent == AGENT_T_OFF || o->agent == AGENT_T_NONE)
			continue;
		o->agent = AGENT_T_DISARM_ME;
		ptrace(PTRACE_INTERRUPT, tid, 0L, 0L);
	}
	if (dir)
		closedir(dir);
}

static void on_marker(struct loop *l, struct task *t, const uint64_t *a)
{
	if (a[5]) {	/* every marker names the region */
		t->agent_lo = a[4];
		t->agent_len = a[5];
	}
	switch (a[1]) {
	case AGENT_OP_HELLO:
		t->agent = AGENT_T_HELLO;
		t->agent_lo = a[2];
		t->agent_len = a[3];
		break;
	case AGENT_OP_ARMED:
		if (t->agent_booting)
			agent_inject_done(t);
		armed(l, t);
		break;
	case AGENT_OP_FALLBACK:
		sud_set(t->tid, t, false);
		t->agent = AGENT_T_OFF;
		t->agent_why = (uint8_t)a[2];
		record_fallback(l, t->tgid ? t->tgid : t->tid, (int)a[2]);
		if (a[3])
			disarm_process(l, t);
		/* Booting: the agent goes again, nothing of it is used. */
		if (t->agent_booting)
			agent_inject_unmap(l, t);
		break;
	case AGENT_OP_NATIVE:
		sud_set(t->tid, t, false);
		t->agent = AGENT_T_NATIVE;
		break;
	}
}

/*
 * Whether the call at entry is none of the program's: a marker, a call
 * from the agent's region, iotrace's calls mapping the agent, iotrace's
 * own child loading the filter.
 */
static bool hidden_entry(struct task *t,
			 const struct __ptrace_syscall_info *info)
{
	uint64_t nr = info->entry.nr;
	const uint64_t *a = info->entry.args;

	t->arch = info->arch;
	switch (t->agent) {
	case AGENT_T_PRE:
		return nr != SYS_execve && nr != SYS_execveat;
	case AGENT_T_INJ_MAP:
	case AGENT_T_INJ_PROT:
	case AGENT_T_INJ_UNMAP:
		return true;
	}
	return is_marker(info->arch, nr, a) ||
	       in_region(t, info->instruction_pointer);
}

bool agent_syscall_stop(struct loop *l, struct task *t,
			const struct __ptrace_syscall_info *info)
{
	switch (info->op) {
	case PTRACE_SYSCALL_INFO_ENTRY:
		if (!hidden_entry(t, info)) {
			if (t->agent == AGENT_T_NATIVE)
				t->agent = AGENT_T_NATIVE_IN;
			return false;
		}
		t->in_syscall = false;	/* hidden, its exit too */
		return true;
	case PTRACE_SYSCALL_INFO_SECCOMP:
		/* Markers; any other is a program's own filter's TRACE,
		   the loop's (ownfilter.c). */
		if (!is_marker(info->arch, info->seccomp.nr,
			       info->seccomp.args))
			return false;
		on_marker(l, t, info->seccomp.args);
		t->in_syscall = false;
		return true;
	default:
		return false;
	}
}

/*
 * Whether t is inside a call that makes a task (fork, vfork, clone,
 * clone3: FX_CHILD in the syscall table), entered under PTRACE_SYSCALL
 * as every creator is (an armed one runs it natively, NATIVE).
 */
static bool making_task(const struct task *t)
{
	const struct syscall_fact *f;
	int pnr, pers;

	if (!t->tid || !t->entered)
		return false;
	pers = syscall_locate(t->arch, t->nr, &pnr);
	f = syscall_fact(pers, pnr);
	return f && f->fx == FX_CHILD;
}

/* Whether a task but but is making one: a held task's parent, maybe. */
static bool parent_may_come(const struct loop *l, pid_t but)
{
	size_t i;

	for (i = 0; i < l->tasks.cap; i++)
		if (l->tasks.slots[i].tid != but &&
		    making_task(&l->tasks.slots[i]))
			return true;
	return false;
}

/*
 * No task left inside a fork or clone but but (a parent killed in its
 * call reports no event): the held tasks go on, traced call by call
 * until an execve, and OFF, so that no event arms them late.
 */
static void release_held(struct loop *l, pid_t but)
{
	struct task *t;
	size_t i;

	if (!l->agent->held || parent_may_come(l, but))
		return;
	for (i = 0; i < l->tasks.cap; i++) {
		t = &l->tasks.slots[i];
		if (!t->tid || t->agent != AGENT_T_EARLY)
			continue;
		t->agent = AGENT_T_OFF;
		l->agent->held--;
		ptrace(PTRACE_SYSCALL, t->tid, 0L, 0L);
	}
}

void agent_after_exit(struct loop *l, struct task *t, int64_t ret)
{
	release_held(l, 0);	/* t may have left a fork */
	switch (t->agent) {
	case AGENT_T_INJECT:	/* execve's exit, the new program's start */
		if (!agent_inject_start(l, t)) {
			t->agent = AGENT_T_NONE;
			t->agent_why = AGENT_WHY_NOT_LOADED;
		}
		return;
	case AGENT_T_INJ_MAP:
	case AGENT_T_INJ_PROT:
	case AGENT_T_INJ_UNMAP:
		agent_inject_step(l, t, ret);
		return;
	}
	if (t->agent != AGENT_T_NATIVE_IN)
		return;
	if (sud_set(t->tid, t, true) == 0) {
		t->agent = AGENT_T_ARMED;
		return;
	}
	t->agent = AGENT_T_OFF;
	record_fallback(l, t->tgid ? t->tgid : t->tid, AGENT_WHY_NO_SUD);
}

void agent_any_stop(struct loop *l, struct task *t)
{
	if (!l->agent->first_seen) {
		l->agent->first_seen = true;
		t->agent = AGENT_T_PRE;
	}
	if (t->agent_vblock_due)
		agent_inject_vblock(l, t);
	if (t->agent == AGENT_T_ARM_ME) {
		if (sud_set(t->tid, t, true) == 0) {
			armed(l, t);
			return;
		}
		t->agent = AGENT_T_OFF;
		if (t->tgid == t->tid)
			record_fallback(l, t->tid, AGENT_WHY_NO_SUD);
	} else if (t->agent == AGENT_T_DISARM_ME) {
		sud_set(t->tid, t, false);
		t->agent = AGENT_T_OFF;
	}
}

/* What a new task c gets of its parent p: armed, or ptrace's too. */
static void inherit(struct loop *l, const struct task *p, struct task *c)
{
	c->agent_lo = p->agent_lo;
	c->agent_len = p->agent_len;
	c->agent_why = p->agent_why;
	switch (p->agent) {
	case AGENT_T_ARMED:
	case AGENT_T_NATIVE:
	case AGENT_T_NATIVE_IN:
		c->agent = AGENT_T_ARM_ME;
		agent_inject_inherit(l, p, c);
		break;
	case AGENT_T_OFF:
	case AGENT_T_DISARM_ME:
		c->agent = AGENT_T_OFF;
		if (c->tgid == c->tid)
			record_fallback(l, c->tid, p->agent_why);
		break;
	}
}

/*
 * A new task's first stop (PTRACE_EVENT_STOP) may come before its
 * parent's fork or clone event: nothing says yet whether it must be
 * armed, or has SIGSYS blocked, and once it runs, it is too late (its
 * first calls are native, whatever its program thinks of SIGSYS; an arm
 * at a later stop could be at its execve's, carrying dispatch into the
 * new program, whose first call then killed it with SIGSYS).  So it
 * waits in that stop for the event (agent_new_task()); or, with no
 * parent left to report one, goes on OFF.
 */
bool agent_first_stop(struct loop *l, pid_t tid, int status)
{
	struct task *t;

	if ((status >> 16) != PTRACE_EVENT_STOP || l->ending)
		return false;
	t = task_get(&l->tasks, tid);
	if (!t)
		return false;
	if (!parent_may_come(l, 0)) {
		t->agent = AGENT_T_OFF;
		return false;
	}
	t->agent = AGENT_T_EARLY;
	l->agent->held++;
	return true;
}

pid_t agent_new_task(struct loop *l, pid_t parent)
{
	unsigned long msg;
	struct task *p, *c;
	bool held;

	if (ptrace(PTRACE_GETEVENTMSG, parent, 0L, &msg) < 0)
		return 0;
	p = task_find(&l->tasks, parent);
	c = task_find(&l->tasks, (pid_t)msg);
	held = c && c->agent == AGENT_T_EARLY;
	if (held) {
		c->agent = AGENT_T_NONE;
		l->agent->held--;
	}
	if (p && c && c->agent == AGENT_T_NONE)
		inherit(l, p, c);
	if (!held)
		return 0;
	agent_any_stop(l, c);	/* what its first stop does */
	return c->tid;
}

int agent_classify(const char *path)
{
	Elf64_Ehdr eh;
	struct stat st;
	int fd, why = AGENT_WHY_NONE;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return AGENT_WHY_NOT_LOADED;
	n = pread(fd, &eh, sizeof(eh), 0);
	if (n >= 2 && !memcmp(&eh, "#!", 2))
		;	/* a script: its interpreter is what runs */
	else if (fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
		why = AGENT_WHY_SETUID;
	else if (n != sizeof(eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
		 eh.e_ident[EI_CLASS] != ELFCLASS64 ||
		 eh.e_machine != EM_X86_64)
		why = AGENT_WHY_NOT64;
	close(fd);
	return why;
}

/* What kind of program tid runs now, for a fallback: one /proc read. */
static int classify(pid_t tid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)tid);
	return agent_classify(path);
}

/*
 * Whether tid runs under a seccomp filter of its own, inherited across
 * its execve: more filters than iotrace's marker filter and those iotrace
 * itself runs under (a container's).  Its filter may refuse what mapping
 * the agent takes, and its traps are SIGSYS too: ptrace's.  One /proc
 * read per execve.
 */
static bool own_filter(const struct loop *l, pid_t tid)
{
	return task_status_field(tid, "Seccomp_filters", 0) >
	       l->agent->filters_base;
}

/*
 * An execve the agent timed (agent-abi.h's execs[]) and that succeeded:
 * it never went back to the agent, which left it to be counted here, as
 * ptrace counts a call, from the agent's clock as it was issued to this
 * event.  The sink subtracts ptrace's stop overhead from it as from any
 * call ptrace timed (the time spans one stop, this one, where ptrace's
 * own span two).  After the exec the task is its process's leader.
 */
static struct agent_exec *exec_slot_of(struct agent_shm *s, uint32_t tid)
{
	size_t i;

	for (i = 0; i < AGENT_EXEC_SLOTS; i++)
		if (__atomic_load_n(&s->execs[i].tid, __ATOMIC_ACQUIRE) == tid)
			return &s->execs[i];
	return NULL;
}

static void exec_counted(struct loop *l, const struct task *t, pid_t caller,
			 uint64_t now)
{
	struct agent_exec *x = NULL;
	struct tracer_event ev;

	x = exec_slot_of(l->agent->shm, (uint32_t)caller);
	/*
	 * The agent wrote the tid its own pid namespace gives (unshare
	 * --pid --fork): the leader's, as the task is now.
	 */
	if (!x)
		x = exec_slot_of(l->agent->shm, (uint32_t)task_ns_tid(t->tid));
	if (!x)
		return;
	memset(&ev, 0, sizeof(ev));
	ev.tid = ev.tgid = t->tid;
	ev.arch = AUDIT_ARCH_X86_64;
	ev.nr = x->nr;
	memcpy(ev.args, x->args, sizeof(ev.args));
	ev.entry_ns = x->start_ns;
	ev.exit_ns = now > x->start_ns ? now : x->start_ns;
	ev.file_id = ev.stack_id = TRACER_ID_NONE;
	__atomic_store_n(&x->tid, 0, __ATOMIC_RELEASE);
	l->sink->syscall(l->sink->ctx, &ev);
}

void agent_exec(struct loop *l, struct task *t, pid_t caller, uint64_t now)
{
	exec_counted(l, t, caller, now);
	if (t->agent == AGENT_T_NONE && t->agent_why)
		record_fallback(l, t->tid, t->agent_why);
	t->agent_lo = t->agent_len = t->agent_base = 0;
	t->agent_booting = false;
	agent_sites_exec(l->agent, t->tid);
	t->agent_why = (uint8_t)classify(t->tid);
	if (!t->agent_why && own_filter(l, t->tid))
		t->agent_why = AGENT_WHY_SECCOMP;
	t->agent = t->agent_why ? AGENT_T_NONE : AGENT_T_INJECT;
}

void agent_gone(struct loop *l, struct task *t)
{
	if (t->agent == AGENT_T_NONE && t->agent_why &&
	    (!t->tgid || t->tgid == t->tid))
		record_fallback(l, t->tid, t->agent_why);
	if (t->agent == AGENT_T_EARLY)
		l->agent->held--;
	release_held(l, t->tid);
}

int agent_resume(struct loop *l, pid_t tid, int sig)
{
	struct task *t = task_find(&l->tasks, tid);

	/*
	 * Seized on request: it stays traced until its marker or execve,
	 * whatever stops it first (sh's SIGCHLD between the seize and its
	 * marker detached it again, and its fork went uncounted).
	 */
	if (t && t->agent == AGENT_T_ASKED)
		return AGENT_RESUME_CONT;
	/*
	 * The agent booting in a new program (agent-inject.c) makes only
	 * its own calls, never counted: no stop at each, its markers stop
	 * it (about 30 stops less per execve).
	 */
	if (t && t->agent_booting)
		return AGENT_RESUME_CONT;
	if (!t || t->agent != AGENT_T_ARMED)
		return AGENT_RESUME_SYSCALL;
	if (!l->agent->shm->tracer_pid)
		return AGENT_RESUME_CONT;
	/*
	 * Armed: it runs detached until it asks to be traced again, if it
	 * can ask (its agent told otherwise, once) and iotrace can wait
	 * for its process (agent-wait.c).
	 */
	if (t->agent_stay)
		return AGENT_RESUME_CONT;
	if (!agent_may_detach(t->tgid ? t->tgid : tid)) {
		t->agent_stay = true;
		agent_inject_stay(l, t);
		return AGENT_RESUME_CONT;
	}
	if (!agent_track(l, t->tgid ? t->tgid : tid))
		return AGENT_RESUME_CONT;
	ptrace(PTRACE_DETACH, tid, 0L, (long)sig);
	task_del(&l->tasks, tid);
	l->agent->use->detaches++;
	return AGENT_RESUME_DONE;
}

/*
 * Whether a request names a task iotrace let go: a thread of a process
 * it detached and still holds a pidfd of (so the pid is that process's,
 * not a reused one).  A slot is written by the program: anything else
 * in it (a pid of another namespace, a stale or forged one) is never
 * seized, so no process outside the command's tree ever is.
 */
static bool asker_is_ours(const struct agent_run *ar, pid_t pid, pid_t tid)
{
	char path[64];

	if (pid <= 0 || tid <= 0 || !agent_is_detached(ar, pid))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * Requests to be traced again (agent-abi.h), looked at when iotrace was
 * signalled: each task is seized as the spawn target seizes its first,
 * known as asked (armed; its next stop is its marker or its execve, or a
 * signal first), and woken; told so (done 1), or that it could not be
 * (2: it goes on untraced, and its agent counts it in the header).
 */
void agent_requests(struct loop *l)
{
	struct agent_shm *s = l->agent->shm;
	bool drained = false;
	struct task *t;
	uint32_t tid;
	size_t i;
	bool ok;

	agent_sites_drain(l);
	if (!agent_signalled)
		return;
	agent_signalled = 0;
	for (i = 0; i < AGENT_REQ_SLOTS; i++) {
		tid = __atomic_load_n(&s->req[i].tid, __ATOMIC_ACQUIRE);
		if (!tid || tid == AGENT_REQ_CLAIMED ||
		    __atomic_load_n(&s->req[i].done, __ATOMIC_ACQUIRE))
			continue;
		/* -k: the stacks it left before it asked (an execve's),
		   unwound before it goes on to replace its maps */
		if (!drained)
			agent_sites_drain(l);
		drained = true;
		t = task_find(&l->tasks, (pid_t)tid);
		ok = t || (asker_is_ours(l->agent, (pid_t)s->req[i].pid,
					 (pid_t)tid) &&
			   seize((pid_t)tid) == 0);
		if (ok && !t) {
			t = loop_add_task(l, (pid_t)tid,
					  (pid_t)s->req[i].pid);
			if (t) {
				t->agent = AGENT_T_ASKED;
				t->agent_counted = true;	/* armed */
			}
		}
		/* the asker frees its slot once it has read this */
		__atomic_store_n(&s->req[i].done, ok ? 1 : 2, __ATOMIC_RELEASE);
		syscall(SYS_futex, &s->req[i].done, FUTEX_WAKE, 1, NULL, NULL,
			0);
	}
}
