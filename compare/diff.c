// SPDX-License-Identifier: MIT
/*
 * Pairing the rows of two profiles by syscall (personality and name),
 * ordering the pairs by how much they changed, and saying the result in
 * one line: how much more or less time NEW spends in syscalls, and which
 * syscall explains most of it.  The line ranks work: calls that wait
 * (futex in a Java run's idle threads, a shell's wait4) are a syscall
 * fact (profile_row_waits()), and their time, another task's pace, is
 * said after it, with the threads that waited.  The table keeps them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"

uint64_t diff_time(const struct diff *d, const struct profile_row *r)
{
	return r ? row_time(r, d->o) : 0;
}

static bool used(const struct profile_row *r)
{
	return r && r->calls;
}

/*
 * A pair of rows, named as both runs' tables name them; the names live
 * in d->labels, which sorting the rows does not move.
 */
static void add_pair(struct diff *d, const struct profile_row *b,
		     const struct profile_row *w)
{
	struct diff_row *r = &d->rows[d->nrows];

	r->name = profile_row_label(b ? b : w, d->labels[d->nrows],
				    sizeof(d->labels[d->nrows]));
	r->base = b;
	r->new = w;
	d->nrows++;
}

/* Rows pair by (personality, name): i386's write is not x86_64's. */
int diff_build(struct diff *d, const struct profile *base,
	       const struct profile *new, const struct report_opts *o)
{
	const struct profile_row *b, *w;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->base = base;
	d->new = new;
	d->o = o;
	d->rows = calloc(base->nrows + new->nrows + 1, sizeof(*d->rows));
	d->labels = calloc(base->nrows + new->nrows + 1, sizeof(*d->labels));
	if (!d->rows || !d->labels) {
		diff_release(d);
		return -ENOMEM;
	}
	for (i = 0; i < base->nrows; i++) {
		b = &base->rows[i];
		w = profile_row_match(new, b);
		if (used(b) || used(w))
			add_pair(d, used(b) ? b : NULL, used(w) ? w : NULL);
	}
	for (i = 0; i < new->nrows; i++) {
		w = &new->rows[i];
		if (used(w) && !profile_row_match(base, w))
			add_pair(d, NULL, w);
	}
	profile_totals(base, &d->tbase);
	profile_totals(new, &d->tnew);
	profile_totals_where(base, &d->work_base, profile_row_works);
	profile_totals_where(new, &d->work_new, profile_row_works);
	d->waits_apart = (d->work_base.calls || d->work_new.calls) &&
			 (d->work_base.calls < d->tbase.calls ||
			  d->work_new.calls < d->tnew.calls);
	if (diff_build_subs(d) < 0) {
		diff_release(d);
		return -ENOMEM;
	}
	return diff_sort(d, "time");
}

void diff_release(struct diff *d)
{
	free(d->rows);
	free(d->labels);
	free(d->subs);
	d->rows = NULL;
	d->labels = NULL;
	d->subs = NULL;
	d->nrows = d->nsubs = 0;
}

static int64_t change(uint64_t a, uint64_t b)
{
	return (int64_t)(b - a);
}

static uint64_t calls_of(const struct profile_row *r)
{
	return r ? r->calls : 0;
}

static int64_t d_time(const struct diff *d, const struct diff_row *r)
{
	return change(diff_time(d, r->base), diff_time(d, r->new));
}

static int64_t d_calls(const struct diff *d, const struct diff_row *r)
{
	(void)d;
	return change(calls_of(r->base), calls_of(r->new));
}

static int64_t d_errors(const struct diff *d, const struct diff_row *r)
{
	(void)d;
	return change(r->base ? r->base->errors : 0,
		      r->new ? r->new->errors : 0);
}

static uint64_t avg(const struct diff *d, const struct profile_row *r)
{
	return r && r->timed ? diff_time(d, r) / r->timed : 0;
}

static int64_t d_avg(const struct diff *d, const struct diff_row *r)
{
	return change(avg(d, r->base), avg(d, r->new));
}

/* Sort keys: the change a row is ranked by; NULL ranks by name. */
static const struct {
	const char *key;
	int64_t (*delta)(const struct diff *d, const struct diff_row *r);
} sort_keys[] = {
	{ "time", d_time },	{ "percent", d_time },
	{ "calls", d_calls },	{ "errors", d_errors },
	{ "avg-time", d_avg },	{ "name", NULL },
};

const char diff_sort_keys[] = "time, calls, errors, avg-time, name";

static uint64_t magnitude(int64_t v)
{
	return v < 0 ? -(uint64_t)v : (uint64_t)v;
}

struct sort_ctx {
	const struct diff *d;
	int64_t (*delta)(const struct diff *d, const struct diff_row *r);
};

/* Largest change first; ties (and -S name) by name, so output is stable. */
static int cmp_rows(const void *pa, const void *pb, void *arg)
{
	const struct diff_row *a = pa, *b = pb;
	const struct sort_ctx *c = arg;
	uint64_t ma, mb;

	if (c->delta) {
		ma = magnitude(c->delta(c->d, a));
		mb = magnitude(c->delta(c->d, b));
		if (ma != mb)
			return ma < mb ? 1 : -1;
	}
	return strcmp(a->name, b->name);
}

int diff_sort(struct diff *d, const char *key)
{
	struct sort_ctx c = { d, NULL };
	size_t i;

	for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++) {
		if (!strcmp(sort_keys[i].key, key)) {
			c.delta = sort_keys[i].delta;
			qsort_r(d->rows, d->nrows, sizeof(*d->rows), cmp_rows,
				&c);
			return 0;
		}
	}
	return -EINVAL;
}

/* Whether the headline ranks r: work, or every row with one kind only. */
static bool ranked(const struct diff *d, const struct diff_row *r)
{
	return !d->waits_apart ||
	       profile_row_works(r->base ? r->base : r->new);
}

/* The totals the headline ranks: the work's, or every row's. */
static const struct profile_totals *ranked_base(const struct diff *d)
{
	return d->waits_apart ? &d->work_base : &d->tbase;
}

static const struct profile_totals *ranked_new(const struct diff *d)
{
	return d->waits_apart ? &d->work_new : &d->tnew;
}

/* Ties in time (strace's 0.000000 rows) go to the change in calls. */
static bool explains_more(const struct diff *d, const struct diff_row *a,
			  const struct diff_row *b)
{
	uint64_t ta = magnitude(d_time(d, a)), tb = magnitude(d_time(d, b));

	if (ta != tb)
		return ta > tb;
	return magnitude(d_calls(d, a)) > magnitude(d_calls(d, b));
}

const struct diff_row *diff_top(const struct diff *d)
{
	const struct diff_row *top = NULL;
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (ranked(d, &d->rows[i]) &&
		    (!top || explains_more(d, &d->rows[i], top)))
			top = &d->rows[i];
	return top;
}

/*
 * Two times for a sentence, in one unit that keeps the smaller readable:
 * "0.579 s -> 0.141 s", "16.055 ms -> 1.314 ms", "12.0 us -> 3.5 us".
 */
static void two_times(char *buf, size_t size, uint64_t a, uint64_t b)
{
	uint64_t small = a && b ? (a < b ? a : b) : a | b;
	double scale = small >= 10000000 ? 1e9 : small >= 10000 ? 1e6 : 1e3;
	const char *unit = scale == 1e9 ? "s" : scale == 1e6 ? "ms" : "us";
	const char *fmt = scale == 1e3 ? "%.1f %s -> %.1f %s"
				       : "%.3f %s -> %.3f %s";

	snprintf(buf, size, fmt, (double)a / scale, unit, (double)b / scale,
		 unit);
}

/*
 * "4.1x less", "23.5% more", "the same" for an amount a (BASE) -> b (NEW);
 * for a count the words differ ("83.5x fewer", "as many").  A percentage
 * is of BASE either way, as --fail-if's are: 100 -> 60 is 40% less, 60 ->
 * 100 is 66.7% more.  A ratio (2x or more) is the larger over the smaller.
 */
static void compare_words(char *buf, size_t size, uint64_t a, uint64_t b,
			  const char *less, const char *same)
{
	double big = (double)(a > b ? a : b), small = (double)(a > b ? b : a);
	const char *dir = b > a ? "more" : less;

	if (a == b)
		snprintf(buf, size, "%s", same);
	else if (!small)
		snprintf(buf, size, "%s", dir);
	else if (big / small >= 2)
		snprintf(buf, size, "%.1fx %s", big / small, dir);
	else
		snprintf(buf, size, "%.1f%% %s", 100 * (big - small) /
			 (double)a, dir);
}

static void how_much(char *buf, size_t size, uint64_t a, uint64_t b)
{
	compare_words(buf, size, a, b, "less", "the same");
}

/* "write calls 1,000,000 -> 123", or its time when calls did not move. */
static void explain(char *buf, size_t size, const struct diff *d,
		    const struct diff_row *r)
{
	char a[48], b[32];

	if (calls_of(r->base) != calls_of(r->new)) {
		snprintf(buf, size, ": %s calls %s -> %s", r->name,
			 fmt_thousands(a, sizeof(a), calls_of(r->base)),
			 fmt_thousands(b, sizeof(b), calls_of(r->new)));
	} else {
		two_times(a, sizeof(a), diff_time(d, r->base),
			  diff_time(d, r->new));
		snprintf(buf, size, ": %s time %s (calls unchanged)", r->name,
			 a);
	}
}

/*
 * The stop-cost correction of a run errs by up to its resolution on every
 * timed call, the same way for all of them: a run's total is uncertain by
 * timed calls x resolution.  0 when the profile does not say (strace
 * tables, older files, --raw-time).
 */
static uint64_t uncertainty(const struct diff *d, const struct profile *p,
			    const struct profile_totals *t)
{
	struct profile_estimate e;

	if (d->o && d->o->raw_time)
		return 0;
	profile_untraced(p, &e);
	return t->timed * e.resolution_ns;
}

/* The row whose calls changed most (ties: by name order); NULL: none. */
static const struct diff_row *top_by_calls(const struct diff *d)
{
	const struct diff_row *top = NULL;
	size_t i;

	for (i = 0; i < d->nrows; i++)
		if (ranked(d, &d->rows[i]) &&
		    magnitude(d_calls(d, &d->rows[i])) &&
		    (!top || magnitude(d_calls(d, &d->rows[i])) >
				     magnitude(d_calls(d, top))))
			top = &d->rows[i];
	return top;
}

static void how_many(char *buf, size_t size, uint64_t a, uint64_t b)
{
	compare_words(buf, size, a, b, "fewer", "as many");
}

/*
 * A run with nothing timed (--count-only) has no time to compare: the
 * headline compares calls and says which side was not timed ("-"),
 * never "0.0 us" as if measured.  False when both runs were timed.
 */
static bool untimed_headline(const struct diff *d, char *buf, size_t size)
{
	const struct profile_totals *ta = ranked_base(d), *tb = ranked_new(d);
	const struct diff_row *top = top_by_calls(d);
	uint64_t a = ta->calls, b = tb->calls;
	char many[32], ca[32], cb[32], why[128] = "";
	const char *which;

	if (ta->timed && tb->timed)
		return false;
	which = !ta->timed && !tb->timed ? "both runs were" :
		!ta->timed ? "BASE was" : "NEW was";
	how_many(many, sizeof(many), a, b);
	if (top)
		explain(why, sizeof(why), d, top);
	snprintf(buf, size, "NEW makes %s syscalls (%s -> %s)%s; time in "
		 "syscalls: - (%s counted only, not timed)", many,
		 fmt_thousands(ca, sizeof(ca), a),
		 fmt_thousands(cb, sizeof(cb), b), why, which);
	return true;
}

/* Calls that moved by 2 or more and by at least a tenth. */
static bool calls_changed_much(const struct diff_row *r)
{
	uint64_t a = calls_of(r->base), b = calls_of(r->new);
	uint64_t delta = a > b ? a - b : b - a;

	return delta >= 2 && delta * 10 >= (a > b ? a : b);
}

/*
 * Both runs have untraced runs, and the time in syscalls moved by no
 * more than the larger of their walls' relative spreads: a share the
 * runs vary by anyway, so no change is told.
 */
static bool within_noise(const struct diff *d, uint64_t a, uint64_t b)
{
	double noise = diff_noise(d), big = (double)(a > b ? a : b);

	return noise > 0 && (double)(a > b ? a - b : b - a) <= noise * big;
}

/*
 * Where the times cannot rank the runs, a top row whose calls did not
 * change says nothing: only the row whose calls did (also) is kept.
 */
static void times_only(const struct diff *d, const struct diff_row *top,
		       char *why, char *also)
{
	if (top && !d_calls(d, top)) {
		why[0] = '\0';
		if (also[0])
			also[0] = ':';
	}
}

/* The headline's first part: the ranked calls' time and the culprit. */
static void work_headline(const struct diff *d, char *buf, size_t size)
{
	uint64_t a = totals_time(ranked_base(d), d->o);
	uint64_t b = totals_time(ranked_new(d), d->o);
	uint64_t u = uncertainty(d, d->base, ranked_base(d)) +
		     uncertainty(d, d->new, ranked_new(d));
	const struct diff_row *top = diff_top(d);
	const struct diff_row *counted = top_by_calls(d);
	char much[32], times[64], why[160] = "", also[96] = "";

	if (untimed_headline(d, buf, size))
		return;
	how_much(much, sizeof(much), a, b);
	two_times(times, sizeof(times), a, b);
	/* Times in syscalls come from one traced run a side. */
	if (!diff_both_baselines(d))
		snprintf(times + strlen(times), sizeof(times) - strlen(times),
			 ", one run each");
	if (top && (d_time(d, top) || d_calls(d, top)))
		explain(why, sizeof(why), d, top);
	/*
	 * The time can move most in a row whose calls did not (one close
	 * preempted for a while): the row whose calls changed most is then
	 * said too, so "1,000 writes became 1" is never left out; a call
	 * more or less (a restart) is not worth the words.
	 */
	if (counted && top && counted != top &&
	    magnitude(d_calls(d, counted)) > magnitude(d_calls(d, top)) &&
	    calls_changed_much(counted)) {
		explain(also, sizeof(also), d, counted);
		also[0] = ';';
	}
	if (within_noise(d, a, b)) {
		times_only(d, top, why, also);
		snprintf(buf, size, "NEW and BASE differ in time in syscalls "
			 "(%s) by no more than their untraced runs' spread "
			 "(%.1f%%): within noise%s%s", times,
			 100 * diff_noise(d), why, also);
		return;
	}
	if (u && (a > b ? a - b : b - a) <= u) {
		/* Times are noise here; a change in calls is still a fact. */
		times_only(d, top, why, also);
		snprintf(buf, size, "NEW and BASE differ in time in syscalls "
			 "(%s) by less than the resolution of the stop-cost "
			 "correction (+-%.3f ms): not ranked%s%s", times,
			 (double)u / 1e6, why, also);
		return;
	}
	snprintf(buf, size, "NEW spends %s time in syscalls (%s)%s%s", much,
		 times, why, also);
}

/* " in 19 -> 12 threads"; false where a run with waits did not count them. */
static bool threads(char *buf, size_t size, const struct diff *d,
		    uint64_t calls_a, uint64_t calls_b)
{
	uint64_t a = d->base->wait_tasks, b = d->new->wait_tasks;
	char ta[32], tb[32];

	if ((calls_a && !a) || (calls_b && !b))
		return false;
	snprintf(buf, size, " in %s%s -> %s%s %s",
		 a >= PROFILE_WAITERS_MAX ? "at least " : "",
		 fmt_thousands(ta, sizeof(ta), a),
		 b >= PROFILE_WAITERS_MAX ? "at least " : "",
		 fmt_thousands(tb, sizeof(tb), b), b == 1 ? "thread" :
		 "threads");
	return true;
}

/*
 * "; waits 43.675 s -> 0.837 s in 19 -> 12 threads": the calls that wait,
 * apart from the work, as times where both runs timed every one (none
 * when both took no time), else as calls; the threads where the runs
 * counted them (saved runs before that, strace's tables, did not).
 */
static void waits_clause(const struct diff *d, char *buf, size_t size)
{
	uint64_t ca = d->tbase.calls - d->work_base.calls;
	uint64_t cb = d->tnew.calls - d->work_new.calls;
	bool timed = d->tbase.timed - d->work_base.timed == ca &&
		     d->tnew.timed - d->work_new.timed == cb;
	uint64_t ta = totals_time(&d->tbase, d->o) -
		      totals_time(&d->work_base, d->o);
	uint64_t tb = totals_time(&d->tnew, d->o) -
		      totals_time(&d->work_new, d->o);
	char what[64], a[32], b[32], who[96] = "";

	/* strace's tables of CPU time: a futex of 0.000000 s says nothing. */
	if (timed && !ta && !tb)
		return;
	if (timed)
		two_times(what, sizeof(what), ta, tb);
	else
		snprintf(what, sizeof(what), "%s -> %s calls",
			 fmt_thousands(a, sizeof(a), ca),
			 fmt_thousands(b, sizeof(b), cb));
	threads(who, sizeof(who), d, ca, cb);
	snprintf(buf, size, "; waits %s%s", what, who);
}

void diff_headline(const struct diff *d, char *buf, size_t size)
{
	size_t n;

	work_headline(d, buf, size);
	n = strlen(buf);
	if (d->waits_apart && n < size)
		waits_clause(d, buf + n, size - n);
}
