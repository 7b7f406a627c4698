// SPDX-License-Identifier: MIT
/*
 * The JSON renderer: the whole profile as schema "iotrace/1" (see
 * docs/json-schema.md), built with jansson.  Every number is an integer
 * in ns, bytes or counts, so nothing is lost to float rounding; the file
 * is what `iotrace report` and `iotrace diff` read back (load.c).
 * The breakdowns (files, ios, breakdowns) are written by
 * json-breakdown.c.
 */
#include <string.h>
#include "profile/jload.h"

/*
 * jansson integers are signed 64-bit.  A sum of sizes asked for can pass
 * 2^63 (read(fd, buf, SIZE_MAX) is legal): such a value saturates.
 */
static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

/* Adds key: value, taking the reference; -1 when value is NULL. */
static int set(json_t *obj, const char *key, json_t *value)
{
	return json_object_set_new(obj, key, value);
}

static json_t *errno_object(const struct profile_row *r)
{
	json_t *o = json_object();
	char key[24];
	size_t i;

	for (i = 0; o && i < PROFILE_ERRNO_SLOTS && r->errnos[i].err; i++) {
		const char *name = strerrorname_np(r->errnos[i].err);

		/* Kernel-internal values (ERESTARTSYS is 512) have no name. */
		if (!name) {
			snprintf(key, sizeof(key), "E%d", r->errnos[i].err);
			name = key;
		}
		if (set(o, name, u64(r->errnos[i].count)) < 0)
			goto out_put;
	}
	return o;

out_put:
	json_decref(o);
	return NULL;
}

/* Sparse: {"lower bound in ns": count} for buckets with calls in them. */
static json_t *hist_object(const struct profile_row *r)
{
	json_t *o = json_object();
	char key[24];
	unsigned b;

	for (b = 0; o && b < PROFILE_HIST_BUCKETS; b++) {
		if (!r->hist[b])
			continue;
		snprintf(key, sizeof(key), "%llu", b ? 1ull << b : 0ull);
		if (set(o, key, u64(r->hist[b])) < 0) {
			json_decref(o);
			return NULL;
		}
	}
	return o;
}

static json_t *row_object(const struct profile_row *r)
{
	const struct profile_counter *k;
	char name[PROFILE_NAME_MAX];
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= set(o, "name", json_string(profile_row_name(r, name,
							   sizeof(name))));
	/* A counter added later is left out at 0: files saved before it
	   save again as they were. */
	for (k = profile_counters; k->name; k++)
		if (!k->later || profile_counter_get(r, k))
			err |= set(o, k->name, u64(profile_counter_get(r, k)));
	err |= set(o, "errnos", errno_object(r));
	err |= set(o, "hist", hist_object(r));
	/* Added within iotrace/1: last; absent for the native personality. */
	if (profile_row_pers(r))
		err |= set(o, "personality", json_string(profile_row_pers(r)));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/*
 * How far a row's corrected time can be trusted: the correction's error
 * is the same for every call of a run, so it adds up over the row's
 * timed calls; a mean per call under the resolution is noise.
 */
static json_t *with_resolution(json_t *o, const struct profile_row *r,
			       uint64_t resolution_ns)
{
	if (!o || !resolution_ns || !r->timed)
		return o;
	if (set(o, "time_uncertainty_ns", u64(r->timed * resolution_ns)) ||
	    set(o, "below_resolution",
		json_boolean(r->time_ns / r->timed < resolution_ns))) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *rows_array(const struct profile *p)
{
	struct profile_estimate e;
	json_t *a = json_array();
	size_t i;

	profile_untraced(p, &e);
	for (i = 0; a && i < p->nrows; i++) {
		if (json_array_append_new(a, with_resolution(row_object(
				&p->rows[i]), &p->rows[i],
				e.resolution_ns)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *truth_object(const struct profile_truth *t)
{
	json_t *o, *a;
	size_t i;
	int err = 0;

	if (!t->nrows)
		return json_null();
	o = json_object();
	a = json_array();
	for (i = 0; a && i < t->nrows; i++) {
		json_t *r = json_object();

		if (r) {
			err |= set(r, "name", json_string(t->rows[i].name));
			err |= set(r, "calls", u64(t->rows[i].calls));
			err |= set(r, "total_ns", u64(t->rows[i].total_ns));
			err |= set(r, "median_ns", u64(t->rows[i].median_ns));
		}
		err |= json_array_append_new(a, r);
	}
	err |= set(o, "wall_ns", u64(t->wall_ns));
	err |= set(o, "clock_ns", u64(t->clock_ns));
	err |= set(o, "syscalls", a);
	if (err || !o) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *command_array(const struct profile *p)
{
	json_t *a = json_array();
	int i;

	for (i = 0; a && i < p->argc; i++) {
		if (json_array_append_new(a, json_string(p->argv[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *exit_object(const struct profile_exit *e)
{
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= set(o, "known", json_boolean(e->known));
	err |= set(o, "code", json_integer(e->code));
	err |= set(o, "signal", json_integer(e->signal));
	err |= set(o, "core", json_boolean(e->core));
	err |= set(o, "fatal_signal", json_integer(e->fatal_signal));
	/* Only for iotrace -p: other files stay as they were. */
	if (e->attached) {
		err |= set(o, "attached", json_true());
		err |= set(o, "detached", json_boolean(e->detached));
	}
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* Derived, for scripts: the loader ignores it. */
static json_t *totals_object(const struct profile *p)
{
	struct profile_totals t;
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	profile_totals(p, &t);
	err |= set(o, "calls", u64(t.calls));
	err |= set(o, "errors", u64(t.errors));
	err |= set(o, "timed", u64(t.timed));
	err |= set(o, "time_ns", u64(t.time_ns));
	err |= set(o, "raw_time_ns", u64(t.raw_time_ns));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *host_object(const struct profile *p)
{
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= set(o, "kernel", json_string(p->kernel));
	err |= set(o, "ncpus", json_integer(p->ncpus));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *profile_to_json(const struct profile *p)
{
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= set(o, "schema", json_string("iotrace/1"));
	err |= set(o, "source", json_string(p->source));
	err |= set(o, "command", command_array(p));
	err |= set(o, "start_time", json_integer((json_int_t)p->start_time));
	err |= set(o, "host", host_object(p));
	err |= set(o, "wall_ns", u64(p->wall_ns));
	err |= set(o, "stops", u64(p->stops));
	err |= set(o, "overhead_ns", u64(p->overhead_ns));
	err |= set(o, "calibrated", json_boolean(p->calibrated));
	err |= set(o, "engine", json_string(p->engine));
	if (p->trace_expr[0])
		err |= set(o, "trace", json_string(p->trace_expr));
	if (p->stack_sample > 1)
		err |= set(o, "stack_sample", u64(p->stack_sample));
	if (p->wait_tasks)
		err |= set(o, "wait_tasks", u64(p->wait_tasks));
	err |= set(o, "exit", exit_object(&p->exit));
	err |= set(o, "totals", totals_object(p));
	err |= set(o, "syscalls", rows_array(p));
	err |= breakdowns_to_json(o, p);
	err |= set(o, "truth", truth_object(&p->truth));
	if (p->cost.known)
		err |= set(o, "untraced", untraced_to_json(p));
	err |= set(o, "baseline", baseline_to_json(p));
	/* Absent when not known: files saved before it stay as they were. */
	if (p->storage.tasks || p->storage.mem_known)
		err |= set(o, "storage", storage_to_json(p));
	if (p->fast.known)
		err |= set(o, "fast_path", fast_to_json(p));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int dump_to_file(const char *buf, size_t size, void *data)
{
	return fwrite(buf, 1, size, data) == size ? 0 : -1;
}

/* Rows keep the profile's order (first seen): -S is for tables. */
int profile_save_json(FILE *f, const struct profile *p)
{
	json_t *doc = profile_to_json(p);
	int err;

	if (!doc)
		return -1;
	err = json_dump_callback(doc, dump_to_file, f,
				 JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(doc);
	if (err < 0 || fputc('\n', f) == EOF)
		return -1;
	return ferror(f) ? -1 : 0;
}
