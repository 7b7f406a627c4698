// SPDX-License-Identifier: MIT
/*
 * Latency percentiles from the log2 histogram (bucket upper bounds,
 * capped by the row's max) and the --histogram chart.
 */
#include <stdlib.h>
#include <string.h>
#include "render/render.h"
#include "tap.h"

/* Adds n calls of ns each through profile_add, as the tracer would. */
static void calls(struct profile *p, int n, uint64_t ns)
{
	struct tracer_event ev = { .arch = p->native_arch,
				   .nr = syscall_number("write"),
				   .exit_ns = ns };

	while (n--)
		profile_add(p, &ev);
}

static void test_percentiles(void)
{
	const struct profile_row *r;
	struct profile p;

	profile_init(&p);
	calls(&p, 90, 1500);		/* bucket [1024, 2048) */
	calls(&p, 9, 5000);		/* bucket [4096, 8192) */
	calls(&p, 1, 100000);		/* bucket [65536, 131072) */
	r = profile_row_find(&p, "write");
	is_int(profile_row_percentile(r, 50), 2048, "p50: bucket bound");
	is_int(profile_row_percentile(r, 90), 2048, "p90: the 90th call");
	is_int(profile_row_percentile(r, 91), 8192, "p91: next bucket");
	is_int(profile_row_percentile(r, 99), 8192, "p99");
	is_int(profile_row_percentile(r, 100), 100000, "p100: capped at max");
	is_int(column_find("p50") != NULL, 1, "p50 is a -S key");
	profile_release(&p);
	profile_init(&p);
	calls(&p, 3, 1500);
	r = profile_row_find(&p, "write");
	is_int(profile_row_percentile(r, 50), 1500, "one bucket: max caps it");
	profile_release(&p);
}

static void test_chart(void)
{
	struct report_opts o = { .histogram = true };
	char *text = NULL, *line;
	unsigned long long n, sum = 0;
	size_t len = 0;
	struct profile p;
	FILE *m;

	profile_init(&p);
	calls(&p, 90, 1500);
	calls(&p, 10, 5000);
	m = open_memstream(&text, &len);
	histogram_render(m, &p, &o);
	fclose(m);
	ok(strstr(text, "write: 100 timed calls") != NULL, "title");
	ok(strstr(text, "       1024 -> 2047                90  |*****") !=
	   NULL, "the 1024 bucket");
	ok(strstr(text, "       2048 -> 4095                 0  |     ") !=
	   NULL, "empty buckets between are shown");
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%*u -> %*s %llu", &n) == 1)
			sum += n;
	is_int(sum, 100, "bucket counts sum to the calls");
	free(text);
	o.histogram = false;
	text = NULL;
	m = open_memstream(&text, &len);
	histogram_render(m, &p, &o);
	fclose(m);
	is_int(len, 0, "nothing without --histogram");
	free(text);
	profile_release(&p);
}

/*
 * Calls whose raw time was at most the stop cost come out of the
 * correction at 0 ns: counted on a line of their own, never drawn as a
 * measured "0 -> 1" bucket; the chart's counts still add up to the calls.
 */
static void test_clamped(void)
{
	struct report_opts o = { .histogram = true };
	unsigned long long n, sum = 0;
	char *text = NULL, *line;
	size_t len = 0;
	struct profile p;
	FILE *m;

	profile_init(&p);
	p.overhead_ns = 1000;
	calls(&p, 5, 700);		/* 700 - 1000: clamped to 0 */
	calls(&p, 1, 1000);		/* exactly the cost: 0 */
	calls(&p, 3, 1600);		/* 600 ns: bucket [512, 1024) */
	m = open_memstream(&text, &len);
	histogram_render(m, &p, &o);
	fclose(m);
	ok(strstr(text, " 0 -> 1 ") == NULL, "no measured 0 -> 1 bucket");
	ok(strstr(text, "      below the correction          6  not measured:"
		  " their time less the 1000 ns stop cost") != NULL,
	   "the clamped calls on a line of their own");
	ok(strstr(text, "        512 -> 1023                 3  |") != NULL,
	   "the measured bucket");
	ok(strstr(text, "          2 -> 3 ") == NULL,
	   "the chart starts at the first measured bucket");
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "%*u -> %*s %llu", &n) == 1 ||
		    sscanf(line, " below the correction %llu", &n) == 1)
			sum += n;
	is_int(sum, 9, "the counts add up to the calls");
	free(text);
	profile_release(&p);
}

int main(void)
{
	test_percentiles();
	test_chart();
	test_clamped();
	return done_testing();
}
