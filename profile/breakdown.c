// SPDX-License-Identifier: MIT
/*
 * Breakdowns: a syscall row broken down by a further key, the same way
 * for every dimension (a file today; a call site and an engine next).
 * A dimension's key type (struct profile_dim) knows how to compare,
 * hash, save, load and print its keys; this file keeps, per dimension,
 * the keys (found through a hash index, so a lookup costs the same with
 * thousands of call sites as with ten files) and the sub-rows keyed by
 * (syscall row, key, key2), each key's sub-rows linked newest first, and
 * adds events to them.  Memory is bounded by the dimension: past
 * max_keys - 1 keys, new keys share the other() key; past max_subs
 * sub-rows, new ones go to that key, one per syscall.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"

/* The dimensions: a new one is a key type in a file of its own + a row. */
const struct profile_dim *const profile_dims[] = {
	&profile_dim_file,
	&profile_dim_callsite,
	&profile_dim_process,
	&profile_dim_thread,
	NULL,
};

/* Summed as the rows' counters are (profile.c); size_max is a maximum. */
#define SUB(field, sum) { #field, offsetof(struct profile_sub, field), sum }
const struct profile_sub_counter profile_sub_counters[] = {
	SUB(calls, true),	SUB(errors, true),	SUB(einval, true),
	SUB(timed, true),	SUB(time_ns, true),	SUB(raw_time_ns, true),
	SUB(bytes_req, false),	SUB(bytes_done, true),	SUB(short_calls, true),
	SUB(size_max, false),	SUB(size_max_calls, true),
	{ NULL, 0, false },
};

uint64_t profile_sub_counter_get(const struct profile_sub *s,
				 const struct profile_sub_counter *c)
{
	return *(const uint64_t *)((const char *)s + c->offset);
}

uint64_t profile_hash_bytes(uint64_t h, const void *data, size_t len)
{
	const unsigned char *c = data;

	if (!h)
		h = 14695981039346656037ull;
	while (len--)
		h = (h ^ *c++) * 1099511628211ull;
	return h;
}

void profile_breakdowns_release(struct profile *p)
{
	struct profile_breakdown *b;
	size_t i;

	for (i = 0; i < PROFILE_DIMS_MAX; i++) {
		b = &p->breakdowns[i];
		free(b->keys);
		free(b->first);
		free(b->slots);
		free(b->subs);
		*b = (struct profile_breakdown){ .dim = b->dim };
	}
}

int profile_set_dims(struct profile *p, const struct profile_dim *const *dims)
{
	size_t i, n = 0;

	if (!dims)
		dims = profile_dims;
	for (n = 0; dims[n]; n++)
		if (n == PROFILE_DIMS_MAX ||
		    dims[n]->key_size > PROFILE_KEY_MAX)
			return -EINVAL;
	profile_breakdowns_release(p);
	for (i = 0; i < PROFILE_DIMS_MAX; i++)
		p->breakdowns[i].dim = i < n ? dims[i] : NULL;
	return 0;
}

struct profile_breakdown *profile_breakdown_rw(struct profile *p,
					       const struct profile_dim *dim)
{
	size_t i;

	for (i = 0; i < PROFILE_DIMS_MAX && p->breakdowns[i].dim; i++)
		if (p->breakdowns[i].dim == dim)
			return &p->breakdowns[i];
	return NULL;
}

const struct profile_breakdown *profile_breakdown(const struct profile *p,
						  const struct profile_dim *dim)
{
	static const struct profile_breakdown none;
	const struct profile_breakdown *b =
		profile_breakdown_rw((struct profile *)p, dim);

	return b ? b : &none;
}

static void *key_at(const struct profile_breakdown *b, size_t i)
{
	return b->keys + i * b->dim->key_size;
}

/* The slot holding key, or the empty one where it would go. */
static size_t slot_of(const struct profile_breakdown *b, const void *key)
{
	size_t mask = b->nslots - 1;
	size_t s = (size_t)b->dim->hash(key) & mask;

	while (b->slots[s] && b->dim->cmp(key_at(b, b->slots[s] - 1), key))
		s = (s + 1) & mask;
	return s;
}

int profile_key_find(const struct profile_breakdown *b, const void *key)
{
	size_t s;

	if (!b->nslots)
		return -1;
	s = slot_of(b, key);
	return b->slots[s] ? (int)b->slots[s] - 1 : -1;
}

/* Room for one more key: the arrays and an index at most half full. */
static int grow_keys(struct profile_breakdown *b)
{
	size_t cap = b->keys_cap ? b->keys_cap * 2 : 16, i;
	unsigned char *keys;
	int32_t *first;
	uint32_t *slots;

	if (b->nkeys < b->keys_cap)
		return 0;
	keys = realloc(b->keys, cap * b->dim->key_size);
	if (!keys)
		return -ENOMEM;
	b->keys = keys;
	first = realloc(b->first, cap * sizeof(*first));
	if (!first)
		return -ENOMEM;
	b->first = first;
	slots = calloc(2 * cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	free(b->slots);
	b->slots = slots;
	b->nslots = 2 * cap;
	b->keys_cap = cap;
	for (i = 0; i < b->nkeys; i++)
		b->slots[slot_of(b, key_at(b, i))] = (uint32_t)i + 1;
	return 0;
}

static int add_key(struct profile_breakdown *b, const void *key)
{
	if (grow_keys(b) < 0)
		return -ENOMEM;
	memcpy(key_at(b, b->nkeys), key, b->dim->key_size);
	b->first[b->nkeys] = -1;
	b->slots[slot_of(b, key)] = (uint32_t)b->nkeys + 1;
	return (int)b->nkeys++;
}

/* The key the rest share, added the first time it is needed. */
static int other_key(struct profile_breakdown *b)
{
	union {
		unsigned char bytes[PROFILE_KEY_MAX];
		uint64_t align;
	} k;
	int i;

	memset(&k, 0, sizeof(k));
	b->dim->other(k.bytes);
	i = profile_key_find(b, k.bytes);
	return i >= 0 ? i : add_key(b, k.bytes);
}

int profile_key_get(struct profile_breakdown *b, const void *key)
{
	int i = profile_key_find(b, key);

	if (i >= 0)
		return i;
	if (b->nkeys >= b->dim->max_keys - 1)
		return other_key(b);
	return add_key(b, key);
}

static int32_t sub_index(const struct profile_breakdown *b, uint32_t key,
			 uint32_t key2, uint32_t row)
{
	int32_t i;

	for (i = b->first[key]; i >= 0; i = b->subs[i].next)
		if (b->subs[i].row == row && b->subs[i].key2 == key2)
			return i;
	return -1;
}

const struct profile_sub *profile_sub_find(const struct profile_breakdown *b,
					   uint32_t key, uint32_t key2,
					   uint32_t row)
{
	int32_t i = key < b->nkeys ? sub_index(b, key, key2, row) : -1;

	return i >= 0 ? &b->subs[i] : NULL;
}

static struct profile_sub *new_sub(struct profile_breakdown *b, uint32_t key,
				   uint32_t key2, uint32_t row)
{
	size_t cap = b->subs_cap ? b->subs_cap * 2 : 16;
	struct profile_sub *s = b->subs;

	if (b->nsubs == b->subs_cap) {
		s = realloc(b->subs, cap * sizeof(*s));
		if (!s)
			return NULL;
		b->subs = s;
		b->subs_cap = cap;
	}
	s += b->nsubs;
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->key2 = key2;
	s->row = row;
	s->next = b->first[key];
	b->first[key] = (int32_t)b->nsubs++;
	return s;
}

struct profile_sub *profile_sub_get(struct profile_breakdown *b, uint32_t key,
				    uint32_t key2, uint32_t row)
{
	int32_t i = sub_index(b, key, key2, row);
	int other;

	if (i >= 0)
		return &b->subs[i];
	if (b->nsubs < b->dim->max_subs)
		return new_sub(b, key, key2, row);
	/* Full: one sub-row per syscall in the other key, a bounded few. */
	other = other_key(b);
	if (other < 0)
		return NULL;
	i = sub_index(b, (uint32_t)other, PROFILE_KEY_NONE, row);
	if (i >= 0)
		return &b->subs[i];
	return new_sub(b, (uint32_t)other, PROFILE_KEY_NONE, row);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void add_size(struct profile_sub *s, const struct profile_row *r,
		     const struct tracer_event *ev)
{
	uint64_t asked;

	if (r->io_arg < 0 || r->io_arg >= 6)
		return;
	asked = ev->args[r->io_arg];
	if (asked > s->size_max) {
		s->size_max = asked;
		s->size_max_calls = 0;
	}
	if (asked == s->size_max)
		s->size_max_calls++;
	if (ev->ret < 0)
		return;
	s->bytes_req = add_sat(s->bytes_req, asked);
	if ((uint64_t)ev->ret < asked)
		s->short_calls++;
}

/* Bytes only for syscalls that move data: other returns are not sizes. */
int profile_sub_add(struct profile *p, struct profile_breakdown *b,
		    uint32_t row, uint32_t key, uint32_t key2,
		    const struct tracer_event *ev)
{
	struct profile_sub *s = profile_sub_get(b, key, key2, row);

	return s ? profile_sub_event(p, s, ev) : -ENOMEM;
}

int profile_sub_event(const struct profile *p, struct profile_sub *s,
		      const struct tracer_event *ev)
{
	const struct profile_row *r = &p->rows[s->row];
	uint64_t raw;

	s->calls++;
	if (ev->flags & EVF_COUNT_ONLY)
		return 0;
	raw = ev->exit_ns - ev->entry_ns;
	s->timed++;
	s->raw_time_ns += raw;
	s->time_ns += raw > p->overhead_ns ? raw - p->overhead_ns : 0;
	if (ev->ret < 0 && ev->ret >= -4095) {
		s->errors++;
		s->einval += ev->ret == -EINVAL;
	} else if (r->io_arg != IO_NONE) {
		s->bytes_done += (uint64_t)ev->ret;
	}
	add_size(s, r, ev);
	return 0;
}

/* Sums a share into a sub-row, as profile_sub_add() adds its events. */
void profile_sub_add_share(struct profile_sub *s, const struct tracer_aggregate *a)
{
	s->calls += a->calls;
	s->timed += a->timed;
	s->errors += a->errors;
	s->einval += a->einval;
	s->time_ns += a->time_ns;
	s->raw_time_ns += a->raw_time_ns;
	s->bytes_req += a->bytes_req;
	s->bytes_done += a->bytes_done;
	s->short_calls += a->short_calls;
	if (a->size_max > s->size_max) {
		s->size_max = a->size_max;
		s->size_max_calls = 0;
	}
	if (a->size_max == s->size_max)
		s->size_max_calls += a->size_max_calls;
}

void profile_sub_label(const struct profile_breakdown *b,
		       const struct profile_sub *s, char *buf, size_t size)
{
	char one[PROFILE_LABEL_MAX], two[PROFILE_LABEL_MAX];

	b->dim->label(one, sizeof(one), profile_key(b, s->key));
	if (s->key2 == PROFILE_KEY_NONE) {
		snprintf(buf, size, "%s", one);
		return;
	}
	b->dim->label(two, sizeof(two), profile_key(b, s->key2));
	snprintf(buf, size, "%s -> %s", one, two);
}
