// SPDX-License-Identifier: MIT
/*
 * Loading a saved JSON profile (schema "iotrace/1") back into a struct
 * profile (load-file.c opens the file and picks the loader).  The
 * file is untrusted: jansson parses it (bounded depth, UTF-8 checked, no
 * NUL, duplicate keys refused), then every value is checked for its type
 * and range before it reaches the profile.  The first problem ends the
 * load with its line and the path of the value, e.g.
 * "line 14: syscalls[2].calls: expected an integer, got a string".
 * The getters (jload.c) are shared through jload.h with json-breakdown.c,
 * which loads engine, calibrated and the breakdowns (files, ios ...).
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "profile/jload.h"

#define MAX_ROWS 4096		/* distinct syscalls, with compat names */
/*
 * The kernel takes at most 6 MiB of argv (a quarter of the stack limit,
 * capped at 3/4 of 8 MiB), each argument its NUL and an 8-byte pointer:
 * fewer than 700,000 arguments.  Memory stays bounded by LOAD_JSON_MAX.
 */
#define MAX_ARGS (1 << 20)
#define MAX_ARG_LEN 131072	/* the kernel's MAX_ARG_STRLEN */

static int get_int(struct jload *j, json_t *obj, const char *key, int *out,
		   long long max)
{
	json_t *v = jload_member(j, obj, key, JSON_INTEGER);

	if (!v)
		return -1;
	if (json_integer_value(v) < 0 || json_integer_value(v) > max)
		return jfail(j, "must be 0 to %lld, got %lld", max,
			     (long long)json_integer_value(v));
	*out = (int)json_integer_value(v);
	jload_pop(j);
	return 0;
}

/* Syscall names end up in tables: letters, digits and '_' only. */
static int get_name(struct jload *j, json_t *obj, char *buf, size_t size)
{
	const char *c;

	if (jload_string(j, obj, "name", buf, size) < 0)
		return -1;
	for (c = buf; *c && (isalnum((unsigned char)*c) || *c == '_'); c++)
		;
	if (!*buf || *c) {
		jload_push_key(j, "name");
		return jfail(j, "'%s' is not a syscall name", buf);
	}
	return 0;
}

/* "ENOENT", or "E512" for values without a name. 0: not an errno. */
static int errno_of(const char *name)
{
	char *end;
	long n;
	int e;

	if (name[0] == 'E' && isdigit((unsigned char)name[1])) {
		n = strtol(name + 1, &end, 10);
		return !*end && n > 0 && n <= 4095 ? (int)n : 0;
	}
	for (e = 1; e <= 4095; e++)
		if (strerrorname_np(e) && !strcmp(strerrorname_np(e), name))
			return e;
	return 0;
}

static int load_errnos(struct jload *j, json_t *row, struct profile_row *r)
{
	json_t *o = jload_member(j, row, "errnos", JSON_OBJECT), *v;
	const char *key;
	size_t n = 0, i;
	uint64_t count;
	int err;

	if (!o)
		return -1;
	json_object_foreach(o, key, v) {
		jload_push_key(j, key);
		err = errno_of(key);
		if (!err)
			return jfail(j, "unknown errno name");
		if (n == PROFILE_ERRNO_SLOTS)
			return jfail(j, "more than %d errnos",
				     PROFILE_ERRNO_SLOTS);
		for (i = 0; i < n; i++)
			if (r->errnos[i].err == err)
				return jfail(j, "errno given twice");
		if (jload_u64_value(j, v, &count) < 0)
			return -1;
		r->errnos[n].err = err;
		r->errnos[n++].count = count;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

/* Keys are bucket lower bounds in ns: "0", "2", "4" ... "2^39". */
static int hist_bucket_of(const char *key)
{
	unsigned b;

	if (!strcmp(key, "0"))
		return 0;
	for (b = 1; b < PROFILE_HIST_BUCKETS; b++) {
		char want[24];

		snprintf(want, sizeof(want), "%llu", 1ull << b);
		if (!strcmp(key, want))
			return (int)b;
	}
	return -1;
}

static int load_hist(struct jload *j, json_t *row, struct profile_row *r)
{
	json_t *o = jload_member(j, row, "hist", JSON_OBJECT), *v;
	const char *key;
	int b;

	if (!o)
		return -1;
	json_object_foreach(o, key, v) {
		jload_push_key(j, key);
		b = hist_bucket_of(key);
		if (b < 0)
			return jfail(j, "not a bucket (0 or a power of two "
				     "up to 2^%d)", PROFILE_HIST_BUCKETS - 1);
		if (jload_u64_value(j, v, &r->hist[b]) < 0)
			return -1;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

/* What no real run produces, so a table built from it would lie. */
static int check_row(struct jload *j, const struct profile_row *r)
{
	if (r->errors > r->calls)
		return jfail(j, "more errors than calls");
	if (r->timed > r->calls)
		return jfail(j, "more timed calls than calls");
	if (r->timed && r->min_ns > r->max_ns)
		return jfail(j, "min_ns is above max_ns");
	return 0;
}

static int load_row(struct jload *j, struct profile *p, json_t *o)
{
	const struct profile_counter *k;
	struct profile_row row, *r;
	char name[PROFILE_NAME_MAX];
	int pers;

	if (!json_is_object(o))
		return jfail(j, "expected an object, got %s",
			     jload_type_word(json_typeof(o)));
	memset(&row, 0, sizeof(row));
	if (get_name(j, o, name, sizeof(name)) < 0 ||
	    load_personality(j, o, &pers) < 0)
		return -1;
	if (profile_row_find_in(p, pers, name))
		return jfail(j, "syscall '%s' given twice", name);
	for (k = profile_counters; k->name; k++)
		if ((!k->later || json_object_get(o, k->name)) &&
		    jload_u64(j, o, k->name,
			      (uint64_t *)((char *)&row + k->offset)))
			return -1;
	if (load_errnos(j, o, &row) < 0 || load_hist(j, o, &row) < 0 ||
	    check_row(j, &row) < 0)
		return -1;
	r = profile_row_get_in(p, pers, name);
	if (!r)
		return jfail(j, "out of memory");
	/* The key and what it implies, not in the file: keep new_row's. */
	row.pers = r->pers;
	row.nr = r->nr;
	memcpy(row.unknown, r->unknown, sizeof(row.unknown));
	row.io_arg = r->io_arg;
	row.fd_arg = r->fd_arg;
	row.fd_arg2 = r->fd_arg2;
	if (!row.timed)
		row.min_ns = UINT64_MAX;	/* as profile_add keeps it */
	*r = row;
	return 0;
}

static int load_rows(struct jload *j, struct profile *p, json_t *doc)
{
	json_t *a = jload_member(j, doc, "syscalls", JSON_ARRAY), *v;
	size_t i;

	if (!a)
		return -1;
	if (json_array_size(a) > MAX_ROWS)
		return jfail(j, "more than %d syscalls", MAX_ROWS);
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		if (load_row(j, p, v) < 0)
			return -1;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

static int load_truth_row(struct jload *j, struct profile_truth_row *t,
			  json_t *o)
{
	if (!json_is_object(o))
		return jfail(j, "expected an object, got %s",
			     jload_type_word(json_typeof(o)));
	if (get_name(j, o, t->name, sizeof(t->name)) < 0 ||
	    jload_u64(j, o, "calls", &t->calls) < 0 ||
	    jload_u64(j, o, "total_ns", &t->total_ns) < 0 ||
	    jload_u64(j, o, "median_ns", &t->median_ns) < 0)
		return -1;
	return 0;
}

static int load_truth(struct jload *j, struct profile *p, json_t *doc)
{
	json_t *o = json_object_get(doc, "truth"), *a, *v;
	size_t i;

	if (json_is_null(o))
		return 0;
	o = jload_member(j, doc, "truth", JSON_OBJECT);
	if (!o || jload_u64(j, o, "wall_ns", &p->truth.wall_ns) < 0)
		return -1;
	/* Saved before the clock's cost was kept: not known. */
	if (json_object_get(o, "clock_ns") &&
	    jload_u64(j, o, "clock_ns", &p->truth.clock_ns) < 0)
		return -1;
	a = jload_member(j, o, "syscalls", JSON_ARRAY);
	if (!a)
		return -1;
	if (json_array_size(a) > PROFILE_TRUTH_MAX)
		return jfail(j, "more than %d rows", PROFILE_TRUTH_MAX);
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		if (load_truth_row(j, &p->truth.rows[i], v) < 0)
			return -1;
		p->truth.nrows = i + 1;
		jload_pop(j);
	}
	jload_pop(j);
	jload_pop(j);
	return 0;
}

static int load_command(struct jload *j, struct profile *p, json_t *doc)
{
	json_t *a = jload_member(j, doc, "command", JSON_ARRAY), *v;
	size_t i, n;

	if (!a)
		return -1;
	n = json_array_size(a);
	if (n > MAX_ARGS)
		return jfail(j, "more than %d arguments", MAX_ARGS);
	p->argv = calloc(n + 1, sizeof(*p->argv));
	if (!p->argv)
		return jfail(j, "out of memory");
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		if (!json_is_string(v))
			return jfail(j, "expected a string, got %s",
				     jload_type_word(json_typeof(v)));
		if (json_string_length(v) > MAX_ARG_LEN)
			return jfail(j, "longer than %d bytes", MAX_ARG_LEN);
		p->argv[i] = strdup(json_string_value(v));
		if (!p->argv[i])
			return jfail(j, "out of memory");
		/* Untrusted: no ESC sequence of the file reaches a terminal. */
		profile_clean_text(p->argv[i], true);
		p->argc = (int)i + 1;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

static int load_host(struct jload *j, struct profile *p, json_t *doc)
{
	json_t *o = jload_member(j, doc, "host", JSON_OBJECT);

	if (!o ||
	    jload_string(j, o, "kernel", p->kernel, sizeof(p->kernel)) < 0 ||
	    get_int(j, o, "ncpus", &p->ncpus, 1 << 20) < 0)
		return -1;
	jload_pop(j);
	return 0;
}

static int load_exit(struct jload *j, struct profile *p, json_t *doc)
{
	json_t *o = jload_member(j, doc, "exit", JSON_OBJECT);
	struct profile_exit *e = &p->exit;

	if (!o || jload_bool(j, o, "known", &e->known) < 0 ||
	    get_int(j, o, "code", &e->code, 255) < 0 ||
	    get_int(j, o, "signal", &e->signal, 64) < 0 ||
	    jload_bool(j, o, "core", &e->core) < 0 ||
	    get_int(j, o, "fatal_signal", &e->fatal_signal, 64) < 0)
		return -1;
	/* Added within iotrace/1: optional. */
	if ((json_object_get(o, "attached") &&
	     jload_bool(j, o, "attached", &e->attached) < 0) ||
	    (json_object_get(o, "detached") &&
	     jload_bool(j, o, "detached", &e->detached) < 0))
		return -1;
	jload_pop(j);
	return 0;
}

/* source points at a literal: the profile does not own it. */
static int load_source(struct jload *j, struct profile *p, json_t *doc)
{
	static const char *const sources[] = { "iotrace", "strace" };
	char buf[16];
	size_t i;

	if (jload_string(j, doc, "source", buf, sizeof(buf)) < 0)
		return -1;
	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		if (!strcmp(buf, sources[i])) {
			p->source = sources[i];
			return 0;
		}
	}
	jload_push_key(j, "source");
	return jfail(j, "unknown source '%s'", buf);
}

static int load_schema(struct jload *j, json_t *doc)
{
	char schema[32];

	if (!json_is_object(doc))
		return load_fail(j->e, 1, "not an iotrace profile: the top "
				 "level is %s",
				 jload_type_word(json_typeof(doc)));
	if (!json_object_get(doc, "schema"))
		return load_fail(j->e, 1, "not an iotrace profile: no "
				 "\"schema\" key");
	if (jload_string(j, doc, "schema", schema, sizeof(schema)) < 0)
		return -1;
	if (strcmp(schema, "iotrace/1")) {
		jload_push_key(j, "schema");
		return jfail(j, "unsupported schema '%s' (this iotrace reads "
			     "iotrace/1)", schema);
	}
	return 0;
}

static int load_doc(struct jload *j, struct profile *p, json_t *doc)
{
	uint64_t start;

	if (load_schema(j, doc) < 0 || load_source(j, p, doc) < 0 ||
	    load_command(j, p, doc) < 0 ||
	    jload_u64(j, doc, "start_time", &start) < 0 ||
	    load_host(j, p, doc) < 0 ||
	    jload_u64(j, doc, "wall_ns", &p->wall_ns) < 0 ||
	    jload_u64(j, doc, "stops", &p->stops) < 0 ||
	    jload_u64(j, doc, "overhead_ns", &p->overhead_ns) < 0 ||
	    (json_object_get(doc, "wait_tasks") &&
	     jload_u64(j, doc, "wait_tasks", &p->wait_tasks) < 0) ||
	    load_engine(j, p, doc) < 0 || load_exit(j, p, doc) < 0 ||
	    load_rows(j, p, doc) < 0 || load_breakdowns(j, p, doc) < 0 ||
	    load_truth(j, p, doc) < 0 ||
	    load_untraced(j, p, doc) < 0 || load_baseline(j, p, doc) < 0 ||
	    load_storage(j, p, doc) < 0 ||
	    load_fast(j, p, doc) < 0)
		return -1;
	p->start_time = (time_t)start;
	return 0;
}

/*
 * Values each in range can add up past what totals hold (sums.c): the
 * file is refused at the value where a sum passed it, "syscalls[1].calls:
 * the calls of all syscalls add up to more than 2^63-1".  Sub-rows and
 * rows are in the profile in the order of their arrays in the file.
 */
static int check_sums(struct jload *j, const struct profile *p)
{
	struct profile_overflow o;
	char what[160];

	if (profile_check_sums(p, &o) == 0)
		return 0;
	profile_overflow_text(p, &o, what, sizeof(what));
	if (o.dim) {
		jload_push_sub(j, o.dim, o.index);
	} else {
		jload_push_key(j, "syscalls");
		jload_push_index(j, o.index);
	}
	jload_push_key(j, o.counter);
	return jfail(j, "%s", what);
}

/* Host facts profile_init() took from this machine are not the run's. */
static void forget_host(struct profile *p)
{
	p->kernel[0] = '\0';
	p->ncpus = 0;
	p->start_time = 0;
}

int profile_from_json(struct profile *p, const char *text, size_t len,
		      struct load_error *e)
{
	struct jload j = { .text = text, .len = len, .e = e };
	json_error_t je;
	json_t *doc;
	int err;

	forget_host(p);
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (!doc)
		return load_fail(e, je.line > 0 ? (unsigned long)je.line : 1,
				 "invalid JSON: %s", je.text);
	err = load_doc(&j, p, doc);
	if (!err)
		err = check_sums(&j, p);
	json_decref(doc);
	if (err < 0) {
		profile_release(p);
		forget_host(p);
		p->engine[0] = '\0';
		p->calibrated = false;
		p->stack_sample = 0;
	}
	return err;
}
