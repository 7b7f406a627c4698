// SPDX-License-Identifier: MIT
/*
 * Latency distributions.  Every timed call lands in a log2 bucket of its
 * (corrected) time in ns, [2^b, 2^(b+1)); --histogram draws one compact
 * chart per syscall, like bcc's funclatency, and the p50/p90/p99 columns
 * are read from the same buckets.  A bucket says only that a call took
 * between two powers of two, so a percentile is an upper bound accurate
 * to a factor of two, never an exact time.
 *
 * Bucket 0, 0 and 1 ns, holds no measurement: no call takes 1 ns, and a
 * call lands there when the stop cost subtracted from it (the
 * calibration's, profile/profile.c) was as much as its raw time
 * or more, and the difference was clamped to 0.  The chart starts at
 * 2 ns and counts those calls on a line of their own.
 */
#include <stdlib.h>
#include "render/render.h"

#define BAR_WIDTH 40

/* Bucket b holds [2^b, 2^(b+1)) ns; bucket 0 also holds 0. */
static uint64_t bucket_low(unsigned b)
{
	return b ? (uint64_t)1 << b : 0;
}

static uint64_t bucket_high(unsigned b)
{
	return profile_hist_high(b);
}

static void print_bar(FILE *f, uint64_t count, uint64_t peak)
{
	int i, len = peak ? (int)(count * BAR_WIDTH / peak) : 0;

	if (count && !len)
		len = 1;	/* a bucket that has calls is never blank */
	fputc('|', f);
	for (i = 0; i < BAR_WIDTH; i++)
		fputc(i < len ? '*' : ' ', f);
	fputs("|\n", f);
}

/*
 * The calls of bucket 0, as what they are: in the row's count, never a
 * bucket of the chart.  Laid out as a bucket's line (label, count) so
 * that a reader adding the counts up finds the calls.
 */
static void print_unresolved(FILE *f, const struct profile_row *r,
			     uint64_t overhead_ns)
{
	if (!r->hist[0])
		return;
	fprintf(f, "%26s %10llu  ", "below the correction",
		(unsigned long long)r->hist[0]);
	if (overhead_ns)
		fprintf(f, "not measured: their time less the %llu ns stop "
			"cost subtracted came to 0 or 1 ns, within the "
			"correction's noise\n",
			(unsigned long long)overhead_ns);
	else
		fputs("not measured: timed at 0 or 1 ns, below the clock's "
		      "resolution\n", f);
}

static void render_row(FILE *f, const struct profile_row *r,
		       uint64_t overhead_ns)
{
	char label[PROFILE_ROW_LABEL_MAX];
	unsigned b, lo = PROFILE_HIST_BUCKETS, hi = 0;
	uint64_t peak = 0;

	for (b = 1; b < PROFILE_HIST_BUCKETS; b++) {
		if (!r->hist[b])
			continue;
		lo = b < lo ? b : lo;
		hi = b;
		peak = r->hist[b] > peak ? r->hist[b] : peak;
	}
	if (lo == PROFILE_HIST_BUCKETS && !r->hist[0])
		return;
	fprintf(f, "\n%s: %llu timed calls\n%26s %10s  distribution\n",
		profile_row_label(r, label, sizeof(label)),
		(unsigned long long)r->timed, "ns", "count");
	print_unresolved(f, r, overhead_ns);
	for (b = lo; b <= hi; b++) {
		if (b == PROFILE_HIST_BUCKETS - 1)
			fprintf(f, "%11llu -> %-11s ",
				(unsigned long long)bucket_low(b), "more");
		else
			fprintf(f, "%11llu -> %-11llu ",
				(unsigned long long)bucket_low(b),
				(unsigned long long)bucket_high(b));
		fprintf(f, "%10llu  ", (unsigned long long)r->hist[b]);
		print_bar(f, r->hist[b], peak);
	}
}

int histogram_render(FILE *f, const struct profile *p,
		     const struct report_opts *o)
{
	const struct profile_row **rows;
	size_t i;

	if (!o || !o->histogram)
		return 0;
	rows = profile_sorted(p, o);
	if (!rows)
		return -1;
	fputs("\nLatency histograms (log2 buckets of the time in the call; "
	      "last bucket open-ended):\n", f);
	for (i = 0; i < p->nrows; i++)
		render_row(f, rows[i], p->overhead_ns);
	free(rows);
	return ferror(f) ? -1 : 0;
}
