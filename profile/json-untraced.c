// SPDX-License-Identifier: MIT
/*
 * The "untraced" object of the saved profile: the ingredients of the
 * untraced estimate (what a stop costs, the tracer's own work, the CPU
 * time of the traced processes) and, for readers that do not want to redo
 * the arithmetic, the estimate itself with its bounds.  Only the
 * ingredients are read back: the rest is computed again, so a report of a
 * saved run prints what the run printed (but for a run of the retired
 * agent engine, whose ingredients are not all here: no estimate).
 * Absent in older files and in runs that timed nothing (never written as
 * null, so an older file saved again stays as it was).
 */
#include <string.h>
#include "profile/jload.h"

#define CPU_FROM "wait4 rusage of the first process, with the children " \
		 "it waited for"

static int put(json_t *o, const char *key, uint64_t v)
{
	return json_object_set_new(o, key, json_integer((json_int_t)(v >
				   INT64_MAX ? INT64_MAX : v)));
}

static int put_estimate(json_t *o, const struct profile_estimate *e)
{
	int err = 0;

	err |= put(o, "estimate_ns", e->wall_ns);
	err |= put(o, "low_ns", e->wall_lo_ns);
	err |= put(o, "high_ns", e->wall_hi_ns);
	err |= json_object_set_new(o, "resolved", json_boolean(e->resolved));
	err |= json_object_set_new(o, "ceiling", json_boolean(!e->no_ceiling));
	err |= put(o, "tracing_added_ns", e->added_ns);
	err |= put(o, "tracing_added_low_ns", e->added_lo_ns);
	err |= put(o, "tracing_added_high_ns", e->added_hi_ns);
	err |= put(o, "syscall_ns", e->syscall_ns);
	err |= put(o, "syscall_low_ns", e->syscall_lo_ns);
	err |= put(o, "syscall_high_ns", e->syscall_hi_ns);
	err |= put(o, "wait_ns", e->wait_ns);
	err |= put(o, "resolution_ns", e->resolution_ns);
	return err;
}

json_t *untraced_to_json(const struct profile *p)
{
	const struct profile_cost *c = &p->cost;
	struct profile_estimate e;
	json_t *o;
	int err = 0;

	if (!c->known)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	profile_untraced(p, &e);
	err |= json_object_set_new(o, "method", json_string(e.method));
	err |= put(o, "traced_wall_ns", p->wall_ns);
	err |= put_estimate(o, &e);
	err |= put(o, "tracer_busy_ns", c->busy_ns);
	err |= json_object_set_new(o, "many_tasks",
				   json_boolean(c->many_tasks));
	err |= put(o, "stop_cost_low_ns", c->stop_lo_ns);
	err |= put(o, "stop_cost_high_ns", c->stop_hi_ns);
	err |= put(o, "overhead_low_ns", c->overhead_lo_ns);
	err |= put(o, "overhead_high_ns", c->overhead_hi_ns);
	err |= json_object_set_new(o, "cpu_known", json_boolean(c->cpu_known));
	err |= put(o, "user_cpu_ns", c->user_ns);
	err |= put(o, "system_cpu_ns", c->sys_ns);
	if (c->cpu_tasks) {
		err |= put(o, "tasks_cpu_read", c->cpu_tasks);
		err |= put(o, "busiest_task_cpu_ns", c->busiest_ns);
		err |= json_object_set_new(o, "busiest_task_pid",
					   json_integer(c->busiest_tgid));
		err |= put(o, "other_process_cpu_ns", c->other_ns);
	}
	if (c->user_tasks) {
		err |= put(o, "tasks_user_read", c->user_tasks);
		err |= put(o, "most_task_user_ns", c->user_most_ns);
		err |= put(o, "user_tick_ns", c->tick_ns);
	}
	err |= json_object_set_new(o, "cpu_from", json_string(CPU_FROM));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int load_untraced(struct jload *j, struct profile *p, json_t *doc)
{
	struct profile_cost *c = &p->cost;
	json_t *o = json_object_get(doc, "untraced");

	memset(c, 0, sizeof(*c));
	if (!o || json_is_null(o))
		return 0;
	/*
	 * A run of the agent engine, retired: what the calls its agent
	 * handled cost the wall was in its "engines" object, which is
	 * ignored, so the estimate cannot be made again from these alone.
	 */
	if (json_object_get(doc, "engines"))
		return 0;
	o = jload_member(j, doc, "untraced", JSON_OBJECT);
	if (!o)
		return -1;
	if (jload_u64(j, o, "tracer_busy_ns", &c->busy_ns) < 0 ||
	    jload_bool(j, o, "many_tasks", &c->many_tasks) < 0 ||
	    jload_u64(j, o, "stop_cost_low_ns", &c->stop_lo_ns) < 0 ||
	    jload_u64(j, o, "stop_cost_high_ns", &c->stop_hi_ns) < 0 ||
	    jload_u64(j, o, "overhead_low_ns", &c->overhead_lo_ns) < 0 ||
	    jload_u64(j, o, "overhead_high_ns", &c->overhead_hi_ns) < 0 ||
	    jload_bool(j, o, "cpu_known", &c->cpu_known) < 0 ||
	    jload_u64(j, o, "user_cpu_ns", &c->user_ns) < 0 ||
	    jload_u64(j, o, "system_cpu_ns", &c->sys_ns) < 0)
		return -1;
	/* Added later within "iotrace/1": absent, not read. */
	if (json_object_get(o, "tasks_cpu_read")) {
		uint64_t n, tgid;

		if (jload_u64(j, o, "tasks_cpu_read", &n) < 0 ||
		    jload_u64(j, o, "busiest_task_cpu_ns", &c->busiest_ns) < 0 ||
		    jload_u64(j, o, "busiest_task_pid", &tgid) < 0 ||
		    jload_u64(j, o, "other_process_cpu_ns", &c->other_ns) < 0)
			return -1;
		c->cpu_tasks = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
		c->busiest_tgid = tgid > INT32_MAX ? INT32_MAX : (int32_t)tgid;
	}
	if (json_object_get(o, "tasks_user_read")) {
		uint64_t n;

		if (jload_u64(j, o, "tasks_user_read", &n) < 0 ||
		    jload_u64(j, o, "most_task_user_ns", &c->user_most_ns) < 0 ||
		    jload_u64(j, o, "user_tick_ns", &c->tick_ns) < 0)
			return -1;
		c->user_tasks = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	}
	jload_pop(j);
	c->known = true;
	return 0;
}
