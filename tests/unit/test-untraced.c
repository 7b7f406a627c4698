// SPDX-License-Identifier: MIT
/*
 * Unit tests of the untraced picture (profile/untraced.c): the
 * range it gives for what a run would take untraced, hand-computed from
 * the stop costs, so that a change in the arithmetic shows up here.
 */
#include <string.h>
#include "render/render.h"
#include "tests/unit/tap.h"

#define MS 1000000ull

static void row(struct profile *p, const char *name, uint64_t calls,
		uint64_t raw_ns, uint64_t ns)
{
	struct profile_row *r = profile_row_get(p, name);

	r->calls = r->timed = calls;
	r->raw_time_ns = raw_ns;
	r->time_ns = ns;
}

/* 2 s traced, 10,000 stops, 0.5 s of tracer work, 100 us per stop. */
static void costed(struct profile *p)
{
	profile_init(p);
	p->exit.known = true;
	p->wall_ns = 2000 * MS;
	p->stops = 10000;
	p->overhead_ns = 10000;
	p->cost.known = p->cost.cpu_known = true;
	p->cost.busy_ns = 500 * MS;
	p->cost.stop_lo_ns = p->cost.stop_hi_ns = 100000;
	p->cost.overhead_lo_ns = 9000;
	p->cost.overhead_hi_ns = 12000;
	p->cost.user_ns = 100 * MS;
}

static void test_range(void)
{
	struct profile_estimate e;
	struct profile p;

	costed(&p);
	/* 5,000 writes, 300 ms raw: 250 ms corrected, 210 ms at least. */
	row(&p, "write", 5000, 300 * MS, 250 * MS);
	profile_untraced(&p, &e);
	ok(e.known, "known with calibrated costs");
	is_int(e.added_ns / MS, 1500, "added: 0.5 s work + 10,000 x 100 us");
	is_int(e.added_lo_ns / MS, 1250, "low: stops at 75 us");
	ok(e.added_ns + e.wall_ns == p.wall_ns, "added and untraced: the wall");
	is_int(e.added_hi_ns / MS, 1690, "high: all but the least untraced");
	is_int(e.wall_hi_ns / MS, 750, "at most 2 - 1.25 s");
	is_int(e.wall_lo_ns / MS, 100 + 210, "at least user CPU + syscalls");
	is_int(e.wall_ns / MS, 500, "estimate 2 - 1.5 s");
	ok(!e.resolved, "0.325-0.75 s around 0.5 s is not resolved");
	is_int(e.syscall_ns / MS, 250, "syscalls: the corrected time");
	is_int(e.resolution_ns, 2000, "resolution: the farther quartile");
	profile_release(&p);
}

static void test_resolved_and_waits(void)
{
	struct profile_estimate e;
	struct profile p;

	/*
	 * 1,000 stops: at most 2 - 0.5 - 0.075 s, estimate 1.4 s, and no
	 * range narrower than a tenth of it each way.  A lone task's waits
	 * are for what is not traced (here a child it does not follow):
	 * tracing does not shorten them, so they are in the floor.
	 */
	costed(&p);
	p.stops = 1000;
	row(&p, "fsync", 10, 200 * MS, 200 * MS);
	row(&p, "wait4", 1, 400 * MS, 400 * MS);
	profile_untraced(&p, &e);
	is_int(e.wait_ns / MS, 400, "wait4 counted as waiting");
	is_int(e.syscall_ns / MS, 200, "and left out of syscall time");
	is_int(e.wall_hi_ns / MS, 1540, "at most 2 - 0.575 s, or 1.4 s + 10%%");
	is_int(e.wall_lo_ns / MS, 699, "at least 0.1 s user + ~0.2 s fsync "
	       "+ ~0.4 s wait4");
	is_int(e.wall_ns / MS, 1400, "estimate 2 - 0.6 s");
	ok(!e.resolved, "0.7-1.54 s is wider than half of 1.4 s");
	p.cost.user_ns = 700 * MS;
	profile_untraced(&p, &e);
	ok(e.resolved, "resolved once the range narrows");
	/* In a tree the wait may be for a traced task's work: not in it. */
	p.cost.user_ns = 100 * MS;
	p.cost.many_tasks = true;
	p.ncpus = 2;
	profile_untraced(&p, &e);
	is_int(e.wall_lo_ns / MS, 45, "a tree: a CPU's share of the user "
	       "CPU, less a tenth");
	profile_release(&p);
}

/* A sleep runs as long traced as untraced: no run of any tree is shorter. */
static void test_sleep_floor(void)
{
	struct profile_estimate e;
	struct profile_row *r;
	struct profile p;

	costed(&p);
	p.stops = 1000;
	p.cost.many_tasks = true;
	row(&p, "clock_nanosleep", 2, 1200 * MS, 1200 * MS);
	r = profile_row_get(&p, "clock_nanosleep");
	r->max_ns = 900 * MS;
	profile_untraced(&p, &e);
	is_int(e.wall_lo_ns / MS, 899, "at least the longest sleep (900 ms, "
	       "less the correction's most)");
	is_int(e.wall_hi_ns / MS, 2000, "at most the traced wall (a tree)");
	profile_release(&p);
}

/* -e trace=openat on dd: the writes are untraced, in system CPU only. */
static void test_untraced_calls(void)
{
	struct profile_estimate e;
	struct profile p;

	costed(&p);
	p.wall_ns = 100 * MS;
	p.stops = 75;
	p.cost.busy_ns = 1 * MS;
	p.cost.stop_lo_ns = p.cost.stop_hi_ns = 10000;
	p.cost.user_ns = 8 * MS;
	p.cost.sys_ns = 80 * MS;
	row(&p, "openat", 35, 1 * MS, 1 * MS);
	profile_untraced(&p, &e);
	is_int(e.wall_lo_ns / 1000, 8000 + 80000 - 1125,
	       "at least user + system CPU less 75 stops x 15 us");
	ok(e.resolved, "resolved although the syscalls were not traced");
	p.cost.many_tasks = true;
	p.ncpus = 2;
	profile_untraced(&p, &e);
	is_int(e.wall_lo_ns / 1000, (8000 + 80000 - 1125) / 2 * 9 / 10,
	       "a tree: a CPU's share of it, less a tenth");
	profile_release(&p);
}

static void test_unknown(void)
{
	struct profile_estimate e;
	struct profile p;

	profile_init(&p);
	p.wall_ns = 1000 * MS;
	row(&p, "write", 10, 10 * MS, 10 * MS);
	profile_untraced(&p, &e);
	ok(!e.known, "no costs (strace table, older file): unknown");
	is_int(e.syscall_ns / MS, 10, "syscall time still summed");
	profile_release(&p);

	costed(&p);
	p.stops = 100000;	/* 10 s of stops in a 2 s run: a clock gone */
	profile_untraced(&p, &e);
	ok(e.wall_lo_ns == 0 && !e.resolved, "never below zero, not trusted");
	profile_release(&p);
}

/*
 * The floor above the ceiling by more than the noise (stops calibrated
 * far dearer than the run's): both ends stand, neither is trusted.
 */
static void test_contradiction(void)
{
	struct profile_estimate e;
	struct profile p;

	costed(&p);
	p.stops = 18000;	/* 0.5 s work + 1.35 s of stops at least */
	row(&p, "write", 5000, 500 * MS, 450 * MS);
	profile_untraced(&p, &e);
	ok(!e.resolved, "floor over ceiling: not resolved");
	is_int(e.wall_lo_ns / MS, (2000 - 500 - 1350) * 9 / 10,
	       "low: the ceiling, less the noise");
	ok(e.wall_hi_ns >= (100 + 450 - 90) * MS,
	   "high: user CPU and the least the writes took");
	profile_release(&p);
}

/* A task's exit as the tracer reads it: CPU time, user time in ticks. */
static void task_exit(struct profile *p, pid_t tgid, pid_t tid,
		      uint64_t cpu_ms, uint64_t user_ms)
{
	struct tracer_task_exit x;

	memset(&x, 0, sizeof(x));
	x.tgid = tgid;
	x.tid = tid;
	x.cpu_known = x.user_known = true;
	x.cpu_ns = cpu_ms * MS;
	x.tick_ns = 10 * MS;
	x.user_ns = user_ms * MS;
	profile_cost_exit(p, &x);
}

/* The busiest task, and the busiest task of another process. */
static void test_busiest(void)
{
	struct profile p;

	profile_init(&p);
	task_exit(&p, 10, 10, 5, 0);		/* the shell */
	task_exit(&p, 11, 11, 300, 200);	/* the writer */
	task_exit(&p, 11, 13, 400, 10);		/* the writer's thread */
	task_exit(&p, 12, 12, 250, 120);	/* the reader */
	is_int(p.cost.cpu_tasks, 4, "four tasks' CPU time read");
	is_int(p.cost.busiest_ns / MS, 400, "busiest: the writer's thread");
	is_int(p.cost.busiest_tgid, 11, "of the writer");
	is_int(p.cost.other_ns / MS, 250, "another process's: the reader");
	is_int(p.cost.user_most_ns / MS, 200, "most user time: one task's");
	task_exit(&p, 14, 14, 500, 0);
	is_int(p.cost.other_ns / MS, 400, "a busier process: the writer "
	       "becomes the other");
	profile_release(&p);
}

/*
 * Two processes sharing the work (a pipeline): no ceiling, the floor at
 * least the busiest task's user time less a tick, a tenth and the fast
 * path's calls; never resolved.  One busy process and an idle shell: the
 * tree's range as before.
 */
static void test_shared(void)
{
	struct profile_estimate e;
	struct profile p;

	costed(&p);
	p.cost.many_tasks = true;
	p.ncpus = 2;
	row(&p, "write", 5000, 300 * MS, 250 * MS);
	task_exit(&p, 10, 10, 2, 0);
	task_exit(&p, 11, 11, 900, 810);
	profile_untraced(&p, &e);
	ok(!e.no_ceiling, "a shell and one busy process: a ceiling");
	is_int(e.wall_hi_ns / MS, 2000, "the traced wall");
	/* 719 ms, and the estimate clamped to it: a tenth below that. */
	is_int(e.wall_lo_ns / MS, (810 - 81 - 10) * 9 / 10, "at least the "
	       "busiest task's user time, less a tenth and a tick");
	is_int(e.wall_ns / MS, 810 - 81 - 10, "the estimate: no less");
	task_exit(&p, 12, 12, 100, 50);
	profile_untraced(&p, &e);
	ok(e.no_ceiling, "a second process a ninth as busy: shared, no ceiling");
	ok(!e.resolved, "never resolved");
	p.fast.calls = 1000;
	p.fast.call_lo_ns = p.fast.call_hi_ns = 100000;
	profile_untraced(&p, &e);
	is_int(e.wall_ns / MS, 810 - 81 - 10 - 100, "the fast path's "
	       "calls are user time too: less their most");
	profile_release(&p);
	costed(&p);
	p.cost.many_tasks = true;
	task_exit(&p, 10, 10, 900, 810);
	task_exit(&p, 10, 11, 900, 810);
	profile_untraced(&p, &e);
	ok(!e.no_ceiling, "threads of one process: a ceiling");
	profile_release(&p);
}

int main(void)
{
	test_busiest();
	test_shared();
	test_range();
	test_resolved_and_waits();
	test_sleep_floor();
	test_untraced_calls();
	test_unknown();
	test_contradiction();
	return done_testing();
}
