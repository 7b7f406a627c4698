// SPDX-License-Identifier: MIT
/*
 * Unit tests for the workloads' shared parsing (dd's size suffixes, the
 * key table parser and its one-line errors) and for the self-timing
 * histogram behind --truth medians.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/tap.h"
#include "workloads/workload.h"

static const struct {
	const char *in;
	int err;
	uint64_t want;
} sizes[] = {
	{ "0", 0, 0 },			{ "1130", 0, 1130 },
	{ "2c", 0, 2 },			{ "3w", 0, 6 },
	{ "2b", 0, 1024 },		{ "4K", 0, 4096 },
	{ "4k", 0, 4096 },		{ "4KiB", 0, 4096 },
	{ "4KB", 0, 4000 },		{ "4kB", 0, 4000 },
	{ "1M", 0, 1048576 },		{ "1MB", 0, 1000000 },
	{ "1G", 0, 1073741824 },	{ "1GB", 0, 1000000000 },
	{ "2T", 0, 2199023255552ull },	{ "", -EINVAL, 0 },
	{ "K", -EINVAL, 0 },		{ "-1", -EINVAL, 0 },
	{ "1.5K", -EINVAL, 0 },		{ "12Q", -EINVAL, 0 },
	{ "1 K", -EINVAL, 0 },		{ "0x10", -EINVAL, 0 },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "18446744073709551616", -ERANGE, 0 },
	{ "20000000000T", -ERANGE, 0 },
};

static void test_sizes(void)
{
	uint64_t got;
	size_t i;
	int err;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		got = 0;
		err = wl_parse_size(sizes[i].in, &got);
		is_int(err, sizes[i].err, "size '%s': error %d", sizes[i].in,
		       sizes[i].err);
		if (!sizes[i].err)
			is_int(got, sizes[i].want, "size '%s' = %llu",
			       sizes[i].in, (unsigned long long)sizes[i].want);
	}
}

/* Parses words for workload w; returns the error, message in a->err. */
static int parse(struct workload_args *a, const struct workload *w,
		 const char *line)
{
	char buf[512], *argv[16], *p = buf, *sp;
	int argc = 0;

	memset(a, 0, sizeof(*a));
	a->wl = w;
	snprintf(buf, sizeof(buf), "%s", line);
	while (*p && argc < 16) {
		argv[argc++] = p;
		sp = strchr(p, ' ');
		if (!sp)
			break;
		*sp = '\0';
		p = sp + 1;
	}
	return w->parse(a, argc, argv);
}

static void test_dd_keys(void)
{
	struct workload_args *a = calloc(1, sizeof(*a));

	is_int(parse(a, &workload_dd, "bs=1130 size=20971520"), 0,
	       "dd: size= and bs= parse");
	is_int(a->u.dd.count, 18559, "size=20971520 bs=1130: count 18559");
	is_int(parse(a, &workload_dd, "bs=1K size=4K"), 0, "dd: exact size");
	is_int(a->u.dd.count, 4, "size=4K bs=1K: count 4");
	is_int(parse(a, &workload_dd, "oflag=direct,dsync conv=fsync"), 0,
	       "dd: flag lists");
	is_int(a->u.dd.oflag, DDF_DIRECT | DDF_DSYNC, "oflag=direct,dsync");
	is_int(a->u.dd.count, 2048, "no if=, count=, size=: 1M worth");
	is_int(parse(a, &workload_dd, "bs=3000"), 0, "dd: bs alone");
	is_int(a->u.dd.count, 350, "bs=3000 alone: ceil(1M/3000) blocks");
	is_int(parse(a, &workload_dd, "if=/dev/zero"), 0, "dd: if= given");
	is_int(a->u.dd.count, UINT64_MAX, "if= given: until end of input");
	is_int(parse(a, &workload_dd, "bs=0"), -EINVAL, "bs=0 refused");
	is_str(a->err, "key 'bs': must be more than 0", "bs=0 message");
	is_int(parse(a, &workload_dd, "bs=2G"), -EINVAL, "bs=2G refused");
	is_str(a->err, "key 'bs': '2G' is larger than 1073741824 bytes",
	       "bs=2G message");
	is_int(parse(a, &workload_dd, "count=-1"), -EINVAL, "count=-1");
	is_str(a->err, "key 'count': '-1' must not be negative",
	       "count=-1 message");
	is_int(parse(a, &workload_dd, "oflag=direct,bogus"), -EINVAL,
	       "unknown flag word");
	is_str(a->err, "key 'oflag': unknown word 'bogus'", "flag message");
	is_int(parse(a, &workload_dd, "colour=red"), -EINVAL, "unknown key");
	is_str(a->err, "unknown key 'colour'", "unknown key message");
	is_int(parse(a, &workload_dd, "bs"), -EINVAL, "not KEY=VALUE");
	is_int(parse(a, &workload_dd, "count=1 size=1"), -EINVAL,
	       "count and size conflict");
	free(a);
}

static void test_choices(void)
{
	struct workload_args *a = calloc(1, sizeof(*a));

	is_int(parse(a, &workload_bufwrite, "buf=0 fsync=every"), 0,
	       "bufwrite: buf=0 allowed");
	is_int(a->u.bufwrite.fsync, BW_FSYNC_EVERY, "fsync=every");
	is_int(parse(a, &workload_bufwrite, "fsync=end,every"), -EINVAL,
	       "a choice takes one word");
	is_int(parse(a, &workload_bufwrite, "unit=0"), -EINVAL, "unit=0");
	is_int(parse(a, &workload_splice, "mode=copy_file_range bs=64K"), 0,
	       "splice: mode word");
	is_int(a->u.splice.mode, SP_COPY_FILE_RANGE, "mode=copy_file_range");
	is_int(parse(a, &workload_splice, "mode=mmap"), -EINVAL,
	       "unknown mode");
	free(a);
}

/* Medians from the histogram: exact below 64 ns, within 1/128 above. */
static void test_median(void)
{
	struct selftime *st = selftime_map();
	uint64_t m;
	int i;

	ok(st != NULL, "shared mapping");
	if (!st)
		return;
	for (i = 1; i <= 5; i++)
		selftime_add(st, ST_WRITE, (uint64_t)i * 10);
	is_int(selftime_median(&st->rows[ST_WRITE]), 30, "median of 10..50");
	is_int(st->rows[ST_WRITE].total_ns, 150, "total kept exactly");
	for (i = 0; i < 3; i++)
		selftime_add(st, ST_READ, 1400);
	selftime_add(st, ST_READ, 45000);
	selftime_add(st, ST_READ, 45000);
	m = selftime_median(&st->rows[ST_READ]);
	ok(m >= 1400 - 1400 / 128 && m <= 1400 + 1400 / 128,
	   "median 1400 within 1/128 (got %llu)", (unsigned long long)m);
	is_int(selftime_median(&st->rows[ST_FSYNC]), 0, "no samples: 0");
	selftime_unmap(st);
}

int main(void)
{
	test_sizes();
	test_dd_keys();
	test_choices();
	test_median();
	return done_testing();
}
