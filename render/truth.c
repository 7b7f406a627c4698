// SPDX-License-Identifier: MIT
/*
 * The --truth section under the table: for each I/O syscall a built-in
 * workload timed itself in an untraced run (CLOCK_MONOTONIC around the
 * call, through the vDSO), its calls, mean and median next to what the
 * traced run's table says for the same syscall, then the two wall times.
 * It shows what tracing costs and how far the table's times are from
 * the program's own view.  Medians come from a log-linear histogram
 * whose bucket midpoints are within 0.8% of every sample in the bucket.
 */
#include "render/render.h"

#define TRUTH_RULE "--------------- --------- ----------- ----------- " \
		   "--------- -----------"

static void print_row(FILE *f, const struct profile_truth_row *t,
		      const struct profile *p, const struct report_opts *o)
{
	const struct profile_row *r = profile_row_find(p, t->name);
	char traced[32], calls[32];

	if (r && r->timed) {
		snprintf(traced, sizeof(traced), "%.3f",
			 (double)row_time(r, o) / (double)r->timed / 1e3);
		snprintf(calls, sizeof(calls), "%llu",
			 (unsigned long long)r->calls);
	} else {
		snprintf(traced, sizeof(traced), "-");
		snprintf(calls, sizeof(calls), "%llu",
			 (unsigned long long)(r ? r->calls : 0));
	}
	fprintf(f, "%-15s %9llu %11.3f %11.3f %9s %11s\n", t->name,
		(unsigned long long)t->calls,
		t->calls ? (double)t->total_ns / (double)t->calls / 1e3 : 0.0,
		(double)t->median_ns / 1e3, calls, traced);
}

static void print_wall(FILE *f, const struct profile *p)
{
	double untraced = (double)p->truth.wall_ns / 1e9;
	double traced = (double)p->wall_ns / 1e9;

	fprintf(f, "wall: untraced %.6f s, traced %.6f s", untraced, traced);
	if (p->truth.wall_ns)
		fprintf(f, " (%.1fx)", traced / untraced);
	fputc('\n', f);
}

/*
 * The untraced run's share of its wall in the calls it timed: the true
 * share the header's is to be read against.  Its wall holds its own two
 * clock reads a call, which the same run without them would not take
 * (at 0.1-0.5 us a call they are a tenth of it or more): taken out, as
 * each sample had its own taken out.
 */
static void print_share(FILE *f, const struct profile *p)
{
	uint64_t calls = 0, in = 0, clocks, wall;
	char reads[32];
	size_t i;

	for (i = 0; i < p->truth.nrows; i++) {
		calls += p->truth.rows[i].calls;
		in += p->truth.rows[i].total_ns;
	}
	if (!p->truth.clock_ns || !calls)
		return;
	clocks = 2 * calls * p->truth.clock_ns;
	if (p->truth.wall_ns <= clocks || in > p->truth.wall_ns - clocks)
		return;
	wall = p->truth.wall_ns - clocks;
	fprintf(f, "in calls: %.1f%% of the untraced wall, its %s clock "
		"reads (%llu ns each) taken out: %.6f s\n",
		100.0 * (double)in / (double)wall,
		fmt_thousands(reads, sizeof(reads), 2 * calls),
		(unsigned long long)p->truth.clock_ns, (double)wall / 1e9);
}

void truth_render(FILE *f, const struct profile *p,
		  const struct report_opts *o)
{
	size_t i;

	if (!p->truth.nrows && !p->truth.wall_ns)
		return;
	fputs("\nground truth: the same workload untraced, timing its own "
	      "syscalls (us; median\nwithin 0.8%), beside the traced "
	      "table's calls and usecs/call\n", f);
	fprintf(f, "%-15s %9s %11s %11s %9s %11s\n", "syscall", "untraced",
		"mean", "median", "traced", "usecs/call");
	fprintf(f, "%s\n", TRUTH_RULE);
	for (i = 0; i < p->truth.nrows; i++)
		print_row(f, &p->truth.rows[i], p, o);
	print_wall(f, p);
	print_share(f, p);
}
