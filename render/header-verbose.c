// SPDX-License-Identifier: MIT
/*
 * The header's -v lines (header.c has the two lines above them): what a
 * reader checks the answer with, in the engine's own terms.  The traced
 * time in syscalls as a share of the traced wall; how long the calls that
 * wait took; the untraced estimate as a range, with what tracing added
 * (its stops, the calls through the fast path); the --baseline split
 * (baseline.c); how the times were corrected for the stops; the fast
 * path's line (fast.c).
 */
#include "render/render.h"

/* What the times are: the engine and the calibration behind them. */
static void print_timing(FILE *f, const struct profile *p,
			 const struct report_opts *o)
{
	struct profile_totals t;

	if (!p->engine[0])
		return;
	profile_totals(p, &t);
	fprintf(f, "iotrace: engine %s; ", p->engine);
	if (!t.timed)
		fputs("counted only: one stop per call, no times\n", f);
	else if (o && o->raw_time)
		fprintf(f, "raw times (stop overhead %.1f us/call not "
			"subtracted)\n", (double)p->overhead_ns / 1e3);
	else if (p->calibrated)
		fprintf(f, "timing: %.1f us/call of stop overhead subtracted "
			"(calibrated; --raw-time to keep it)\n",
			(double)p->overhead_ns / 1e3);
	else
		fprintf(f, "times not corrected for stop overhead\n");
}

static uint64_t minus_u64(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static const char *secs(char *buf, size_t size, uint64_t ns)
{
	double s = (double)ns / 1e9;

	snprintf(buf, size, s >= 10 ? "%.1f s" : s >= 0.01 ? "%.2f s" :
		 "%.4f s", s);
	return buf;
}

/*
 * The untraced picture: what the run would have taken without iotrace,
 * as a range, and what share of it the syscalls were.  When the range is
 * wide the share is not printed: the traced run cannot tell it.
 */
/* "8,255 stops", and the calls through the fast path. */
static void print_added(FILE *f, const struct profile *p)
{
	char n[32];

	fprintf(f, "%s stops", fmt_thousands(n, sizeof(n), p->stops));
	if (p->fast.on && p->fast.calls)
		fprintf(f, ", %s calls through the fast path",
			fmt_thousands(n, sizeof(n), p->fast.calls));
}

static void print_untraced(FILE *f, const struct profile *p)
{
	struct profile_estimate e;
	char a[32], b[32], c[32], d[32];

	profile_untraced(p, &e);
	/* A measured untraced wall (--baseline) says it better. */
	if (!e.known || p->baseline.runs)
		return;
	secs(b, sizeof(b), e.wall_lo_ns);
	secs(c, sizeof(c), e.wall_hi_ns);
	secs(d, sizeof(d), e.added_ns);
	if (e.no_ceiling) {
		fprintf(f, "iotrace: untraced, this run would take at least "
			"%s (the CPU time its tasks surely spent); its "
			"processes shared the work, so "
			"the traced wall bounds nothing above: tracing added "
			"~%s (", b, d);
		print_added(f, p);
		fprintf(f, ")%s\n", p->exit.attached ? "" :
			"; --baseline measures it");
		return;
	}
	if (!e.resolved) {
		/* An attached process cannot be run again untraced. */
		fprintf(f, "iotrace: untraced, this run would take between %s "
			"and %s: tracing added ~%s (", b, c, d);
		print_added(f, p);
		fprintf(f, "), too much to resolve the program's own time%s\n",
			p->exit.attached ? "" : "; --baseline measures it");
		return;
	}
	fprintf(f, "iotrace: untraced, this run would take ~%s (%s to %s): "
		"tracing added ~%s (", secs(a, sizeof(a), e.wall_ns), b, c, d);
	print_added(f, p);
	fprintf(f, "); %ssyscalls %.0f%% of it",
		p->trace_expr[0] ? "traced " : "",
		e.wall_ns ? 100.0 * (double)(e.syscall_ns < e.wall_ns ?
		e.syscall_ns : e.wall_ns) / (double)e.wall_ns : 0.0);
	if (p->cost.cpu_known)
		fprintf(f, ", user CPU %s", secs(a, sizeof(a),
						  p->cost.user_ns));
	fputc('\n', f);
}

/* Waiting calls are kept out of shares; say how much they were. */
static void print_waits(FILE *f, const struct profile *p)
{
	struct profile_estimate e;
	char a[32];

	profile_untraced(p, &e);
	/* Older files printed no such line: their report stays as it was. */
	if (!e.known || !e.wait_ns || e.wait_ns * 100 < p->wall_ns)
		return;		/* under 1% of the wall: not worth a line */
	fprintf(f, "iotrace: %s of that in calls that wait for other "
		"processes or events (wait4, poll, futex...), left out of "
		"shares\n", secs(a, sizeof(a), e.wait_ns));
}

/* Share of wall in syscalls, waits apart; never over 100%. */
static void print_share(FILE *f, const struct profile *p,
			const struct report_opts *o,
			const struct profile_totals *t)
{
	struct profile_estimate e;
	uint64_t busy;

	if (!p->wall_ns)
		return;
	if (!p->cost.known) {
		fprintf(f, " (%.1f%% of wall)", 100.0 *
			(double)totals_time(t, o) / (double)p->wall_ns);
		return;
	}
	profile_untraced(p, &e);
	busy = minus_u64(totals_time(t, o), e.wait_ns);
	if (busy > p->wall_ns)
		fputs(" (processes in parallel: more than the wall)", f);
	else
		fprintf(f, " (%.1f%% of the traced wall)",
			100.0 * (double)busy / (double)p->wall_ns);
}

/*
 * The engine's bookkeeping under the two lines (-v): the traced time in
 * syscalls against the traced wall, the waits, the estimate with what
 * tracing added, the --baseline split, how times were corrected, the
 * fast path.
 */
void header_render_verbose(FILE *f, const struct profile *p,
			   const struct report_opts *o)
{
	struct profile_totals t;

	profile_totals(p, &t);
	if (!t.timed && t.calls) {
		baseline_render_header(f, p, o);
		print_timing(f, p, o);
		fast_render_header(f, p);
		return;
	}
	fprintf(f, "iotrace: traced, %s%s took %.3f s", t.timed < t.calls ?
		"the timed " : "", p->trace_expr[0] ? "traced calls" :
		"syscalls", (double)totals_time(&t, o) / 1e9);
	print_share(f, p, o, &t);
	fputc('\n', f);
	print_waits(f, p);
	print_untraced(f, p);
	baseline_render_header(f, p, o);
	print_timing(f, p, o);
	fast_render_header(f, p);
}
