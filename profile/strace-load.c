// SPDX-License-Identifier: MIT
/*
 * Reading a saved `strace -c` table into a profile, so old strace
 * captures can be diffed against iotrace runs.  The table may end a longer
 * log (strace -C, or a -o file with the trace before it): the file is read
 * line by line in constant memory and the last complete table wins.
 * Columns are found by their header words, so strace's default six, the
 * -U selections of strace >= 5.18 (shortest, longest, any order) and
 * varying widths and dash lengths all read the same way.  A blank errors
 * cell (no errors) is the one cell strace leaves empty in a row.  The
 * tables strace prints after the native one, under "System call usage
 * summary for 32 bit mode:" (or "x32 mode:"), are read with it, into the
 * rows of that personality: i386's write is a row apart.  A name with a
 * personality after a slash ("write/i386", as iotrace's own table shows
 * it) is read as that personality's.  iotrace's own tables read too:
 * "-" in a time or errors cell is a row counted only (-e count=,
 * --count-only), its calls not timed, its errors not known.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/profile-int.h"

enum cell { C_PERCENT, C_SECONDS, C_AVG, C_CALLS, C_ERRORS, C_NAME,
	    C_MIN, C_MAX };

/* strace's header words; "% time" arrives as two words. */
static const struct {
	const char *word;
	enum cell cell;
} headers[] = {
	{ "%", C_PERCENT },		{ "seconds", C_SECONDS },
	{ "usecs/call", C_AVG },	{ "calls", C_CALLS },
	{ "errors", C_ERRORS },		{ "syscall", C_NAME },
	{ "shortest", C_MIN },		{ "longest", C_MAX },
};

#define MAX_CELLS 8
#define LABEL "System call usage summary for "

enum state { SEEK, RULE, ROWS, TOTAL };

/* strace's words for its personalities, and this build's names. */
static const struct {
	const char *mode, *pers;
} modes[] = {
	{ "64 bit", "x86_64" }, { "32 bit", "i386" }, { "x32", "x32" },
};

/* A row as read: the counters, and the name still to be looked up. */
struct cells {
	struct profile_row r;
	char name[PROFILE_NAME_MAX];
	bool untimed;		/* "-" seconds: counted only */
};

struct sload {
	struct profile *p;
	struct load_error *e;
	unsigned long line;
	enum state state;
	enum cell cells[MAX_CELLS];
	int ncells, errors_at;	/* errors_at: index of C_ERRORS or -1 */
	bool complete;		/* a whole table has been read */
	bool adjacent;		/* ... and only blank lines since */
	bool merge;		/* the next table continues the last one */
	int pers;		/* the table's personality; -1: by name */
	int next_pers;		/* what a label said of the next table */
	uint64_t calls;		/* sum of this table's rows */
	unsigned long total_line;	/* of the last table's total row */
};

/*
 * Splits line into words.  tok holds max + 1 of them: a return of max + 1
 * means "more than max", and only tok[0..max] are set.
 */
static int split(char *line, char **tok, int max)
{
	int n = 0;
	char *save, *t;

	for (t = strtok_r(line, " \t\r", &save); t;
	     t = strtok_r(NULL, " \t\r", &save)) {
		tok[n++] = t;
		if (n > max)
			break;
	}
	return n;
}

static int header_cell(const char *word)
{
	size_t i;

	for (i = 0; i < sizeof(headers) / sizeof(headers[0]); i++)
		if (!strcmp(word, headers[i].word))
			return (int)headers[i].cell;
	return -1;
}

/* A header names known columns only, calls and syscall among them. */
static bool parse_header(struct sload *s, char **tok, int n)
{
	int i, c, have = 0;

	s->ncells = 0;
	s->errors_at = -1;
	for (i = 0; i < n && n <= MAX_CELLS + 1; i++) {
		c = header_cell(tok[i]);
		if (c < 0 || s->ncells == MAX_CELLS)
			return false;
		if (c == C_PERCENT && (i + 1 == n || strcmp(tok[++i], "time")))
			return false;
		if (c == C_ERRORS)
			s->errors_at = s->ncells;
		have |= 1 << c;
		s->cells[s->ncells++] = (enum cell)c;
	}
	return (have & (1 << C_CALLS)) && (have & (1 << C_NAME));
}

static bool is_rule(char **tok, int n, int want)
{
	int i;

	if (n != want)
		return false;
	for (i = 0; i < n; i++)
		if (strspn(tok[i], "-") != strlen(tok[i]))
			return false;
	return true;
}

static int parse_u64(struct sload *s, const char *t, uint64_t *out)
{
	uint64_t v = 0;

	if (!*t)
		return load_fail(s->e, s->line, "empty number");
	for (; *t; t++) {
		if (!isdigit((unsigned char)*t))
			return load_fail(s->e, s->line, "'%.20s' is not a "
					 "count", t);
		if (v > (UINT64_MAX - (uint64_t)(*t - '0')) / 10)
			return load_fail(s->e, s->line, "number too large");
		v = v * 10 + (uint64_t)(*t - '0');
	}
	*out = v;
	return 0;
}

/* "0.015228" -> 15228000 ns, exactly: decimal digits, no float. */
static int parse_seconds(struct sload *s, const char *t, uint64_t *ns)
{
	const char *dot = strchr(t, '.');
	char whole[24], frac[10] = "000000000";
	uint64_t w, f;
	size_t wl = dot ? (size_t)(dot - t) : strlen(t);
	size_t fl = dot ? strlen(dot + 1) : 0;

	if (!wl || wl >= sizeof(whole) || fl > 9 || (dot && !fl))
		return load_fail(s->e, s->line, "'%.20s' is not a time in "
				 "seconds", t);
	memcpy(whole, t, wl);
	whole[wl] = '\0';
	if (dot)
		memcpy(frac, dot + 1, fl);
	if (parse_u64(s, whole, &w) < 0 || parse_u64(s, frac, &f) < 0)
		return -1;
	if (w > UINT64_MAX / 1000000000u - 1)
		return load_fail(s->e, s->line, "time too large");
	*ns = w * 1000000000u + f;
	return 0;
}

/* Percent and usecs/call are derived: checked for shape, not kept. */
static int parse_derived(struct sload *s, const char *t)
{
	if (strspn(t, "0123456789.") != strlen(t) ||
	    !isdigit((unsigned char)*t))
		return load_fail(s->e, s->line, "'%.20s' is not a number", t);
	return 0;
}

/* A '-' inside a name: iotrace's syscall_-1 (a call made with nr -1). */
static int parse_name(struct sload *s, const char *t, char *name)
{
	size_t len = strlen(t);

	if (len >= PROFILE_NAME_MAX || *t == '-' ||
	    strspn(t, "abcdefghijklmnopqrstuvwxyz"
		      "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_/-") != len)
		return load_fail(s->e, s->line, "'%.40s' is not a syscall "
				 "name", t);
	memcpy(name, t, len + 1);
	return 0;
}

/* "-": nothing measured; only a count cannot be that. */
static int parse_cell(struct sload *s, enum cell c, const char *t,
		      struct cells *row)
{
	struct profile_row *r = &row->r;

	if (!strcmp(t, "-") && c != C_CALLS && c != C_NAME) {
		row->untimed |= c == C_SECONDS;
		return 0;
	}
	switch (c) {
	case C_SECONDS:
		return parse_seconds(s, t, &r->time_ns);
	case C_CALLS:
		return parse_u64(s, t, &r->calls);
	case C_ERRORS:
		return parse_u64(s, t, &r->errors);
	case C_NAME:
		return parse_name(s, t, row->name);
	case C_MIN:
		return parse_seconds(s, t, &r->min_ns);
	case C_MAX:
		return parse_seconds(s, t, &r->max_ns);
	case C_PERCENT:
	case C_AVG:
		break;
	}
	return parse_derived(s, t);
}

/* Cells by header; with one cell short, the blank one is errors. */
static int parse_cells(struct sload *s, char **tok, int n,
		       struct cells *r)
{
	int i, t = 0;
	bool blank = n == s->ncells - 1 && s->errors_at >= 0;

	if (n != s->ncells && !blank)
		return load_fail(s->e, s->line, "a row of %d cells in a table "
				 "of %d columns", n, s->ncells);
	memset(r, 0, sizeof(*r));
	for (i = 0; i < s->ncells; i++) {
		if (blank && i == s->errors_at)
			continue;
		if (parse_cell(s, s->cells[i], tok[t++], r) < 0)
			return -1;
	}
	if (r->r.errors > r->r.calls)
		return load_fail(s->e, s->line, "more errors than calls");
	return 0;
}

/* A sum of the rows past PROFILE_SUM_MAX, as sums.c words it. */
static int sums_fail(struct sload *s, const struct profile_overflow *o)
{
	char what[160];

	profile_overflow_text(s->p, o, what, sizeof(what));
	return load_fail(s->e, s->line, "%s", what);
}

/*
 * strace times every call it counts: timed is calls, but in a row
 * counted only ("-" seconds).  A name that says its personality is that
 * one's; others are the table's.
 */
static int add_row(struct sload *s, const struct cells *row)
{
	const struct profile_row *in = &row->r;
	int pers = strchr(row->name, '/') ? -1 : s->pers;
	struct profile_row *r = profile_row_get_in(s->p, pers, row->name);
	bool first;

	if (!r)
		return load_fail(s->e, s->line, "out of memory");
	first = !r->timed;
	if (r->calls > UINT64_MAX - in->calls ||
	    r->time_ns > UINT64_MAX - in->time_ns)
		return load_fail(s->e, s->line, "number too large");
	if (in->calls > PROFILE_SUM_MAX - s->calls)
		return sums_fail(s, &(struct profile_overflow){
			.counter = "calls" });
	r->calls += in->calls;
	r->errors += in->errors;
	r->timed += row->untimed ? 0 : in->calls;
	r->time_ns += in->time_ns;
	r->raw_time_ns += in->time_ns;
	if (first || in->min_ns < r->min_ns)
		r->min_ns = in->min_ns;
	if (in->max_ns > r->max_ns)
		r->max_ns = in->max_ns;
	if (!r->timed)
		r->min_ns = UINT64_MAX;
	s->calls += in->calls;
	return 0;
}

static int on_row(struct sload *s, char **tok, int n)
{
	struct cells r;

	if (parse_cells(s, tok, n, &r) < 0)
		return -1;
	if (!strcmp(r.name, "total"))
		return load_fail(s->e, s->line, "total line before the rule");
	return add_row(s, &r);
}

static bool has_total(char **tok, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(tok[i], "total"))
			return true;
	return false;
}

/*
 * The total row closes a table.  With every cell present its calls must
 * be the rows' sum; strace 4 left usecs/call blank here, so a short total
 * row is only recognized.
 */
static int on_total(struct sload *s, char **tok, int n)
{
	struct cells r;

	if (!has_total(tok, n))
		return load_fail(s->e, s->line, "no total line after the "
				 "table's closing rule");
	if (n == s->ncells) {
		if (parse_cells(s, tok, n, &r) < 0)
			return -1;
		if (strcmp(r.name, "total"))
			return load_fail(s->e, s->line, "no total line after "
					 "the table's closing rule");
		if (r.r.calls != s->calls)
			return load_fail(s->e, s->line, "total of %llu calls, "
					 "but the rows add up to %llu",
					 (unsigned long long)r.r.calls,
					 (unsigned long long)s->calls);
	}
	s->complete = true;
	s->adjacent = true;
	s->state = SEEK;
	s->total_line = s->line;
	return 0;
}

static bool is_label(const char *line)
{
	return !strncmp(line, LABEL, strlen(LABEL));
}

/* "... for 32 bit mode:": the personality, -1 if this build lacks it. */
static int label_pers(const char *line)
{
	const char *mode = line + strlen(LABEL);
	size_t i, len;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		len = strlen(modes[i].mode);
		if (!strncmp(mode, modes[i].mode, len) &&
		    !strncmp(mode + len, " mode:", 6))
			return syscall_pers_find(modes[i].pers);
	}
	return -1;
}

/* A new table replaces what was read, unless it continues the last. */
static void start_table(struct sload *s)
{
	if (!s->merge)
		profile_rows_clear(s->p);
	s->pers = s->next_pers;
	s->next_pers = -1;
	s->merge = false;
	s->complete = false;
	s->calls = 0;
	s->state = ROWS;
}

/* Outside a table: a header starts one; a label may chain two. */
static void on_seek(struct sload *s, char *line, bool bad)
{
	char *tok[MAX_CELLS + 2];
	int n;

	if (!bad && is_label(line)) {
		s->merge = s->adjacent;
		s->adjacent = false;
		s->next_pers = label_pers(line);
		return;
	}
	n = bad ? 0 : split(line, tok, MAX_CELLS + 1);
	if (!bad && !n)
		return;	/* blank lines neither chain nor break chains */
	s->adjacent = false;
	if (n && parse_header(s, tok, n)) {
		s->state = RULE;
		return;
	}
	s->merge = false;
	s->next_pers = -1;
}

static int on_line(struct sload *s, char *line, size_t len, bool too_long)
{
	bool bad = too_long || memchr(line, '\0', len);
	char *tok[MAX_CELLS + 2];
	int n;

	if (s->state == SEEK) {
		on_seek(s, line, bad);
		return 0;
	}
	if (bad)
		return load_fail(s->e, s->line, "%s", too_long ?
				 "line too long for an strace table" :
				 "NUL byte in the table");
	n = split(line, tok, MAX_CELLS + 1);
	switch (s->state) {
	case RULE:
		if (is_rule(tok, n, s->ncells)) {
			start_table(s);
		} else {
			s->state = SEEK;
			s->merge = false;
		}
		return 0;
	case ROWS:
		if (!n)
			return load_fail(s->e, s->line, "blank line inside the "
					 "table");
		if (is_rule(tok, n, s->ncells)) {
			s->state = TOTAL;
			return 0;
		}
		return on_row(s, tok, n);
	default:
		return on_total(s, tok, n);
	}
}

/*
 * One line without its '\n'; the rest of a line past size is dropped.
 * *left is what may still be read of the file: past it, -2.
 */
static long read_line(FILE *f, char *buf, size_t size, bool *too_long,
		      size_t *left)
{
	size_t n = 0;
	int c;

	*too_long = false;
	while ((c = getc_unlocked(f)) != EOF) {
		if (!(*left)--)
			return -2;
		if (c == '\n')
			break;
		if (n + 1 < size)
			buf[n++] = (char)c;
		else
			*too_long = true;
	}
	if (c == EOF && !n && !*too_long)
		return -1;
	buf[n] = '\0';
	return (long)n;
}

static int read_tables(struct sload *s, FILE *f)
{
	char buf[LOAD_LINE_MAX + 1];
	size_t left = LOAD_TEXT_MAX;
	bool too_long;
	long len;

	while ((len = read_line(f, buf, sizeof(buf), &too_long, &left)) >= 0) {
		s->line++;
		if (on_line(s, buf, (size_t)len, too_long) < 0)
			return -1;
	}
	if (len == -2)
		return load_fail(s->e, s->line + 1, "larger than %u MiB: not "
				 "an strace log", LOAD_TEXT_MAX >> 20);
	if (ferror(f))
		return load_fail(s->e, s->line, "read error");
	if (s->state == ROWS || s->state == TOTAL)
		return load_fail(s->e, s->line, "the table ends before its "
				 "total line");
	if (!s->complete)
		return load_fail(s->e, s->line ? s->line : 1, "no strace -c "
				 "table found (and not an iotrace profile)");
	return 0;
}

/*
 * A table's calls are checked as its rows add up (add_row); what the
 * rows hold in the end (times, tables merged by a label) is checked
 * whole, at the last total row: the sum a table would print there.
 */
static int check_sums(struct sload *s)
{
	struct profile_overflow o;

	if (profile_check_sums(s->p, &o) == 0)
		return 0;
	s->line = s->total_line;
	return sums_fail(s, &o);
}

int profile_from_strace_at(struct profile *p, FILE *f, unsigned long first_line,
			   struct load_error *e)
{
	struct sload s = { .p = p, .e = e, .line = first_line - 1,
			   .pers = -1, .next_pers = -1 };

	/* Nothing of this machine's describes the strace run. */
	p->kernel[0] = '\0';
	p->ncpus = 0;
	p->start_time = 0;
	p->source = "strace";
	p->exit.known = false;
	if (read_tables(&s, f) < 0 || check_sums(&s) < 0) {
		profile_release(p);
		return -1;
	}
	return 0;
}

int profile_from_strace_text(struct profile *p, const char *text,
			     size_t len, struct load_error *e)
{
	FILE *f;
	int err;

	if (!len)
		return load_fail(e, 1, "no strace -c table found (and not an "
				 "iotrace profile)");
	f = fmemopen((void *)text, len, "r");
	if (!f)
		return load_fail(e, 1, "%s", strerror(errno));
	err = profile_from_strace_at(p, f, 1, e);
	fclose(f);
	return err;
}
