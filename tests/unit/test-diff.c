// SPDX-License-Identifier: MIT
/*
 * Comparing runs: rows paired by personality and name and marked when in
 * one run only, ordering by the change, the headline's wording and chosen
 * syscall, the per-file sub-rows whose counts changed (paired by key, not
 * index), and
 * the --fail-if grammar (what parses, what trips, what is refused).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "compare/compare.h"
#include "tap.h"
#include "profile-fixtures.h"

static void row(struct profile *p, const char *name, uint64_t calls,
		uint64_t ns)
{
	struct profile_row *r = profile_row_get(p, name);

	r->calls = r->timed = calls;
	r->time_ns = r->raw_time_ns = ns;
	r->min_ns = r->max_ns = calls ? ns / calls : 0;
}

/* BASE: dd bs=1 count=1000000; NEW: bs=8192, shaped like issue 4's. */
static void runs(struct profile *a, struct profile *b)
{
	profile_init(a);
	profile_init(b);
	a->exit.known = b->exit.known = true;
	a->wall_ns = 2000000000;
	b->wall_ns = 1000000000;
	row(a, "write", 1000000, 479000000);
	row(a, "read", 1000000, 90000000);
	row(a, "openat", 10, 10000000);
	row(a, "brk", 3, 3000);
	row(b, "write", 123, 41000000);
	row(b, "read", 123, 90000000);
	row(b, "openat", 10, 10000000);
	row(b, "mmap", 5, 10000);
}

static void test_table(void)
{
	struct report_opts o = { .format = FMT_TABLE };
	struct profile a, b;
	struct diff d;
	char line[256];

	runs(&a, &b);
	is_int(diff_build(&d, &a, &b, &o), 0, "diff builds");
	is_int(d.nrows, 5, "one row per syscall in either run");
	is_str(d.rows[0].name, "write", "largest change in time first");
	is_str(d.rows[1].name, "mmap", "then 10 us gained");
	is_str(d.rows[2].name, "brk", "then 3 us lost");
	ok(!d.rows[1].base && d.rows[1].new, "mmap only in NEW");
	ok(d.rows[2].base && !d.rows[2].new, "brk only in BASE");
	diff_headline(&d, line, sizeof(line));
	is_str(line, "NEW spends 4.1x less time in syscalls (0.579 s -> "
	       "0.141 s, one run each): write calls 1,000,000 -> 123", "headline");
	is_int(diff_sort(&d, "calls"), 0, "-S calls");
	ok(!strcmp(d.rows[0].name, "read") && !strcmp(d.rows[1].name,
	   "write"), "by change in calls, ties by name");
	is_int(diff_sort(&d, "name"), 0, "-S name");
	is_str(d.rows[0].name, "brk", "by name");
	is_int(diff_sort(&d, "max-time"), -EINVAL, "unknown key refused");
	diff_release(&d);
	is_int(diff_build(&d, &b, &a, &o), 0, "reversed");
	diff_headline(&d, line, sizeof(line));
	is_str(line, "NEW spends 4.1x more time in syscalls (0.141 s -> "
	       "0.579 s, one run each): write calls 123 -> 1,000,000", "reversed headline");
	diff_release(&d);
	is_int(diff_build(&d, &a, &a, &o), 0, "same run");
	diff_headline(&d, line, sizeof(line));
	is_str(line, "NEW spends the same time in syscalls (0.579 s -> "
	       "0.579 s, one run each)", "no change, no culprit");
	diff_release(&d);
	profile_release(&a);
	profile_release(&b);
}

/*
 * bs=1130 against bs=1024 with 2 us of stop-cost resolution: 0.4 ms of
 * difference over ~4,000 timed calls a run is noise, and said to be.
 */
static void test_resolution(void)
{
	struct report_opts o = { .format = FMT_TABLE };
	struct profile a, b;
	struct diff d;
	char line[256];

	profile_init(&a);
	profile_init(&b);
	row(&a, "write", 2000, 1000000);
	row(&a, "read", 2000, 800000);
	row(&b, "write", 2000, 700000);
	row(&b, "read", 2001, 700000);
	a.cost.known = b.cost.known = true;
	a.wall_ns = b.wall_ns = 100000000;
	a.overhead_ns = b.overhead_ns = 10000;
	a.cost.overhead_lo_ns = b.cost.overhead_lo_ns = 9000;
	a.cost.overhead_hi_ns = b.cost.overhead_hi_ns = 12000;
	is_int(diff_build(&d, &a, &b, &o), 0, "diff builds");
	diff_headline(&d, line, sizeof(line));
	is_str(line, "NEW and BASE differ in time in syscalls (1.800 ms -> "
	       "1.400 ms, one run each) by less than the resolution of the stop-cost "
	       "correction (+-16.002 ms): not ranked", "not ranked");
	diff_release(&d);
	o.raw_time = true;
	is_int(diff_build(&d, &a, &b, &o), 0, "raw times");
	diff_headline(&d, line, sizeof(line));
	ok(!strncmp(line, "NEW spends 22.2% less time", 26),
	   "--raw-time: ranked as measured (%s)", line);
	diff_release(&d);
	profile_release(&a);
	profile_release(&b);
}

/* A run's rows: name, calls, time; ended by a NULL name. */
struct rowspec {
	const char *name;
	uint64_t calls, ns;
};

static void rows_of(struct profile *p, const struct rowspec *r)
{
	profile_init(p);
	for (; r->name; r++)
		row(p, r->name, r->calls, r->ns);
}

/* The headline of BASE a -> NEW b, in line. */
static void headline_of(const struct profile *a, const struct profile *b,
			char *line, size_t size)
{
	struct report_opts o = { .format = FMT_TABLE };
	struct diff d;

	diff_build(&d, a, b, &o);
	diff_headline(&d, line, size);
	diff_release(&d);
}

/* strace's default tables are CPU time, often all 0: calls decide. */
static void test_zero_times(void)
{
	static const struct rowspec base[] = {
		{ "read", 8, 0 }, { "openat", 35, 0 }, { NULL, 0, 0 } };
	static const struct rowspec new[] = {
		{ "read", 8, 0 }, { "openat", 2, 0 }, { NULL, 0, 0 } };
	struct profile a, b;
	char line[256];

	rows_of(&a, base);
	rows_of(&b, new);
	headline_of(&a, &b, line, sizeof(line));
	is_str(line, "NEW spends the same time in syscalls (0.0 us -> 0.0 us, "
	       "one run each): openat calls 35 -> 2", "zero times: the change in calls");
	profile_release(&a);
	profile_release(&b);
}

/*
 * One close preempted for 8 ms in BASE (a busy machine) moves the time
 * most; the 1,000 writes that became 1 are still said.
 */
static void test_calls_beside_time(void)
{
	static const struct rowspec base[] = {
		{ "close", 1, 8094000 }, { "write", 1000, 1405000 },
		{ "openat", 1, 856000 }, { NULL, 0, 0 } };
	static const struct rowspec new[] = {
		{ "close", 1, 72000 }, { "write", 1, 25000 },
		{ "openat", 1, 1348000 }, { NULL, 0, 0 } };
	struct profile a, b;
	char line[512];

	rows_of(&a, base);
	rows_of(&b, new);
	headline_of(&a, &b, line, sizeof(line));
	is_str(line, "NEW spends 7.2x less time in syscalls (10.355 ms -> "
	       "1.445 ms, one run each): close time 8.094 ms -> 0.072 ms (calls "
	       "unchanged); write calls 1,000 -> 1", "calls beside time");
	a.cost.known = b.cost.known = true;
	a.cost.overhead_lo_ns = b.cost.overhead_lo_ns = 0;
	a.cost.overhead_hi_ns = b.cost.overhead_hi_ns = 20000;
	a.overhead_ns = b.overhead_ns = 10000;
	a.wall_ns = b.wall_ns = 100000000;
	headline_of(&a, &b, line, sizeof(line));
	ok(strstr(line, "not ranked: write calls 1,000 -> 1") &&
	   !strstr(line, "close"),
	   "within the resolution: the calls alone (%s)", line);
	profile_release(&a);
	profile_release(&b);
}

/*
 * A percentage is of BASE, whichever way the run moved: 0.458 s ->
 * 0.271 s is 40.8% less (not 69.0%, which is of NEW), and back 69.0%
 * more; calls alike.  2x or more apart, the ratio is said instead.
 */
static void test_percent_of_base(void)
{
	static const struct rowspec slow[] = {
		{ "write", 1000, 458000000 }, { NULL, 0, 0 } };
	static const struct rowspec fast[] = {
		{ "write", 1000, 271000000 }, { NULL, 0, 0 } };
	static const struct rowspec many[] = {
		{ "write", 1000, 1000 }, { NULL, 0, 0 } };
	static const struct rowspec fewer[] = {
		{ "write", 600, 1000 }, { NULL, 0, 0 } };
	struct profile a, b, c, d;
	char line[256];

	rows_of(&a, slow);
	rows_of(&b, fast);
	headline_of(&a, &b, line, sizeof(line));
	is_str(line, "NEW spends 40.8% less time in syscalls (0.458 s -> "
	       "0.271 s, one run each): write time 0.458 s -> 0.271 s (calls "
	       "unchanged)",
	       "less: of BASE");
	headline_of(&b, &a, line, sizeof(line));
	is_str(line, "NEW spends 69.0% more time in syscalls (0.271 s -> "
	       "0.458 s, one run each): write time 0.271 s -> 0.458 s (calls "
	       "unchanged)",
	       "more: of BASE");
	rows_of(&c, many);
	rows_of(&d, fewer);
	c.rows[0].timed = d.rows[0].timed = 0;
	headline_of(&c, &d, line, sizeof(line));
	ok(!strncmp(line, "NEW makes 40.0% fewer syscalls (1,000 -> 600)", 45),
	   "fewer: of BASE (%s)", line);
	headline_of(&d, &c, line, sizeof(line));
	ok(!strncmp(line, "NEW makes 66.7% more syscalls (600 -> 1,000)", 44),
	   "more calls: of BASE (%s)", line);
	profile_release(&a);
	profile_release(&b);
	profile_release(&c);
	profile_release(&d);
}

/*
 * Issue 22: a Java run's idle threads in futex led the headline ("52.2x
 * less time in syscalls (43.675 s -> 0.837 s): futex calls 809 -> 570")
 * while its writes were the work.  The headline ranks the work, then
 * says the waits apart, with the threads that waited; the table keeps
 * every row.
 */
static void test_waits_apart(void)
{
	static const struct rowspec base[] = {
		{ "futex", 809, 43000000000ull }, { "write", 1000000,
		600000000 }, { "poll", 12, 75000000 }, { "openat", 40,
		2000000 }, { NULL, 0, 0 } };
	static const struct rowspec new[] = {
		{ "futex", 570, 800000000 }, { "write", 123, 30000000 },
		{ "openat", 40, 2000000 }, { NULL, 0, 0 } };
	static const struct rowspec sleeps[] = {
		{ "nanosleep", 3, 300000000 }, { NULL, 0, 0 } };
	struct report_opts o = { .format = FMT_TABLE };
	struct profile a, b, c;
	struct diff d;
	char line[512];

	rows_of(&a, base);
	rows_of(&b, new);
	a.wait_tasks = 19;
	b.wait_tasks = 12;
	headline_of(&a, &b, line, sizeof(line));
	is_str(line, "NEW spends 18.8x less time in syscalls (0.602 s -> "
	       "0.032 s, one run each): write calls 1,000,000 -> 123; waits "
	       "43.075 s -> 0.800 s in 19 -> 12 threads",
	       "the work ranked, the waits apart");
	diff_build(&d, &a, &b, &o);
	is_str(d.rows[0].name, "futex", "the table keeps futex, first by "
	       "its change in time");
	is_int(d.nrows, 4, "and every row");
	diff_release(&d);
	b.wait_tasks = 0;
	headline_of(&a, &b, line, sizeof(line));
	ok(strstr(line, "; waits 43.075 s -> 0.800 s") &&
	   !strstr(line, "threads"), "no count of threads where a run has "
	   "none (%s)", line);
	a.rows[0].timed = 0;
	headline_of(&a, &b, line, sizeof(line));
	ok(strstr(line, "; waits 821 -> 570 calls"), "waits not timed in a "
	   "run: their calls (%s)", line);
	a.rows[0].timed = a.rows[0].calls;
	a.rows[0].time_ns = a.rows[0].raw_time_ns = 0;
	a.rows[2].time_ns = a.rows[2].raw_time_ns = 0;
	b.rows[0].time_ns = b.rows[0].raw_time_ns = 0;
	headline_of(&a, &b, line, sizeof(line));
	ok(!strstr(line, "waits"), "waits of no time in both (strace's CPU "
	   "times): nothing said (%s)", line);
	rows_of(&c, sleeps);
	headline_of(&c, &c, line, sizeof(line));
	is_str(line, "NEW spends the same time in syscalls (0.300 s -> 0.300 "
	       "s, one run each)", "only waits: they are what is ranked");
	profile_release(&a);
	profile_release(&b);
	profile_release(&c);
}

/* Each expression against BASE -> NEW of runs(): 1 trips, 0 not. */
static const struct {
	const char *expr;
	int want;
} exprs[] = {
	{ "time>+10%", 0 },		{ "time<-10%", 1 },
	{ "time <= -75%", 1 },		{ "time<-80%", 0 },
	{ "calls>+5%", 0 },		{ "calls<-99%", 1 },
	{ "write.calls<-999000", 1 },	{ "write.calls>0", 0 },
	{ "mmap.calls>4", 1 },		{ "mmap.calls>+1000%", 1 },
	{ "brk.time<-2us", 1 },		{ "brk.time<-4us", 0 },
	{ "read.time>=0%", 1 },		{ "wall<-49%", 1 },
	{ "wall>1s", 0 },		{ "errors>0", 0 },
	{ "time>1ms,calls<-1", 1 },
};

static const char *const bad_exprs[] = {
	"", "time", "time>", "time>10", "speed>1%", "wall.calls>1",
	"write.wall>1s", "time>0x10%", "time>inf%", "time>1e3%",
	"calls>5ms", "time>5parsecs", "time>>5%", "Write.calls>1",
	"time>5%,", ",", "nosuch.calls>0", "time>1%,,calls>1%",
};

static void test_fail_if(void)
{
	struct report_opts o = { .format = FMT_TABLE };
	struct profile a, b;
	struct fail_if f;
	struct diff d;
	char what[160], bad[160];
	size_t i;

	runs(&a, &b);
	diff_build(&d, &a, &b, &o);
	for (i = 0; i < sizeof(exprs) / sizeof(exprs[0]); i++) {
		int got = 0;
		size_t t;

		memset(&f, 0, sizeof(f));
		if (!ok(fail_if_parse(&f, exprs[i].expr, bad, sizeof(bad)) == 0,
			"'%s' parses (%s)", exprs[i].expr, bad))
			continue;
		for (t = 0; t < f.n; t++)
			got |= fail_if_eval(&f, t, &d, what, sizeof(what));
		is_int(got, exprs[i].want, "'%s': %s", exprs[i].expr, what);
	}
	for (i = 0; i < sizeof(bad_exprs) / sizeof(bad_exprs[0]); i++) {
		memset(&f, 0, sizeof(f));
		bad[0] = '\0';
		ok(fail_if_parse(&f, bad_exprs[i], bad, sizeof(bad)) == -EINVAL,
		   "'%s' refused: %s", bad_exprs[i], bad);
	}
	memset(&f, 0, sizeof(f));
	fail_if_parse(&f, "write.calls<-5%", bad, sizeof(bad));
	fail_if_eval(&f, 0, &d, what, sizeof(what));
	is_str(what, "write.calls -100.0% (1000000 -> 123)", "what it says");
	a.exit.known = false;
	memset(&f, 0, sizeof(f));
	fail_if_parse(&f, "wall>1%", bad, sizeof(bad));
	is_int(fail_if_eval(&f, 0, &d, what, sizeof(what)), -EINVAL,
	       "no wall time in an strace table: %s", what);
	diff_release(&d);
	profile_release(&a);
	profile_release(&b);
}

/* write and write/i386 are two syscalls: paired each with its own. */
static void test_personalities(void)
{
	struct report_opts o = { .format = FMT_TABLE };
	struct profile a, b;
	struct fail_if f;
	struct diff d;
	char what[160], bad[160];

	profile_init(&a);
	profile_init(&b);
	row(&a, "write", 10, 1000);
	row(&a, "write/i386", 5, 500);
	row(&b, "write/i386", 7, 700);
	row(&b, "fstat64", 1, 100);
	is_int(diff_build(&d, &a, &b, &o), 0, "diff builds");
	diff_sort(&d, "name");
	is_int(d.nrows, 3, "three syscalls");
	is_str(d.rows[0].name, "fstat64/i386", "fstat64/i386 first by name");
	ok(!d.rows[0].base && d.rows[0].new, "only in NEW");
	is_str(d.rows[1].name, "write", "then write");
	ok(d.rows[1].base && !d.rows[1].new, "only in BASE");
	is_str(d.rows[2].name, "write/i386", "then write/i386");
	ok(d.rows[2].base->calls == 5 && d.rows[2].new->calls == 7,
	   "paired with its own: 5 -> 7");
	memset(&f, 0, sizeof(f));
	ok(fail_if_parse(&f, "write/i386.calls>+10%", bad, sizeof(bad)) == 0 &&
	   fail_if_eval(&f, 0, &d, what, sizeof(what)) == 1,
	   "--fail-if write/i386.calls>+10%%: %s", what);
	memset(&f, 0, sizeof(f));
	ok(fail_if_parse(&f, "write/nosuch.calls>1", bad, sizeof(bad)) < 0,
	   "an unknown personality refused: %s", bad);
	diff_release(&d);
	profile_release(&a);
	profile_release(&b);
}

/* A per-file sub-row, every call timed and moving one byte. */
static void io(struct profile *p, const char *name, uint32_t f,
	       uint64_t calls, uint64_t ns)
{
	struct profile_row *r = profile_row_get(p, name);
	struct profile_sub *s = profile_io_get(p, f, PROFILE_FILE_NONE,
					       (uint32_t)(r - p->rows));

	s->calls = s->timed = calls;
	s->time_ns = s->raw_time_ns = ns;
	s->bytes_done = s->bytes_req = calls;
}

/*
 * runs() with files: /tmp/x's writes drop, /tmp/log's only got slower
 * (not shown), /tmp/new and /etc/old are in one run each.  NEW meets its
 * files in another order, so their indexes differ from BASE's.
 */
static void file_runs(struct profile *a, struct profile *b)
{
	runs(a, b);
	io(a, "write", file(a, "/tmp/x", FD_REG, 0, 4096, 0), 1000000,
	   478000000);
	io(a, "write", file(a, "/tmp/log", FD_REG, PF_APPEND, 4096, 0), 5,
	   5000);
	io(a, "read", file(a, "/etc/old", FD_REG, 0, 4096, 0), 2, 2000);
	io(b, "write", file(b, "/tmp/log", FD_REG, PF_APPEND, 4096, 0), 5,
	   7000);
	io(b, "write", file(b, "/tmp/x", FD_REG, 0, 4096, 0), 123, 40000000);
	io(b, "write", file(b, "/tmp/new", FD_REG, 0, 4096, 0), 3, 3000);
}

static char *table_of(const struct diff *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	diff_render_table(f, d);
	fclose(f);
	return text;
}

static char *json_of(const struct diff *d)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	diff_render_json(f, d, NULL, NULL);
	fclose(f);
	return text;
}

static const char write_lines[] =
	"  1000000       123   -999877    0.479000    0.041000  0.0856x"
	"          0        333 write\n"
	"  1000000       123   -999877    0.478000    0.040000  0.0837x"
	"          0        325   file /tmp/x (blksize 4096)\n"
	"        -         3        +3           -    0.000003        -"
	"          -          1   file /tmp/new (blksize 4096) (only NEW)\n"
	"        -         5        +5           -    0.000010        -"
	"          -          2 mmap (only NEW)\n";

static const char read_lines[] =
	"  1000000       123   -999877    0.090000    0.090000       1x"
	"          0        731 read\n"
	"        2         -        -2    0.000002           -        -"
	"          1          -   file /etc/old (blksize 4096) (only BASE)\n"
	"--------- ";

static void test_subs(void)
{
	struct report_opts o = { .format = FMT_TABLE };
	struct profile a, b;
	struct diff d;
	char *t, *j;

	file_runs(&a, &b);
	is_int(diff_build(&d, &a, &b, &o), 0, "diff builds");
	is_int(d.nsubs, 3, "three files changed, /tmp/log only in time");
	t = table_of(&d);
	ok(strstr(t, write_lines) && strstr(t, read_lines),
	   "sub-rows under their syscall, in its columns, paired by key");
	ok(!strstr(t, "/tmp/log"), "a file whose counts held is not shown");
	j = json_of(&d);
	ok(strstr(j, "\"breakdowns\": [\n    {\n      \"dimension\": "
		  "\"file\",\n      \"syscall\": \"write\",\n      \"key\": {"
		  "\n        \"path\": \"/tmp/x\",") &&
	   strstr(j, "\"base\": null,\n      \"new\": {\n        "
		  "\"calls\": 3,"),
	   "JSON: the sub-rows with their keys, null for a missing side");
	free(j);
	free(t);
	diff_release(&d);
	profile_release(&b);
	profile_init(&b);
	row(&b, "write", 123, 41000000);
	is_int(diff_build(&d, &a, &b, &o), 0, "against a run without files");
	is_int(d.nsubs, 0, "(an strace table): no file is compared");
	diff_release(&d);
	profile_release(&a);
	profile_release(&b);
}

/* Counts per file that held leave the diff as it was without files. */
static void test_subs_unchanged(void)
{
	struct report_opts o = { .format = FMT_TABLE };
	struct profile a, b;
	struct diff d;
	char *plain, *t;

	runs(&a, &b);
	diff_build(&d, &a, &b, &o);
	plain = table_of(&d);
	diff_release(&d);
	io(&a, "write", file(&a, "/tmp/x", FD_REG, 0, 4096, 0), 123, 9000);
	io(&b, "write", file(&b, "/tmp/x", FD_REG, 0, 4096, 0), 123, 7000);
	io(&a, "read", file(&a, "pipe:[1]", FD_PIPE, 0, 4096, 0), 7, 1000);
	io(&b, "read", file(&b, "pipe:[1]", FD_PIPE, 0, 4096, 0), 7, 1000);
	is_int(diff_build(&d, &a, &b, &o), 0, "diff builds");
	is_int(d.nsubs, 0, "no sub-row changed its counts");
	t = table_of(&d);
	is_str(t, plain, "the table is the one without files");
	free(t);
	free(plain);
	diff_release(&d);
	profile_release(&a);
	profile_release(&b);
}

int main(void)
{
	test_table();
	test_resolution();
	test_zero_times();
	test_calls_beside_time();
	test_percent_of_base();
	test_waits_apart();
	test_subs();
	test_subs_unchanged();
	test_fail_if();
	if (syscall_npers > 1)
		test_personalities();
	return done_testing();
}
