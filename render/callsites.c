// SPDX-License-Identifier: MIT
/*
 * The Call sites section (-k), the call-site dimension's own: for the
 * syscalls with most time, the stacks that made most of their calls
 * (--top-sites K, default 3), each with its calls, time and share of
 * the syscall's calls.  A stack is printed from the first frame outside
 * the object the call was made in (the C library's wrapper says
 * nothing), and without the outermost frames it shares with every other
 * stack of the profile that starts where it starts (_start,
 * __libc_start_main...), so what is left is what tells them apart; a
 * stack that shares none ends with the frames of its first object:
 *	write  307 calls, 0.000912 s
 *	   97.7%        300 calls  0.000890 s  emit_byte <- main (app)
 * With --stack-sample N, counts are the sampled ones times N, marked ~.
 */
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

#define SYSCALLS_SHOWN 5	/* syscalls with a list of call sites */
#define FRAMES_SHOWN 8		/* frames of one stack, at most */
#define TOP_SITES 3		/* call sites per syscall unless told */

static uint64_t sub_time(const struct profile_sub *s,
			 const struct report_opts *o)
{
	return o->raw_time ? s->raw_time_ns : s->time_ns;
}

/* Call sites of one syscall that print the same, summed. */
struct site {
	const struct profile_callsite *c;	/* the first of them */
	unsigned from, to;			/* its frames shown */
	uint64_t calls, time_ns;
};

/* Most calls first, then most time; ties in first-seen order. */
static int cmp_site(const void *pa, const void *pb)
{
	const struct site *a = pa, *b = pb;

	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->time_ns != b->time_ns)
		return a->time_ns < b->time_ns ? 1 : -1;
	return a->c < b->c ? -1 : a->c > b->c;
}

/* Frames that print the same: a function and its object, or an offset. */
static bool same_frame(const struct profile_frame *a,
		       const struct profile_frame *b)
{
	if (strcmp(a->object, b->object) || !a->function != !b->function)
		return false;
	return a->function ? !strcmp(a->function, b->function) :
	       a->offset == b->offset;
}

/*
 * The first frame past the object the call was made in, if any (a
 * frame where nothing is mapped, past a corrupt one, does not count).
 */
static unsigned first_shown(const struct profile_callsite *c)
{
	struct profile_frame leaf, f;
	unsigned i;

	if (!c->nframes)
		return 0;
	leaf = profile_callsite_frame(c, 0);
	for (i = 1; i < c->nframes; i++) {
		f = profile_callsite_frame(c, i);
		if (!f.object[0])
			break;
		if (strcmp(f.object, leaf.object))
			return i;
	}
	return 0;
}

/* Frame k from the outermost end. */
static struct profile_frame outer(const struct profile_callsite *c,
				  unsigned k)
{
	return profile_callsite_frame(c, c->nframes - 1u - k);
}

/* Whether a and b print the same frames. */
static bool same_site(const struct site *a, const struct site *b)
{
	struct profile_frame x, y;
	unsigned i, n = a->to - a->from;

	if (n != b->to - b->from ||
	    (a->c->flags & ~PCS_CUT) != (b->c->flags & ~PCS_CUT))
		return false;
	for (i = 0; i < n; i++) {
		x = profile_callsite_frame(a->c, a->from + i);
		y = profile_callsite_frame(b->c, b->from + i);
		if (!same_frame(&x, &y))
			return false;
	}
	return true;
}

/* Outermost frames a and b share. */
static unsigned shared_root(const struct profile_callsite *a,
			    const struct profile_callsite *b)
{
	struct profile_frame x, y;
	unsigned k;

	for (k = 0; k < a->nframes && k < b->nframes; k++) {
		x = outer(a, k);
		y = outer(b, k);
		if (!same_frame(&x, &y))
			break;
	}
	return k;
}

/*
 * Outermost frames to leave out of site s: those it shares with every
 * other stack of the profile that starts where it starts (_start,
 * __libc_start_main, main, or a thread's start_thread...).  What is left
 * tells the stacks apart.
 */
static unsigned common_root(const struct profile_breakdown *b,
			    const struct profile_callsite *s)
{
	unsigned root = UINT16_MAX, k;
	const struct profile_callsite *c;
	size_t i;

	for (i = 0; i < b->nkeys; i++) {
		c = profile_key(b, (uint32_t)i);
		if (c == s || c->flags & PCS_OTHER)
			continue;
		k = shared_root(s, c);
		if (k && k < root)
			root = k;
	}
	return root == UINT16_MAX ? 0 : root;
}

/*
 * The first frame past from that is in another object than from's (a
 * frame where nothing is mapped, past a corrupt one, stays shown).
 */
static unsigned object_run_end(const struct profile_callsite *c,
			       unsigned from)
{
	struct profile_frame a, b;
	unsigned i;

	if (from >= c->nframes)
		return c->nframes;
	a = profile_callsite_frame(c, from);
	for (i = from + 1; i < c->nframes; i++) {
		b = profile_callsite_frame(c, i);
		if (b.object[0] && strcmp(a.object, b.object))
			break;
	}
	return i;
}

/*
 * The frames of c shown: from the first past the call's own object to
 * the last before the shared root (a stack that shares none: to the end
 * of the run of frames in its first object shown), FRAMES_SHOWN at most.
 */
static void shown(const struct profile_breakdown *b, struct site *s)
{
	const struct profile_callsite *c = s->c;
	unsigned root = common_root(b, c);

	s->from = first_shown(c);
	s->to = root < c->nframes ? c->nframes - root : 0;
	if (!root)	/* nothing to tell it from: its first object's run */
		s->to = object_run_end(c, s->from);
	if (s->to <= s->from)
		s->to = s->from + 1 < c->nframes ? s->from + 1 : c->nframes;
	if (s->to - s->from > FRAMES_SHOWN)
		s->to = s->from + FRAMES_SHOWN;
}

static void print_frames(FILE *f, const struct site *s)
{
	const struct profile_callsite *c = s->c;

	if (c->flags & PCS_OTHER) {
		fputs("(other call sites)\n", f);
		return;
	}
	if (c->nframes)
		profile_callsite_print(f, c, s->from, s->to, false);
	else
		fputs("(no frames)", f);
	fprintf(f, "%s%s\n", s->to < c->nframes &&
		(c->flags & PCS_CUT || s->to - s->from == FRAMES_SHOWN) ?
		" <- ..." : "",
		c->flags & PCS_TRUNCATED ? " [truncated]" : "");
}

/* The sub-rows in v as sites, those that print the same merged. */
static size_t merge_sites(const struct profile_breakdown *b,
			  const struct profile_sub **v, size_t n,
			  struct site *sites, const struct report_opts *o)
{
	struct site one;
	size_t i, j, m = 0;

	for (i = 0; i < n; i++) {
		one = (struct site){ .c = profile_key(b, v[i]->key),
				     .calls = v[i]->calls,
				     .time_ns = sub_time(v[i], o) };
		shown(b, &one);
		for (j = 0; j < m && !same_site(&sites[j], &one); j++)
			;
		if (j == m) {
			sites[m++] = one;
			continue;
		}
		sites[j].calls += one.calls;
		sites[j].time_ns += one.time_ns;
	}
	qsort(sites, m, sizeof(*sites), cmp_site);
	return m;
}

/*
 * A site's calls as the section shows them: scaled up by the sampling,
 * at most the syscall's calls.
 */
static uint64_t shown_calls(const struct profile *p,
			    const struct profile_row *r, uint64_t calls)
{
	uint64_t scale = p->stack_sample > 1 ? p->stack_sample : 1;

	return calls * scale < r->calls ? calls * scale : r->calls;
}

/* One syscall: its line, then its top call sites. */
static void print_syscall(FILE *f, const struct profile *p,
			  const struct profile_breakdown *b,
			  const struct profile_sub **v, size_t n,
			  struct site *sites, const struct report_opts *o)
{
	const struct profile_row *r = &p->rows[v[0]->row];
	uint64_t scale = p->stack_sample > 1 ? p->stack_sample : 1, rest = 0;
	size_t i, k = o->top_sites ? o->top_sites : TOP_SITES;
	uint64_t scaled;
	char name[PROFILE_ROW_LABEL_MAX], calls[32];

	n = merge_sites(b, v, n, sites, o);
	fprintf(f, "%s  %s %s, %.6f s", profile_row_label(r, name,
								sizeof(name)),
		fmt_thousands(calls, sizeof(calls), r->calls),
		r->calls == 1 ? "call" : "calls",
		(double)row_time(r, o) / 1e9);
	if (scale > 1)
		fprintf(f, " (stacks of 1 call in %llu, scaled: ~%s)",
			(unsigned long long)scale,
			profile_sites_fast_sampled(p) ?
			"; time shared by calls" : "");
	fputc('\n', f);
	for (i = 0; i < n && i < k; i++) {
		scaled = shown_calls(p, r, sites[i].calls);
		fprintf(f, "  %5.1f%% %s%10s %-5s  %.6f s  ",
			r->calls ? 100.0 * (double)scaled / (double)r->calls :
				   0.0,
			scale > 1 ? "~" : " ",
			fmt_thousands(calls, sizeof(calls), scaled),
			scaled == 1 ? "call" : "calls",
			(double)profile_site_time(p, r, sites[i].calls,
						  sites[i].time_ns,
						  row_time(r, o)) / 1e9);
		print_frames(f, &sites[i]);
	}
	for (; i < n; i++)
		rest += sites[i].calls * scale;
	if (n > k)
		fprintf(f, "  (%zu more call site%s: %s call%s)\n", n - k,
			n - k == 1 ? "" : "s",
			fmt_thousands(calls, sizeof(calls), rest),
			rest == 1 ? "" : "s");
}

/*
 * Work first, most time first, then most calls: the syscalls worth a
 * list.  Calls that wait for others (futex in idle threads, a parent's
 * wait4) come after every call that works, however long they waited:
 * their time is another task's pace, not where this one's went.
 */
static int cmp_row(const void *pa, const void *pb, void *arg)
{
	const struct profile_row *a = *(const struct profile_row *const *)pa;
	const struct profile_row *b = *(const struct profile_row *const *)pb;
	uint64_t ta = row_time(a, arg), tb = row_time(b, arg);
	bool wa = profile_row_waits(a), wb = profile_row_waits(b);

	if (wa != wb)
		return wa ? 1 : -1;
	if (ta != tb)
		return ta < tb ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	return a < b ? -1 : a > b;
}

/* The rows with call sites, sorted; how many.  -1: no memory. */
static ssize_t site_rows(const struct profile *p,
			 const struct profile_breakdown *b,
			 const struct profile_row ***out,
			 const struct report_opts *o)
{
	const struct profile_row **rows = calloc(p->nrows, sizeof(*rows));
	bool *seen = calloc(p->nrows, sizeof(*seen));
	size_t i, n = 0;

	if (!rows || !seen) {
		free(rows);
		free(seen);
		return -1;
	}
	for (i = 0; i < b->nsubs; i++)
		if (!seen[b->subs[i].row]) {
			seen[b->subs[i].row] = true;
			rows[n++] = &p->rows[b->subs[i].row];
		}
	free(seen);
	qsort_r(rows, n, sizeof(*rows), cmp_row, (void *)o);
	*out = rows;
	return (ssize_t)n;
}

int callsites_render(FILE *f, const struct profile *p,
		     const struct report_opts *o)
{
	const struct profile_breakdown *b = profile_callsites(p);
	const struct profile_sub **v, **mine;
	const struct profile_row **rows;
	struct site *sites;
	ssize_t nrows = -1, r;
	size_t i, n;

	if (!b->nsubs)
		return 0;
	v = breakdown_subs(b);
	mine = malloc(b->nsubs * sizeof(*mine));
	sites = malloc(b->nsubs * sizeof(*sites));
	if (v && mine && sites)
		nrows = site_rows(p, b, &rows, o);
	if (nrows < 0) {
		free(v);
		free(mine);
		free(sites);
		return -1;
	}
	fprintf(f, "\nCall sites (-k): the top %u stacks of the syscalls with "
		"most time, calls that wait last\n",
		o->top_sites ? o->top_sites : TOP_SITES);
	for (r = 0; r < nrows && r < SYSCALLS_SHOWN; r++) {
		for (i = n = 0; i < b->nsubs; i++)
			if (&p->rows[v[i]->row] == rows[r])
				mine[n++] = v[i];
		print_syscall(f, p, b, mine, n, sites, o);
	}
	free(sites);
	free(rows);
	free(mine);
	free(v);
	return ferror(f) ? -1 : 0;
}

double callsites_dominant(const struct profile *p, const struct profile_row *r,
			  const struct report_opts *o, char **site)
{
	const struct profile_breakdown *b = profile_callsites(p);
	const struct profile_sub **v;
	struct site *sites;
	double share = 0;
	size_t i, n = 0;

	v = b->nsubs ? malloc(b->nsubs * sizeof(*v)) : NULL;
	sites = b->nsubs ? malloc(b->nsubs * sizeof(*sites)) : NULL;
	for (i = 0; v && sites && i < b->nsubs; i++) {
		if (&p->rows[b->subs[i].row] != r)
			continue;
		v[n++] = &b->subs[i];
	}
	*site = NULL;
	if (n && r->calls) {
		n = merge_sites(b, v, n, sites, o);
		*site = profile_callsite_string(sites[0].c, sites[0].from,
						sites[0].to, false);
		share = *site ? (double)shown_calls(p, r, sites[0].calls) /
				(double)r->calls : 0;
	}
	free(v);
	free(sites);
	return share;
}
