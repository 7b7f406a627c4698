// SPDX-License-Identifier: MIT
/*
 * The text report: the header (header.c) that ties the syscall table to
 * the wall clock, then strace -c's table, column for column (same headers, widths,
 * dashed rules and total row) so any strace -c parser reads it; with -U,
 * the columns chosen, laid out as strace 6 lays out the same -U.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

#define CELL_MAX 64

/*
 * The table's columns (-U's, or strace's six) and their widths, as
 * strace 6's count.c lays them out: each at least its historical width,
 * grown to its widest cell (the total's included); the name column
 * left-aligned, one wider than the longest name, and unpadded when last.
 * One space between columns.
 */
struct layout {
	const struct column *col[REPORT_COLUMNS_MAX];
	int width[REPORT_COLUMNS_MAX];
	size_t n;
	struct cell_ctx x;
};

static void row_cells(char (*buf)[CELL_MAX], const struct layout *l,
		      const struct profile_row *r, bool total)
{
	const struct column *c;
	size_t i;

	for (i = 0; i < l->n; i++) {
		c = l->col[i];
		(total && c->total ? c->total : c->text)(buf[i], CELL_MAX, r,
							 &l->x);
	}
}

/* strace measures names over the syscalls only, not "total". */
static void widen(struct layout *l, const struct profile_row *r, bool total)
{
	char buf[REPORT_COLUMNS_MAX][CELL_MAX];
	bool left;
	size_t i;
	int len;

	row_cells(buf, l, r, total);
	for (i = 0; i < l->n; i++) {
		left = l->col[i]->flags & COLF_LEFT;
		if (left && total)
			continue;
		len = (int)strlen(buf[i]) + left;
		if (len > l->width[i])
			l->width[i] = len;
	}
}

static void print_cells(FILE *f, const struct layout *l,
			const char *const *cells)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (i)
			fputc(' ', f);
		if (!(l->col[i]->flags & COLF_LEFT))
			fprintf(f, "%*s", l->width[i], cells[i]);
		else if (i + 1 < l->n)
			fprintf(f, "%-*s", l->width[i], cells[i]);
		else
			fputs(cells[i], f);
	}
	fputc('\n', f);
}

static void print_row(FILE *f, const struct layout *l,
		      const struct profile_row *r, bool total)
{
	char buf[REPORT_COLUMNS_MAX][CELL_MAX];
	const char *cells[REPORT_COLUMNS_MAX];
	size_t i;

	row_cells(buf, l, r, total);
	for (i = 0; i < l->n; i++)
		cells[i] = buf[i];
	print_cells(f, l, cells);
}

static void print_rule(FILE *f, const struct layout *l)
{
	size_t i;
	int j;

	for (i = 0; i < l->n; i++) {
		if (i)
			fputc(' ', f);
		for (j = 0; j < l->width[i]; j++)
			fputc('-', f);
	}
	fputc('\n', f);
}

static void print_headers(FILE *f, const struct layout *l)
{
	const char *cells[REPORT_COLUMNS_MAX];
	size_t i;

	for (i = 0; i < l->n; i++)
		cells[i] = l->col[i]->header;
	print_cells(f, l, cells);
}

/*
 * The total line is a row of its own whose cells are the sums of the
 * rows' cells: its seconds the rows' seconds added up, as printed, and
 * its usecs/call those seconds over all the calls; shortest and longest
 * the rows' extremes, its percentiles from the rows' buckets together.
 */
static void total_row(struct profile_row *tr, const struct profile *p,
		      const struct profile_totals *t)
{
	const struct profile_row *r;
	size_t b;

	memset(tr, 0, sizeof(*tr));
	tr->pers = PROFILE_PERS_NONE;
	snprintf(tr->unknown, sizeof(tr->unknown), "total");
	tr->calls = t->calls;
	tr->errors = t->errors;
	tr->timed = t->timed;
	tr->time_ns = t->time_us * 1000;
	tr->raw_time_ns = t->raw_time_us * 1000;
	tr->min_ns = UINT64_MAX;
	for (r = p->rows; r < p->rows + p->nrows; r++) {
		tr->bytes_done += r->bytes_done;
		if (!r->timed)
			continue;
		tr->min_ns = r->min_ns < tr->min_ns ? r->min_ns : tr->min_ns;
		tr->max_ns = r->max_ns > tr->max_ns ? r->max_ns : tr->max_ns;
		for (b = 0; b < PROFILE_HIST_BUCKETS; b++)
			tr->hist[b] += r->hist[b];
	}
	if (!tr->timed)
		tr->min_ns = 0;
}

static void layout_init(struct layout *l, const struct profile *p,
			const struct profile_row *const *rows,
			const struct profile_row *total)
{
	size_t i;

	l->n = report_columns(l->x.o, false, l->col);
	for (i = 0; i < l->n; i++) {
		l->width[i] = l->col[i]->width;
		if ((int)strlen(l->col[i]->header) > l->width[i])
			l->width[i] = (int)strlen(l->col[i]->header);
	}
	for (i = 0; i < p->nrows; i++)
		if (rows[i]->calls)
			widen(l, rows[i], false);
	widen(l, total, true);
}

/*
 * What the table's cells cannot say.  "-" marks rows counted only
 * (-e count=, --count-only); a row of which the engine timed some
 * calls only is numbers, its seconds those of the timed calls: a line
 * says which rows, after the table, where strace -c parsers look no
 * more.
 */
static void print_notes(FILE *f, const struct profile *p,
			const struct profile_row *const *rows)
{
	char name[PROFILE_ROW_LABEL_MAX];
	const struct profile_row *r;
	bool dash = false;
	size_t i;

	for (i = 0; i < p->nrows; i++)
		dash |= rows[i]->calls && !rows[i]->timed;
	if (dash)
		fputs("(-: counted only, without an exit stop, so no time "
		      "and no errors; see -e count=)\n", f);
	for (i = 0; i < p->nrows; i++) {
		r = rows[i];
		if (!r->timed || r->timed == r->calls)
			continue;
		fprintf(f, "(%s: %llu of %llu calls counted only, not timed; "
			"its seconds are of the %llu timed, its usecs/call "
			"over all %llu)\n",
			profile_row_label(r, name, sizeof(name)),
			(unsigned long long)(r->calls - r->timed),
			(unsigned long long)r->calls,
			(unsigned long long)r->timed,
			(unsigned long long)r->calls);
	}
}

/* Each shown column's note: what its cells are over, where it says. */
static void print_column_notes(FILE *f, const struct layout *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->col[i]->note)
			l->col[i]->note(f, &l->x);
}

int table_render(FILE *f, const struct profile *p, const struct report_opts *o)
{
	const struct profile_row **rows = profile_sorted(p, o);
	struct profile_totals t;
	struct profile_row total;
	struct layout l;
	size_t i;

	if (!rows)
		return -1;
	profile_totals(p, &t);
	cell_ctx_init(&l.x, p, &t, o);
	total_row(&total, p, &t);
	layout_init(&l, p, rows, &total);
	header_render(f, p, o);
	print_headers(f, &l);
	print_rule(f, &l);
	for (i = 0; i < p->nrows; i++)
		if (rows[i]->calls)
			print_row(f, &l, rows[i], false);
	print_rule(f, &l);
	print_row(f, &l, &total, true);
	print_notes(f, p, rows);
	print_column_notes(f, &l);
	truth_render(f, p, o);
	free(rows);
	if (breakdown_render(f, p, o) < 0 || histogram_render(f, p, o) < 0 ||
	    findings_render(f, p, o) < 0)
		return -1;
	return ferror(f) ? -1 : 0;
}
