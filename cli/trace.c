// SPDX-License-Identifier: MIT
/*
 * `iotrace [OPTIONS] -- COMMAND`: trace a command, aggregate its syscalls
 * into a profile, print the report.  trace_and_report() is shared with
 * the subcommands that trace something else (built-in workloads): the
 * output files opened first, the run handed to session/ with the
 * options it needs, its profile rendered and the files committed.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

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

/* What the session needs of the command line. */
static void session_opts_of(const struct cli_opts *o, struct session_opts *so)
{
	*so = (struct session_opts){
		.engine_name = o->engine_name, .tracer = o->tracer,
		.trace_expr = o->trace_expr, .count_only = o->count_only,
		.no_seccomp = o->no_seccomp, .per_process = o->per_process,
		.stacks = o->stacks, .baseline = o->baseline, .error = error,
	};
}

int trace_collect(const struct cli_opts *o, const struct tracer_target *target,
		  int argc, char **argv, struct profile *p)
{
	struct session_opts so;

	session_opts_of(o, &so);
	return session_trace(&so, target, argc, argv, p);
}

/*
 * --baseline: the untraced runs first, before calibration.  0, or the
 * status iotrace exits with, the reason said: EXIT_USAGE when a run
 * failed (nothing is traced), 128+N for a signal, 1 otherwise.
 */
static int baseline_first(const struct session_opts *so,
			  const struct tracer_target *target, char **argv,
			  struct profile_baseline *b)
{
	int err;

	if (!so->baseline)
		return 0;
	err = baseline_for_trace(so, target, argv[0], b);
	if (err == -EINTR)
		return 128 + tracer_pending_signal();
	if (err < 0)
		return 1;
	return err ? EXIT_USAGE : 0;
}

int trace_and_report(struct cli_opts *o, const struct tracer_target *target,
		     int argc, char **argv,
		     int (*before)(struct profile *p, void *arg), void *arg)
{
	struct profile_baseline baseline = { .runs = 0 };
	struct outfile out, save, folded;
	struct session_opts so;
	struct profile p;
	int status = 1;

	if (open_outputs(o, &out, &save) < 0)
		return 1;
	if (folded_open(o, &folded) < 0) {
		outfile_abort(&out);
		outfile_abort(&save);
		return 1;
	}
	session_opts_of(o, &so);
	status = baseline_first(&so, target, argv, &baseline);
	if (status)
		goto out_abort;
	status = 1;
	if (session_trace(&so, target, argc, argv, &p) < 0 ||
	    (before && before(&p, arg) < 0)) {
		if (tracer_pending_signal())
			status = 128 + tracer_pending_signal();
		goto out_release;
	}
	p.baseline = baseline;
	status = session_exit_status(&p);
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
