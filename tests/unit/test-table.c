// SPDX-License-Identifier: MIT
/*
 * Unit tests of the text table: a fixed, hand-built profile is rendered
 * into memory and compared with golden text in tests/fixtures/table-*.txt,
 * whose layout is strace -c's column for column; its cells agree with
 * one another as printed, and it reads back as it was.  Also the -S keys
 * (strace's names and aliases), the header line for every way a command
 * ends, and fmt_thousands.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include "render/render.h"
#include "tests/unit/tap.h"

struct fixed_row {
	const char *name;
	uint64_t calls, errors, time_ns, min_ns, max_ns;
};

/*
 * Times chosen so every sort key gives a different order: avg-time puts
 * execve first, min-time puts read first, calls ties read with write
 * (broken by name), errors puts openat over access.
 */
static const struct fixed_row fixed[] = {
	{ "read", 2003, 0, 40203000, 9000, 900000 },
	{ "write", 2003, 0, 45408000, 8000, 300000 },
	{ "openat", 35, 16, 1163000, 2000, 100000 },
	{ "close", 22, 0, 699000, 3000, 200000 },
	{ "execve", 1, 0, 265000, 265000, 265000 },
	{ "access", 1, 1, 14000, 14000, 14000 },
	{ "brk", 3, 0, 40000, 1000, 30000 },
	{ "mprotect", 3, 0, 40000, 7000, 20000 },
};
#define NFIXED (sizeof(fixed) / sizeof(fixed[0]))

static char *argv_dd[] = { "/usr/bin/dd", "if=/dev/zero", NULL };

static void fixed_profile(struct profile *p)
{
	struct profile_row *r;
	size_t i;

	profile_init(p);
	profile_set_command(p, 2, argv_dd);
	p->wall_ns = 2031000000;
	profile_set_exit(p, 0, 0);
	for (i = 0; i < NFIXED; i++) {
		r = profile_row_get(p, fixed[i].name);
		if (!r)
			continue;
		r->calls = r->timed = fixed[i].calls;
		r->errors = fixed[i].errors;
		r->time_ns = r->raw_time_ns = fixed[i].time_ns;
		r->min_ns = fixed[i].min_ns;
		r->max_ns = fixed[i].max_ns;
		if (r->errors)
			profile_row_add_errno(r, ENOENT, r->errors);
	}
}

static char *slurp(const char *name)
{
	const char *dir = getenv("FIXTURES");
	char path[512];
	char *buf = NULL;
	size_t size = 0;
	FILE *f, *m;
	int c;

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures",
		 name);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	m = open_memstream(&buf, &size);
	while (m && (c = getc(f)) != EOF)
		putc(c, m);
	fclose(f);
	if (m)
		fclose(m);
	return buf;
}

static char *render(const struct profile *p, const struct report_opts *o)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);
	int err;

	if (!m)
		return NULL;
	err = table_render(m, p, o);
	fclose(m);
	if (err < 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void check_golden(const struct profile *p, const struct report_opts *o,
			 const char *fixture)
{
	char *got = render(p, o), *want = slurp(fixture);

	ok(want != NULL, "fixture %s readable", fixture);
	is_str(got, want, "table matches %s", fixture);
	free(got);
	free(want);
}

static void test_sorts(void)
{
	static const struct {
		const char *key, *fixture;
	} sorts[] = {
		{ NULL, "table-default.txt" },
		{ "calls", "table-sort-calls.txt" },
		{ "errors", "table-sort-errors.txt" },
		{ "name", "table-sort-name.txt" },
		{ "avg-time", "table-sort-avg-time.txt" },
		{ "min-time", "table-sort-min-time.txt" },
		{ "max-time", "table-sort-max-time.txt" },
	};
	struct report_opts o = { 0 };
	struct profile p;
	size_t i;

	fixed_profile(&p);
	for (i = 0; i < sizeof(sorts) / sizeof(sorts[0]); i++) {
		o.sort = sorts[i].key ? column_find(sorts[i].key) : NULL;
		ok(!sorts[i].key || o.sort, "-S %s found", sorts[i].key);
		check_golden(&p, &o, sorts[i].fixture);
	}
	/* -S time is the default, spelled out. */
	o.sort = column_find("time");
	check_golden(&p, &o, "table-default.txt");
	profile_release(&p);
}

/* strace's -S words: each alias finds the column of its canonical key. */
static void test_column_find(void)
{
	static const struct {
		const char *alias, *key;
	} aliases[] = {
		{ "time", "time" },		{ "time-total", "time" },
		{ "total-time", "time" },	{ "time_total", "time" },
		{ "total_time", "time" },	{ "time-percent", "time" },
		{ "time_percent", "time" },	{ "calls", "calls" },
		{ "count", "calls" },		{ "errors", "errors" },
		{ "error", "errors" },		{ "name", "name" },
		{ "syscall", "name" },		{ "syscall-name", "name" },
		{ "syscall_name", "name" },	{ "avg-time", "avg-time" },
		{ "avg_time", "avg-time" },	{ "time-avg", "avg-time" },
		{ "time_avg", "avg-time" },	{ "min-time", "min-time" },
		{ "min_time", "min-time" },	{ "time-min", "min-time" },
		{ "time_min", "min-time" },	{ "shortest", "min-time" },
		{ "max-time", "max-time" },	{ "max_time", "max-time" },
		{ "time-max", "max-time" },	{ "time_max", "max-time" },
		{ "longest", "max-time" },
	};
	const struct column *c, *want;
	size_t i;

	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		c = column_find(aliases[i].alias);
		want = column_find(aliases[i].key);
		ok(c && want && c->cmp == want->cmp,
		   "-S %s sorts like %s", aliases[i].alias, aliases[i].key);
	}
	ok(column_find("bogus") == NULL, "-S bogus unknown");
	ok(column_find("Time") == NULL, "-S Time unknown (strace too)");
	ok(column_find("") == NULL, "-S '' unknown");
	ok(column_find("nothing") != NULL, "-S nothing");
	ok(column_find("none") != NULL, "-S none");
}

/* -S nothing keeps the rows in the order they were first seen. */
static void test_sort_nothing(void)
{
	struct report_opts o = { .sort = column_find("nothing") };
	const struct profile_row **rows;
	char name[PROFILE_NAME_MAX];
	struct profile p;
	size_t i, same = 0;

	fixed_profile(&p);
	rows = profile_sorted(&p, &o);
	ok(rows != NULL, "sorted rows");
	for (i = 0; rows && i < p.nrows; i++)
		same += !strcmp(profile_row_name(rows[i], name, sizeof(name)),
				fixed[i].name);
	is_int(same, NFIXED, "-S nothing keeps first-seen order");
	free(rows);
	profile_release(&p);
}

static char *header(const struct profile *p, const struct report_opts *o)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return NULL;
	header_render(m, p, o);
	fclose(m);
	return buf;
}

static void check_header(struct profile *p, int status, int fatal,
			 const char *want)
{
	char *got;

	profile_set_exit(p, status, fatal);
	got = header(p, NULL);
	is_str(got, want, "header for status %#x fatal %d", status, fatal);
	free(got);
}

/*
 * The first line: how the command ended, its traced wall in one unit,
 * its calls; with nothing to estimate the untraced run from (no cost
 * ingredients), no second line.  -v adds the traced share of the wall.
 */
static void test_headers(void)
{
	struct report_opts v = { .verbose = true };
	struct profile p;
	char *got;

	fixed_profile(&p);
	check_header(&p, 0, 0, "iotrace: dd exited 0 after 2.03 s traced; "
		     "4,071 syscalls\n");
	check_header(&p, 3 << 8, 0, "iotrace: dd exited 3 after 2.03 s "
		     "traced; 4,071 syscalls\n");
	check_header(&p, 255 << 8, 0, "iotrace: dd exited 255 after 2.03 s "
		     "traced; 4,071 syscalls\n");
	check_header(&p, SIGSEGV | 0x80, 0, "iotrace: dd killed by SIGSEGV "
		     "(core dumped) after 2.03 s traced; 4,071 syscalls\n");
	check_header(&p, SIGINT, 0, "iotrace: dd killed by SIGINT after "
		     "2.03 s traced; 4,071 syscalls\n");
	check_header(&p, SIGKILL, SIGTERM, "iotrace: dd killed by iotrace on "
		     "SIGTERM after 2.03 s traced; 4,071 syscalls\n");
	got = header(&p, &v);
	is_str(got, "iotrace: dd killed by iotrace on SIGTERM after 2.03 s "
	       "traced; 4,071 syscalls\niotrace: traced, syscalls took "
	       "0.088 s (4.3% of wall)\n", "-v: the traced share too");
	free(got);
	p.wall_ns = 250000000;
	check_header(&p, 0, 0, "iotrace: dd exited 0 after 250 ms traced; "
		     "4,071 syscalls\n");
	p.wall_ns = 0;
	check_header(&p, 0, 0, "iotrace: dd exited 0 after 0.000 ms traced; "
		     "4,071 syscalls\n");
	p.exit.known = false;
	p.source = "strace";
	got = header(&p, NULL);
	is_str(got, "strace: 4071 syscalls took 0.088 s (no wall time "
	       "recorded)\n", "header of a table without an ending");
	free(got);
	profile_release(&p);
}

/*
 * Count-only rows: '-' where nothing was measured, and a footnote; a row
 * partly timed (close: 22 of 24) is numbers, its usecs/call over the 24,
 * and a line after the table says so.
 */
static void test_count_only(void)
{
	struct report_opts o = { 0 };
	struct profile_row *r;
	struct profile p;

	fixed_profile(&p);
	r = profile_row_get(&p, "getpid");
	if (r)
		r->calls = 5;
	r = profile_row_get(&p, "close");
	if (r)
		r->calls += 2;	/* 22 timed, 2 more counted only */
	check_golden(&p, &o, "table-count-only.txt");
	profile_release(&p);
}

/*
 * The cells agree with one another as printed: each row's seconds
 * rounded to the microsecond, the total their sum (0.000427, not the
 * 0.000428 of 427.8 us), % time and usecs/call from them, usecs/call
 * over every call of a row (execve: 2 calls, 1 timed, 152 not 304) and
 * truncated as strace truncates it (write: 119.6 us is 0.000120 s and
 * 120 usecs/call, not 119).  A row timed as taking no time is numbers.
 */
static const struct {
	const char *name;
	uint64_t calls, timed, time_ns;
} rounding[] = {
	{ "execve", 2, 1, 304000 },	{ "write", 1, 1, 119600 },
	{ "brk", 1, 1, 1400 },		{ "mprotect", 1, 1, 1400 },
	{ "munmap", 1, 1, 1400 },	{ "rt_sigreturn", 2, 2, 0 },
};

static void rounding_profile(struct profile *p, uint64_t scale)
{
	struct profile_row *r;
	size_t i;

	profile_init(p);
	profile_set_command(p, 2, argv_dd);
	p->wall_ns = 2031000000;
	profile_set_exit(p, 0, 0);
	for (i = 0; i < sizeof(rounding) / sizeof(rounding[0]); i++) {
		r = profile_row_get(p, rounding[i].name);
		if (!r)
			continue;
		r->calls = rounding[i].calls;
		r->timed = rounding[i].timed;
		r->time_ns = r->raw_time_ns = rounding[i].time_ns / scale;
		r->min_ns = r->max_ns = r->time_ns / r->timed;
	}
}

static void test_rounding(void)
{
	struct report_opts o = { 0 };
	struct profile p;

	rounding_profile(&p, 1);
	check_golden(&p, &o, "table-rounding.txt");
	o.raw_time = true;
	check_golden(&p, &o, "table-rounding.txt");
	profile_release(&p);
	/* Nothing over half a microsecond: strace's 100.00 of no time. */
	rounding_profile(&p, 1000);
	o.raw_time = false;
	check_golden(&p, &o, "table-no-time.txt");
	profile_release(&p);
}

/* --count-only: nothing timed, "-" in the total too. */
static void test_all_counted(void)
{
	struct report_opts o = { 0 };
	struct profile_row *r;
	struct profile p;
	size_t i;

	fixed_profile(&p);
	for (i = 0; i < p.nrows; i++) {
		r = &p.rows[i];
		r->timed = r->errors = r->time_ns = r->raw_time_ns = 0;
	}
	check_golden(&p, &o, "table-all-counted.txt");
	profile_release(&p);
}

/* The strace -c table of a report: from its header to its total line. */
static char *table_of(char *text)
{
	char *start = text ? strstr(text, "% time") : NULL;
	char *end = start ? strstr(start, " total\n") : NULL;

	if (!end)
		return NULL;
	end[strlen(" total\n")] = '\0';
	return start;
}

/*
 * What the table printed reads back (iotrace report, diff) to the same
 * table: the seconds as printed, "-" as counted only, rows of equal
 * seconds in the same order.
 */
static void check_reads_back(const struct profile *p, const char *what)
{
	struct report_opts o = { 0 };
	char *first = render(p, &o), *again = NULL;
	struct load_error e = { 0, "" };
	struct profile q;

	profile_init(&q);
	if (ok(first && profile_from_strace_text(&q, first, strlen(first),
						 &e) == 0,
	       "%s: reads back (%lu: %s)", what, e.line, e.msg))
		again = render(&q, &o);
	is_str(table_of(again), table_of(first), "%s: the same table", what);
	free(first);
	free(again);
	profile_release(&q);
}

static void test_reads_back(void)
{
	struct profile_row *r;
	struct profile p;
	size_t i;

	fixed_profile(&p);
	check_reads_back(&p, "timed");
	r = profile_row_get(&p, "getpid");
	if (r)
		r->calls = 5;
	check_reads_back(&p, "-e count=getpid");
	for (i = 0; i < p.nrows; i++) {
		r = &p.rows[i];
		r->timed = r->errors = r->time_ns = r->raw_time_ns = 0;
	}
	check_reads_back(&p, "--count-only");
	profile_release(&p);
	rounding_profile(&p, 1);
	check_reads_back(&p, "rounded, execve partly timed");
	profile_release(&p);
}

static void test_thousands(void)
{
	static const struct {
		uint64_t n;
		const char *want;
	} cases[] = {
		{ 0, "0" }, { 7, "7" }, { 999, "999" }, { 1000, "1,000" },
		{ 12345, "12,345" }, { 999999, "999,999" },
		{ 1000000, "1,000,000" }, { 1234567890, "1,234,567,890" },
		{ UINT64_MAX, "18,446,744,073,709,551,615" },
	};
	char buf[32], small[4];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(fmt_thousands(buf, sizeof(buf), cases[i].n),
		       cases[i].want, "fmt_thousands %s", cases[i].want);
	/* A short buffer truncates but stays terminated. */
	fmt_thousands(small, sizeof(small), 1234567);
	is_int(strlen(small), 3, "short buffer: 3 characters and a NUL");
	is_str(small, "1,2", "short buffer keeps the leading digits");
}

int main(void)
{
	test_sorts();
	test_column_find();
	test_sort_nothing();
	test_headers();
	test_count_only();
	test_rounding();
	test_all_counted();
	test_reads_back();
	test_thousands();
	return done_testing();
}
