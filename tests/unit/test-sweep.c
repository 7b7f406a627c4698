// SPDX-License-Identifier: MIT
/*
 * Sweep points (render/sweep.c, sweep-table.c, svg.c): the wall,
 * spread and throughput of a point come from its untraced runs (the
 * profile's baseline), the calls and times from the traced run; bytes
 * are those that reached the destination, so the pipe in the middle of a
 * splice copy or between two traced tasks counts once; the best point
 * is chosen by the untraced figures and is never a failed one; a failed
 * point reads "failed" and a count-only one "-" where nothing was timed.
 */
#include <stdlib.h>
#include <string.h>
#include "render/render.h"
#include "render/svg-int.h"
#include "tap.h"
#include "profile-fixtures.h"

#define NONE PROFILE_FILE_NONE

/* n calls of a data syscall on (f, f2), each moving ret bytes in ns. */
static void add_io(struct profile *p, const char *name, uint32_t f,
		   uint32_t f2, int n, int64_t ret, uint64_t ns, bool timed)
{
	struct tracer_event ev = {
		.tid = 1, .arch = p->native_arch, .nr = syscall_number(name),
		.ret = ret, .entry_ns = 1000, .exit_ns = 1000 + ns,
		.flags = timed ? 0 : EVF_COUNT_ONLY,
	};
	struct profile_row *r = profile_row_get(p, name);

	ev.args[r->io_arg] = (uint64_t)ret;
	while (n--) {
		profile_add(p, &ev);
		profile_add_io(p, (uint32_t)(r - p->rows), f, f2, &ev);
	}
}

static void test_bytes(void)
{
	struct profile p;
	uint32_t in, out, pipe, zero, null, err;

	/* splice mode: file -> pipe -> file, 16 x 64 KiB, plus a message. */
	profile_init(&p);
	in = file(&p, "/tmp/in", FD_REG, 0, 4096, 512);
	pipe = file(&p, "pipe:[1]", FD_PIPE, 0, 4096, 0);
	out = file(&p, "/tmp/out", FD_REG, 0, 4096, 512);
	err = file(&p, "/dev/pts/0", FD_CHR, 0, 1024, 0);
	add_io(&p, "splice", in, pipe, 16, 65536, 1000, true);
	add_io(&p, "splice", pipe, out, 16, 65536, 1000, true);
	add_io(&p, "write", err, NONE, 1, 100, 1000, true);
	is_int(profile_row_find(&p, "splice")->bytes_done, 2 * 16 * 65536,
	       "the splice row counts both legs");
	is_int(sweep_bytes_delivered(&p), 16 * 65536 + 100,
	       "splice through a pipe: the bytes once");
	profile_release(&p);

	/* dd | cat >/dev/null traced with -f: the pipe is inside. */
	profile_init(&p);
	zero = file(&p, "/dev/zero", FD_CHR, 0, 4096, 0);
	pipe = file(&p, "pipe:[2]", FD_PIPE, 0, 4096, 0);
	null = file(&p, "/dev/null", FD_CHR, 0, 4096, 0);
	add_io(&p, "read", zero, NONE, 10, 4096, 1000, true);
	add_io(&p, "write", pipe, NONE, 10, 4096, 1000, true);
	add_io(&p, "read", pipe, NONE, 10, 4096, 1000, true);
	add_io(&p, "write", null, NONE, 10, 4096, 1000, true);
	is_int(sweep_bytes_delivered(&p), 10 * 4096,
	       "a pipe between traced tasks: the bytes once");
	profile_release(&p);

	/* A pipe only written (to a reader outside the run) is the end. */
	profile_init(&p);
	zero = file(&p, "/dev/zero", FD_CHR, 0, 4096, 0);
	pipe = file(&p, "pipe:[3]", FD_PIPE, 0, 4096, 0);
	add_io(&p, "read", zero, NONE, 4, 512, 1000, true);
	add_io(&p, "write", pipe, NONE, 4, 512, 1000, true);
	is_int(sweep_bytes_delivered(&p), 4 * 512, "a pipe out of the run");
	profile_release(&p);

	/* Reads only (a checksum): what came in. */
	profile_init(&p);
	in = file(&p, "/tmp/in", FD_REG, 0, 4096, 512);
	add_io(&p, "pread64", in, NONE, 8, 4096, 1000, true);
	is_int(sweep_bytes_delivered(&p), 8 * 4096, "reads only");
	profile_release(&p);

	/* No per-file rows (an strace table): the dominant syscall's. */
	profile_init(&p);
	profile_row_get(&p, "write")->calls = 3;
	profile_row_get(&p, "write")->bytes_done = 300;
	is_int(sweep_bytes_delivered(&p), 300, "no files: the dominant row");
	profile_release(&p);
}

/* A traced dd-like run: n writes of bs bytes, 10 us each (traced). */
static void traced_dd(struct profile *p, int n, int64_t bs, bool timed)
{
	uint32_t out;

	profile_init(p);
	out = file(p, "/tmp/out", FD_REG, 0, 4096, 512);
	add_io(p, "write", out, NONE, n, bs, 10000, timed);
	p->wall_ns = (uint64_t)n * 20000;	/* tracing made it slow */
	p->exit.known = true;
}

static void test_point(void)
{
	struct sweep_point pt;
	struct profile p;

	traced_dd(&p, 1000, 1024, true);
	memset(&pt, 0, sizeof(pt));
	sweep_point_from_profile(&pt, &p);
	is_int(pt.runs, 0, "no baseline: no untraced runs");
	is_int(pt.wall_ns, 20000000, "no baseline: the traced wall");
	p.baseline = (struct profile_baseline){ 3, 2000000, 1900000, 2500000,
						100000, 1500000, "", "", "", "" };
	sweep_point_from_profile(&pt, &p);
	is_int(pt.runs, 3, "three untraced runs");
	is_int(pt.wall_ns, 2000000, "the wall is the untraced median");
	is_int(pt.wall_max_ns - pt.wall_min_ns, 600000, "its spread");
	is_int(pt.bytes, 1024000, "bytes");
	ok(sweep_point_mbps(&pt) > 511.9 && sweep_point_mbps(&pt) < 512.1,
	   "MB/s over the untraced wall: 512");
	is_int(pt.dominant_calls, 1000, "calls from the traced run");
	is_int(pt.syscall_ns, 10000000, "times from the traced run");
	pt.failed = true;
	ok(sweep_point_mbps(&pt) < 0, "a failed point has no throughput");
	profile_release(&p);
}

static void point(struct sweep_point *pt, const char *v, uint64_t wall,
		  uint64_t bytes, uint64_t calls, uint64_t ns)
{
	memset(pt, 0, sizeof(*pt));
	snprintf(pt->value, sizeof(pt->value), "%s", v);
	pt->runs = 3;
	pt->wall_ns = pt->wall_min_ns = pt->wall_max_ns = wall;
	pt->bytes = bytes;
	snprintf(pt->dominant, sizeof(pt->dominant), "write");
	pt->dominant_calls = pt->calls = calls;
	pt->dominant_timed = ns ? calls : 0;
	pt->timed = ns > 0;
	pt->dominant_ns = pt->syscall_ns = ns;
}

static char *table(const struct sweep *s)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	sweep_table_render(m, s);
	fclose(m);
	return buf;
}

/* The row of the table whose first column is v; "" if none. */
static const char *line_of(const char *t, const char *v)
{
	const char *l;
	char want[32];

	for (l = t; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		snprintf(want, sizeof(want), "%10s ", v);
		if (strlen(l) > 12 && !strncmp(l + 2, want, strlen(want)))
			return l;
	}
	return "";
}

static void test_best_and_table(void)
{
	struct sweep_point pts[3];
	struct sweep s = { .key = "bs", .repeat = 3, .npoints = 3,
			   .points = pts };
	char *t;

	/*
	 * Traced, 512 spends 20x the time of 4K in syscalls; untraced it
	 * is 2.3x slower, and 64K failed: the best is 4K, by MB/s.
	 */
	point(&pts[0], "512", 230000000, 16777216, 32768, 400000000);
	point(&pts[1], "4K", 100000000, 16777216, 4096, 20000000);
	point(&pts[2], "64K", 0, 0, 2, 40000);
	pts[2].failed = true;
	pts[2].status = 1;
	is_int(sweep_best(&s), 1, "best by untraced MB/s, never failed");
	t = table(&s);
	ok(strstr(t, "untraced (median of 3) -----") &&
	   strstr(t, " traced (1 run) ---"),
	   "column groups say which is which");
	ok(!strncmp(line_of(t, "4K"), "*", 1), "the best row is marked");
	ok(strstr(line_of(t, "512"), " >100% "), "over the wall: >100%%");
	ok(strstr(line_of(t, "64K"), "         -        -    failed write"),
	   "a failed point: no wall, 'failed' for MB/s");
	ok(!strstr(t, "apart"), "runs alike: nothing said of their spread");
	free(t);
	/* 512's runs 4x apart, 4K's 1.99x: only 512 is said not alike. */
	pts[0].wall_min_ns = 100000000;
	pts[0].wall_max_ns = 400000000;
	pts[1].wall_max_ns = 199000000;
	t = table(&s);
	ok(strstr(t, "\nuntraced runs 2x apart or more, which did not run "
		  "alike (a command that rewrites one file pays for the last "
		  "run's dirty pages): bs=512 (4.0x)\n") != NULL,
	   "runs 2x apart or more are named, those under 2x not");
	free(t);
	pts[0].wall_min_ns = pts[0].wall_max_ns = pts[0].wall_ns;
	pts[1].wall_max_ns = pts[1].wall_ns;
	pts[1].failed = pts[0].failed = true;
	is_int(sweep_best(&s), 3, "every point failed: no best");
	t = table(&s);
	ok(strstr(t, "* best: none, every point failed\n") != NULL,
	   "... and the table says so");
	free(t);
}

static void test_count_only(void)
{
	struct sweep_point pts[2];
	struct sweep s = { .key = "buf", .repeat = 1, .npoints = 2,
			   .points = pts };
	char *t;

	point(&pts[0], "0", 40000000, 0, 10000, 0);
	point(&pts[1], "64", 3000000, 0, 157, 0);
	is_int(sweep_best(&s), 1, "no bytes known: the shortest wall");
	t = table(&s);
	ok(strstr(line_of(t, "0"), "    0.040    0.000         - write "
		  "               10000          -          -      -"),
	   "count-only: '-' for MB/s and every time, never 0.0");
	ok(strstr(t, "* best: shortest untraced wall time, its spread over "
		  "the untraced runs clear of every other point's\n") != NULL,
	   "best by wall");
	free(t);
}

/* Adds a finding of rule about `about` to pt, as findings_collect() would. */
static void say(struct sweep_point *pt, const char *rule, const char *about,
		const char *text)
{
	struct findings *fs = &pt->findings;

	fs->v = realloc(fs->v, (fs->n + 1) * sizeof(*fs->v));
	fs->v[fs->n++] = (struct finding){ rule, strdup(about), strdup(text) };
}

#define MISFIT "write to /x: 18,560 of 18,560 calls asked 1,130 bytes, " \
	"which neither fills nor divides its block size 4096: through the " \
	"page cache this costs little, the kernel merges partial blocks; it " \
	"matters with O_DIRECT or O_SYNC."

static void test_findings_whole(void)
{
	struct sweep_point pts[3];
	struct sweep s = { .key = "bs", .repeat = 1, .npoints = 3,
			   .points = pts };
	char copy[700], want[720], *t;
	size_t i;

	point(&pts[0], "1024", 20000000, 20971520, 20480, 10000000);
	point(&pts[1], "1130", 20000000, 20972800, 18560, 10000000);
	point(&pts[2], "4096", 10000000, 20971520, 5120, 10000000);
	say(&pts[1], "block-misfit", "write /x", MISFIT);
	memset(copy, 'p', sizeof(copy) - 1);
	copy[sizeof(copy) - 1] = '\0';
	memcpy(copy, "read+write pairs ", 17);
	say(&pts[2], "user-copy", "/in /out", copy);
	t = table(&s);
	ok(strstr(t, "Findings that differ between points:\n"
		  "  bs=1130: " MISFIT "\n") != NULL,
	   "a finding with '; ' in it, on one line, whole");
	ok(!strstr(t, "\n  bs=1130: it matters"), "... not split there");
	snprintf(want, sizeof(want), "\n  bs=4096: %s\n", copy);
	ok(strstr(t, want) != NULL, "a finding of %zu bytes, whole",
	   strlen(copy));
	free(t);
	for (i = 0; i < 3; i++)
		sweep_point_release(&pts[i]);
}

#define DEVICE(n) n " calls waited for the device (O_DIRECT or O_SYNC " \
	"I/O) and took 62% of syscall time."
#define TINY(n) "write: 20,483 calls averaging " n " bytes."

static void test_findings_once(void)
{
	struct sweep_point pts[3];
	struct sweep s = { .key = "bs", .repeat = 1, .npoints = 3,
			   .points = pts };
	char *t;
	size_t i;

	point(&pts[0], "1024", 20000000, 20971520, 20480, 10000000);
	point(&pts[1], "1130", 20000000, 20972800, 18560, 10000000);
	point(&pts[2], "4096", 10000000, 20971520, 5120, 10000000);
	say(&pts[0], "tiny-io", "write", TINY("1,023"));
	say(&pts[0], "after-blocking", "", DEVICE("20,480"));
	say(&pts[1], "tiny-io", "write", TINY("1,129"));
	say(&pts[1], "block-misfit", "write /x", MISFIT);
	say(&pts[2], "tiny-io", "write", TINY("4,095"));
	say(&pts[2], "after-blocking", "", DEVICE("5,120"));
	t = table(&s);
	ok(strstr(t, "\nFindings that differ between points:\n"
		  "  bs=1024,4096 (figures at bs=1024): " DEVICE("20,480")
		  "\n  bs=1130: " MISFIT "\n") != NULL,
	   "each finding once, with the points it holds at");
	ok(!strstr(t, "bs=4096: "), "... not again at a later point");
	ok(!strstr(t, "tiny-io") && !strstr(t, "averaging"),
	   "a finding at every point is left out, whatever its figures");
	free(t);
	free(pts[2].findings.v[1].text);
	pts[2].findings.v[1].text = strdup(DEVICE("20,480"));
	t = table(&s);
	ok(strstr(t, "\n  bs=1024,4096: " DEVICE("20,480") "\n") != NULL,
	   "the same figures at each: nothing more said");
	free(t);
	for (i = 0; i < 3; i++)
		sweep_point_release(&pts[i]);
}

static int count(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what)))
		n++, s++;
	return n;
}

/*
 * 1024 and 1130 through the page cache: 421 against 376 MB/s with
 * overlapping spreads is a tie, not a best; 4K clear of both is best.
 */
static void test_noise(void)
{
	struct sweep_point pts[3];
	struct sweep s = { .key = "bs", .repeat = 3, .npoints = 2,
			   .points = pts };
	struct sweep_judgement j;
	char *t;

	point(&pts[0], "1024", 49800000, 20971520, 20480, 1000);
	point(&pts[1], "1130", 55800000, 20971520, 18559, 1000);
	pts[0].wall_min_ns = 47600000, pts[0].wall_max_ns = 59400000;
	pts[1].wall_min_ns = 51800000, pts[1].wall_max_ns = 61700000;
	sweep_judge(&s, &j);
	is_int(j.verdict, SWEEP_TIE, "overlapping spreads: a tie");
	is_int(j.nties, 2, "... of both points");
	t = table(&s);
	ok(!strchr(t, '*'), "no best marker on a tie");
	ok(line_of(t, "1024")[0] == '~' && line_of(t, "1130")[0] == '~',
	   "both rows marked as tied");
	ok(strstr(t, "\n~ tie: bs=1024,1130 are within noise") != NULL,
	   "the tie said, with its points");
	free(t);
	/* 1130's slowest run clears 1024's fastest: apart, a best. */
	pts[1].wall_min_ns = 59500000;
	pts[1].wall_ns = 60000000;
	pts[1].wall_max_ns = 61700000;
	sweep_judge(&s, &j);
	is_int(j.verdict, SWEEP_BEST, "spreads apart: a best");
	s.npoints = 3;
	point(&pts[2], "4K", 30000000, 20971520, 5120, 1000);
	pts[2].runs = 1;
	sweep_judge(&s, &j);
	is_int(j.verdict, SWEEP_ONE_RUN, "a point of one run: no verdict");
	t = table(&s);
	ok(!strchr(t, '*') && !strchr(t, '~'), "... and no marker");
	ok(strstr(t, "\nbest: not told from noise with 1 run per point "
		  "(highest MB/s: bs=4K);") != NULL, "... said so");
	free(t);
	pts[2].failed = true;
	sweep_judge(&s, &j);
	is_int(j.verdict, SWEEP_BEST, "a failed point is not judged");
}

/* Log past a 10x span, ticks at 1, 2, 5 times a power of ten. */
static void test_axis(void)
{
	static const double narrow[] = { 376, 421, 902.6 };
	static const double wide[] = { 10, 74, 421 };
	struct svg_axis a;
	char buf[32];

	svg_axis_fit(&a, narrow, 3);
	ok(!a.log && a.lo == 0 && a.hi == 1000, "under 10x: linear, 0-1000");
	is_int((int)a.nticks, 6, "... ticks every 200");
	ok(a.ticks[1] == 200 && a.ticks[5] == 1000, "... round ones");
	svg_axis_fit(&a, wide, 3);
	ok(a.log && a.lo == 10 && a.hi == 1000, "over 10x: log, decades");
	ok(svg_axis_at(&a, 100) == 0.5, "... 100 in the middle");
	svg_tick_label(buf, sizeof(buf), 20000);
	is_str(buf, "20K", "20000 reads 20K");
	svg_tick_label(buf, sizeof(buf), 1500);
	is_str(buf, "1500", "1500 as it is");
}

/* Close values on a log axis take two rows of labels, not one. */
static void test_svg_labels(void)
{
	struct sweep_point pts[3];
	struct sweep s = { .key = "bs", .repeat = 3, .npoints = 3,
			   .points = pts };
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);
	const char *a, *b;

	point(&pts[0], "64", 2000000000, 20971520, 327680, 1000);
	point(&pts[1], "1024", 49800000, 20971520, 20480, 1000);
	point(&pts[2], "1130", 55800000, 20971520, 18559, 1000);
	pts[0].x = 64, pts[1].x = 1024, pts[2].x = 1130;
	svg_render(m, &s);
	fclose(m);
	a = strstr(buf, ">1024</text>");
	b = strstr(buf, ">1130</text>");
	ok(a && b, "both labels drawn");
	while (a && a > buf && a[-1] != '\n')
		a--;
	while (b && b > buf && b[-1] != '\n')
		b--;
	ok(a && b && strcmp(strstr(a, " y="), strstr(b, " y=")) &&
	   strncmp(strstr(a, " y="), strstr(b, " y="), 8),
	   "1024 and 1130 on different rows");
	ok(strstr(buf, "class=\"axis log\"") != NULL,
	   "10 to 421 MB/s: a log axis");
	free(buf);
}

static void test_svg(void)
{
	struct sweep_point pts[2];
	struct sweep s = { .key = "bs", .repeat = 3, .npoints = 2,
			   .points = pts };
	char *buf = NULL;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	point(&pts[0], "512", 230000000, 16777216, 32768, 400000000);
	point(&pts[1], "4K", 0, 0, 2, 40000);
	pts[1].failed = true;
	svg_render(m, &s);
	fclose(m);
	ok(strstr(buf, "MB/s (untraced wall)") &&
	   strstr(buf, "of the dominant syscall (traced)"),
	   "axes say which is which");
	ok(strstr(buf, ">failed (exit 0)</text>") != NULL,
	   "the failed point is said");
	is_int(count(buf, "<circle"), 1,
	       "no throughput circle for the failed point");
	is_int(count(buf, "<rect class=\"point\""), 1,
	       "nor a call count: a failed point is not data");
	free(buf);
}

int main(void)
{
	test_bytes();
	test_point();
	test_best_and_table();
	test_count_only();
	test_findings_whole();
	test_findings_once();
	test_svg();
	test_noise();
	test_axis();
	test_svg_labels();
	return done_testing();
}
