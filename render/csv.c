// SPDX-License-Identifier: MIT
/*
 * The CSV renderers, for spreadsheets.  --format=csv: a header row, then
 * one row per syscall in -S order.  The first columns are table_columns[]
 * as the text table shows them (so a column added there appears here
 * too), or with -U the columns it chose, in its order; the rest are the
 * raw integers in ns and bytes that the text rounds, and last how far the row's corrected time can be trusted
 * (time_uncertainty_ns, below_resolution: empty where the run does not
 * say, as in strace tables and older files).
 * --format=csv-breakdown: one table of the sub-rows of every dimension
 * (per file today), its first column the dimension's name so a
 * spreadsheet filter picks one; then the syscall, the key and second key
 * as the reports print them, and profile_sub_counters[].
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

/*
 * RFC 4180 quoting: a cell holding a comma, quote or line break is quoted.
 * Lines end in \n, not CRLF, for the shell tools that read CSV too.
 */
static void put_cell(FILE *f, const char *s, bool first)
{
	if (!first)
		fputc(',', f);
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_header(FILE *f, const struct column *const *cols, size_t n)
{
	const struct profile_counter *k;
	size_t i;

	for (i = 0; i < n; i++)
		put_cell(f, cols[i]->name, !i);
	for (k = profile_counters; k->name; k++)
		if (!k->column)
			put_cell(f, k->name, false);
	put_cell(f, "time_uncertainty_ns", false);
	put_cell(f, "below_resolution", false);
	fputc('\n', f);
}

/* The correction errs alike on every call of a run: timed x resolution. */
static void put_resolution(FILE *f, const struct profile_row *r,
			   uint64_t resolution_ns)
{
	char buf[32] = "";

	if (resolution_ns && r->timed)
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)(r->timed * resolution_ns));
	put_cell(f, buf, false);
	put_cell(f, !resolution_ns || !r->timed ? "" :
		 r->time_ns / r->timed < resolution_ns ? "1" : "0", false);
}

static void put_row(FILE *f, const struct profile_row *r,
		    const struct cell_ctx *x, const struct column *const *cols,
		    size_t n, uint64_t resolution_ns)
{
	const struct profile_counter *k;
	char buf[64];
	size_t i;

	for (i = 0; i < n; i++) {
		cols[i]->text(buf, sizeof(buf), r, x);
		put_cell(f, buf, !i);
	}
	for (k = profile_counters; k->name; k++) {
		if (k->column)
			continue;
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)profile_counter_get(r, k));
		put_cell(f, buf, false);
	}
	put_resolution(f, r, resolution_ns);
	fputc('\n', f);
}

int csv_render(FILE *f, const struct profile *p, const struct report_opts *o)
{
	const struct profile_row **rows = profile_sorted(p, o);
	const struct column *cols[REPORT_COLUMNS_MAX];
	struct profile_estimate e;
	struct profile_totals t;
	struct cell_ctx x;
	size_t i, n;

	if (!rows)
		return -1;
	profile_totals(p, &t);
	profile_untraced(p, &e);
	cell_ctx_init(&x, p, &t, o);
	n = report_columns(o, true, cols);
	put_header(f, cols, n);
	for (i = 0; i < p->nrows; i++)
		if (rows[i]->calls)
			put_row(f, rows[i], &x, cols, n,
				o->raw_time ? 0 : e.resolution_ns);
	free(rows);
	return ferror(f) ? -1 : 0;
}

static void put_breakdown_header(FILE *f)
{
	const struct profile_sub_counter *c;

	put_cell(f, "dimension", true);
	put_cell(f, "syscall", false);
	put_cell(f, "key", false);
	put_cell(f, "key2", false);
	for (c = profile_sub_counters; c->name; c++)
		put_cell(f, c->name, false);
	fputc('\n', f);
}

/* Sub-rows in first-seen order, as the JSON has them. */
static void put_breakdown(FILE *f, const struct profile *p,
			  const struct profile_breakdown *b)
{
	const struct profile_sub_counter *c;
	char key[PROFILE_LABEL_MAX], num[24], name[PROFILE_ROW_LABEL_MAX];
	const struct profile_sub *s;

	for (s = b->subs; s < b->subs + b->nsubs; s++) {
		put_cell(f, b->dim->name, true);
		put_cell(f, profile_row_label(&p->rows[s->row], name,
					      sizeof(name)), false);
		b->dim->label(key, sizeof(key), profile_key(b, s->key));
		put_cell(f, key, false);
		key[0] = '\0';
		if (s->key2 != PROFILE_KEY_NONE)
			b->dim->label(key, sizeof(key),
				      profile_key(b, s->key2));
		put_cell(f, key, false);
		for (c = profile_sub_counters; c->name; c++) {
			snprintf(num, sizeof(num), "%llu", (unsigned long long)
				 profile_sub_counter_get(s, c));
			put_cell(f, num, false);
		}
		fputc('\n', f);
	}
}

int csv_breakdown_render(FILE *f, const struct profile *p,
			 const struct report_opts *o)
{
	const struct profile_breakdown *b;

	(void)o;
	put_breakdown_header(f);
	for (b = p->breakdowns; b < p->breakdowns + PROFILE_DIMS_MAX &&
				b->dim; b++)
		put_breakdown(f, p, b);
	return ferror(f) ? -1 : 0;
}
