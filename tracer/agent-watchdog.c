// SPDX-License-Identifier: MIT
/*
 * The agent engine's watchdog: nothing the run started may outlive
 * iotrace, even killed by a signal it cannot catch.  Traced tasks die
 * with it (PTRACE_O_EXITKILL); a process the agent runs detached
 * (agent-wait.c) is not traced, so a small process of iotrace's holds it:
 * iotrace hands it a pidfd of each process before it detaches the first
 * of its tasks, and when iotrace dies before it said the run is over, the
 * watchdog SIGKILLs every process it holds, then exits.
 *
 * Pidfds, never pids: the watchdog gets a duplicate of iotrace's own
 * pidfd of each process (SCM_RIGHTS over a socket pair), opened while a
 * task of it is in a ptrace stop, so no pid it reads could name another
 * process since (pid_max is 32768 on many systems; a pid re-read at the
 * end could have been reused by then).  It learns that iotrace died from
 * a pidfd of iotrace, inherited through the fork, not from the socket's
 * end of file alone: a copy of iotrace's end left in a child (a built-in
 * workload runs in a fork of iotrace) cannot keep it waiting.
 *
 * It is forked twice, before the command (so it is not iotrace's child:
 * the stop loop's waitpid(-1) neither reaps it nor waits for it), in a
 * session of its own with every signal blocked (a terminal's Ctrl-C,
 * Ctrl-Z or hangup cannot end or stop it), its directory /, and no
 * descriptor but its two: not the terminal's, not the command's.  It is
 * never traced, counted or reported.  Without it (a fork failed), no
 * process is detached: armed tasks stay traced (slower, still counted).
 * iotrace as the init of a pid namespace needs none: its death kills
 * the namespace.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/agent-int.h"

/*
 * Pidfds held at once.  iotrace forgets a process only once it has
 * exited, and tracks AGENT_DETACHED_MAX at most, so after the watchdog
 * drops those that exited it holds AGENT_DETACHED_MAX live ones at most.
 */
#define WATCHDOG_MAX (2 * AGENT_DETACHED_MAX)

enum { MSG_READY = 'R', MSG_TRACK = 'T', MSG_QUIT = 'Q' };
enum { TOOK, QUIT, GONE, NONE };	/* what take() found */

static int held[WATCHDOG_MAX];
static size_t nheld;
static uint32_t *tracer_pid;	/* the counters' (inherited mapping) */

/* Closes the pidfds of processes that have exited: room for more. */
static void drop_exited(void)
{
	struct pollfd p[WATCHDOG_MAX];
	size_t i, n = 0;

	for (i = 0; i < nheld; i++) {
		p[i].fd = held[i];
		p[i].events = POLLIN;
	}
	if (poll(p, nheld, 0) <= 0)
		return;
	for (i = 0; i < nheld; i++)
		if (p[i].revents)
			close(held[i]);
		else
			held[n++] = held[i];
	nheld = n;
}

static void hold(int fd)
{
	if (nheld == WATCHDOG_MAX)
		drop_exited();
	if (nheld < WATCHDOG_MAX)
		held[nheld++] = fd;
	else
		close(fd);	/* cannot happen: see WATCHDOG_MAX */
}

/* One message from iotrace: a pidfd to hold, the end, or none yet. */
static int take(int sock, int flags)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct msghdr m = { 0 };
	struct cmsghdr *h;
	char kind = 0;
	struct iovec v = { &kind, 1 };
	ssize_t n;
	int fd;

	m.msg_iov = &v;
	m.msg_iovlen = 1;
	m.msg_control = c.buf;
	m.msg_controllen = sizeof(c.buf);
	n = recvmsg(sock, &m, flags | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? NONE : GONE;
	if (n == 0)
		return GONE;
	for (h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
		if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
		    h->cmsg_len == CMSG_LEN(sizeof(int))) {
			memcpy(&fd, CMSG_DATA(h), sizeof(fd));
			hold(fd);
		}
	return kind == MSG_QUIT ? QUIT : TOOK;
}

/*
 * iotrace is gone without a word: every process it detached goes.  First
 * the agents stop signalling its pid (attach_me(), sites.c), which may
 * soon be another process's.
 */
static void __attribute__((noreturn)) kill_all(void)
{
	size_t i;

	__atomic_store_n(tracer_pid, 0, __ATOMIC_RELEASE);
	for (i = 0; i < nheld; i++)
		syscall(SYS_pidfd_send_signal, held[i], SIGKILL, NULL, 0);
	_exit(0);
}

/* Every descriptor goes but a and b (in any order). */
static void close_all_but(int a, int b)
{
	int lo = a < b ? a : b, hi = a < b ? b : a;

	if (lo > 0)
		syscall(SYS_close_range, 0, lo - 1, 0);
	if (hi > lo + 1)
		syscall(SYS_close_range, lo + 1, hi - 1, 0);
	syscall(SYS_close_range, hi + 1, ~0U, 0);
}

/* Out of the terminal's and the command's way (see the top). */
static void detach_self(int sock, int parent)
{
	struct rlimit rl;
	sigset_t all;

	setsid();
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (chdir("/") < 0)
		_exit(1);	/* no watchdog: nothing detaches */
	close_all_but(sock, parent);
	/* room for WATCHDOG_MAX pidfds, whatever iotrace's limit */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/*
 * The watchdog: pidfds from sock until iotrace says QUIT (exit, no kill)
 * or is gone (its pidfd parent readable, or sock's end of file): what
 * iotrace sent before it died is taken first, then every process held is
 * killed.  Only async-signal-safe calls: a fork of iotrace.
 */
static void __attribute__((noreturn)) watchdog_main(int sock, int parent)
{
	struct pollfd p[2] = { { sock, POLLIN, 0 }, { parent, POLLIN, 0 } };
	char ready = MSG_READY;
	int r;

	/* iotrace killed as it forked: gone at once */
	if (poll(&p[1], 1, 0) != 0)
		_exit(0);
	detach_self(sock, parent);
	if (send(sock, &ready, 1, MSG_NOSIGNAL) != 1)
		_exit(1);
	for (;;) {
		if (poll(p, 2, -1) < 0)
			continue;
		if (p[0].revents) {
			r = take(sock, 0);
			if (r == QUIT)
				_exit(0);
			if (r == GONE)
				kill_all();
			continue;
		}
		if (!p[1].revents)
			continue;
		while ((r = take(sock, MSG_DONTWAIT)) == TOOK)
			;
		if (r == QUIT)
			_exit(0);
		kill_all();
	}
}

/*
 * Forks the watchdog through a child that exits at once (so it is
 * init's, or a subreaper's, not iotrace's) and waits for it to say it is
 * ready; closes sv[1] (-1 then).  0, or -errno: no watchdog.  Should
 * iotrace die meanwhile, that child dies with it, and a watchdog forked
 * already exits before anything else.
 */
static int spawn(int sv[2], int self)
{
	pid_t pid, me = getpid();
	ssize_t n;
	char ready;
	int status;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* killed with iotrace: no watchdog forked for a dead one */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != me)
			_exit(0);
		close(sv[0]);
		if (fork() == 0)
			watchdog_main(sv[1], self);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(sv[1]);
	sv[1] = -1;
	while ((n = recv(sv[0], &ready, 1, 0)) < 0 && errno == EINTR)
		;
	return n == 1 && ready == MSG_READY ? 0 : -ECHILD;
}

void agent_watchdog_start(struct agent_run *ar)
{
	int sv[2], self;

	ar->watchdog_fd = -1;
	if (getpid() == 1)
		return;		/* a namespace's init: see the top */
	tracer_pid = &ar->shm->tracer_pid;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return;
	self = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (self >= 0 && spawn(sv, self) == 0) {
		ar->watchdog_fd = sv[0];
		close(self);
		return;
	}
	if (self >= 0)
		close(self);
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
}

bool agent_watchdog_add(struct agent_run *ar, int pidfd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	char kind = MSG_TRACK;
	struct iovec v = { &kind, 1 };
	struct msghdr m = { 0 };

	if (ar->watchdog_fd < 0)
		return getpid() == 1;
	memset(&c, 0, sizeof(c));
	m.msg_iov = &v;
	m.msg_iovlen = 1;
	m.msg_control = c.buf;
	m.msg_controllen = sizeof(c.buf);
	c.h.cmsg_level = SOL_SOCKET;
	c.h.cmsg_type = SCM_RIGHTS;
	c.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&c.h), &pidfd, sizeof(pidfd));
	/* Never waits: a watchdog that does not read leaves it traced. */
	return sendmsg(ar->watchdog_fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == 1;
}

/*
 * The run is over: the watchdog exits without killing; iotrace waits
 * (a second at most) until it has, so it does not outlive iotrace.
 */
void agent_watchdog_stop(struct agent_run *ar)
{
	struct pollfd p = { ar->watchdog_fd, POLLIN, 0 };
	char quit = MSG_QUIT;

	if (ar->watchdog_fd < 0)
		return;
	if (send(ar->watchdog_fd, &quit, 1, MSG_NOSIGNAL) == 1)
		while (poll(&p, 1, 1000) == 1 &&
		       recv(ar->watchdog_fd, &quit, 1, MSG_DONTWAIT) > 0)
			;
	close(ar->watchdog_fd);
	ar->watchdog_fd = -1;
}
