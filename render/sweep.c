// SPDX-License-Identifier: MIT
/*
 * Sweep results: one point per swept value.  A point's wall time, its
 * spread and its throughput come from untraced runs (the baseline of the
 * point's profile, median of --repeat), because tracing slows short
 * calls many times more than long ones and would exaggerate every
 * difference; its calls and times come from the one traced run.  A
 * point is derived from a profile only (never from ptrace), so a sweep
 * can be rebuilt from the saved per-point JSON profiles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

/* The data syscall the run spent most time in: what the sweep is about. */
static const struct profile_row *dominant_row(const struct profile *p)
{
	const struct profile_row *best = NULL;
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		const struct profile_row *r = &p->rows[i];

		if (r->io_arg == IO_NONE || !r->calls)
			continue;
		if (!best || r->time_ns > best->time_ns ||
		    (r->time_ns == best->time_ns && r->calls > best->calls))
			best = r;
	}
	return best;
}

/*
 * One-fd data calls that move data out of the process; the rest read.
 * By name, whatever the personality (i386's write writes).
 */
static bool writes(const struct profile_row *r)
{
	static const char *const out[] = {
		"write", "pwrite64", "writev", "pwritev", "pwritev2",
		"sendto", "sendmsg", "sendmmsg", "vmsplice",
	};
	char buf[PROFILE_NAME_MAX];
	const char *name = profile_row_name(r, buf, sizeof(buf));
	size_t i;

	for (i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (!strcmp(name, out[i]))
			return true;
	return false;
}

enum { USED_AS_SRC = 1, USED_AS_DST = 2 };

/* The source and destination file of a sub-row; NONE where there is none. */
static void io_ends(const struct profile *p, const struct profile_sub *io,
		    uint32_t *src, uint32_t *dst)
{
	*src = *dst = PROFILE_FILE_NONE;
	if (io->key2 != PROFILE_FILE_NONE) {
		*src = io->key;
		*dst = io->key2;
	} else if (writes(&p->rows[io->row])) {
		*dst = io->key;
	} else {
		*src = io->key;
	}
}

/* A pipe both written and read by the run: its bytes pass through. */
static bool internal(const struct profile_breakdown *b,
		     const unsigned char *use, uint32_t f)
{
	return f < b->nkeys && profile_file_at(b, f)->kind == FD_PIPE &&
	       use[f] == (USED_AS_SRC | USED_AS_DST);
}

uint64_t sweep_bytes_delivered(const struct profile *p)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_row *d = dominant_row(p);
	uint64_t in = 0, out = 0;
	unsigned char *use;
	uint32_t src, dst;
	size_t i;

	use = b->nsubs ? calloc(b->nkeys + 1, 1) : NULL;
	if (!use)
		return d ? d->bytes_done : 0;
	for (i = 0; i < b->nsubs; i++) {
		io_ends(p, &b->subs[i], &src, &dst);
		if (src < b->nkeys)
			use[src] |= USED_AS_SRC;
		if (dst < b->nkeys)
			use[dst] |= USED_AS_DST;
	}
	for (i = 0; i < b->nsubs; i++) {
		io_ends(p, &b->subs[i], &src, &dst);
		if (src != PROFILE_FILE_NONE && !internal(b, use, src))
			in += b->subs[i].bytes_done;
		if (dst != PROFILE_FILE_NONE && !internal(b, use, dst))
			out += b->subs[i].bytes_done;
	}
	free(use);
	return in > out ? in : out;
}

/* Wall figures: the untraced runs when there were any. */
static void point_wall(struct sweep_point *pt, const struct profile *p)
{
	const struct profile_baseline *b = &p->baseline;

	pt->runs = (int)b->runs;
	pt->wall_ns = b->runs ? b->wall_ns : p->wall_ns;
	pt->wall_min_ns = b->runs ? b->wall_min_ns : p->wall_ns;
	pt->wall_max_ns = b->runs ? b->wall_max_ns : p->wall_ns;
}

void sweep_point_from_profile(struct sweep_point *pt, const struct profile *p)
{
	const struct profile_row *d = dominant_row(p);
	struct profile_totals t;

	profile_totals(p, &t);
	point_wall(pt, p);
	pt->timed = t.timed > 0;
	pt->syscall_ns = t.time_ns;
	pt->calls = t.calls;
	pt->status = p->exit.signal ? 128 + p->exit.signal : p->exit.code;
	pt->failed = pt->status != 0;
	pt->bytes = sweep_bytes_delivered(p);
	if (d) {
		profile_row_label(d, pt->dominant, sizeof(pt->dominant));
		pt->dominant_calls = d->calls;
		pt->dominant_timed = d->timed;
		pt->dominant_ns = d->time_ns;
	}
}

void sweep_point_release(struct sweep_point *pt)
{
	findings_release(&pt->findings);
}

const char *sweep_value_label(const struct sweep_point *pt)
{
	return pt->value[0] ? pt->value : "(none)";
}

double sweep_point_mbps(const struct sweep_point *pt)
{
	if (pt->failed || !pt->wall_ns)
		return -1;
	return (double)pt->bytes / ((double)pt->wall_ns / 1e9) / 1e6;
}

/* Whether a beats b: higher throughput, or a shorter wall if no bytes. */
static bool better(const struct sweep_point *a, const struct sweep_point *b,
		   bool by_bytes)
{
	if (by_bytes)
		return sweep_point_mbps(a) > sweep_point_mbps(b);
	return a->wall_ns < b->wall_ns;
}

static bool by_bytes(const struct sweep *s)
{
	size_t i;

	for (i = 0; i < s->npoints; i++)
		if (s->points[i].bytes && !s->points[i].failed)
			return true;
	return false;
}

size_t sweep_best(const struct sweep *s)
{
	bool bytes = by_bytes(s);
	size_t i, best = s->npoints;

	for (i = 0; i < s->npoints; i++) {
		if (s->points[i].failed)
			continue;
		if (best == s->npoints ||
		    better(&s->points[i], &s->points[best], bytes))
			best = i;
	}
	return best;
}

/*
 * A point's spread in the unit it is judged by: MB/s from its slowest
 * and fastest runs, or the walls themselves.  Either way lo <= hi.
 */
static void spread(const struct sweep_point *pt, bool bytes, double *lo,
		   double *hi)
{
	double b = (double)pt->bytes / 1e6;

	if (!bytes) {
		*lo = (double)pt->wall_min_ns;
		*hi = (double)pt->wall_max_ns;
		return;
	}
	*lo = pt->wall_max_ns ? b / ((double)pt->wall_max_ns / 1e9) : 0;
	*hi = pt->wall_min_ns ? b / ((double)pt->wall_min_ns / 1e9) : *lo;
}

bool sweep_tied(const struct sweep *s, const struct sweep_judgement *j,
		size_t i)
{
	double alo, ahi, blo, bhi;

	if (j->verdict == SWEEP_NONE || s->points[i].failed)
		return false;
	if (i == j->best)
		return true;
	spread(&s->points[j->best], j->by_bytes, &alo, &ahi);
	spread(&s->points[i], j->by_bytes, &blo, &bhi);
	return alo <= bhi && blo <= ahi;
}

/*
 * With one run per point there is no spread, and a best marker would be
 * a coin flip read as a result: say so instead.  A lone point that did
 * not fail is best, there being nothing to confuse it with.
 */
void sweep_judge(const struct sweep *s, struct sweep_judgement *j)
{
	size_t i, alive = 0;
	bool one_run = false;

	j->by_bytes = by_bytes(s);
	j->best = sweep_best(s);
	j->nties = 0;
	j->verdict = j->best == s->npoints ? SWEEP_NONE : SWEEP_BEST;
	if (j->verdict == SWEEP_NONE)
		return;
	for (i = 0; i < s->npoints; i++) {
		if (s->points[i].failed)
			continue;
		alive++;
		one_run |= s->points[i].runs < 2;
		j->nties += sweep_tied(s, j, i);
	}
	if (alive > 1 && one_run)
		j->verdict = SWEEP_ONE_RUN;
	else if (j->nties > 1)
		j->verdict = SWEEP_TIE;
}
