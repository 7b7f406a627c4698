// SPDX-License-Identifier: MIT
/*
 * Pairing the sub-rows (per file today; call site and engine next) of
 * two runs, for every dimension alike: a sub-row of BASE and one of NEW
 * are the same when their syscalls share a diff_row and their keys are
 * the same by the key type's cmp (key indexes are an accident of the
 * order each run met them).  Only pairs whose counts changed (calls,
 * errors, bytes moved) are kept, most changed calls first; times always
 * differ between runs and are not a reason to show a row.  A dimension
 * is compared only when both runs have sub-rows in it: an strace -c
 * table, or a file saved before the dimension existed, has none.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"

/* The diff_row whose BASE (or NEW) row is r, or NULL. */
static const struct diff_row *row_of(const struct diff *d,
				     const struct profile_row *r, bool base)
{
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if ((base ? d->rows[i].base : d->rows[i].new) == r)
			return &d->rows[i];
	return NULL;
}

/* The sub-row of `to` with s's keys (s is from `from`) and row `row`. */
static const struct profile_sub *match(const struct profile_breakdown *from,
				       const struct profile_sub *s,
				       const struct profile_breakdown *to,
				       const struct profile *p,
				       const struct profile_row *row)
{
	int k, k2 = -1;

	if (!row)
		return NULL;
	k = profile_key_find(to, profile_key(from, s->key));
	if (s->key2 != PROFILE_KEY_NONE)
		k2 = profile_key_find(to, profile_key(from, s->key2));
	if (k < 0 || (s->key2 != PROFILE_KEY_NONE && k2 < 0))
		return NULL;
	return profile_sub_find(to, (uint32_t)k,
				k2 < 0 ? PROFILE_KEY_NONE : (uint32_t)k2,
				(uint32_t)(row - p->rows));
}

static bool changed(const struct profile_sub *a, const struct profile_sub *b)
{
	return !a || !b || a->calls != b->calls || a->errors != b->errors ||
	       a->bytes_done != b->bytes_done;
}

static void add(struct diff *d, const struct profile_breakdown *bb,
		const struct profile_breakdown *bn, const struct diff_row *r,
		const struct profile_sub *base, const struct profile_sub *new)
{
	d->subs[d->nsubs] = (struct diff_sub){ bb, bn, r->base, r->new,
					       base, new, d->nsubs };
	d->nsubs++;
}

/* Pairs of one dimension: BASE's sub-rows, then those only in NEW. */
static void pair(struct diff *d, const struct profile_breakdown *bb,
		 const struct profile_breakdown *bn)
{
	const struct profile_sub *s, *t;
	const struct diff_row *r;

	for (s = bb->subs; s < bb->subs + bb->nsubs; s++) {
		r = row_of(d, &d->base->rows[s->row], true);
		if (!r)
			continue;
		t = match(bb, s, bn, d->new, r->new);
		if (changed(s, t))
			add(d, bb, bn, r, s, t);
	}
	for (t = bn->subs; t < bn->subs + bn->nsubs; t++) {
		r = row_of(d, &d->new->rows[t->row], false);
		if (r && !match(bn, t, bb, d->base, r->base))
			add(d, bb, bn, r, NULL, t);
	}
}

static uint64_t calls_of(const struct profile_sub *s)
{
	return s ? s->calls : 0;
}

static uint64_t distance(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/* Largest change in calls first; ties in the order they were found. */
static int cmp_subs(const void *pa, const void *pb)
{
	const struct diff_sub *a = pa, *b = pb;
	uint64_t ca = distance(calls_of(a->base), calls_of(a->new));
	uint64_t cb = distance(calls_of(b->base), calls_of(b->new));

	if (ca != cb)
		return ca < cb ? 1 : -1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int diff_build_subs(struct diff *d)
{
	const struct profile_breakdown *bb, *bn;
	size_t n = 0;

	for (bb = d->base->breakdowns; bb < d->base->breakdowns +
		     PROFILE_DIMS_MAX && bb->dim; bb++)
		n += bb->nsubs + profile_breakdown(d->new, bb->dim)->nsubs;
	d->subs = calloc(n + 1, sizeof(*d->subs));
	if (!d->subs)
		return -ENOMEM;
	for (bb = d->base->breakdowns; bb < d->base->breakdowns +
		     PROFILE_DIMS_MAX && bb->dim; bb++) {
		bn = profile_breakdown(d->new, bb->dim);
		if (bb->nsubs && bn->nsubs)
			pair(d, bb, bn);
	}
	qsort(d->subs, d->nsubs, sizeof(*d->subs), cmp_subs);
	return 0;
}

bool diff_sub_of(const struct diff_sub *s, const struct diff_row *r)
{
	return s->rbase == r->base && s->rnew == r->new;
}

void diff_sub_label(const struct diff_sub *s, char *buf, size_t size)
{
	const struct profile_breakdown *b = s->base ? s->bbase : s->bnew;
	char keys[2 * PROFILE_LABEL_MAX + 8];

	profile_sub_label(b, s->base ? s->base : s->new, keys, sizeof(keys));
	snprintf(buf, size, "%s %s", b->dim->name, keys);
}
