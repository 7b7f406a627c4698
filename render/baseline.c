// SPDX-License-Identifier: MIT
/*
 * The --baseline lines of the header: what the command took untraced
 * (median wall of N runs and their spread), split as time(1) splits it
 * into user CPU, system CPU and the rest (waiting: I/O, sleeps, other
 * processes), with the share of the wall outside user space (system and
 * waiting: for one task, close to its time in syscalls, and measured
 * without tracing), then the traced table's time in syscalls as a share
 * of that untraced wall, calls that wait for other processes or events
 * (wait4, poll, futex...) left out as in every share.  The share is the
 * number a reader acts on, so it is never shown above 100% as if it were
 * a share: a sum of traced times larger than the untraced wall is said
 * to be one, with the two reasons it happens.  Nothing timed (count-only
 * runs) reads "-".  Runs that differ by 2x or more are said to.
 */
#include <string.h>
#include "render/render.h"

/* One unit for both lines, chosen by the untraced wall. */
static double in(struct time_unit u, uint64_t ns)
{
	return (double)ns / u.scale;
}

double baseline_outside_user(const struct profile_baseline *b)
{
	uint64_t cpu = b->user_ns + b->sys_ns;

	if (!b->runs || !b->wall_ns || cpu > b->wall_ns)
		return -1;
	return (double)(b->wall_ns - b->user_ns) / (double)b->wall_ns;
}

/*
 * Time in syscalls as o wants it, calls that wait for other processes or
 * events left out (as every share is): in *waits, the time left out.
 * false when nothing was timed.
 */
static bool busy_time(const struct profile *p, const struct report_opts *o,
		      uint64_t *busy, uint64_t *waits)
{
	uint64_t timed = 0;
	size_t i;

	*busy = *waits = 0;
	for (i = 0; i < p->nrows; i++) {
		timed += p->rows[i].timed;
		if (profile_row_waits(&p->rows[i]))
			*waits += row_time(&p->rows[i], o);
		else
			*busy += row_time(&p->rows[i], o);
	}
	return timed > 0;
}

double baseline_share(const struct profile *p, const struct report_opts *o)
{
	uint64_t busy, waits;

	if (!p->baseline.runs || !p->baseline.wall_ns ||
	    !busy_time(p, o, &busy, &waits))
		return -1;
	return (double)busy / (double)p->baseline.wall_ns;
}

/* "0.112 s wall (0.109..0.118) = 0.010 s user + 0.095 s system + ..." */
static void print_split(FILE *f, const struct profile_baseline *b)
{
	struct time_unit u = time_unit_for(b->wall_ns);
	uint64_t cpu = b->user_ns + b->sys_ns;

	fprintf(f, "iotrace: untraced (--baseline, median of %u run%s): "
		"%.3f %s wall (%.3f..%.3f) = %.3f %s user + %.3f %s system",
		b->runs, b->runs == 1 ? "" : "s", in(u, b->wall_ns), u.name,
		in(u, b->wall_min_ns), in(u, b->wall_max_ns),
		in(u, b->user_ns), u.name, in(u, b->sys_ns), u.name);
	if (cpu <= b->wall_ns)
		fprintf(f, " + %.3f %s waiting (%.1f%% outside user space)\n",
			in(u, b->wall_ns - cpu), u.name,
			100.0 * baseline_outside_user(b));
	else
		fputs(" (more CPU than wall: tasks ran in parallel)\n", f);
}

static void print_share(FILE *f, const struct profile *p,
			const struct report_opts *o)
{
	struct time_unit u = time_unit_for(p->baseline.wall_ns);
	double share = baseline_share(p, o);
	uint64_t busy, waits;

	if (share < 0) {
		fputs("iotrace: time in syscalls: - (counted only, not "
		      "timed)\n", f);
		return;
	}
	busy_time(p, o, &busy, &waits);
	fprintf(f, "iotrace: time in syscalls (traced%s) %.3f %s ",
		waits ? ", waits left out" : "", in(u, busy), u.name);
	if (share <= 1.0)
		fprintf(f, "= %.1f%% of the untraced wall\n", 100.0 * share);
	else
		fprintf(f, "is more than the untraced wall (%.0f%% of it): "
			"tracing inflated the per-call times, or tasks ran "
			"in parallel\n", 100.0 * share);
}

/*
 * Runs that differ by 2x or more did not run alike: most often a command
 * that rewrites one file, whose O_TRUNC and close pay, from the second run
 * on, for the last run's dirty pages (docs/untraced.md, --baseline).  The median is then no truth to measure a
 * share against, and the header says so rather than let the share stand.
 */
bool runs_apart(int runs, uint64_t min, uint64_t max)
{
	return runs >= 2 && min && max >= 2 * min;
}

static void print_spread(FILE *f, const struct profile_baseline *b)
{
	struct time_unit u = time_unit_for(b->wall_ns);

	if (!runs_apart((int)b->runs, b->wall_min_ns, b->wall_max_ns))
		return;
	fprintf(f, "iotrace: the untraced runs differ by %.1fx (%.3f..%.3f "
		"%s): they did not run alike (a command that rewrites one "
		"file pays for the last run's dirty pages), and the share "
		"above is as uncertain\n",
		(double)b->wall_max_ns / (double)b->wall_min_ns,
		in(u, b->wall_min_ns), in(u, b->wall_max_ns), u.name);
}

/*
 * The untraced runs read /dev/null and wrote to /dev/null; the traced run
 * had iotrace's own streams.  Where those differ (a pipe, a terminal, a
 * file), so may the walls: writing to /dev/null costs nothing, a pipe
 * costs the copy and the reader's pace.  One line says so.
 */
static bool differs(const char *untraced, const char *traced)
{
	return *untraced && *traced && strcmp(untraced, traced);
}

/* "read IN and wrote to OUT", of the streams that differ. */
static void streams_clause(FILE *f, const char *in, const char *out)
{
	if (in)
		fprintf(f, "read %s", in);
	if (in && out)
		fputs(" and ", f);
	if (out)
		fprintf(f, "wrote to %s", out);
}

void baseline_render_streams(FILE *f, const struct profile_baseline *b)
{
	bool in = differs(b->in, b->traced_in);
	bool out = differs(b->out, b->traced_out);

	if (!b->runs || (!in && !out))
		return;
	fputs("iotrace: the untraced runs ", f);
	streams_clause(f, in ? b->in : NULL, out ? b->out : NULL);
	fputs(", the traced run ", f);
	streams_clause(f, in ? b->traced_in : NULL,
		       out ? b->traced_out : NULL);
	fputs(": their walls may differ\n", f);
}

void baseline_render_header(FILE *f, const struct profile *p,
			    const struct report_opts *o)
{
	if (!p->baseline.runs)
		return;
	print_split(f, &p->baseline);
	print_share(f, p, o);
	print_spread(f, &p->baseline);
}
