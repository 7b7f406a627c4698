/* SPDX-License-Identifier: MIT */
/*
 * Between svg.c (the sweep chart) and svg-axis.c (its value axes): an
 * axis is linear from 0 or log, chosen by the values it shows, with
 * ticks at round numbers a reader can say aloud.
 */
#ifndef IOTRACE_SVG_INT_H
#define IOTRACE_SVG_INT_H

#include <stdbool.h>
#include <stddef.h>

#define SVG_TICKS_MAX 24

struct svg_axis {
	bool log;		/* values span over 10x */
	double lo, hi;		/* the ends, in values (not logs) */
	double ticks[SVG_TICKS_MAX];
	size_t nticks;
};

/*
 * Fits an axis to the n positive values in v (others are left out): log
 * with decade ends when the largest is over 10x the smallest, else
 * linear from 0 to a round end.  Ticks at 1, 2 or 5 times a power of
 * ten.  With no value, 0 to 1.
 */
void svg_axis_fit(struct svg_axis *a, const double *v, size_t n);
/* Where v falls on a, 0 (lo) to 1 (hi), clamped. */
double svg_axis_at(const struct svg_axis *a, double v);
/* A tick as a reader says it: "0.5", "20", "1K", "10M". */
void svg_tick_label(char *buf, size_t size, double v);

#endif
