// SPDX-License-Identifier: MIT
/*
 * Unit tests of the profile model: hand-built tracer events go through
 * profile_add() and every aggregate is checked against what the events
 * say, so a miscount in the hot path shows up here before any tracing.
 */
#include <errno.h>
#include <linux/audit.h>
#include <stdlib.h>
#include "render/render.h"
#include "tests/unit/tap.h"

static struct tracer_event event(int nr, int64_t ret, uint64_t ns)
{
	struct tracer_event ev = {
		.tid = 100, .arch = 0, .nr = nr, .ret = ret,
		.entry_ns = 1000000, .exit_ns = 1000000 + ns,
	};

	return ev;
}

static void add(struct profile *p, int nr, int64_t ret, uint64_t ns)
{
	struct tracer_event ev = event(nr, ret, ns);

	ev.arch = p->native_arch;
	ok(profile_add(p, &ev) == 0, "profile_add nr %d ret %lld", nr,
	   (long long)ret);
}

static uint64_t hist_sum(const struct profile_row *r)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < PROFILE_HIST_BUCKETS; i++)
		n += r->hist[i];
	return n;
}

static uint64_t errno_count(const struct profile_row *r, int err)
{
	size_t i;

	for (i = 0; i < PROFILE_ERRNO_SLOTS; i++)
		if (r->errnos[i].err == err)
			return r->errnos[i].count;
	return 0;
}

static void test_calls_and_errors(void)
{
	int nr = syscall_number("openat");
	const struct profile_row *r;
	struct profile p;

	profile_init(&p);
	add(&p, nr, 3, 100);
	add(&p, nr, -ENOENT, 200);
	add(&p, nr, -ENOENT, 300);
	add(&p, nr, -EACCES, 400);
	add(&p, nr, -1, 500);		/* EPERM: the smallest error */
	add(&p, nr, -4095, 600);	/* the largest error */
	add(&p, nr, -4096, 700);	/* a value, not an error */
	add(&p, nr, INT64_MIN, 800);	/* an address, not an error */
	r = profile_row_find(&p, "openat");
	ok(r != NULL, "row openat exists");
	if (!r)
		goto out;
	is_int(p.nrows, 1, "one row");
	is_int(r->calls, 8, "calls");
	is_int(r->errors, 5, "errors are returns in [-4095, -1]");
	is_int(errno_count(r, ENOENT), 2, "ENOENT x2");
	is_int(errno_count(r, EACCES), 1, "EACCES x1");
	is_int(errno_count(r, EPERM), 1, "EPERM x1");
	is_int(errno_count(r, 4095), 1, "errno 4095 x1");
	is_int(errno_count(r, 4096), 0, "-4096 is no errno");
	is_int(r->errno_other, 0, "no errno past the slots");
	is_int(r->timed, 8, "timed");
	is_int(r->time_ns, 3600, "total time");
	is_int(r->raw_time_ns, 3600, "raw total time");
	is_int(r->min_ns, 100, "min");
	is_int(r->max_ns, 800, "max");
	is_int(hist_sum(r), r->timed, "histogram sums to timed calls");
	is_int(r->hist[6], 1, "100 ns in bucket 6 [64, 128)");
	is_int(r->hist[9], 3, "600, 700, 800 ns in bucket 9 [512, 1024)");
out:
	profile_release(&p);
}

/* More distinct errnos than slots: the rest is counted, not lost. */
static void test_errno_overflow(void)
{
	int nr = syscall_number("read"), e;
	const struct profile_row *r;
	uint64_t kept = 0;
	struct profile p;
	size_t i;

	profile_init(&p);
	for (e = 1; e <= PROFILE_ERRNO_SLOTS + 5; e++) {
		add(&p, nr, -e, 10);
		add(&p, nr, -e, 10);
	}
	add(&p, nr, -1, 10);
	r = profile_row_find(&p, "read");
	ok(r != NULL, "row read exists");
	if (!r)
		goto out;
	is_int(r->errors, 2 * (PROFILE_ERRNO_SLOTS + 5) + 1, "errors");
	for (i = 0; i < PROFILE_ERRNO_SLOTS; i++)
		kept += r->errnos[i].count;
	is_int(kept + r->errno_other, r->errors,
	       "slots + other == errors");
	is_int(r->errno_other, 10, "5 errnos x2 past the slots");
	is_int(errno_count(r, 1), 3, "EPERM x3 in its slot");
	is_int(errno_count(r, PROFILE_ERRNO_SLOTS), 2, "last slot x2");
	is_int(errno_count(r, PROFILE_ERRNO_SLOTS + 1), 0, "no slot for 9th");
out:
	profile_release(&p);
}

static void test_min_max_hist(void)
{
	static const uint64_t ns[] = { 5000, 0, 1, 123456789, 77,
				       UINT64_C(1) << 50, 1000 };
	int nr = syscall_number("write");
	const struct profile_row *r;
	struct profile p;
	uint64_t total = 0;
	size_t i;

	profile_init(&p);
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		add(&p, nr, 1, ns[i]);
		total += ns[i];
	}
	r = profile_row_find(&p, "write");
	ok(r != NULL, "row write exists");
	if (!r)
		goto out;
	is_int(r->min_ns, 0, "min 0 ns");
	is_int(r->max_ns, UINT64_C(1) << 50, "max 2^50 ns");
	is_int(r->time_ns, total, "total");
	is_int(hist_sum(r), 7, "histogram sums to timed calls");
	is_int(r->hist[0], 2, "0 and 1 ns in bucket 0");
	is_int(r->hist[PROFILE_HIST_BUCKETS - 1], 1,
	       "2^50 ns clamped into the last bucket");
out:
	profile_release(&p);
}

/* Count-only events: a call, but no time, no error, no histogram. */
static void test_count_only(void)
{
	int nr = syscall_number("close");
	struct tracer_event ev = event(nr, -EBADF, 999);
	const struct profile_row *r;
	struct profile_totals t;
	struct profile p;

	profile_init(&p);
	ev.arch = p.native_arch;
	ev.flags = EVF_COUNT_ONLY;
	ok(profile_add(&p, &ev) == 0, "count-only add");
	ok(profile_add(&p, &ev) == 0, "count-only add");
	add(&p, nr, 0, 40);
	r = profile_row_find(&p, "close");
	ok(r != NULL, "row close exists");
	if (!r)
		goto out;
	is_int(r->calls, 3, "count-only calls are calls");
	is_int(r->timed, 1, "only the stopped call is timed");
	is_int(r->errors, 0, "count-only ret is not read");
	is_int(r->time_ns, 40, "no time for count-only calls");
	is_int(hist_sum(r), 1, "histogram sums to timed calls only");
	profile_totals(&p, &t);
	is_int(t.calls, 3, "total calls");
	is_int(t.timed, 1, "total timed");
out:
	profile_release(&p);
}

/* Calibration subtracts a fixed overhead, never below zero. */
static void test_overhead(void)
{
	int nr = syscall_number("read");
	const struct profile_row *r;
	struct profile p;

	profile_init(&p);
	p.overhead_ns = 500;
	add(&p, nr, 0, 2000);
	add(&p, nr, 0, 100);
	add(&p, nr, 0, 500);
	r = profile_row_find(&p, "read");
	ok(r != NULL, "row read exists");
	if (!r)
		goto out;
	is_int(r->time_ns, 1500, "corrected total: 1500 + 0 + 0");
	is_int(r->raw_time_ns, 2600, "raw total untouched");
	is_int(r->min_ns, 0, "corrected min clamps at 0");
	is_int(r->max_ns, 1500, "corrected max");
	is_int(r->hist[0], 2, "clamped calls in bucket 0");
out:
	profile_release(&p);
}

static void test_names(void)
{
	struct tracer_event ev = event(0, 0, 10);
	struct profile p;

	profile_init(&p);
	ev.arch = p.native_arch;
	ev.nr = 1000;			/* within the index, no name */
	ok(profile_add(&p, &ev) == 0, "add nr 1000");
	ev.nr = 5000;			/* beyond the index */
	ok(profile_add(&p, &ev) == 0, "add nr 5000");
	ok(profile_add(&p, &ev) == 0, "add nr 5000 again");
	ok(profile_row_find(&p, "syscall_1000") != NULL, "syscall_1000");
	ok(profile_row_find(&p, "syscall_5000") &&
	   profile_row_find(&p, "syscall_5000")->calls == 2,
	   "syscall_5000 x2 in one row");
	/*
	 * i386: 5 is open there (fstat on x86_64), 4 is write: rows of the
	 * i386 personality, apart from x86_64's of the same name.
	 */
	ev.arch = AUDIT_ARCH_I386;
	ev.nr = 5;
	ok(profile_add(&p, &ev) == 0, "add i386 nr 5");
	ok(profile_row_find(&p, "open/i386") != NULL, "i386 5 is open");
	ok(profile_row_find(&p, "open") == NULL, "not the native open");
	ok(profile_row_find(&p, "fstat") == NULL, "not the native fstat");
	ev.nr = 4;
	ok(profile_add(&p, &ev) == 0, "add i386 nr 4");
	ok(profile_row_find(&p, "write/i386") != NULL, "i386 4 is write");
	ev.arch = p.native_arch;
	ev.nr = syscall_number("fstat");
	ok(profile_add(&p, &ev) == 0, "add native fstat");
	ok(profile_row_find(&p, "fstat") &&
	   profile_row_find(&p, "fstat")->calls == 1 &&
	   profile_row_find(&p, "open/i386")->calls == 1,
	   "native fstat and i386 open apart");
	profile_release(&p);
}

/* Many rows: the rows array grows while the index keeps pointing right. */
static void test_many_rows(void)
{
	struct tracer_event ev = event(0, 0, 10);
	struct profile p;
	int nr, round, bad = 0;

	profile_init(&p);
	ev.arch = p.native_arch;
	for (round = 0; round < 3; round++)
		for (nr = 0; nr < 300; nr++) {
			ev.nr = nr;
			if (profile_add(&p, &ev) < 0)
				bad++;
		}
	is_int(bad, 0, "900 adds");
	is_int(p.nrows, 300, "300 rows");
	for (nr = 0; nr < 300; nr++)
		if (p.rows[nr].calls != 3)
			bad++;
	is_int(bad, 0, "every row has 3 calls");
	profile_release(&p);
}

/* A row of calls timed at ns in all, for profile_keep()'s tests. */
static struct profile_row *row(struct profile *p, const char *name,
			       uint64_t calls, uint64_t ns)
{
	struct profile_row *r = profile_row_get(p, name);

	r->calls = r->timed = calls;
	r->time_ns = r->raw_time_ns = ns;
	return r;
}

/* The file sub-row of the row named name, on file f. */
static struct profile_sub *sub(struct profile *p, const char *name,
			       uint32_t f, uint64_t calls)
{
	const struct profile_row *r = profile_row_find(p, name);
	struct profile_sub *s = profile_io_get(p, f, PROFILE_FILE_NONE,
					       (uint32_t)(r - p->rows));

	s->calls = calls;
	return s;
}

/*
 * report -e and diff -e: the rows outside the set go, with their
 * sub-rows; those kept are found by name and index as before, the
 * totals are theirs, and the threads that waited are said only while
 * every call that waits is kept.
 */
static void test_keep(void)
{
	struct profile_file key = { .kind = FD_REG };
	const struct profile_breakdown *b;
	const struct profile_sub *s;
	struct syscall_set set;
	struct profile_totals t;
	struct profile p;
	char bad[64];
	uint32_t f;

	profile_init(&p);
	row(&p, "futex", 809, 43000000000ull);
	row(&p, "openat", 3, 3000);
	row(&p, "write", 1000, 1000000);
	row(&p, "read", 5, 5000);
	snprintf(key.path, sizeof(key.path), "/tmp/out");
	f = (uint32_t)profile_file_get(&p, &key);
	sub(&p, "openat", f, 3);
	sub(&p, "write", f, 1000);
	sub(&p, "read", f, 5);
	p.wait_tasks = 19;
	syscall_set_parse(&set, "write,read", bad, sizeof(bad));
	is_int(profile_keep(&p, &set, "write,read"), 0, "keep write,read");
	is_int(p.nrows, 2, "two rows left");
	profile_totals(&p, &t);
	ok(t.calls == 1005 && t.time_ns == 1005000, "totals are the rows' "
	   "kept (%llu calls)", (unsigned long long)t.calls);
	b = profile_files(&p);
	is_int(b->nsubs, 2, "their sub-rows only");
	s = profile_sub_find(b, f, PROFILE_FILE_NONE, (uint32_t)
			     (profile_row_find(&p, "read") - p.rows));
	ok(s && s->calls == 5, "read's sub-row under its new index");
	ok(profile_row_find(&p, "write") && profile_row_find(&p, "write")->calls
	   == 1000 && !profile_row_find(&p, "futex"), "found by name");
	ok(profile_row_get(&p, "close") && p.nrows == 3 &&
	   profile_row_find(&p, "close") == &p.rows[2], "a row added after");
	is_int((int)p.wait_tasks, 0, "futex gone: no count of waiters");
	is_str(p.trace_expr, "write,read", "the header says the set");
	profile_release(&p);

	profile_init(&p);
	row(&p, "futex", 809, 43000000000ull);
	row(&p, "openat", 3, 3000);
	row(&p, "write", 1000, 1000000);
	p.wait_tasks = 19;
	profile_set_trace_expr(&p, "%file,write,futex");
	syscall_set_parse(&set, "!openat", bad, sizeof(bad));
	profile_keep(&p, &set, "!openat");
	ok(p.nrows == 2 && p.wait_tasks == 19, "every wait kept: 19 threads");
	is_str(p.trace_expr, "%file,write,futex, then !openat", "after the "
	       "run's own -e");
	profile_release(&p);
}

int main(void)
{
	test_calls_and_errors();
	test_errno_overflow();
	test_min_max_hist();
	test_count_only();
	test_overhead();
	test_names();
	test_many_rows();
	test_keep();
	return done_testing();
}
