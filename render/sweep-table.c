// SPDX-License-Identifier: MIT
/*
 * The sweep table: one row per swept value.  Two groups of columns, and
 * the heads say which is which: wall, spread and MB/s from the untraced
 * runs (median of --repeat), the dominant syscall, its calls and the
 * times from the one traced run.  The best point (by the untraced
 * figures) is marked only when its spread is clear of the others' (tied
 * points are marked as tied; one run per point tells nothing); a failed
 * point reads "failed" and is never best.  An empty value, the key left
 * out, reads "(none)".
 * Then the findings that hold for some points and not others (those
 * that hold everywhere do not explain a difference), each said once,
 * with the points it holds at.
 */
#include <string.h>
#include "render/render.h"

/* "untraced (median of 3 runs) -----": a group's label over its width. */
static void print_group(FILE *f, const char *label, int width)
{
	int n = fprintf(f, "%s ", label);

	for (; n < width; n++)
		fputc('-', f);
}

/* The value column: 10 wide, or as wide as the longest value. */
static int value_width(const struct sweep *s)
{
	size_t i, n = 10;

	for (i = 0; i < s->npoints; i++)
		if (strlen(sweep_value_label(&s->points[i])) > n)
			n = strlen(sweep_value_label(&s->points[i]));
	return (int)n;
}

static void print_header(FILE *f, const struct sweep *s, int vw)
{
	char label[64];

	if (s->repeat)
		fprintf(f, "iotrace sweep of %s: %zu points, each %d untraced "
			"run%s (median) and 1 traced run\n", s->key,
			s->npoints, s->repeat, s->repeat == 1 ? "" : "s");
	else
		fprintf(f, "iotrace sweep of %s: %zu points, each 1 traced "
			"run and no untraced runs (walls are traced)\n",
			s->key, s->npoints);
	if (s->repeat)
		snprintf(label, sizeof(label), "untraced (median of %d)",
			 s->repeat);
	else
		snprintf(label, sizeof(label), "traced wall");
	fprintf(f, "  %*s ", vw, "");
	print_group(f, label, 28);
	fputc(' ', f);
	print_group(f, "traced (1 run)", 65);
	fputc('\n', f);
	fprintf(f, "  %*s %9s %8s %9s %-15s %10s %10s %10s %6s %6s\n", vw,
		s->key,
		"wall s", "spread", "MB/s", "syscall", "calls", "syscall s",
		"usecs/call", "%wall", "exit");
}

/*
 * The untraced cells: "-" where there is no wall, "failed" for MB/s.
 * Bytes come from the traced run's returns, so a count-only run, which
 * sees no returns, has a wall but no MB/s.
 */
static void print_untraced(FILE *f, const struct sweep_point *pt)
{
	double spread = (double)(pt->wall_max_ns - pt->wall_min_ns) / 1e9;

	if (pt->failed || !pt->wall_ns) {
		fprintf(f, " %9s %8s %9s", "-", "-",
			pt->failed ? "failed" : "-");
		return;
	}
	fprintf(f, " %9.3f %8.3f", (double)pt->wall_ns / 1e9, spread);
	/* No bytes: nothing moved, or nothing known (count-only). */
	if (pt->bytes)
		fprintf(f, " %9.1f", sweep_point_mbps(pt));
	else
		fprintf(f, " %9s", "-");
}

/* The traced cells: "-" for times nothing measured (count-only). */
static void print_traced(FILE *f, const struct sweep_point *pt)
{
	char secs[32] = "-", per[32] = "-", share[32] = "-";

	if (pt->timed)
		snprintf(secs, sizeof(secs), "%.6f",
			 (double)pt->syscall_ns / 1e9);
	if (pt->dominant_timed)
		snprintf(per, sizeof(per), "%.3f", (double)pt->dominant_ns /
			 (double)pt->dominant_timed / 1e3);
	if (pt->timed && pt->wall_ns && !pt->failed) {
		double pct = 100.0 * (double)pt->syscall_ns /
			     (double)pt->wall_ns;

		if (pct > 100.0)
			snprintf(share, sizeof(share), ">100%%");
		else
			snprintf(share, sizeof(share), "%.1f%%", pct);
	}
	fprintf(f, " %-15s %10llu %10s %10s %6s",
		pt->dominant[0] ? pt->dominant : "-",
		(unsigned long long)pt->dominant_calls, secs, per, share);
}

static void print_point(FILE *f, const struct sweep_point *pt, char mark,
			int vw)
{
	fprintf(f, "%c %*s", mark, vw, sweep_value_label(pt));
	print_untraced(f, pt);
	print_traced(f, pt);
	fprintf(f, " %6d\n", pt->status);
}

/*
 * Points whose untraced runs are 2x apart or more did not run alike (a
 * command rewriting one file pays for the last run's dirty pages): their
 * medians, and a best marker between them, are that uncertain.
 */
static void print_apart(FILE *f, const struct sweep *s)
{
	const struct sweep_point *pt;
	bool any = false;
	size_t i;

	for (i = 0; i < s->npoints; i++) {
		pt = &s->points[i];
		if (pt->failed || !runs_apart(pt->runs, pt->wall_min_ns,
					      pt->wall_max_ns))
			continue;
		fprintf(f, "%s %s=%s (%.1fx)", any ? "," : "untraced runs 2x "
			"apart or more, which did not run alike (a command that "
			"rewrites one file pays for the last run's dirty "
			"pages):", s->key, sweep_value_label(pt),
			(double)pt->wall_max_ns / (double)pt->wall_min_ns);
		any = true;
	}
	if (any)
		fputc('\n', f);
}

/* "bs=1024,1130": the points tied with the best. */
static void print_tied(FILE *f, const struct sweep *s,
		       const struct sweep_judgement *j)
{
	size_t i, n = 0;

	fprintf(f, "%s=", s->key);
	for (i = 0; i < s->npoints; i++)
		if (sweep_tied(s, j, i))
			fprintf(f, "%s%s", n++ ? "," : "",
				sweep_value_label(&s->points[i]));
}

static void print_verdict(FILE *f, const struct sweep *s,
			  const struct sweep_judgement *j)
{
	const char *by = j->by_bytes ? "highest throughput (bytes that "
		"reached the destination / untraced wall)" :
		"shortest untraced wall time";
	/* No best when every point failed: j->best is then past the end. */
	const char *median = j->verdict == SWEEP_NONE ? "" :
			     sweep_value_label(&s->points[j->best]);

	switch (j->verdict) {
	case SWEEP_NONE:
		fputs("* best: none, every point failed\n", f);
		break;
	case SWEEP_BEST:
		fprintf(f, "* best: %s, its spread over the untraced runs "
			"clear of every other point's\n", by);
		break;
	case SWEEP_TIE:
		fputs("~ tie: ", f);
		print_tied(f, s, j);
		fprintf(f, " are within noise, their spreads over the untraced "
			"runs overlap: no best (%s: %s=%s; more --repeat runs "
			"may tell them apart)\n", j->by_bytes ?
			"highest median MB/s" : "shortest median wall",
			s->key, median);
		break;
	case SWEEP_ONE_RUN:
		fprintf(f, "best: not told from noise with 1 run per point "
			"(%s: %s=%s); --repeat 3 or more gives each point a "
			"spread\n", j->by_bytes ? "highest MB/s" :
			"shortest wall", s->key, median);
		break;
	}
}

static void print_notes(FILE *f, const struct sweep *s,
			const struct sweep_judgement *j)
{
	print_verdict(f, s, j);
	fputs("%wall: time in syscalls of the traced run / the untraced "
	      "wall; -: not timed\n", f);
	print_apart(f, s);
}

/* Point pt's finding of f's rule about f's subject, or NULL. */
static const struct finding *at_point(const struct sweep_point *pt,
				      const struct finding *f)
{
	size_t i;

	for (i = 0; i < pt->findings.n; i++)
		if (!strcmp(pt->findings.v[i].rule, f->rule) &&
		    !strcmp(pt->findings.v[i].about, f->about))
			return &pt->findings.v[i];
	return NULL;
}

/* Whether finding j of point i was met at an earlier point. */
static bool said(const struct sweep *s, size_t i, size_t j)
{
	const struct finding *f = &s->points[i].findings.v[j];
	size_t k;

	for (k = 0; k < i; k++)
		if (at_point(&s->points[k], f))
			return true;
	return at_point(&s->points[i], f) != f;
}

/* The points f holds at, from the first one; how many. */
static size_t holding(const struct sweep *s, size_t first,
		      const struct finding *f, bool *alike)
{
	const struct finding *g;
	size_t i, n = 0;

	*alike = true;
	for (i = first; i < s->npoints; i++) {
		if (!(g = at_point(&s->points[i], f)))
			continue;
		n++;
		if (strcmp(g->text, f->text))
			*alike = false;
	}
	return n;
}

/*
 * "  bs=512,1K: text", once for the points where the finding holds; with
 * other figures at some of them, the first one's, named.
 */
static void print_once(FILE *out, const struct sweep *s, size_t first,
		       const struct finding *f, bool alike)
{
	size_t i, n = 0;

	fprintf(out, "  %s=", s->key);
	for (i = first; i < s->npoints; i++)
		if (at_point(&s->points[i], f))
			fprintf(out, "%s%s", n++ ? "," : "",
				sweep_value_label(&s->points[i]));
	if (!alike)
		fprintf(out, " (figures at %s=%s)", s->key,
			sweep_value_label(&s->points[first]));
	fprintf(out, ": %s\n", f->text);
}

/*
 * A finding is one rule's about one subject, said once: at every point,
 * it explains no difference; at some, it is said with the points named.
 */
static void print_differing(FILE *out, const struct sweep *s)
{
	const struct finding *f;
	bool any = false, alike;
	size_t i, j;

	for (i = 0; i < s->npoints; i++) {
		for (j = 0; j < s->points[i].findings.n; j++) {
			f = &s->points[i].findings.v[j];
			if (said(s, i, j) ||
			    holding(s, i, f, &alike) == s->npoints)
				continue;
			if (!any)
				fputs("Findings that differ between points:\n",
				      out);
			any = true;
			print_once(out, s, i, f, alike);
		}
	}
}

/* '*' best, '~' tied with the best, ' ' otherwise (or no verdict). */
static char mark(const struct sweep *s, const struct sweep_judgement *j,
		 size_t i)
{
	if (j->verdict == SWEEP_BEST && i == j->best)
		return '*';
	if (j->verdict == SWEEP_TIE && sweep_tied(s, j, i))
		return '~';
	return ' ';
}

int sweep_table_render(FILE *f, const struct sweep *s)
{
	struct sweep_judgement j;
	int vw = value_width(s);
	size_t i;

	if (!s->npoints)
		return -1;
	sweep_judge(s, &j);
	print_header(f, s, vw);
	for (i = 0; i < s->npoints; i++)
		print_point(f, &s->points[i], mark(s, &j, i), vw);
	print_notes(f, s, &j);
	print_differing(f, s);
	return ferror(f) ? -1 : 0;
}
