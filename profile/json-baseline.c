// SPDX-License-Identifier: MIT
/*
 * The "baseline" part of the JSON profile, both ways: what `--baseline`
 * measured of the command untraced (struct profile_baseline), or null.
 * The key was added within "iotrace/1", so it is optional on load: files
 * saved before it (or by runs without --baseline) load with no baseline.
 * The loader refuses what no measurement can produce: zero or more than
 * PROFILE_BASELINE_MAX runs, a median outside its own spread, or CPU
 * times without a wall time.  "stdin" and "stdout" name what the untraced
 * runs had, "traced_stdin" and "traced_stdout" what the traced run had
 * ("/dev/null", "a pipe", "a terminal", "a file"...); each is optional
 * (absent: not known), added later within "iotrace/1".
 */
#include <string.h>
#include "profile/jload.h"

/* A key and where its value goes in struct profile_baseline. */
struct field_at {
	const char *key;
	size_t offset;
};

/* Its fields, as data. */
static const struct field_at fields[] = {
	{ "wall_ns", offsetof(struct profile_baseline, wall_ns) },
	{ "wall_min_ns", offsetof(struct profile_baseline, wall_min_ns) },
	{ "wall_max_ns", offsetof(struct profile_baseline, wall_max_ns) },
	{ "user_ns", offsetof(struct profile_baseline, user_ns) },
	{ "sys_ns", offsetof(struct profile_baseline, sys_ns) },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* The streams' kinds: their words. */
static const struct field_at streams[] = {
	{ "stdin", offsetof(struct profile_baseline, in) },
	{ "stdout", offsetof(struct profile_baseline, out) },
	{ "traced_stdin", offsetof(struct profile_baseline, traced_in) },
	{ "traced_stdout", offsetof(struct profile_baseline, traced_out) },
};
#define NSTREAMS (sizeof(streams) / sizeof(streams[0]))

static uint64_t *field(struct profile_baseline *b, size_t i)
{
	return (uint64_t *)((char *)b + fields[i].offset);
}

static uint64_t value(const struct profile_baseline *b, size_t i)
{
	return *(const uint64_t *)((const char *)b + fields[i].offset);
}

/* As json.c: jansson integers are signed; saturate, never wrap. */
static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *baseline_to_json(const struct profile *p)
{
	const struct profile_baseline *b = &p->baseline;
	json_t *o;
	int err = 0;
	size_t i;

	if (!b->runs)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	err |= json_object_set_new(o, "runs", json_integer(b->runs));
	for (i = 0; i < NFIELDS; i++)
		err |= json_object_set_new(o, fields[i].key,
					   u64(value(b, i)));
	for (i = 0; i < NSTREAMS; i++) {
		const char *kind = (const char *)b + streams[i].offset;

		if (*kind)
			err |= json_object_set_new(o, streams[i].key,
						   json_string(kind));
	}
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* What a measurement cannot give: the message, or NULL when plausible. */
static const char *implausible(const struct profile_baseline *b)
{
	if (b->wall_min_ns > b->wall_ns || b->wall_ns > b->wall_max_ns)
		return "wall_ns must lie between wall_min_ns and wall_max_ns";
	if (!b->wall_ns && (b->user_ns || b->sys_ns))
		return "CPU times without a wall time";
	return NULL;
}

int load_baseline(struct jload *j, struct profile *p, json_t *doc)
{
	struct profile_baseline b;
	const char *why;
	json_t *o = json_object_get(doc, "baseline");
	uint64_t runs;
	size_t i;

	if (!o || json_is_null(o))
		return 0;
	o = jload_member(j, doc, "baseline", JSON_OBJECT);
	if (!o || jload_u64(j, o, "runs", &runs) < 0)
		return -1;
	if (runs < 1 || runs > PROFILE_BASELINE_MAX) {
		jload_push_key(j, "runs");
		return jfail(j, "must be 1 to %d, got %llu",
			     PROFILE_BASELINE_MAX, (unsigned long long)runs);
	}
	memset(&b, 0, sizeof(b));
	b.runs = (uint32_t)runs;
	for (i = 0; i < NFIELDS; i++)
		if (jload_u64(j, o, fields[i].key, field(&b, i)) < 0)
			return -1;
	for (i = 0; i < NSTREAMS; i++)
		if (json_object_get(o, streams[i].key) &&
		    jload_string(j, o, streams[i].key, (char *)&b +
				 streams[i].offset, PROFILE_STREAM_MAX) < 0)
			return -1;
	why = implausible(&b);
	if (why)
		return jfail(j, "%s", why);
	jload_pop(j);
	p->baseline = b;
	return 0;
}
