// SPDX-License-Identifier: MIT
/*
 * The tasks that waited: how many threads made a call that waits for
 * others (wait4, poll, futex...: profile_row_waits()), so the header can
 * say "waited by 19 threads" of a Java run's idle pool, not only how
 * long.  A set of tids, open addressing with linear probing, grown at
 * half full, up to PROFILE_WAITERS_MAX tids: past that the count stops
 * growing (the JSON then says "at least").
 */
#include <errno.h>
#include <stdlib.h>
#include "profile/profile.h"

#define FIRST_CAP 64

static size_t slot_of(uint32_t tid, size_t cap)
{
	return (size_t)(tid * 2654435761u) & (cap - 1);
}

static void put(uint32_t *set, size_t cap, uint32_t tid)
{
	size_t i = slot_of(tid, cap);

	while (set[i] && set[i] != tid)
		i = (i + 1) & (cap - 1);
	set[i] = tid;
}

static int grow(struct profile *p)
{
	size_t cap = p->waiter_cap ? 2 * p->waiter_cap : FIRST_CAP, i;
	uint32_t *set = calloc(cap, sizeof(*set));

	if (!set)
		return -ENOMEM;
	for (i = 0; i < p->waiter_cap; i++)
		if (p->waiters[i])
			put(set, cap, p->waiters[i]);
	free(p->waiters);
	p->waiters = set;
	p->waiter_cap = cap;
	return 0;
}

int profile_note_waiter(struct profile *p, pid_t tid)
{
	size_t i;

	if (tid <= 0 || p->wait_tasks >= PROFILE_WAITERS_MAX)
		return 0;
	if (2 * (p->wait_tasks + 1) > p->waiter_cap && grow(p) < 0)
		return -ENOMEM;
	i = slot_of((uint32_t)tid, p->waiter_cap);
	while (p->waiters[i] && p->waiters[i] != (uint32_t)tid)
		i = (i + 1) & (p->waiter_cap - 1);
	if (!p->waiters[i]) {
		p->waiters[i] = (uint32_t)tid;
		p->wait_tasks++;
	}
	return 0;
}

void profile_waiters_release(struct profile *p)
{
	free(p->waiters);
	p->waiters = NULL;
	p->waiter_cap = 0;
}
