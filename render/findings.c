// SPDX-License-Identifier: MIT
/*
 * Findings: a few plain sentences after the tables, each one a rule with
 * a threshold checked against numbers the tables above print.  A rule
 * that is not sure says nothing: silence is better than a wrong finding.
 * A finding is kept whole, in memory of its size, with the rule that made
 * it and what it is about, so a sweep can say it once for the points it
 * holds at.  Adding a rule is one function (here, or in findings-files.c
 * for those on files) and one row in rules[] (with a unit test in
 * tests/unit/test-findings.c that also shows when it stays silent).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render/findings-int.h"

#define TINY_MIN_CALLS 1000	/* fewer calls cannot cost much */
#define SUGGESTED_BUF 65536	/* the buffer the tiny-io rule suggests */
#define TINY_MIN_SHARE 5.0	/* % of the run: less, and a bigger buffer
				   would not change what the user waits for */
#define OUTSIDE_MIN_WALL_NS 50000000ull /* too short a run says nothing */
#define WAITS_NAMED 3		/* calls that wait a finding names */

struct rule {
	const char *id;
	/* Adds its findings through e. */
	void (*check)(struct emit *e, const struct profile *p,
		      const struct report_opts *o, double threshold);
	double threshold;
};

/*
 * The % of the run that print_share_of_run() quotes for ns, or -1 where
 * it quotes none.
 */
static double share_of_run(const struct profile *p, uint64_t ns)
{
	struct profile_estimate e;

	if (p->baseline.runs && p->baseline.wall_ns)
		return -1;
	profile_untraced(p, &e);
	if (!e.known)
		return p->wall_ns ? pct(ns, p->wall_ns) : -1;
	return e.resolved && ns <= e.wall_ns ? pct(ns, e.wall_ns) : -1;
}

/*
 * " took 93% of wall time": against the untraced estimate when there is
 * one, and nothing when tracing left the program's time unresolved.
 */
static void print_share_of_run(FILE *f, const struct profile *p,
			       uint64_t ns)
{
	const struct profile_baseline *b = &p->baseline;
	struct profile_estimate e;

	profile_untraced(p, &e);
	if (b->runs && b->wall_ns) {
		/* Measured untraced: as the --baseline line says it. */
		if (baseline_outside_user(b) >= 0)
			fprintf(f, " (untraced, %.1f%% of the run was outside "
				"user space)", 100.0 * baseline_outside_user(b));
		return;
	}
	if (!e.known) {
		if (p->wall_ns)
			fprintf(f, " took %.0f%% of wall time",
				pct(ns, p->wall_ns));
		return;
	}
	if (e.resolved && ns <= e.wall_ns)
		fprintf(f, " took about %.0f%% of the untraced run",
			pct(ns, e.wall_ns));
}

/*
 * -k: ", 99.9% from emit_byte <- write_report (app)" when one call
 * site made most of r's calls (DOMINANT_SITE of those with a stack).
 */
#define DOMINANT_SITE 0.5

static void print_site(FILE *f, const struct profile *p,
		       const struct profile_row *r,
		       const struct report_opts *o)
{
	char *site;
	double share = callsites_dominant(p, r, o, &site);

	if (share >= DOMINANT_SITE)
		fprintf(f, ", %s%.1f%% from %s", p->stack_sample > 1 ? "~" : "",
			100.0 * share, site);
	free(site);
}

/*
 * Many small writes: the classic unbuffered loop.  Only writes, whose
 * size the program chooses; a read's size depends on what is there.
 */
static void tiny_io(struct emit *e, const struct profile *p,
		    const struct report_opts *o, double threshold)
{
	const struct profile_row *r;
	char calls[32], avg[32], fewer[32], label[PROFILE_ROW_LABEL_MAX];
	uint64_t mean, after;
	double share;
	size_t i;
	FILE *f;

	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (!in_family(r, FAM_WRITE) ||
		    r->calls < TINY_MIN_CALLS || !r->bytes_done ||
		    r->timed != r->calls)
			continue;
		mean = r->bytes_done / r->calls;
		after = (r->bytes_done + SUGGESTED_BUF - 1) / SUGGESTED_BUF;
		share = share_of_run(p, row_time(r, o));
		if ((double)mean >= threshold || after * 16 > r->calls ||
		    (share >= 0 && share < TINY_MIN_SHARE))
			continue;
		profile_row_label(r, label, sizeof(label));
		if (!(f = finding_begin(e, "%s", label)))
			return;
		fprintf(f, "%s: %s calls averaging %s %s", label,
			fmt_thousands(calls, sizeof(calls), r->calls),
			fmt_thousands(avg, sizeof(avg), mean),
			plural(mean, "byte", "bytes"));
		print_share_of_run(f, p, row_time(r, o));
		print_site(f, p, r, o);
		fprintf(f, ". A 64 KiB buffer would make ~%s %s.",
			fmt_thousands(fewer, sizeof(fewer), after),
			plural(after, "call", "calls"));
		finding_end(e);
	}
}

static uint64_t family_time(const struct profile *p,
			    const struct report_opts *o,
			    enum family fam, uint64_t *calls)
{
	uint64_t ns = 0;
	size_t i;

	*calls = 0;
	for (i = 0; i < p->nrows; i++) {
		if (!in_family(&p->rows[i], fam))
			continue;
		ns += row_time(&p->rows[i], o);
		*calls += p->rows[i].calls;
	}
	return ns;
}

/*
 * fsync and friends: the device flush, which the page cache hid.  Heavy
 * when it takes most of the syscall time (waits left out: a parent's
 * wait4 spans its child's run) or more than the writes it flushed.
 */
static void sync_heavy(struct emit *e, const struct profile *p,
		       const struct report_opts *o, double threshold)
{
	const struct profile_row *r;
	uint64_t busy = findings_busy_time(p, o), writes, nwrites;
	char calls[32], wcalls[32], label[PROFILE_ROW_LABEL_MAX];
	size_t i;
	FILE *f;

	writes = family_time(p, o, FAM_WRITE, &nwrites);
	/* Bytes say it better, in every run: sync-paid speaks instead. */
	if (findings_sync_paid_applies(p, o, SYNC_PAID_UNFLUSHED))
		return;
	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (!in_family(r, FAM_SYNC) || !r->timed ||
		    r->timed != r->calls || !row_time(r, o) ||
		    (pct(row_time(r, o), busy) < threshold &&
		     row_time(r, o) <= writes))
			continue;
		profile_row_label(r, label, sizeof(label));
		if (!(f = finding_begin(e, "%s", label)))
			return;
		fprintf(f, "%s: %s %s took ", label,
			fmt_thousands(calls, sizeof(calls), r->calls),
			plural(r->calls, "call", "calls"));
		findings_print_share(f, p, o, row_time(r, o));
		if (nwrites && row_time(r, o) > writes)
			fprintf(f, ", %.1fx the %.3f ms of the %s %s it "
				"flushed: the page cache absorbed them, the "
				"cost moved to the flush",
				(double)row_time(r, o) / (double)(writes ?
				writes : 1), (double)writes / 1e6,
				fmt_thousands(wcalls, sizeof(wcalls), nwrites),
				plural(nwrites, "write", "writes"));
		fputc('.', f);
		finding_end(e);
	}
}

/*
 * Time that no syscall accounts for.  Against the traced wall that would
 * lump iotrace's own stops with the program's user space, so with the
 * untraced estimate it speaks of the untraced run only, and only when the
 * estimate is resolved; without one (older files) it says both causes.
 */
static void outside_syscalls(struct emit *e, const struct profile *p,
			     const struct report_opts *o, double threshold)
{
	const struct profile_baseline *b = &p->baseline;
	uint64_t busy = findings_busy_time(p, o);
	struct profile_estimate est;
	struct profile_totals t;
	double outside;
	bool waited;
	FILE *f;

	/* Waits are in syscalls but are no work: idle threads' futex would
	   pass the wall, and silence the rule, however busy the rest. */
	profile_totals(p, &t);
	waited = busy < totals_time(&t, o);
	profile_totals_where(p, &t, profile_row_works);
	profile_untraced(p, &est);
	if (!p->exit.known || p->wall_ns < OUTSIDE_MIN_WALL_NS ||
	    t.timed != t.calls || busy > p->wall_ns)
		return;
	if (b->runs) {
		/* Measured: what the --baseline line leaves to user space. */
		outside = baseline_outside_user(b) < 0 ? 0 :
			  100.0 - 100.0 * baseline_outside_user(b);
		if (outside >= threshold && (f = finding_begin(e, "%s", "")))
			fprintf(f, "%.1f%% of the untraced run (--baseline) "
				"was user CPU: the time is in the program's "
				"own code, not in syscalls.", outside);
	} else if (!est.known) {
		/* The header's share of wall, the rest of it. */
		outside = 100.0 - pct(busy, p->wall_ns);
		if (outside >= threshold && (f = finding_begin(e, "%s", "")))
			fprintf(f, "%.1f%% of wall time was outside syscalls"
				"%s (user space%s or tracing overhead).",
				outside, waited ? " that work" : "",
				waited ? ", calls that wait" : "");
	} else if (est.resolved && est.syscall_ns < est.wall_ns) {
		outside = 100.0 - pct(est.syscall_ns, est.wall_ns);
		if (outside >= threshold && (f = finding_begin(e, "%s", "")))
			fprintf(f, "about %.0f%% of the untraced run was "
				"outside syscalls: user-space work (user CPU "
				"%.3f s) or waiting.", outside,
				(double)p->cost.user_ns / 1e9);
	}
	if (e->f)
		finding_end(e);
}

/* The row of most time that waits (waits) or works, not in skip[]. */
static const struct profile_row *top_row(const struct profile *p,
					 const struct report_opts *o,
					 bool waits,
					 const struct profile_row *const *skip,
					 size_t nskip)
{
	const struct profile_row *r, *top = NULL;
	size_t i, k;

	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (!r->calls || profile_row_waits(r) != waits)
			continue;
		for (k = 0; k < nskip && skip[k] != r; k++)
			;
		if (k == nskip && (!top || row_time(r, o) > row_time(top, o)))
			top = r;
	}
	return top;
}

/* "futex 43.000 s (809 calls)" */
static void print_row_time(FILE *f, const struct profile_row *r,
			   const struct report_opts *o)
{
	char label[PROFILE_ROW_LABEL_MAX], calls[32];

	fprintf(f, "%s %.3f s (%s %s)", profile_row_label(r, label,
		sizeof(label)), (double)row_time(r, o) / 1e9,
		fmt_thousands(calls, sizeof(calls), r->calls),
		plural(r->calls, "call", "calls"));
}

/*
 * The table keeps strace's order, so idle threads' futex or a parent's
 * wait4 can lead it: where calls that wait hold most of its time, say
 * so, how long and by how many threads they waited, and which call led
 * the work (the header and -k's call sites rank it already).
 */
static void waits_lead(struct emit *e, const struct profile *p,
		       const struct report_opts *o, double threshold)
{
	const struct profile_row *named[WAITS_NAMED], *work;
	uint64_t busy = findings_busy_time(p, o), all, waited;
	struct profile_totals t;
	char n[32];
	size_t k;
	FILE *f;

	profile_totals(p, &t);
	all = totals_time(&t, o);
	waited = all > busy ? all - busy : 0;
	if (!waited || pct(waited, all) < threshold ||
	    !(f = finding_begin(e, "%s", "")))
		return;
	fprintf(f, "%.2f%% of syscall time was in calls that wait, not work: ",
		pct(profile_round_us(waited), totals_time_us(&t, o)));
	if (p->wait_tasks)
		fprintf(f, "%s%s %s waited ", p->wait_tasks >=
			PROFILE_WAITERS_MAX ? "at least " : "",
			fmt_thousands(n, sizeof(n), p->wait_tasks),
			plural(p->wait_tasks, "thread", "threads"));
	else
		fputs("waited ", f);
	fprintf(f, "%.3f s in ", (double)waited / 1e9);
	for (k = 0; k < WAITS_NAMED; k++) {
		named[k] = top_row(p, o, true, named, k);
		/* The rest, under a hundredth of the waits, say nothing. */
		if (!named[k] || (k && row_time(named[k], o) * 100 < waited))
			break;
		if (k)
			fputs(", ", f);
		print_row_time(f, named[k], o);
	}
	work = top_row(p, o, false, NULL, 0);
	if (work && busy) {
		fprintf(f, "; the work took %.3f s, led by ",
			(double)busy / 1e9);
		print_row_time(f, work, o);
	}
	fputc('.', f);
	finding_end(e);
}

/* The rules, in the order their findings print. */
static const struct rule rules[] = {
	{ "tiny-io", tiny_io, 4096 },		/* mean bytes per call below */
	{ "odirect-einval", findings_odirect_einval, 512 }, /* alignment */
	{ "block-misfit", findings_block_misfit, 0.9 }, /* share that size */
	{ "sync-heavy", sync_heavy, 50 },	/* % of syscall time */
	{ "user-copy", findings_user_copy, 1000000 }, /* bytes, at least */
	{ "outside-syscalls", outside_syscalls, 80 }, /* % of wall */
	{ "waits", waits_lead, 50 },		/* % of syscall time */
	{ "peer-waits", findings_peer_waits, 10 }, /* % of syscall time */
	{ "after-blocking", findings_after_blocking, 50 }, /* % on device */
	/* % of the bytes written still in memory at exit: the line */
	{ "page-cache", findings_page_cache, SYNC_PAID_UNFLUSHED },
	{ "device-writes", findings_device_writes, SYNC_PAID_UNFLUSHED },
	{ "sync-paid", findings_sync_paid, SYNC_PAID_UNFLUSHED },
};

void findings_release(struct findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		free(fs->v[i].about);
		free(fs->v[i].text);
	}
	free(fs->v);
	fs->v = NULL;
	fs->n = 0;
}

int findings_collect(struct findings *out, const struct profile *p,
		     const struct report_opts *o, const char *id)
{
	struct emit e = { .out = out };
	bool found = false;
	size_t i;

	out->v = NULL;
	out->n = 0;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]) && !e.err; i++) {
		if (id && strcmp(id, rules[i].id))
			continue;
		found = true;
		e.rule = rules[i].id;
		rules[i].check(&e, p, o, rules[i].threshold);
	}
	if (e.err)
		findings_release(out);
	return e.err ? e.err : found ? 0 : -EINVAL;
}

int findings_run(FILE *f, const struct profile *p,
		 const struct report_opts *o, const char *id)
{
	struct findings fs;
	int err = findings_collect(&fs, p, o, id);
	size_t i;

	if (err < 0)
		return err;
	for (i = 0; i < fs.n; i++)
		fprintf(f, "- %s\n", fs.v[i].text);
	findings_release(&fs);
	return (int)i;
}

int findings_render(FILE *f, const struct profile *p,
		    const struct report_opts *o)
{
	struct findings fs;
	size_t i;

	if (!o || !o->findings)
		return 0;
	if (findings_collect(&fs, p, o, NULL) < 0)
		return -1;
	/* No heading when no rule has anything. */
	if (fs.n)
		fputs("\nFindings:\n", f);
	for (i = 0; i < fs.n; i++)
		fprintf(f, "- %s\n", fs.v[i].text);
	findings_release(&fs);
	return ferror(f) ? -1 : 0;
}
