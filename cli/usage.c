// SPDX-License-Identifier: MIT
/*
 * What every subcommand's file shares with main.c: the one error line
 * (error(), usage_error(): exit 2) and -e, which the traced run, report
 * and diff read alike.  A leaf: it calls no other file of cli/, so a
 * subcommand's file and main.c, which names it, do not use each other.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

/* One line on stderr: "iotrace: ", the message, then tail. */
static void say(const char *tail, const char *fmt, va_list ap)
{
	fputs("iotrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs(tail, stderr);
}

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say("\n", fmt, ap);
	va_end(ap);
	return -1;
}

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(" (see iotrace --help)\n", fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

/* -e trace=SET (or a bare SET, as in strace) and -e count=SET. */
void cli_parse_e(struct cli_opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	bool count = eq && !strncmp(arg, "count=", 6);
	struct syscall_set *set = count ? &o->count_set : &o->trace_set;
	char bad[128];

	if (eq && !count && strncmp(arg, "trace=", 6))
		usage_error("unsupported -e qualifier '%.*s'", (int)(eq - arg),
			    arg);
	if (eq)
		arg = eq + 1;
	if (syscall_set_parse(set, arg, bad, sizeof(bad)) < 0)
		usage_error("-e %s: unknown syscall or class '%s'",
			    count ? "count" : "trace", bad);
	if (count) {
		o->tracer.count = set;
	} else {
		o->tracer.trace = set;
		o->trace_expr = arg;	/* the header says what was traced,
					   report and diff what they kept */
	}
}
