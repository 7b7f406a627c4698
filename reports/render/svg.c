// SPDX-License-Identifier: MIT
/*
 * The sweep chart as a standalone SVG: throughput of the untraced runs
 * (MB/s, left axis, linear; a failed point has none and is labelled) and
 * the traced run's call count of the dominant syscall (a second axis on
 * the right, log) against the swept value (log axis when every value is
 * a number, evenly spaced otherwise).  Plain SVG 1.1 with no script or
 * external reference, so any browser or xmllint takes it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "reports/render/render.h"

#define W 760
#define H 440
#define LEFT 80
#define RIGHT 90
#define TOP 50
#define BOTTOM 70
#define PW (W - LEFT - RIGHT)
#define PH (H - TOP - BOTTOM)

struct chart {
	const struct sweep *s;
	bool logx;
	double xmin, xmax;	/* log10 of values, or indices */
	double ymax;		/* MB/s */
	double cmin, cmax;	/* log10 of call counts */
};

/* Text is data from the command line: escape it for XML. */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

static double px(const struct chart *c, size_t i)
{
	double v = c->logx ? log10(c->s->points[i].x) : (double)i;
	double span = c->xmax - c->xmin;

	return LEFT + (span > 0 ? (v - c->xmin) / span * PW : PW / 2.0);
}

static double py_mbps(const struct chart *c, double mbps)
{
	return TOP + PH - (c->ymax > 0 ? mbps / c->ymax * PH : 0);
}

static double py_calls(const struct chart *c, uint64_t calls)
{
	double v = log10(calls ? (double)calls : 1.0);
	double span = c->cmax - c->cmin;

	return TOP + PH - (span > 0 ? (v - c->cmin) / span * PH : PH / 2.0);
}

static void scale(struct chart *c)
{
	const struct sweep *s = c->s;
	size_t i;

	c->logx = true;
	for (i = 0; i < s->npoints; i++)
		if (isnan(s->points[i].x) || s->points[i].x <= 0)
			c->logx = false;
	c->xmin = c->logx ? log10(s->points[0].x) : 0;
	c->xmax = c->logx ? c->xmin : (double)(s->npoints - 1);
	c->cmin = c->cmax = log10(s->points[0].dominant_calls ?
				  (double)s->points[0].dominant_calls : 1.0);
	c->ymax = 0;
	for (i = 0; i < s->npoints; i++) {
		double calls = (double)(s->points[i].dominant_calls ?
					s->points[i].dominant_calls : 1);

		if (c->logx) {
			c->xmin = fmin(c->xmin, log10(s->points[i].x));
			c->xmax = fmax(c->xmax, log10(s->points[i].x));
		}
		c->cmin = fmin(c->cmin, floor(log10(calls)));
		c->cmax = fmax(c->cmax, ceil(log10(calls)));
		c->ymax = fmax(c->ymax, sweep_point_mbps(&s->points[i]));
	}
	c->ymax = c->ymax > 0 ? c->ymax * 1.1 : 1;
	if (c->cmax <= c->cmin)
		c->cmax = c->cmin + 1;
}

static void axes(FILE *f, const struct chart *c)
{
	int k;

	fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		"fill=\"none\" stroke=\"#888\"/>\n", LEFT, TOP, PW, PH);
	for (k = 0; k <= 4; k++) {
		double v = c->ymax * k / 4, y = py_mbps(c, v);

		fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" "
			"stroke=\"#eee\"/>\n", LEFT, LEFT + PW, y, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
			"fill=\"#1f5fa8\">%.1f</text>\n", LEFT - 6, y + 4, v);
	}
	for (k = (int)c->cmin; k <= (int)c->cmax; k++)
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" fill=\"#c0392b\">1e%d"
			"</text>\n", LEFT + PW + 6,
			py_calls(c, (uint64_t)pow(10, k)) + 4, k);
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#1f5fa8\" transform=\""
		"rotate(-90 %d %d)\" text-anchor=\"middle\">MB/s (untraced "
		"wall)</text>\n", 20, TOP + PH / 2, 20, TOP + PH / 2);
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#c0392b\" transform=\""
		"rotate(90 %d %d)\" text-anchor=\"middle\">calls of the dominant "
		"syscall (traced, log)</text>\n", W - 20, TOP + PH / 2, W - 20,
		TOP + PH / 2);
}

/*
 * A failed point has no throughput, nor has one whose bytes are not
 * known (count-only runs see no returns): the MB/s line skips them.
 */
static bool plotted(const struct chart *c, size_t i, bool calls)
{
	const struct sweep_point *pt = &c->s->points[i];

	return calls || (pt->bytes && sweep_point_mbps(pt) >= 0);
}

static double py(const struct chart *c, size_t i, bool calls)
{
	const struct sweep_point *pt = &c->s->points[i];

	return calls ? py_calls(c, pt->dominant_calls) :
		       py_mbps(c, sweep_point_mbps(pt));
}

static void series(FILE *f, const struct chart *c, bool calls,
		   const char *color)
{
	const struct sweep *s = c->s;
	size_t i;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		"points=\"", color);
	for (i = 0; i < s->npoints; i++)
		if (plotted(c, i, calls))
			fprintf(f, "%.1f,%.1f ", px(c, i), py(c, i, calls));
	fputs("\"/>\n", f);
	for (i = 0; i < s->npoints; i++)
		if (plotted(c, i, calls))
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				"fill=\"%s\"/>\n", px(c, i), py(c, i, calls),
				color);
}

static void labels(FILE *f, const struct chart *c)
{
	const struct sweep *s = c->s;
	size_t i, best = sweep_best(s);

	for (i = 0; i < s->npoints; i++) {
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
			px(c, i), TOP + PH + 18);
		put_escaped(f, s->points[i].value);
		fputs("</text>\n", f);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", LEFT + PW / 2,
		TOP + PH + 42);
	put_escaped(f, s->key);
	fprintf(f, "%s</text>\n", c->logx ? " (log scale)" : "");
	for (i = 0; i < s->npoints; i++)
		if (s->points[i].failed)
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" "
				"text-anchor=\"middle\" fill=\"#c0392b\">"
				"failed</text>\n", px(c, i), TOP + PH - 6);
	if (best < s->npoints)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" "
			"text-anchor=\"middle\" font-weight=\"bold\">best"
			"</text>\n", px(c, best),
			plotted(c, best, false) ? py(c, best, false) - 10 :
						  (double)TOP + 16);
}

/* Said in the chart when no point has a throughput to draw. */
static void no_throughput(FILE *f, const struct chart *c)
{
	size_t i;

	for (i = 0; i < c->s->npoints; i++)
		if (plotted(c, i, false))
			return;
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#1f5fa8\">no "
		"throughput: bytes not known (count-only run) or every "
		"point failed</text>\n", LEFT + 10, TOP + 34);
}

int svg_render(FILE *f, const struct sweep *s)
{
	struct chart c = { .s = s };

	if (!s->npoints)
		return -1;
	scale(&c);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, H, W, H);
	fprintf(f, "<text x=\"%d\" y=\"28\" font-size=\"16\">iotrace sweep of ",
		LEFT);
	put_escaped(f, s->key);
	fputs(": throughput untraced (blue), calls traced (red)</text>\n",
	      f);
	axes(f, &c);
	series(f, &c, false, "#1f5fa8");
	series(f, &c, true, "#c0392b");
	labels(f, &c);
	no_throughput(f, &c);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}
