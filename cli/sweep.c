// SPDX-License-Identifier: MIT
/*
 * `iotrace sweep KEY=V1,V2,... (run WORKLOAD ARGS | -- CMD ARGS)`: the
 * block-size experiment in one command.  Each value (KEY=value added to
 * the workload's arguments, or substituted for every {} in the command)
 * runs --repeat times untraced, for the wall time, its spread and the
 * throughput (median run), then once traced, for the calls and their
 * times: tracing slows small calls far more than large ones, so traced
 * walls would exaggerate every difference.  The command's output is
 * hidden (--show-output sends it to stderr), so stdout holds the table
 * alone.  Prints one row per value (stdout, or -o FILE), optionally
 * draws the chart (--svg) and keeps every point's traced profile, with
 * its untraced runs as its baseline (--save-dir).  An empty value leaves
 * the key out (the workload's default, or the command without its
 * NAME={} words).  --from DIR draws the table and chart again from the
 * points a --save-dir kept, running nothing.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cli/cli.h"
#include "cli/sweep-int.h"
#include "workloads/workload.h"

static const struct option sweep_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "svg", required_argument, NULL, 's' },
	{ "save-dir", required_argument, NULL, 'd' },
	{ "show-output", no_argument, NULL, 'O' },
	{ "from", required_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 },
};

static void print_sweep_help(void)
{
	printf("usage: iotrace [OPTIONS] sweep [SWEEP-OPTIONS] KEY=V1,V2,...\n"
	       "              (run WORKLOAD [ARGS...] | -- CMD [ARGS...])\n\n"
	       "For each value, runs the command untraced --repeat times\n"
	       "(its median wall, spread and MB/s), then once traced (its\n"
	       "calls and their times): one row per value.  A workload\n"
	       "gets KEY=value added to its keys; in CMD every {} is\n"
	       "replaced by the value (there must be one):\n"
	       "  iotrace sweep bs=512,4K,64K -- dd if=/dev/zero of=out "
	       "bs={} count=100\n"
	       "The command's stdin is /dev/null and its output hidden.\n"
	       "An empty value leaves the key out (iflag=,direct: no iflag,\n"
	       "then iflag=direct); in CMD, words NAME={} are dropped.\n"
	       "A point is best only when its spread over the untraced\n"
	       "runs is clear of the others' (~ marks a tie).\n\n"
	       "Sweep options:\n"
	       "      --repeat N     untraced runs per value (1 to %d,\n"
	       "                     default 3)\n"
	       "      --svg FILE     draw the chart (untraced MB/s, traced\n"
	       "                     calls)\n"
	       "      --save-dir DIR keep each value's traced profile, with\n"
	       "                     its untraced runs, as DIR/KEY=VALUE.json\n"
	       "      --show-output  send the command's output to stderr\n"
	       "      --from DIR     run nothing: the table (and --svg)\n"
	       "                     from the points --save-dir DIR kept\n"
	       "  -h, --help         this help\n"
	       "iotrace's own options go before the word sweep: -o FILE\n"
	       "(the table; default stdout), -e, --engine ... (iotrace "
	       "--help).\n", SWEEP_MAX_REPEAT);
}

static void parse_sweep_option(struct sweep_opts *so, int c, char **argv)
{
	char *end;
	long n;

	switch (c) {
	case 'r':
		n = strtol(optarg, &end, 10);
		if (end == optarg || *end || n < 1 || n > SWEEP_MAX_REPEAT)
			usage_error("--repeat: expected 1 to %d, got '%s'",
				    SWEEP_MAX_REPEAT, optarg);
		so->repeat = (int)n;
		so->repeat_set = true;
		break;
	case 'f':
		so->from = optarg;
		break;
	case 's':
		so->svg = optarg;
		break;
	case 'd':
		so->save_dir = optarg;
		break;
	case 'O':
		so->show_output = true;
		break;
	case 'h':
		print_sweep_help();
		exit(0);
	case ':':
		usage_error("option '%s' needs a value", argv[optind - 1]);
	default:
		usage_error("sweep: unknown option '%s'", argv[optind - 1]);
	}
}

/* --from runs nothing: what only runs take is refused, not ignored. */
static void check_from(const struct sweep_opts *so, int argc)
{
	if (optind < argc)
		usage_error("sweep: --from draws saved points: nothing to run");
	if (so->repeat_set || so->save_dir || so->show_output)
		usage_error("sweep: --from runs nothing: no %s",
			    so->repeat_set ? "--repeat" : so->save_dir ?
			    "--save-dir" : "--show-output");
}

/* Options may come anywhere before "run" or "--". */
static void parse_sweep(struct sweep_opts *so, int argc, char **argv)
{
	int c;

	optind = 1;
	for (;;) {
		while ((c = getopt_long(argc, argv, "+:h", sweep_options,
					NULL)) != -1)
			parse_sweep_option(so, c, argv);
		if (optind >= argc || !strcmp(argv[optind - 1], "--") ||
		    !strcmp(argv[optind], "run"))
			break;
		if (so->key)
			usage_error("sweep: unexpected '%s' (one KEY=V1,V2,... "
				    "then run or --)", argv[optind]);
		parse_values(so, argv[optind++]);
	}
	if (!so->key)
		usage_error("sweep: missing KEY=V1,V2,...");
	if (so->from) {
		check_from(so, argc);
		return;
	}
	if (optind >= argc)
		usage_error("sweep: nothing to run (run WORKLOAD or -- CMD)");
	so->run = strcmp(argv[optind - 1], "--") != 0;
	so->argc = argc - optind - (so->run ? 1 : 0);
	so->argv = argv + optind + (so->run ? 1 : 0);
	if (!so->argc)
		usage_error("sweep: nothing to run after '%s'",
			    so->run ? "run" : "--");
}

/* How one point's command becomes a target, per kind of sweep. */
struct point_kind {
	int (*prepare)(int argc, char **argv, struct tracer_target *target);
	void (*release)(struct tracer_target *target);
};

static const struct point_kind exec_kind = { exec_child, exec_child_release };
static const struct point_kind workload_kind = {
	workload_child, workload_child_release
};

/* Every point's workload arguments are checked before the first run. */
static void validate_points(const struct sweep_opts *so)
{
	char **argv;
	size_t i;
	int argc;

	for (i = 0; i < so->nvalues; i++) {
		argv = point_argv(so, so->values[i], &argc);
		if (!argv) {
			error("out of memory");
			exit(1);
		}
		workload_validate(argc, argv);
		free_argv(argv);
	}
}

/* The value as a number for the chart's axis (dd's suffixes), or NAN. */
static double value_x(const char *value)
{
	uint64_t n;

	return wl_parse_size(value, &n) == 0 ? (double)n : NAN;
}

/* "bs=4K", "iflag=(none)": the value as the table shows it. */
static const char *shown(const char *value)
{
	return *value ? value : "(none)";
}

/*
 * "iotrace: sweep bs=4K (2/4): traced run" on a terminal only, redrawn
 * in place while the point runs.
 */
static void progress(const struct sweep_opts *so, size_t i, const char *what)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\riotrace: sweep %s=%s (%zu/%zu): %s\033[K",
		so->key, shown(so->values[i]), i + 1, so->nvalues, what);
}

/*
 * The point's line once it is measured, kept on the terminal, so a long
 * sweep shows each result as it comes: "iotrace: sweep bs=4K (2/4):
 * 0.123 s, 421.3 MB/s (median of 3 untraced runs, 0.118-0.131 s)".
 */
static void progress_point(const struct sweep_opts *so, size_t i,
			   const struct sweep_point *pt)
{
	double mbps = sweep_point_mbps(pt);

	if (!isatty(STDERR_FILENO))
		return;
	progress(so, i, "");
	if (pt->failed) {
		fprintf(stderr, "failed (exit %d)\n", pt->status);
		return;
	}
	fprintf(stderr, "%.3f s", (double)pt->wall_ns / 1e9);
	if (pt->bytes && mbps >= 0)
		fprintf(stderr, ", %.1f MB/s", mbps);
	fprintf(stderr, " (median of %d untraced run%s, %.3f-%.3f s)\n",
		pt->runs, pt->runs == 1 ? "" : "s",
		(double)pt->wall_min_ns / 1e9, (double)pt->wall_max_ns / 1e9);
}

static void progress_done(void)
{
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
}

/* "exited 1" as the table's exit column has it: 128+N for a signal. */
static int exit_code(int status)
{
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
				     WEXITSTATUS(status);
}

/*
 * The untraced runs of a point into b, stopping at the first failure
 * (said once, with the end of its stderr unless it was shown).  0, 1 for
 * a failed run (its exit code in *status), or -1 with the error printed.
 */
static int untraced_runs(const struct sweep_opts *so, size_t i,
			 const struct tracer_target *target,
			 struct profile_baseline *b, int *status)
{
	struct baseline_failure fail;
	char how[64];
	int err;

	progress(so, i, "untraced runs");
	err = baseline_measure(target, so->repeat, so->show_output, b, &fail);
	if (err == -EINTR || (err < 0 && tracer_pending_signal()))
		return -1;
	if (err < 0)
		return error("sweep %s=%s: cannot run untraced: %s", so->key,
			     shown(so->values[i]), strerror(-err));
	if (err == 1) {
		progress_done();
		error("sweep %s=%s: untraced run %d %s: the point failed",
		      so->key, shown(so->values[i]), fail.run,
		      wait_status_text(how, sizeof(how), fail.status));
		*status = exit_code(fail.status);
		return 1;
	}
	return 0;
}

/*
 * The traced run of a point into p, its output hidden like the untraced
 * runs' (shown once if it fails and the untraced runs did not).  0, or
 * -1 with the error printed and p released.
 */
static int traced_run(struct cli_opts *o, const struct sweep_opts *so,
		      const struct tracer_target *target, int argc, char **argv,
		      bool quiet_failure, struct profile *p)
{
	struct stdio_saved sv;
	int err;

	err = stdio_hide(&sv, so->show_output);
	if (err < 0)
		return error("sweep: cannot hide the command's output: %s",
			     strerror(-err));
	err = trace_collect(o, target, argc, argv, p);
	stdio_restore(&sv, err == 0 && session_exit_status(p) &&
			   !so->show_output && !quiet_failure);
	if (err < 0)
		profile_release(p);
	return err;
}

/* A point from its traced profile (its baseline the untraced runs). */
static void fill_point(const struct cli_opts *o, const char *value,
		       const struct profile *p, struct sweep_point *pt)
{
	memset(pt, 0, sizeof(*pt));
	snprintf(pt->value, sizeof(pt->value), "%s", value);
	pt->x = value_x(value);
	sweep_point_from_profile(pt, p);
	/* Out of memory, the point has none: the list is left empty. */
	findings_collect(&pt->findings, p, &o->report, NULL);
}

/*
 * One value: --repeat untraced runs (median wall, spread, throughput),
 * then one traced run for the breakdown, whose profile (carrying the
 * untraced runs as its baseline) is returned in traced.  A point whose
 * untraced run fails is not repeated; it is still traced once, so its
 * calls and findings say what went wrong.  0, or -1 when the sweep must
 * stop (traced is then released).
 */
static int run_point(struct cli_opts *o, const struct sweep_opts *so,
		     const struct point_kind *kind, size_t i,
		     struct sweep_point *pt, struct profile *traced)
{
	struct profile_baseline b;
	struct tracer_target target;
	int argc, failed, status = 0, err = -1;
	char **argv = point_argv(so, so->values[i], &argc);

	if (!argv)
		return error("out of memory");
	if (kind->prepare(argc, argv, &target))
		goto out_free;
	failed = untraced_runs(so, i, &target, &b, &status);
	if (failed < 0)
		goto out_release;
	progress(so, i, "traced run");
	err = traced_run(o, so, &target, argc, argv, failed, traced);
	if (err < 0)
		goto out_release;
	traced->baseline = b;
	fill_point(o, so->values[i], traced, pt);
	if (failed) {
		pt->status = status;
		pt->failed = true;
	}
	progress_point(so, i, pt);
out_release:
	kind->release(&target);
out_free:
	free_argv(argv);
	return err;
}

/* --save-dir: made if missing, checked writable before anything runs. */
static void check_save_dir(const char *dir)
{
	if (mkdir(dir, 0777) < 0 && errno != EEXIST)
		usage_error("--save-dir: cannot create '%s': %s", dir,
			    strerror(errno));
	if (access(dir, W_OK | X_OK) < 0)
		usage_error("--save-dir: cannot write in '%s': %s", dir,
			    strerror(errno));
}

/* DIR/KEY=VALUE.json, a '/' of the value made '_'; NULL: no memory. */
static char *point_path(const char *dir, const char *key, const char *value)
{
	char *path, *c;

	if (asprintf(&path, "%s/%s=%s.json", dir, key, value) < 0)
		return NULL;
	for (c = path + strlen(dir) + 1; *c; c++)
		if (*c == '/')
			*c = '_';
	return path;
}

/* DIR/KEY=VALUE.json, the point's median run, for `iotrace diff`. */
static int save_point(const struct cli_opts *o, const struct sweep_opts *so,
		      const char *value, const struct profile *p)
{
	struct report_opts json = o->report;
	struct outfile out;
	char *path;
	int err;

	if (!(path = point_path(so->save_dir, so->key, value)))
		return error("out of memory");
	json.format = FMT_JSON;
	err = outfile_open(&out, path);
	if (!err && report_render(out.f, p, &json) < 0) {
		outfile_abort(&out);
		err = error("cannot write '%s'", path);
	} else if (!err) {
		err = outfile_commit(&out);
	}
	free(path);
	return err;
}

static int render_outputs(const struct cli_opts *o, const struct sweep_opts *so,
			  const struct sweep *s, struct outfile *out,
			  struct outfile *svg)
{
	int err = 0;

	if (sweep_table_render(out->f ? out->f : stdout, s) < 0)
		err = error("cannot write the sweep table");
	if (out->f && outfile_commit(out) < 0)
		err = -1;
	if (svg->f && (svg_render(svg->f, s) < 0 || outfile_commit(svg) < 0))
		err = error("cannot write '%s'", so->svg);
	(void)o;
	return err;
}

/*
 * --from DIR: each value's point from DIR/KEY=VALUE.json, as --save-dir
 * wrote it; the header's runs are the most any point had.  0, or -1 with
 * the file that would not load said.
 */
static int load_points(const struct cli_opts *o, const struct sweep_opts *so,
		       struct sweep *s)
{
	struct profile p;
	char *path;
	int err;

	s->repeat = 0;
	for (; s->npoints < so->nvalues; s->npoints++) {
		path = point_path(so->from, so->key, so->values[s->npoints]);
		if (!path)
			return error("out of memory");
		err = cli_load(&p, path);
		free(path);
		if (err < 0)
			return -1;
		fill_point(o, so->values[s->npoints], &p,
			   &s->points[s->npoints]);
		profile_release(&p);
		if (s->points[s->npoints].runs > s->repeat)
			s->repeat = s->points[s->npoints].runs;
	}
	return 0;
}

/* Every point run and measured, until one cannot be or a signal came. */
static void run_points(struct cli_opts *o, const struct sweep_opts *so,
		       struct sweep *s)
{
	const struct point_kind *kind = so->run ? &workload_kind : &exec_kind;
	struct profile traced;
	size_t i;
	int err;

	for (i = 0; i < so->nvalues; i++, s->npoints++) {
		/* Ctrl-C: stop here, and print the points already measured. */
		if (tracer_pending_signal())
			break;
		if (run_point(o, so, kind, i, &s->points[i], &traced) < 0)
			break;
		err = so->save_dir ?
		      save_point(o, so, so->values[i], &traced) : 0;
		profile_release(&traced);
		if (err < 0)
			break;
	}
	progress_done();
}

int cmd_sweep(struct cli_opts *o, int argc, char **argv)
{
	struct sweep_opts so = { .repeat = 3 };
	struct sweep s = { .npoints = 0 };
	struct outfile out = { 0 }, svg = { 0 };
	int status = 1;
	size_t i;

	parse_sweep(&so, argc, argv);
	if (so.save_dir)
		check_save_dir(so.save_dir);
	if (!so.run && !so.from)
		check_placeholders(&so);
	if (so.run)
		validate_points(&so);
	snprintf(s.key, sizeof(s.key), "%s", so.key);
	s.repeat = so.repeat;
	s.points = calloc(so.nvalues, sizeof(*s.points));
	if (!s.points)
		return error("out of memory"), 1;
	if ((o->output && outfile_open(&out, o->output) < 0) ||
	    (so.svg && outfile_open(&svg, so.svg) < 0))
		goto out_free;
	if (so.from && load_points(o, &so, &s) < 0) {
		status = EXIT_USAGE;
		goto out_free;
	}
	if (!so.from)
		run_points(o, &so, &s);
	if (s.npoints)
		status = render_outputs(o, &so, &s, &out, &svg) < 0 ? 1 : 0;
	if (s.npoints < so.nvalues) {
		error("sweep stopped after %zu of %zu points", s.npoints,
		      so.nvalues);
		status = tracer_pending_signal() ? 128 + tracer_pending_signal()
						 : 1;
	}
out_free:
	outfile_abort(&out);
	outfile_abort(&svg);
	for (i = 0; i < so.nvalues; i++)
		sweep_point_release(&s.points[i]);
	free(s.points);
	return status;
}
