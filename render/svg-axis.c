// SPDX-License-Identifier: MIT
/*
 * The sweep chart's value axes (svg-int.h).  A linear axis squashes
 * the slow points onto the floor when one point is far faster: past a 10x span
 * the axis is log, with decades for ends.  Ticks are round (1, 2 or 5
 * times a power of ten), never a fifth of the maximum (451.3, 902.6).
 */
#include <math.h>
#include <stdio.h>
#include "render/svg-int.h"

/* The smallest of 1, 2, 5 times a power of ten that is >= x > 0. */
static double round_up(double x)
{
	static const double steps[] = { 1, 2, 5, 10 };
	double mag = pow(10, floor(log10(x)));
	size_t i;

	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * mag >= x * (1 - 1e-9))
			return steps[i] * mag;
	return 10 * mag;
}

static void add_tick(struct svg_axis *a, double v)
{
	if (a->nticks < SVG_TICKS_MAX)
		a->ticks[a->nticks++] = v;
}

/* 0 to a round end, 4 to 8 steps. */
static void fit_linear(struct svg_axis *a, double max)
{
	double step = round_up(max / 5), v;

	a->lo = 0;
	a->hi = ceil(max / step * (1 - 1e-9)) * step;
	for (v = 0; v <= a->hi * (1 + 1e-9); v += step)
		add_tick(a, v);
}

/*
 * Decade ends; the decades as ticks, with 2 and 5 between them when
 * there are three decades or fewer, so the axis is read without
 * counting.
 */
static void fit_log(struct svg_axis *a, double min, double max)
{
	static const double between[] = { 1, 2, 5 };
	int k, lo = (int)floor(log10(min)), hi = (int)ceil(log10(max));
	size_t i;

	if (hi <= lo)
		hi = lo + 1;
	a->lo = pow(10, lo);
	a->hi = pow(10, hi);
	for (k = lo; k <= hi; k++)
		for (i = 0; i < (hi - lo <= 3 ? 3u : 1u); i++)
			if (k < hi || i == 0)
				add_tick(a, between[i] * pow(10, k));
}

void svg_axis_fit(struct svg_axis *a, const double *v, size_t n)
{
	double min = INFINITY, max = 0;
	size_t i;

	a->nticks = 0;
	for (i = 0; i < n; i++) {
		if (!(v[i] > 0) || !isfinite(v[i]))
			continue;
		min = fmin(min, v[i]);
		max = fmax(max, v[i]);
	}
	a->log = max > 0 && max > 10 * min;
	if (a->log)
		fit_log(a, min, max);
	else
		fit_linear(a, max > 0 ? max * 1.05 : 1);
}

double svg_axis_at(const struct svg_axis *a, double v)
{
	double f;

	if (a->log)
		f = v > 0 ? (log10(v) - log10(a->lo)) /
			    (log10(a->hi) - log10(a->lo)) : 0;
	else
		f = a->hi > a->lo ? (v - a->lo) / (a->hi - a->lo) : 0;
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

void svg_tick_label(char *buf, size_t size, double v)
{
	static const struct {
		double at;
		const char *suffix;
	} units[] = { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "K" } };
	size_t i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (v >= units[i].at * 10 ||
		    (v >= units[i].at && fmod(v, units[i].at) == 0)) {
			snprintf(buf, size, "%g%s", v / units[i].at,
				 units[i].suffix);
			return;
		}
	snprintf(buf, size, "%g", v);
}
