// SPDX-License-Identifier: MIT
/*
 * The sweep table: one row per swept value with the medians of its runs,
 * the spread of wall times, and the best point marked; then the findings
 * that hold for some points and not others (those that hold everywhere do
 * not explain a difference).
 */
#include <string.h>
#include "reports/render/render.h"

static void print_header(FILE *f, const struct sweep *s)
{
	fprintf(f, "iotrace sweep of %s: %zu points, median of %d run%s each\n",
		s->key, s->npoints, s->points[0].runs,
		s->points[0].runs == 1 ? "" : "s");
	fprintf(f, "  %10s %9s %8s %9s %-15s %10s %10s %10s %6s %6s\n", s->key,
		"wall s", "spread", "MB/s", "syscall", "calls", "syscall s",
		"usecs/call", "%wall", "exit");
}

static void print_point(FILE *f, const struct sweep_point *pt, bool best)
{
	double wall = (double)pt->wall_ns / 1e9;
	double spread = (double)(pt->wall_max_ns - pt->wall_min_ns) / 1e9;

	fprintf(f, "%c %10s %9.3f %8.3f %9.1f %-15s %10llu %10.6f %10.3f "
		"%5.1f%% %6d\n", best ? '*' : ' ', pt->value, wall, spread,
		sweep_point_mbps(pt), pt->dominant[0] ? pt->dominant : "-",
		(unsigned long long)pt->dominant_calls,
		(double)pt->syscall_ns / 1e9,
		pt->dominant_calls ? (double)pt->dominant_ns /
				     (double)pt->dominant_calls / 1e3 : 0.0,
		pt->wall_ns ? 100.0 * (double)pt->syscall_ns /
				      (double)pt->wall_ns : 0.0,
		pt->status);
}

/* Whether finding line (one of a point's, "; "-joined) holds everywhere. */
static bool everywhere(const struct sweep *s, const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < s->npoints; i++)
		if (!memmem(s->points[i].findings, strlen(s->points[i].findings),
			    line, len))
			return false;
	return true;
}

static void print_differing(FILE *f, const struct sweep *s)
{
	const char *p, *end;
	bool any = false;
	size_t i;

	for (i = 0; i < s->npoints; i++) {
		for (p = s->points[i].findings; *p; p = *end ? end + 2 : end) {
			end = strstr(p, "; ");
			if (!end)
				end = p + strlen(p);
			if (everywhere(s, p, (size_t)(end - p)))
				continue;
			if (!any)
				fputs("Findings that differ between points:\n", f);
			any = true;
			fprintf(f, "  %s=%s: %.*s\n", s->key, s->points[i].value,
				(int)(end - p), p);
		}
	}
}

int sweep_table_render(FILE *f, const struct sweep *s)
{
	size_t i, best;

	if (!s->npoints)
		return -1;
	best = sweep_best(s);
	print_header(f, s);
	for (i = 0; i < s->npoints; i++)
		print_point(f, &s->points[i], i == best);
	fprintf(f, "* best: %s\n", s->points[best].bytes ?
		"highest throughput (bytes of the dominant syscall / wall)" :
		"shortest wall time");
	print_differing(f, s);
	return ferror(f) ? -1 : 0;
}
