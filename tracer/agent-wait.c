// SPDX-License-Identifier: MIT
/*
 * Processes the agent engine lets run detached (armed): iotrace cannot
 * wait for them, as they are neither traced nor (but the first) its
 * children.  So it keeps a pidfd of each and, once the stop loop has no
 * task left, waits on those: for them to exit, or for one to ask to be
 * traced again (the loop then runs again).  Told to stop (SIGTERM,
 * SIGHUP), it kills them through the pidfds, which never name another
 * process.  Past AGENT_DETACHED_MAX at once (or without a pidfd), a
 * process is not detached: it stays traced, its dispatched calls then
 * signal stops (slower, but none of its calls is lost when the run
 * would end without waiting for it).  So is one the watchdog has not
 * got (agent-watchdog.c): should iotrace die by a signal it cannot
 * catch, the watchdog kills what is detached, as PTRACE_O_EXITKILL
 * kills what is traced.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/agent-int.h"

static void forget(struct agent_run *ar, size_t i)
{
	close(ar->detached_fd[i]);
	ar->ndetached--;
	ar->detached_fd[i] = ar->detached_fd[ar->ndetached];
	ar->detached_pid[i] = ar->detached_pid[ar->ndetached];
}

/* Whether the process of a pidfd has exited (the pidfd is readable). */
static bool exited(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	return poll(&p, 1, 0) == 1;
}

/* Forgets the processes that have exited. */
static void prune(struct agent_run *ar)
{
	size_t i = 0;

	while (i < ar->ndetached) {
		if (exited(ar->detached_fd[i]))
			forget(ar, i);
		else
			i++;
	}
}

/* Whether /proc/PID/ns/NAME is iotrace's own namespace of that kind. */
static bool same_ns(pid_t pid, const char *name)
{
	struct stat mine, its;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/ns/%s", name);
	if (stat(path, &mine) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)pid, name);
	if (stat(path, &its) < 0)
		return false;
	return mine.st_dev == its.st_dev && mine.st_ino == its.st_ino;
}

/*
 * Whether the process could signal iotrace (kill(2)'s rule: its real or
 * effective uid is iotrace's real or saved one, or it has CAP_KILL),
 * from /proc/PID/status.  False when unknown.
 */
static bool can_signal_iotrace(pid_t pid)
{
	unsigned long ruid, euid, cap;
	bool uids = false, caps = false, ok = false;
	uid_t r, e, sv;
	char path[40], line[256];
	FILE *f;

	if (getresuid(&r, &e, &sv) < 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %lu %lu", &ruid, &euid) == 2) {
			uids = true;
			ok = ok || ruid == r || ruid == sv || euid == r ||
			     euid == sv;
		} else if (sscanf(line, "CapEff: %lx", &cap) == 1) {
			caps = true;
			ok = ok || (cap >> 5 & 1);	/* CAP_KILL */
		}
	}
	fclose(f);
	return uids && caps && ok;
}

/*
 * A process may run detached only when the ids its agent gives
 * (getpid, gettid) are the ones iotrace sees, so its pid and user
 * namespaces are iotrace's (unshare --pid --fork: its pid 1 is no pid of
 * iotrace's to seize), and when it can ask to be traced again (a
 * process running as nobody under a root iotrace cannot signal it).
 * Else it stays under ptrace, slower, its calls all counted.
 */
bool agent_may_detach(pid_t tgid)
{
	return same_ns(tgid, "pid") && same_ns(tgid, "user") &&
	       can_signal_iotrace(tgid);
}

bool agent_is_detached(const struct agent_run *ar, pid_t tgid)
{
	size_t i;

	for (i = 0; i < ar->ndetached; i++)
		if (ar->detached_pid[i] == tgid)
			return !exited(ar->detached_fd[i]);
	return false;
}

/*
 * The slots of processes that have exited are taken back when the loop
 * has nothing left to wait for (agent_wait_detached()), which the first
 * process, the loop's child, puts off while it lives.  So a pid tracked
 * may be that of a process that has exited and left it to this one,
 * which needs a slot (and the watchdog its pidfd) of its own; and once
 * every slot is taken, those of exited processes are freed here.
 */
bool agent_track(struct loop *l, pid_t tgid)
{
	struct agent_run *ar = l->agent;
	size_t i;
	int fd;

	for (i = 0; i < ar->ndetached; i++)
		if (ar->detached_pid[i] == tgid) {
			if (!exited(ar->detached_fd[i]))
				return true;
			forget(ar, i);
			break;
		}
	if (ar->ndetached == AGENT_DETACHED_MAX)
		prune(ar);
	if (ar->ndetached == AGENT_DETACHED_MAX)
		return false;
	/* Opened in a ptrace stop of the process: it is the one. */
	fd = (int)syscall(SYS_pidfd_open, tgid, 0);
	if (fd < 0)
		return false;
	if (!agent_watchdog_add(ar, fd)) {
		close(fd);
		return false;
	}
	ar->detached_pid[ar->ndetached] = tgid;
	ar->detached_fd[ar->ndetached++] = fd;
	return true;
}

void agent_untrack_all(struct agent_run *ar, bool kill)
{
	while (ar->ndetached) {
		if (kill)
			syscall(SYS_pidfd_send_signal, ar->detached_fd[0],
				SIGKILL, NULL, 0);
		forget(ar, 0);
	}
}

bool agent_wait_detached(struct loop *l)
{
	struct agent_run *ar = l->agent;
	struct pollfd p[AGENT_DETACHED_MAX];
	size_t i;

	for (;;) {
		if (tracer_fatal_signal) {
			agent_untrack_all(ar, true);
			return false;
		}
		/*
		 * A request the loop took in its last turn, or one since:
		 * the loop's last waitpid may have failed (no task) in the
		 * same turn as it seized the asker, which then waited in
		 * its stop while iotrace polled for its exit.
		 */
		agent_requests(l);
		if (l->tasks.count)
			return true;
		prune(ar);
		if (!ar->ndetached)
			return false;
		for (i = 0; i < ar->ndetached; i++) {
			p[i].fd = ar->detached_fd[i];
			p[i].events = POLLIN;
		}
		/* EINTR: a request; -k: stacks to unwind, now and then */
		poll(p, ar->ndetached, ar->shm->sites.sample ? 20 : -1);
	}
}
