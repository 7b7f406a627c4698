// SPDX-License-Identifier: MIT
/*
 * The "engines" part of the JSON profile, both ways: for a run of the
 * agent engine, the calls the agent and ptrace each counted, the
 * processes and tasks the agent measured, the data calls it could give
 * no file, and the first processes left to ptrace with why (struct
 * profile_engines).  Absent for ptrace runs, so their files save as
 * before; optional on load, as is "agent_unattributed_calls" (a run
 * saved before the agent gave files).
 */
#include <stdio.h>
#include <string.h>
#include "reports/profile/jload.h"

/* Keys added later (the in-run probes) are optional on load. */
static const struct {
	const char *key;
	size_t offset;
	bool later;
} fields[] = {
	{ "agent_processes",
	  offsetof(struct profile_engines, agent_procs), false },
	{ "agent_tasks", offsetof(struct profile_engines, agent_tasks), false },
	{ "agent_calls", offsetof(struct profile_engines, agent_calls), false },
	{ "ptrace_calls",
	  offsetof(struct profile_engines, ptrace_calls), false },
	{ "ptrace_processes",
	  offsetof(struct profile_engines, fallbacks), false },
	{ "untraced_tasks", offsetof(struct profile_engines, untraced), false },
	{ "agent_correction_ns",
	  offsetof(struct profile_engines, correction_ns), false },
	{ "agent_dispatch_ns",
	  offsetof(struct profile_engines, dispatch_ns), false },
	{ "agent_probes", offsetof(struct profile_engines, probes), true },
	{ "agent_probe_samples",
	  offsetof(struct profile_engines, probe_samples), true },
	{ "agent_dispatch_run_ns",
	  offsetof(struct profile_engines, dispatch_run_ns), true },
	{ "agent_dispatch_run_se_ns",
	  offsetof(struct profile_engines, dispatch_run_se_ns), true },
	{ "agent_correction_io_ns",
	  offsetof(struct profile_engines, correction_io_ns), true },
	{ "agent_io_timed", offsetof(struct profile_engines, io_timed), true },
	{ "agent_stacks_missed",
	  offsetof(struct profile_engines, stacks_missed), true },
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

static uint64_t *field(struct profile_engines *e, size_t i)
{
	return (uint64_t *)((char *)e + fields[i].offset);
}

static json_t *fallbacks_array(const struct profile_engines *e)
{
	json_t *a = json_array(), *one;
	uint64_t i;
	int err = !a;

	for (i = 0; !err && i < e->fallbacks && i < PROFILE_FALLBACKS_MAX;
	     i++) {
		one = json_pack("{s:i, s:s}", "pid", e->fallback[i].pid, "why",
				e->fallback[i].why);
		err |= !one || json_array_append_new(a, one);
	}
	if (err) {
		json_decref(a);
		return NULL;
	}
	return a;
}

json_t *engines_to_json(const struct profile *p)
{
	struct profile_engines e = p->engines;
	json_t *o = json_object();
	int err = !o;
	size_t i;

	for (i = 0; !err && i < NFIELDS; i++)
		err |= json_object_set_new(o, fields[i].key,
				json_integer((json_int_t)(*field(&e, i) >
					INT64_MAX ? INT64_MAX : *field(&e, i))));
	if (!err && e.files)
		err |= json_object_set_new(o, "agent_unattributed_calls",
				json_integer(e.unattributed > INT64_MAX ?
					     INT64_MAX :
					     (json_int_t)e.unattributed));
	if (!err)
		err |= json_object_set_new(o, "fallbacks", fallbacks_array(&e));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int load_fallbacks(struct jload *j, struct profile_engines *e,
			  json_t *o)
{
	json_t *a = jload_member(j, o, "fallbacks", JSON_ARRAY), *one;
	uint64_t pid;
	size_t i;

	if (!a)
		return -1;
	json_array_foreach(a, i, one) {
		if (i >= PROFILE_FALLBACKS_MAX)
			break;
		jload_push_index(j, i);
		if (!json_is_object(one))
			return jfail(j, "expected an object");
		if (jload_u64(j, one, "pid", &pid) < 0 ||
		    jload_string(j, one, "why", e->fallback[i].why,
				 sizeof(e->fallback[i].why)) < 0)
			return -1;
		if (pid > INT32_MAX)
			return jfail(j, "pid out of range");
		e->fallback[i].pid = (int)pid;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

int load_engines(struct jload *j, struct profile *p, json_t *doc)
{
	struct profile_engines e;
	json_t *o;
	size_t i;

	if (!json_object_get(doc, "engines"))
		return 0;
	o = jload_member(j, doc, "engines", JSON_OBJECT);
	if (!o)
		return -1;
	memset(&e, 0, sizeof(e));
	e.known = true;
	for (i = 0; i < NFIELDS; i++)
		if ((!fields[i].later || json_object_get(o, fields[i].key)) &&
		    jload_u64(j, o, fields[i].key, field(&e, i)) < 0)
			return -1;
	if (load_fallbacks(j, &e, o) < 0)
		return -1;
	/* Added later: a run saved before has no files for the agent's. */
	e.files = json_object_get(o, "agent_unattributed_calls") != NULL;
	if (e.files && jload_u64(j, o, "agent_unattributed_calls",
				 &e.unattributed) < 0)
		return -1;
	jload_pop(j);
	p->engines = e;
	return 0;
}
