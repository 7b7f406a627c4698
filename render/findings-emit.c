// SPDX-License-Identifier: MIT
/*
 * What every file of rules writes its findings with (findings-int.h):
 * finding_begin() and finding_end() keep a finding whole with its rule
 * and subject; findings_print_share() and findings_busy_time() say a
 * call's share of the run the way every rule says it.  A leaf: it calls
 * no rule, so findings.c, whose rules[] names them all, and the files
 * of rules (findings-files.c, findings-storage.c) do not use each other.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include "render/findings-int.h"

#define WAITS_APART_PCT 10	/* waits this share of the table's time:
				   a share of it is said of the work too */

FILE *finding_begin(struct emit *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&e->about, fmt, ap);
	va_end(ap);
	if (n < 0) {
		e->about = NULL;
		e->err = -ENOMEM;
		return NULL;
	}
	e->text = NULL;
	e->len = 0;
	e->f = open_memstream(&e->text, &e->len);
	if (!e->f) {
		free(e->about);
		e->err = -ENOMEM;
	}
	return e->f;
}

void finding_end(struct emit *e)
{
	struct findings *out = e->out;
	struct finding *v;
	bool failed = fclose(e->f) != 0;

	e->f = NULL;
	v = failed ? NULL : realloc(out->v, (out->n + 1) * sizeof(*v));
	if (!v) {
		free(e->text);
		free(e->about);
		e->err = -ENOMEM;
		return;
	}
	out->v = v;
	v[out->n++] = (struct finding){ e->rule, e->about, e->text };
}

/*
 * The share as the table's "% time" cell computes it: microseconds as
 * printed over the total of the rows' printed microseconds, so a
 * finding about one row quotes that row's cell (with the fast path's
 * sub-microsecond calls the nanosecond total and the cells' can differ
 * in the last digit).  Where calls that wait hold a good part of that
 * total, the share of the work follows, so a wait4 spanning the run or
 * idle threads' futex do not make the work look small.
 */
void findings_print_share(FILE *f, const struct profile *p,
			  const struct report_opts *o, uint64_t ns)
{
	uint64_t busy = findings_busy_time(p, o), all, waits;
	struct profile_totals t;

	profile_totals(p, &t);
	fprintf(f, "%.2f%% of syscall time",
		pct(profile_round_us(ns), totals_time_us(&t, o)));
	all = totals_time(&t, o);
	waits = all > busy ? all - busy : 0;
	if (busy && pct(waits, all) >= WAITS_APART_PCT)
		fprintf(f, " (%.0f%% of the work, waits apart)",
			pct(ns, busy));
}

uint64_t findings_busy_time(const struct profile *p,
			    const struct report_opts *o)
{
	uint64_t busy = 0;
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (!profile_row_waits(&p->rows[i]))
			busy += row_time(&p->rows[i], o);
	return busy;
}
