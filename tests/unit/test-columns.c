// SPDX-License-Identifier: MIT
/*
 * Unit tests of -U (--summary-columns): strace 6's words and iotrace's
 * own column names, the errors for a bad list, and the tables it lays
 * out as strace 6.1 lays them out: strace's own -U table (a fixture made
 * by strace 6.1) read back and rendered again with the same columns is
 * the same text, byte for byte; widths grow with the cells as strace's
 * do; iotrace's columns (nsecs/call, bytes, % untraced) keep the total
 * row the sum of the rows; the CSV takes -U's columns.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"
#include "tests/unit/tap.h"

static char *slurp(const char *name)
{
	const char *dir = getenv("FIXTURES");
	char path[512], *buf = NULL;
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

static char *render(const struct profile *p, const struct report_opts *o,
		    int (*fn)(FILE *, const struct profile *,
			      const struct report_opts *))
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return NULL;
	if (fn(m, p, o) < 0) {
		fclose(m);
		free(buf);
		return NULL;
	}
	fclose(m);
	return buf;
}

/*
 * The line of text that starts with start (after its newline, when it
 * begins with one), whole, into a static buffer.
 */
static const char *line_of(const char *text, const char *start)
{
	static char line[512];
	const char *s = text ? strstr(text, start) : NULL;
	size_t n;

	if (!s)
		return "";
	s += *start == '\n';
	n = strcspn(s, "\n");
	snprintf(line, sizeof(line), "%.*s", (int)n, s);
	return line;
}

/* Every strace 6.1 -U word (count.c's column_aliases) and its heading. */
static void test_words(void)
{
	static const struct {
		const char *word, *header;
	} words[] = {
		{ "time", "% time" },		{ "time-percent", "% time" },
		{ "time_percent", "% time" },	{ "time-total", "seconds" },
		{ "time_total", "seconds" },	{ "total-time", "seconds" },
		{ "total_time", "seconds" },	{ "min-time", "shortest" },
		{ "min_time", "shortest" },	{ "shortest", "shortest" },
		{ "time-min", "shortest" },	{ "time_min", "shortest" },
		{ "longest", "longest" },	{ "max-time", "longest" },
		{ "max_time", "longest" },	{ "time-max", "longest" },
		{ "time_max", "longest" },	{ "avg-time", "usecs/call" },
		{ "avg_time", "usecs/call" },	{ "time-avg", "usecs/call" },
		{ "time_avg", "usecs/call" },	{ "calls", "calls" },
		{ "count", "calls" },		{ "error", "errors" },
		{ "errors", "errors" },		{ "name", "syscall" },
		{ "syscall", "syscall" },	{ "syscall_name", "syscall" },
		{ "syscall-name", "syscall" },	{ "avg-ns", "nsecs/call" },
		{ "bytes", "bytes" },
		{ "untraced-percent", "% untraced" },
		{ "p99", "usecs/p99" },
	};
	struct report_opts o = { 0 };
	char bad[40];
	size_t i;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		ok(columns_parse(&o, words[i].word, bad, sizeof(bad)) == 0 &&
		   o.ncolumns >= 1 &&
		   !strcmp(o.columns[0]->header, words[i].header),
		   "-U %s is %s", words[i].word, words[i].header);
	}
}

static void check_error(const char *list, int err, const char *word)
{
	struct report_opts o = { 0 };
	char bad[40] = "";

	is_int(columns_parse(&o, list, bad, sizeof(bad)), err, "-U '%s' "
	       "refused", list);
	is_str(bad, word, "-U '%s': names the word", list);
}

static void test_errors_and_name(void)
{
	struct report_opts o = { 0 };
	char bad[40];

	/* strace 6.1 refuses these too ("unknown column name"). */
	check_error("seconds", -EINVAL, "seconds");
	check_error("none", -EINVAL, "none");
	check_error("nothing", -EINVAL, "nothing");
	check_error("", -EINVAL, "");
	check_error("calls,,name", -EINVAL, "");
	check_error("calls,Name", -EINVAL, "Name");
	check_error("calls,count", -EEXIST, "count");
	check_error("time,time-percent", -EEXIST, "time-percent");
	/* Without the name, strace adds it last; given, it stays put. */
	ok(columns_parse(&o, "calls,errors", bad, sizeof(bad)) == 0 &&
	   o.ncolumns == 3 && !strcmp(o.columns[2]->name, "name"),
	   "the name added last");
	ok(columns_parse(&o, "name,calls", bad, sizeof(bad)) == 0 &&
	   o.ncolumns == 2 && !strcmp(o.columns[0]->name, "name"),
	   "the name where it was given");
}

/* The table alone: from its heading to the total row. */
static char *table_of(char *text, const char *heading)
{
	char *start = text ? strstr(text, heading) : NULL;
	char *end = start ? strstr(start, "\ntotal ") : NULL;

	if (end)
		end = strchr(end + 1, '\n');
	if (!end)
		return NULL;
	end[1] = '\0';
	return start;
}

/*
 * strace 6.1's own -U table (all eight columns, name first): read back
 * and rendered with the same -U, rows in the order read (-S nothing, as
 * strace left them), it is the same text.
 */
static void test_strace_table(void)
{
	struct report_opts o = { .sort = column_find("nothing") };
	char *want = slurp("strace/true-U.txt"), *got = NULL, bad[40];
	struct load_error e = { 0, "" };
	struct profile p;

	profile_init(&p);
	ok(want && profile_from_strace_text(&p, want, strlen(want), &e) == 0,
	   "strace's -U table reads (%lu: %s)", e.line, e.msg);
	ok(columns_parse(&o, "name,calls,errors,total-time,avg-time,min-time,"
			 "max-time,time-percent", bad, sizeof(bad)) == 0,
	   "strace's -U list");
	got = render(&p, &o, table_render);
	is_str(table_of(got, "syscall "), want, "the same table as strace's");
	free(got);
	free(want);
	profile_release(&p);
}

/*
 * A row per case below: 1,000,000 writes of 0.7 us, 0 in usecs/call
 * and 700 in nsecs/call; a name of 17 characters, which widens the name
 * column to 18 as strace's (its width: the longest name + 1); calls of
 * 11 digits, which widen the calls column.
 */
static void wide_profile(struct profile *p)
{
	static const struct {
		const char *name;
		uint64_t calls, time_ns, bytes;
	} rows[] = {
		{ "write", 1000000, 700000000, 1000000 },
		{ "sched_getaffinity", 1, 3000, 0 },
		{ "getpid", 12345678901ULL, 1000000, 0 },
	};
	struct profile_row *r;
	size_t i;

	profile_init(p);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		r = profile_row_get(p, rows[i].name);
		if (!r)
			continue;
		r->calls = r->timed = rows[i].calls;
		r->time_ns = r->raw_time_ns = rows[i].time_ns;
		r->min_ns = r->max_ns = rows[i].time_ns / rows[i].calls;
		r->bytes_done = rows[i].bytes;
	}
}

static void test_widths(void)
{
	struct report_opts o = { 0 };
	char *got, bad[40];
	struct profile p;

	wide_profile(&p);
	got = render(&p, &o, table_render);
	is_str(line_of(got, "% time"), "% time     seconds  usecs/call       "
	       "calls    errors syscall", "default heading, calls wider");
	is_str(line_of(got, "------"), "------ ----------- ----------- "
	       "----------- --------- ------------------",
	       "the rule: calls 11 wide, names 18");
	is_str(line_of(got, " 99.86"), " 99.86    0.700000           0     "
	       "1000000           write", "a sub-microsecond write");
	free(got);
	columns_parse(&o, "calls,avg-time,avg-ns,bytes,untraced-percent",
		      bad, sizeof(bad));
	got = render(&p, &o, table_render);
	is_str(line_of(got, "      calls"), "      calls  usecs/call  "
	       "nsecs/call       bytes % untraced syscall", "-U heading");
	is_str(line_of(got, "    1000000"), "    1000000           0         "
	       "700     1000000          - write", "nsecs/call: 700, "
	       "not 0; no untraced wall: -");
	is_str(line_of(got, "\n12346678902"), "12346678902           0         "
	       "  0     1000000          - total", "the total row: the sums");
	ok(strstr(got, "(% untraced: -, this run has no untraced wall") !=
	   NULL, "a note says why the column is -");
	free(got);
	profile_release(&p);
}

/* --baseline's wall: the seconds cell over it; the total is the sum. */
static void test_untraced(void)
{
	struct report_opts o = { 0 };
	char *got, bad[40];
	struct profile p;

	wide_profile(&p);
	p.baseline.runs = 3;
	p.baseline.wall_ns = p.baseline.wall_min_ns = p.baseline.wall_max_ns =
		2000000000;
	columns_parse(&o, "total-time,untraced-percent", bad, sizeof(bad));
	got = render(&p, &o, table_render);
	is_str(line_of(got, "   0.700000"), "   0.700000      35.00 write",
	       "0.7 s of a 2 s untraced wall");
	is_str(line_of(got, "   0.701003"), "   0.701003      35.05 total",
	       "the total: all rows' seconds over the wall");
	ok(strstr(got, "(% untraced: the seconds over the untraced wall, "
		  "2.000000 s measured (--baseline, median); waits "
		  "included)") != NULL, "the note names the wall");
	free(got);
	profile_release(&p);
}

static void test_csv(void)
{
	struct report_opts o = { .format = FMT_CSV };
	char *got, bad[40];
	struct profile p;

	wide_profile(&p);
	columns_parse(&o, "avg-ns,calls", bad, sizeof(bad));
	got = render(&p, &o, csv_render);
	is_str(line_of(got, "avg-ns"), "avg-ns,calls,name,timed,time_ns,"
	       "raw_time_ns,min_ns,max_ns,errno_other,bytes_req,bytes_done,"
	       "short_calls,fast_timed,fast_raw_ns,time_uncertainty_ns,"
	       "below_resolution", "CSV: -U's columns, then the raw ones");
	ok(strstr(got, "\n700,1000000,write,") != NULL, "CSV row");
	free(got);
	profile_release(&p);
}

int main(void)
{
	test_words();
	test_errors_and_name();
	test_strace_table();
	test_widths();
	test_untraced();
	test_csv();
	return done_testing();
}
