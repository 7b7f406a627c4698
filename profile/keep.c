// SPDX-License-Identifier: MIT
/*
 * A saved run narrowed to a syscall set (`iotrace report -e trace=SET`,
 * `iotrace diff -e ...`): the rows outside the set are dropped, with
 * their sub-rows in every breakdown, so every renderer (the table, its
 * total, the header, findings, sections, JSON) sees only the rows kept,
 * and totals are those rows' sums, as strace's table over -e trace= is.
 * What the run measured as a whole (its wall, stops, storage, the
 * untraced runs) stays: the set narrows the calls, not the run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"

#define DROPPED UINT32_MAX

/* The sub-rows of kept rows, renumbered, each key's list made again. */
static void keep_subs(struct profile_breakdown *b, const uint32_t *to)
{
	struct profile_sub *s;
	size_t i, n = 0;

	for (i = 0; i < b->nsubs; i++) {
		s = &b->subs[i];
		if (to[s->row] == DROPPED)
			continue;
		s->row = to[s->row];
		b->subs[n++] = *s;
	}
	b->nsubs = n;
	for (i = 0; i < b->nkeys; i++)
		b->first[i] = -1;
	/* In first-seen order, as profile_sub_get() linked them. */
	for (i = 0; i < n; i++) {
		b->subs[i].next = b->first[b->subs[i].key];
		b->first[b->subs[i].key] = (int32_t)i;
	}
}

/* "%file, then write": the run's own -e, then the one given now. */
static void note_expr(struct profile *p, const char *expr)
{
	char both[2 * sizeof(p->trace_expr) + 16];	/* cut to fit after */

	if (!expr || !expr[0])
		return;
	if (!p->trace_expr[0]) {
		profile_set_trace_expr(p, expr);
		return;
	}
	snprintf(both, sizeof(both), "%s, then %s", p->trace_expr, expr);
	profile_set_trace_expr(p, both);
}

int profile_keep(struct profile *p, const struct syscall_set *set,
		 const char *expr)
{
	uint32_t *to = malloc((p->nrows + 1) * sizeof(*to));
	bool waits_dropped = false;
	struct profile_row *r;
	size_t i, n = 0;

	if (!to)
		return -ENOMEM;
	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (!syscall_set_has_pers(set, r->pers, r->nr)) {
			waits_dropped |= r->calls && profile_row_waits(r);
			to[i] = DROPPED;
			continue;
		}
		to[i] = (uint32_t)n;
		if (n != i)
			p->rows[n] = *r;
		n++;
	}
	p->nrows = n;
	/* Rebuilt from the rows kept when next needed (rows.c). */
	free(p->index);
	p->index = NULL;
	for (i = 0; i < PROFILE_DIMS_MAX; i++)
		if (p->breakdowns[i].dim)
			keep_subs(&p->breakdowns[i], to);
	free(to);
	/* The threads that waited cannot be told for part of the waits. */
	if (waits_dropped)
		p->wait_tasks = 0;
	note_expr(p, expr);
	return 0;
}
