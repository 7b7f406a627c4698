// SPDX-License-Identifier: MIT
/*
 * Reading strace -c tables: the real strace 6.1 outputs kept in
 * tests/fixtures/strace (plain, -w, -f, -C log, -U columns, a 32-bit
 * second table) give their exact counts, older and reformatted layouts
 * read the same, iotrace's own tables ("-" where nothing was timed) read
 * back, and broken tables fail with their line and reason.
 */
#include <stdlib.h>
#include <string.h>
#include "profile/profile.h"
#include "tap.h"

static int load(struct profile *p, const char *name, struct load_error *e)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/strace/%s",
		 getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures",
		 name);
	return profile_load(p, path, e);
}

static uint64_t calls(const struct profile *p, const char *name)
{
	const struct profile_row *r = profile_row_find(p, name);

	return r ? r->calls : 0;
}

static uint64_t errors(const struct profile *p, const char *name)
{
	const struct profile_row *r = profile_row_find(p, name);

	return r ? r->errors : 0;
}

static void check_fixture(const char *file, const char *name, uint64_t ncalls,
			  uint64_t nerrors, uint64_t total, uint64_t terrors)
{
	struct load_error e = { 0, "" };
	struct profile_totals t;
	struct profile p;

	if (!ok(load(&p, file, &e) == 0, "%s loads (%lu: %s)", file, e.line,
		e.msg))
		return;
	profile_totals(&p, &t);
	is_int(calls(&p, name), ncalls, "%s: %s calls", file, name);
	is_int(errors(&p, name), nerrors, "%s: %s errors", file, name);
	is_int(t.calls, total, "%s: total calls", file);
	is_int(t.errors, terrors, "%s: total errors", file);
	is_str(p.source, "strace", "%s: source", file);
	ok(!p.exit.known && !p.ncpus && !p.kernel[0], "%s: no host facts",
	   file);
	profile_release(&p);
}

static void test_fixtures(void)
{
	struct load_error e = { 0, "" };
	const struct profile_row *w;
	struct profile p;

	check_fixture("dd-bs1.txt", "write", 1003, 0, 2125, 17);
	check_fixture("dd-bs1.txt", "openat", 35, 16, 2125, 17);
	check_fixture("dd-bs1000.txt", "write", 4, 0, 127, 17);
	check_fixture("dd-bs1000-w.txt", "read", 4, 0, 127, 17);
	check_fixture("sh-f.txt", "access", 3, 3, 213, 37);
	check_fixture("ls-C.txt", "newfstatat", 22, 0, 145, 19);
	check_fixture("true-U.txt", "access", 1, 1, 29, 1);
	/* The i386 table is read into i386 rows: getpid is in both. */
	check_fixture("sh-i386.txt", "getpid", 1, 0, 58, 2);
	check_fixture("sh-i386.txt", "getpid/i386", 1, 0, 58, 2);
	check_fixture("sh-i386.txt", "write/i386", 1, 0, 58, 2);
	check_fixture("sh-i386.txt", "write", 0, 0, 58, 2);
	if (load(&p, "dd-bs1.txt", &e) == 0) {
		w = profile_row_find(&p, "write");
		is_int(w->time_ns, 2794000, "0.002794 s is 2794000 ns exactly");
		is_int(w->timed, 1003, "strace times every call");
		profile_release(&p);
	}
}

static int parse(struct profile *p, const char *text, struct load_error *e)
{
	profile_init(p);
	return profile_from_strace_text(p, text, strlen(text), e);
}

#define HEAD "% time     seconds  usecs/call     calls    errors syscall\n"
#define RULE "------ ----------- ----------- --------- --------- " \
	     "----------------\n"

/* Layouts strace versions and people produce, all meaning the same. */
static const struct {
	const char *title, *text;
} layouts[] = {
	{ "strace 4: blank usecs/call in the total",
	  HEAD RULE
	  " 90.00    0.000090          10         9         2 write\n"
	  " 10.00    0.000010          10         1           read\n"
	  RULE
	  "100.00    0.000100                    10         2 total\n" },
	{ "other widths and dash lengths",
	  "% time seconds usecs/call calls errors syscall\n"
	  "--- --- --- --- --- ---\n"
	  "90.00 0.000090 10 9 2 write\n"
	  "10.00 0.000010 10 1 read\n"
	  "--- --- --- --- --- ---\n"
	  "100.00 0.000100 10 10 2 total\n" },
	{ "CRLF line ends, a label, log lines before",
	  "write(1, \"hi\\n\", 3) = 3\r\n+++ exited with 0 +++\r\n"
	  "System call usage summary for 64 bit mode:\r\n"
	  HEAD RULE
	  " 90.00    0.000090          10         9         2 write\r\n"
	  " 10.00    0.000010          10         1           read\r\n"
	  RULE "100.00    0.000100          10        10         2 total\r\n" },
	{ "two tables: the last one counts",
	  HEAD RULE "100.00    0.5  10  77  write\n" RULE
	  "100.00    0.5  10  77  total\n"
	  "later output\n\n"
	  HEAD RULE
	  " 90.00    0.000090          10         9         2 write\n"
	  " 10.00    0.000010          10         1           read\n"
	  RULE "100.00    0.000100          10        10         2 total\n" },
};

/* Only a label right after a table chains the next one to it. */
static void test_label_chains(void)
{
	static const char chained[] =
		HEAD RULE "1.0 0.1 1 5 write\n" RULE "100 0.1 1 5 total\n\n"
		"System call usage summary for 32 bit mode:\n"
		HEAD RULE "1.0 0.1 1 2 write\n" RULE "100 0.1 1 2 total\n";
	static const char apart[] =
		HEAD RULE "1.0 0.1 1 5 write\n" RULE "100 0.1 1 5 total\n"
		"+++ exited with 0 +++\n"
		"System call usage summary for 32 bit mode:\n"
		HEAD RULE "1.0 0.1 1 2 write\n" RULE "100 0.1 1 2 total\n";
	struct load_error e = { 0, "" };
	struct profile p;

	if (parse(&p, chained, &e) == 0)
		ok(calls(&p, "write") == 5 && calls(&p, "write/i386") == 2,
		   "labelled, right after: both, i386 rows apart");
	profile_release(&p);
	if (parse(&p, apart, &e) == 0)
		ok(calls(&p, "write/i386") == 2 && !calls(&p, "write"),
		   "log between: the last wins");
	profile_release(&p);
}

/*
 * Personalities: strace's "x32 mode" table is x32's rows; iotrace's own
 * table names them "write/i386" in one table, and reads back the same.
 */
static void test_personalities(void)
{
	static const char x32[] =
		HEAD RULE "1.0 0.1 1 5 write\n" RULE "100 0.1 1 5 total\n"
		"System call usage summary for x32 mode:\n"
		HEAD RULE "1.0 0.1 1 2 1 write\n" RULE "100 0.1 1 2 1 total\n";
	static const char ours[] =
		HEAD RULE "50.0 0.1 1 5 write\n"
		"30.0 0.1 1 2 fstat64/i386\n"
		"20.0 0.1 1 4 write/i386\n"
		RULE "100 0.3 1 11 total\n";
	struct load_error e = { 0, "" };
	struct profile p;

	if (parse(&p, x32, &e) == 0)
		ok(calls(&p, "write") == 5 && calls(&p, "write/x32") == 2 &&
		   errors(&p, "write/x32") == 1, "x32 mode: x32 rows");
	profile_release(&p);
	if (ok(parse(&p, ours, &e) == 0, "iotrace's names read (%s)", e.msg))
		ok(calls(&p, "write") == 5 && calls(&p, "write/i386") == 4 &&
		   calls(&p, "fstat64") == 2 && p.nrows == 3,
		   "write, write/i386, fstat64/i386: three rows");
	profile_release(&p);
}

/*
 * iotrace's own tables: "-" in a time or errors cell is a row counted
 * only (-e count=, --count-only): its calls, no time, no errors known.
 * A call made with number -1 is the row syscall_-1.
 */
static void test_iotrace_tables(void)
{
	static const char some[] =
		HEAD RULE
		" 90.00    0.000090          10         9         2 write\n"
		"     -           -           -         5         - getpid\n"
		" 10.00    0.000010          10         1         1 "
		"syscall_-1\n"
		RULE
		"100.00    0.000100           6        15         3 total\n"
		"(-: counted only, without an exit stop, so no time and no "
		"errors; see -e count=)\n";
	static const char all[] =
		HEAD RULE
		"     -           -           -         5         - getpid\n"
		"     -           -           -         2         - write\n"
		RULE
		"     -           -           -         7         - total\n";
	struct load_error e = { 0, "" };
	const struct profile_row *r;
	struct profile_totals t;
	struct profile p;

	if (ok(parse(&p, some, &e) == 0, "-e count=: loads (%lu: %s)",
	       e.line, e.msg)) {
		r = profile_row_find(&p, "getpid");
		ok(r && r->calls == 5 && !r->timed && !r->errors &&
		   !r->time_ns, "getpid: 5 calls, counted only");
		r = profile_row_find(&p, "write");
		ok(r && r->calls == 9 && r->timed == 9 && r->errors == 2 &&
		   r->time_ns == 90000, "write: 9 calls timed, 2 errors");
		ok(calls(&p, "syscall_-1") == 1 &&
		   errors(&p, "syscall_-1") == 1, "syscall_-1: a name");
		profile_totals(&p, &t);
		ok(t.calls == 15 && t.timed == 10 && t.errors == 3,
		   "totals: 15 calls, 10 timed, 3 errors");
	}
	profile_release(&p);
	if (ok(parse(&p, all, &e) == 0, "--count-only: loads (%lu: %s)",
	       e.line, e.msg)) {
		profile_totals(&p, &t);
		ok(t.calls == 7 && !t.timed && !t.time_ns,
		   "7 calls, none timed");
	}
	profile_release(&p);
}

static void test_layouts(void)
{
	struct load_error e = { 0, "" };
	struct profile p;
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		if (!ok(parse(&p, layouts[i].text, &e) == 0, "%s (%lu: %s)",
			layouts[i].title, e.line, e.msg))
			continue;
		ok(calls(&p, "write") == 9 && errors(&p, "write") == 2 &&
		   calls(&p, "read") == 1 && p.nrows == 2 &&
		   profile_row_find(&p, "write")->time_ns == 90000,
		   "%s: write 9/2 in 90 us, read 1", layouts[i].title);
		profile_release(&p);
	}
}

static const struct {
	const char *title, *text;
	unsigned long line;
	const char *want;
} broken[] = {
	{ "empty", "", 1, "no strace -c table found" },
	{ "no table", "hello\nworld\n", 2, "no strace -c table found" },
	{ "truncated", HEAD RULE " 90.00 0.000090 10 9 2 write\n", 3,
	  "the table ends before its total line" },
	{ "truncated after the rule", HEAD RULE "1.0 0.1 1 1 write\n" RULE,
	  4, "the table ends before its total line" },
	{ "total does not add up", HEAD RULE "1.0 0.1 1 9 write\n" RULE
	  "100.00 0.1 1 8 0 total\n", 5, "total of 8 calls, but the rows "
	  "add up to 9" },
	{ "a word for a count", HEAD RULE "1.0 0.1 1 many write\n", 3,
	  "'many' is not a count" },
	{ "a row of three", HEAD RULE "1.0 9 write\n", 3,
	  "a row of 3 cells in a table of 6 columns" },
	{ "more errors than calls", HEAD RULE "1.0 0.1 1 1 2 write\n", 3,
	  "more errors than calls" },
	{ "beyond 64 bits", HEAD RULE "1.0 0.1 1 99999999999999999999 "
	  "write\n", 3, "number too large" },
	{ "ten decimals", HEAD RULE "1.0 0.0000000001 1 1 write\n", 3,
	  "'0.0000000001' is not a time in seconds" },
	{ "bad name", HEAD RULE "1.0 0.1 1 1 wr\033[2Jite\n", 3,
	  "'wr?[2Jite' is not a syscall name" },
	{ "blank line inside", HEAD RULE "1.0 0.1 1 1 write\n\n", 4,
	  "blank line inside the table" },
	{ "a dash for calls", HEAD RULE "- - - - - write\n", 3,
	  "'-' is not a count" },
	{ "a name that is a dash", HEAD RULE "- - - 5 - -\n", 3,
	  "'-' is not a syscall name" },
	{ "a name that starts with a dash", HEAD RULE "1.0 0.1 1 1 -1\n", 3,
	  "'-1' is not a syscall name" },
	{ "calls adding up past 2^63-1", HEAD RULE
	  "25.0 1.0 1 9223372036854775807 write\n"
	  "25.0 1.0 1 9223372036854775807 read\n"
	  "25.0 1.0 1 9223372036854775807 close\n"
	  "25.0 1.0 1 9223372036854775807 openat\n" RULE
	  "100.0 4.0 1 26 total\n", 4,
	  "the calls of all syscalls add up to more than 2^63-1" },
	{ "one row past 2^63-1 calls", HEAD RULE
	  "100.0 1.0 1 9223372036854775808 write\n" RULE
	  "100.0 1.0 1 9223372036854775808 total\n", 3,
	  "the calls of all syscalls add up to more than 2^63-1" },
	{ "times adding up past 2^63-1", HEAD RULE
	  "50.0 9223372036.854775807 1 1 write\n"
	  "50.0 9223372036.854775807 1 1 read\n" RULE
	  "100.0 0.0 1 2 total\n", 6,
	  "the time_ns of all syscalls add up to more than 2^63-1" },
	{ "a 32-bit table adding up past 2^63-1 with the native one", HEAD RULE
	  "100.0 1.0 1 9223372036854775807 write\n" RULE
	  "100.0 1.0 1 9223372036854775807 total\n"
	  "System call usage summary for 32 bit mode:\n" HEAD RULE
	  "100.0 1.0 1 1 write\n" RULE "100.0 1.0 1 1 total\n", 11,
	  "the calls of all syscalls add up to more than 2^63-1" },
};

static void test_broken(void)
{
	struct load_error e;
	struct profile p;
	size_t i;

	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		e.line = 0;
		e.msg[0] = '\0';
		ok(parse(&p, broken[i].text, &e) == -1 &&
		   e.line == broken[i].line && strstr(e.msg, broken[i].want) &&
		   !p.nrows, "%s: line %lu: %s", broken[i].title, e.line,
		   e.msg);
		profile_release(&p);
	}
}

/* Bytes the text tests cannot spell: a NUL and an endless line. */
static void test_binary(void)
{
	static const char nul[] = HEAD RULE "1.0 0.1 1 1 wr\0ite\n";
	struct load_error e = { 0, "" };
	size_t n = LOAD_LINE_MAX + 100, head = strlen(HEAD RULE);
	char *big = malloc(head + n + sizeof(HEAD) + 1);
	struct profile p;

	profile_init(&p);
	ok(profile_from_strace_text(&p, nul, sizeof(nul) - 1, &e) == -1 &&
	   e.line == 3 && strstr(e.msg, "NUL byte in the table"),
	   "NUL byte: line %lu: %s", e.line, e.msg);
	memcpy(big, HEAD RULE, head);
	memset(big + head, '1', n);
	strcpy(big + head + n, "\n");
	profile_init(&p);
	ok(profile_from_strace_text(&p, big, strlen(big), &e) == -1 &&
	   e.line == 3 && strstr(e.msg, "line too long"),
	   "endless line: line %lu: %s", e.line, e.msg);
	/* Outside a table a long line is just log. */
	memcpy(big, "x", 1);
	memset(big + 1, 'x', head + n - 1);
	strcpy(big + head + n, "\n" HEAD);
	profile_init(&p);
	ok(profile_from_strace_text(&p, big, strlen(big), &e) == -1 &&
	   strstr(e.msg, "no strace -c table"), "long log line skipped: %s",
	   e.msg);
	free(big);
}

int main(void)
{
	test_fixtures();
	test_layouts();
	test_iotrace_tables();
	test_label_chains();
	if (syscall_npers > 1)
		test_personalities();
	test_broken();
	test_binary();
	return done_testing();
}
