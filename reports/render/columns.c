// SPDX-License-Identifier: MIT
/*
 * The columns of the syscall table, as data.  The six strace -c columns
 * come first and in strace's order; the rest are available to -S, CSV
 * and JSON.  Adding a column is one row here.
 */
#include <stdlib.h>
#include <string.h>
#include "reports/render/render.h"

uint64_t row_time(const struct profile_row *r, const struct report_opts *o)
{
	return o && o->raw_time ? r->raw_time_ns : r->time_ns;
}

uint64_t totals_time(const struct profile_totals *t,
		     const struct report_opts *o)
{
	return o && o->raw_time ? t->raw_time_ns : t->time_ns;
}

/*
 * The time a row's seconds cell shows, in whole microseconds.  % time,
 * usecs/call and the total row are computed from it, not from the
 * nanoseconds, so that the printed cells agree with one another: the
 * total's seconds are the rows' added up, and usecs/call is the
 * seconds cell over the calls cell.
 */
uint64_t row_time_us(const struct profile_row *r, const struct report_opts *o)
{
	return profile_round_us(row_time(r, o));
}

uint64_t totals_time_us(const struct profile_totals *t,
			const struct report_opts *o)
{
	return o && o->raw_time ? t->raw_time_us : t->time_us;
}

void fmt_seconds_us(char *b, size_t n, uint64_t us)
{
	snprintf(b, n, "%llu.%06llu", (unsigned long long)(us / 1000000),
		 (unsigned long long)(us % 1000000));
}

/*
 * usecs/call: seconds over calls, truncated to whole microseconds as
 * strace's count.c truncates it, over every call of the row (one an
 * engine counted without timing it too).  strace divides the
 * nanoseconds, so its own table can read 0.000142 s for one call and
 * 141 usecs/call; this divides the seconds cell, so a parser that
 * recomputes the quotient from the cells finds it.
 */
uint64_t avg_us(uint64_t us, uint64_t calls)
{
	return calls ? us / calls : 0;
}

/* Count-only rows (no exit stop) have no time: never invent one. */
static bool untimed(const struct profile_row *r)
{
	return r->calls && !r->timed;
}

static void text_percent(char *b, size_t n, const struct profile_row *r,
			 const struct profile_totals *t,
			 const struct report_opts *o)
{
	uint64_t total = totals_time_us(t, o);

	if (untimed(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.2f",
			 total ? 100.0 * (double)row_time_us(r, o) /
				 (double)total : 0.0);
}

static void text_seconds(char *b, size_t n, const struct profile_row *r,
			 const struct profile_totals *t,
			 const struct report_opts *o)
{
	(void)t;
	if (untimed(r))
		snprintf(b, n, "-");
	else
		fmt_seconds_us(b, n, row_time_us(r, o));
}

static uint64_t row_avg_us(const struct profile_row *r,
			   const struct report_opts *o)
{
	return r->timed ? avg_us(row_time_us(r, o), r->calls) : 0;
}

static void text_avg(char *b, size_t n, const struct profile_row *r,
		     const struct profile_totals *t, const struct report_opts *o)
{
	(void)t;
	if (untimed(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu", (unsigned long long)row_avg_us(r, o));
}

static void text_calls(char *b, size_t n, const struct profile_row *r,
		       const struct profile_totals *t,
		       const struct report_opts *o)
{
	(void)t;
	(void)o;
	snprintf(b, n, "%llu", (unsigned long long)r->calls);
}

/* Like strace, a syscall without errors leaves the cell blank. */
static void text_errors(char *b, size_t n, const struct profile_row *r,
			const struct profile_totals *t,
			const struct report_opts *o)
{
	(void)t;
	(void)o;
	if (untimed(r))
		snprintf(b, n, "-");
	else if (r->errors)
		snprintf(b, n, "%llu", (unsigned long long)r->errors);
	else
		b[0] = '\0';
}

static void text_name(char *b, size_t n, const struct profile_row *r,
		      const struct profile_totals *t, const struct report_opts *o)
{
	(void)t;
	(void)o;
	profile_row_label(r, b, n);
}

static void text_min(char *b, size_t n, const struct profile_row *r,
		     const struct profile_totals *t, const struct report_opts *o)
{
	(void)t;
	(void)o;
	if (!r->timed)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu", (unsigned long long)(r->min_ns / 1000));
}

static void text_max(char *b, size_t n, const struct profile_row *r,
		     const struct profile_totals *t, const struct report_opts *o)
{
	(void)t;
	(void)o;
	if (!r->timed)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu", (unsigned long long)(r->max_ns / 1000));
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/*
 * Time and usecs/call sort by the cells as printed, ties then by calls
 * and name: a table read back (iotrace report) sorts as it was printed.
 */
static int cmp_time(const struct profile_row *a, const struct profile_row *b,
		    const struct report_opts *o)
{
	return cmp_u64(row_time_us(a, o), row_time_us(b, o));
}

static int cmp_avg(const struct profile_row *a, const struct profile_row *b,
		   const struct report_opts *o)
{
	return cmp_u64(row_avg_us(a, o), row_avg_us(b, o));
}

static int cmp_calls(const struct profile_row *a, const struct profile_row *b,
		     const struct report_opts *o)
{
	(void)o;
	return cmp_u64(a->calls, b->calls);
}

static int cmp_errors(const struct profile_row *a, const struct profile_row *b,
		      const struct report_opts *o)
{
	(void)o;
	return cmp_u64(a->errors, b->errors);
}

/* By the names the table shows ("write" before "write/i386"). */
static int cmp_labels(const struct profile_row *a, const struct profile_row *b)
{
	char la[PROFILE_ROW_LABEL_MAX], lb[PROFILE_ROW_LABEL_MAX];

	return strcmp(profile_row_label(a, la, sizeof(la)),
		      profile_row_label(b, lb, sizeof(lb)));
}

static int cmp_name(const struct profile_row *a, const struct profile_row *b,
		    const struct report_opts *o)
{
	(void)o;
	return cmp_labels(a, b);
}

static int cmp_min(const struct profile_row *a, const struct profile_row *b,
		   const struct report_opts *o)
{
	(void)o;
	return cmp_u64(a->timed ? a->min_ns : 0, b->timed ? b->min_ns : 0);
}

static int cmp_max(const struct profile_row *a, const struct profile_row *b,
		   const struct report_opts *o)
{
	(void)o;
	return cmp_u64(a->max_ns, b->max_ns);
}

/*
 * Latency percentiles from the log2 histogram: bucket upper bounds, so
 * good to a factor of two (reports/histogram.c).
 */
static void text_pct(char *b, size_t n, const struct profile_row *r,
		     double q)
{
	if (!r->timed)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu", (unsigned long long)
			 (profile_row_percentile(r, q) / 1000));
}

static int cmp_pct(const struct profile_row *a, const struct profile_row *b,
		   double q)
{
	return cmp_u64(profile_row_percentile(a, q),
		       profile_row_percentile(b, q));
}

/* The text and sort functions of the percentile column pQ. */
#define PERCENTILE_COLUMN(q)						\
static void text_p##q(char *b, size_t n, const struct profile_row *r,	\
		      const struct profile_totals *t,			\
		      const struct report_opts *o)			\
{									\
	(void)t;							\
	(void)o;							\
	text_pct(b, n, r, q);						\
}									\
static int cmp_p##q(const struct profile_row *a,			\
		    const struct profile_row *b,			\
		    const struct report_opts *o)			\
{									\
	(void)o;							\
	return cmp_pct(a, b, q);					\
}

PERCENTILE_COLUMN(50)
PERCENTILE_COLUMN(90)
PERCENTILE_COLUMN(99)

const struct column table_columns[] = {
	{ "percent", "% time", 6, true, true, text_percent, cmp_time },
	{ "time", "seconds", 11, true, true, text_seconds, cmp_time },
	{ "avg-time", "usecs/call", 11, true, true, text_avg, cmp_avg },
	{ "calls", "calls", 9, true, true, text_calls, cmp_calls },
	{ "errors", "errors", 9, true, true, text_errors, cmp_errors },
	{ "name", "syscall", 0, true, false, text_name, cmp_name },
	{ "min-time", "usecs/min", 11, false, true, text_min, cmp_min },
	{ "max-time", "usecs/max", 11, false, true, text_max, cmp_max },
	{ "p50", "usecs/p50", 11, false, true, text_p50, cmp_p50 },
	{ "p90", "usecs/p90", 11, false, true, text_p90, cmp_p90 },
	{ "p99", "usecs/p99", 11, false, true, text_p99, cmp_p99 },
	{ NULL, NULL, 0, false, false, NULL, NULL },
};

/*
 * strace's -S words and their aliases, as its man page lists them; strace
 * takes '_' for '-' in every one (time_total, max_time).
 */
static const struct {
	const char *alias, *name;
} column_aliases[] = {
	{ "time-total", "time" },	{ "total-time", "time" },
	{ "time-percent", "percent" },	{ "none", "nothing" },
	{ "time-avg", "avg-time" },	{ "count", "calls" },
	{ "error", "errors" },		{ "syscall", "name" },
	{ "syscall-name", "name" },	{ "time-min", "min-time" },
	{ "shortest", "min-time" },	{ "time-max", "max-time" },
	{ "longest", "max-time" },
};

/* -S nothing: no column, rows stay in the order they were first seen. */
static const struct column column_nothing = { .name = "nothing" };

const struct column *column_find(const char *key)
{
	const struct column *c;
	char word[32], *u;
	size_t i;

	if (snprintf(word, sizeof(word), "%s", key) >= (int)sizeof(word))
		return NULL;
	for (u = word; (u = strchr(u, '_')); u++)
		*u = '-';
	for (i = 0; i < sizeof(column_aliases) / sizeof(column_aliases[0]); i++)
		if (!strcmp(word, column_aliases[i].alias))
			snprintf(word, sizeof(word), "%s",
				 column_aliases[i].name);
	if (!strcmp(word, column_nothing.name))
		return &column_nothing;
	for (c = table_columns; c->name; c++)
		if (!strcmp(c->name, word))
			return c;
	return NULL;
}

/* qsort has no context argument: the comparison reads these. */
static const struct column *sort_column;
static const struct report_opts *sort_opts;

static int cmp_rows(const void *pa, const void *pb)
{
	const struct profile_row *a = *(const struct profile_row *const *)pa;
	const struct profile_row *b = *(const struct profile_row *const *)pb;
	int c = sort_column->cmp(a, b, sort_opts);

	if (sort_column->descending)
		c = -c;
	/* Ties: most calls first, then by name, so output is stable. */
	return c ? c : cmp_u64(b->calls, a->calls) ? cmp_u64(b->calls, a->calls)
						   : cmp_labels(a, b);
}

const struct profile_row **profile_sorted(const struct profile *p,
					  const struct report_opts *o)
{
	const struct profile_row **v = malloc((p->nrows + 1) * sizeof(*v));
	size_t i;

	if (!v)
		return NULL;
	for (i = 0; i < p->nrows; i++)
		v[i] = &p->rows[i];
	sort_column = o && o->sort ? o->sort : column_find("time");
	sort_opts = o;
	if (sort_column->cmp)
		qsort(v, p->nrows, sizeof(*v), cmp_rows);
	return v;
}
