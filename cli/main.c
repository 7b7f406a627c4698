// SPDX-License-Identifier: MIT
/*
 * iotrace's entry point: the options every traced run shares, then either
 * `-- COMMAND` or a subcommand word from the table below.  All input is
 * checked here, before anything runs; a bad word gets one line and exit 2.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli/cli.h"

static const struct cli_command commands[] = {
	{ "run", cmd_run, "run a built-in workload traced (run --list)" },
	{ "sweep", cmd_sweep, "per value of KEY=V1,V2,..., run WORKLOAD or -- "
	  "CMD (every {}\n             in CMD replaced by the value) untraced "
	  "(--repeat N, default\n             3) and once traced; --svg FILE, "
	  "--save-dir DIR, --show-output;\n             --from DIR draws "
	  "saved points again" },
	{ "report", cmd_report, "print a saved run (JSON, strace -c) again: "
	  "report FILE" },
	{ "diff", cmd_diff, "compare two saved runs: diff [--fail-if EXPR] "
	  "BASE NEW,\n             exit 1 when a term trips ('time>+10%', "
	  "of BASE)" },
	{ NULL, NULL, NULL },
};

static void print_help(void)
{
	const struct cli_command *c;
	const char *const *cls;

	printf("usage: iotrace [OPTIONS] [--] COMMAND [ARGS...]\n"
	       "       iotrace [OPTIONS] -p PID[,PID...]\n"
	       "       iotrace [OPTIONS] SUBCOMMAND [ARGS...]\n\n"
	       "Runs COMMAND under ptrace, counts and times every syscall,\n"
	       "and prints an strace -c compatible table tied to the wall\n"
	       "clock.\n\n"
	       "Options:\n"
	       "  -o, --output FILE  write the report to FILE (default: "
	       "stderr)\n"
	       "      --format=FMT   table (default), json, csv,\n"
	       "                     csv-breakdown (a row per syscall\n"
	       "                     and file), or pprof (-k's call\n"
	       "                     sites, gzipped protobuf: with -o)\n"
	       "      --save FILE    also write the whole profile as JSON\n"
	       "  -S KEY             sort by time|calls|errors|name|avg-time|\n"
	       "                     min-time|max-time|p50|p90|p99\n"
	       "                     (default: time)\n"
	       "  -U, --summary-columns COLUMNS  the table's columns, in\n"
	       "                     order, as strace 6's -U: time-percent,\n"
	       "                     total-time, avg-time, min-time,\n"
	       "                     max-time, calls, errors, name (and\n"
	       "                     their aliases); iotrace's own: avg-ns\n"
	       "                     (nsecs/call), bytes, untraced-percent\n"
	       "                     (of the untraced wall), p50, p90, p99\n"
	       "  -e trace=SET       trace only SET: names, classes, !negation\n"
	       "  -e count=SET       of those, count SET without timing it\n"
	       "                     (one stop per call instead of two)\n"
	       "      --count-only   count everything, time nothing\n"
	       "      --raw-time     show times without the calibrated stop\n"
	       "                     overhead subtracted\n"
	       "  -v, --verbose      under the header's two lines, the\n"
	       "                     engine's bookkeeping: what tracing\n"
	       "                     added, the estimate's range, the stop\n"
	       "                     correction, the fast path\n"
	       "      --debug        the engine's decisions on stderr as it\n"
	       "                     makes them (also IOTRACE_DEBUG=1)\n"
	       "      --no-seccomp   stop at every syscall (PTRACE_SYSCALL)\n"
	       "                     instead of only where needed (the\n"
	       "                     ptrace engine)\n"
	       "      --no-rewrite   no fast path: every traced call stops\n"
	       "      --rewrite-after=N\n"
	       "                     rewrite a process's hot call sites at\n"
	       "                     its Nth hot call (default 64; 0: at\n"
	       "                     exec)\n"
	       "      --no-pin       do not keep iotrace and a lone tracee on\n"
	       "                     one CPU\n"
	       "      --engine=E     auto (default) or ptrace: stops the\n"
	       "                     command at its calls, as strace -f\n"
	       "                     does\n"
	       "  -p PID[,PID...]    attach to running processes (repeatable)\n"
	       "                     until they exit, Ctrl-C or --duration\n"
	       "      --duration SECS  with -p: detach after SECS seconds\n"
	       "  -f                 follow children (the default)\n"
	       "      --no-follow    trace only the first process\n"
	       "  -c, -C, -w         accepted for strace habit: the summary is\n"
	       "                     always printed, its time always wall-clock\n"
	       "      --histogram    print a latency histogram per syscall\n"
	       "  -P, --per-process  rows per process too: a Processes\n"
	       "                     section (calls, time, bytes, storage)\n"
	       "      --per-thread   rows per thread too (turns the fast\n"
	       "                     path off: its counters are per process)\n"
	       "  -k, --stacks       unwind the user stack of each traced\n"
	       "                     call: a Call sites section (top stacks\n"
	       "                     of the syscalls with most time)\n"
	       "      --stack-depth N  frames kept per stack (default 16,\n"
	       "                     at most 32)\n"
	       "      --stack-sample N  unwind 1 call in N per syscall;\n"
	       "                     counts are scaled; keeps the fast\n"
	       "                     path on (plain -k stops every call)\n"
	       "      --top-sites K  call sites shown per syscall (default 3)\n"
	       "      --folded FILE  write folded stacks (root;...;leaf;\n"
	       "                     syscall N) for flame graphs\n"
	       "      --folded-weight=calls|time  what N is (default calls)\n"
	       "      --no-findings  leave out the findings after the tables\n"
	       "      --baseline[=N] run the command N times untraced first\n"
	       "                     (default 3; stdin /dev/null, output\n"
	       "                     discarded) and show its untraced wall,\n"
	       "                     user, system and waiting time\n"
	       "      --truth        run: first untraced and self-timed, then\n"
	       "                     traced; show both times side by side\n"
	       "                     (implies --baseline)\n"
	       "  -h, --help         this help\n"
	       "  -V, --version      print the version\n\n"
	       "Classes for -e trace=:");
	for (cls = syscall_class_names; *cls; cls++)
		printf(" %s", *cls);
	printf("\n\nSubcommands:\n");
	for (c = commands; c->name; c++)
		printf("  %-10s %s\n", c->name, c->summary);
	printf("\nSUBCOMMAND --help lists a subcommand's own options; "
	       "iotrace(1) says\neverything else.\n");
}

/* Choices that depend on several options, made once they are all read. */
static void settle_options(struct cli_opts *o)
{
	char bad[8];

	stacks_check_format(o);
	if (o->count_only) {
		syscall_set_parse(&o->count_set, "all", bad, sizeof(bad));
		o->tracer.count = &o->count_set;
	}
}

enum {
	OPT_NO_FOLLOW = 256,
	OPT_SAVE,
	OPT_TRUTH,
	OPT_NO_SECCOMP,
	OPT_NO_REWRITE,
	OPT_REWRITE_AFTER,
	OPT_COUNT_ONLY,
	OPT_NO_PIN,
	OPT_NO_FINDINGS,
	OPT_HISTOGRAM,
	OPT_BASELINE,
	OPT_DURATION,
	OPT_ENGINE,
	OPT_PER_THREAD,
	OPT_DEBUG,
};

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "output", required_argument, NULL, 'o' },
	{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
	{ "format", required_argument, NULL, REPORT_OPT_FORMAT },
	{ "save", required_argument, NULL, OPT_SAVE },
	{ "raw-time", no_argument, NULL, REPORT_OPT_RAW_TIME },
	{ "summary-columns", required_argument, NULL, 'U' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "truth", no_argument, NULL, OPT_TRUTH },
	{ "baseline", optional_argument, NULL, OPT_BASELINE },
	{ "no-seccomp", no_argument, NULL, OPT_NO_SECCOMP },
	{ "no-rewrite", no_argument, NULL, OPT_NO_REWRITE },
	{ "rewrite-after", required_argument, NULL, OPT_REWRITE_AFTER },
	{ "count-only", no_argument, NULL, OPT_COUNT_ONLY },
	{ "no-pin", no_argument, NULL, OPT_NO_PIN },
	{ "no-findings", no_argument, NULL, OPT_NO_FINDINGS },
	{ "histogram", no_argument, NULL, OPT_HISTOGRAM },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "stacks", no_argument, NULL, 'k' },
	{ "stack-depth", required_argument, NULL, STACK_OPT_DEPTH },
	{ "stack-sample", required_argument, NULL, STACK_OPT_SAMPLE },
	{ "top-sites", required_argument, NULL, REPORT_OPT_TOP_SITES },
	{ "folded", required_argument, NULL, REPORT_OPT_FOLDED },
	{ "folded-weight", required_argument, NULL, REPORT_OPT_FOLDED_WEIGHT },
	{ "engine", required_argument, NULL, OPT_ENGINE },
	{ "per-process", no_argument, NULL, 'P' },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "debug", no_argument, NULL, OPT_DEBUG },
	{ NULL, 0, NULL, 0 },
};

/* The word getopt stopped at, for the one-line message. */
static const char *bad_option(char **argv, int optidx)
{
	return optidx > 0 ? argv[optidx - 1] : "?";
}

/* --baseline (3 runs) or --baseline=N, N from 1 to the most kept. */
static int parse_baseline(const char *arg)
{
	char *end;
	long n;

	if (!arg)
		return BASELINE_DEFAULT_RUNS;
	errno = 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end || errno || n < 1 || n > PROFILE_BASELINE_MAX)
		usage_error("--baseline: expected a number of untraced runs "
			    "from 1 to %d, got '%s'", PROFILE_BASELINE_MAX,
			    arg);
	return (int)n;
}

/*
 * --engine=NAME|auto: a name of tracer_engines[], or auto (the first that
 * can trace the target, tracer_engine_choose()).
 */
static void parse_engine(struct cli_opts *o, const char *arg)
{
	const struct tracer_engine *const *e;
	char names[128] = "";
	size_t n = 0;

	if (!strcmp(arg, "auto") || tracer_engine_find(arg)) {
		o->engine_name = arg;
		return;
	}
	for (e = tracer_engines; *e && n < sizeof(names); e++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s or ",
				      (*e)->name);
	usage_error("--engine: expected %sauto, got '%s'", names, arg);
}

static void parse_option(struct cli_opts *o, int c, char **argv)
{
	switch (c) {
	case 'e':
		cli_parse_e(o, optarg);
		break;
	case 'f': case 'c': case 'C': case 'w':
		break;
	case OPT_NO_FOLLOW:
		o->tracer.follow = false;
		break;
	case OPT_SAVE:
		o->save = optarg;
		break;
	case OPT_TRUTH:
		o->truth = true;
		break;
	case OPT_BASELINE:
		o->baseline = parse_baseline(optarg);
		break;
	case OPT_NO_REWRITE:
		o->tracer.rewrite = false;
		break;
	case OPT_REWRITE_AFTER:
		o->tracer.rewrite_after = parse_count("--rewrite-after", optarg,
						      0, 1u << 30);
		break;
	case OPT_NO_SECCOMP:
		o->no_seccomp = true;
		break;
	case OPT_COUNT_ONLY:
		o->count_only = true;
		break;
	case OPT_NO_PIN:
		o->tracer.pin = false;
		break;
	case OPT_NO_FINDINGS:
		o->report.findings = false;
		break;
	case OPT_HISTOGRAM:
		o->report.histogram = true;
		break;
	case 'p':
		attach_parse_pids(o, optarg);
		break;
	case OPT_DURATION:
		attach_parse_duration(o, optarg);
		break;
	case OPT_ENGINE:
		parse_engine(o, optarg);
		break;
	case 'P':
		o->per_process = true;
		break;
	case OPT_DEBUG:
		tracer_debug_init(true);
		break;
	case OPT_PER_THREAD:
		o->tracer.per_thread = true;
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
		/* -o, -S, --format, --raw-time: shared with report and diff. */
		if (!cli_parse_report_option(o, c) &&
		    !stacks_parse_option(o, c))
			usage_error("unknown option '%s'",
				    bad_option(argv, optind));
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

/*
 * --truth needs a built-in workload (only they time their own calls);
 * --baseline needs something to run traced once (a sweep measures every
 * point untraced already); --folded a traced run with -k.  Elsewhere they
 * would be ignored: refused.
 */
static void check_applicable(struct cli_opts *o,
			     const struct cli_command *cmd, const char *word)
{
	bool run = cmd && cmd->fn == cmd_run;

	if (o->truth && !cmd)
		usage_error("--truth: '%s' is not a built-in workload; only "
			    "those time their own calls (iotrace --truth run "
			    "WORKLOAD)", word);
	if (o->truth && !run)
		usage_error("--truth applies to 'run WORKLOAD', not to '%s'",
			    word);
	if (o->baseline && cmd && !run)
		usage_error("--baseline applies to '-- COMMAND' and 'run "
			    "WORKLOAD', not to '%s'%s", word,
			    cmd->fn == cmd_sweep ? " (a sweep measures untraced"
			    " runs already: --repeat N)" : "");
	if (o->report.ncolumns && cmd && (cmd->fn == cmd_diff ||
					   cmd->fn == cmd_sweep))
		usage_error("-U applies to the syscall table ('-- COMMAND', "
			    "'run', 'report'), not to '%s'", word);
	if (o->tracer.count && !o->count_only && cmd &&
	    (cmd->fn == cmd_report || cmd->fn == cmd_diff))
		usage_error("-e count= applies to a traced run; '%s' takes -e "
			    "trace=SET, the rows it keeps", word);
	if (o->truth && !o->baseline)
		o->baseline = BASELINE_DEFAULT_RUNS;
	if (!cmd || run || cmd->fn == cmd_sweep)
		stacks_check_folded(o, cmd && cmd->fn == cmd_sweep);
}

/*
 * Set-user-ID or set-group-ID, iotrace would let its user trace (read
 * the memory and calls of) what that user may not: refused, exit 1.
 */
static void refuse_setid(void)
{
	if (getuid() == geteuid() && getgid() == getegid())
		return;
	error("refusing to run set-user-ID or set-group-ID (uid %u, euid %u, "
	      "gid %u, egid %u)", (unsigned)getuid(), (unsigned)geteuid(),
	      (unsigned)getgid(), (unsigned)getegid());
	exit(1);
}

/*
 * Descriptors 0-2 that iotrace was started without are opened on
 * /dev/null, so that none of iotrace's own files (-o, --save) takes one
 * of them and gets the table or a message written into it.  They are
 * close-on-exec: the command, and every untraced run, still starts with
 * them closed, as it would without iotrace.
 */
static void reserve_std_fds(void)
{
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest free descriptor: fd itself. */
		if (open("/dev/null", O_RDWR | O_CLOEXEC) != fd) {
			error("cannot open '/dev/null': %s", strerror(errno));
			exit(1);
		}
	}
}

/* -p: nothing after the options, nothing that runs a command. */
static int run_attach(struct cli_opts *o, int argc, char **argv)
{
	if (!o->npids)
		usage_error("--duration applies to -p PID only");
	if (optind < argc)
		usage_error("-p attaches to running processes: no command "
			    "to run, got '%s'", argv[optind]);
	if (o->baseline || o->truth)
		usage_error("--%s needs a command to run, not -p",
			    o->truth ? "truth" : "baseline");
	stacks_check_folded(o, false);
	settle_options(o);
	return cmd_attach(o);
}

int main(int argc, char **argv)
{
	/* No engine_name: --engine=auto, the default engine unless it
	   cannot trace the target (tracer_engine_choose()) */
	struct cli_opts o = { .tracer.follow = true, .tracer.pin = true,
			      .tracer.rewrite = true,
			      .tracer.rewrite_after = TRACER_REWRITE_AFTER,
			      .report.findings = true };
	const struct cli_command *cmd;
	bool dashdash;
	int c, status;

	refuse_setid();
	reserve_std_fds();
	tracer_debug_init(false);
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:ho:S:U:e:fcCwVp:kvP",
				long_options, NULL)) != -1)
		parse_option(&o, c, argv);
	if (o.npids || o.duration_ns) {
		status = run_attach(&o, argc, argv);
		free(o.pids);
		return status;
	}
	if (optind >= argc)
		usage_error("no command to trace");
	settle_options(&o);
	dashdash = !strcmp(argv[optind - 1], "--");
	cmd = dashdash ? NULL : find_command(argv[optind]);
	check_applicable(&o, cmd, argv[optind]);
	if (cmd)
		return cmd->fn(&o, argc - optind, argv + optind);
	return cmd_trace(&o, argc - optind, argv + optind);
}
