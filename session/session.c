// SPDX-License-Identifier: MIT
/*
 * One traced run, from options to a profile: the engine and its mode for
 * the target (tracer_engine_choose(), a fallback said once), the stop
 * calibration asked of the run and measured again after it, -k's table
 * of stacks, the sink (sink.c), and what the run's result adds to the
 * profile (wall, stops, exit, the fast path, memory).
 */
#include <errno.h>
#include <string.h>
#include "session/session.h"

/* What one run settles on, from the session's options. */
struct run {
	const struct session_opts *so;
	const struct tracer_engine *engine;	/* what traces */
	struct tracer_opts tracer;	/* as the choice and the run set them */
	const char *seccomp_why_not;	/* NULL: seccomp-bpf is used */
};

int session_exit_status(const struct profile *p)
{
	if (p->exit.fatal_signal)
		return 128 + p->exit.fatal_signal;
	if (p->exit.signal)
		return 128 + p->exit.signal;
	return p->exit.code;
}

/*
 * The engine for target and its mode (tracer_engine_choose()):
 * seccomp-bpf unless --no-seccomp or the engine's probe says it cannot
 * be had here; a fallback its row offers taken, one line says it unless
 * --no-follow asked for it.  0, or -1 with the reason said when no
 * engine can trace target.
 */
static int choose_mode(struct run *r, const struct tracer_target *target,
		       const char *what)
{
	static int said;
	const struct session_opts *so = r->so;
	struct tracer_choice c;
	int err;

	r->tracer.seccomp = !so->no_seccomp;
	r->seccomp_why_not = so->no_seccomp ? "--no-seccomp" : NULL;
	r->tracer.in_fork = target->kind == TARGET_FUNCTION;
	err = tracer_engine_choose(so->engine_name, &r->tracer, target, &c);
	if (c.engine)
		r->engine = c.engine;
	if (c.gave_up) {
		if (!r->tracer.seccomp && !r->seccomp_why_not)
			r->seccomp_why_not = c.gave_up_why;
		/* Not the user's choice (--no-follow is): said, once. */
		if (r->tracer.follow && !said++)
			so->error("%s: %s; %s (engine %s)", c.gave_up->what,
				  c.gave_up_why, c.gave_up->then,
				  r->engine->name);
	}
	if (err)
		return so->error("cannot trace '%s' with the %s engine: %s",
				 what, r->engine->name, c.why);
	TRACER_DEBUG("engine %s, %s", r->engine->name, r->tracer.seccomp ?
		     "seccomp-bpf" : r->seccomp_why_not ? r->seccomp_why_not :
		     "no seccomp filter");
	return 0;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * The second calibration, once the command is done: the cost of a stop
 * drifts (frequency, the other core's load), and the two measurements
 * bound it.  The correction already applied stays the first one.  A run
 * of few stops is not worth the few ms: what its stops added is small
 * whatever they cost, and the first measurement bounds it alone.
 */
void session_recalibrate(const struct tracer_engine *e,
			 const struct tracer_opts *opts, struct profile *p,
			 const struct tracer_calibration *before,
			 const struct tracer_result *res)
{
	struct tracer_calibration after = *before;
	struct profile_cost *c = &p->cost;
	struct tracer_opts unpinned = *opts;

	c->cpu_known = res->exited;
	c->many_tasks = res->tasks > 0;
	c->user_ns = res->user_ns;
	c->sys_ns = res->sys_ns;
	/* Past the first fork nothing is pinned: stops cost what unpinned
	   ones do, so that is what the second calibration measures. */
	unpinned.pin = opts->pin && !c->many_tasks;
	if (!p->calibrated || tracer_pending_signal() ||
	    (res->stops >= SESSION_RECALIBRATE_MIN_STOPS &&
	     e->calibrate(&unpinned, &after) < 0))
		return;
	c->known = true;
	c->overhead_lo_ns = min_u64(before->overhead_lo_ns,
				    after.overhead_lo_ns);
	c->overhead_hi_ns = max_u64(before->overhead_hi_ns,
				    after.overhead_hi_ns);
	c->busy_ns = res->busy_ns;
	c->stop_lo_ns = min_u64(before->stop_ns, after.stop_ns);
	c->stop_hi_ns = max_u64(before->stop_ns, after.stop_ns);
}

/* -k: the table the engine unwinds into; -1 with the error said. */
static int stacks_start(struct run *r)
{
	if (!r->so->stacks)
		return 0;
	r->tracer.stacks = tracer_stacks_new();
	if (!r->tracer.stacks)
		return r->so->error("out of memory");
	if (!r->tracer.stack_depth)
		r->tracer.stack_depth = TRACER_STACK_DEPTH;
	return 0;
}

static void stacks_end(struct run *r)
{
	tracer_stacks_free(r->tracer.stacks);
	r->tracer.stacks = NULL;
}

/* What the run's result says of it, past its calls. */
static int finish(struct run *r, int err, const char *what,
		  const struct tracer_calibration *first,
		  const struct tracer_result *res, struct profile *p)
{
	snprintf(p->engine, sizeof(p->engine), "%s",
		 res->engine ? res->engine : "");
	profile_set_trace_expr(p, r->so->trace_expr);
	profile_set_fast(p, &res->fast);
	profile_storage_mem(p, &res->mem_before, &res->mem_after);
	if (err < 0 && !res->exited)
		return r->so->error("cannot trace '%s': %s", what,
				    strerror(-err));
	if (err < 0)
		r->so->error("tracing ended early: %s", strerror(-err));
	p->wall_ns = res->end_ns - res->start_ns;
	p->stops = res->stops;
	profile_set_exit(p, res->status, res->fatal_signal);
	p->exit.detached = res->detached;
	session_recalibrate(r->engine, &r->tracer, p, first, res);
	return 0;
}

int session_trace(const struct session_opts *so,
		  const struct tracer_target *target, int argc, char **argv,
		  struct profile *p)
{
	struct run r = { .so = so, .engine = tracer_engines[0],
			 .tracer = so->tracer };
	struct session_sink sink;
	struct tracer_result res;
	int err;

	profile_init(p);
	if (profile_set_command(p, argc, argv) < 0)
		return so->error("out of memory");
	if (choose_mode(&r, target, argv[0]) < 0)
		return -1;
	tracer_signals_init();
	/* Timed calls get the stop's cost, measured as the run starts. */
	r.tracer.calibrate = !so->count_only;
	if (stacks_start(&r) < 0)
		return -1;
	session_sink_init(&sink, so, r.tracer.stacks, p);
	p->stack_sample = so->stacks && r.tracer.stack_sample > 1 ?
			  r.tracer.stack_sample : 0;
	err = r.engine->run(&r.tracer, target, &sink.sink, &res);
	TRACER_DEBUG("run ended: %llu stops", (unsigned long long)res.stops);
	stacks_end(&r);
	session_sink_release(&sink);
	return finish(&r, err, argv[0], &sink.calib, &res, p);
}
