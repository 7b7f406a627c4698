// SPDX-License-Identifier: MIT
/*
 * The fast path's header line (the ptrace engine): what its rewritten
 * sites counted, or why it was off.  Nothing for a run that does not
 * say (a profile saved before the fast path).
 */
#include <string.h>
#include "render/render.h"

/*
 * The fast path's line: how many calls its rewritten sites counted
 * without a stop, and where sites stayed on ptrace stops (processes
 * too short to be worth rewriting among them); off, why, when
 * the user did not ask for it (--no-rewrite) and hot calls were traced.
 */
void fast_render_header(FILE *f, const struct profile *p)
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
	if (x->procs_short)
		fprintf(f, "; %s process%s made fewer than %llu hot calls, "
			"%s text left as it was",
			fmt_thousands(n, sizeof(n), x->procs_short),
			x->procs_short == 1 ? "" : "es",
			(unsigned long long)x->rewrite_after,
			x->procs_short == 1 ? "its" : "their");
	if (x->procs_unsafe)
		fprintf(f, "; %s process%s left on stops, not safe to rewrite "
			"(threads or a signal handler running, memory shared, "
			"a seccomp filter of %s own)",
			fmt_thousands(n, sizeof(n), x->procs_unsafe),
			x->procs_unsafe == 1 ? "" : "es",
			x->procs_unsafe == 1 ? "its" : "their");
	if (x->procs_failed)
		fprintf(f, "; %s process%s without the pool",
			fmt_thousands(n, sizeof(n), x->procs_failed),
			x->procs_failed == 1 ? "" : "es");
	fputc('\n', f);
}
