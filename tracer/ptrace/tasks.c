// SPDX-License-Identifier: MIT
/*
 * The table of traced tasks, keyed by tid: open addressing with linear
 * probing and backward-shift deletion, so no tombstones pile up in a run
 * that forks thousands of short-lived children.  It grows at half full and
 * shrinks when an eighth full, so its memory follows the number of live
 * tasks, never the number of syscalls.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

#define TASK_TABLE_MIN 16

static size_t slot_of(const struct task_table *tt, pid_t tid)
{
	/* Fibonacci hashing: consecutive tids spread over the table. */
	return ((uint32_t)tid * 2654435769u) & (tt->cap - 1);
}

void task_table_init(struct task_table *tt)
{
	tt->slots = NULL;
	tt->cap = 0;
	tt->count = 0;
}

void task_table_release(struct task_table *tt)
{
	free(tt->slots);
	task_table_init(tt);
}

static void insert_slot(struct task_table *tt, const struct task *t)
{
	size_t i = slot_of(tt, t->tid);

	while (tt->slots[i].tid)
		i = (i + 1) & (tt->cap - 1);
	tt->slots[i] = *t;
}

static int resize(struct task_table *tt, size_t cap)
{
	struct task *old = tt->slots;
	size_t old_cap = tt->cap, i;

	tt->slots = calloc(cap, sizeof(*tt->slots));
	if (!tt->slots) {
		tt->slots = old;
		return -1;
	}
	tt->cap = cap;
	for (i = 0; i < old_cap; i++)
		if (old[i].tid)
			insert_slot(tt, &old[i]);
	free(old);
	return 0;
}

struct task *task_find(struct task_table *tt, pid_t tid)
{
	size_t i;

	if (!tt->cap)
		return NULL;
	for (i = slot_of(tt, tid); tt->slots[i].tid; i = (i + 1) & (tt->cap - 1))
		if (tt->slots[i].tid == tid)
			return &tt->slots[i];
	return NULL;
}

struct task *task_get(struct task_table *tt, pid_t tid)
{
	struct task *t = task_find(tt, tid), fresh = { .tid = tid };

	if (t)
		return t;
	if ((tt->count + 1) * 2 > tt->cap &&
	    resize(tt, tt->cap ? tt->cap * 2 : TASK_TABLE_MIN) < 0)
		return NULL;
	insert_slot(tt, &fresh);
	tt->count++;
	return task_find(tt, tid);
}

void task_del(struct task_table *tt, pid_t tid)
{
	struct task *t = task_find(tt, tid);
	size_t hole, i, home, mask = tt->cap - 1;

	if (!t)
		return;
	hole = (size_t)(t - tt->slots);
	tt->slots[hole].tid = 0;
	tt->count--;
	/* Shift back entries of the same probe run so lookups stay correct. */
	for (i = (hole + 1) & mask; tt->slots[i].tid; i = (i + 1) & mask) {
		home = slot_of(tt, tt->slots[i].tid);
		if (((i - home) & mask) >= ((i - hole) & mask)) {
			tt->slots[hole] = tt->slots[i];
			tt->slots[i].tid = 0;
			hole = i;
		}
	}
	if (tt->cap > TASK_TABLE_MIN && tt->count * 8 < tt->cap)
		resize(tt, tt->cap / 2);
}

/*
 * A number in /proc/TID/status ("Tgid", "Seccomp_filters"), read at rare
 * moments (a task's first stop, a filter load), never per stop.  The
 * name of the task is escaped there, so a field's line cannot be forged.
 */
/* The text after "FIELD:" in /proc/TID/status, in buf; NULL if none. */
static const char *status_field(pid_t tid, const char *field, char *buf,
				size_t size)
{
	char path[40], key[48];
	const char *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	snprintf(key, sizeof(key), "\n%s:", field);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	p = strstr(buf, key);
	return p ? p + strlen(key) : NULL;
}

long task_status_field(pid_t tid, const char *field, long missing)
{
	char buf[4096];
	const char *p = status_field(tid, field, buf, sizeof(buf));

	return p ? strtol(p, NULL, 10) : missing;
}

uint64_t task_caught(pid_t tid)
{
	char buf[4096];
	const char *p = status_field(tid, "SigCgt", buf, sizeof(buf));

	return p ? strtoull(p, NULL, 16) : ~0ull;
}

pid_t task_ns_tid(pid_t tid)
{
	char buf[4096], *end;
	const char *p = status_field(tid, "NSpid", buf, sizeof(buf));
	long id = tid, v;

	while (p) {
		v = strtol(p, &end, 10);
		if (end == p)
			break;
		id = v;
		p = end;
	}
	return (pid_t)id;
}

uint64_t task_auxv(pid_t tid, uint64_t type)
{
	uint64_t av[2 * 64];
	char path[32];
	ssize_t n;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, av, sizeof(av));
	close(fd);
	for (i = 0; n > 0 && i + 1 < (size_t)n / 8; i += 2)
		if (av[i] == type)
			return av[i + 1];
	return 0;
}
