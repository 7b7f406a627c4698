// SPDX-License-Identifier: MIT
/*
 * The CSV renderer, for spreadsheets: a header row, then one row per
 * syscall in -S order.  The first columns are table_columns[] as the text
 * table shows them (so a column added there appears here too); the rest
 * are the raw integers in ns and bytes that the text rounds.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "reports/profile.h"

static const struct {
	const char *name;
	size_t offset;
} raw_fields[] = {
	{ "timed", offsetof(struct profile_row, timed) },
	{ "time_ns", offsetof(struct profile_row, time_ns) },
	{ "raw_time_ns", offsetof(struct profile_row, raw_time_ns) },
	{ "min_ns", offsetof(struct profile_row, min_ns) },
	{ "max_ns", offsetof(struct profile_row, max_ns) },
	{ "errno_other", offsetof(struct profile_row, errno_other) },
	{ "bytes_req", offsetof(struct profile_row, bytes_req) },
	{ "bytes_done", offsetof(struct profile_row, bytes_done) },
	{ "short_calls", offsetof(struct profile_row, short_calls) },
};

#define NRAW (sizeof(raw_fields) / sizeof(raw_fields[0]))

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

static void put_header(FILE *f)
{
	const struct column *c;
	size_t i;

	for (c = table_columns; c->name; c++)
		put_cell(f, c->name, c == table_columns);
	for (i = 0; i < NRAW; i++)
		put_cell(f, raw_fields[i].name, false);
	fputc('\n', f);
}

static uint64_t raw_value(const struct profile_row *r, size_t i)
{
	uint64_t v = *(const uint64_t *)((const char *)r +
					 raw_fields[i].offset);

	/* An untimed row keeps UINT64_MAX as its minimum: say 0. */
	if (raw_fields[i].offset == offsetof(struct profile_row, min_ns) &&
	    !r->timed)
		return 0;
	return v;
}

static void put_row(FILE *f, const struct profile_row *r,
		    const struct profile_totals *t, const struct report_opts *o)
{
	const struct column *c;
	char buf[64];
	size_t i;

	for (c = table_columns; c->name; c++) {
		c->text(buf, sizeof(buf), r, t, o);
		put_cell(f, buf, c == table_columns);
	}
	for (i = 0; i < NRAW; i++) {
		snprintf(buf, sizeof(buf), "%llu",
			 (unsigned long long)raw_value(r, i));
		put_cell(f, buf, false);
	}
	fputc('\n', f);
}

int csv_render(FILE *f, const struct profile *p, const struct report_opts *o)
{
	const struct profile_row **rows = profile_sorted(p, o);
	struct profile_totals t;
	size_t i;

	if (!rows)
		return -1;
	profile_totals(p, &t);
	put_header(f);
	for (i = 0; i < p->nrows; i++)
		if (rows[i]->calls)
			put_row(f, rows[i], &t, o);
	free(rows);
	return ferror(f) ? -1 : 0;
}
