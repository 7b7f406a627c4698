// SPDX-License-Identifier: MIT
/*
 * `iotrace report FILE [--format=F] [-S KEY] [-U COLUMNS] [-e trace=SET]
 * [-o OUT] [--raw-time]` (or --help):
 * print a saved run again.  FILE is an iotrace JSON profile or a saved
 * strace -c table.  The text report is rendered from profile fields only,
 * so a JSON profile prints the same header line and table the run did;
 * -e keeps the rows of a syscall set, as iotrace -e traces one.
 * Also home of cli_load() and cli_keep(), which diff shares: one line and
 * exit 2 for any file that is not a whole profile.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"
#include "profile/profile.h"

int cli_load(struct profile *p, const char *path)
{
	struct load_error e = { 0, "" };

	if (profile_load(p, path, &e) == 0)
		return 0;
	if (e.line)
		error("%s: line %lu: %s", path, e.line, e.msg);
	else
		error("cannot read '%s': %s", path, e.msg);
	return -1;
}

int cli_keep(const struct cli_opts *o, struct profile *p)
{
	if (!o->tracer.trace)
		return 0;
	if (profile_keep(p, o->tracer.trace, o->trace_expr) < 0)
		return error("out of memory");
	return 0;
}

static const struct option report_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "format", required_argument, NULL, REPORT_OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "raw-time", no_argument, NULL, REPORT_OPT_RAW_TIME },
	{ "summary-columns", required_argument, NULL, 'U' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "top-sites", required_argument, NULL, REPORT_OPT_TOP_SITES },
	{ "folded", required_argument, NULL, REPORT_OPT_FOLDED },
	{ "folded-weight", required_argument, NULL, REPORT_OPT_FOLDED_WEIGHT },
	{ NULL, 0, NULL, 0 },
};

/* -U COLUMNS: strace's, exit 2 before anything runs for a bad word. */
static void parse_columns(struct cli_opts *o, const char *arg)
{
	char bad[40];

	switch (columns_parse(&o->report, arg, bad, sizeof(bad))) {
	case -EINVAL:
		usage_error("-U: unknown column '%s'", bad);
	case -EEXIST:
		usage_error("-U: column '%s' given more than once", bad);
	}
}

/*
 * Options of every report: before the subcommand word, or after report's
 * and diff's (those before it are the defaults).  false: not one of them.
 */
bool cli_parse_report_option(struct cli_opts *o, int c)
{
	switch (c) {
	case 'o':
		o->output = optarg;
		break;
	case 'S':
		o->report.sort = column_find(optarg);
		if (!o->report.sort)
			usage_error("-S: unknown sort key '%s'", optarg);
		break;
	case 'U':
		parse_columns(o, optarg);
		break;
	case REPORT_OPT_FORMAT:
		if (parse_format(optarg) < 0)
			usage_error("--format: unknown format '%s'", optarg);
		o->report.format = (enum report_format)parse_format(optarg);
		break;
	case REPORT_OPT_RAW_TIME:
		o->report.raw_time = true;
		break;
	case 'v':
		o->report.verbose = true;
		break;
	case 'e':
		/* After report's or diff's word: saved runs only. */
		if (!strncmp(optarg, "count=", 6))
			usage_error("-e count= applies to a traced run; report "
				    "and diff take -e trace=SET");
		cli_parse_e(o, optarg);
		break;
	default:
		return stacks_parse_report_option(o, c);
	}
	return true;
}

void cli_parse_subcommand_option(struct cli_opts *o, int c, char **argv)
{
	if (!cli_parse_report_option(o, c))
		usage_error("%s: unknown option or missing value '%s'",
			    argv[0], optind > 0 ? argv[optind - 1] : "?");
}

static int render_to(const struct cli_opts *o, const struct profile *p)
{
	struct outfile out;

	if (!o->output)
		return report_render(stdout, p, &o->report) < 0 ||
		       fflush(stdout) ? error("cannot write the report") : 0;
	if (outfile_open(&out, o->output) < 0)
		return -1;
	if (report_render(out.f, p, &o->report) < 0) {
		outfile_abort(&out);
		return error("cannot write '%s'", o->output);
	}
	return outfile_commit(&out);
}

static void print_report_help(void)
{
	printf("usage: iotrace report [OPTIONS] FILE\n\n"
	       "Prints a saved run (an iotrace JSON profile or an strace -c\n"
	       "table) again, as the run printed it.\n\n"
	       "Options:\n"
	       "  -o, --output FILE  write the report to FILE (default: "
	       "stdout)\n"
	       "      --format=FMT   table (default), json, csv,\n"
	       "                     csv-breakdown, or pprof (with -o)\n"
	       "  -S KEY             sort by time|calls|errors|name|avg-time|\n"
	       "                     min-time|max-time|p50|p90|p99\n"
	       "                     (default: time)\n"
	       "  -U, --summary-columns COLUMNS  the table's columns, in\n"
	       "                     order: strace 6's (time-percent,\n"
	       "                     total-time, avg-time, min-time,\n"
	       "                     max-time, calls, errors, name) and\n"
	       "                     avg-ns, bytes, untraced-percent,\n"
	       "                     p50, p90, p99\n"
	       "  -e trace=SET       only the rows of SET, as iotrace -e\n"
	       "                     takes it (names, %%classes, !negation);\n"
	       "                     totals are those rows'\n"
	       "      --raw-time     times without the calibrated stop\n"
	       "                     overhead subtracted\n"
	       "  -v, --verbose      the engine's bookkeeping under the\n"
	       "                     header's two lines\n"
	       "      --top-sites K  call sites shown per syscall (default 3)\n"
	       "      --folded FILE  write the run's folded stacks (saved\n"
	       "                     with -k) for flame graphs\n"
	       "      --folded-weight=calls|time  what N is (default calls)\n"
	       "  -h, --help         this help\n");
}

int cmd_report(struct cli_opts *o, int argc, char **argv)
{
	struct outfile folded;
	struct profile p;
	int c, status;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ho:S:U:ve:", report_options,
				NULL)) != -1) {
		if (c == 'h') {
			print_report_help();
			return 0;
		}
		cli_parse_subcommand_option(o, c, argv);
	}
	if (argc - optind != 1)
		usage_error("report: give one saved profile (FILE.json or an "
			    "strace -c table)");
	stacks_check_format(o);
	if (folded_open(o, &folded) < 0)
		return 1;
	if (cli_load(&p, argv[optind]) < 0) {
		outfile_abort(&folded);
		return EXIT_USAGE;
	}
	if (cli_keep(o, &p) < 0) {
		outfile_abort(&folded);
		profile_release(&p);
		return 1;
	}
	status = render_to(o, &p) < 0 ? 1 : 0;
	if (folded_commit(o, &p, &folded) < 0)
		status = 1;
	profile_release(&p);
	return status;
}

int parse_format(const char *s)
{
	if (!strcmp(s, "table"))
		return FMT_TABLE;
	if (!strcmp(s, "json"))
		return FMT_JSON;
	if (!strcmp(s, "csv"))
		return FMT_CSV;
	if (!strcmp(s, "csv-breakdown"))
		return FMT_CSV_BREAKDOWN;
	if (!strcmp(s, "pprof"))
		return FMT_PPROF;
	return -1;
}
