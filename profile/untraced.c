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
 *			- fast-path calls x what each added (calibrated)
 *
 * as a range: at least the program's own user CPU time (which tracing
 * barely changes) plus the least its syscalls took, at most what the
 * cheapest calibrated stops leave of the traced wall.  When the range is
 * wide, the report says the split cannot be resolved from this run and
 * points to --baseline.
 *
 * A tree whose processes shared the work side by side (a pipeline: two
 * processes, each busy for a good part of the run) has no ceiling: its
 * stops queue for the one tracer and overlap each other's work, and
 * tracing changes how the sides interleave (a slowed writer lets the
 * reader take bigger reads), so the traced wall bounds nothing above
 * (seen: a splice copier piped to cat ran slower untraced than traced).
 * A tree's floor is also the most user CPU time of one task, less what
 * the fast path's calls, the tick it is counted in and a command's own
 * noise can have added: no task runs longer than the wall.  Not its system time: in a busy
 * tree the stops inflate it far past their calibrated cost (seen: tar
 * piped to cat, 1.9 s of CPU traced for a 0.18 s untraced run).
 * See docs/untraced.md.
 */
#include <string.h>
#include "profile/profile.h"

/*
 * Measured on 2-core VMs (bench/estimate.sh), a run's real cost per stop
 * came out well above the calibrations that bracket it, never much
 * below: a long run's stops are not the calibration's getppid loop (the
 * tracer does more per event, caches are colder).  Ranges are widened by
 * this much on the side where that matters, by a quarter on the other.
 */
#define STOP_MARGIN_PCT 50
#define STOP_MARGIN_LOW_PCT 25
#define NOISE_DIV 10		/* run-to-run noise of a command: 1/10 */
/*
 * Processes shared the work when another process's busiest task ran at
 * least this share of the busiest task's CPU time: a shell waiting for
 * its children, or a sync after a dd, stays under it.
 */
#define SHARED_DIV 10
/* How the estimate was made, as the saved profile says it. */
static const char METHOD_STOPS[] =
	"traced wall - tracer work at stops (measured) - stops x cost per "
	"stop (calibrated before and after the run, +-25%)";
/*
 * Calls that wait for another process or an event (SF_WAITS in the
 * syscall facts, syscalls/systab.c): their time is not the program's I/O
 * and would count the same seconds twice in a tree (the parent's wait4
 * spans the child's whole run).
 */
bool profile_row_waits(const struct profile_row *r)
{
	const struct syscall_fact *f = profile_row_fact(r);

	return f && (f->flags & SF_WAITS);
}

bool profile_row_works(const struct profile_row *r)
{
	return !profile_row_waits(r);
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
 * The longest sleep (nanosleep, clock_nanosleep: SF_SLEEPS), its least
 * with the correction's spread: a timer runs as long traced as untraced,
 * so no untraced run of any tree is shorter.
 */
static uint64_t longest_sleep(const struct profile *p)
{
	const struct profile_cost *c = &p->cost;
	const struct syscall_fact *f;
	uint64_t most = 0, v;
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		f = profile_row_fact(&p->rows[i]);
		if (!f || !(f->flags & SF_SLEEPS) || !p->rows[i].timed)
			continue;
		v = minus(p->rows[i].max_ns + p->overhead_ns,
			  c->overhead_hi_ns * (100 + STOP_MARGIN_PCT) / 100);
		most = v > most ? v : most;
	}
	return most;
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
			e->wait_lo_ns += minus(r->raw_time_ns, r->timed *
					       c->overhead_hi_ns *
					       (100 + STOP_MARGIN_PCT) / 100);
			continue;
		}
		e->syscall_ns += r->time_ns;
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
	uint64_t f_lo, f_hi;

	fast_added(p, &f_lo, &f_hi);
	e->added_lo_ns = c->busy_ns + p->stops * lo + f_lo;
	e->added_hi_ns = c->busy_ns + p->stops * hi + f_hi;
	e->added_ns = c->busy_ns +
		      p->stops * (c->stop_lo_ns + c->stop_hi_ns) / 2 +
		      (f_lo + f_hi) / 2;
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
	uint64_t unused, fast;

	if (!c->cpu_known)
		return 0;
	fast_added(p, &unused, &fast);
	/* The fast path's trampolines and filter are the program's CPU
	   time. */
	return minus(c->user_ns + minus(c->sys_ns, p->stops * per_stop), fast);
}

void profile_cost_exit(struct profile *p, const struct tracer_task_exit *x)
{
	struct profile_cost *c = &p->cost;

	if (x->user_known) {
		c->user_tasks++;
		c->tick_ns = x->tick_ns;
		if (x->user_ns > c->user_most_ns)
			c->user_most_ns = x->user_ns;
	}
	if (!x->cpu_known)
		return;
	/* The busiest task, and the busiest of the other processes'. */
	if (!c->cpu_tasks++ || x->cpu_ns > c->busiest_ns) {
		if (c->cpu_tasks > 1 && x->tgid != c->busiest_tgid)
			c->other_ns = c->busiest_ns;
		c->busiest_ns = x->cpu_ns;
		c->busiest_tgid = x->tgid;
	} else if (x->tgid != c->busiest_tgid && x->cpu_ns > c->other_ns) {
		c->other_ns = x->cpu_ns;
	}
}

/* Processes ran side by side, each busy for a good part of the run. */
static bool shared_work(const struct profile *p)
{
	const struct profile_cost *c = &p->cost;

	return c->many_tasks && c->cpu_tasks >= 2 && c->other_ns &&
	       c->other_ns * SHARED_DIV >= c->busiest_ns;
}

/*
 * No task runs longer than the wall: the most user CPU time of one task,
 * less a tick (utime is counted in them), the most the fast path's
 * calls can have added (the trampolines are user time) and a tenth (the
 * same command's CPU time varies by as much from run to run), is below
 * any untraced run of the tree.
 */
static uint64_t busiest_floor(const struct profile *p)
{
	const struct profile_cost *c = &p->cost;
	uint64_t unused, fast;

	if (!c->user_tasks)
		return 0;
	fast_added(p, &unused, &fast);
	return minus(c->user_most_ns - c->user_most_ns / NOISE_DIV,
		     c->tick_ns + fast);
}

void profile_untraced(const struct profile *p, struct profile_estimate *e)
{
	const struct profile_cost *c = &p->cost;
	bool contradicted;
	uint64_t user, fast_hi;

	memset(e, 0, sizeof(*e));
	e->method = METHOD_STOPS;
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
	fast_added(p, &user, &fast_hi);
	user = c->cpu_known ? minus(c->user_ns, fast_hi) : 0;
	/*
	 * One task's waits are for what is not traced (a timer, a device,
	 * another program): tracing does not shorten them, so they are in
	 * the floor too.  In a tree they may be for a traced task's work.
	 */
	if (!c->many_tasks &&
	    e->wall_lo_ns < user + e->syscall_lo_ns + e->wait_lo_ns)
		e->wall_lo_ns = user + e->syscall_lo_ns + e->wait_lo_ns;
	/*
	 * The floor above the ceiling by more than the noise: the stop costs
	 * calibration measured are not the run's.  Both ends stand, neither
	 * is trusted.
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
	 * below, less a tenth (a tree's CPU time varies as much from run to
	 * run: seen, a splice copier piped to cat whose share came 2% above
	 * its fastest untraced run), and the traced wall above.
	 */
	if (c->many_tasks) {
		e->wall_lo_ns /= p->ncpus > 0 ? (uint64_t)p->ncpus : 1;
		e->wall_lo_ns -= e->wall_lo_ns / NOISE_DIV;
		e->wall_hi_ns = p->wall_ns;
		if (e->wall_lo_ns < busiest_floor(p))
			e->wall_lo_ns = busiest_floor(p);
	}
	e->no_ceiling = shared_work(p);
	if (e->wall_lo_ns < longest_sleep(p))
		e->wall_lo_ns = longest_sleep(p);
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
	 * another's work, so they do not simply add up.
	 */
	e->resolved = e->wall_ns && !contradicted && !e->no_ceiling &&
		      2 * (e->wall_hi_ns - e->wall_lo_ns) <= e->wall_ns &&
		      (!c->many_tasks || e->added_hi_ns * 5 <= p->wall_ns);
	e->resolution_ns = minus(c->overhead_hi_ns, p->overhead_ns);
	if (minus(p->overhead_ns, c->overhead_lo_ns) > e->resolution_ns)
		e->resolution_ns = p->overhead_ns - c->overhead_lo_ns;
}
