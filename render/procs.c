// SPDX-License-Identifier: MIT
/*
 * The process and thread sections (-P, --per-thread): one line per task,
 * most time in syscalls first, with its calls, that time, the bytes its
 * reads and writes moved and, for a process whose threads' storage
 * accounting was read at their exits, the bytes the kernel counted as
 * bound for storage (write_bytes); then the generic rows per (syscall,
 * task) of breakdown.c.  The side of a pipeline that spends the time is
 * the first line.
 */
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

/* One task's sums over its sub-rows. */
struct task_sum {
	uint32_t key;
	uint64_t calls, ns, read, written;
};

static void sum_subs(const struct profile *p, const struct profile_breakdown *b,
		     struct task_sum *sums, const struct report_opts *o)
{
	const struct syscall_fact *fact;
	const struct profile_sub *s;
	size_t i;

	for (i = 0; i < b->nkeys; i++)
		sums[i].key = (uint32_t)i;
	for (i = 0; i < b->nsubs; i++) {
		s = &b->subs[i];
		fact = profile_row_fact(&p->rows[s->row]);
		sums[s->key].calls += s->calls;
		sums[s->key].ns += o && o->raw_time ? s->raw_time_ns
						    : s->time_ns;
		if (fact && (fact->flags & SF_READ_FAMILY))
			sums[s->key].read += s->bytes_done;
		else if (fact && (fact->flags & SF_WRITE_FAMILY))
			sums[s->key].written += s->bytes_done;
	}
}

/* Most time first, then most calls, then first seen. */
static int cmp_sum(const void *pa, const void *pb)
{
	const struct task_sum *a = pa, *b = pb;

	if (a->ns != b->ns)
		return a->ns < b->ns ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return a->key < b->key ? -1 : a->key > b->key;
}

/* write_bytes where every exited thread of the process said it. */
static void storage_cell(char *buf, size_t size, const struct profile_task *t)
{
	if (t->threads_exited && t->threads_io == t->threads_exited)
		snprintf(buf, size, "%llu", (unsigned long long)t->write_bytes);
	else
		snprintf(buf, size, "-");
}

static int label_width(const struct profile_breakdown *b, size_t w)
{
	char label[PROFILE_LABEL_MAX];
	size_t i;

	for (i = 0; i < b->nkeys; i++) {
		b->dim->label(label, sizeof(label), profile_key(b, (uint32_t)i));
		if (strlen(label) > w)
			w = strlen(label);
	}
	return (int)(w > 40 ? 40 : w);
}

static int render_tasks(FILE *f, const struct profile *p,
			const struct profile_breakdown *b,
			const struct report_opts *o)
{
	struct task_sum *sums;
	char label[PROFILE_LABEL_MAX], storage[24];
	int w = label_width(b, strlen(b->dim->name));
	size_t i;

	if (!b->nsubs)
		return 0;
	sums = calloc(b->nkeys, sizeof(*sums));
	if (!sums)
		return -1;
	sum_subs(p, b, sums, o);
	qsort(sums, b->nkeys, sizeof(*sums), cmp_sum);
	fprintf(f, "\n%-*s %9s %11s %13s %13s %13s\n", w, b->dim->name,
		"calls", "seconds", "bytes read", "bytes written",
		"to storage");
	for (i = 0; i < b->nkeys; i++) {
		if (!sums[i].calls)
			continue;
		b->dim->label(label, sizeof(label), profile_key(b, sums[i].key));
		storage_cell(storage, sizeof(storage),
			     profile_task_at(b, sums[i].key));
		fprintf(f, "%-*s %9llu %11.6f %13llu %13llu %13s\n", w, label,
			(unsigned long long)sums[i].calls,
			(double)sums[i].ns / 1e9,
			(unsigned long long)sums[i].read,
			(unsigned long long)sums[i].written, storage);
	}
	free(sums);
	if (ferror(f))
		return -1;
	return breakdown_render_one(f, p, b, o);
}

int processes_render(FILE *f, const struct profile *p,
		     const struct report_opts *o)
{
	return render_tasks(f, p, profile_breakdown(p, &profile_dim_process),
			    o);
}

int threads_render(FILE *f, const struct profile *p,
		   const struct report_opts *o)
{
	return render_tasks(f, p, profile_breakdown(p, &profile_dim_thread), o);
}
