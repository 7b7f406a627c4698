// SPDX-License-Identifier: MIT
/*
 * What a traced process's file descriptors point at.  fd_describe() reads
 * /proc/TID/fd/N, /proc/TID/fdinfo/N and the file's stat (and, for files
 * on a block device, its logical block size from /sys) once; the fd cache
 * remembers the caller's id for each (task, fd) so that later calls on
 * the same fd cost one hash probe and no /proc read.  The cache forgets
 * an fd number when any traced task closes or replaces it, and a task's
 * fds (and its leader's) when it execs (close-on-exec) or its tid is
 * handed to a new child, in any personality: what a call does to fds is
 * its fact's fx (syscalls/systab.c); the ptrace engine's plan has those
 * calls stop (fd_mark_tracked(), tracer/ptrace/seccomp.c).  It is a
 * fixed-size set-associative table: memory is bounded, and a (task, fd)
 * pushed out is simply described again.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include "procfd/procfd.h"
#include "tracer/tracer.h"

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

struct fd_cache {
	struct fd_slot slots[FD_SETS][FD_WAYS];
	uint32_t gens[FD_GENS];
	uint32_t epoch;		/* bumped to forget everything at once */
	bool sees_all;				/* gets every syscall */
	unsigned next_way;			/* round-robin eviction */
};

struct fd_cache *fd_cache_new(uint32_t native_arch, bool sees_all)
{
	struct fd_cache *c = calloc(1, sizeof(*c));

	(void)native_arch;
	if (!c)
		return NULL;
	c->sees_all = sees_all;
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

/* What the call of an event does to fd tables, whatever its personality. */
static enum syscall_fx fx_of(const struct tracer_event *ev)
{
	int nr, pers = syscall_locate(ev->arch, ev->nr, &nr);
	const struct syscall_fact *f = syscall_fact(pers, nr);

	return f ? (enum syscall_fx)f->fx : FX_NONE;
}

void fd_cache_forget_all(struct fd_cache *c)
{
	c->epoch++;
}

void fd_cache_event(struct fd_cache *c, const struct tracer_event *ev)
{
	bool known = !(ev->flags & EVF_COUNT_ONLY);
	enum syscall_fx a = fx_of(ev);

	/* A failed close may still have freed the fd (EINTR): forget it. */
	if (a == FX_NONE || (known && ev->ret < 0 && a != FX_ARG0))
		return;
	switch (a) {
	case FX_RET:
		forget_returned(c, ev);
		break;
	case FX_ARG0:
		fd_cache_forget_fd(c, (int)ev->args[0]);
		break;
	case FX_ARG1:
		fd_cache_forget_fd(c, (int)ev->args[1]);
		break;
	case FX_RANGE:
		forget_range(c, (uint32_t)ev->args[0], (uint32_t)ev->args[1]);
		break;
	case FX_EXEC:
		/*
		 * Seen at its entry (-e trace= without execve), an exec from
		 * a thread other than the leader has that thread's tid, but
		 * the new program runs under the leader's, the group's id:
		 * forget both.
		 */
		fd_cache_forget_tid(c, ev->tid);
		if (ev->tgid > 0 && ev->tgid != ev->tid)
			fd_cache_forget_tid(c, ev->tgid);
		break;
	case FX_CHILD:
		if (!known)
			c->epoch++;
		else if (ev->ret > 0)
			fd_cache_forget_tid(c, (pid_t)ev->ret);
		break;
	case FX_FCNTL:
		if (ev->args[1] == F_DUPFD || ev->args[1] == F_DUPFD_CLOEXEC)
			forget_returned(c, ev);
		else if (ev->args[1] == F_SETFL)
			fd_cache_forget_fd(c, (int)ev->args[0]);
		break;
	case FX_NONE:
		break;
	}
}
