// SPDX-License-Identifier: MIT
/*
 * The call-site dimension (-k): which user stack each call was made
 * from.  Its key (struct profile_callsite) is the stack's frames,
 * innermost first, each a function (or none, for a stripped object),
 * an offset and the object's path, held in the key itself so a saved
 * profile is whole.  This file is the key type (compare, hash, save,
 * load, print: profile_dim_callsite) and how events find their call
 * site: the tracer gives each call a stack id (tracer/stacks.c), and
 * each id is turned into a key once, through a cache of ids.
 * Aggregation and bounds are breakdown.c's: past PROFILE_CALLSITES_MAX
 * stacks, the rest share "(other call sites)".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/jload.h"

#define OTHER_SITES "(other call sites)"
#define LABEL_FRAMES 8		/* frames a label shows */

/* --- frames in a key --- */

struct profile_frame profile_callsite_frame(const struct profile_callsite *c,
					    unsigned i)
{
	const char *fn = c->text + c->at[i];

	return (struct profile_frame){ fn[0] ? fn : NULL,
				       fn + strlen(fn) + 1, c->offset[i] };
}

const char *profile_object_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* Appends s and its NUL at *used; false when it does not fit. */
static bool put(struct profile_callsite *c, size_t *used, const char *s)
{
	size_t len = strlen(s) + 1;

	if (len > sizeof(c->text) - *used)
		return false;
	memcpy(c->text + *used, s, len);
	/* Printed in reports and saved as JSON strings. */
	profile_clean_text(c->text + *used, true);
	*used += len;
	return true;
}

int profile_callsite_set(struct profile_callsite *c,
			 const struct profile_frame *frames, size_t n,
			 bool truncated)
{
	size_t used = 0, start, i;

	c->flags = truncated ? PCS_TRUNCATED : 0;
	for (i = 0; i < n; i++) {
		start = used;
		if (i == PROFILE_FRAMES_MAX ||
		    !put(c, &used, frames[i].function ? frames[i].function :
			 "") ||
		    !put(c, &used, frames[i].object ? frames[i].object : "")) {
			/* The rest would not fit: the outer frames go. */
			memset(c->text + start, 0, sizeof(c->text) - start);
			c->flags |= PCS_CUT;
			break;
		}
		c->at[i] = (uint16_t)start;
		c->offset[i] = frames[i].offset;
		c->nframes = (uint16_t)(i + 1);
	}
	return 0;
}

/* --- the key type --- */

/* Keys are built in zeroed memory: equal stacks are equal bytes. */
static int callsite_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sizeof(struct profile_callsite));
}

static uint64_t callsite_hash(const void *key)
{
	const struct profile_callsite *c = key;
	uint64_t h = profile_hash_bytes(0, c, offsetof(struct
						       profile_callsite, text));
	const char *end = c->text;
	unsigned i;

	/* The text in use: up to the last frame's object's NUL. */
	if (c->nframes) {
		end = c->text + c->at[c->nframes - 1];
		for (i = 0; i < 2; i++)
			end += strlen(end) + 1;
	}
	return profile_hash_bytes(h, c->text, (size_t)(end - c->text));
}

static void callsite_other(void *key)
{
	((struct profile_callsite *)key)->flags = PCS_OTHER;
}

/*
 * "f" (with offsets, "f+0x1a") or "libc.so.6+0x2840" for a stripped
 * object, to out.
 */
static void frame_print(FILE *out, const struct profile_frame *f,
			bool offsets)
{
	if (f->function && offsets)
		fprintf(out, "%s+0x%x", f->function, f->offset);
	else if (f->function)
		fputs(f->function, out);
	else if (f->object[0])
		fprintf(out, "%s+0x%x", profile_object_name(f->object),
			f->offset);
	else
		fputs("[unknown]", out);	/* nothing mapped */
}

void profile_callsite_print(FILE *out, const struct profile_callsite *c,
			    unsigned from, unsigned to, bool offsets)
{
	struct profile_frame f, next;
	unsigned i;

	for (i = from; i < to && i < c->nframes; i++) {
		f = profile_callsite_frame(c, i);
		if (i > from)
			fputs(" <- ", out);
		frame_print(out, &f, offsets);
		next = i + 1 < to && i + 1 < c->nframes ?
		       profile_callsite_frame(c, i + 1) : f;
		/* A run of frames in one object names it once, after. */
		if (f.object[0] &&
		    (next.object == f.object || strcmp(next.object, f.object)))
			fprintf(out, " (%s)", profile_object_name(f.object));
	}
}

char *profile_callsite_string(const struct profile_callsite *c,
			      unsigned from, unsigned to, bool offsets)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	profile_callsite_print(m, c, from, to, offsets);
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

size_t profile_callsite_text(char *buf, size_t size,
			     const struct profile_callsite *c, unsigned from,
			     unsigned to, bool offsets)
{
	char *text = profile_callsite_string(c, from, to, offsets);
	size_t n = text ? strlen(text) : 0;

	if (n >= size)
		n = size - 1;
	memcpy(buf, text ? text : "", n);
	buf[n] = '\0';
	free(text);
	return n;
}

/*
 * The stack from its first frame, LABEL_FRAMES of it at most, with
 * offsets: two keys are never labelled the same (diff, csv-breakdown).
 */
static void callsite_label(char *buf, size_t size, const void *key)
{
	const struct profile_callsite *c = key;
	size_t n;

	if (c->flags & PCS_OTHER) {
		snprintf(buf, size, "%s", OTHER_SITES);
		return;
	}
	n = profile_callsite_text(buf, size, c, 0, LABEL_FRAMES, true);
	if (n + 1 < size && (c->nframes > LABEL_FRAMES || c->flags & PCS_CUT))
		n += (size_t)snprintf(buf + n, size - n, " <- ...");
	if (n + 1 < size && c->flags & PCS_TRUNCATED)
		snprintf(buf + n, size - n, " [truncated]");
}

static json_t *frame_save(const struct profile_frame *f)
{
	return json_pack("{s:s?,s:s,s:I}", "function", f->function,
			 "object", f->object, "offset", (json_int_t)f->offset);
}

static json_t *callsite_save(const void *key)
{
	const struct profile_callsite *c = key;
	struct profile_frame f;
	json_t *frames = json_array();
	unsigned i;

	for (i = 0; frames && i < c->nframes; i++) {
		f = profile_callsite_frame(c, i);
		if (json_array_append_new(frames, frame_save(&f)) < 0) {
			json_decref(frames);
			return NULL;
		}
	}
	return json_pack("{s:o*,s:b,s:b,s:b}", "frames", frames,
			 "truncated", (c->flags & PCS_TRUNCATED) != 0,
			 "cut", (c->flags & PCS_CUT) != 0,
			 "other", (c->flags & PCS_OTHER) != 0);
}

/* One saved frame, its strings into fn and obj (text-sized). */
static int frame_load(struct jload *j, json_t *o, struct profile_frame *f,
		      char *fn, char *obj, size_t size)
{
	json_t *v = json_object_get(o, "function");
	uint64_t off;

	if (!json_is_object(o))
		return jfail(j, "expected an object, got %s",
			     jload_type_word(json_typeof(o)));
	f->function = NULL;
	if (v && !json_is_null(v)) {
		if (jload_string(j, o, "function", fn, size) < 0)
			return -1;
		f->function = fn;
	}
	if (jload_string(j, o, "object", obj, size) < 0 ||
	    jload_u64(j, o, "offset", &off) < 0)
		return -1;
	if (off > UINT32_MAX) {
		jload_push_key(j, "offset");
		return jfail(j, "must be 0 to %u", UINT32_MAX);
	}
	f->object = obj;
	f->offset = (uint32_t)off;
	return 0;
}

/* The strings of the frames read so far, PROFILE_FRAMES_MAX of each. */
struct frame_text {
	char fn[PROFILE_FRAMES_MAX][sizeof(((struct profile_callsite *)0)
					   ->text)];
	char obj[PROFILE_FRAMES_MAX][sizeof(((struct profile_callsite *)0)
					    ->text)];
};

static int frames_load(struct jload *j, json_t *o, struct frame_text *t,
		       struct profile_frame *frames, size_t *n)
{
	json_t *a = jload_member(j, o, "frames", JSON_ARRAY), *v;
	size_t i;

	if (!a)
		return -1;
	*n = 0;
	json_array_foreach(a, i, v) {
		if (i == PROFILE_FRAMES_MAX)
			break;	/* as a live run would cut them */
		jload_push_index(j, i);
		if (frame_load(j, v, &frames[i], t->fn[i], t->obj[i],
			       sizeof(t->fn[i])) < 0)
			return -1;
		jload_pop(j);
		*n = i + 1;
	}
	jload_pop(j);
	return 0;
}

static int callsite_load(struct jload *j, json_t *o, void *key)
{
	struct profile_frame frames[PROFILE_FRAMES_MAX];
	struct profile_callsite *c = key;
	bool truncated, cut, other;
	struct frame_text *t;
	size_t n;
	int err;

	if (jload_bool(j, o, "other", &other) < 0 ||
	    jload_bool(j, o, "truncated", &truncated) < 0 ||
	    jload_bool(j, o, "cut", &cut) < 0)
		return -1;
	if (other) {
		callsite_other(c);
		return 0;
	}
	t = malloc(sizeof(*t));
	if (!t)
		return jfail(j, "out of memory");
	err = frames_load(j, o, t, frames, &n);
	if (!err) {
		profile_callsite_set(c, frames, n, truncated);
		if (cut)
			c->flags |= PCS_CUT;
	}
	free(t);
	return err;
}

const struct profile_dim profile_dim_callsite = {
	.name = "callsite",
	.plural = "call sites",
	.identity = "frames",
	.key_size = sizeof(struct profile_callsite),
	.max_keys = PROFILE_CALLSITES_MAX,
	.max_subs = PROFILE_CALLSITE_SUBS,
	.cmp = callsite_cmp,
	.hash = callsite_hash,
	.other = callsite_other,
	.label = callsite_label,
	.save = callsite_save,
	.load = callsite_load,
};

/* --- from events: stack ids to call sites --- */

void profile_stack_cache_release(struct profile_stack_cache *c)
{
	free(c->key);
	c->key = NULL;
	c->n = 0;
}

/* Room for id in the cache; -ENOMEM. */
static int cache_grow(struct profile_stack_cache *c, uint32_t id)
{
	size_t n = c->n ? c->n : 256;
	int32_t *k;

	if (id < c->n)
		return 0;
	while (n <= id)
		n *= 2;
	k = realloc(c->key, n * sizeof(*k));
	if (!k)
		return -ENOMEM;
	memset(k + c->n, 0, (n - c->n) * sizeof(*k));
	c->key = k;
	c->n = n;
	return 0;
}

/* The key of a tracer stack, added when absent. */
static int key_of_stack(struct profile_breakdown *b,
			const struct tracer_stack *s)
{
	struct profile_frame frames[PROFILE_FRAMES_MAX];
	struct profile_callsite *key = calloc(1, sizeof(*key));
	uint32_t i;
	int k;

	if (!key)
		return -ENOMEM;
	for (i = 0; i < s->nframes && i < PROFILE_FRAMES_MAX; i++)
		frames[i] = (struct profile_frame){
			s->frames[i].function, s->frames[i].object,
			(uint32_t)s->frames[i].offset };
	profile_callsite_set(key, frames, i, s->truncated);
	k = profile_key_get(b, key);
	free(key);
	return k;
}

/*
 * The sub-row of call (arch, nr) at stack id; NULL with *err 0 when
 * there is none to add to (no call-site dimension, an unknown id).
 */
static struct profile_sub *site_sub(struct profile *p,
				    struct profile_stack_cache *c,
				    const struct tracer_stack *s,
				    const struct tracer_event *call,
				    uint32_t id, int *err)
{
	struct profile_breakdown *b =
		profile_breakdown_rw(p, &profile_dim_callsite);
	struct profile_row *r;
	int k;

	*err = 0;
	if (!b || !s)
		return NULL;
	*err = -ENOMEM;
	if (cache_grow(c, id) < 0)
		return NULL;
	k = c->key[id] - 1;
	if (k < 0) {
		k = key_of_stack(b, s);
		if (k < 0)
			return NULL;
		c->key[id] = k + 1;
	}
	r = profile_event_row(p, call);
	return r ? profile_sub_get(b, (uint32_t)k, PROFILE_KEY_NONE,
				   (uint32_t)(r - p->rows)) : NULL;
}

int profile_add_callsite(struct profile *p, struct profile_stack_cache *c,
			 const struct tracer_stack *stack,
			 const struct tracer_event *ev)
{
	struct profile_sub *s;
	int err;

	if ((ev->flags & EVF_HIDDEN) || ev->stack_id == TRACER_ID_NONE)
		return 0;
	s = site_sub(p, c, stack, ev, ev->stack_id, &err);
	return s ? profile_sub_event(p, s, ev) : err;
}

bool profile_sites_fast_sampled(const struct profile *p)
{
	return p->stack_sample > 1 && p->fast.on && p->fast.calls;
}

uint64_t profile_site_time(const struct profile *p,
			   const struct profile_row *r, uint64_t calls,
			   uint64_t time_ns, uint64_t row_ns)
{
	uint64_t scale = p->stack_sample > 1 ? p->stack_sample : 1;
	uint64_t shown = calls * scale < r->calls ? calls * scale : r->calls;

	if (!profile_sites_fast_sampled(p))
		return time_ns * scale;
	return r->calls ? (uint64_t)((unsigned __int128)row_ns * shown /
				     r->calls) : 0;
}
