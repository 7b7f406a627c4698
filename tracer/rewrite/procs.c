// SPDX-License-Identifier: MIT
/*
 * The processes a fast path run has put its pool in (struct fast_proc),
 * and the code and counters they share by reference: a vfork child or
 * CLONE_VM process counts into its parent's page, a fork child gets its
 * own (fast.c, map.c).  The last process to let go unmaps them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "tracer/rewrite/fast-int.h"

struct fast_proc *fast_proc_find(struct fast_run *f, pid_t tgid)
{
	size_t i;

	for (i = 0; i < f->nproc; i++)
		if (f->proc[i].tgid == tgid)
			return &f->proc[i];
	return NULL;
}

struct fast_proc *fast_proc_add(struct fast_run *f, pid_t tgid)
{
	struct fast_proc *p;

	if (f->nproc == f->capproc) {
		size_t cap = f->capproc ? 2 * f->capproc : 16;

		p = realloc(f->proc, cap * sizeof(*p));
		if (!p)
			return NULL;
		f->proc = p;
		f->capproc = cap;
	}
	p = &f->proc[f->nproc++];
	memset(p, 0, sizeof(*p));
	p->tgid = tgid;
	return p;
}

void fast_proc_drop(struct fast_run *f, pid_t tgid)
{
	struct fast_proc *p = fast_proc_find(f, tgid);

	if (!p)
		return;
	fast_code_put(p->code);
	fast_counters_put(p->cnt);
	*p = f->proc[--f->nproc];
}

struct fast_code *fast_code_get(struct fast_code *c)
{
	if (c)
		c->refs++;
	return c;
}

void fast_code_put(struct fast_code *c)
{
	if (!c || --c->refs > 0)
		return;
	if (c->mem)
		munmap(c->mem, RW_POOL_CODE + FAST_ISLANDS);
	free(c->tramp);
	free(c);
}

struct fast_counters *fast_counters_get(struct fast_counters *c)
{
	if (c)
		c->refs++;
	return c;
}

void fast_counters_put(struct fast_counters *c)
{
	if (!c || --c->refs > 0)
		return;
	if (c->mem)
		munmap(c->mem, sizeof(*c->mem));
	free(c->folded);
	free(c);
}
