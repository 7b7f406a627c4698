// SPDX-License-Identifier: MIT
/*
 * Calls an engine counted in aggregate (the fast path: counters kept
 * inside the traced programs) added to the profile's rows, as if each
 * had come as an event: counts, errors and their errnos, times, the
 * latency histogram and the I/O bytes.  The times come corrected by the
 * engine (the fast path subtracts what its trampoline's clock adds),
 * with the raw ones for --raw-time: profile->overhead_ns is not
 * subtracted.  An aggregate with a file is a call's share on that file
 * (the fast path's per-fd counts; a two-fd call's on its pair of
 * files): it goes to the file breakdown's sub-row, keyed as the sink
 * keys an event's file (files.c), and not to the row again.
 */
#include <errno.h>
#include <string.h>
#include "profile/profile.h"

_Static_assert(TRACER_HIST_BUCKETS == PROFILE_HIST_BUCKETS,
	       "an aggregate's histogram is the profile's");

static void add_times(struct profile_row *r, const struct tracer_aggregate *a)
{
	size_t b;

	r->timed += a->timed;
	r->time_ns += a->time_ns;
	r->raw_time_ns += a->raw_time_ns;
	if (a->min_ns && a->min_ns < r->min_ns)
		r->min_ns = a->min_ns;
	if (a->max_ns > r->max_ns)
		r->max_ns = a->max_ns;
	for (b = 0; b < PROFILE_HIST_BUCKETS; b++)
		r->hist[b] += a->hist[b];
}

/* A call's share on a file: its sub-row in the breakdown. */
static int add_file_share(struct profile *p, const struct profile_row *r,
			  const struct tracer_aggregate *a)
{
	uint32_t file2 = PROFILE_FILE_NONE;
	struct profile_sub *s;
	int f, f2 = 0;

	if (!profile_breakdown(p, &profile_dim_file)->dim)
		return 0;	/* no file dimension in this profile */
	f = profile_file_from(p, a->file);
	if (f >= 0 && a->file2) {
		f2 = profile_file_from(p, a->file2);
		file2 = (uint32_t)f2;
	}
	if (f < 0 || f2 < 0)
		return -ENOMEM;
	s = profile_io_get(p, (uint32_t)f, file2, (uint32_t)(r - p->rows));
	if (!s)
		return -ENOMEM;
	profile_sub_add_share(s, a);
	return 0;
}

int profile_add_aggregate(struct profile *p, const struct tracer_aggregate *a)
{
	struct tracer_event ev;
	struct profile_row *r;
	size_t i;

	memset(&ev, 0, sizeof(ev));
	ev.arch = a->arch;
	ev.nr = a->nr;
	r = profile_event_row(p, &ev);
	if (!r)
		return -ENOMEM;
	if (a->file)
		return add_file_share(p, r, a);
	r->calls += a->calls;
	if (!a->timed)
		return 0;
	add_times(r, a);
	if (a->fast) {
		r->fast_timed += a->timed;
		r->fast_raw_ns += a->raw_time_ns;
	}
	r->errors += a->errors;
	for (i = 0; i < TRACER_ERRNO_SLOTS; i++)
		if (a->errnos[i].count)
			profile_row_add_errno(r, a->errnos[i].err,
					      a->errnos[i].count);
	r->errno_other += a->errno_other;
	if (r->io_arg != IO_NONE) {
		r->bytes_req += a->bytes_req;
		r->bytes_done += a->bytes_done;
		r->short_calls += a->short_calls;
	}
	return 0;
}
