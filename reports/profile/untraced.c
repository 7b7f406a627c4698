// SPDX-License-Identifier: MIT
/*
 * The untraced picture of a traced run.  Tracing makes every timed call
 * cost a stop pair: on a loop of sub-microsecond calls the traced wall is
 * mostly iotrace's own stops, and a share "of wall" computed against it
 * points the reader at the wrong place.  So the profile keeps what a stop
 * pair costs the wall clock (calibrated before and after the run, so its
 * drift is known) and the CPU time of the traced processes, and this file
 * turns them into what the run would have taken untraced:
 *
 *	untraced wall = traced wall - the tracer's work at the stops
 *			- stops x what else a stop costs (calibrated)
 *			- calls the agent handled x what each added
 *			  (the agent engine, calibrated)
 *
 * as a range: at least the program's own user CPU time (which tracing
 * barely changes) plus the least its syscalls took, at most what the
 * cheapest calibrated stops leave of the traced wall.  When the range is
 * wide, the report says the split cannot be resolved from this run and
 * points to --baseline.
 */
#include <string.h>
#include "reports/profile/profile.h"

/*
 * Measured on 2-core VMs (bench/estimate.sh), a run's real cost per stop
 * came out up to 50% above the calibrations that bracket it, never much
 * below: a long run's stops are not the calibration's getppid loop (the
 * tracer does more per event, caches are colder).  Ranges are widened by
 * this much on the side where that matters, by a quarter on the other.
 */
#define STOP_MARGIN_PCT 50
#define STOP_MARGIN_LOW_PCT 25
#define NOISE_DIV 10		/* run-to-run noise of a command: 1/10 */
/*
 * Under the agent, dispatch leaves caches colder for the call itself, by
 * more than its calibrated correction on some calls (1-byte writes to
 * ext4: 0.38 us measured in-process, 0.30 us untraced): a call may have
 * taken this share of its measured time less.
 */
#define AGENT_CALL_SLACK_PCT 30
/*
 * What dispatch adds per call: measured in the run by the agent's probes
 * (agent/probe.c) once they have AGENT_PROBE_MIN samples.  Against the
 * untraced wall of the same command (--baseline), the probes' mean came
 * within 3% of what the run paid per call (1,000,000 one-byte writes,
 * 11x swollen wall: 2.5% at worst); the margin is that, plus twice the
 * mean's standard error.  With fewer samples, calibration's figure,
 * which drifts more: 1,000,000 one-byte writes took 3.5 us of dispatch
 * each in the run where calibration had measured 4.9 us; the ceiling
 * allows for half.  A tenth of the cost is the per-call resolution.
 */
#define AGENT_PROBE_MIN 16
#define AGENT_PROBE_MARGIN_PCT 3
#define AGENT_DISPATCH_LOW_PCT 50
#define AGENT_RESOLUTION_DIV 10

/* How the estimate was made, as the saved profile says it. */
static const char METHOD_STOPS[] =
	"traced wall - tracer work at stops (measured) - stops x cost per "
	"stop (calibrated before and after the run, +-25%)";
static const char METHOD_AGENT_CALIBRATED[] =
	"traced wall - tracer work at stops (measured) - stops x cost per "
	"stop (calibrated) - calls the agent handled x dispatch cost "
	"(calibrated before the run, -50% +50%)";
static const char METHOD_AGENT_TREE[] =
	"traced wall - tracer work at stops (measured) - stops x cost per "
	"stop (calibrated) - calls the agent handled x dispatch cost "
	"(measured in the run) x the tree's wall / its CPU time (its "
	"processes as parallel as traced; not resolved)";
static const char METHOD_AGENT_MEASURED[] =
	"traced wall - tracer work at stops (measured) - stops x cost per "
	"stop (calibrated) - calls the agent handled x dispatch cost "
	"(measured in the run by the agent's probes, +-3% and two standard "
	"errors)";

/*
 * Calls that wait for another process or an event (SF_WAITS in the
 * syscall facts, tracer/systab.c): their time is not the program's I/O
 * and would count the same seconds twice in a tree (the parent's wait4
 * spans the child's whole run).
 */
bool profile_row_waits(const struct profile_row *r)
{
	const struct syscall_fact *f = profile_row_fact(r);

	return f && (f->flags & SF_WAITS);
}

static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * A run the agent engine's agent timed mostly: its rows come corrected
 * (the agent's calibrated correction, small), and each call it handled
 * added what dispatch costs to the wall, as a stop does.
 */
static bool agent_timed(const struct profile *p)
{
	return p->engines.known &&
	       p->engines.agent_calls >= p->engines.ptrace_calls;
}

bool profile_dispatch_measured(const struct profile *p)
{
	return p->engines.known && p->engines.dispatch_run_ns &&
	       p->engines.probe_samples >= AGENT_PROBE_MIN;
}

/*
 * What the agent's dispatches added to the wall: least, most and most
 * likely.  The probes' own dispatches are in it: each costs about a
 * call's.  A call moving data paid its own correction (calibrated) where
 * the probes' figure has getppid's.
 */
static void dispatch_added(const struct profile *p, uint64_t *lo,
			   uint64_t *hi, uint64_t *mid)
{
	const struct profile_engines *en = &p->engines;
	uint64_t calls = en->known ? en->agent_calls : 0, d = en->dispatch_ns;
	uint64_t err, io = en->known ? en->io_timed *
			   minus(en->correction_io_ns, en->correction_ns) : 0;

	if (profile_dispatch_measured(p)) {
		calls += en->probes;
		d = en->dispatch_run_ns;
		err = d * AGENT_PROBE_MARGIN_PCT / 100 +
		      2 * en->dispatch_run_se_ns;
		*lo = calls * minus(d, err);
		*hi = calls * (d + err);
	} else {
		*lo = calls * d * (100 - AGENT_DISPATCH_LOW_PCT) / 100;
		*hi = calls * d * (100 + STOP_MARGIN_PCT) / 100;
	}
	*mid = calls * d + io;
	*lo += io;
	*hi += io;
}

/* Time in syscalls, waits apart, with the correction's spread. */
static void syscall_time(const struct profile *p, struct profile_estimate *e)
{
	const struct profile_cost *c = &p->cost;
	const struct profile_row *r;
	uint64_t stopped;
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (profile_row_waits(r)) {
			e->wait_ns += r->time_ns;
			continue;
		}
		e->syscall_ns += r->time_ns;
		/* Corrected by the agent, less what dispatch may add. */
		if (agent_timed(p)) {
			e->syscall_lo_ns += r->time_ns *
					    (100 - AGENT_CALL_SLACK_PCT) / 100;
			e->syscall_hi_ns += r->time_ns;
			continue;
		}
		/* Stop-timed calls carry the calibrated overhead; the
		   fast path's, timed in the program, only their own. */
		stopped = r->timed - r->fast_timed;
		e->syscall_lo_ns += minus(r->raw_time_ns - r->fast_raw_ns,
					  stopped * c->overhead_hi_ns *
					  (100 + STOP_MARGIN_PCT) / 100) +
				    minus(r->fast_raw_ns, r->fast_timed *
					  p->fast.inflation_ns);
		e->syscall_hi_ns += minus(r->raw_time_ns - r->fast_raw_ns,
					  stopped * c->overhead_lo_ns) +
				    r->fast_raw_ns;
	}
}

/*
 * What the fast path's calls added to the wall, least and most: the
 * filter and the trampoline, as the run's own calibration measured them,
 * the twin's cost for the calls of processes of one thread (a run saved
 * before the two were told apart has the one figure).
 */
static void fast_added(const struct profile *p, uint64_t *lo, uint64_t *hi)
{
	const struct profile_fast *f = &p->fast;
	uint64_t locked = f->calls_locked < f->calls ? f->calls_locked :
			  f->calls;

	*lo = (f->calls - locked) * f->call_lo_ns + locked *
	      (f->locked_call_lo_ns ? f->locked_call_lo_ns : f->call_lo_ns);
	*hi = (f->calls - locked) * f->call_hi_ns + locked *
	      (f->locked_call_hi_ns ? f->locked_call_hi_ns : f->call_hi_ns);
}

/*
 * Tracing adds the tracer's own work at each stop, measured during the
 * run, and per stop the context switches and wake-ups around it, which
 * only calibration can measure, within STOP_MARGIN_PCT.
 */
static void added(const struct profile *p, struct profile_estimate *e)
{
	const struct profile_cost *c = &p->cost;
	uint64_t lo = c->stop_lo_ns * (100 - STOP_MARGIN_LOW_PCT) / 100;
	uint64_t hi = c->stop_hi_ns * (100 + STOP_MARGIN_PCT) / 100;
	uint64_t d_lo, d_hi, d, f_lo, f_hi;

	dispatch_added(p, &d_lo, &d_hi, &d);
	fast_added(p, &f_lo, &f_hi);
	d_lo += f_lo;
	d_hi += f_hi;
	d += (f_lo + f_hi) / 2;
	e->added_lo_ns = c->busy_ns + p->stops * lo + d_lo;
	e->added_hi_ns = c->busy_ns + p->stops * hi + d_hi;
	e->added_ns = c->busy_ns +
		      p->stops * (c->stop_lo_ns + c->stop_hi_ns) / 2 + d;
}

/*
 * CPU time the program surely spent: its user time, and its system time
 * less what its stops can have cost it (a stop's whole cost, the margin
 * added, bounds the traced task's share of it).  Untraced calls (-e
 * trace=) are in the system time and nowhere else.
 */
static uint64_t cpu_floor(const struct profile *p)
{
	const struct profile_cost *c = &p->cost;
	uint64_t per_stop = c->stop_hi_ns * (100 + STOP_MARGIN_PCT) / 100;
	uint64_t agent, unused, fast;

	if (!c->cpu_known)
		return 0;
	dispatch_added(p, &unused, &agent, &unused);
	fast_added(p, &unused, &fast);
	/* The agent's handler and signals are the program's CPU time, and
	   so are the fast path's trampolines and filter. */
	return minus(minus(c->user_ns + minus(c->sys_ns, p->stops * per_stop),
			   agent), fast);
}

/*
 * A tree the agent timed: its dispatches are its processes' own CPU
 * time, spent side by side as much as the rest of it (tar | cat on two
 * CPUs: 0.85 s of CPU in a 0.70 s wall).  They are taken out in that
 * proportion: the wall shrinks by dispatch x wall / CPU time, by all of
 * it when the tree used less CPU than wall.  Not sure (a reader's
 * dispatches while its writer is the bottleneck cost the wall nothing),
 * so never resolved, but a point with its assumption said; the range
 * stays a tree's (a pipe's dynamics change under tracing: cat | cat lost
 * more wall than all its dispatches cost).  Measured against the
 * untraced runs (--baseline=3): tar | cat +17%, a splice copier -4%, cat
 * +14%, the copier and cat ordered as untraced.
 */
static void tree_scaled(const struct profile *p, struct profile_estimate *e)
{
	const struct profile_cost *c = &p->cost;
	uint64_t cpu = c->user_ns + c->sys_ns, lo, hi, mid;
	double scaled;

	if (!c->cpu_known || !agent_timed(p) || !p->wall_ns)
		return;
	dispatch_added(p, &lo, &hi, &mid);
	scaled = cpu > p->wall_ns ?
		 (double)mid * (double)p->wall_ns / (double)cpu : (double)mid;
	e->added_ns = c->busy_ns + p->stops * (c->stop_lo_ns +
					       c->stop_hi_ns) / 2 +
		      (uint64_t)scaled;
	e->tree_scaled = true;
	e->method = METHOD_AGENT_TREE;
}

void profile_untraced(const struct profile *p, struct profile_estimate *e)
{
	const struct profile_cost *c = &p->cost;
	bool contradicted, measured;
	uint64_t user, spread, fast_hi;

	memset(e, 0, sizeof(*e));
	e->method = !p->engines.known ? METHOD_STOPS :
		    profile_dispatch_measured(p) ? METHOD_AGENT_MEASURED :
		    METHOD_AGENT_CALIBRATED;
	syscall_time(p, e);
	if (!c->known || !p->wall_ns)
		return;
	e->known = true;
	added(p, e);
	/*
	 * The low end is what the program surely spent: its user CPU and
	 * the least its syscalls can have taken.  The high end takes the
	 * cheapest stops calibration saw, less the margin: a loaded machine
	 * makes the run's stops dearer, never cheaper, so that end holds.
	 */
	e->wall_hi_ns = minus(p->wall_ns, e->added_lo_ns);
	e->wall_lo_ns = cpu_floor(p);
	/* The agent's calls may have taken less than it measured. */
	if (agent_timed(p))
		e->wall_lo_ns = minus(e->wall_lo_ns,
				      e->syscall_ns - e->syscall_lo_ns);
	/* The agent's handler runs as the program's user time: no floor. */
	fast_added(p, &user, &fast_hi);
	user = c->cpu_known && !agent_timed(p) ?
	       minus(c->user_ns, fast_hi) : 0;
	if (!c->many_tasks && e->wall_lo_ns < user + e->syscall_lo_ns)
		e->wall_lo_ns = user + e->syscall_lo_ns;
	/*
	 * Dispatch measured in the run bounds the wall from below too: the
	 * most it can have added leaves at least this much, less what the
	 * calls may have taken less than the agent measured.
	 */
	spread = e->added_hi_ns - e->added_lo_ns;
	measured = profile_dispatch_measured(p) && !c->many_tasks;
	if (measured && e->wall_lo_ns < minus(minus(p->wall_ns,
			e->added_hi_ns), e->syscall_ns - e->syscall_lo_ns))
		e->wall_lo_ns = minus(minus(p->wall_ns, e->added_hi_ns),
				      e->syscall_ns - e->syscall_lo_ns);
	/*
	 * The floor above the ceiling by more than the noise: the stop or
	 * dispatch costs calibration measured are not the run's (measured:
	 * an agent run's dispatch 30% dearer in calibration than in the
	 * run).  Both ends stand, neither is trusted.
	 */
	contradicted = e->wall_lo_ns > e->wall_hi_ns + e->wall_hi_ns /
			NOISE_DIV;
	if (contradicted) {
		uint64_t t = e->wall_lo_ns;

		e->wall_lo_ns = e->wall_hi_ns;
		e->wall_hi_ns = t;
	}
	/*
	 * In a tree, tasks run side by side (the sum of their CPU time can
	 * pass the wall) while their stops queue for the one tracer and
	 * overlap each other's work: stops times their cost says nothing
	 * sure about the wall.  Only a CPU's share of the CPU time is sure
	 * below, and the traced wall above.
	 */
	if (c->many_tasks) {
		e->wall_lo_ns /= p->ncpus > 0 ? (uint64_t)p->ncpus : 1;
		e->wall_hi_ns = p->wall_ns;
		tree_scaled(p, e);
	}
	if (e->wall_lo_ns > e->wall_hi_ns)
		e->wall_lo_ns = e->wall_hi_ns;
	e->wall_ns = clamp(minus(p->wall_ns, e->added_ns), e->wall_lo_ns,
			   e->wall_hi_ns);
	/*
	 * The same command untraced varies by about a tenth from run to run
	 * here: no range claims to be narrower than that.
	 */
	if (e->wall_lo_ns > e->wall_ns - e->wall_ns / NOISE_DIV)
		e->wall_lo_ns = e->wall_ns - e->wall_ns / NOISE_DIV;
	if (e->wall_hi_ns < e->wall_ns + e->wall_ns / NOISE_DIV)
		e->wall_hi_ns = e->wall_ns + e->wall_ns / NOISE_DIV;
	/* What tracing added is what the range leaves of the traced wall. */
	e->added_ns = minus(p->wall_ns, e->wall_ns);
	e->added_lo_ns = minus(p->wall_ns, e->wall_hi_ns);
	e->added_hi_ns = minus(p->wall_ns, e->wall_lo_ns);
	/*
	 * Trusted when the range spans at most half the estimate, and for a
	 * tree only when tracing added little: stops of one task overlap
	 * another's work, so they do not simply add up.  With dispatch
	 * measured in the run, when what it added is known that well: the
	 * calls' own slack moves the wall and their time together, and
	 * leaves their share of it much as it is.
	 */
	if (!measured)
		spread = e->wall_hi_ns - e->wall_lo_ns;
	e->resolved = e->wall_ns && !contradicted && 2 * spread <= e->wall_ns &&
		      (!c->many_tasks || e->added_hi_ns * 5 <= p->wall_ns);
	e->resolution_ns = minus(c->overhead_hi_ns, p->overhead_ns);
	if (minus(p->overhead_ns, c->overhead_lo_ns) > e->resolution_ns)
		e->resolution_ns = p->overhead_ns - c->overhead_lo_ns;
	/*
	 * A run the agent engine's agent timed mostly: what dispatch may
	 * add to the call is what its times can be off by (the stop cost's
	 * spread is ptrace's, for the few calls it timed).
	 */
	if (agent_timed(p)) {
		e->resolution_ns = (profile_dispatch_measured(p) ?
				    p->engines.dispatch_run_ns :
				    p->engines.dispatch_ns) /
				   AGENT_RESOLUTION_DIV;
		if (e->resolution_ns < p->engines.correction_ns)
			e->resolution_ns = p->engines.correction_ns;
	}
}
