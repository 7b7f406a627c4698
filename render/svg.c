// SPDX-License-Identifier: MIT
/*
 * The sweep chart as a standalone SVG: throughput of the untraced runs
 * (MB/s, left axis, with each point's spread over its runs as a bar)
 * and the traced run's call count of the dominant syscall (right axis)
 * against the swept value.  The x axis is log when every value is a
 * number, and the points are joined in their order; values that are
 * names (modes, programs) are evenly spaced and never joined, a line
 * between them meaning nothing.  A failed point has no data: it is a
 * cross on the x axis marked "failed", never a value, and it breaks the
 * lines.  Labels of points too close for one row go to the next, names
 * too long for the plot are cut with the whole one as a tooltip.  The
 * best marker follows the table's verdict (sweep_judge()).  Elements
 * carry ids and classes (axes, labels, series, failed) for checks.
 * Plain SVG 1.1 with no script or external reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"
#include "render/svg-int.h"

#define W 760
#define LEFT 80
#define RIGHT 90
#define TOP 70
#define PW (W - LEFT - RIGHT)
#define PH 300
#define PAD 30			/* numbers' ends, inside the frame */
#define ROW 15			/* a row of x labels */
#define CHAR_W 7.0		/* a 12 px sans-serif character, at most */
#define LABEL_MAX 16		/* characters of a point's label */
#define MBPS_COLOR "#1f5fa8"
#define CALLS_COLOR "#c0392b"

struct chart {
	const struct sweep *s;
	struct sweep_judgement j;
	bool numeric;		/* all values numbers > 0: log x, joined */
	double xmin, xmax;	/* log10 of values, or indices */
	struct svg_axis mbps, calls;
	size_t *order;		/* points by x */
	int *row;		/* each point's row of x labels */
	int rows;
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

/* s cut to max characters, the cut said with an ellipsis. */
static void put_fitted(FILE *f, const char *s, size_t max)
{
	char buf[64];

	if (strlen(s) <= max) {
		put_escaped(f, s);
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)(max - 1), s);
	put_escaped(f, buf);
	fputs("\xe2\x80\xa6", f);
}

static const char *label_of(const struct chart *c, size_t i)
{
	return sweep_value_label(&c->s->points[i]);
}

static double label_w(const struct chart *c, size_t i)
{
	size_t n = strlen(label_of(c, i));

	return CHAR_W * (double)(n > LABEL_MAX ? LABEL_MAX : n);
}

/*
 * Numbers on a log axis kept PAD inside the frame, so no marker sits on
 * it; names each in the middle of an equal share of the width.
 */
static double px(const struct chart *c, size_t i)
{
	double v = log10(c->s->points[i].x), span = c->xmax - c->xmin;

	if (!c->numeric)
		return LEFT + PW * ((double)i + 0.5) / (double)c->s->npoints;
	return LEFT + PAD + (span > 0 ? (v - c->xmin) / span * (PW - 2 * PAD) :
					(PW - 2 * PAD) / 2.0);
}

static double py(const struct svg_axis *a, double v)
{
	return TOP + PH - svg_axis_at(a, v) * PH;
}

static int bottom(const struct chart *c)
{
	return TOP + PH + 12 + c->rows * ROW;
}

static int height(const struct chart *c)
{
	return bottom(c) + 40;
}

/* A point has a throughput: it did not fail and its bytes are known. */
static bool has_mbps(const struct sweep_point *pt)
{
	return pt->bytes && sweep_point_mbps(pt) >= 0;
}

static double mbps_at(const struct sweep_point *pt, uint64_t wall)
{
	return wall ? (double)pt->bytes / ((double)wall / 1e9) / 1e6 : 0;
}

static int by_x(const void *a, const void *b, void *arg)
{
	const struct sweep *s = arg;
	double xa = s->points[*(const size_t *)a].x;
	double xb = s->points[*(const size_t *)b].x;

	return xa < xb ? -1 : xa > xb;
}

/* The axes fitted to the points that have data: failed ones have none. */
static void fit_axes(struct chart *c)
{
	const struct sweep *s = c->s;
	double *v = calloc(2 * s->npoints + 1, sizeof(*v));
	size_t i, n = 0;

	if (v)
		for (i = 0; i < s->npoints; i++)
			if (has_mbps(&s->points[i])) {
				v[n++] = mbps_at(&s->points[i],
						 s->points[i].wall_max_ns);
				v[n++] = mbps_at(&s->points[i],
						 s->points[i].wall_min_ns);
			}
	svg_axis_fit(&c->mbps, v, n);
	for (i = n = 0; v && i < s->npoints; i++)
		if (!s->points[i].failed)
			v[n++] = (double)s->points[i].dominant_calls;
	svg_axis_fit(&c->calls, v, n);
	free(v);
}

static void scale_x(struct chart *c)
{
	const struct sweep *s = c->s;
	size_t i;

	c->numeric = true;
	for (i = 0; i < s->npoints; i++)
		if (isnan(s->points[i].x) || s->points[i].x <= 0)
			c->numeric = false;
	c->xmin = c->numeric ? INFINITY : 0;
	c->xmax = c->numeric ? -INFINITY : (double)(s->npoints - 1);
	for (i = 0; i < s->npoints; i++) {
		c->order[i] = i;
		if (c->numeric) {
			c->xmin = fmin(c->xmin, log10(s->points[i].x));
			c->xmax = fmax(c->xmax, log10(s->points[i].x));
		}
	}
	if (c->numeric)
		qsort_r(c->order, s->npoints, sizeof(*c->order), by_x,
			(void *)s);
}

/*
 * Each label in the first row where it clears the last label there by a
 * gap, left to right: 1024 and 1130, a few pixels apart on a log axis,
 * take two rows instead of overprinting.
 */
static void place_labels(struct chart *c)
{
	double *right = malloc(c->s->npoints * sizeof(*right));
	size_t k, i;
	int r;

	c->rows = 1;
	for (k = 0; k < c->s->npoints; k++) {
		i = c->order[k];
		for (r = 0; right && r < c->rows; r++)
			if (px(c, i) - label_w(c, i) / 2 > right[r] + 6)
				break;
		if (right && r == c->rows)
			c->rows++;
		c->row[i] = right ? r : 0;
		if (right)
			right[r] = px(c, i) + label_w(c, i) / 2;
	}
	free(right);
}

static void ticks(FILE *f, const struct svg_axis *a, const char *id,
		  bool left, const char *color)
{
	char buf[32];
	size_t k;

	fprintf(f, "<g id=\"%s\" class=\"axis %s\" fill=\"%s\">\n", id,
		a->log ? "log" : "linear", color);
	for (k = 0; k < a->nticks; k++) {
		double y = py(a, a->ticks[k]);

		svg_tick_label(buf, sizeof(buf), a->ticks[k]);
		if (left)
			fprintf(f, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" "
				"y2=\"%.1f\" stroke=\"#eee\"/>\n", LEFT,
				LEFT + PW, y, y);
		fprintf(f, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" "
			"text-anchor=\"%s\">%s</text>\n",
			left ? LEFT - 6 : LEFT + PW + 6, y + 4,
			left ? "end" : "start", buf);
	}
	fputs("</g>\n", f);
}

static void axis_titles(FILE *f, const struct chart *c)
{
	int mid = TOP + PH / 2;

	fprintf(f, "<text id=\"mbps-title\" x=\"20\" y=\"%d\" fill=\"%s\" "
		"transform=\"rotate(-90 20 %d)\" text-anchor=\"middle\">MB/s "
		"(untraced wall%s)</text>\n", mid, MBPS_COLOR, mid,
		c->mbps.log ? ", log" : "");
	fprintf(f, "<text id=\"calls-title\" x=\"%d\" y=\"%d\" fill=\"%s\" "
		"transform=\"rotate(90 %d %d)\" text-anchor=\"middle\">calls "
		"of the dominant syscall (traced%s)</text>\n", W - 20, mid,
		CALLS_COLOR, W - 20, mid, c->calls.log ? ", log" : "");
	fprintf(f, "<text id=\"x-title\" x=\"%d\" y=\"%d\" "
		"text-anchor=\"middle\">", LEFT + PW / 2, bottom(c) + 16);
	put_fitted(f, c->s->key, 32);
	fprintf(f, "%s</text>\n", c->numeric ? " (log scale)" :
		" (names: points not joined)");
}

static void x_labels(FILE *f, const struct chart *c)
{
	size_t i;

	fputs("<g id=\"x-labels\" text-anchor=\"middle\">\n", f);
	for (i = 0; i < c->s->npoints; i++) {
		fprintf(f, "<text class=\"x-label\" x=\"%.1f\" y=\"%d\">",
			px(c, i), TOP + PH + 18 + c->row[i] * ROW);
		if (strlen(label_of(c, i)) > LABEL_MAX) {
			fputs("<title>", f);
			put_escaped(f, label_of(c, i));
			fputs("</title>", f);
		}
		put_fitted(f, label_of(c, i), LABEL_MAX);
		fputs("</text>\n", f);
	}
	fputs("</g>\n", f);
}

static double value_y(const struct chart *c, size_t i, bool calls)
{
	const struct sweep_point *pt = &c->s->points[i];

	return calls ? py(&c->calls, (double)pt->dominant_calls) :
		       py(&c->mbps, sweep_point_mbps(pt));
}

static bool plotted(const struct chart *c, size_t i, bool calls)
{
	const struct sweep_point *pt = &c->s->points[i];

	return !pt->failed && (calls || has_mbps(pt));
}

/*
 * Lines between consecutive plotted points in x order, broken where a
 * point has no value (failed, or no bytes known); none for names.
 */
static void lines(FILE *f, const struct chart *c, bool calls,
		  const char *color)
{
	size_t k, i, run = 0;

	if (!c->numeric)
		return;
	for (k = 0; k <= c->s->npoints; k++) {
		i = k < c->s->npoints ? c->order[k] : 0;
		if (k < c->s->npoints && plotted(c, i, calls)) {
			if (!run++)
				fprintf(f, "<polyline class=\"line\" fill=\""
					"none\" stroke=\"%s\" stroke-width="
					"\"2\" points=\"", color);
			fprintf(f, "%.1f,%.1f ", px(c, i),
				value_y(c, i, calls));
			continue;
		}
		if (run)
			fputs("\"/>\n", f);
		run = 0;
	}
}

/* The spread of a point's untraced runs, as a bar over its marker. */
static void spread_bar(FILE *f, const struct chart *c, size_t i)
{
	const struct sweep_point *pt = &c->s->points[i];
	double lo = py(&c->mbps, mbps_at(pt, pt->wall_max_ns));
	double hi = py(&c->mbps, mbps_at(pt, pt->wall_min_ns));

	if (pt->runs < 2)
		return;
	fprintf(f, "<path class=\"spread\" d=\"M%.1f,%.1fV%.1fM%.1f,%.1fh8"
		"M%.1f,%.1fh8\" stroke=\"%s\" fill=\"none\"/>\n", px(c, i),
		lo, hi, px(c, i) - 4, lo, px(c, i) - 4, hi, MBPS_COLOR);
}

/* MB/s as circles with their spread; calls as squares, told apart in grey. */
static void series(FILE *f, const struct chart *c, bool calls)
{
	const char *color = calls ? CALLS_COLOR : MBPS_COLOR;
	size_t i;

	fprintf(f, "<g id=\"%s\" class=\"series\">\n", calls ? "calls" :
		"mbps");
	lines(f, c, calls, color);
	for (i = 0; i < c->s->npoints; i++) {
		if (!plotted(c, i, calls))
			continue;
		if (calls) {
			fprintf(f, "<rect class=\"point\" x=\"%.1f\" y=\""
				"%.1f\" width=\"7\" height=\"7\" fill=\"%s\""
				"/>\n", px(c, i) - 3.5,
				value_y(c, i, true) - 3.5, color);
			continue;
		}
		spread_bar(f, c, i);
		fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" "
			"r=\"4\" fill=\"%s\"/>\n", px(c, i),
			value_y(c, i, false), color);
	}
	fputs("</g>\n", f);
}

/* A failed point: a cross on the x axis and the word, no value. */
static void failed(FILE *f, const struct chart *c)
{
	size_t i;
	double x, y = TOP + PH;

	fputs("<g id=\"failed\">\n", f);
	for (i = 0; i < c->s->npoints; i++) {
		if (!c->s->points[i].failed)
			continue;
		x = px(c, i);
		fprintf(f, "<g class=\"failed\"><path d=\"M%.1f,%.1fl10,-10"
			"M%.1f,%.1fl10,10\" stroke=\"%s\" stroke-width=\"2\""
			"/><text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\""
			" fill=\"%s\">failed (exit %d)</text></g>\n",
			x - 5, y + 5, x - 5, y - 5, CALLS_COLOR, x, y - 12,
			CALLS_COLOR, c->s->points[i].status);
	}
	fputs("</g>\n", f);
}

/* "best" over a clear best, or the word "tie" once, over the tied. */
static void verdict_word(FILE *f, const struct chart *c, double x, double y)
{
	fprintf(f, "<text class=\"verdict\" x=\"%.1f\" y=\"%.1f\" "
		"text-anchor=\"middle\" font-weight=\"bold\">%s</text>\n", x,
		y < TOP + 12 ? TOP + 12 : y,
		c->j.verdict == SWEEP_BEST ? "best" : "tie");
}

/*
 * The verdict on the chart: "best" over a clear best; a ring round each
 * tied point and one "tie" over their middle, never a word per point
 * (two close points would overprint it); nothing otherwise.
 */
static void verdict_marks(FILE *f, const struct chart *c)
{
	double lo = INFINITY, hi = -INFINITY, top = TOP + PH;
	size_t i;

	for (i = 0; i < c->s->npoints; i++) {
		if (c->j.verdict == SWEEP_BEST ? i != c->j.best :
		    c->j.verdict != SWEEP_TIE || !sweep_tied(c->s, &c->j, i))
			continue;
		lo = fmin(lo, px(c, i));
		hi = fmax(hi, px(c, i));
		top = fmin(top, plotted(c, i, false) ? value_y(c, i, false) :
					 (double)TOP + 28);
		if (c->j.verdict == SWEEP_TIE && plotted(c, i, false))
			fprintf(f, "<circle class=\"tie\" cx=\"%.1f\" "
				"cy=\"%.1f\" r=\"8\" fill=\"none\" stroke="
				"\"#000\"/>\n", px(c, i),
				value_y(c, i, false));
	}
	if (lo <= hi)
		verdict_word(f, c, (lo + hi) / 2, top - 14);
}

static const char *verdict_text(const struct chart *c)
{
	switch (c->j.verdict) {
	case SWEEP_BEST:
		return "best: its spread over the untraced runs is clear of "
		       "the others'";
	case SWEEP_TIE:
		return "tie: spreads over the untraced runs overlap, no best";
	case SWEEP_ONE_RUN:
		return "1 run per point: the best is not told from noise";
	case SWEEP_NONE:
		break;
	}
	return "every point failed";
}

/* The title, cut to fit, and the legend and verdict under it. */
static void heading(FILE *f, const struct chart *c)
{
	bool any = false;
	size_t i;

	for (i = 0; i < c->s->npoints; i++)
		any |= plotted(c, i, false);
	fprintf(f, "<text id=\"title\" x=\"%d\" y=\"26\" font-size=\"16\">"
		"iotrace sweep of ", LEFT);
	put_fitted(f, c->s->key, 32);
	fputs("</text>\n", f);
	fprintf(f, "<text id=\"legend\" x=\"%d\" y=\"46\"><tspan fill=\"%s\""
		">\xe2\x97\x8f MB/s untraced (bar: spread of the runs)</tspan> "
		"<tspan fill=\"%s\">\xe2\x96\xa0 calls traced</tspan>"
		"</text>\n", LEFT, MBPS_COLOR, CALLS_COLOR);
	fprintf(f, "<text id=\"verdict\" x=\"%d\" y=\"62\" fill=\"#555\">%s"
		"</text>\n", LEFT, any ? verdict_text(c) : "no throughput: "
		"bytes not known (count-only run) or every point failed");
}

static int draw(FILE *f, struct chart *c)
{
	fit_axes(c);
	scale_x(c);
	place_labels(c);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
		"width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"font-family=\"sans-serif\" font-size=\"12\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		W, height(c), W, height(c));
	heading(f, c);
	ticks(f, &c->mbps, "mbps-axis", true, MBPS_COLOR);
	ticks(f, &c->calls, "calls-axis", false, CALLS_COLOR);
	fprintf(f, "<rect id=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" "
		"height=\"%d\" fill=\"none\" stroke=\"#888\"/>\n", LEFT, TOP,
		PW, PH);
	axis_titles(f, c);
	x_labels(f, c);
	series(f, c, false);
	series(f, c, true);
	failed(f, c);
	verdict_marks(f, c);
	fputs("</svg>\n", f);
	return ferror(f) ? -1 : 0;
}

int svg_render(FILE *f, const struct sweep *s)
{
	struct chart c = { .s = s };
	int err = -1;

	if (!s->npoints)
		return -1;
	sweep_judge(s, &c.j);
	c.order = calloc(s->npoints, sizeof(*c.order));
	c.row = calloc(s->npoints, sizeof(*c.row));
	if (c.order && c.row)
		err = draw(f, &c);
	free(c.order);
	free(c.row);
	return err;
}
