// SPDX-License-Identifier: MIT
/*
 * The rows of a profile: one per syscall of one personality, keyed by
 * (personality, number) and named only when shown.  An event finds its
 * row through an index by key (the stop loop's path: no name, no
 * search); loaders find rows by name, which the syscall table turns into
 * a key (syscalls/syscalls.h).  A name that no personality of this build
 * knows, read from a file made elsewhere, keeps a row of its own, by
 * name.  What a row's syscall moves and through which fds comes from its
 * facts (syscalls/systab.c) when the row is made.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"

/* The facts' size and fd args as the row keeps them: IO_*, -1 none. */
static void set_facts(struct profile_row *r, const struct syscall_fact *f)
{
	r->io_arg = !f || !f->size ? IO_NONE :
		    f->size == ARG_IOV ? IO_UNSIZED : f->size - 1;
	r->fd_arg = (int8_t)(f && f->fd ? f->fd - 1 : -1);
	r->fd_arg2 = (int8_t)(f && f->fd2 ? f->fd2 - 1 : -1);
}

int profile_io_arg(const char *name)
{
	struct profile_row r;
	int pers, nr;

	if (syscall_lookup(name, &pers, &nr) == 0)
		set_facts(&r, syscall_fact(pers, nr));
	else
		set_facts(&r, syscall_fact_by_name(name));
	return r.io_arg;
}

static bool indexed(int pers, int nr)
{
	return pers >= 0 && pers < SYSCALL_PERS_MAX && nr >= 0 &&
	       nr < SYSCALL_SET_MAX;
}

static int32_t *index_slot(const struct profile *p, int pers, int nr)
{
	return &p->index[pers * SYSCALL_SET_MAX + nr];
}

/* A new row with the facts of its key, or of its name for no key. */
static struct profile_row *new_row(struct profile *p, int pers, int nr,
				   const char *unknown)
{
	struct profile_row *r;

	if (p->nrows == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;

		r = realloc(p->rows, cap * sizeof(*r));
		if (!r)
			return NULL;
		p->rows = r;
		p->cap = cap;
	}
	r = &p->rows[p->nrows++];
	memset(r, 0, sizeof(*r));
	r->pers = pers;
	r->nr = nr;
	r->min_ns = UINT64_MAX;
	if (pers == PROFILE_PERS_NONE) {
		snprintf(r->unknown, sizeof(r->unknown), "%s", unknown);
		set_facts(r, syscall_fact_by_name(unknown));
	} else {
		set_facts(r, syscall_fact(pers, nr));
	}
	if (p->index && indexed(pers, nr))
		*index_slot(p, pers, nr) = (int32_t)p->nrows;
	return r;
}

/* By key; a stale index entry (rows cleared) is checked away. */
static struct profile_row *find_key(const struct profile *p, int pers,
				    int nr)
{
	size_t i;

	if (p->index && indexed(pers, nr)) {
		i = (size_t)*index_slot(p, pers, nr);
		if (i && i <= p->nrows && p->rows[i - 1].pers == pers &&
		    p->rows[i - 1].nr == nr)
			return &p->rows[i - 1];
		return NULL;
	}
	for (i = 0; i < p->nrows; i++)
		if (p->rows[i].pers == pers && p->rows[i].nr == nr &&
		    pers != PROFILE_PERS_NONE)
			return &p->rows[i];
	return NULL;
}

/* The index is made on first use and kept right by new_row. */
static int make_index(struct profile *p)
{
	size_t i;

	if (p->index)
		return 0;
	p->index = calloc(SYSCALL_PERS_MAX * SYSCALL_SET_MAX,
			  sizeof(*p->index));
	if (!p->index)
		return -ENOMEM;
	for (i = 0; i < p->nrows; i++)
		if (indexed(p->rows[i].pers, p->rows[i].nr))
			*index_slot(p, p->rows[i].pers, p->rows[i].nr) =
				(int32_t)i + 1;
	return 0;
}

struct profile_row *profile_row_key(struct profile *p, int pers, int nr)
{
	struct profile_row *r;

	if (pers < 0)
		pers = 0;	/* an arch no personality has: native */
	if (make_index(p) < 0)
		return NULL;
	r = find_key(p, pers, nr);
	return r ? r : new_row(p, pers, nr, NULL);
}

static struct profile_row *find_unknown(const struct profile *p,
					const char *name)
{
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (p->rows[i].pers == PROFILE_PERS_NONE &&
		    !strcmp(p->rows[i].unknown, name))
			return &p->rows[i];
	return NULL;
}

/* name (a label when pers is -1) as a key; -1: no personality has it. */
static int key_of(int pers, const char *name, int *kp, int *knr)
{
	if (pers < 0)
		return syscall_lookup(name, kp, knr);
	*kp = pers;
	return syscall_pers_lookup(pers, name, knr);
}

const struct profile_row *profile_row_find_in(const struct profile *p,
					      int pers, const char *name)
{
	int kp, knr;

	if (key_of(pers, name, &kp, &knr) < 0)
		return find_unknown(p, name);
	return find_key(p, kp, knr);
}

struct profile_row *profile_row_get_in(struct profile *p, int pers,
				       const char *name)
{
	struct profile_row *r;
	int kp, knr;

	if (key_of(pers, name, &kp, &knr) == 0)
		return profile_row_key(p, kp, knr);
	r = find_unknown(p, name);
	return r ? r : new_row(p, PROFILE_PERS_NONE, 0, name);
}

const struct profile_row *profile_row_find(const struct profile *p,
					   const char *name)
{
	return profile_row_find_in(p, -1, name);
}

struct profile_row *profile_row_get(struct profile *p, const char *name)
{
	return profile_row_get_in(p, -1, name);
}

const struct profile_row *profile_row_match(const struct profile *p,
					    const struct profile_row *r)
{
	char buf[PROFILE_NAME_MAX];

	if (r->pers == PROFILE_PERS_NONE)
		return profile_row_find(p, r->unknown);
	return profile_row_find_in(p, r->pers,
				   profile_row_name(r, buf, sizeof(buf)));
}

void profile_rows_clear(struct profile *p)
{
	p->nrows = 0;
	if (p->index)
		memset(p->index, 0, SYSCALL_PERS_MAX * SYSCALL_SET_MAX *
				    sizeof(*p->index));
}

/* The row of an event: by key, through the index. */
struct profile_row *profile_event_row(struct profile *p,
				      const struct tracer_event *ev)
{
	int nr, pers = syscall_locate(ev->arch, ev->nr, &nr);

	if (pers >= 0 && indexed(pers, nr) && p->index) {
		int32_t i = *index_slot(p, pers, nr);

		if (i && (size_t)i <= p->nrows)
			return &p->rows[i - 1];
	}
	return profile_row_key(p, pers, nr);
}

const char *profile_row_name(const struct profile_row *r, char *buf,
			     size_t size)
{
	if (r->pers == PROFILE_PERS_NONE)
		return r->unknown;
	return syscall_pers_name(r->pers, r->nr, buf, size);
}

const char *profile_row_label(const struct profile_row *r, char *buf,
			      size_t size)
{
	char name[PROFILE_NAME_MAX];
	const char *n = profile_row_name(r, name, sizeof(name));
	const char *pers = profile_row_pers(r);

	if (pers)
		snprintf(buf, size, "%s/%s", n, pers);
	else
		snprintf(buf, size, "%s", n);
	return buf;
}

const char *profile_row_pers(const struct profile_row *r)
{
	return r->pers > 0 ? syscall_pers[r->pers].name : NULL;
}

const struct syscall_fact *profile_row_fact(const struct profile_row *r)
{
	return r->pers == PROFILE_PERS_NONE ? syscall_fact_by_name(r->unknown) :
	       syscall_fact(r->pers, r->nr);
}
