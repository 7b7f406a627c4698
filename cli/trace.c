// SPDX-License-Identifier: MIT
/*
 * `iotrace [OPTIONS] -- COMMAND`: trace a command, aggregate its syscalls
 * into a profile, print the report.  trace_and_report() is shared with
 * the subcommands that trace something else (built-in workloads).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

struct sink_ctx {
	struct profile *p;
	bool per_process, per_thread;	/* -P, --per-thread */
	struct fd_cache *fds;	/* per-file I/O; NULL: out of memory */
	const struct tracer_stacks *stacks;	/* -k; NULL: none */
	struct profile_stack_cache sites;	/* stack ids to call sites */
	struct tracer_calibration calib;	/* the run's first, if any */
};

/*
 * The file fd of tid points at, at the call's exit stop (its fds still
 * valid): from the cache, else from /proc, cached.
 */
static int file_of(void *ctx, struct profile *p, pid_t tid, int fd)
{
	struct sink_ctx *s = ctx;
	struct fd_desc d;
	int id = fd_cache_lookup(s->fds, tid, fd);

	if (id >= 0)
		return id;
	/* EBADF and the like: nothing to cache. */
	if (fd_describe(tid, fd, &d) < 0)
		return profile_file_unresolved(p);
	id = profile_file_desc(p, &d);
	if (id >= 0)
		fd_cache_store(s->fds, tid, fd, id);
	return id;
}

static void on_syscall(void *ctx, const struct tracer_event *ev)
{
	struct sink_ctx *s = ctx;

	profile_add(s->p, ev);
	/* Every event, so the cache sees closes; NULL: out of memory. */
	if (s->fds) {
		fd_cache_event(s->fds, ev);
		profile_add_files(s->p, ev, file_of, s);
	}
	if (s->stacks)
		profile_add_callsite(s->p, &s->sites,
				     tracer_stacks_get(s->stacks, ev->stack_id),
				     ev);
	if (s->per_process)
		profile_add_process(s->p, ev);
	if (s->per_thread)
		profile_add_thread(s->p, ev);
}

static void on_aggregate(void *ctx, const struct tracer_aggregate *a)
{
	struct sink_ctx *s = ctx;

	profile_add_aggregate(s->p, a);
	if (s->per_process)
		profile_add_process_aggregate(s->p, a);
}

/*
 * What a stop costs, measured at the run's start, before its first call:
 * the profile subtracts it from every timed call.  A failed calibration
 * leaves times uncorrected, and says so.
 */
static void on_calibrated(void *ctx, const struct tracer_calibration *c,
			  int err)
{
	struct sink_ctx *s = ctx;

	if (err < 0) {
		if (!tracer_pending_signal())
			error("calibration failed (%s): times are not "
			      "corrected", strerror(-err));
		return;
	}
	s->calib = *c;
	s->p->overhead_ns = c->overhead_ns;
	s->p->calibrated = true;
	TRACER_DEBUG("stops calibrated: %llu ns added per timed call, "
		     "%llu ns per stop", (unsigned long long)c->overhead_ns,
		     (unsigned long long)c->stop_ns);
}

/* Storage accounting always; names and io per task where asked. */
static void on_task_exit(void *ctx, const struct tracer_task_exit *x)
{
	struct sink_ctx *s = ctx;

	profile_storage_exit(s->p, x);
	profile_cost_exit(s->p, x);
	if (s->per_process)
		profile_process_exit(s->p, x);
	if (s->per_thread)
		profile_thread_exit(s->p, x);
}

int exit_status_of(const struct profile *p)
{
	if (p->exit.fatal_signal)
		return 128 + p->exit.fatal_signal;
	if (p->exit.signal)
		return 128 + p->exit.signal;
	return p->exit.code;
}

/* Opens -o and --save before anything runs: a bad path fails first. */
static int open_outputs(const struct cli_opts *o, struct outfile *out,
			struct outfile *save)
{
	memset(out, 0, sizeof(*out));
	memset(save, 0, sizeof(*save));
	if (o->output && outfile_open(out, o->output) < 0)
		return -1;
	if (o->save && outfile_open(save, o->save) < 0) {
		outfile_abort(out);
		return -1;
	}
	return 0;
}

static int write_outputs(const struct cli_opts *o, const struct profile *p,
			 struct outfile *out, struct outfile *save)
{
	struct report_opts json = o->report;
	int err = 0;

	/* The profile first: a report to a closed pipe must not lose it. */
	if (save->f) {
		json.format = FMT_JSON;
		if (report_render(save->f, p, &json) < 0) {
			outfile_abort(save);
			err = error("cannot write '%s'", o->save);
		} else if (outfile_commit(save) < 0) {
			err = -1;
		}
	}
	if (report_render(out->f ? out->f : stderr, p, &o->report) < 0)
		err = error("cannot render the report");
	if (out->f && outfile_commit(out) < 0)
		err = -1;
	TRACER_DEBUG("report written");
	return err;
}

/*
 * The engine for target and its mode (tracer_engine_choose()):
 * seccomp-bpf unless --no-seccomp or the engine's probe says it cannot
 * be had here; a fallback its row offers taken, one line says it unless
 * --no-follow asked for it.  0, or -1 with the reason printed when no
 * engine can trace target.
 */
static int choose_mode(struct cli_opts *o, const struct tracer_target *target,
		       const char *what)
{
	static int said;
	struct tracer_choice c;
	int err;

	o->tracer.seccomp = !o->no_seccomp;
	o->seccomp_why_not = o->no_seccomp ? "--no-seccomp" : NULL;
	o->tracer.in_fork = target->kind == TARGET_FUNCTION;
	err = tracer_engine_choose(o->engine_name, &o->tracer, target, &c);
	if (c.engine)
		o->engine = c.engine;
	if (c.gave_up) {
		if (!o->tracer.seccomp && !o->seccomp_why_not)
			o->seccomp_why_not = c.gave_up_why;
		/* Not the user's choice (--no-follow is): said, once. */
		if (o->tracer.follow && !said++)
			fprintf(stderr, "iotrace: %s: %s; %s (engine %s)\n",
				c.gave_up->what, c.gave_up_why,
				c.gave_up->then, o->engine->name);
	}
	if (err)
		return error("cannot trace '%s' with the %s engine: %s", what,
			     o->engine->name, c.why);
	TRACER_DEBUG("engine %s, %s", o->engine->name, o->tracer.seccomp ?
		     "seccomp-bpf" : o->seccomp_why_not ? o->seccomp_why_not :
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
 * Calibrates again once the command is done: the cost of a stop drifts
 * (frequency, the other core's load), and the two measurements bound it.
 * The correction already applied stays the first one.  A run of few
 * stops is not worth the few ms: what its stops added is small whatever
 * they cost, and the first measurement bounds it alone.
 */
#define RECALIBRATE_MIN_STOPS 4096

static void recalibrate(const struct cli_opts *o, struct profile *p,
			const struct tracer_calibration *before,
			const struct tracer_result *res)
{
	struct tracer_calibration after = *before;
	struct profile_cost *c = &p->cost;
	struct tracer_opts unpinned = o->tracer;

	c->cpu_known = res->exited;
	c->many_tasks = res->tasks > 0;
	c->user_ns = res->user_ns;
	c->sys_ns = res->sys_ns;
	/* Past the first fork nothing is pinned: stops cost what unpinned
	   ones do, so that is what the second calibration measures. */
	unpinned.pin = o->tracer.pin && !c->many_tasks;
	if (!p->calibrated || tracer_pending_signal() ||
	    (res->stops >= RECALIBRATE_MIN_STOPS &&
	     o->engine->calibrate(&unpinned, &after) < 0))
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

int trace_collect(struct cli_opts *o, const struct tracer_target *target,
		  int argc, char **argv, struct profile *p)
{
	struct sink_ctx sctx;
	struct tracer_sink sink = { on_syscall, &sctx, on_aggregate,
				    on_task_exit, on_calibrated };
	struct tracer_result res;
	int err;

	profile_init(p);
	if (profile_set_command(p, argc, argv) < 0)
		return error("out of memory");
	if (choose_mode(o, target, argv[0]) < 0)
		return -1;
	tracer_signals_init();
	/* Timed calls get the stop's cost, measured as the run starts. */
	o->tracer.calibrate = !o->count_only;
	/* The tracer shows the cache every close, even under -e trace=. */
	memset(&sctx, 0, sizeof(sctx));
	sctx.p = p;
	p->task_comm = tracer_task_comm;
	sctx.fds = fd_cache_new(p->native_arch, true);
	sctx.per_process = o->per_process;
	sctx.per_thread = o->tracer.per_thread;
	if (stacks_start(o) < 0) {
		fd_cache_free(sctx.fds);
		return -1;
	}
	sctx.stacks = o->tracer.stacks;
	p->stack_sample = o->stacks && o->tracer.stack_sample > 1 ?
			  o->tracer.stack_sample : 0;
	err = o->engine->run(&o->tracer, target, &sink, &res);
	TRACER_DEBUG("run ended: %llu stops", (unsigned long long)res.stops);
	stacks_end(o);
	profile_stack_cache_release(&sctx.sites);
	fd_cache_free(sctx.fds);
	snprintf(p->engine, sizeof(p->engine), "%s",
		 res.engine ? res.engine : "");
	profile_set_trace_expr(p, o->trace_expr);
	profile_set_fast(p, &res.fast);
	profile_storage_mem(p, &res.mem_before, &res.mem_after);
	if (err < 0 && !res.exited)
		return error("cannot trace '%s': %s", argv[0], strerror(-err));
	if (err < 0)
		error("tracing ended early: %s", strerror(-err));
	p->wall_ns = res.end_ns - res.start_ns;
	p->stops = res.stops;
	profile_set_exit(p, res.status, res.fatal_signal);
	p->exit.detached = res.detached;
	recalibrate(o, p, &sctx.calib, &res);
	return 0;
}

int trace_and_report(struct cli_opts *o, const struct tracer_target *target,
		     int argc, char **argv,
		     int (*before)(struct profile *p, void *arg), void *arg)
{
	struct profile_baseline baseline = { .runs = 0 };
	struct outfile out, save, folded;
	struct profile p;
	int status = 1;

	if (open_outputs(o, &out, &save) < 0)
		return 1;
	if (folded_open(o, &folded) < 0) {
		outfile_abort(&out);
		outfile_abort(&save);
		return 1;
	}
	/* --baseline: the untraced runs first, before calibration. */
	status = o->baseline ? baseline_for_trace(o, target, argv, &baseline)
			     : 0;
	if (status)
		goto out_abort;
	status = 1;
	if (trace_collect(o, target, argc, argv, &p) < 0 ||
	    (before && before(&p, arg) < 0)) {
		if (tracer_pending_signal())
			status = 128 + tracer_pending_signal();
		goto out_release;
	}
	p.baseline = baseline;
	status = exit_status_of(&p);
	if (write_outputs(o, &p, &out, &save) < 0 && !status)
		status = 1;
	if (folded_commit(o, &p, &folded) < 0 && !status)
		status = 1;
	profile_release(&p);
	return status;

out_release:
	profile_release(&p);
out_abort:
	outfile_abort(&out);
	outfile_abort(&save);
	outfile_abort(&folded);
	return status;
}

int exec_child(int argc, char **argv, struct tracer_target *target)
{
	char path[PATH_MAX];
	int err;

	(void)argc;
	err = tracer_resolve(argv[0], path, sizeof(path));
	if (err < 0) {
		error("%s: %s", argv[0], strerror(-err));
		return err == -ENOENT ? 127 : 126;
	}
	/* execv runs the resolved path with argv as typed, as execvp does. */
	target->kind = TARGET_COMMAND;
	target->command.argv = argv;
	target->command.path = strdup(path);
	if (!target->command.path) {
		error("out of memory");
		return 1;
	}
	return 0;
}

void exec_child_release(struct tracer_target *target)
{
	free((char *)target->command.path);
	target->command.path = NULL;
	target->command.argv = NULL;
}

int cmd_trace(struct cli_opts *o, int argc, char **argv)
{
	struct tracer_target target;
	int status;

	status = exec_child(argc, argv, &target);
	if (status)
		return status;
	status = trace_and_report(o, &target, argc, argv, NULL, NULL);
	exec_child_release(&target);
	return status;
}
