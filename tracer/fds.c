// SPDX-License-Identifier: MIT
/*
 * What a traced process's file descriptors point at.  fd_describe() reads
 * /proc/TID/fd/N, /proc/TID/fdinfo/N and the file's stat (and, for files
 * on a block device, its logical block size from /sys) once; the fd cache
 * remembers the caller's id for each (task, fd) so that later calls on
 * the same fd cost one hash probe and no /proc read.  The cache forgets
 * an fd number when any traced task closes or replaces it, and a task's
 * fds when it execs (close-on-exec) or its tid is handed to a new child.
 * It is a fixed-size set-associative table: memory is bounded, and a
 * (task, fd) pushed out is simply described again.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <seccomp.h>
#include <stdlib.h>
#include "tracer/tracer-int.h"

#define FD_SETS 1024		/* power of two */
#define FD_WAYS 4
#define FD_GENS 1024		/* fds share a generation modulo this */

struct fd_slot {
	pid_t tid;		/* 0: empty */
	int fd;
	uint32_t gen;		/* gens[fd % FD_GENS] when stored */
	uint32_t epoch;		/* the cache's epoch when stored */
	int id;
};

/* What a syscall's successful return does to the fd table. */
enum fd_action {
	FA_NONE,
	FA_RET,		/* returns a new fd: that number was reused */
	FA_ARG0,	/* closes or changes the fd in arg 0 */
	FA_ARG1,	/* replaces the fd in arg 1 (dup2, dup3) */
	FA_RANGE,	/* closes args 0..1 (close_range) */
	FA_EXEC,	/* closes the task's close-on-exec fds */
	FA_CHILD,	/* returns a new tid: forget what that tid had */
	FA_FCNTL,	/* F_DUPFD* returns an fd, F_SETFL changes flags */
};

struct fd_cache {
	struct fd_slot slots[FD_SETS][FD_WAYS];
	uint32_t gens[FD_GENS];
	uint32_t epoch;		/* bumped to forget everything at once */
	uint8_t action[SYSCALL_SET_MAX];	/* native syscall nr -> FA_* */
	uint32_t native_arch;
	bool sees_all;				/* gets every syscall */
	unsigned next_way;			/* round-robin eviction */
};

static const struct {
	const char *name;
	enum fd_action action;
} fd_actions[] = {
	{ "close", FA_ARG0 },		{ "close_range", FA_RANGE },
	{ "dup2", FA_ARG1 },		{ "dup3", FA_ARG1 },
	{ "fcntl", FA_FCNTL },		{ "execve", FA_EXEC },
	{ "execveat", FA_EXEC },	{ "fork", FA_CHILD },
	{ "vfork", FA_CHILD },		{ "clone", FA_CHILD },
	{ "clone3", FA_CHILD },		{ "open", FA_RET },
	{ "openat", FA_RET },		{ "openat2", FA_RET },
	{ "creat", FA_RET },		{ "dup", FA_RET },
	{ "socket", FA_RET },		{ "accept", FA_RET },
	{ "accept4", FA_RET },		{ "eventfd", FA_RET },
	{ "eventfd2", FA_RET },		{ "signalfd", FA_RET },
	{ "signalfd4", FA_RET },	{ "timerfd_create", FA_RET },
	{ "epoll_create", FA_RET },	{ "epoll_create1", FA_RET },
	{ "memfd_create", FA_RET },	{ "inotify_init", FA_RET },
	{ "inotify_init1", FA_RET },	{ "fanotify_init", FA_RET },
	{ "pidfd_open", FA_RET },	{ "pidfd_getfd", FA_RET },
	{ "open_by_handle_at", FA_RET },	{ "userfaultfd", FA_RET },
	{ "perf_event_open", FA_RET },	{ "io_uring_setup", FA_RET },
	{ "open_tree", FA_RET },	{ "fsopen", FA_RET },
	{ "fsmount", FA_RET },		{ "fspick", FA_RET },
};

/*
 * Only the calls that free or change an fd need to be seen: a number
 * comes back from open, socket or dup only after one of them freed it.
 */
void fd_mark_tracked(uint8_t *actions, uint32_t arch)
{
	size_t i;
	int nr;

	for (i = 0; i < sizeof(fd_actions) / sizeof(fd_actions[0]); i++) {
		if (fd_actions[i].action == FA_RET)
			continue;
		nr = seccomp_syscall_resolve_name_arch(arch, fd_actions[i].name);
		if (nr < 0 || nr >= SYSCALL_SET_MAX || actions[nr] != ACT_SKIP)
			continue;
		/* Only a new task's tid needs the return value. */
		actions[nr] = fd_actions[i].action == FA_CHILD ? ACT_TRACK :
			      ACT_TRACK_ENTRY;
	}
}

struct fd_cache *fd_cache_new(uint32_t native_arch, bool sees_all)
{
	struct fd_cache *c = calloc(1, sizeof(*c));
	size_t i;
	int nr;

	if (!c)
		return NULL;
	c->native_arch = native_arch;
	c->sees_all = sees_all;
	for (i = 0; i < sizeof(fd_actions) / sizeof(fd_actions[0]); i++) {
		nr = syscall_number(fd_actions[i].name);
		if (nr >= 0 && nr < SYSCALL_SET_MAX)
			c->action[nr] = (uint8_t)fd_actions[i].action;
	}
	return c;
}

void fd_cache_free(struct fd_cache *c)
{
	free(c);
}

static struct fd_slot *set_of(struct fd_cache *c, pid_t tid, int fd)
{
	uint32_t h = (uint32_t)tid * 2654435761u ^ (uint32_t)fd * 40503u;

	return c->slots[(h ^ h >> 16) & (FD_SETS - 1)];
}

static uint32_t gen_of(const struct fd_cache *c, int fd)
{
	return c->gens[(unsigned)fd % FD_GENS];
}

static bool valid(const struct fd_cache *c, const struct fd_slot *s)
{
	return s->tid && s->gen == gen_of(c, s->fd) && s->epoch == c->epoch;
}

int fd_cache_lookup(struct fd_cache *c, pid_t tid, int fd)
{
	struct fd_slot *s = set_of(c, tid, fd);
	unsigned w;

	if (!c->sees_all)
		return -1;
	for (w = 0; w < FD_WAYS; w++)
		if (s[w].tid == tid && s[w].fd == fd && valid(c, &s[w]))
			return s[w].id;
	return -1;
}

void fd_cache_store(struct fd_cache *c, pid_t tid, int fd, int id)
{
	struct fd_slot *s = set_of(c, tid, fd);
	unsigned w;

	for (w = 0; w < FD_WAYS; w++)
		if ((s[w].tid == tid && s[w].fd == fd) || !valid(c, &s[w]))
			break;
	if (w == FD_WAYS)
		w = c->next_way++ % FD_WAYS;
	s[w] = (struct fd_slot){ tid, fd, gen_of(c, fd), c->epoch, id };
}

/* fd N of every task: tasks sharing a table (threads) see one close. */
void fd_cache_forget_fd(struct fd_cache *c, int fd)
{
	if (fd >= 0)
		c->gens[(unsigned)fd % FD_GENS]++;
}

void fd_cache_forget_tid(struct fd_cache *c, pid_t tid)
{
	size_t i, w;

	for (i = 0; i < FD_SETS; i++)
		for (w = 0; w < FD_WAYS; w++)
			if (c->slots[i][w].tid == tid)
				c->slots[i][w].tid = 0;
}

static void forget_range(struct fd_cache *c, uint64_t first, uint64_t last)
{
	uint64_t fd;

	if (last - first >= FD_GENS)
		last = first + FD_GENS - 1;
	for (fd = first; fd <= last && fd <= INT_MAX; fd++)
		fd_cache_forget_fd(c, (int)fd);
}

/*
 * The fd a call returned, forgotten; a call counted without an exit stop
 * has no return value, so then any fd may have changed: forget them all.
 */
static void forget_returned(struct fd_cache *c, const struct tracer_event *ev)
{
	if (ev->flags & EVF_COUNT_ONLY)
		c->epoch++;
	else
		fd_cache_forget_fd(c, (int)ev->ret);
}

void fd_cache_event(struct fd_cache *c, const struct tracer_event *ev)
{
	bool known = !(ev->flags & EVF_COUNT_ONLY);
	enum fd_action a;

	if (ev->arch != c->native_arch || ev->nr < 0 ||
	    ev->nr >= SYSCALL_SET_MAX)
		return;
	a = (enum fd_action)c->action[ev->nr];
	/* A failed close may still have freed the fd (EINTR): forget it. */
	if (a == FA_NONE || (known && ev->ret < 0 && a != FA_ARG0))
		return;
	switch (a) {
	case FA_RET:
		forget_returned(c, ev);
		break;
	case FA_ARG0:
		fd_cache_forget_fd(c, (int)ev->args[0]);
		break;
	case FA_ARG1:
		fd_cache_forget_fd(c, (int)ev->args[1]);
		break;
	case FA_RANGE:
		forget_range(c, (uint32_t)ev->args[0], (uint32_t)ev->args[1]);
		break;
	case FA_EXEC:
		fd_cache_forget_tid(c, ev->tid);
		break;
	case FA_CHILD:
		if (!known)
			c->epoch++;
		else if (ev->ret > 0)
			fd_cache_forget_tid(c, (pid_t)ev->ret);
		break;
	case FA_FCNTL:
		if (ev->args[1] == F_DUPFD || ev->args[1] == F_DUPFD_CLOEXEC)
			forget_returned(c, ev);
		else if (ev->args[1] == F_SETFL)
			fd_cache_forget_fd(c, (int)ev->args[0]);
		break;
	case FA_NONE:
		break;
	}
}
