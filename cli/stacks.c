// SPDX-License-Identifier: MIT
/*
 * -k / --stacks, the call sites of the calls: its options, the table of
 * stacks the engine unwinds into for one traced run, and --folded's
 * file.  The report options (--top-sites, --folded, --folded-weight)
 * go wherever -o and --format go, so `report FILE.json` prints a saved
 * run's call sites again and writes its folded stacks.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

unsigned parse_count(const char *name, const char *arg, unsigned lo,
		     unsigned hi)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (end == arg || *end || errno || n < (long)lo || n > (long)hi)
		usage_error("%s: expected a number from %u to %u, got '%s'",
			    name, lo, hi, arg);
	return (unsigned)n;
}

bool stacks_parse_option(struct cli_opts *o, int c)
{
	switch (c) {
	case 'k':
		o->stacks = true;
		break;
	case STACK_OPT_DEPTH:
		o->tracer.stack_depth = parse_count("--stack-depth", optarg, 1,
						    TRACER_STACK_MAX);
		break;
	case STACK_OPT_SAMPLE:
		o->tracer.stack_sample = parse_count("--stack-sample", optarg,
						     1, 1000000);
		break;
	default:
		return false;
	}
	return true;
}

bool stacks_parse_report_option(struct cli_opts *o, int c)
{
	switch (c) {
	case REPORT_OPT_TOP_SITES:
		o->report.top_sites = parse_count("--top-sites", optarg, 1,
						  PROFILE_CALLSITES_MAX);
		break;
	case REPORT_OPT_FOLDED:
		o->folded = optarg;
		break;
	case REPORT_OPT_FOLDED_WEIGHT:
		if (strcmp(optarg, "calls") && strcmp(optarg, "time"))
			usage_error("--folded-weight: expected 'calls' or "
				    "'time', got '%s'", optarg);
		o->report.folded_time = !strcmp(optarg, "time");
		break;
	default:
		return false;
	}
	return true;
}

void stacks_check_format(const struct cli_opts *o)
{
	if (o->report.format == FMT_PPROF && !o->output)
		usage_error("--format=pprof writes a binary profile: give "
			    "-o FILE.pb.gz");
}

void stacks_check_folded(const struct cli_opts *o, bool sweep)
{
	if (o->folded && sweep)
		usage_error("--folded '%s': a sweep writes no folded stacks "
			    "(with -k, --save-dir keeps each point's for "
			    "'report --folded')", o->folded);
	if (o->folded && !o->stacks)
		usage_error("--folded '%s': a traced run has call sites only "
			    "with -k", o->folded);
}

int folded_open(const struct cli_opts *o, struct outfile *out)
{
	memset(out, 0, sizeof(*out));
	return o->folded ? outfile_open(out, o->folded) : 0;
}

int folded_commit(const struct cli_opts *o, const struct profile *p,
		  struct outfile *out)
{
	if (!out->f)
		return 0;
	if (folded_render(out->f, p, &o->report) < 0) {
		outfile_abort(out);
		return error("cannot write '%s'", o->folded);
	}
	return outfile_commit(out);
}
