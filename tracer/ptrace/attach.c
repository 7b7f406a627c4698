// SPDX-License-Identifier: MIT
/*
 * The attach target of the ptrace engine (iotrace -p): processes already
 * running, seized (PTRACE_SEIZE + PTRACE_INTERRUPT) thread by thread, and
 * their children from then on.  They were not started by iotrace, so no
 * seccomp filter and no pinning: every call stops (PTRACE_SYSCALL), and
 * nothing iotrace does may outlive the run.  No PTRACE_O_EXITKILL: when
 * iotrace is told to stop (SIGINT, SIGTERM, SIGHUP, --duration) every task
 * is interrupted and detached where it stops, a pending signal delivered,
 * so the processes run on as before.  A call in flight at attach (an exit
 * stop without an entry) is not reported (loop.c); one still in progress
 * at detach is not either.
 *
 * Whether a pid may be traced is checked for every pid before any is
 * seized (the probe), so a refused one touches nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

/* A wake-up of the loop's wait, so a signal or the deadline is seen. */
#define ATTACH_TICK_US 100000

static uint64_t deadline_ns;		/* 0: none */
static struct sigaction saved_alrm;

/* What /proc/PID/status says of pid: 0, or -errno (ENOENT: none). */
struct proc_status {
	char state;		/* R, S, D, T, t, Z, X ... */
	pid_t tgid;
	pid_t tracer;
};

static long status_field(const char *buf, const char *key)
{
	const char *p = strstr(buf, key);

	return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

static int read_status(pid_t pid, struct proc_status *st)
{
	char path[32], buf[4096], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strstr(buf, "\nState:");
	st->state = p ? p[strspn(p + 7, " \t") + 7] : '?';
	st->tgid = (pid_t)status_field(buf, "\nTgid:");
	st->tracer = (pid_t)status_field(buf, "\nTracerPid:");
	return 0;
}

/*
 * Why pid cannot be attached to, or NULL.  The permission test is the
 * kernel's own for ptrace attach (uid, capabilities, Yama's
 * ptrace_scope): opening /proc/PID/mem asks it without touching pid.
 */
static const char *refusal(pid_t pid, char *buf, size_t size)
{
	struct proc_status st;
	int fd;

	if (pid <= 0 || read_status(pid, &st) < 0 || st.state == 'X')
		return "no such process";
	if (pid == getpid())
		return "it is iotrace itself";
	if (st.tgid != pid) {
		snprintf(buf, size, "a thread of process %d, not a process",
			 (int)st.tgid);
		return buf;
	}
	if (st.state == 'Z')
		return "a zombie (it has exited)";
	if (st.tracer > 0) {
		snprintf(buf, size, "already traced by process %d",
			 (int)st.tracer);
		return buf;
	}
	snprintf(buf, size, "/proc/%d/mem", (int)pid);
	fd = open(buf, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		return "not permitted (another user's process, or "
		       "/proc/sys/kernel/yama/ptrace_scope)";
	if (fd >= 0)
		close(fd);
	return NULL;
}

static const char *attach_probe(const struct tracer_opts *opts,
				const struct tracer_target *target)
{
	static char why[192];
	char buf[128];
	const char *r;
	size_t i;

	(void)opts;
	if (!target->attach.npids)
		return "no process to attach to";
	for (i = 0; i < target->attach.npids; i++) {
		r = refusal(target->attach.pids[i], buf, sizeof(buf));
		if (r) {
			snprintf(why, sizeof(why), "pid '%d': %s",
				 (int)target->attach.pids[i], r);
			return why;
		}
	}
	return NULL;
}

/*
 * Lets go of tid, seized but not yet handed to the loop: waits for its
 * first stop and detaches there (a signal it stopped for is delivered).
 */
static void release(pid_t tid)
{
	int status;

	ptrace(PTRACE_INTERRUPT, tid, 0L, 0L);
	while (waitpid(tid, &status, __WALL) < 0)
		if (errno != EINTR)
			return;
	if (WIFSTOPPED(status))
		ptrace(PTRACE_DETACH, tid, 0L,
		       (long)(status >> 16 ? 0 : WSTOPSIG(status)));
}

static void release_all(struct loop *l)
{
	size_t i;

	for (i = 0; i < l->tasks.cap; i++)
		if (l->tasks.slots[i].tid)
			release(l->tasks.slots[i].tid);
	task_table_release(&l->tasks);
	task_table_init(&l->tasks);
}

static unsigned long seize_options(const struct tracer_opts *opts)
{
	unsigned long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC;

	if (opts->follow)
		options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			   PTRACE_O_TRACECLONE;
	return options;
}

/* Seizes tid of tgid unless it is already: 1 if new, 0, or -errno. */
static int seize(struct loop *l, pid_t tid, pid_t tgid)
{
	if (task_find(&l->tasks, tid))
		return 0;
	if (ptrace(PTRACE_SEIZE, tid, 0L, seize_options(l->opts)) < 0)
		return errno == ESRCH ? 0 : -errno;	/* ESRCH: gone */
	if (!loop_add_task(l, tid, tgid)) {
		release(tid);
		return -ENOMEM;
	}
	ptrace(PTRACE_INTERRUPT, tid, 0L, 0L);
	return 1;
}

/*
 * Every thread of pid, listed again until a pass finds none new: a
 * thread not seized yet may make more meanwhile.  0 or -errno.
 */
static int seize_process(struct loop *l, pid_t pid)
{
	char path[32];
	struct dirent *d;
	int err, added;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	do {
		dir = opendir(path);
		if (!dir)
			return 0;	/* exited meanwhile: nothing to do */
		added = 0;
		err = 0;
		while (!err && (d = readdir(dir))) {
			pid_t tid = (pid_t)atoi(d->d_name);

			if (tid > 0)
				err = seize(l, tid, pid);
			added += err > 0;
			err = err < 0 ? err : 0;
		}
		closedir(dir);
	} while (!err && added);
	return err;
}

static void on_tick(int sig)
{
	(void)sig;	/* only wakes the loop's waitpid with EINTR */
}

/*
 * A periodic SIGALRM (no SA_RESTART) wakes the loop's wait even when no
 * task stops, so SIGINT or the deadline ends an idle run within a tick.
 */
static void start_ticks(void)
{
	struct itimerval it = { { 0, ATTACH_TICK_US }, { 0, ATTACH_TICK_US } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_tick;
	sigaction(SIGALRM, &sa, &saved_alrm);
	setitimer(ITIMER_REAL, &it, NULL);
}

static int attach_start(struct loop *l, const struct tracer_target *target)
{
	const struct tracer_pids *a = &target->attach;
	size_t i;
	int err;

	for (i = 0; i < a->npids; i++) {
		err = seize_process(l, a->pids[i]);
		if (err < 0) {
			release_all(l);
			return err;
		}
	}
	deadline_ns = a->duration_ns ? mono_ns() + a->duration_ns : 0;
	start_ticks();
	return 0;
}

static bool attach_should_end(struct loop *l, uint64_t now)
{
	(void)l;
	return tracer_pending_signal() || (deadline_ns && now >= deadline_ns);
}

/* Stop everyone where they are; each is detached at that stop. */
static void attach_end(struct loop *l)
{
	size_t i;

	l->res->detached = true;
	for (i = 0; i < l->tasks.cap; i++)
		if (l->tasks.slots[i].tid)
			ptrace(PTRACE_INTERRUPT, l->tasks.slots[i].tid, 0L,
			       0L);
}

/*
 * Any stop after end(): detached there, running again, with the signal of
 * a signal-delivery stop delivered (a group stop stays one).  A call it
 * is in is not reported.  A child forked meanwhile comes here too.
 */
static bool attach_end_task(struct loop *l, struct task *t)
{
	int status = l->status, sig = WSTOPSIG(status);

	if (status >> 16 || sig == (SIGTRAP | 0x80))
		sig = 0;
	ptrace(PTRACE_DETACH, t->tid, 0L, (long)sig);
	task_del(&l->tasks, t->tid);
	return true;
}

static void attach_finish(struct loop *l)
{
	struct itimerval off = { { 0, 0 }, { 0, 0 } };

	(void)l;
	setitimer(ITIMER_REAL, &off, NULL);
	sigaction(SIGALRM, &saved_alrm, NULL);
	deadline_ns = 0;
}

const struct ptrace_target attach_target = {
	.from_birth = false,
	.probe = attach_probe,
	.start = attach_start,
	.end = attach_end,
	.end_task = attach_end_task,
	.should_end = attach_should_end,
	.finish = attach_finish,
};
