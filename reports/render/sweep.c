// SPDX-License-Identifier: MIT
/*
 * Sweep results: one point per swept value, each the median of repeated
 * traced runs, summarised from their profiles.  A point is derived from a
 * profile only (never from ptrace), so a sweep can be rebuilt from the
 * saved per-point JSON profiles.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "reports/render/render.h"

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

void sweep_point_from_profile(struct sweep_point *pt, const struct profile *p)
{
	const struct profile_row *d = dominant_row(p);
	struct profile_totals t;

	profile_totals(p, &t);
	pt->wall_ns = p->wall_ns;
	pt->syscall_ns = t.time_ns;
	pt->calls = t.calls;
	pt->status = p->exit.signal ? 128 + p->exit.signal : p->exit.code;
	if (d) {
		profile_row_label(d, pt->dominant, sizeof(pt->dominant));
		pt->dominant_calls = d->calls;
		pt->dominant_ns = d->time_ns;
		pt->bytes = d->bytes_done;
	}
}

double sweep_point_mbps(const struct sweep_point *pt)
{
	return pt->wall_ns ? (double)pt->bytes / ((double)pt->wall_ns / 1e9) / 1e6
			   : 0.0;
}

/* The best point: highest throughput, or shortest wall time if no bytes. */
size_t sweep_best(const struct sweep *s)
{
	size_t i, best = 0;
	bool by_bytes = false;

	for (i = 0; i < s->npoints; i++)
		if (s->points[i].bytes)
			by_bytes = true;
	for (i = 1; i < s->npoints; i++) {
		const struct sweep_point *a = &s->points[i], *b = &s->points[best];

		if (by_bytes ? sweep_point_mbps(a) > sweep_point_mbps(b)
			     : a->wall_ns < b->wall_ns)
			best = i;
	}
	return best;
}
