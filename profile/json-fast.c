// SPDX-License-Identifier: MIT
/*
 * The "fast_path" part of the JSON profile, both ways (struct
 * profile_fast): whether the ptrace engine's rewritten sites were on
 * in the run, or why not, and what they did: processes given the pool,
 * sites rewritten and left, calls counted without a stop.  Absent in
 * runs saved before it, and then unknown on load.
 */
#include <string.h>
#include "profile/jload.h"

/* later: a key runs saved before it lack, 0 then. */
static const struct {
	const char *key;
	size_t offset;
	bool later;
} fields[] = {
	{ "calls", offsetof(struct profile_fast, calls), false },
	{ "calls_locked", offsetof(struct profile_fast, calls_locked), true },
	{ "interrupted_calls", offsetof(struct profile_fast, interrupted),
	  false },
	{ "processes", offsetof(struct profile_fast, procs), false },
	{ "processes_failed", offsetof(struct profile_fast, procs_failed),
	  false },
	{ "processes_short", offsetof(struct profile_fast, procs_short),
	  true },
	{ "processes_unsafe", offsetof(struct profile_fast, procs_unsafe),
	  true },
	{ "rewrite_after", offsetof(struct profile_fast, rewrite_after),
	  true },
	{ "sites", offsetof(struct profile_fast, sites), false },
	{ "sites_unpatched", offsetof(struct profile_fast, sites_unpatched),
	  false },
	{ "sites_other_shapes", offsetof(struct profile_fast, sites_refused),
	  false },
	{ "call_lo_ns", offsetof(struct profile_fast, call_lo_ns), false },
	{ "call_hi_ns", offsetof(struct profile_fast, call_hi_ns), false },
	{ "locked_call_lo_ns", offsetof(struct profile_fast,
					locked_call_lo_ns), true },
	{ "locked_call_hi_ns", offsetof(struct profile_fast,
					locked_call_hi_ns), true },
	{ "inflation_ns", offsetof(struct profile_fast, inflation_ns),
	  false },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static uint64_t *field(struct profile_fast *f, size_t i)
{
	return (uint64_t *)((char *)f + fields[i].offset);
}

void profile_set_fast(struct profile *p, const struct tracer_fast_use *u)
{
	struct profile_fast *f = &p->fast;

	memset(f, 0, sizeof(*f));
	f->known = true;
	f->on = u->on;
	snprintf(f->why_off, sizeof(f->why_off), "%s",
		 u->why_off ? u->why_off : "");
	f->calls = u->calls;
	f->calls_locked = u->calls_locked;
	f->interrupted = u->interrupted;
	f->procs = u->procs;
	f->procs_failed = u->procs_failed;
	f->procs_short = u->procs_short;
	f->procs_unsafe = u->procs_unsafe;
	f->rewrite_after = u->rewrite_after;
	f->sites = u->sites;
	f->sites_unpatched = u->sites_unpatched;
	f->sites_refused = u->sites_refused;
	f->call_lo_ns = u->call_lo_ns;
	f->call_hi_ns = u->call_hi_ns;
	f->locked_call_lo_ns = u->locked_call_lo_ns;
	f->locked_call_hi_ns = u->locked_call_hi_ns;
	f->inflation_ns = u->inflation_ns;
}

json_t *fast_to_json(const struct profile *p)
{
	struct profile_fast f = p->fast;
	json_t *o = json_object();
	int err = !o;
	size_t i;

	if (!err)
		err |= json_object_set_new(o, "on", json_boolean(f.on));
	if (!err && !f.on)
		err |= json_object_set_new(o, "why_off",
					   json_string(f.why_off));
	for (i = 0; !err && f.on && i < NFIELDS; i++)
		err |= json_object_set_new(o, fields[i].key,
				json_integer((json_int_t)(*field(&f, i) >
					INT64_MAX ? INT64_MAX : *field(&f, i))));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int load_fast(struct jload *j, struct profile *p, json_t *doc)
{
	struct profile_fast f;
	json_t *o, *on;
	size_t i;

	if (!json_object_get(doc, "fast_path"))
		return 0;
	o = jload_member(j, doc, "fast_path", JSON_OBJECT);
	if (!o)
		return -1;
	memset(&f, 0, sizeof(f));
	f.known = true;
	on = json_object_get(o, "on");
	if (!json_is_boolean(on))
		return jfail(j, "\"on\": expected true or false");
	f.on = json_is_true(on);
	if (!f.on && jload_string(j, o, "why_off", f.why_off,
				  sizeof(f.why_off)) < 0)
		return -1;
	for (i = 0; f.on && i < NFIELDS; i++)
		if ((!fields[i].later || json_object_get(o, fields[i].key)) &&
		    jload_u64(j, o, fields[i].key, field(&f, i)) < 0)
			return -1;
	jload_pop(j);
	p->fast = f;
	return 0;
}
