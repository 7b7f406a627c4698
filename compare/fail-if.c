// SPDX-License-Identifier: MIT
/*
 * --fail-if: thresholds on the change from BASE to NEW, for CI.
 *
 *	EXPR   := TERM { "," TERM }		any term trips the whole
 *	TERM   := [SYSCALL "."] METRIC OP VALUE
 *	METRIC := time | calls | errors | wall	(wall: totals only)
 *	OP     := > | >= | < | <=
 *	VALUE  := [+|-] NUMBER ( "%" | UNIT | "" )
 *	UNIT   := ns | us | ms | s		(time and wall only)
 *
 * "time>+10%" trips when NEW's total syscall time is more than 10% above
 * BASE's; "write.calls>100" when NEW makes more than 100 more write
 * calls; "wall<-5%" when NEW's wall time dropped by more than 5%.  A
 * percentage is of BASE's value; from 0 any growth is +inf%.  Times
 * need a unit or a %, so "time>5" cannot mean 5 ns by accident.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"

struct side {
	const struct profile *p;
	const struct profile_totals *t;
	const struct profile_row *r;	/* the syscall's row, or NULL */
};

static uint64_t get_time(const struct diff *d, const struct side *s)
{
	return s->r ? diff_time(d, s->r) : totals_time(s->t, d->o);
}

static uint64_t get_calls(const struct diff *d, const struct side *s)
{
	(void)d;
	return s->r ? s->r->calls : s->t->calls;
}

static uint64_t get_errors(const struct diff *d, const struct side *s)
{
	(void)d;
	return s->r ? s->r->errors : s->t->errors;
}

static uint64_t get_wall(const struct diff *d, const struct side *s)
{
	(void)d;
	return s->p->wall_ns;
}

static const struct metric {
	const char *name;
	bool is_time;		/* takes a unit; shown in seconds */
	bool per_syscall;	/* SYSCALL.METRIC allowed */
	uint64_t (*get)(const struct diff *d, const struct side *s);
} metrics[] = {
	{ "time", true, true, get_time },
	{ "calls", false, true, get_calls },
	{ "errors", false, true, get_errors },
	{ "wall", true, false, get_wall },
};

static const struct {
	const char *unit;
	double ns;
} units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

static int bad_term(char *bad, size_t size, const char *term, const char *why)
{
	snprintf(bad, size, "'%s': %s", term, why);
	return -EINVAL;
}

static int parse_left(struct fail_if_term *t, char *left, char *bad,
		      size_t size)
{
	char *dot = strchr(left, '.'), *m = dot ? dot + 1 : left;
	size_t i, len;
	int pers, nr;

	if (dot) {
		*dot = '\0';
		len = strlen(left);
		if (!len || len >= sizeof(t->syscall) ||
		    strspn(left, "abcdefghijklmnopqrstuvwxyz"
				 "0123456789_/") != len)
			return bad_term(bad, size, t->text, "not a syscall "
					"name before the '.'");
		memcpy(t->syscall, left, len + 1);
		/* A typo would otherwise compare two zeros forever. */
		if (syscall_lookup(t->syscall, &pers, &nr) < 0)
			return bad_term(bad, size, t->text, "unknown syscall");
	}
	for (i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		if (strcmp(metrics[i].name, m))
			continue;
		if (dot && !metrics[i].per_syscall)
			return bad_term(bad, size, t->text, "wall is a total, "
					"not per syscall");
		t->metric = (int)i;
		return 0;
	}
	return bad_term(bad, size, t->text, "metric must be time, calls, "
			"errors or wall");
}

/* "+10%", "-5ms", "100". */
static int parse_value(struct fail_if_term *t, const char *s, char *bad,
		       size_t size)
{
	bool is_time = metrics[t->metric].is_time;
	const char *digits = s + (*s == '+' || *s == '-');
	size_t n = strspn(digits, "0123456789."), i;
	char *end;

	/* Plain decimals only: strtod would take hex, inf and nan too. */
	t->value = strtod(s, &end);
	if (!n || end != digits + n || !isfinite(t->value))
		return bad_term(bad, size, t->text, "no decimal number after "
				"the operator");
	if (!strcmp(end, "%")) {
		t->percent = true;
		return 0;
	}
	for (i = 0; is_time && i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].unit)) {
			t->value *= units[i].ns;
			return 0;
		}
	}
	if (!*end && !is_time)
		return 0;
	return bad_term(bad, size, t->text, is_time ? "a time needs % or a "
			"unit: ns, us, ms, s" : "a count takes % or nothing");
}

static int parse_term(struct fail_if_term *t, char *s, char *bad,
		      size_t size)
{
	char *op = strpbrk(s, "<>"), *value;

	memset(t, 0, sizeof(*t));
	snprintf(t->text, sizeof(t->text), "%s", s);
	if (!op)
		return bad_term(bad, size, t->text,
				"no operator (>, >=, <, <=)");
	t->greater = *op == '>';
	value = op + 1;
	if (*value == '=') {
		t->or_equal = true;
		value++;
	}
	*op = '\0';
	if (parse_left(t, s, bad, size) < 0)
		return -EINVAL;
	return parse_value(t, value, bad, size);
}

int fail_if_parse(struct fail_if *f, const char *expr, char *bad,
		  size_t size)
{
	char *copy = strdup(expr), *term, *save, *c, *o;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (c = o = copy; *c; c++)	/* blanks are for readability */
		if (*c != ' ' && *c != '\t')
			*o++ = *c;
	*o = '\0';
	if (!*copy || *copy == ',' || o[-1] == ',' || strstr(copy, ",,"))
		err = bad_term(bad, size, expr, "an empty term");
	for (term = strtok_r(copy, ",", &save); term && !err;
	     term = strtok_r(NULL, ",", &save)) {
		if (f->n == FAIL_IF_MAX)
			err = bad_term(bad, size, term, "too many terms");
		else
			err = parse_term(&f->terms[f->n++], term, bad, size);
	}
	free(copy);
	return err;
}

/* A change as a sentence part: "+23.4% (0.100 s -> 0.123 s)". */
static void describe(char *buf, size_t size, const struct fail_if_term *t,
		     double change, uint64_t a, uint64_t b)
{
	const struct metric *m = &metrics[t->metric];
	char head[64];

	snprintf(head, sizeof(head), "%s%s%s", t->syscall,
		 *t->syscall ? "." : "", m->name);
	if (t->percent)
		snprintf(buf, size, "%s %+.1f%%", head, change);
	else if (m->is_time)
		snprintf(buf, size, "%s %+.6f s", head, change / 1e9);
	else
		snprintf(buf, size, "%s %+.0f", head, change);
	size -= strlen(buf);
	buf += strlen(buf);
	if (m->is_time)
		snprintf(buf, size, " (%.6f s -> %.6f s)", (double)a / 1e9,
			 (double)b / 1e9);
	else
		snprintf(buf, size, " (%llu -> %llu)", (unsigned long long)a,
			 (unsigned long long)b);
}

static bool trips(const struct fail_if_term *t, double change)
{
	if (t->greater)
		return t->or_equal ? change >= t->value : change > t->value;
	return t->or_equal ? change <= t->value : change < t->value;
}

int fail_if_eval(const struct fail_if *f, size_t i, const struct diff *d,
		 char *what, size_t size)
{
	const struct fail_if_term *t = &f->terms[i];
	const struct metric *m = &metrics[t->metric];
	struct side sa = { d->base, &d->tbase, NULL };
	struct side sb = { d->new, &d->tnew, NULL };
	uint64_t a, b;
	double change;

	if (m->get == get_wall && (!d->base->exit.known ||
				   !d->new->exit.known)) {
		snprintf(what, size, "wall: an strace table has no wall time");
		return -EINVAL;
	}
	if (*t->syscall) {
		sa.r = profile_row_find(d->base, t->syscall);
		sb.r = profile_row_find(d->new, t->syscall);
	}
	/* An absent syscall made 0 calls in 0 s. */
	a = *t->syscall && !sa.r ? 0 : m->get(d, &sa);
	b = *t->syscall && !sb.r ? 0 : m->get(d, &sb);
	if (t->percent)
		change = a ? 100.0 * ((double)b - (double)a) / (double)a
			   : b ? INFINITY : 0;
	else
		change = (double)b - (double)a;
	describe(what, size, t, change, a, b);
	return trips(t, change);
}
