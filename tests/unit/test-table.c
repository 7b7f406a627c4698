// SPDX-License-Identifier: MIT
/*
 * Unit tests of the text table: a fixed, hand-built profile is rendered
 * into memory and compared with golden text in tests/fixtures/table-*.txt,
 * whose layout is strace -c's column for column.  Also the -S keys
 * (strace's names and aliases), the header line for every way a command
 * ends, and fmt_thousands.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include "reports/render/render.h"
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

static char *header(const struct profile *p)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return NULL;
	table_render_header(m, p, NULL);
	fclose(m);
	return buf;
}

static void check_header(struct profile *p, int status, int fatal,
			 const char *want)
{
	char *got;

	profile_set_exit(p, status, fatal);
	got = header(p);
	is_str(got, want, "header for status %#x fatal %d", status, fatal);
	free(got);
}

static void test_headers(void)
{
	struct profile p;

	fixed_profile(&p);
	check_header(&p, 0, 0, "iotrace: dd exited 0 after 2.031 s wall; "
		     "4071 syscalls took 0.088 s (4.3% of wall)\n");
	check_header(&p, 3 << 8, 0, "iotrace: dd exited 3 after 2.031 s "
		     "wall; 4071 syscalls took 0.088 s (4.3% of wall)\n");
	check_header(&p, 255 << 8, 0, "iotrace: dd exited 255 after 2.031 s "
		     "wall; 4071 syscalls took 0.088 s (4.3% of wall)\n");
	check_header(&p, SIGSEGV | 0x80, 0, "iotrace: dd killed by SIGSEGV "
		     "(core dumped) after 2.031 s wall; 4071 syscalls took "
		     "0.088 s (4.3% of wall)\n");
	check_header(&p, SIGINT, 0, "iotrace: dd killed by SIGINT after "
		     "2.031 s wall; 4071 syscalls took 0.088 s (4.3% of "
		     "wall)\n");
	check_header(&p, SIGKILL, SIGTERM, "iotrace: dd killed by iotrace on "
		     "SIGTERM after 2.031 s wall; 4071 syscalls took 0.088 s "
		     "(4.3% of wall)\n");
	p.wall_ns = 0;
	check_header(&p, 0, 0, "iotrace: dd exited 0 after 0.000 s wall; "
		     "4071 syscalls took 0.088 s\n");
	p.exit.known = false;
	p.source = "strace";
	{
		char *got = header(&p);

		is_str(got, "strace: 4071 syscalls took 0.088 s (no wall time "
		       "recorded)\n", "header of a table without an ending");
		free(got);
	}
	profile_release(&p);
}

/* Count-only rows: '-' where nothing was measured, and a footnote. */
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
	test_thousands();
	return done_testing();
}
