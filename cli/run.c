// SPDX-License-Identifier: MIT
/*
 * `iotrace [OPTIONS] run WORKLOAD [KEY=VALUE...]`: a built-in workload as
 * the traced process, with the same table and options as `iotrace --
 * CMD`.  Every key is checked here before anything runs or any file is
 * touched; set-up that is not the workload's own I/O happens before
 * tracing and is undone after.  With --truth the workload first runs
 * untraced, timing its own I/O syscalls into a shared mapping made before
 * the fork (no pipe, no file: nothing for the traced run to show), and
 * the report sets those times beside the traced ones.  --truth implies
 * --baseline: the self-timed run is not one of the baseline's runs, as
 * its clock readings (two per call) make it slower than a clean run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "cli/cli.h"
#include "workloads/workload.h"

static void print_keys(const struct workload *w)
{
	const struct wl_key *k;

	for (k = w->keys; k->name; k++)
		printf("    %-8s %s\n", k->name, k->help);
}

static int run_list(void)
{
	const struct workload *const *w;

	printf("usage: iotrace [OPTIONS] run WORKLOAD [KEY=VALUE...]\n"
	       "       iotrace run WORKLOAD --help\n\n"
	       "Built-in workloads and their keys:\n");
	for (w = workloads; *w; w++) {
		printf("\n  %-10s %s\n", (*w)->name, (*w)->summary);
		print_keys(*w);
	}
	return 0;
}

static int run_help(const struct workload *w)
{
	printf("usage: iotrace [OPTIONS] run %s [KEY=VALUE...]\n\n%s.\n"
	       "Sizes take dd's suffixes: c=1 w=2 b=512, K M G T (1024-based),"
	       "\nKB MB GB TB (1000-based).\n\nKeys:\n", w->name, w->summary);
	print_keys(w);
	printf("\nExample:\n  %s\n", w->usage);
	return 0;
}

static bool wants_help(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

/* The body of the traced child: the workload, its result as a status. */
static int run_child(void *arg)
{
	const struct workload_args *a = arg;

	return a->wl->run(a) < 0 ? 1 : 0;
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * The untraced, self-timed run.  Only the child sets a->truth, so the
 * traced run that follows in the parent takes no clock readings at all.
 */
static int measure_truth(struct workload_args *a, struct selftime *st)
{
	uint64_t t0;
	pid_t pid;
	int status;

	fflush(NULL);
	t0 = mono_now();
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		a->truth = st;
		_exit(run_child(a));
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	st->wall_ns = mono_now() - t0;
	st->status = status;
	return 0;
}

/* Like --baseline: a run that fails untraced is not traced. */
static bool truth_failed(const struct workload_args *a,
			 const struct selftime *st)
{
	char how[64];

	if (WIFEXITED(st->status) && !WEXITSTATUS(st->status))
		return false;
	error("--truth: the self-timed untraced run of '%s' %s: nothing "
	      "traced", a->wl->name,
	      wait_status_text(how, sizeof(how), st->status));
	return true;
}

/* trace_and_report()'s `before`: the truth into the profile. */
static int attach_truth(struct profile *p, void *arg)
{
	const struct selftime *st = arg;
	struct profile_truth_row *row;
	int c;

	p->truth.wall_ns = st->wall_ns;
	p->truth.clock_ns = st->clock_ns;
	for (c = 0; c < ST_NCALLS; c++) {
		if (!st->rows[c].calls || p->truth.nrows == PROFILE_TRUTH_MAX)
			continue;
		row = &p->truth.rows[p->truth.nrows++];
		snprintf(row->name, sizeof(row->name), "%s", st_call_names[c]);
		row->calls = st->rows[c].calls;
		row->total_ns = st->rows[c].total_ns;
		row->median_ns = selftime_median(&st->rows[c]);
	}
	return 0;
}

/* Set-up, the optional untraced run, the traced run, clean-up. */
static int run_workload(struct cli_opts *o, struct workload_args *a,
			int argc, char **argv)
{
	struct tracer_target target = { .kind = TARGET_FUNCTION,
					.child = { run_child, a } };
	struct selftime *st = NULL;
	int err, status = 1;

	err = a->wl->prepare ? a->wl->prepare(a) : 0;
	if (err < 0) {
		error("run %s: cannot prepare: %s", a->wl->name,
		      strerror(-err));
		goto out_cleanup;
	}
	if (o->truth) {
		st = selftime_map();
		if (!st) {
			error("--truth: cannot map shared memory: %s",
			      strerror(errno));
			goto out_cleanup;
		}
		err = measure_truth(a, st);
		if (err < 0) {
			error("--truth: untraced run: %s", strerror(-err));
			goto out_unmap;
		}
		if (truth_failed(a, st)) {
			status = EXIT_USAGE;
			goto out_unmap;
		}
	}
	status = trace_and_report(o, &target, argc, argv,
				  st ? attach_truth : NULL, st);
out_unmap:
	selftime_unmap(st);
out_cleanup:
	if (a->wl->cleanup)
		a->wl->cleanup(a);
	return status;
}

/*
 * argv is WORKLOAD KEY=VALUE...: the workload's arguments, checked.  Bad
 * input is a usage error (exit 2) here, before anything runs.
 */
static struct workload_args *parse_workload(int argc, char **argv)
{
	const struct workload *w = workload_find(argv[0]);
	struct workload_args *a;

	if (!w)
		usage_error("run: unknown workload '%s'", argv[0]);
	a = calloc(1, sizeof(*a));
	if (!a) {
		error("out of memory");
		exit(1);
	}
	a->wl = w;
	if (w->parse(a, argc - 1, argv + 1) < 0)
		usage_error("run %s: %s", w->name, a->err);
	return a;
}

void workload_validate(int argc, char **argv)
{
	free(parse_workload(argc, argv));
}

int workload_child(int argc, char **argv, struct tracer_target *target)
{
	struct workload_args *a = parse_workload(argc, argv);
	int err = a->wl->prepare ? a->wl->prepare(a) : 0;

	if (err < 0) {
		error("run %s: cannot prepare: %s", a->wl->name,
		      strerror(-err));
		free(a);
		return 1;
	}
	target->kind = TARGET_FUNCTION;
	target->child.run = run_child;
	target->child.arg = a;
	return 0;
}

void workload_child_release(struct tracer_target *target)
{
	struct workload_args *a = target->child.arg;

	if (a && a->wl->cleanup)
		a->wl->cleanup(a);
	free(a);
	target->child.arg = NULL;
}

int cmd_run(struct cli_opts *o, int argc, char **argv)
{
	const struct workload *w;
	struct workload_args *a;
	int status;

	if (argc < 2)
		usage_error("run: no workload named");
	if (!strcmp(argv[1], "--list") || wants_help(1, argv + 1))
		return run_list();
	w = workload_find(argv[1]);
	if (w && wants_help(argc - 2, argv + 2))
		return run_help(w);
	a = parse_workload(argc - 1, argv + 1);
	status = run_workload(o, a, argc - 1, argv + 1);
	free(a);
	return status;
}
