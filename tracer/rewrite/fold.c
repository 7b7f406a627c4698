// SPDX-License-Identifier: MIT
/*
 * The counters of a process turned into the sink's aggregates
 * (fast-int.h): what a cell gained since it was last folded goes out
 * twice, as the call's totals (the row) and as its share on the file
 * the fd names now (the per-file breakdown), described as the sink
 * describes an event's fd.  Folded at the stops where an fd's file is
 * about to change or go (close, dup2, execve, a task's exit), so each
 * share lands on the file that had it.  The program's page is only
 * read: what was folded is kept here, so a thread adding as it is read
 * is folded next time, never lost.  A call counts when its trampoline
 * is done with it (rewrite.h), as strace counts a call at its exit.
 */
#include <string.h>
#include "tracer/rewrite/fast-int.h"

#define FOLD_NARROW 4	/* fds a fold reads by their cells alone */

/*
 * The cell's largest size asked and its calls, taken and cleared in one
 * locked instruction, as the trampolines update the pair (cmpxchg16b):
 * the next share of the fd, maybe on another file (after a close, a
 * dup2, a vfork child's own fds), has a pair of its own, and no call
 * racing the fold loses its mark.  Shares of one file merge by keeping
 * the larger size and adding the calls of equal ones, so pairs taken at
 * each fold add up to the pair over the whole run.
 */
static void take_pair(struct rw_cell *c, uint64_t *max, uint64_t *calls)
{
	uint64_t lo = c->size_max, hi = c->size_max_calls, zero = 0;
	unsigned char ok = 0;

	do {
		__asm__ __volatile__("lock cmpxchg16b %1\n\tsete %0"
				     : "=q"(ok), "+m"(c->size_max),
				       "+a"(lo), "+d"(hi)
				     : "b"(zero), "c"(zero)
				     : "memory", "cc");
	} while (!ok);
	*max = lo;
	*calls = hi;
}

/* now - before, field by field; false when nothing changed. */
static bool cell_delta(struct rw_cell *now, struct rw_cell *before,
		       struct rw_cell *d)
{
	struct rw_cell n = { 0 };	/* fd2 is not the delta's: 0 */

	__atomic_load(&now->calls, &n.calls, __ATOMIC_ACQUIRE);
	if (n.calls == before->calls)
		return false;
	n.errors = __atomic_load_n(&now->errors, __ATOMIC_RELAXED);
	n.ns = __atomic_load_n(&now->ns, __ATOMIC_RELAXED);
	n.bytes = __atomic_load_n(&now->bytes, __ATOMIC_RELAXED);
	n.req = __atomic_load_n(&now->req, __ATOMIC_RELAXED);
	n.shorts = __atomic_load_n(&now->shorts, __ATOMIC_RELAXED);
	n.einval = __atomic_load_n(&now->einval, __ATOMIC_RELAXED);
	d->calls = n.calls - before->calls;
	d->errors = n.errors - before->errors;
	d->ns = n.ns - before->ns;
	d->bytes = n.bytes - before->bytes;
	d->req = n.req - before->req;
	d->shorts = n.shorts - before->shorts;
	d->einval = n.einval - before->einval;
	take_pair(now, &d->size_max, &d->size_max_calls);
	n.size_max = n.size_max_calls = 0;
	*before = n;
	return true;
}

static void aggregate_of(const struct fast_run *f, int slot,
			 const struct rw_cell *d, struct tracer_aggregate *a)
{
	memset(a, 0, sizeof(*a));
	a->arch = syscall_pers[0].arch;
	a->nr = f->nr_of[slot];
	a->calls = a->timed = d->calls;
	a->errors = d->errors;
	/* The filter's entry is inside the trampoline's clock: the call
	   untraced would not take it. */
	a->raw_time_ns = d->ns;
	a->time_ns = d->ns > d->calls * f->use->inflation_ns ?
		     d->ns - d->calls * f->use->inflation_ns : 0;
	a->bytes_done = d->bytes;
	a->bytes_req = f->how[slot].size != RW_NOREG ? d->req : d->bytes;
	a->short_calls = d->shorts;
	a->einval = d->einval;
	a->size_max = d->size_max;
	a->size_max_calls = d->size_max_calls;
	a->fast = true;
	if (!f->how[slot].timed) {	/* --count-only, -e count= */
		a->timed = a->errors = 0;
		a->time_ns = a->raw_time_ns = 0;
		a->bytes_req = a->bytes_done = a->short_calls = 0;
	}
}

/*
 * The slot's histogram and errnos since the last fold, into a; the
 * errnos (134 counters) only when errnos may have changed: a call's
 * cell counts its error before its errno does, so a fold that took no
 * error may leave one for a later fold, which every run ends with a
 * whole one of (errnos true) to take.
 */
static void slot_extras(const struct fast_run *f, struct fast_counters *c,
			int slot, bool errnos, struct tracer_aggregate *a)
{
	uint64_t v, infl = f->use->inflation_ns;
	int b, e, k = 0;

	/* Extremes, corrected as the times are; 0 is none to the sink. */
	v = __atomic_load_n(&c->mem->max_ns[slot], __ATOMIC_RELAXED);
	a->max_ns = v > infl ? v - infl : v ? 1 : 0;
	v = __atomic_load_n(&c->mem->nmin_ns[slot], __ATOMIC_RELAXED);
	a->min_ns = !v ? 0 : ~v > infl ? ~v - infl : 1;
	for (b = 0; b < RW_HIST && b < TRACER_HIST_BUCKETS; b++) {
		v = __atomic_load_n(&c->mem->hist[slot][b], __ATOMIC_RELAXED);
		a->hist[b] = v - c->folded->hist[slot][b];
		c->folded->hist[slot][b] = v;
	}
	for (e = 0; errnos && e < RW_ERRNOS; e++) {
		v = __atomic_load_n(&c->mem->err[slot][e], __ATOMIC_RELAXED);
		if (v == c->folded->err[slot][e])
			continue;
		if (e && k < TRACER_ERRNO_SLOTS) {
			a->errnos[k].err = e;
			a->errnos[k++].count = v - c->folded->err[slot][e];
		} else {
			a->errno_other += v - c->folded->err[slot][e];
		}
		c->folded->err[slot][e] = v;
	}
}

static void deliver(const struct fast_run *f, const struct tracer_aggregate *a)
{
	if (f->sink->aggregate)
		f->sink->aggregate(f->sink->ctx, a);
}

static void cell_add(struct rw_cell *sum, const struct rw_cell *d)
{
	sum->calls += d->calls;
	sum->errors += d->errors;
	sum->ns += d->ns;
	sum->bytes += d->bytes;
	sum->req += d->req;
	sum->shorts += d->shorts;
	sum->einval += d->einval;
}

/* The file fd of p names now, as the sink describes an event's
   (fd_describe() clears all of f->desc first). */
static void describe(const struct fast_proc *p, int fd, struct tracer_file *f)
{
	f->state = fd_describe(p->tgid, fd, &f->desc) == 0 ?
		   TRACER_FILE_DESC : TRACER_FILE_UNRESOLVED;
}

/*
 * The destination fd a two-fd slot's cell counts (its claim), or -1: a
 * one-fd slot, or a cell no call claimed.
 */
static int cell_fd2(const struct fast_run *f, int slot,
		    const struct rw_cell *c)
{
	uint64_t v;

	if (!f->how[slot].two_fd)
		return -1;
	v = __atomic_load_n(&c->fd2, __ATOMIC_ACQUIRE);
	return v && v <= RW_FDS ? (int)v - 1 : -1;
}

/*
 * A slot's calls so far, by its histogram, which each call's trampoline
 * adds to after its cell: a call this misses is in its cell, or about
 * to be, and its slot is read at the next fold.  A slot no call has
 * ended in has its minimum's complement still 0 (the first call raises
 * it, after its histogram): none, without reading its 40 buckets, as
 * most of a run's slots are at each close.
 */
static uint64_t slot_calls(const struct rw_counters *m, int slot)
{
	uint64_t n = 0;
	int b;

	if (!__atomic_load_n(&m->nmin_ns[slot], __ATOMIC_ACQUIRE))
		return 0;
	for (b = 0; b < RW_HIST; b++)
		n += __atomic_load_n(&m->hist[slot][b], __ATOMIC_ACQUIRE);
	return n;
}

/*
 * The cells of fds [lo, hi] and, of two-fd calls, those whose
 * destination is in it: fd by fd, so each fd's file is described once,
 * however many calls used it; each call's totals once all the fds are
 * done.  A call whose row has no file (lseek, fsync) gives no share.
 * Slots with no call since all their fds were folded are skipped: most
 * of a process's cells are never used, and reading them would fault in
 * pages of its counters for nothing.  A fold of a few fds (a close, a
 * dup2: most folds) skips only the slots no call ever ended in (one
 * load each): its cells' calls tell the rest, where summing each live
 * slot's 40 buckets to find the same took most of a close's fold; the
 * copies, whose cells it reads over all fds, are still found by their
 * sums.
 */
void fast_fold(struct fast_run *f, struct fast_proc *p, int lo, int hi)
{
	struct fast_counters *c = p->cnt;
	struct tracer_aggregate tot, share;
	struct rw_cell d, sum[RW_SLOTS];
	struct tracer_file file, file2;
	uint64_t now[RW_SLOTS];
	int live[RW_SLOTS], copies[RW_SLOTS], nlive = 0, ncopies = 0;
	int slot, fd, fd2, first, last, k, n, *slots;
	bool described, in, whole, narrow;

	if (!c)
		return;
	if (hi < 0 || hi >= RW_FDS)
		hi = RW_FDS - 1;
	if (lo < 0)
		lo = 0;
	whole = lo == 0 && hi == RW_FDS - 1;
	narrow = hi - lo < FOLD_NARROW;
	/* Clean from here: a call through a trampoline after it marks its
	   fd again, so its close stops for it. */
	if (lo <= hi)
		memset(&c->mem->dirty[lo], 0, (size_t)(hi - lo + 1));
	first = lo;
	last = hi;
	memset(sum, 0, (size_t)f->nslots * sizeof(*sum));
	for (slot = 0; slot < f->nslots; slot++) {
		if (narrow && !f->how[slot].two_fd) {
			if (__atomic_load_n(&c->mem->nmin_ns[slot],
					    __ATOMIC_ACQUIRE))
				live[nlive++] = slot;
			continue;
		}
		now[slot] = slot_calls(c->mem, slot);
		if (now[slot] == c->seen[slot])
			continue;
		live[nlive++] = slot;
		/* a copy's cell may name [lo, hi] as its destination */
		if (f->how[slot].two_fd) {
			copies[ncopies++] = slot;
			first = 0;
			last = RW_FDS - 1;
		}
	}
	/* Outside [lo, hi] only the copies' cells may hold a share: the
	   other slots are not looked at there (their 256 fds each made a
	   close of cp -r, whose copy_file_range fails, cost ~39 us). */
	for (fd = first; fd <= last && nlive; fd++) {
		described = false;
		in = fd >= lo && fd <= hi;
		slots = in ? live : copies;
		n = in ? nlive : ncopies;
		for (k = 0; k < n; k++) {
			struct rw_cell *cell;

			slot = slots[k];
			cell = &c->mem->cell[slot][fd];
			fd2 = cell_fd2(f, slot, cell);
			if ((!in && (fd2 < lo || fd2 > hi)) ||
			    !cell_delta(cell, &c->folded->cell[slot][fd], &d))
				continue;
			cell_add(&sum[slot], &d);
			if (f->how[slot].fd == RW_NOREG)
				continue;
			if (!described)
				describe(p, fd, &file);
			described = true;
			aggregate_of(f, slot, &d, &share);
			share.tgid = p->tgid;
			share.file = &file;
			if (fd2 >= 0) {
				describe(p, fd2, &file2);
				share.file2 = &file2;
			}
			deliver(f, &share);
		}
	}
	for (slot = 0; slot < f->nslots; slot++) {
		if (whole)
			c->seen[slot] = now[slot];
		if (!sum[slot].calls)
			continue;
		aggregate_of(f, slot, &sum[slot], &tot);
		tot.tgid = p->tgid;
		if (f->how[slot].timed)
			slot_extras(f, c, slot, whole || sum[slot].errors, &tot);
		deliver(f, &tot);
		f->use->calls += sum[slot].calls;
		if (p->code && p->code->threaded)
			f->use->calls_locked += sum[slot].calls;
	}
}
