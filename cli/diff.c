// SPDX-License-Identifier: MIT
/*
 * `iotrace diff [-S KEY] [--format=table|json] [-e trace=SET] [-o FILE]
 * [--raw-time] [--fail-if EXPR]... BASE NEW` (or --help): compare two
 * saved runs, each an iotrace JSON profile or an strace -c table, on the
 * rows of SET only with -e.  Exit 0 whatever
 * the difference, 1 when a --fail-if term trips, 2 for bad input or a
 * bad expression.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "compare/compare.h"

static const struct option diff_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "format", required_argument, NULL, REPORT_OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "raw-time", no_argument, NULL, REPORT_OPT_RAW_TIME },
	{ "fail-if", required_argument, NULL, REPORT_OPT_FAIL_IF },
	{ NULL, 0, NULL, 0 },
};

static void print_diff_help(void)
{
	printf("usage: iotrace diff [OPTIONS] BASE NEW\n\n"
	       "Compares two saved runs (iotrace JSON profiles or strace -c\n"
	       "tables): a headline, then one row per syscall, largest change\n"
	       "in time first.  Under the headline, the walls: with untraced\n"
	       "runs in both (--baseline N, sweep points) their medians, or\n"
	       "\"within noise\" when their spreads overlap; without them,\n"
	       "one run each, and no spread to tell a change from noise.\n"
	       "Exit 0 whatever the difference, 1 when a\n"
	       "--fail-if term trips, 2 for bad input.\n\n"
	       "Options:\n"
	       "  -o, --output FILE  write the diff to FILE (default: stdout)\n"
	       "      --format=FMT   table (default) or json\n"
	       "  -e trace=SET       only the rows of SET in both runs, as\n"
	       "                     iotrace -e takes it (names, %%classes,\n"
	       "                     !negation); totals are those rows'\n"
	       "  -S KEY             order by the change in time|calls|\n"
	       "                     errors|avg-time, or by name (default:\n"
	       "                     time)\n"
	       "      --raw-time     times without the calibrated stop\n"
	       "                     overhead subtracted\n"
	       "      --fail-if EXPR exit 1 when a term trips (repeatable);\n"
	       "                     comma-separated terms\n"
	       "                     [SYSCALL.]time|calls|errors|wall\n"
	       "                     >|>=|<|<= [+|-]N[%%|ns|us|ms|s]:\n"
	       "                     'time>+10%%', 'write.calls>100';\n"
	       "                     percentages are of BASE\n"
	       "  -h, --help         this help\n");
}

static void parse_diff_options(struct cli_opts *o, struct fail_if *f,
			       int argc, char **argv)
{
	char bad[160];
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:S:e:", diff_options,
				NULL)) != -1) {
		if (c == 'h') {
			print_diff_help();
			exit(0);
		}
		if (c != REPORT_OPT_FAIL_IF) {
			cli_parse_subcommand_option(o, c, argv);
			continue;
		}
		if (fail_if_parse(f, optarg, bad, sizeof(bad)) < 0)
			usage_error("--fail-if: %s", bad);
	}
	if (o->report.format == FMT_CSV ||
	    o->report.format == FMT_CSV_BREAKDOWN ||
	    o->report.format == FMT_PPROF)
		usage_error("diff: --format must be table or json");
	if (argc - optind != 2)
		usage_error("diff: give two saved runs, BASE and NEW");
}

/* Evaluates every term; 1 if any tripped, -1 if one cannot be. */
static int check_fail_if(const struct fail_if *f, const struct diff *d,
			 int *results)
{
	char what[160];
	int tripped = 0;
	size_t i;

	for (i = 0; i < f->n; i++) {
		results[i] = fail_if_eval(f, i, d, what, sizeof(what));
		if (results[i] < 0)
			return error("--fail-if '%s': %s", f->terms[i].text,
				     what);
		if (results[i])
			error("--fail-if '%s' tripped: %s", f->terms[i].text,
			      what);
		tripped |= results[i];
	}
	return tripped;
}

static int render(const struct cli_opts *o, const struct diff *d,
		  const struct fail_if *f, const int *results)
{
	struct outfile out = { 0 };
	FILE *fp = stdout;
	int err;

	if (o->output) {
		if (outfile_open(&out, o->output) < 0)
			return -1;
		fp = out.f;
	}
	if (o->report.format == FMT_JSON)
		err = diff_render_json(fp, d, f->n ? f : NULL, results);
	else
		err = diff_render_table(fp, d);
	if (err < 0 || (!o->output && fflush(stdout))) {
		outfile_abort(&out);
		return error("cannot write the diff");
	}
	return o->output ? outfile_commit(&out) : 0;
}

static int run_diff(const struct cli_opts *o, const struct fail_if *f,
		    struct diff *d)
{
	const char *key = o->report.sort ? o->report.sort->name : "time";
	int results[FAIL_IF_MAX], tripped;

	if (diff_sort(d, key) < 0)
		usage_error("diff: cannot sort by '%s' (%s)", key,
			    diff_sort_keys);
	tripped = check_fail_if(f, d, results);
	if (tripped < 0)
		return EXIT_USAGE;
	if (render(o, d, f, results) < 0)
		return EXIT_USAGE;
	return tripped ? 1 : 0;
}

int cmd_diff(struct cli_opts *o, int argc, char **argv)
{
	struct profile base, new;
	struct fail_if f = { .n = 0 };
	struct diff d;
	int status = EXIT_USAGE;

	parse_diff_options(o, &f, argc, argv);
	if (cli_load(&base, argv[optind]) < 0)
		return EXIT_USAGE;
	if (cli_load(&new, argv[optind + 1]) < 0)
		goto out_base;
	if (cli_keep(o, &base) < 0 || cli_keep(o, &new) < 0) {
		status = 1;
		goto out_new;
	}
	if (diff_build(&d, &base, &new, &o->report) < 0) {
		error("out of memory");
		goto out_new;
	}
	d.base_name = argv[optind];
	d.new_name = argv[optind + 1];
	status = run_diff(o, &f, &d);
	diff_release(&d);
out_new:
	profile_release(&new);
out_base:
	profile_release(&base);
	return status;
}
