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

static void on_syscall(void *ctx, const struct tracer_event *ev)
{
	profile_add(ctx, ev);
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

	if (report_render(out->f ? out->f : stderr, p, &o->report) < 0)
		err = error("cannot render the report");
	if (out->f && outfile_commit(out) < 0)
		err = -1;
	if (save->f) {
		json.format = FMT_JSON;
		if (report_render(save->f, p, &json) < 0) {
			outfile_abort(save);
			return error("cannot write '%s'", o->save);
		}
		if (outfile_commit(save) < 0)
			err = -1;
	}
	return err;
}

/*
 * Measures the stop overhead to subtract, unless nothing is timed.  A
 * failed calibration leaves times uncorrected, and says so.
 */
static void calibrate(const struct cli_opts *o, struct profile *p)
{
	int err;

	snprintf(p->engine, sizeof(p->engine), "%s",
		 o->tracer.seccomp ? "seccomp-bpf" : "ptrace");
	if (o->count_only)
		return;
	err = tracer_calibrate(&o->tracer, &p->overhead_ns);
	if (err < 0)
		error("calibration failed (%s): times are not corrected",
		      strerror(-err));
	else
		p->calibrated = true;
}

int trace_and_report(struct cli_opts *o, const struct tracer_child *child,
		     int argc, char **argv,
		     int (*before)(struct profile *p, void *arg), void *arg)
{
	struct tracer_sink sink = { on_syscall, NULL };
	struct tracer_result res;
	struct outfile out, save;
	struct profile p;
	int err, status;

	if (open_outputs(o, &out, &save) < 0)
		return 1;
	profile_init(&p);
	if (profile_set_command(&p, argc, argv) < 0) {
		status = error("out of memory");
		goto out_release;
	}
	sink.ctx = &p;
	tracer_signals_init();
	calibrate(o, &p);
	err = tracer_run(&o->tracer, child, &sink, &res);
	if (err < 0 && !res.exited) {
		error("cannot trace '%s': %s", argv[0], strerror(-err));
		status = 1;
		goto out_release;
	}
	if (err < 0)
		error("tracing ended early: %s", strerror(-err));
	p.wall_ns = res.end_ns - res.start_ns;
	p.stops = res.stops;
	profile_set_exit(&p, res.status, res.fatal_signal);
	if (before && before(&p, arg) < 0) {
		status = 1;
		goto out_release;
	}
	status = exit_status_of(&p);
	if (write_outputs(o, &p, &out, &save) < 0 && !status)
		status = 1;
	profile_release(&p);
	return status;

out_release:
	profile_release(&p);
	outfile_abort(&out);
	outfile_abort(&save);
	return status < 0 ? 1 : status;
}

int cmd_trace(struct cli_opts *o, int argc, char **argv)
{
	struct tracer_child child = { tracer_exec_child, NULL };
	char path[PATH_MAX];
	char **args;
	int err, status;

	err = tracer_resolve(argv[0], path, sizeof(path));
	if (err < 0) {
		error("%s: %s", argv[0], strerror(-err));
		return err == -ENOENT ? 127 : 126;
	}
	/* execv gets the resolved path; the profile keeps what was typed. */
	args = malloc(((size_t)argc + 1) * sizeof(*args));
	if (!args)
		return error("out of memory"), 1;
	memcpy(args, argv, ((size_t)argc + 1) * sizeof(*args));
	args[0] = path;
	child.arg = args;
	status = trace_and_report(o, &child, argc, argv, NULL, NULL);
	free(args);
	return status;
}
