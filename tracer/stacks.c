// SPDX-License-Identifier: MIT
/*
 * The table of call-site stacks (-k): symbolized stacks, interned, so an
 * event carries one small id and a consumer (the profile) turns each id
 * into its frames once.  Strings (object paths, function names) are
 * interned too, in blocks that never move, so two equal frames are equal
 * pointer for pointer and a stack hashes without reading its strings.
 * Everything here is allocated when a new stack or string appears, never
 * for one already known; past TRACER_STACKS_MAX stacks nothing is added.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

#define POOL_BLOCK 65536	/* bytes of strings per block */

struct pool_block {
	struct pool_block *next;
	size_t used;
	char text[POOL_BLOCK];
};

struct tracer_stacks {
	struct tracer_stack *stacks;	/* id - 1 */
	size_t nstacks, cap;
	uint32_t *index;		/* open addressing: id, 0 empty */
	size_t nindex;			/* power of two, >= 2 * cap */
	const char **strings;		/* interned strings, hashed */
	size_t nstrings, nstrings_slots;
	struct pool_block *pool;
};

static uint64_t fnv(uint64_t h, const void *data, size_t len)
{
	const unsigned char *c = data;

	while (len--)
		h = (h ^ *c++) * 1099511628211ull;
	return h;
}

#define FNV_START 14695981039346656037ull

struct tracer_stacks *tracer_stacks_new(void)
{
	return calloc(1, sizeof(struct tracer_stacks));
}

void tracer_stacks_free(struct tracer_stacks *st)
{
	struct pool_block *b, *next;
	size_t i;

	if (!st)
		return;
	for (i = 0; i < st->nstacks; i++)
		free((void *)st->stacks[i].frames);
	for (b = st->pool; b; b = next) {
		next = b->next;
		free(b);
	}
	free(st->stacks);
	free(st->index);
	free(st->strings);
	free(st);
}

/* A copy of s in the pool; NULL: no memory or longer than a block. */
static const char *pool_copy(struct tracer_stacks *st, const char *s)
{
	size_t len = strlen(s) + 1;
	struct pool_block *b = st->pool;
	char *out;

	if (len > POOL_BLOCK)
		return NULL;
	if (!b || b->used + len > POOL_BLOCK) {
		b = malloc(sizeof(*b));
		if (!b)
			return NULL;
		b->next = st->pool;
		b->used = 0;
		st->pool = b;
	}
	out = b->text + b->used;
	memcpy(out, s, len);
	b->used += len;
	return out;
}

static int grow_strings(struct tracer_stacks *st)
{
	size_t n = st->nstrings_slots ? 2 * st->nstrings_slots : 1024, i, s;
	const char **slots;

	if (2 * (st->nstrings + 1) <= st->nstrings_slots)
		return 0;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < st->nstrings_slots; i++) {
		if (!st->strings[i])
			continue;
		s = fnv(FNV_START, st->strings[i], strlen(st->strings[i]));
		for (s &= n - 1; slots[s]; s = (s + 1) & (n - 1))
			;
		slots[s] = st->strings[i];
	}
	free(st->strings);
	st->strings = slots;
	st->nstrings_slots = n;
	return 0;
}

/* The interned copy of s; NULL: no memory. */
static const char *intern_string(struct tracer_stacks *st, const char *s)
{
	size_t i, mask;

	if (grow_strings(st) < 0)
		return NULL;
	mask = st->nstrings_slots - 1;
	for (i = fnv(FNV_START, s, strlen(s)) & mask; st->strings[i];
	     i = (i + 1) & mask)
		if (!strcmp(st->strings[i], s))
			return st->strings[i];
	st->strings[i] = pool_copy(st, s);
	if (st->strings[i])
		st->nstrings++;
	return st->strings[i];
}

/* Frames whose strings are interned hash by their pointers. */
static uint64_t stack_hash(const struct tracer_frame *f, size_t n,
			   bool truncated)
{
	uint64_t h = fnv(FNV_START, &truncated, sizeof(truncated));

	for (; n--; f++) {
		h = fnv(h, &f->object, sizeof(f->object));
		h = fnv(h, &f->function, sizeof(f->function));
		h = fnv(h, &f->offset, sizeof(f->offset));
	}
	return h;
}

static bool stack_is(const struct tracer_stack *s,
		     const struct tracer_frame *f, size_t n, bool truncated)
{
	size_t i;

	if (s->nframes != n || s->truncated != truncated)
		return false;
	for (i = 0; i < n; i++)
		if (s->frames[i].object != f[i].object ||
		    s->frames[i].function != f[i].function ||
		    s->frames[i].offset != f[i].offset)
			return false;
	return true;
}

/* The slot of the stack, or the empty one where it goes. */
static size_t slot_of(const struct tracer_stacks *st,
		      const struct tracer_frame *f, size_t n, bool truncated)
{
	size_t mask = st->nindex - 1;
	size_t i = (size_t)stack_hash(f, n, truncated) & mask;

	while (st->index[i] &&
	       !stack_is(&st->stacks[st->index[i] - 1], f, n, truncated))
		i = (i + 1) & mask;
	return i;
}

static int grow_stacks(struct tracer_stacks *st)
{
	size_t cap = st->cap ? 2 * st->cap : 256, i;
	struct tracer_stack *s;
	uint32_t *index;

	if (st->nstacks < st->cap)
		return 0;
	s = realloc(st->stacks, cap * sizeof(*s));
	if (!s)
		return -ENOMEM;
	st->stacks = s;
	index = calloc(2 * cap, sizeof(*index));
	if (!index)
		return -ENOMEM;
	free(st->index);
	st->index = index;
	st->nindex = 2 * cap;
	st->cap = cap;
	for (i = 0; i < st->nstacks; i++)
		st->index[slot_of(st, st->stacks[i].frames,
				  st->stacks[i].nframes,
				  st->stacks[i].truncated)] = (uint32_t)i + 1;
	return 0;
}

/* The frames with their strings interned, into out; -ENOMEM. */
static int intern_frames(struct tracer_stacks *st,
			 const struct tracer_frame *in, size_t n,
			 struct tracer_frame *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		out[i].object = intern_string(st, in[i].object ?
						  in[i].object : "");
		out[i].function = in[i].function ?
				  intern_string(st, in[i].function) : NULL;
		out[i].offset = in[i].offset;
		if (!out[i].object || (in[i].function && !out[i].function))
			return -ENOMEM;
	}
	return 0;
}

uint32_t tracer_stacks_intern(struct tracer_stacks *st,
			      const struct tracer_frame *frames, size_t n,
			      bool truncated)
{
	struct tracer_frame f[TRACER_STACK_MAX], *copy;
	size_t slot;

	if (n > TRACER_STACK_MAX)
		n = TRACER_STACK_MAX;
	if (intern_frames(st, frames, n, f) < 0 || grow_stacks(st) < 0)
		return TRACER_ID_NONE;
	slot = slot_of(st, f, n, truncated);
	if (st->index[slot])
		return st->index[slot];
	if (st->nstacks >= TRACER_STACKS_MAX)
		return TRACER_ID_NONE;
	copy = malloc((n ? n : 1) * sizeof(*copy));
	if (!copy)
		return TRACER_ID_NONE;
	memcpy(copy, f, n * sizeof(*copy));
	st->stacks[st->nstacks].frames = copy;
	st->stacks[st->nstacks].nframes = (uint32_t)n;
	st->stacks[st->nstacks].truncated = truncated;
	st->index[slot] = (uint32_t)++st->nstacks;
	return (uint32_t)st->nstacks;
}

const struct tracer_stack *tracer_stacks_get(const struct tracer_stacks *st,
					     uint32_t id)
{
	if (!st || id == TRACER_ID_NONE || id > st->nstacks)
		return NULL;
	return &st->stacks[id - 1];
}

size_t tracer_stacks_count(const struct tracer_stacks *st)
{
	return st ? st->nstacks : 0;
}
