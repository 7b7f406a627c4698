// SPDX-License-Identifier: MIT
/*
 * Unit tests of the untraced picture (reports/profile/untraced.c): the
 * range it gives for what a run would take untraced, hand-computed from
 * the stop costs, so that a change in the arithmetic shows up here.
 */
#include <string.h>
#include "reports/render/render.h"
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
	 * range narrower than a tenth of it each way.
	 */
	costed(&p);
	p.stops = 1000;
	p.cost.user_ns = 500 * MS;
	row(&p, "fsync", 10, 200 * MS, 200 * MS);
	row(&p, "wait4", 1, 900 * MS, 900 * MS);
	profile_untraced(&p, &e);
	is_int(e.wait_ns / MS, 900, "wait4 counted as waiting");
	is_int(e.syscall_ns / MS, 200, "and left out of syscall time");
	is_int(e.wall_hi_ns / MS, 1540, "at most 2 - 0.575 s, or 1.4 s + 10%%");
	is_int(e.wall_lo_ns / MS, 699, "at least 0.5 s user + ~0.2 s fsync");
	is_int(e.wall_ns / MS, 1400, "estimate 2 - 0.6 s");
	ok(!e.resolved, "0.7-1.54 s is wider than half of 1.4 s");
	p.cost.user_ns = 700 * MS;
	profile_untraced(&p, &e);
	ok(e.resolved, "resolved once the range narrows");
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
	is_int(e.wall_lo_ns / 1000, (8000 + 80000 - 1125) / 2,
	       "a tree: a CPU's share of it");
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
 * An agent run whose calibrated dispatch cost was dearer than the run's
 * (measured: 4.9 us in calibration, about 3.5 us in the run, on 1,000,000
 * one-byte writes taking 0.28-0.32 s untraced, 0.373 s measured by the
 * agent).  It printed "~0.11 s (0.10 s to 0.12 s)": the ceiling allowed
 * for a quarter's drift, and the handler's user time made a floor.  Now
 * half, no user-time floor, and a call may have taken 30% of its time
 * less than measured: a wide range, holding the truth, not resolved.
 */
static void test_agent_range(void)
{
	struct profile_estimate e;
	struct profile p;

	profile_init(&p);
	p.exit.known = true;
	p.wall_ns = 3774 * MS;
	p.cost.known = p.cost.cpu_known = true;
	p.cost.user_ns = 430 * MS;	/* mostly the agent's handler */
	p.engines.known = true;
	p.engines.agent_calls = 1000000;
	p.engines.dispatch_ns = 4891;
	p.engines.correction_ns = 91;
	row(&p, "write", 1000000, 373 * MS, 373 * MS);
	profile_untraced(&p, &e);
	ok(e.known, "known");
	ok(!e.resolved, "not resolved");
	ok(e.wall_lo_ns <= 280 * MS && e.wall_hi_ns >= 320 * MS,
	   "the range holds the untraced 0.28-0.32 s");
	is_int(e.wall_hi_ns / MS, (3774000 - 2445500) / 1000,
	       "high: half the calibrated dispatch cost taken off");
	is_int(e.resolution_ns, 489, "resolution: a tenth of dispatch");
	profile_release(&p);
}

/*
 * The same kind of run with dispatch measured by the agent's probes, from
 * a real one (200,000 one-byte writes to tmpfs, --truth): traced 984.6
 * ms, the agent's writes 222.9 ms, 1,622 probes, 3,630 ns per call (standard
 * error 20 ns), correction 140 ns; untraced the workload took
 * 205.4 ms, 191.7 ms of it in its writes (93%).  Calibration had said
 * 5,039 ns, which left nothing of the wall.
 */
static void agent_measured(struct profile *p, uint64_t samples)
{
	profile_init(p);
	p->exit.known = true;
	p->wall_ns = 984606103;
	p->stops = 20;
	p->cost.known = p->cost.cpu_known = true;
	p->cost.busy_ns = 83966;
	p->cost.stop_lo_ns = p->cost.stop_hi_ns = 7465;
	p->cost.user_ns = 107735000;	/* mostly the handler's */
	p->cost.sys_ns = 869606000;
	p->engines.known = true;
	p->engines.agent_calls = 200002;
	p->engines.dispatch_ns = 5039;
	p->engines.correction_ns = 140;
	p->engines.probes = 1622;
	p->engines.probe_samples = samples;
	p->engines.dispatch_run_ns = 3630;
	p->engines.dispatch_run_se_ns = 20;
	row(p, "write", 200000, 250858471, 222858471);
}

static void test_agent_measured(void)
{
	struct profile_estimate e;
	struct profile p;
	double share;

	agent_measured(&p, 1622);
	profile_untraced(&p, &e);
	ok(e.resolved, "dispatch measured in the run: resolved");
	ok(e.wall_lo_ns <= 205 * MS && e.wall_hi_ns >= 206 * MS,
	   "the range holds the untraced 205.4 ms");
	ok(e.wall_ns <= 205 * MS * 135 / 100 && e.wall_ns >= 205 * MS * 65 /
	   100, "the estimate within 35%% of it");
	share = 100.0 * (double)e.syscall_ns / (double)e.wall_ns;
	ok(share >= 83 && share <= 100, "syscalls' share within 10 points of "
	   "the true 93%%");
	/* The probes' dispatches cost the wall as calls do. */
	is_int(e.added_ns / MS, (984606103 - e.wall_ns) / MS,
	       "what tracing added is the rest of the wall");
	ok(e.added_ns >= (200002 + 1622) * 3630ull * 97 / 100,
	   "at least the calls' and the probes' dispatch, less 3%%");
	is_str(e.method + strlen(e.method) - 16, "standard errors)",
	       "the method says the dispatch cost was measured");
	is_int(e.resolution_ns, 363, "resolution: a tenth of the run's cost");
	profile_release(&p);

	agent_measured(&p, 15);
	profile_untraced(&p, &e);
	ok(!e.resolved && strstr(e.method, "calibrated before the run"),
	   "too few samples: calibration's cost, -50%% +50%%, unresolved");
	profile_release(&p);
}

/*
 * Calls moving data paid their own, larger correction for dispatch
 * (calibrated on 1-byte writes to a memfd): each of them added its
 * excess over getppid's to what tracing added, the probes' figure having
 * getppid's in it.
 */
static void test_agent_io_correction(void)
{
	struct profile_estimate plain, io;
	struct profile p;

	agent_measured(&p, 1622);
	profile_untraced(&p, &plain);
	p.engines.correction_io_ns = 340;
	p.engines.io_timed = 200000;
	profile_untraced(&p, &io);
	is_int((int64_t)(io.added_ns - plain.added_ns), 200000 * 200,
	       "200,000 writes x (340 - 140) ns more added by tracing");
	is_int((int64_t)(plain.wall_ns - io.wall_ns), 200000 * 200,
	       "and taken off the estimate");
	p.engines.correction_io_ns = 100;
	profile_untraced(&p, &io);
	is_int((int64_t)io.added_ns, (int64_t)plain.added_ns,
	       "a smaller one adds nothing");
	profile_release(&p);
}

/*
 * A tree the agent timed, from a real run: `tar cf - /usr/include | cat`
 * under the default engine, 0.700 s traced, 103,698 calls dispatched at
 * 4,633 ns each, 0.850 s of CPU in the tree (two CPUs); untraced (three
 * runs) 0.260 s.  All its dispatch taken from the wall would leave 0.22
 * s; in proportion to its parallelism 0.30 s.
 */
static void test_agent_tree(void)
{
	struct profile_estimate e;
	struct profile p;

	agent_measured(&p, 939);
	p.wall_ns = 699980425;
	p.stops = 113;
	p.ncpus = 2;
	p.cost.many_tasks = true;
	p.cost.busy_ns = 1506808;
	p.cost.stop_lo_ns = p.cost.stop_hi_ns = 7049;
	p.cost.user_ns = 100111000;
	p.cost.sys_ns = 749788000;
	p.engines.agent_calls = 103698;
	p.engines.probes = 939;
	p.engines.dispatch_run_ns = 4633;
	p.engines.dispatch_run_se_ns = 110;
	profile_untraced(&p, &e);
	ok(e.tree_scaled && !e.resolved,
	   "a tree: scaled by its parallelism, never resolved");
	ok(e.wall_ns >= 260 * MS * 65 / 100 && e.wall_ns <= 260 * MS * 135 /
	   100, "the point within 35%% of the untraced 0.260 s");
	is_int(e.wall_ns / MS, (699980425 - 1506808 - 113 * 7049 -
				(103698 + 939) * 4633ull * 699980425 /
				(100111000 + 749788000)) / MS,
	       "wall - work - stops - dispatch x wall / CPU");
	ok(e.wall_lo_ns <= 260 * MS && e.wall_hi_ns == 699980425,
	   "the range holds it, up to the traced wall");
	ok(strstr(e.method, "as parallel as traced") != NULL,
	   "the method says what it assumes");
	p.cost.cpu_known = false;
	profile_untraced(&p, &e);
	ok(!e.tree_scaled, "no CPU times: no point");
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

int main(void)
{
	test_range();
	test_resolved_and_waits();
	test_untraced_calls();
	test_unknown();
	test_agent_range();
	test_agent_measured();
	test_agent_io_correction();
	test_agent_tree();
	test_contradiction();
	return done_testing();
}
