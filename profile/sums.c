// SPDX-License-Identifier: MIT
/*
 * The sums a profile implies, checked as a saved run is loaded: every
 * total a renderer or diff makes of its counters (a counter over all
 * syscalls, a row's errno counts and latency buckets, a counter over all
 * sub-rows of a breakdown, a sampled run's call sites times N) must fit
 * in PROFILE_SUM_MAX.  That is the most a saved file can hold, and what
 * diff's signed changes need.  A live run stays far below it; a file
 * whose values are each in range but add up past it would print wrapped
 * totals, shares past 100% and verdicts turned around, so the loaders
 * refuse it instead, naming the value at which the sum passed the limit.
 */
#include <errno.h>
#include <string.h>
#include "profile/profile.h"

/* *sum += v unless that passes limit: false then, *sum unchanged. */
static bool add_within(uint64_t *sum, uint64_t v, uint64_t limit)
{
	if (*sum > limit || v > limit - *sum)
		return false;
	*sum += v;
	return true;
}

static int overflow(struct profile_overflow *o, const char *counter,
		    const struct profile_dim *dim, size_t index,
		    bool within_row)
{
	*o = (struct profile_overflow){ counter, dim, index, within_row };
	return -ERANGE;
}

/* Each summed counter of the rows, over all syscalls. */
static int row_sums(const struct profile *p, struct profile_overflow *o)
{
	const struct profile_counter *c;
	uint64_t sum;
	size_t i;

	for (c = profile_counters; c->name; c++) {
		for (sum = 0, i = 0; c->summed && i < p->nrows; i++)
			if (!add_within(&sum, profile_counter_get(&p->rows[i],
						c), PROFILE_SUM_MAX))
				return overflow(o, c->name, NULL, i, false);
	}
	return 0;
}

/* Within row i: its errno counts (with errno_other), its buckets. */
static int row_parts(const struct profile_row *r, size_t i,
		     struct profile_overflow *o)
{
	uint64_t errs = r->errno_other, n = 0;
	size_t k;

	for (k = 0; k < PROFILE_ERRNO_SLOTS; k++)
		if (!add_within(&errs, r->errnos[k].count, PROFILE_SUM_MAX))
			return overflow(o, "errnos", NULL, i, true);
	for (k = 0; k < PROFILE_HIST_BUCKETS; k++)
		if (!add_within(&n, r->hist[k], PROFILE_SUM_MAX))
			return overflow(o, "hist", NULL, i, true);
	return 0;
}

/* What a breakdown's sums are multiplied by when printed. */
static uint64_t scale_of(const struct profile *p,
			 const struct profile_breakdown *b)
{
	return b->dim == &profile_dim_callsite && p->stack_sample > 1 ?
	       p->stack_sample : 1;
}

/* Each summed counter of b's sub-rows, over all of them. */
static int sub_sums(const struct profile *p, const struct profile_breakdown *b,
		    struct profile_overflow *o)
{
	const struct profile_sub_counter *c;
	uint64_t sum, limit = PROFILE_SUM_MAX / scale_of(p, b);
	size_t i;

	for (c = profile_sub_counters; c->name; c++) {
		for (sum = 0, i = 0; c->summed && i < b->nsubs; i++)
			if (!add_within(&sum, profile_sub_counter_get(
						&b->subs[i], c), limit))
				return overflow(o, c->name, b->dim, i, false);
	}
	return 0;
}

int profile_check_sums(const struct profile *p, struct profile_overflow *o)
{
	const struct profile_breakdown *b;
	size_t i;

	if (row_sums(p, o) < 0)
		return -ERANGE;
	for (i = 0; i < p->nrows; i++)
		if (row_parts(&p->rows[i], i, o) < 0)
			return -ERANGE;
	for (b = p->breakdowns; b < p->breakdowns + PROFILE_DIMS_MAX &&
				b->dim; b++)
		if (sub_sums(p, b, o) < 0)
			return -ERANGE;
	return 0;
}

void profile_overflow_text(const struct profile *p,
			   const struct profile_overflow *o, char *buf,
			   size_t size)
{
	char label[PROFILE_ROW_LABEL_MAX];

	if (o->within_row)
		snprintf(buf, size, "the %s of '%s' add up to more than "
			 "2^63-1", strcmp(o->counter, "hist") ? "errno counts"
			 : "latency buckets", o->index < p->nrows ?
			 profile_row_label(&p->rows[o->index], label,
					   sizeof(label)) : "?");
	else if (!o->dim)
		snprintf(buf, size, "the %s of all syscalls add up to more "
			 "than 2^63-1", o->counter);
	else if (o->dim == &profile_dim_callsite && p->stack_sample > 1)
		snprintf(buf, size, "the %s of all %s rows, times stack_sample "
			 "%u, add up to more than 2^63-1", o->counter,
			 o->dim->name, p->stack_sample);
	else
		snprintf(buf, size, "the %s of all %s rows add up to more "
			 "than 2^63-1", o->counter, o->dim->name);
}
