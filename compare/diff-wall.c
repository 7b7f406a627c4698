// SPDX-License-Identifier: MIT
/*
 * What two runs' walls say, and how sure a diff can be.  A profile's
 * baseline (--baseline, or a sweep point's untraced runs) gives the
 * untraced wall's median and its spread over the runs: with both, the
 * walls are compared, and a difference inside the spreads is said to be
 * within noise, as it is for the time in syscalls when its change is no
 * larger than the runs' relative spread.  Without them there is one
 * traced run a side and no spread: the diff says so rather than sound
 * certain.
 */
#include <string.h>
#include "compare/compare.h"

/* Untraced runs enough for a spread: one run has none. */
static bool has_spread(const struct profile *p)
{
	return p->baseline.runs > 1;
}

static bool has_wall(const struct profile *p)
{
	return p->exit.known;
}

bool diff_both_baselines(const struct diff *d)
{
	return has_spread(d->base) && has_spread(d->new);
}

/* The spread of a run's untraced walls, as a fraction of its median. */
static double relative_spread(const struct profile *p)
{
	const struct profile_baseline *b = &p->baseline;

	if (!b->wall_ns)
		return 0;
	return (double)(b->wall_max_ns - b->wall_min_ns) / (double)b->wall_ns;
}

double diff_noise(const struct diff *d)
{
	double a, b;

	if (!diff_both_baselines(d))
		return 0;
	a = relative_spread(d->base);
	b = relative_spread(d->new);
	return a > b ? a : b;
}

enum diff_walls diff_walls(const struct diff *d)
{
	const struct profile_baseline *a = &d->base->baseline;
	const struct profile_baseline *b = &d->new->baseline;

	if (!has_wall(d->base) || !has_wall(d->new))
		return DIFF_WALLS_NONE;
	if (!diff_both_baselines(d))
		return DIFF_WALLS_ONE_RUN;
	if (a->wall_min_ns <= b->wall_max_ns &&
	    b->wall_min_ns <= a->wall_max_ns)
		return DIFF_WALLS_NOISE;
	return DIFF_WALLS_APART;
}

static void secs(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%.3f", (double)ns / 1e9);
}

/* "0.048-0.060 s": a run's spread. */
static void range(char *buf, size_t size, const struct profile_baseline *b)
{
	char lo[32], hi[32];

	secs(lo, sizeof(lo), b->wall_min_ns);
	secs(hi, sizeof(hi), b->wall_max_ns);
	snprintf(buf, size, "%s-%s s", lo, hi);
}

/* "NEW 2.71x shorter", "NEW 12.0% longer": the medians compared. */
static void change(char *buf, size_t size, uint64_t a, uint64_t b)
{
	double big = (double)(a > b ? a : b), small = (double)(a > b ? b : a);
	const char *dir = b < a ? "shorter" : "longer";

	if (small && big / small >= 2)
		snprintf(buf, size, "NEW %.2fx %s", big / small, dir);
	else
		snprintf(buf, size, "NEW %.1f%% %s", 100 * (big - small) /
			 (double)a, dir);
}

static void untraced_line(const struct diff *d, enum diff_walls w,
			  char *buf, size_t size)
{
	const struct profile_baseline *a = &d->base->baseline;
	const struct profile_baseline *b = &d->new->baseline;
	char ma[32], mb[32], ra[80], rb[80], what[64];

	secs(ma, sizeof(ma), a->wall_ns);
	secs(mb, sizeof(mb), b->wall_ns);
	range(ra, sizeof(ra), a);
	range(rb, sizeof(rb), b);
	change(what, sizeof(what), a->wall_ns, b->wall_ns);
	snprintf(buf, size, "untraced wall: %s s -> %s s (medians of %u and "
		 "%u runs): %s (spreads %s and %s)", ma, mb, a->runs,
		 b->runs, w == DIFF_WALLS_NOISE ? "within noise, the spreads "
		 "overlap" : what, ra, rb);
}

/*
 * No spread on a side: the untraced medians when both have untraced
 * runs, else the traced walls, and why no change can be told.
 */
static void one_run_line(const struct diff *d, char *buf, size_t size)
{
	const struct profile *a = d->base, *b = d->new;
	bool untraced = a->baseline.runs && b->baseline.runs;
	char ma[32], mb[32];

	secs(ma, sizeof(ma), untraced ? a->baseline.wall_ns : a->wall_ns);
	secs(mb, sizeof(mb), untraced ? b->baseline.wall_ns : b->wall_ns);
	snprintf(buf, size, "%s wall: %s s -> %s s, %s: no spread tells a "
		 "change from noise (--baseline 3 on both runs gives one)",
		 untraced ? "untraced" : "traced", ma, mb,
		 has_spread(a) ? "one run of NEW" : has_spread(b) ?
		 "one run of BASE" : "one run each");
}

void diff_wall_line(const struct diff *d, char *buf, size_t size)
{
	enum diff_walls w = diff_walls(d);
	buf[0] = '\0';
	if (w == DIFF_WALLS_NONE)
		return;
	if (w != DIFF_WALLS_ONE_RUN) {
		untraced_line(d, w, buf, size);
		return;
	}
	one_run_line(d, buf, size);
}
