// SPDX-License-Identifier: MIT
/*
 * The breakdowns in the JSON profile, both ways, for every dimension
 * alike: an array of keys (each saved and loaded by its key type) and an
 * array of sub-rows, each naming its keys by index and its syscall by
 * name (row indexes are an accident of the order the run met its
 * syscalls).  The file dimension keeps the places it had before
 * breakdowns were generic, "files" and "ios" at the top level; any other
 * dimension is breakdowns.NAME.keys and breakdowns.NAME.rows.  The
 * loader rebuilds keys and sub-rows through profile_key_get() and
 * profile_sub_get(), the functions a live run uses, so the hash index
 * and the links are derived exactly as they were, never read.  Also
 * "engine" and "calibrated", keys added within iotrace/1 as "files" was.
 */
#include <stdlib.h>
#include <string.h>
#include "profile/jload.h"

/*
 * The engines a run can name; "" for profiles that do not say.  "agent":
 * the agent engine's, retired, in files saved before.
 */
static const char *const engines[] = { "seccomp-bpf", "ptrace", "agent",
				       "" };

/* Where one dimension lives in the document, and its words. */
struct place {
	const char *keys, *subs;	/* "files", "ios"; "keys", "rows" */
	const char *ref, *ref2;		/* "file", "file2"; "key", "key2" */
};

static struct place place_of(const struct profile_dim *d)
{
	if (d->json_keys)
		return (struct place){ d->json_keys, d->json_subs, d->json_ref,
				       d->json_ref2 };
	return (struct place){ "keys", "rows", "key", "key2" };
}

/* The one place a sub-row's syscall is named: its name, in buf. */
static const char *row_name(const struct profile *p, uint32_t row,
			    char *buf)
{
	return profile_row_name(&p->rows[row], buf, PROFILE_NAME_MAX);
}

/* --- writing --- */

/* As json.c: jansson integers are signed, a sum may saturate. */
static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

static json_t *keys_array(const struct profile_breakdown *b)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < b->nkeys; i++) {
		if (json_array_append_new(a, b->dim->save(profile_key(
				b, (uint32_t)i))) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *sub_object(const struct profile *p,
			  const struct profile_breakdown *b,
			  const struct profile_sub *s)
{
	const struct profile_sub_counter *c;
	struct place pl = place_of(b->dim);
	const char *pers = profile_row_pers(&p->rows[s->row]);
	char name[PROFILE_NAME_MAX];
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= json_object_set_new(o, pl.ref, json_integer(s->key));
	err |= json_object_set_new(o, pl.ref2, s->key2 == PROFILE_KEY_NONE ?
				   json_null() : json_integer(s->key2));
	err |= json_object_set_new(o, "syscall",
				   json_string(row_name(p, s->row, name)));
	/* Added within iotrace/1; absent for the native personality. */
	if (pers)
		err |= json_object_set_new(o, "personality",
					   json_string(pers));
	for (c = profile_sub_counters; c->name; c++)
		err |= json_object_set_new(o, c->name,
					   u64(profile_sub_counter_get(s, c)));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *subs_array(const struct profile *p,
			  const struct profile_breakdown *b)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < b->nsubs; i++) {
		if (json_array_append_new(a, sub_object(p, b,
							&b->subs[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Sets the two arrays of b in o: keys and sub-rows. */
static int set_breakdown(json_t *o, const struct profile *p,
			 const struct profile_breakdown *b)
{
	struct place pl = place_of(b->dim);
	int err = 0;

	err |= json_object_set_new(o, pl.keys, keys_array(b));
	err |= json_object_set_new(o, pl.subs, subs_array(p, b));
	return err ? -1 : 0;
}

int breakdowns_to_json(json_t *doc, const struct profile *p)
{
	const struct profile_breakdown *b;
	json_t *all = json_object(), *one;
	int err = 0;

	if (!all)
		return -1;
	for (b = p->breakdowns; b < p->breakdowns + PROFILE_DIMS_MAX &&
				b->dim; b++) {
		if (b->dim->json_keys) {
			err |= set_breakdown(doc, p, b);
			continue;
		}
		one = json_object();
		err |= !one || set_breakdown(one, p, b) < 0;
		err |= json_object_set_new(all, b->dim->name, one);
	}
	err |= json_object_set_new(doc, "breakdowns", all);
	return err ? -1 : 0;
}

/* --- loading --- */

/* -k --stack-sample N: 1 call in N has a stack (absent: every one). */
static int load_stack_sample(struct jload *j, struct profile *p, json_t *doc)
{
	uint64_t n;

	if (!json_object_get(doc, "stack_sample"))
		return 0;
	if (jload_u64(j, doc, "stack_sample", &n) < 0)
		return -1;
	if (n > UINT32_MAX) {
		jload_push_key(j, "stack_sample");
		return jfail(j, "must be 0 to %u", UINT32_MAX);
	}
	p->stack_sample = (uint32_t)n;
	return 0;
}

/* "trace": the -e trace= expression, printed again: controls escaped. */
static int load_trace_expr(struct jload *j, struct profile *p, json_t *doc)
{
	if (!json_object_get(doc, "trace"))
		return 0;
	if (jload_string(j, doc, "trace", p->trace_expr,
			 sizeof(p->trace_expr)) < 0)
		return -1;
	profile_clean_text(p->trace_expr, true);
	return 0;
}

int load_engine(struct jload *j, struct profile *p, json_t *doc)
{
	char word[sizeof(p->engine)];
	size_t i;

	if (load_stack_sample(j, p, doc) < 0)
		return -1;
	if (json_object_get(doc, "calibrated") &&
	    jload_bool(j, doc, "calibrated", &p->calibrated) < 0)
		return -1;
	if (load_trace_expr(j, p, doc) < 0)
		return -1;
	if (!json_object_get(doc, "engine"))
		return 0;
	if (jload_string(j, doc, "engine", word, sizeof(word)) < 0)
		return -1;
	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		if (!strcmp(word, engines[i])) {
			memcpy(p->engine, word, sizeof(word));
			return 0;
		}
	}
	jload_push_key(j, "engine");
	return jfail(j, "unknown engine '%s'", word);
}

static int not_object(struct jload *j, json_t *o)
{
	return jfail(j, "expected an object, got %s",
		     jload_type_word(json_typeof(o)));
}

/* How the other() key prints, for messages. */
static void other_label(const struct profile_dim *d, char *buf, size_t size)
{
	union {
		unsigned char bytes[PROFILE_KEY_MAX];
		uint64_t align;
	} k;

	memset(&k, 0, sizeof(k));
	d->other(k.bytes);
	d->label(buf, size, k.bytes);
}

/* key: zeroed key_size bytes to load into. */
static int load_key(struct jload *j, struct profile_breakdown *b, json_t *o,
		    size_t i, void *key)
{
	const struct profile_dim *d = b->dim;
	char other[PROFILE_LABEL_MAX];
	int id;

	if (!json_is_object(o))
		return not_object(j, o);
	if (d->load(j, o, key) < 0)
		return -1;
	id = profile_key_find(b, key);
	if (id >= 0)
		return jfail(j, "same %s as %s[%d]", d->identity,
			     place_of(d).keys, id);
	id = profile_key_get(b, key);
	if (id < 0)
		return jfail(j, "out of memory");
	/* Past the bound a run sends every new key to other(). */
	if ((size_t)id != i || memcmp(profile_key(b, (uint32_t)id), key,
				      d->key_size)) {
		other_label(d, other, sizeof(other));
		return jfail(j, "only \"%s\" can be %s %zu", other, d->name,
			     d->max_keys - 1);
	}
	return 0;
}

/* The keys array in container c, optional when absent is empty. */
static int load_keys(struct jload *j, struct profile_breakdown *b, json_t *c,
		     bool optional)
{
	const char *name = place_of(b->dim).keys;
	json_t *a, *v;
	void *key;
	size_t i;
	int err = 0;

	if (optional && !json_object_get(c, name))
		return 0;
	a = jload_member(j, c, name, JSON_ARRAY);
	if (!a)
		return -1;
	if (json_array_size(a) > b->dim->max_keys)
		return jfail(j, "more than %zu %s", b->dim->max_keys,
			     b->dim->plural);
	key = malloc(b->dim->key_size);
	if (!key)
		return jfail(j, "out of memory");
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		memset(key, 0, b->dim->key_size);
		err = load_key(j, b, v, i, key);
		if (err < 0)
			break;
		jload_pop(j);
	}
	free(key);
	if (err < 0)
		return -1;
	jload_pop(j);
	return 0;
}

/* A key index of a sub-row, in range; null (nullable only): none. */
static int key_index(struct jload *j, const struct profile_breakdown *b,
		     json_t *o, const char *name, bool nullable, uint32_t *out)
{
	json_t *v = json_object_get(o, name);
	uint64_t n;

	if (nullable && json_is_null(v)) {
		*out = PROFILE_KEY_NONE;
		return 0;
	}
	if (jload_u64(j, o, name, &n) < 0)
		return -1;
	if (n >= b->nkeys) {
		jload_push_key(j, name);
		return jfail(j, "no such %s: %llu (%zu in %s)", b->dim->name,
			     (unsigned long long)n, b->nkeys,
			     place_of(b->dim).keys);
	}
	*out = (uint32_t)n;
	return 0;
}

static int syscall_row(struct jload *j, const struct profile *p, json_t *o,
		       uint32_t *row)
{
	const struct profile_row *r;
	char name[PROFILE_NAME_MAX];
	int pers;

	if (jload_string(j, o, "syscall", name, sizeof(name)) < 0 ||
	    load_personality(j, o, &pers) < 0)
		return -1;
	r = profile_row_find_in(p, pers, name);
	if (!r) {
		jload_push_key(j, "syscall");
		return jfail(j, "'%s' is not in syscalls", name);
	}
	*row = (uint32_t)(r - p->rows);
	return 0;
}

/* What no real run produces, so a table would lie. */
static int check_sub(struct jload *j, const struct profile_sub *s)
{
	if (s->errors > s->calls)
		return jfail(j, "more errors than calls");
	if (s->timed > s->calls)
		return jfail(j, "more timed calls than calls");
	if (s->einval > s->errors)
		return jfail(j, "more EINVAL errors than errors");
	if (s->short_calls > s->calls || s->size_max_calls > s->calls)
		return jfail(j, "more short or size_max calls than calls");
	return 0;
}

static int counters_of(struct jload *j, json_t *o, struct profile_sub *s)
{
	const struct profile_sub_counter *c;

	for (c = profile_sub_counters; c->name; c++)
		if (jload_u64(j, o, c->name,
			      (uint64_t *)((char *)s + c->offset)) < 0)
			return -1;
	return check_sub(j, s);
}

/* Everything but the links, which profile_sub_get() made. */
static void copy_counters(struct profile_sub *to,
			  const struct profile_sub *from)
{
	const struct profile_sub_counter *c;

	for (c = profile_sub_counters; c->name; c++)
		*(uint64_t *)((char *)to + c->offset) =
			profile_sub_counter_get(from, c);
}

static int load_sub(struct jload *j, struct profile *p,
		    struct profile_breakdown *b, json_t *o)
{
	struct place pl = place_of(b->dim);
	struct profile_sub want, *s;
	size_t n = b->nsubs;
	char other[PROFILE_LABEL_MAX];

	if (!json_is_object(o))
		return not_object(j, o);
	memset(&want, 0, sizeof(want));
	if (key_index(j, b, o, pl.ref, false, &want.key) < 0 ||
	    key_index(j, b, o, pl.ref2, true, &want.key2) < 0 ||
	    syscall_row(j, p, o, &want.row) < 0 || counters_of(j, o, &want))
		return -1;
	s = profile_sub_get(b, want.key, want.key2, want.row);
	if (!s)
		return jfail(j, "out of memory");
	if (b->nsubs == n + 1 && s->key == want.key && s->key2 == want.key2) {
		copy_counters(s, &want);
		return 0;
	}
	if (n < b->dim->max_subs)
		return jfail(j, "same %s, %s and syscall as an earlier row",
			     pl.ref, pl.ref2);
	other_label(b->dim, other, sizeof(other));
	return jfail(j, "past the row limit, only one \"%s\" row per syscall "
		     "can follow", other);
}

static int load_subs(struct jload *j, struct profile *p,
		     struct profile_breakdown *b, json_t *c, bool optional)
{
	const char *name = place_of(b->dim).subs;
	json_t *a, *v;
	size_t i;

	if (optional && !json_object_get(c, name))
		return 0;
	a = jload_member(j, c, name, JSON_ARRAY);
	if (!a)
		return -1;
	/* A full run adds at most one other() row per syscall. */
	if (json_array_size(a) > b->dim->max_subs + p->nrows)
		return jfail(j, "more than %zu rows",
			     b->dim->max_subs + p->nrows);
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		if (load_sub(j, p, b, v) < 0)
			return -1;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

/*
 * breakdowns.NAME of a dimension: absent is empty, as is "breakdowns"
 * (files saved before it).  Names of dimensions this iotrace does not
 * have are ignored, like any key it does not know.
 */
static int load_generic(struct jload *j, struct profile *p,
			struct profile_breakdown *b, json_t *doc)
{
	json_t *all = json_object_get(doc, "breakdowns"), *one;

	if (!all)
		return 0;
	all = jload_member(j, doc, "breakdowns", JSON_OBJECT);
	if (!all)
		return -1;
	if (!json_object_get(all, b->dim->name)) {
		jload_pop(j);
		return 0;
	}
	one = jload_member(j, all, b->dim->name, JSON_OBJECT);
	if (!one || load_keys(j, b, one, false) < 0 ||
	    load_subs(j, p, b, one, false) < 0)
		return -1;
	jload_pop(j);
	jload_pop(j);
	return 0;
}

void jload_push_sub(struct jload *j, const struct profile_dim *d, size_t i)
{
	if (!d->json_keys) {
		jload_push_key(j, "breakdowns");
		jload_push_key(j, d->name);
	}
	jload_push_key(j, place_of(d).subs);
	jload_push_index(j, i);
}

int load_breakdowns(struct jload *j, struct profile *p, json_t *doc)
{
	struct profile_breakdown *b;

	if (json_object_get(doc, "breakdowns")) {
		if (!jload_member(j, doc, "breakdowns", JSON_OBJECT))
			return -1;
		jload_pop(j);
	}
	for (b = p->breakdowns; b < p->breakdowns + PROFILE_DIMS_MAX &&
				b->dim; b++) {
		if (!b->dim->json_keys) {
			if (load_generic(j, p, b, doc) < 0)
				return -1;
			continue;
		}
		/* Optional: files saved before them lack them. */
		if (load_keys(j, b, doc, true) < 0 ||
		    load_subs(j, p, b, doc, true) < 0)
			return -1;
	}
	return 0;
}
