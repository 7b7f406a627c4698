// SPDX-License-Identifier: MIT
/*
 * The --baseline lines of the header (render/baseline.c): the
 * untraced wall split like time(1) into user, system and waiting, and
 * the traced time in syscalls (waiting calls left out) as a share of
 * that wall: under 100% a share, over it said to be more than the wall
 * (never a share above 100%), "-" when nothing was timed, one unit for
 * both lines chosen by the untraced wall (ms below 1 s), and nothing
 * without a baseline.
 */
#include <stdlib.h>
#include <string.h>
#include "render/render.h"
#include "tap.h"

/* One timed row: calls of which timed, ns corrected and raw. */
static void row(struct profile *p, const char *name, uint64_t calls,
		uint64_t timed, uint64_t ns, uint64_t raw_ns)
{
	struct profile_row *r = profile_row_get(p, name);

	r->calls = calls;
	r->timed = timed;
	r->time_ns = ns;
	r->raw_time_ns = raw_ns;
}

static void with_baseline(struct profile *p, uint64_t wall, uint64_t min,
			  uint64_t max, uint64_t user, uint64_t sys)
{
	p->baseline = (struct profile_baseline){
		.runs = 3, .wall_ns = wall, .wall_min_ns = min,
		.wall_max_ns = max, .user_ns = user, .sys_ns = sys,
	};
}

static char *lines(const struct profile *p, const struct report_opts *o)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	baseline_render_header(m, p, o);
	fclose(m);
	return buf;
}

static void check(const struct profile *p, const struct report_opts *o,
		  const char *want, const char *title)
{
	char *got = lines(p, o);

	is_str(got, want, "%s", title);
	free(got);
}

/* Whether the lines of p (default options) contain what. */
static bool says(const struct profile *p, const char *what)
{
	char *got = lines(p, NULL);
	bool found = strstr(got, what) != NULL;

	free(got);
	return found;
}

static void test_share(void)
{
	struct report_opts raw = { .raw_time = true };
	struct profile p;

	profile_init(&p);
	row(&p, "write", 1000, 1000, 6000000, 9000000);
	check(&p, NULL, "", "no baseline: no lines");
	is_int(baseline_share(&p, NULL) < 0, 1, "no baseline: no share");
	with_baseline(&p, 10000000, 9000000, 12000000, 1000000, 7000000);
	check(&p, NULL,
	      "iotrace: untraced (--baseline, median of 3 runs): 10.000 ms "
	      "wall (9.000..12.000) = 1.000 ms user + 7.000 ms system + "
	      "2.000 ms waiting (90.0% outside user space)\n"
	      "iotrace: time in syscalls (traced) 6.000 ms = 60.0% of the "
	      "untraced wall\n", "a share of the untraced wall");
	ok(baseline_share(&p, NULL) > 0.599 && baseline_share(&p, NULL) < 0.601,
	   "baseline_share: 0.6");
	ok(baseline_outside_user(&p.baseline) > 0.899 &&
	   baseline_outside_user(&p.baseline) < 0.901,
	   "baseline_outside_user: (wall - user) / wall");
	check(&p, &raw,
	      "iotrace: untraced (--baseline, median of 3 runs): 10.000 ms "
	      "wall (9.000..12.000) = 1.000 ms user + 7.000 ms system + "
	      "2.000 ms waiting (90.0% outside user space)\n"
	      "iotrace: time in syscalls (traced) 9.000 ms = 90.0% of the "
	      "untraced wall\n", "--raw-time: raw times against it");
	profile_release(&p);
}

static void test_over_the_wall(void)
{
	struct profile p;

	profile_init(&p);
	row(&p, "write", 1000, 1000, 2500000000, 2600000000);
	with_baseline(&p, 1000000000, 900000000, 1100000000, 800000000,
		      500000000);
	check(&p, NULL,
	      "iotrace: untraced (--baseline, median of 3 runs): 1.000 s "
	      "wall (0.900..1.100) = 0.800 s user + 0.500 s system (more CPU "
	      "than wall: tasks ran in parallel)\n"
	      "iotrace: time in syscalls (traced) 2.500 s is more than the "
	      "untraced wall (250% of it): tracing inflated the per-call "
	      "times, or tasks ran in parallel\n",
	      "more than the wall is said, never a share over 100%; "
	      "seconds from 1 s");
	is_int(baseline_outside_user(&p.baseline) < 0, 1,
	       "more CPU than wall: no share outside user space");
	profile_release(&p);
}

static void test_not_timed(void)
{
	struct profile p;

	profile_init(&p);
	row(&p, "write", 1000, 0, 0, 0);
	with_baseline(&p, 10000000, 10000000, 10000000, 0, 0);
	p.baseline.runs = 1;
	check(&p, NULL,
	      "iotrace: untraced (--baseline, median of 1 run): 10.000 ms "
	      "wall (10.000..10.000) = 0.000 ms user + 0.000 ms system + "
	      "10.000 ms waiting (100.0% outside user space)\n"
	      "iotrace: time in syscalls: - (counted only, not timed)\n",
	      "count-only: '-', not 0.0");
	is_int(baseline_share(&p, NULL) < 0, 1, "count-only: no share");
	profile_release(&p);
}

static void test_waits_left_out(void)
{
	struct profile p;

	profile_init(&p);
	row(&p, "write", 1000, 1000, 6000000, 6000000);
	row(&p, "wait4", 2, 2, 90000000, 90000000);
	with_baseline(&p, 10000000, 10000000, 10000000, 1000000, 7000000);
	check(&p, NULL,
	      "iotrace: untraced (--baseline, median of 3 runs): 10.000 ms "
	      "wall (10.000..10.000) = 1.000 ms user + 7.000 ms system + "
	      "2.000 ms waiting (90.0% outside user space)\n"
	      "iotrace: time in syscalls (traced, waits left out) 6.000 ms = "
	      "60.0% of the untraced wall\n",
	      "wait4 is left out of the share, and the line says so");
	profile_release(&p);
}

/*
 * ext4, dd of 16 MiB rewriting one file: the first run 26.9 ms, the next
 * two paying for the last one's dirty pages.  Under 2x, nothing is said.
 */
static void test_spread(void)
{
	struct profile p;

	profile_init(&p);
	row(&p, "write", 4097, 4097, 30000000, 31000000);
	with_baseline(&p, 43560000, 26900000, 106261000, 0, 38033000);
	check(&p, NULL,
	      "iotrace: untraced (--baseline, median of 3 runs): 43.560 ms "
	      "wall (26.900..106.261) = 0.000 ms user + 38.033 ms system + "
	      "5.527 ms waiting (100.0% outside user space)\n"
	      "iotrace: time in syscalls (traced) 30.000 ms = 68.9% of the "
	      "untraced wall\n"
	      "iotrace: the untraced runs differ by 4.0x (26.900..106.261 "
	      "ms): they did not run alike (a command that rewrites one file "
	      "pays for the last run's dirty pages), and the share above is "
	      "as uncertain\n", "runs 4x apart: said");
	p.baseline.wall_max_ns = 53799999;
	ok(!says(&p, "differ"), "1.99x apart: nothing said");
	p.baseline.runs = 1;
	p.baseline.wall_max_ns = 106261000;
	ok(!says(&p, "differ"), "one run: no spread");
	profile_release(&p);
}

/* The streams line: said only where a known kind differs. */
static char *streams(const struct profile_baseline *b)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	baseline_render_streams(m, b);
	fclose(m);
	return buf;
}

static void test_streams(void)
{
	struct profile_baseline b = { .runs = 3 };
	char *got;

	strcpy(b.in, "/dev/null");
	strcpy(b.out, "/dev/null");
	got = streams(&b);
	is_str(got, "", "not known for the traced run: nothing");
	free(got);
	strcpy(b.traced_in, "/dev/null");
	strcpy(b.traced_out, "/dev/null");
	got = streams(&b);
	is_str(got, "", "alike: nothing");
	free(got);
	strcpy(b.traced_out, "a pipe");
	got = streams(&b);
	is_str(got, "iotrace: the untraced runs wrote to /dev/null, the "
	       "traced run wrote to a pipe: their walls may differ\n",
	       "stdout a pipe: said");
	free(got);
	strcpy(b.traced_in, "a terminal");
	got = streams(&b);
	is_str(got, "iotrace: the untraced runs read /dev/null and wrote to "
	       "/dev/null, the traced run read a terminal and wrote to a "
	       "pipe: their walls may differ\n", "both: one line");
	free(got);
	b.runs = 0;
	got = streams(&b);
	is_str(got, "", "no baseline: nothing");
	free(got);
}

int main(void)
{
	test_streams();
	test_spread();
	test_share();
	test_over_the_wall();
	test_not_timed();
	test_waits_left_out();
	return done_testing();
}
