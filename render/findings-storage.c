// SPDX-License-Identifier: MIT
/*
 * The findings on page cache against device (profile->storage): whether
 * the bytes a run wrote to storage (write_bytes of its tasks, read at
 * their exits) had reached the device when it ended, from how much the
 * machine's dirty and writeback memory grew, never from times, so they
 * say the same in every run.  Three cases: the page cache absorbed most
 * of them (page-cache: the device's cost comes after the run); most were
 * on the device because the writes waited for it (device-writes:
 * O_DIRECT or O_SYNC); or because a sync call flushed them (sync-paid).
 * Nothing when a task's accounting was unreadable, when /proc/meminfo
 * was, or below STORAGE_MIN_BYTES, where other writers on the machine
 * blur the dirty memory's growth.  Their rows are in findings.c's rules[].
 */
#include <string.h>
#include "render/findings-int.h"

/* Dirty memory moves by tens of MiB on a busy machine: below, silence. */
#define STORAGE_MIN_BYTES (32ull << 20)

/* Binary units, as dd and free(1) speak of memory: "1.0 GiB". */
static const char *fmt_ibytes(char *buf, size_t size, uint64_t n)
{
	if (n >= 1ull << 30)
		snprintf(buf, size, "%.1f GiB", (double)n / (1ull << 30));
	else if (n >= 1ull << 20)
		snprintf(buf, size, "%.1f MiB", (double)n / (1ull << 20));
	else
		snprintf(buf, size, "%.1f KiB", (double)n / (1ull << 10));
	return buf;
}

/* What the rules read, when they may speak at all. */
struct storage_view {
	uint64_t written;	/* write_bytes over the run's tasks */
	uint64_t unflushed;	/* of them, still in memory at the end */
	uint64_t direct;	/* bytes written with O_DIRECT or O_SYNC to
				   files a block device is behind */
	uint64_t write_ns, sync_ns, sync_calls;
	const char *sync_name;	/* the sync call with most time */
};

static bool waits_for_device(const struct profile_file *f)
{
	return (f->flags & (PF_DIRECT | PF_SYNC | PF_DSYNC)) &&
	       f->backing == FD_BACKING_DEVICE;
}

static uint64_t direct_bytes(const struct profile *p)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_sub *s;
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < b->nsubs; i++) {
		s = &b->subs[i];
		if (in_family(&p->rows[s->row], FAM_WRITE) &&
		    waits_for_device(profile_file_at(b, s->key)))
			n += s->bytes_done;
	}
	return n;
}

static void sum_rows(const struct profile *p, const struct report_opts *o,
		     struct storage_view *v)
{
	static char name[PROFILE_ROW_LABEL_MAX];
	const struct profile_row *r, *top = NULL;
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (in_family(r, FAM_WRITE))
			v->write_ns += row_time(r, o);
		if (!in_family(r, FAM_SYNC) || !r->calls)
			continue;
		v->sync_ns += row_time(r, o);
		v->sync_calls += r->calls;
		if (!top || row_time(r, o) > row_time(top, o))
			top = r;
	}
	v->sync_name = top ? profile_row_label(top, name, sizeof(name)) : NULL;
}

/* false: the run cannot say where its writes were when it ended. */
static bool storage_view(const struct profile *p, const struct report_opts *o,
			 struct storage_view *v)
{
	const struct profile_storage *s = &p->storage;

	memset(v, 0, sizeof(*v));
	if (!profile_storage_known(p) || !s->mem_known ||
	    s->write_bytes < STORAGE_MIN_BYTES)
		return false;
	v->written = s->write_bytes;
	v->unflushed = profile_storage_unflushed(s);
	v->direct = direct_bytes(p);
	sum_rows(p, o, v);
	return true;
}

static double reached_pct(const struct storage_view *v)
{
	return pct(v->written - v->unflushed, v->written);
}

void findings_page_cache(struct emit *e, const struct profile *p,
			 const struct report_opts *o, double threshold)
{
	struct storage_view v;
	char w[32], u[32];
	FILE *f;

	if (!storage_view(p, o, &v) || pct(v.unflushed, v.written) < threshold ||
	    !(f = finding_begin(e, "%s", "")))
		return;
	fprintf(f, "%s written, %.0f%% of it reached the device before exit "
		"(%s left dirty in memory): the page cache absorbed the "
		"writes, so their times are memory copies; the device's cost "
		"comes at sync or writeback, after the run: an fsync before "
		"exit (dd conv=fsync) or O_DIRECT (dd oflag=direct) measures "
		"it.", fmt_ibytes(w, sizeof(w), v.written), reached_pct(&v),
		fmt_ibytes(u, sizeof(u), v.unflushed));
	finding_end(e);
}

/* Most written bytes went to the device within the calls. */
static bool mostly_direct(const struct storage_view *v)
{
	return 2 * v->direct >= v->written;
}

void findings_device_writes(struct emit *e, const struct profile *p,
			    const struct report_opts *o, double threshold)
{
	struct storage_view v;
	char w[32];
	FILE *f;

	if (!storage_view(p, o, &v) || pct(v.unflushed, v.written) >= threshold ||
	    !mostly_direct(&v) || !(f = finding_begin(e, "%s", "")))
		return;
	fprintf(f, "%s written with O_DIRECT or O_SYNC, %.0f%% of it on the "
		"device before exit: each write waited for the device, so the "
		"%.3f s in writes (%.1f MB/s) is the device's cost.",
		fmt_ibytes(w, sizeof(w), v.written), reached_pct(&v),
		(double)v.write_ns / 1e9, v.write_ns ?
		(double)v.written / ((double)v.write_ns / 1e9) / 1e6 : 0.0);
	finding_end(e);
}

bool findings_sync_paid_applies(const struct profile *p,
				const struct report_opts *o, double threshold)
{
	struct storage_view v;

	return storage_view(p, o, &v) &&
	       pct(v.unflushed, v.written) < threshold && !mostly_direct(&v);
}

/* "fsync 0.394 s (1 call)" for each row that fam or name picks. */
static int print_waiters(FILE *f, const struct profile *p,
			 const struct report_opts *o, int fam, const char *name,
			 int n)
{
	char label[PROFILE_ROW_LABEL_MAX], calls[32];
	const struct profile_row *r;
	size_t i;

	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (!r->calls || (fam >= 0 ? !in_family(r, (enum family)fam) :
				  strcmp(profile_row_label(r, label,
							   sizeof(label)),
					 name)))
			continue;
		fprintf(f, "%s%s %.3f s (%s %s)", n++ ? ", " : "",
			profile_row_label(r, label, sizeof(label)),
			(double)row_time(r, o) / 1e9,
			fmt_thousands(calls, sizeof(calls), r->calls),
			plural(r->calls, "call", "calls"));
	}
	return n;
}

/*
 * Written through the page cache yet on the device at exit: a flush in
 * the run paid for them.  Which call paid is not told by bytes (a sync
 * call; a close, ext4 flushing a file truncated and written again; the
 * writes, throttled past the dirty limits), so the calls that wait for
 * a flush are listed with their times, sync calls first; bytes decide
 * whether it is said, so every run says it.
 */
void findings_sync_paid(struct emit *e, const struct profile *p,
			const struct report_opts *o, double threshold)
{
	struct storage_view v;
	char w[32];
	FILE *f;
	int n;

	if (!storage_view(p, o, &v) || pct(v.unflushed, v.written) >= threshold ||
	    mostly_direct(&v) || !(f = finding_begin(e, "%s", "")))
		return;
	fprintf(f, "%s paid for earlier writes: %s written through the page "
		"cache, %.0f%% of it on the device before exit; the calls that "
		"wait for a flush took ", v.sync_name ? v.sync_name :
		"a flush in the run", fmt_ibytes(w, sizeof(w), v.written),
		reached_pct(&v));
	n = print_waiters(f, p, o, FAM_SYNC, NULL, 0);
	n = print_waiters(f, p, o, -1, "close", n);
	print_waiters(f, p, o, FAM_WRITE, NULL, n);
	fputs(": the device's cost is there, not in the writes' MB/s alone.",
	      f);
	finding_end(e);
}
