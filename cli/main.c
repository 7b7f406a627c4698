// SPDX-License-Identifier: MIT
/*
 * iotrace's entry point: the options every traced run shares, then either
 * `-- COMMAND` or a subcommand word from the table below.  All input is
 * checked here, before anything runs; a bad word gets one line and exit 2.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

static const struct cli_command commands[] = {
	{ "report", cmd_report, "print a saved run (JSON, strace -c) again" },
	{ "diff", cmd_diff, "compare two saved runs: BASE NEW" },
	{ NULL, NULL, NULL },
};

int error(const char *fmt, ...)
{
	va_list ap;

	fputs("iotrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("iotrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see iotrace --help)\n", stderr);
	exit(EXIT_USAGE);
}

static void print_help(void)
{
	const struct cli_command *c;
	const char *const *cls;

	printf("usage: iotrace [OPTIONS] [--] COMMAND [ARGS...]\n"
	       "       iotrace [OPTIONS] SUBCOMMAND [ARGS...]\n\n"
	       "Runs COMMAND under ptrace, counts and times every syscall, and\n"
	       "prints an strace -c compatible table tied to the wall clock.\n\n"
	       "Options:\n"
	       "  -o FILE            write the report to FILE (default: stderr)\n"
	       "      --format=FMT   table (default), json or csv\n"
	       "      --save FILE    also write the whole profile as JSON\n"
	       "  -S KEY             sort by time|calls|errors|name|avg-time|\n"
	       "                     min-time|max-time (default: time)\n"
	       "  -e trace=SET       count only SET: names, classes, !negation\n"
	       "  -f                 follow children (the default)\n"
	       "      --no-follow    trace only the first process\n"
	       "  -c, -C, -w         accepted for strace habit: the summary is\n"
	       "                     always printed, its time always wall-clock\n"
	       "  -h, --help         this help\n"
	       "  -V, --version      print the version\n\n"
	       "Classes for -e trace=:");
	for (cls = syscall_class_names; *cls; cls++)
		printf(" %s", *cls);
	printf("\n\nSubcommands:\n");
	for (c = commands; c->name; c++)
		printf("  %-10s %s\n", c->name, c->summary);
	printf("\nSee iotrace(1) for everything else.\n");
}

int parse_format(const char *s)
{
	if (!strcmp(s, "table"))
		return FMT_TABLE;
	if (!strcmp(s, "json"))
		return FMT_JSON;
	if (!strcmp(s, "csv"))
		return FMT_CSV;
	return -1;
}

static void parse_e(struct cli_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char bad[128];

	/* A bare SET means trace=SET, as in strace. */
	if (eq && strncmp(arg, "trace=", 6))
		usage_error("unsupported -e qualifier '%.*s'", (int)(eq - arg),
			    arg);
	if (eq)
		arg = eq + 1;
	if (syscall_set_parse(&o->trace_set, arg, bad, sizeof(bad)) < 0)
		usage_error("-e trace: unknown syscall or class '%s'", bad);
	o->tracer.trace = &o->trace_set;
}

enum {
	OPT_NO_FOLLOW = 256,
	OPT_FORMAT,
	OPT_SAVE,
	OPT_RAW_TIME,
	OPT_TRUTH,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "output", required_argument, NULL, 'o' },
	{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "save", required_argument, NULL, OPT_SAVE },
	{ "raw-time", no_argument, NULL, OPT_RAW_TIME },
	{ "truth", no_argument, NULL, OPT_TRUTH },
	{ NULL, 0, NULL, 0 },
};

/* The word getopt stopped at, for the one-line message. */
static const char *bad_option(char **argv, int optidx)
{
	return optidx > 0 ? argv[optidx - 1] : "?";
}

static void parse_option(struct cli_opts *o, int c, char **argv)
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
	case 'e':
		parse_e(o, optarg);
		break;
	case 'f': case 'c': case 'C': case 'w':
		break;
	case OPT_NO_FOLLOW:
		o->tracer.follow = false;
		break;
	case OPT_FORMAT:
		if (parse_format(optarg) < 0)
			usage_error("--format: unknown format '%s'", optarg);
		o->report.format = (enum report_format)parse_format(optarg);
		break;
	case OPT_SAVE:
		o->save = optarg;
		break;
	case OPT_RAW_TIME:
		o->report.raw_time = true;
		break;
	case OPT_TRUTH:
		o->truth = true;
		break;
	case 'h':
		print_help();
		exit(0);
	case 'V':
		printf("iotrace %s\n", IOTRACE_VERSION);
		exit(0);
	case ':':
		usage_error("option '%s' needs a value", bad_option(argv, optind));
	default:
		usage_error("unknown option '%s'", bad_option(argv, optind));
	}
}

static const struct cli_command *find_command(const char *word)
{
	const struct cli_command *c;

	for (c = commands; c->name; c++)
		if (!strcmp(c->name, word))
			return c;
	return NULL;
}

int main(int argc, char **argv)
{
	struct cli_opts o = { .tracer.follow = true };
	const struct cli_command *cmd;
	bool dashdash;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ho:S:e:fcCwV", long_options,
				NULL)) != -1)
		parse_option(&o, c, argv);
	if (optind >= argc)
		usage_error("no command to trace");
	dashdash = !strcmp(argv[optind - 1], "--");
	cmd = dashdash ? NULL : find_command(argv[optind]);
	if (cmd)
		return cmd->fn(&o, argc - optind, argv + optind);
	return cmd_trace(&o, argc - optind, argv + optind);
}
