// SPDX-License-Identifier: MIT
/*
 * `iotrace -p PID[,PID...]`: attach to running processes (every thread,
 * children from then on), profile them until they exit, Ctrl-C, SIGTERM
 * or --duration, detach, and print the table.  Every pid is checked
 * before any is attached to: one that may not be traced gets one line
 * and exit 1, and nothing is touched.  The processes are never killed:
 * iotrace exits 0 whether it detached or they exited.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cli/cli.h"

/* The most -p may name, all -p together. */
#define ATTACH_MAX_PIDS 4096

static void add_pid(struct cli_opts *o, const char *word, size_t len)
{
	char buf[24], *end;
	long v;

	if (len == 0 || len >= sizeof(buf))
		usage_error("-p: expected a process id, got '%.*s'",
			    (int)len, word);
	memcpy(buf, word, len);
	buf[len] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (*end || errno || v < 1 || v > INT_MAX || buf[0] == '+' ||
	    buf[0] == ' ')
		usage_error("-p: expected a process id, got '%s'", buf);
	if (o->npids >= ATTACH_MAX_PIDS)
		usage_error("-p: more than %d processes", ATTACH_MAX_PIDS);
	if (!(o->npids & (o->npids + 1)) || !o->pids) {
		pid_t *p = realloc(o->pids, (o->npids * 2 + 2) * sizeof(*p));

		if (!p) {
			error("out of memory");
			exit(1);
		}
		o->pids = p;
	}
	o->pids[o->npids++] = (pid_t)v;
}

void attach_parse_pids(struct cli_opts *o, const char *arg)
{
	const char *p = arg, *comma;

	for (;;) {
		comma = strchrnul(p, ',');
		add_pid(o, p, (size_t)(comma - p));
		if (!*comma)
			return;
		p = comma + 1;
	}
}

void attach_parse_duration(struct cli_opts *o, const char *arg)
{
	char *end;
	double s;

	errno = 0;
	s = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(s) || s <= 0 ||
	    s > 1e6)
		usage_error("--duration: expected seconds, more than 0 and "
			    "up to 1000000, got '%s'", arg);
	o->duration_ns = (uint64_t)(s * 1e9);
	if (!o->duration_ns)
		o->duration_ns = 1;
}

/* "-p" and the pids joined by commas: the profile's command line. */
static char *pid_list(const struct cli_opts *o)
{
	size_t i, size = o->npids * 12 + 1, n = 0;
	char *s = malloc(size);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (i = 0; i < o->npids; i++)
		n += (size_t)snprintf(s + n, size - n, "%s%d", i ? "," : "",
				      (int)o->pids[i]);
	return s;
}

/* Attached: the processes' own exit status is not iotrace's. */
static int mark_attached(struct profile *p, void *arg)
{
	(void)arg;
	p->exit.code = 0;
	p->exit.signal = 0;
	p->exit.core = false;
	p->exit.fatal_signal = 0;
	p->exit.attached = true;
	p->cost.cpu_known = false;
	/* Their CPU time at exit counts from before the attach too. */
	p->cost.cpu_tasks = 0;
	p->cost.user_tasks = 0;
	return 0;
}

int cmd_attach(struct cli_opts *o)
{
	struct tracer_target target = { .kind = TARGET_PIDS };
	char *argv[3] = { (char *)"-p", NULL, NULL };
	struct tracer_choice choice;
	int status;

	target.attach.pids = o->pids;
	target.attach.npids = o->npids;
	target.attach.duration_ns = o->duration_ns;
	/* Neither can be had for a process iotrace did not start. */
	o->no_seccomp = true;
	o->tracer.seccomp = false;
	o->tracer.pin = false;
	if (tracer_engine_choose(o->engine_name, &o->tracer, &target,
				 &choice) < 0) {
		error("cannot attach to %s", choice.why);
		return 1;
	}
	argv[1] = pid_list(o);
	if (!argv[1]) {
		error("out of memory");
		return 1;
	}
	status = trace_and_report(o, &target, 2, argv, mark_attached, NULL);
	free(argv[1]);
	return status;
}
