// SPDX-License-Identifier: MIT
/*
 * Unit tests of the profile model: hand-built tracer events go through
 * profile_add() and every aggregate is checked against what the events
 * say, so a miscount in the hot path shows up here before any tracing.
 */
#include <errno.h>
#include <linux/audit.h>
#include <stdlib.h>
#include "reports/render/render.h"
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

int main(void)
{
	test_calls_and_errors();
	test_errno_overflow();
	test_min_max_hist();
	test_count_only();
	test_overhead();
	test_names();
	test_many_rows();
	return done_testing();
}
