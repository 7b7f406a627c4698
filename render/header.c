// SPDX-License-Identifier: MIT
/*
 * The header above the table: two lines, the answer at a glance.  The
 * first says how the command ended, its wall as traced and its calls;
 * the second what the run takes untraced (measured by --baseline, else
 * estimated: a range only where the estimate cannot resolve it) and the
 * share of it in syscalls, the calls that wait for others (wait4, poll,
 * futex...) left out of that work and said apart.  Each line has one
 * unit, chosen by its largest time.  The engine's bookkeeping (what
 * tracing added, the estimate's range, the baseline's split, the stop
 * correction, the fast path) follows with -v, and is in the JSON.
 */
#include <signal.h>
#include <string.h>
#include "render/render.h"

/* ns in u, three significant digits: "19.0", "0.780", "412". */
static const char *in(char *buf, size_t size, struct time_unit u, uint64_t ns)
{
	double v = (double)ns / u.scale;

	snprintf(buf, size, v >= 99.95 ? "%.0f" : v >= 9.995 ? "%.1f" :
		 v >= 0.9995 ? "%.2f" : "%.3f", v);
	return buf;
}

/* A share as a percentage: "82%", "4.5%". */
static void put_pct(FILE *f, double share)
{
	fprintf(f, share >= 0.0995 ? "%.0f%%" : "%.1f%%", 100.0 * share);
}

static const char *signame(int sig, char *buf, size_t size)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, size, "SIG%s", abbrev);
	else
		snprintf(buf, size, "signal %d", sig);
	return buf;
}

static const char *command_name(const struct profile *p)
{
	const char *slash;

	if (!p->argc)
		return "command";
	slash = strrchr(p->argv[0], '/');
	return slash && slash[1] ? slash + 1 : p->argv[0];
}

/* "dd exited 0", "dd killed by SIGSEGV (core dumped)" */
static void print_ending(FILE *f, const struct profile *p)
{
	const struct profile_exit *e = &p->exit;
	char sig[32];

	if (e->fatal_signal)
		fprintf(f, "%s killed by iotrace on %s", command_name(p),
			signame(e->fatal_signal, sig, sizeof(sig)));
	else if (e->signal)
		fprintf(f, "%s killed by %s%s", command_name(p),
			signame(e->signal, sig, sizeof(sig)),
			e->core ? " (core dumped)" : "");
	else
		fprintf(f, "%s exited %d", command_name(p), e->code);
}

/* A loaded table with no run around it (strace -c's text): one line. */
static void print_bare(FILE *f, const struct profile *p,
		       const struct report_opts *o,
		       const struct profile_totals *t)
{
	double secs = (double)totals_time(t, o) / 1e9;

	fprintf(f, "%s: %llu syscalls", p->source,
		(unsigned long long)t->calls);
	if (p->trace_expr[0])
		fprintf(f, " of -e trace=%s", p->trace_expr);
	if (!t->timed && t->calls)
		fputs(", counted only (not timed; no wall time recorded)\n",
		      f);
	else if (t->timed < t->calls)
		fprintf(f, " (%llu counted only); the timed ones took %.3f s "
			"(no wall time recorded)\n",
			(unsigned long long)(t->calls - t->timed), secs);
	else
		fprintf(f, " took %.3f s (no wall time recorded)\n", secs);
}

/*
 * "iotrace: dd exited 0 after 19.0 ms traced; 41,085 syscalls"; for -p,
 * how long iotrace was attached and how it ended.
 */
static void print_first(FILE *f, const struct profile *p,
			const struct profile_totals *t)
{
	struct time_unit u = time_unit_for(p->wall_ns);
	char w[32], n[32];

	in(w, sizeof(w), u, p->wall_ns);
	fputs("iotrace: ", f);
	if (p->exit.attached)
		fprintf(f, "attached for %s %s to pid %s, %s", w, u.name,
			p->argc > 1 ? p->argv[1] : "?",
			p->exit.detached ? "then detached (still running)" :
					   "until it exited");
	else {
		print_ending(f, p);
		fprintf(f, " after %s %s traced", w, u.name);
	}
	fprintf(f, "; %s syscall%s", fmt_thousands(n, sizeof(n), t->calls),
		t->calls == 1 ? "" : "s");
	if (p->trace_expr[0])
		fprintf(f, " of -e trace=%s", p->trace_expr);
	if (!t->timed && t->calls)
		fputs(", counted only (not timed)", f);
	else if (t->timed < t->calls)
		fprintf(f, " (%s counted only)",
			fmt_thousands(n, sizeof(n), t->calls - t->timed));
	fputc('\n', f);
}

/* The time the calls that wait took, as o wants it. */
static uint64_t wait_time(const struct profile *p, const struct report_opts *o)
{
	uint64_t ns = 0;
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (profile_row_waits(&p->rows[i]))
			ns += row_time(&p->rows[i], o);
	return ns;
}

/*
 * "; 2.10 s waited by 19 threads (wait4, poll, futex...), apart from
 * work", from 1% of the wall on: the threads' waits add up, side by
 * side, so with many they pass the wall.  Runs saved before the threads
 * were counted say no number.
 */
static void print_waited(FILE *f, const struct profile *p,
			 const struct report_opts *o, struct time_unit u)
{
	uint64_t ns = wait_time(p, o);
	char a[32], n[32];

	if (!ns || ns * 100 < p->wall_ns)
		return;
	fprintf(f, "; %s %s waited", in(a, sizeof(a), u, ns), u.name);
	if (p->wait_tasks)
		fprintf(f, " by %s%s thread%s", p->wait_tasks >=
			PROFILE_WAITERS_MAX ? "at least " : "",
			fmt_thousands(n, sizeof(n), p->wait_tasks),
			p->wait_tasks == 1 ? "" : "s");
	fputs(" (wait4, poll, futex...), apart from work", f);
}

/* Measured by --baseline: its median, the share, its spread. */
static void print_measured(FILE *f, const struct profile *p,
			   const struct report_opts *o)
{
	const struct profile_baseline *b = &p->baseline;
	struct time_unit u = time_unit_for(b->wall_max_ns > b->wall_ns ?
				 b->wall_max_ns : b->wall_ns);
	double share = baseline_share(p, o);
	char a[32], c[32];

	fprintf(f, "iotrace: untraced %s %s (--baseline, median of %u run%s)",
		in(a, sizeof(a), u, b->wall_ns), u.name, b->runs,
		b->runs == 1 ? "" : "s");
	if (share < 0) {
		fputs("; the calls were not timed", f);
	} else if (share <= 1.0) {
		fputs(", ", f);
		put_pct(f, share);
		fputs(" of it in syscalls", f);
	} else {
		fprintf(f, "; the syscalls as traced took %s %s, more than "
			"that: tracing inflated their times, or tasks ran in "
			"parallel", in(a, sizeof(a), u,
			(uint64_t)(share * (double)b->wall_ns)), u.name);
	}
	if (runs_apart((int)b->runs, b->wall_min_ns, b->wall_max_ns))
		fprintf(f, "; the runs took %s to %s %s: not alike, and the "
			"share as uncertain", in(a, sizeof(a), u,
			b->wall_min_ns), in(c, sizeof(c), u, b->wall_max_ns),
			u.name);
	print_waited(f, p, o, u);
	fputc('\n', f);
}

/* Estimated from the stops (untraced.c): a point, or the range. */
static void print_estimated(FILE *f, const struct profile *p,
			    const struct report_opts *o,
			    const struct profile_estimate *e)
{
	struct time_unit u = time_unit_for(e->resolved ? e->wall_ns : e->wall_hi_ns);
	char a[32], c[32];

	if (e->no_ceiling) {
		u = time_unit_for(p->wall_ns);
		fprintf(f, "iotrace: untraced at least %s %s (estimated; %s "
			"%s traced): its processes shared the work, so it has "
			"no ceiling%s", in(a, sizeof(a), u, e->wall_lo_ns),
			u.name, in(c, sizeof(c), u, p->wall_ns), u.name,
			p->exit.attached ? "" : "; --baseline measures it");
	} else if (e->resolved) {
		fprintf(f, "iotrace: untraced ~%s %s (estimated), ",
			in(a, sizeof(a), u, e->wall_ns), u.name);
		put_pct(f, e->wall_ns ? (double)(e->syscall_ns < e->wall_ns ?
			e->syscall_ns : e->wall_ns) / (double)e->wall_ns : 0);
		fprintf(f, " of it in %ssyscalls",
			p->trace_expr[0] ? "the traced " : "");
	} else {
		fprintf(f, "iotrace: untraced %s to %s %s (estimated): "
			"tracing added too much to tell its share in "
			"syscalls%s", in(a, sizeof(a), u, e->wall_lo_ns),
			in(c, sizeof(c), u, e->wall_hi_ns), u.name,
			p->exit.attached ? "" : "; --baseline measures it");
	}
	print_waited(f, p, o, u);
	fputc('\n', f);
}

static void print_second(FILE *f, const struct profile *p,
			 const struct report_opts *o,
			 const struct profile_totals *t)
{
	struct profile_estimate e;

	if (p->baseline.runs) {
		print_measured(f, p, o);
		baseline_render_streams(f, &p->baseline);
		return;
	}
	profile_untraced(p, &e);
	if (e.known && t->timed)
		print_estimated(f, p, o, &e);
}

void header_render(FILE *f, const struct profile *p,
		   const struct report_opts *o)
{
	struct profile_totals t;

	profile_totals(p, &t);
	if (!p->exit.known) {
		print_bare(f, p, o, &t);
		return;
	}
	print_first(f, p, &t);
	print_second(f, p, o, &t);
	if (o && o->verbose)
		header_render_verbose(f, p, o);
}
