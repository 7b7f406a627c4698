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
 * its untraced runs as its baseline (--save-dir).
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
#include "workloads/workload.h"

#define SWEEP_MAX_POINTS 64
#define SWEEP_MAX_REPEAT 100

struct sweep_opts {
	int repeat;			/* untraced runs per point */
	bool show_output;		/* the command's output, on stderr */
	const char *svg;
	const char *save_dir;
	char *key;			/* "bs" */
	char *values[SWEEP_MAX_POINTS];	/* "512", "4K", ... */
	size_t nvalues;
	bool run;			/* a built-in workload, not -- CMD */
	int argc;			/* what follows "run" or "--" */
	char **argv;
};

static const struct option sweep_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "svg", required_argument, NULL, 's' },
	{ "save-dir", required_argument, NULL, 'd' },
	{ "show-output", no_argument, NULL, 'O' },
	{ NULL, 0, NULL, 0 },
};

static void parse_values(struct sweep_opts *so, char *spec)
{
	char *eq = strchr(spec, '='), *v, *save = NULL;

	if (!eq || eq == spec || !eq[1])
		usage_error("sweep: expected KEY=V1,V2,... but got '%s'", spec);
	*eq = '\0';
	so->key = spec;
	for (v = strtok_r(eq + 1, ",", &save); v; v = strtok_r(NULL, ",", &save)) {
		if (so->nvalues == SWEEP_MAX_POINTS)
			usage_error("sweep: more than %d values", SWEEP_MAX_POINTS);
		so->values[so->nvalues++] = v;
	}
	if (!so->nvalues)
		usage_error("sweep: no values for '%s'", spec);
}

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
	       "The command's stdin is /dev/null and its output hidden.\n\n"
	       "Sweep options:\n"
	       "      --repeat N     untraced runs per value (1 to %d,\n"
	       "                     default 3)\n"
	       "      --svg FILE     draw the chart (untraced MB/s, traced\n"
	       "                     calls)\n"
	       "      --save-dir DIR keep each value's traced profile, with\n"
	       "                     its untraced runs, as DIR/KEY=VALUE.json\n"
	       "      --show-output  send the command's output to stderr\n"
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

/* Options may come anywhere before "run" or "--". */
static void parse_sweep(struct sweep_opts *so, int argc, char **argv)
{
	int c;

	optind = 1;
	for (;;) {
		while ((c = getopt_long(argc, argv, "+:h", sweep_options,
					NULL)) != -1)
			parse_sweep_option(so, c, argv);
		if (optind >= argc)
			usage_error("sweep: nothing to run (run WORKLOAD or -- CMD)");
		if (!strcmp(argv[optind - 1], "--") || !strcmp(argv[optind], "run"))
			break;
		if (so->key)
			usage_error("sweep: unexpected '%s' (one KEY=V1,V2,... "
				    "then run or --)", argv[optind]);
		parse_values(so, argv[optind++]);
	}
	if (!so->key)
		usage_error("sweep: missing KEY=V1,V2,...");
	so->run = strcmp(argv[optind - 1], "--") != 0;
	so->argc = argc - optind - (so->run ? 1 : 0);
	so->argv = argv + optind + (so->run ? 1 : 0);
	if (!so->argc)
		usage_error("sweep: nothing to run after '%s'",
			    so->run ? "run" : "--");
}

/* "dd" "bs={}" -> "dd" "bs=4K": every {} of every word, for -- CMD. */
static char *substitute(const char *word, const char *value)
{
	size_t vlen = strlen(value), n = 0;
	const char *p;
	char *out, *o;

	for (p = word; (p = strstr(p, "{}")); p += 2)
		n++;
	out = malloc(strlen(word) + n * vlen + 1);
	if (!out)
		return NULL;
	for (o = out; *word;) {
		if (word[0] == '{' && word[1] == '}') {
			memcpy(o, value, vlen);
			o += vlen;
			word += 2;
		} else {
			*o++ = *word++;
		}
	}
	*o = '\0';
	return out;
}

static void free_argv(char **argv)
{
	char **a;

	for (a = argv; a && *a; a++)
		free(*a);
	free(argv);
}

/*
 * The command line of one point: the workload's words plus KEY=value, or
 * the command with {} replaced.  NULL-terminated; free_argv() frees.
 */
static char **point_argv(const struct sweep_opts *so, const char *value,
			 int *argc)
{
	char **argv = calloc((size_t)so->argc + 2, sizeof(*argv));
	int i;

	if (!argv)
		return NULL;
	for (i = 0; i < so->argc; i++)
		if (!(argv[i] = so->run ? strdup(so->argv[i]) :
					  substitute(so->argv[i], value)))
			goto out_free;
	*argc = so->argc;
	if (so->run) {
		if (asprintf(&argv[i], "%s=%s", so->key, value) < 0) {
			argv[i] = NULL;
			goto out_free;
		}
		(*argc)++;
	}
	return argv;
out_free:
	free_argv(argv);
	return NULL;
}

static bool has_placeholder(const struct sweep_opts *so)
{
	int i;

	for (i = 0; i < so->argc; i++)
		if (strstr(so->argv[i], "{}"))
			return true;
	return false;
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

/* "iotrace: sweep bs=4K (2/4): traced run" on a terminal only. */
static void progress(const struct sweep_opts *so, size_t i, const char *what)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\riotrace: sweep %s=%s (%zu/%zu): %s\033[K",
		so->key, so->values[i], i + 1, so->nvalues, what);
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
			     so->values[i], strerror(-err));
	if (err == 1) {
		progress_done();
		error("sweep %s=%s: untraced run %d %s: the point failed",
		      so->key, so->values[i], fail.run,
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
	stdio_restore(&sv, err == 0 && exit_status_of(p) &&
			   !so->show_output && !quiet_failure);
	if (err < 0)
		profile_release(p);
	return err;
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
	memset(pt, 0, sizeof(*pt));
	snprintf(pt->value, sizeof(pt->value), "%s", so->values[i]);
	pt->x = value_x(so->values[i]);
	sweep_point_from_profile(pt, traced);
	if (failed) {
		pt->status = status;
		pt->failed = true;
	}
	/* Out of memory, the point has none: the list is left empty. */
	findings_collect(&pt->findings, traced, &o->report, NULL);
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

/* DIR/KEY=VALUE.json, the point's median run, for `iotrace diff`. */
static int save_point(const struct cli_opts *o, const struct sweep_opts *so,
		      const char *value, const struct profile *p)
{
	struct report_opts json = o->report;
	struct outfile out;
	char *path, *c;
	int err;

	if (asprintf(&path, "%s/%s=%s.json", so->save_dir, so->key, value) < 0)
		return error("out of memory");
	for (c = path + strlen(so->save_dir) + 1; *c; c++)
		if (*c == '/')
			*c = '_';
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

int cmd_sweep(struct cli_opts *o, int argc, char **argv)
{
	struct sweep_opts so = { .repeat = 3 };
	struct sweep s = { .npoints = 0 };
	struct outfile out = { 0 }, svg = { 0 };
	struct profile traced;
	const struct point_kind *kind;
	int err, status = 1;
	size_t i;

	parse_sweep(&so, argc, argv);
	if (so.save_dir)
		check_save_dir(so.save_dir);
	if (!so.run && !has_placeholder(&so))
		usage_error("sweep: no {} in the command for the values of '%s'",
			    so.key);
	if (so.run)
		validate_points(&so);
	kind = so.run ? &workload_kind : &exec_kind;
	snprintf(s.key, sizeof(s.key), "%s", so.key);
	s.repeat = so.repeat;
	s.points = calloc(so.nvalues, sizeof(*s.points));
	if (!s.points)
		return error("out of memory"), 1;
	if ((o->output && outfile_open(&out, o->output) < 0) ||
	    (so.svg && outfile_open(&svg, so.svg) < 0))
		goto out_free;
	for (i = 0; i < so.nvalues; i++, s.npoints++) {
		/* Ctrl-C: stop here, and print the points already measured. */
		if (tracer_pending_signal())
			break;
		if (run_point(o, &so, kind, i, &s.points[i], &traced) < 0)
			break;
		err = so.save_dir ?
		      save_point(o, &so, so.values[i], &traced) : 0;
		profile_release(&traced);
		if (err < 0)
			break;
	}
	progress_done();
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
