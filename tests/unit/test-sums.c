// SPDX-License-Identifier: MIT
/*
 * The sums a profile implies (profile/sums.c): rows each in
 * range whose totals pass 2^63-1 are found, at the row that passed it,
 * for every summed counter of the rows, a row's errno counts and
 * latency buckets, the sub-rows of each breakdown, and a sampled run's
 * call sites times N; min_ns, max_ns and size_max are not sums, nor
 * bytes_req (saturated, never totalled); a total of exactly 2^63-1 fits.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "profile-fixtures.h"

#define BIG PROFILE_SUM_MAX

static struct profile_row *row(struct profile *p, const char *name,
			       uint64_t calls, uint64_t ns)
{
	struct profile_row *r = profile_row_get(p, name);

	r->calls = r->timed = calls;
	r->time_ns = r->raw_time_ns = ns;
	r->min_ns = r->max_ns = BIG;
	return r;
}

/* profile_check_sums() of p, and its text, in what. */
static int check(const struct profile *p, struct profile_overflow *o,
		 char *what, size_t size)
{
	int err = profile_check_sums(p, o);

	what[0] = '\0';
	if (err)
		profile_overflow_text(p, o, what, size);
	return err;
}

static void test_rows(void)
{
	struct profile_overflow o;
	struct profile p;
	char what[160];

	profile_init(&p);
	row(&p, "write", BIG - 3, 1);
	row(&p, "read", 3, 1);
	is_int(check(&p, &o, what, sizeof(what)), 0,
	       "calls adding up to 2^63-1 exactly fit; min/max are no sums");
	row(&p, "close", 1, 1);
	is_int(check(&p, &o, what, sizeof(what)), -ERANGE, "one more: refused");
	ok(!strcmp(o.counter, "calls") && !o.dim && o.index == 2 &&
	   !o.within_row, "calls, at the row that passed it (%zu)", o.index);
	is_str(what, "the calls of all syscalls add up to more than 2^63-1",
	       "said so");
	profile_release(&p);
	profile_init(&p);
	row(&p, "write", 1, BIG);
	row(&p, "read", 1, BIG);
	row(&p, "close", 1, BIG);
	row(&p, "openat", 1, BIG);
	is_int(check(&p, &o, what, sizeof(what)), -ERANGE,
	       "four times of 2^63-1");
	ok(!strcmp(o.counter, "time_ns") && o.index == 1,
	   "time_ns at the second row: %s", what);
	profile_release(&p);
	profile_init(&p);
	row(&p, "write", 1, 1)->bytes_done = BIG;
	row(&p, "read", 1, 1)->bytes_done = BIG;
	ok(check(&p, &o, what, sizeof(what)) == -ERANGE &&
	   !strcmp(o.counter, "bytes_done"), "bytes too: %s", what);
	profile_release(&p);
	profile_init(&p);
	row(&p, "copy_file_range", 1, 1)->bytes_req = BIG;
	row(&p, "copy_file_range/i386", 1, 1)->bytes_req = BIG;
	is_int(check(&p, &o, what, sizeof(what)), 0,
	       "bytes asked for are no sum (cat asks SSIZE_MAX a call)");
	profile_release(&p);
}

static void test_within_row(void)
{
	struct profile_overflow o;
	struct profile_row *r;
	struct profile p;
	char what[160];

	profile_init(&p);
	r = row(&p, "openat", 10, 10);
	r->errnos[0] = (struct profile_errno){ 2, BIG };
	r->errno_other = 1;
	ok(check(&p, &o, what, sizeof(what)) == -ERANGE && o.within_row &&
	   !strcmp(o.counter, "errnos") && o.index == 0,
	   "errno counts with errno_other");
	is_str(what, "the errno counts of 'openat' add up to more than "
	       "2^63-1", "named by its syscall");
	r->errno_other = 0;
	r->hist[3] = BIG;
	r->hist[9] = 2;
	ok(check(&p, &o, what, sizeof(what)) == -ERANGE &&
	   !strcmp(o.counter, "hist"), "latency buckets: %s", what);
	profile_release(&p);
}

static void test_subs(void)
{
	struct profile_overflow o;
	struct profile_sub *s;
	struct profile p;
	char what[160];
	uint32_t w;

	profile_init(&p);
	row(&p, "write", 2, 2);
	w = (uint32_t)(profile_row_find(&p, "write") - p.rows);
	s = profile_io_get(&p, file(&p, "/tmp/a", FD_REG, 0, 4096, 0),
			   PROFILE_FILE_NONE, w);
	s->size_max = BIG;
	s->bytes_done = BIG;
	s = profile_io_get(&p, file(&p, "/tmp/b", FD_REG, 0, 4096, 0),
			   PROFILE_FILE_NONE, w);
	s->size_max = BIG;
	is_int(check(&p, &o, what, sizeof(what)), 0, "size_max is no sum");
	s->bytes_done = 1;
	ok(check(&p, &o, what, sizeof(what)) == -ERANGE &&
	   o.dim == &profile_dim_file && o.index == 1 &&
	   !strcmp(o.counter, "bytes_done"), "the file rows' bytes");
	is_str(what, "the bytes_done of all file rows add up to more than "
	       "2^63-1", "said so");
	profile_release(&p);
}

static void test_scaled_callsites(void)
{
	struct profile_frame f[1] = { { "main", "/bin/app", 1 } };
	struct profile_callsite *c = calloc(1, sizeof(*c));
	struct profile_breakdown *b;
	struct profile_overflow o;
	struct profile_sub *s;
	struct profile p;
	char what[200];
	int k;

	profile_init(&p);
	row(&p, "write", 10, 10);
	profile_callsite_set(c, f, 1, false);
	b = profile_breakdown_rw(&p, &profile_dim_callsite);
	k = profile_key_get(b, c);
	s = profile_sub_get(b, (uint32_t)k, PROFILE_KEY_NONE, 0);
	s->calls = s->timed = BIG / 10;
	p.stack_sample = 10;
	is_int(check(&p, &o, what, sizeof(what)), 0,
	       "scaled calls of 2^63-1 at most fit");
	s->calls = s->timed = BIG / 10 + 1;
	ok(check(&p, &o, what, sizeof(what)) == -ERANGE &&
	   o.dim == &profile_dim_callsite, "one more, times 10: refused");
	is_str(what, "the calls of all callsite rows, times stack_sample 10, "
	       "add up to more than 2^63-1", "said so");
	p.stack_sample = 0;
	is_int(check(&p, &o, what, sizeof(what)), 0, "unsampled: fits");
	free(c);
	profile_release(&p);
}

int main(void)
{
	test_rows();
	test_within_row();
	test_subs();
	test_scaled_callsites();
	return done_testing();
}
