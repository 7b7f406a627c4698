// SPDX-License-Identifier: MIT
/*
 * The sections under the syscall table, one per dimension a profile
 * breaks its rows down by.  A dimension with a section of its own (the
 * file dimension's I/O table, io.c) is one row in sections[]; any other
 * gets the generic one: per (syscall, key), its calls, errors, time and
 * bytes, most time first; only the first ROWS_SHOWN are printed, the
 * rest summed up in one line.
 */
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

#define ROWS_SHOWN 20

/* Dimensions that print a section of their own. */
static const struct {
	const struct profile_dim *dim;
	int (*render)(FILE *f, const struct profile *p,
		      const struct report_opts *o);
} sections[] = {
	{ &profile_dim_file, io_render },
	{ &profile_dim_callsite, callsites_render },
	{ &profile_dim_process, processes_render },
	{ &profile_dim_thread, threads_render },
};

static uint64_t sub_time(const struct profile_sub *s,
			 const struct report_opts *o)
{
	return o && o->raw_time ? s->raw_time_ns : s->time_ns;
}

struct sort_ctx {
	const struct report_opts *o;
};

/* Most time first, then most calls; ties in first-seen terms. */
static int cmp_sub(const void *pa, const void *pb, void *arg)
{
	const struct profile_sub *a = *(const struct profile_sub *const *)pa;
	const struct profile_sub *b = *(const struct profile_sub *const *)pb;
	const struct sort_ctx *c = arg;
	uint64_t ta = sub_time(a, c->o), tb = sub_time(b, c->o);

	if (ta != tb)
		return ta < tb ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->key2 < b->key2 ? -1 : a->key2 > b->key2;
}

static void print_sub(FILE *f, const struct profile *p,
		      const struct profile_breakdown *b,
		      const struct profile_sub *s, int namew,
		      const struct report_opts *o)
{
	const struct profile_row *r = &p->rows[s->row];
	char errors[24] = "-", secs[24] = "-", bytes[24] = "-";
	char label[2 * PROFILE_LABEL_MAX + 8], name[PROFILE_ROW_LABEL_MAX];

	/* Calls counted without an exit stop have no return and no time. */
	if (s->timed) {
		snprintf(errors, sizeof(errors), "%llu",
			 (unsigned long long)s->errors);
		snprintf(secs, sizeof(secs), "%.6f",
			 (double)sub_time(s, o) / 1e9);
	}
	if (s->timed && r->io_arg != IO_NONE)
		snprintf(bytes, sizeof(bytes), "%llu",
			 (unsigned long long)s->bytes_done);
	profile_sub_label(b, s, label, sizeof(label));
	fprintf(f, "%-*s %9llu %9s %11s %12s  %s\n", namew,
		profile_row_label(r, name, sizeof(name)),
		(unsigned long long)s->calls, errors, secs, bytes, label);
}

int breakdown_name_width(const struct profile *p,
			 const struct profile_breakdown *b, size_t w)
{
	char name[PROFILE_ROW_LABEL_MAX];
	size_t i;

	for (i = 0; i < b->nsubs; i++)
		if (strlen(profile_row_label(&p->rows[b->subs[i].row], name,
					     sizeof(name))) > w)
			w = strlen(name);
	return (int)w;
}

static void print_rest(FILE *f, const struct profile_sub **v, size_t from,
		       size_t n)
{
	uint64_t calls = 0;
	size_t i;

	for (i = from; i < n; i++)
		calls += v[i]->calls;
	fprintf(f, "(%zu more rows: %llu calls)\n", n - from,
		(unsigned long long)calls);
}

const struct profile_sub **breakdown_subs(const struct profile_breakdown *b)
{
	const struct profile_sub **v = malloc(b->nsubs * sizeof(*v));
	size_t i;

	for (i = 0; v && i < b->nsubs; i++)
		v[i] = &b->subs[i];
	return v;
}

int breakdown_render_one(FILE *f, const struct profile *p,
			 const struct profile_breakdown *b,
			 const struct report_opts *o)
{
	struct sort_ctx c = { o };
	const struct profile_sub **v;
	size_t i, n = b->nsubs;
	int namew = breakdown_name_width(p, b, 7);

	if (!n)
		return 0;
	v = breakdown_subs(b);
	if (!v)
		return -1;
	qsort_r(v, n, sizeof(*v), cmp_sub, &c);
	fprintf(f, "\n%-*s %9s %9s %11s %12s  %s\n", namew, "syscall",
		"calls", "errors", "seconds", "bytes", b->dim->name);
	for (i = 0; i < n && i < ROWS_SHOWN; i++)
		print_sub(f, p, b, v[i], namew, o);
	if (n > ROWS_SHOWN)
		print_rest(f, v, ROWS_SHOWN, n);
	free(v);
	return ferror(f) ? -1 : 0;
}

static int render_section(FILE *f, const struct profile *p,
			  const struct profile_breakdown *b,
			  const struct report_opts *o)
{
	size_t i;

	for (i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (sections[i].dim == b->dim)
			return sections[i].render(f, p, o);
	return breakdown_render_one(f, p, b, o);
}

int breakdown_render(FILE *f, const struct profile *p,
		     const struct report_opts *o)
{
	const struct profile_breakdown *b;

	for (b = p->breakdowns; b < p->breakdowns + PROFILE_DIMS_MAX &&
				b->dim; b++)
		if (render_section(f, p, b, o) < 0)
			return -1;
	return 0;
}
