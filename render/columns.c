// SPDX-License-Identifier: MIT
/*
 * The columns of the syscall table, as data.  The six strace -c columns
 * come first and in strace's order; the rest are available to -S, -U
 * (strace 6's words and iotrace's own names: columns_parse) and CSV.
 * Adding a column is one row here.  The cells' number formats
 * (fmt_seconds_us(), fmt_thousands()) are here too, for every renderer.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

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
			 const struct cell_ctx *x)
{
	uint64_t total = totals_time_us(x->t, x->o);

	if (untimed(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.2f",
			 total ? 100.0 * (double)row_time_us(r, x->o) /
				 (double)total : 0.0);
}

/* strace's 100.00 once anything was timed, even of no time at all. */
static void total_percent(char *b, size_t n, const struct profile_row *r,
			  const struct cell_ctx *x)
{
	if (x->t->timed)
		snprintf(b, n, "100.00");
	else
		text_percent(b, n, r, x);
}

static void text_seconds(char *b, size_t n, const struct profile_row *r,
			 const struct cell_ctx *x)
{
	if (untimed(r))
		snprintf(b, n, "-");
	else
		fmt_seconds_us(b, n, row_time_us(r, x->o));
}

static uint64_t row_avg_us(const struct profile_row *r,
			   const struct report_opts *o)
{
	return r->timed ? avg_us(row_time_us(r, o), r->calls) : 0;
}

static void text_avg(char *b, size_t n, const struct profile_row *r,
		     const struct cell_ctx *x)
{
	if (untimed(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu",
			 (unsigned long long)row_avg_us(r, x->o));
}

/*
 * nsecs/call: the nanoseconds (JSON time_ns, or raw_time_ns) over every
 * call of the row, truncated, for calls under a microsecond that
 * usecs/call shows as 0.  Not the seconds cell over calls: that cell
 * is rounded to microseconds, which is what this column is for.
 */
static uint64_t row_avg_ns(const struct profile_row *r,
			   const struct report_opts *o)
{
	return r->timed && r->calls ? row_time(r, o) / r->calls : 0;
}

static void text_avg_ns(char *b, size_t n, const struct profile_row *r,
			const struct cell_ctx *x)
{
	if (untimed(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu",
			 (unsigned long long)row_avg_ns(r, x->o));
}

/* The total row's time is its seconds cell: take the ns of the totals. */
static void total_avg_ns(char *b, size_t n, const struct profile_row *r,
			 const struct cell_ctx *x)
{
	if (untimed(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu", (unsigned long long)(x->t->calls ?
			 totals_time(x->t, x->o) / x->t->calls : 0));
}

static void text_calls(char *b, size_t n, const struct profile_row *r,
		       const struct cell_ctx *x)
{
	(void)x;
	snprintf(b, n, "%llu", (unsigned long long)r->calls);
}

/* Like strace, a syscall without errors leaves the cell blank. */
static void text_errors(char *b, size_t n, const struct profile_row *r,
			const struct cell_ctx *x)
{
	(void)x;
	if (untimed(r))
		snprintf(b, n, "-");
	else if (r->errors)
		snprintf(b, n, "%llu", (unsigned long long)r->errors);
	else
		b[0] = '\0';
}

static void text_name(char *b, size_t n, const struct profile_row *r,
		      const struct cell_ctx *x)
{
	(void)x;
	profile_row_label(r, b, n);
}

/* shortest and longest: seconds, as strace 6 prints them ("%.6f"). */
static void text_min(char *b, size_t n, const struct profile_row *r,
		     const struct cell_ctx *x)
{
	(void)x;
	if (!r->timed)
		snprintf(b, n, "-");
	else
		fmt_seconds_us(b, n, profile_round_us(r->min_ns));
}

static void text_max(char *b, size_t n, const struct profile_row *r,
		     const struct cell_ctx *x)
{
	(void)x;
	if (!r->timed)
		snprintf(b, n, "-");
	else
		fmt_seconds_us(b, n, profile_round_us(r->max_ns));
}

/* What the calls moved (their returns); a call that moves none, 0. */
static void text_bytes(char *b, size_t n, const struct profile_row *r,
		       const struct cell_ctx *x)
{
	(void)x;
	if (untimed(r))
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu", (unsigned long long)r->bytes_done);
}

/*
 * The seconds cell over the untraced wall (cell_ctx_init: --baseline's,
 * else the estimate's when it resolves one), waits included: a row's own
 * share, so the total is the rows' added up and may pass 100 where
 * waits span others' work or tasks ran side by side.  "-" where the
 * run has no untraced wall; the note under the table says which.
 */
static void text_untraced(char *b, size_t n, const struct profile_row *r,
			  const struct cell_ctx *x)
{
	if (untimed(r) || !x->untraced_wall_ns)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%.2f", 100.0 * (double)row_time_us(r, x->o) *
			 1e3 / (double)x->untraced_wall_ns);
}

static void note_untraced(FILE *f, const struct cell_ctx *x)
{
	char w[32];

	if (!x->untraced_wall_ns) {
		fputs("(% untraced: -, this run has no untraced wall: the "
		      "estimate does not resolve one; --baseline measures "
		      "it)\n", f);
		return;
	}
	fmt_seconds_us(w, sizeof(w), profile_round_us(x->untraced_wall_ns));
	fprintf(f, "(%% untraced: the seconds over the untraced wall, %s s "
		"%s; waits included)\n", w, x->untraced_measured ?
		"measured (--baseline, median)" : "estimated");
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

static int cmp_avg_ns(const struct profile_row *a, const struct profile_row *b,
		      const struct report_opts *o)
{
	return cmp_u64(row_avg_ns(a, o), row_avg_ns(b, o));
}

static int cmp_bytes(const struct profile_row *a, const struct profile_row *b,
		     const struct report_opts *o)
{
	(void)o;
	return cmp_u64(a->bytes_done, b->bytes_done);
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
 * good to a factor of two (render/histogram.c).
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
		      const struct cell_ctx *x)				\
{									\
	(void)x;							\
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

/*
 * strace's six first, in its order and with its headers and least
 * widths (count.c: the widths grow to the widest cell); shortest and
 * longest as strace 6's -U shows them; then iotrace's own.
 */
#define COL(name, header, width, flags, text, total, cmp, note) \
	{ name, header, width, flags, text, total, cmp, note }
const struct column table_columns[] = {
	COL("percent", "% time", 6, COLF_TABLE | COLF_DESC, text_percent,
	    total_percent, cmp_time, NULL),
	COL("time", "seconds", 11, COLF_TABLE | COLF_DESC, text_seconds,
	    NULL, cmp_time, NULL),
	COL("avg-time", "usecs/call", 11, COLF_TABLE | COLF_DESC, text_avg,
	    NULL, cmp_avg, NULL),
	COL("calls", "calls", 9, COLF_TABLE | COLF_DESC, text_calls, NULL,
	    cmp_calls, NULL),
	COL("errors", "errors", 9, COLF_TABLE | COLF_DESC, text_errors, NULL,
	    cmp_errors, NULL),
	COL("name", "syscall", 16, COLF_TABLE | COLF_LEFT, text_name, NULL,
	    cmp_name, NULL),
	COL("min-time", "shortest", 8, COLF_DESC, text_min, NULL, cmp_min,
	    NULL),
	COL("max-time", "longest", 7, COLF_DESC, text_max, NULL, cmp_max,
	    NULL),
	COL("p50", "usecs/p50", 11, COLF_DESC, text_p50, NULL, cmp_p50, NULL),
	COL("p90", "usecs/p90", 11, COLF_DESC, text_p90, NULL, cmp_p90, NULL),
	COL("p99", "usecs/p99", 11, COLF_DESC, text_p99, NULL, cmp_p99, NULL),
	COL("avg-ns", "nsecs/call", 11, COLF_DESC, text_avg_ns, total_avg_ns,
	    cmp_avg_ns, NULL),
	COL("bytes", "bytes", 11, COLF_DESC, text_bytes, NULL, cmp_bytes,
	    NULL),
	COL("untraced-percent", "% untraced", 10, COLF_DESC, text_untraced,
	    NULL, cmp_time, note_untraced),
	{ NULL, NULL, 0, 0, NULL, NULL, NULL, NULL },
};
_Static_assert(sizeof(table_columns) / sizeof(table_columns[0]) - 1 <=
	       REPORT_COLUMNS_MAX, "-U can choose every column");

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

	if (sort_column->flags & COLF_DESC)
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

/*
 * strace 6's -U words (count.c's column_aliases[]), '_' read as '-' as
 * in -S.  Where -U and -S disagree, -U's own meaning holds: "time" is
 * the % time column here, the seconds for -S (whose sort is the same).
 */
static const struct {
	const char *word, *name;
} summary_words[] = {
	{ "time", "percent" },		{ "time-percent", "percent" },
	{ "time-total", "time" },	{ "total-time", "time" },
	{ "min-time", "min-time" },	{ "shortest", "min-time" },
	{ "time-min", "min-time" },	{ "max-time", "max-time" },
	{ "longest", "max-time" },	{ "time-max", "max-time" },
	{ "avg-time", "avg-time" },	{ "time-avg", "avg-time" },
	{ "calls", "calls" },		{ "count", "calls" },
	{ "errors", "errors" },		{ "error", "errors" },
	{ "name", "name" },		{ "syscall", "name" },
	{ "syscall-name", "name" },
};

static const struct column *column_named(const char *name)
{
	const struct column *c;

	for (c = table_columns; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* A -U word: strace's, else one of iotrace's columns by its name. */
static const struct column *summary_column(const char *s, size_t len)
{
	char word[32], *u;
	size_t i;

	if (len >= sizeof(word))
		return NULL;
	memcpy(word, s, len);
	word[len] = '\0';
	for (u = word; (u = strchr(u, '_')); u++)
		*u = '-';
	for (i = 0; i < sizeof(summary_words) / sizeof(summary_words[0]); i++)
		if (!strcmp(word, summary_words[i].word))
			return column_named(summary_words[i].name);
	return column_named(word);
}

static bool column_chosen(const struct report_opts *o, const struct column *c)
{
	size_t i;

	for (i = 0; i < o->ncolumns; i++)
		if (o->columns[i] == c)
			return true;
	return false;
}

int columns_parse(struct report_opts *o, const char *list, char *bad,
		  size_t size)
{
	const char *s = list, *comma;
	const struct column *c;
	size_t len;

	o->ncolumns = 0;
	for (;; s = comma + 1) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		snprintf(bad, size, "%.*s", (int)len, s);
		c = summary_column(s, len);
		if (!c)
			return -EINVAL;
		if (column_chosen(o, c))
			return -EEXIST;
		o->columns[o->ncolumns++] = c;
		if (!comma)
			break;
	}
	/* strace: without its name, the table would mean nothing. */
	c = column_named("name");
	if (!column_chosen(o, c))
		o->columns[o->ncolumns++] = c;
	return 0;
}

size_t report_columns(const struct report_opts *o, bool all,
		      const struct column **out)
{
	const struct column *c;
	size_t n = 0;

	if (o && o->ncolumns) {
		memcpy(out, o->columns, o->ncolumns * sizeof(*out));
		return o->ncolumns;
	}
	for (c = table_columns; c->name; c++)
		if (all || (c->flags & COLF_TABLE))
			out[n++] = c;
	return n;
}

/*
 * The untraced wall the % untraced cells divide by: --baseline's median
 * run, else the estimate's when it resolves one; 0 when neither.
 */
void cell_ctx_init(struct cell_ctx *x, const struct profile *p,
		   const struct profile_totals *t, const struct report_opts *o)
{
	struct profile_estimate e;

	memset(x, 0, sizeof(*x));
	x->p = p;
	x->t = t;
	x->o = o;
	if (p->baseline.runs && p->baseline.wall_ns) {
		x->untraced_wall_ns = p->baseline.wall_ns;
		x->untraced_measured = true;
		return;
	}
	profile_untraced(p, &e);
	if (e.known && e.resolved)
		x->untraced_wall_ns = e.wall_ns;
}

const char *fmt_thousands(char *buf, size_t size, uint64_t n)
{
	char tmp[32];
	size_t len, i, o = 0;

	len = (size_t)snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	for (i = 0; i < len && o + 1 < size; i++) {
		if (i && (len - i) % 3 == 0 && o + 2 < size)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}
