// SPDX-License-Identifier: MIT
/*
 * Printing a diff: the headline, which file is BASE and which NEW, then
 * one table row per syscall (columns as data, like table_columns[]),
 * each followed by its sub-rows whose counts changed ("file /tmp/x",
 * indented, in the same columns), and a total row; or the same as JSON
 * (schema "iotrace-diff/1") for scripts.
 */
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "compare/compare.h"

typedef void (*cell_fn)(char *buf, size_t size, const struct diff *d,
			const struct diff_row *r);

static void cell_u64(char *buf, size_t size, const struct profile_row *r,
		     uint64_t v)
{
	if (r)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "-");
}

static void calls_base(char *b, size_t n, const struct diff *d,
		       const struct diff_row *r)
{
	(void)d;
	cell_u64(b, n, r->base, r->base ? r->base->calls : 0);
}

static void calls_new(char *b, size_t n, const struct diff *d,
		      const struct diff_row *r)
{
	(void)d;
	cell_u64(b, n, r->new, r->new ? r->new->calls : 0);
}

static void calls_change(char *b, size_t n, const struct diff *d,
			 const struct diff_row *r)
{
	uint64_t a = r->base ? r->base->calls : 0;
	uint64_t w = r->new ? r->new->calls : 0;

	(void)d;
	if (a == w)
		snprintf(b, n, "0");
	else
		snprintf(b, n, "%c%llu", w > a ? '+' : '-',
			 (unsigned long long)(w > a ? w - a : a - w));
}

/*
 * "-" for an absent row and for a count-only one: no time measured.
 * Seconds and usecs/call as the syscall table prints them (columns.c):
 * whole microseconds, and those over every call of the row.
 */
static void cell_secs(char *b, size_t n, const struct diff *d,
		      const struct profile_row *r)
{
	if (!r || !r->timed)
		snprintf(b, n, "-");
	else
		fmt_seconds_us(b, n, profile_round_us(diff_time(d, r)));
}

static void time_base(char *b, size_t n, const struct diff *d,
		      const struct diff_row *r)
{
	cell_secs(b, n, d, r->base);
}

static void time_new(char *b, size_t n, const struct diff *d,
		     const struct diff_row *r)
{
	cell_secs(b, n, d, r->new);
}

static void ratio(char *b, size_t n, const struct diff *d,
		  const struct diff_row *r)
{
	uint64_t a = diff_time(d, r->base), w = diff_time(d, r->new);

	if (!r->base || !r->new || !r->base->timed || !r->new->timed || !a)
		snprintf(b, n, "-");
	else
		snprintf(b, n, (double)w / (double)a >= 100 ? "%.0fx" : "%.3gx",
			 (double)w / (double)a);
}

static void cell_avg(char *b, size_t n, const struct diff *d,
		     const struct profile_row *r)
{
	if (!r || !r->timed)
		snprintf(b, n, "-");
	else
		snprintf(b, n, "%llu", (unsigned long long)avg_us(
			 profile_round_us(diff_time(d, r)), r->calls));
}

static void avg_base(char *b, size_t n, const struct diff *d,
		     const struct diff_row *r)
{
	cell_avg(b, n, d, r->base);
}

static void avg_new(char *b, size_t n, const struct diff *d,
		    const struct diff_row *r)
{
	cell_avg(b, n, d, r->new);
}

static void name(char *b, size_t n, const struct diff *d,
		 const struct diff_row *r)
{
	(void)d;
	snprintf(b, n, "%s%s", r->name, !r->base ? " (only NEW)" :
		 !r->new ? " (only BASE)" : "");
}

/* Two header lines, so the table stays near strace's width. */
static const struct diff_column {
	const char *head1, *head2;
	int width;		/* 0: the last column */
	cell_fn text;
} columns[] = {
	{ "calls", "BASE", 9, calls_base },
	{ "calls", "NEW", 9, calls_new },
	{ "change", "in calls", 9, calls_change },
	{ "seconds", "BASE", 11, time_base },
	{ "seconds", "NEW", 11, time_new },
	{ "ratio", "NEW/BASE", 8, ratio },
	{ "usecs/call", "BASE", 10, avg_base },
	{ "usecs/call", "NEW", 10, avg_new },
	{ "", "syscall", 0, name },
};

#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

static void print_cells(FILE *f, const char *const *cells)
{
	size_t i;

	for (i = 0; i < NCOLUMNS; i++) {
		if (columns[i].width)
			fprintf(f, "%*s ", columns[i].width, cells[i]);
		else
			fprintf(f, "%s\n", cells[i]);
	}
}

static void print_row(FILE *f, const struct diff *d, const struct diff_row *r)
{
	char buf[NCOLUMNS][2 * PROFILE_LABEL_MAX + 64];
	const char *cells[NCOLUMNS];
	size_t i;

	for (i = 0; i < NCOLUMNS; i++) {
		columns[i].text(buf[i], sizeof(buf[i]), d, r);
		cells[i] = buf[i];
	}
	print_cells(f, cells);
}

static void print_rule(FILE *f)
{
	static const char dashes[] = "----------------";
	size_t i;

	for (i = 0; i < NCOLUMNS; i++)
		fprintf(f, columns[i].width ? "%.*s " : "%.*s\n",
			columns[i].width ? columns[i].width : 16, dashes);
}

static void print_headers(FILE *f)
{
	const char *one[NCOLUMNS], *two[NCOLUMNS];
	size_t i;

	for (i = 0; i < NCOLUMNS; i++) {
		one[i] = columns[i].head1;
		two[i] = columns[i].head2;
	}
	print_cells(f, one);
	print_cells(f, two);
}

/* The total: the rows' seconds as printed, added up. */
static void total_row(struct profile_row *r, const struct profile_totals *t)
{
	memset(r, 0, sizeof(*r));
	r->calls = t->calls;
	r->errors = t->errors;
	r->timed = t->timed;
	r->time_ns = t->time_us * 1000;
	r->raw_time_ns = t->raw_time_us * 1000;
}

/* A sub-row's counts as a row, so the row's columns print it. */
static struct profile_row *sub_row(struct profile_row *r,
				   const struct profile_sub *s)
{
	if (!s)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->calls = s->calls;
	r->errors = s->errors;
	r->timed = s->timed;
	r->time_ns = s->time_ns;
	r->raw_time_ns = s->raw_time_ns;
	return r;
}

/* The sub-rows of r that changed, under it: "  file /tmp/x". */
static void print_subs(FILE *f, const struct diff *d, const struct diff_row *r)
{
	char label[2 * PROFILE_LABEL_MAX + 32];
	struct profile_row tb, tn;
	struct diff_row row;
	size_t i;

	for (i = 0; i < d->nsubs; i++) {
		const struct diff_sub *s = &d->subs[i];

		if (!diff_sub_of(s, r))
			continue;
		label[0] = label[1] = ' ';
		diff_sub_label(s, label + 2, sizeof(label) - 2);
		row = (struct diff_row){ label, sub_row(&tb, s->base),
					 sub_row(&tn, s->new) };
		print_row(f, d, &row);
	}
}

/* "BASE a.json: dd if=/dev/zero of=x bs=1 count=1000" */
static void print_run(FILE *f, const char *label, const char *file,
		      const struct profile *p)
{
	int i, room = 60;

	fprintf(f, "%s %s:", label, file ? file : "-");
	if (!p->argc)
		fprintf(f, " (%s -c table)", p->source);
	for (i = 0; i < p->argc && room > 0; i++) {
		fprintf(f, " %.*s", room, p->argv[i]);
		room -= (int)strlen(p->argv[i]) + 1;
	}
	fputs(room < 0 ? " ...\n" : "\n", f);
}

int diff_render_table(FILE *f, const struct diff *d)
{
	struct profile_row tb, tn;
	struct diff_row total = { "total", &tb, &tn };
	char headline[512];
	size_t i;

	diff_headline(d, headline, sizeof(headline));
	fprintf(f, "%s\n", headline);
	diff_wall_line(d, headline, sizeof(headline));
	if (headline[0])
		fprintf(f, "%s\n", headline);
	print_run(f, "BASE", d->base_name, d->base);
	print_run(f, "NEW ", d->new_name, d->new);
	print_headers(f);
	print_rule(f);
	for (i = 0; i < d->nrows; i++) {
		print_row(f, d, &d->rows[i]);
		print_subs(f, d, &d->rows[i]);
	}
	print_rule(f);
	total_row(&tb, &d->tbase);
	total_row(&tn, &d->tnew);
	print_row(f, d, &total);
	return ferror(f) ? -1 : 0;
}

static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* The untraced runs a side carries, or null. */
static json_t *baseline_object(const struct profile *p)
{
	const struct profile_baseline *b = &p->baseline;

	if (!b->runs)
		return json_null();
	return json_pack("{s:i, s:o, s:o, s:o}", "runs", (int)b->runs,
			 "wall_ns", u64(b->wall_ns),
			 "wall_min_ns", u64(b->wall_min_ns),
			 "wall_max_ns", u64(b->wall_max_ns));
}

static json_t *run_object(const struct diff *d, const char *file,
			  const struct profile *p,
			  const struct profile_totals *t)
{
	json_t *o = json_object(), *cmd = json_array();
	int i, err = 0;

	for (i = 0; cmd && i < p->argc; i++)
		err |= json_array_append_new(cmd, json_string(p->argv[i]));
	err |= json_object_set_new(o, "file", json_string(file ? file : ""));
	err |= json_object_set_new(o, "source", json_string(p->source));
	err |= json_object_set_new(o, "command", cmd);
	err |= json_object_set_new(o, "wall_ns", p->exit.known ?
				   u64(p->wall_ns) : json_null());
	err |= json_object_set_new(o, "baseline", baseline_object(p));
	err |= json_object_set_new(o, "calls", u64(t->calls));
	err |= json_object_set_new(o, "errors", u64(t->errors));
	err |= json_object_set_new(o, "time_ns", u64(totals_time(t, d->o)));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* One side of a row: null when the syscall is not in that run. */
static json_t *side(const struct diff *d, const struct profile_row *r)
{
	if (!r)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o}", "calls", u64(r->calls),
			 "errors", u64(r->errors), "timed", u64(r->timed),
			 "time_ns", u64(diff_time(d, r)));
}

static json_t *rows_array(const struct diff *d)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < d->nrows; i++) {
		const struct diff_row *r = &d->rows[i];

		if (json_array_append_new(a, json_pack("{s:s, s:o, s:o}",
				"name", r->name, "base", side(d, r->base),
				"new", side(d, r->new))) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* A sub-row's side: null when its keys are not in that run. */
static json_t *sub_side(const struct diff *d, const struct profile_sub *s)
{
	if (!s)
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "calls", u64(s->calls),
			 "errors", u64(s->errors), "timed", u64(s->timed),
			 "time_ns", u64(d->o->raw_time ? s->raw_time_ns
						       : s->time_ns),
			 "bytes_done", u64(s->bytes_done));
}

/* Keys as the saved profile writes them, so scripts read them alike. */
static json_t *sub_object(const struct diff *d, const struct diff_sub *s,
			  const char *syscall)
{
	const struct profile_breakdown *b = s->base ? s->bbase : s->bnew;
	const struct profile_sub *k = s->base ? s->base : s->new;

	return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}",
			 "dimension", b->dim->name, "syscall", syscall,
			 "key", b->dim->save(profile_key(b, k->key)),
			 "key2", k->key2 == PROFILE_KEY_NONE ? json_null() :
				 b->dim->save(profile_key(b, k->key2)),
			 "base", sub_side(d, s->base),
			 "new", sub_side(d, s->new));
}

/* The changed sub-rows, in the table's order. */
static json_t *subs_array(const struct diff *d)
{
	json_t *a = json_array();
	size_t i, k;

	for (i = 0; a && i < d->nrows; i++) {
		for (k = 0; k < d->nsubs; k++) {
			if (!diff_sub_of(&d->subs[k], &d->rows[i]))
				continue;
			if (json_array_append_new(a, sub_object(d, &d->subs[k],
					d->rows[i].name)) < 0) {
				json_decref(a);
				return NULL;
			}
		}
	}
	return a;
}

static json_t *fail_if_array(const struct fail_if *f, const int *results,
			     const struct diff *d)
{
	json_t *a = json_array();
	char what[160];
	size_t i;

	for (i = 0; f && a && i < f->n; i++) {
		fail_if_eval(f, i, d, what, sizeof(what));
		if (json_array_append_new(a, json_pack("{s:s, s:b, s:s}",
				"expr", f->terms[i].text, "tripped",
				results[i] > 0, "change", what)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* "walls": the verdict as a word, and the sentence the table prints. */
static json_t *walls_object(const struct diff *d)
{
	static const char *const verdicts[] = {
		[DIFF_WALLS_NONE] = "none", [DIFF_WALLS_ONE_RUN] = "one run",
		[DIFF_WALLS_NOISE] = "within noise",
		[DIFF_WALLS_APART] = "apart",
	};
	char line[512];

	diff_wall_line(d, line, sizeof(line));
	return json_pack("{s:s, s:s}", "verdict", verdicts[diff_walls(d)],
			 "line", line);
}

int diff_render_json(FILE *out, const struct diff *d, const struct fail_if *f,
		     const int *results)
{
	char headline[512];
	json_t *doc;
	int err;

	diff_headline(d, headline, sizeof(headline));
	doc = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o}",
			"schema", "iotrace-diff/1", "headline", headline,
			"walls", walls_object(d),
			"base", run_object(d, d->base_name, d->base, &d->tbase),
			"new", run_object(d, d->new_name, d->new, &d->tnew),
			"syscalls", rows_array(d),
			"breakdowns", subs_array(d),
			"fail_if", fail_if_array(f, results, d));
	if (!doc)
		return -1;
	err = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (err < 0 || fputc('\n', out) == EOF)
		return -1;
	return ferror(out) ? -1 : 0;
}
