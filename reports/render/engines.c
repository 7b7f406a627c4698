// SPDX-License-Identifier: MIT
/*
 * The agent engine's header lines: which engine measured what.  The
 * agent counts calls inside the programs it was mapped into; ptrace
 * counts the rest (execves, forks and clones, processes the
 * agent cannot enter), and the lines say how many each
 * counted and which processes were left to ptrace, and why, and how
 * many data calls the agent could give no file (a run saved before it
 * gave files: that none has one).  Nothing for a run of the ptrace
 * engine.
 */
#include <inttypes.h>
#include <string.h>
#include "reports/render/render.h"

static void print_fallbacks(FILE *f, const struct profile_engines *e)
{
	uint64_t i, shown = e->fallbacks < PROFILE_FALLBACKS_MAX ?
			    e->fallbacks : PROFILE_FALLBACKS_MAX;

	fprintf(f, "iotrace: %" PRIu64 " process%s measured by ptrace alone:",
		e->fallbacks, e->fallbacks == 1 ? "" : "es");
	for (i = 0; i < shown; i++)
		fprintf(f, "%s pid %d (%s)", i ? "," : "",
			e->fallback[i].pid, e->fallback[i].why);
	if (shown < e->fallbacks)
		fprintf(f, ", and %" PRIu64 " more", e->fallbacks - shown);
	fputc('\n', f);
}

/*
 * The fast path's line: how many calls its rewritten sites counted
 * without a stop, and where sites stayed on ptrace stops; off, why, when
 * the user did not ask for it (--no-rewrite) and hot calls were traced.
 */
static void fast_render_header(FILE *f, const struct profile *p)
{
	const struct profile_fast *x = &p->fast;
	struct profile_totals t;
	char n[32], m[32], a[32], b[32];

	if (!x->known)
		return;
	if (!x->on) {
		if (x->why_off[0] && strcmp(x->why_off, "--no-rewrite") &&
		    strcmp(x->why_off, "no hot call is traced"))
			fprintf(f, "iotrace: fast path off (%s): every traced "
				"call stops\n", x->why_off);
		return;
	}
	profile_totals(p, &t);
	fprintf(f, "iotrace: fast path: %s of %s calls counted without a "
		"stop, at %s rewritten site%s in %s process%s",
		fmt_thousands(n, sizeof(n), x->calls),
		fmt_thousands(m, sizeof(m), t.calls),
		fmt_thousands(a, sizeof(a), x->sites), x->sites == 1 ? "" : "s",
		fmt_thousands(b, sizeof(b), x->procs),
		x->procs == 1 ? "" : "es");
	if (x->sites_unpatched)
		fprintf(f, "; %s hot site%s left on ptrace stops (no room, out "
			"of reach or not as in the file)",
			fmt_thousands(n, sizeof(n), x->sites_unpatched),
			x->sites_unpatched == 1 ? "" : "s");
	if (x->procs_failed)
		fprintf(f, "; %s process%s without the pool",
			fmt_thousands(n, sizeof(n), x->procs_failed),
			x->procs_failed == 1 ? "" : "es");
	fputc('\n', f);
}

void engines_render_header(FILE *f, const struct profile *p)
{
	const struct profile_engines *e = &p->engines;
	char n[32];

	fast_render_header(f, p);
	if (!e->known)
		return;
	fprintf(f, "iotrace: the agent counted %" PRIu64 " calls in %" PRIu64
		" process%s (%" PRIu64 " task%s), timed in-process with %"
		PRIu64 " ns/call of dispatch overhead subtracted",
		e->agent_calls, e->agent_procs, e->agent_procs == 1 ? "" : "es",
		e->agent_tasks, e->agent_tasks == 1 ? "" : "s",
		e->correction_ns);
	if (e->correction_io_ns > e->correction_ns)
		fprintf(f, " (%" PRIu64 " from calls moving data)",
			e->correction_io_ns);
	fprintf(f, "; ptrace counted %" PRIu64 " (execves, forks and "
		"clones, processes without the agent)\n",
		e->ptrace_calls);
	if (profile_dispatch_measured(p))
		fprintf(f, "iotrace: each call the agent handled cost the wall "
			"%.2f us (+-%.2f), measured in the run by %s probes\n",
			(double)e->dispatch_run_ns / 1e3,
			(double)e->dispatch_run_se_ns / 1e3,
			fmt_thousands(n, sizeof(n), e->probe_samples));
	if (e->fallbacks)
		print_fallbacks(f, e);
	if (e->untraced)
		fprintf(f, "iotrace: %" PRIu64 " task%s could not be traced "
			"again: %s later calls are not counted\n", e->untraced,
			e->untraced == 1 ? "" : "s",
			e->untraced == 1 ? "its" : "their");
	if (e->agent_calls && !e->files)
		fputs("iotrace: calls the agent counted have no per-file "
		      "breakdown\n", f);
	if (e->stacks_missed)
		fprintf(f, "iotrace: -k: %" PRIu64 " call%s the agent counted "
			"%s no call site (%s process ended before iotrace "
			"unwound %s)\n", e->stacks_missed,
			e->stacks_missed == 1 ? "" : "s",
			e->stacks_missed == 1 ? "has" : "have",
			e->stacks_missed == 1 ? "its" : "their",
			e->stacks_missed == 1 ? "it" : "them");
	if (e->unattributed)
		fprintf(f, "iotrace: %" PRIu64 " data call%s the agent counted "
			"could not be given a file (its tables were full): "
			"\"(unattributed)\" in the I/O table\n",
			e->unattributed, e->unattributed == 1 ? "" : "s");
}
