// SPDX-License-Identifier: MIT
/*
 * Findings: a few plain sentences after the tables, each one a rule with
 * a threshold checked against numbers the tables above print.  A rule
 * that is not sure says nothing: silence is better than a wrong finding.
 * A finding is kept whole, in memory of its size, with the rule that made
 * it and what it is about, so a sweep can say it once for the points it
 * holds at.  Adding a rule is one function and one row in rules[] (with a
 * unit test in tests/unit/test-findings.c that also shows when it stays
 * silent).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "reports/render/render.h"

#define TINY_MIN_CALLS 1000	/* fewer calls cannot cost much */
#define SUGGESTED_BUF 65536	/* the buffer the tiny-io rule suggests */
#define BLOCK_MIN_CALLS 16	/* block-size rule: enough calls to matter */
#define COPY_TOLERANCE 100	/* copy rule: bytes equal within 1/100 */
#define OUTSIDE_MIN_WALL_NS 50000000ull /* too short a run says nothing */
#define COLD_RATIO 2.0		/* traced this many times untraced: cold */

/*
 * What a rule writes its findings through: finding_begin() opens one,
 * about a subject, and gives the stream its text goes to; finding_end()
 * adds it, whole, to the list.  Memory running out is kept in err.
 */
struct emit {
	const char *rule;		/* the rule speaking */
	struct findings *out;
	char *about;			/* the finding being written */
	char *text;
	size_t len;
	FILE *f;			/* its text; NULL: none open */
	int err;			/* 0, or -ENOMEM */
};

struct rule {
	const char *id;
	/* Adds its findings through e. */
	void (*check)(struct emit *e, const struct profile *p,
		      const struct report_opts *o, double threshold);
	double threshold;
};

/*
 * A finding of e's rule about what fmt says (a syscall, a file; "" for
 * the run: one finding per rule and subject), its text to the stream
 * returned, without bullet or newline.  NULL: no memory (e->err).
 */
static __attribute__((format(printf, 2, 3)))
FILE *finding_begin(struct emit *e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&e->about, fmt, ap);
	va_end(ap);
	if (n < 0) {
		e->about = NULL;
		e->err = -ENOMEM;
		return NULL;
	}
	e->text = NULL;
	e->len = 0;
	e->f = open_memstream(&e->text, &e->len);
	if (!e->f) {
		free(e->about);
		e->err = -ENOMEM;
	}
	return e->f;
}

/* The finding begun, added to the list. */
static void finding_end(struct emit *e)
{
	struct findings *out = e->out;
	struct finding *v;
	bool failed = fclose(e->f) != 0;

	e->f = NULL;
	v = failed ? NULL : realloc(out->v, (out->n + 1) * sizeof(*v));
	if (!v) {
		free(e->text);
		free(e->about);
		e->err = -ENOMEM;
		return;
	}
	out->v = v;
	v[out->n++] = (struct finding){ e->rule, e->about, e->text };
}

/*
 * A row's syscall name, whatever its personality (i386's write is a
 * write); "" for a number without a name (never buf, then).
 */
static const char *family_name(const struct profile_row *r)
{
	char buf[PROFILE_NAME_MAX];

	if (r->pers == PROFILE_PERS_NONE)
		return r->unknown;
	if (!syscall_pers_named(r->pers, r->nr))
		return "";
	return syscall_pers_name(r->pers, r->nr, buf, sizeof(buf));
}

/* The families the rules speak of, from the syscall facts. */
enum family { FAM_READ, FAM_WRITE, FAM_SYNC };

static bool in_family(const struct profile_row *r, enum family fam)
{
	const struct syscall_fact *f = profile_row_fact(r);

	if (!f)
		return false;
	switch (fam) {
	case FAM_READ:
		return f->flags & SF_READ_FAMILY;
	case FAM_WRITE:
		return f->flags & SF_WRITE_FAMILY;
	case FAM_SYNC:
		return f->classes & SC_SYNC;
	}
	return false;
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* Decimal units, like the MB/s column: 1 MB = 10^6 bytes. */
static const char *fmt_bytes(char *buf, size_t size, uint64_t n)
{
	char t[32];

	if (n >= 1000000000ull)
		snprintf(buf, size, "%.1f GB", (double)n / 1e9);
	else if (n >= 1000000)
		snprintf(buf, size, "%.1f MB", (double)n / 1e6);
	else
		snprintf(buf, size, "%s %s", fmt_thousands(t, sizeof(t), n),
			 plural(n, "byte", "bytes"));
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/*
 * ns as a share of the time in syscalls as the table's % time column has
 * it (every row's time, waits too, as o wants the times) and prints it:
 * "25.57%".
 */
static void print_table_share(FILE *f, const struct profile *p,
			      const struct report_opts *o, uint64_t ns)
{
	struct profile_totals t;

	profile_totals(p, &t);
	fprintf(f, "%.2f%%", pct(ns, totals_time(&t, o)));
}

/* A sub-row's time as o wants it: corrected, or raw. */
static uint64_t sub_time(const struct profile_sub *io,
			 const struct report_opts *o)
{
	return o && o->raw_time ? io->raw_time_ns : io->time_ns;
}

/*
 * Time in syscalls that is the program's work: calls that wait for other
 * processes or events left out (a parent's wait4 spans its child's run).
 */
static uint64_t busy_time(const struct profile *p,
			  const struct report_opts *o)
{
	uint64_t busy = 0;
	size_t i;

	for (i = 0; i < p->nrows; i++)
		if (!profile_row_waits(&p->rows[i]))
			busy += row_time(&p->rows[i], o);
	return busy;
}

/*
 * " took 93% of wall time": against the untraced estimate when there is
 * one, and nothing when tracing left the program's time unresolved.
 */
static void print_share_of_run(FILE *f, const struct profile *p,
			       uint64_t ns)
{
	const struct profile_baseline *b = &p->baseline;
	struct profile_estimate e;

	profile_untraced(p, &e);
	if (b->runs && b->wall_ns) {
		/* Measured untraced: as the --baseline line says it. */
		if (baseline_outside_user(b) >= 0)
			fprintf(f, " (untraced, %.1f%% of the run was outside "
				"user space)", 100.0 * baseline_outside_user(b));
		return;
	}
	if (!e.known) {
		if (p->wall_ns)
			fprintf(f, " took %.0f%% of wall time",
				pct(ns, p->wall_ns));
		return;
	}
	if (e.resolved && ns <= e.wall_ns)
		fprintf(f, " took about %.0f%% of the untraced run",
			pct(ns, e.wall_ns));
}

/*
 * -k: ", 99.9% from emit_byte <- write_report (app)" when one call
 * site made most of r's calls (DOMINANT_SITE of those with a stack).
 */
#define DOMINANT_SITE 0.5

static void print_site(FILE *f, const struct profile *p,
		       const struct profile_row *r,
		       const struct report_opts *o)
{
	char *site;
	double share = callsites_dominant(p, r, o, &site);

	if (share >= DOMINANT_SITE)
		fprintf(f, ", %s%.1f%% from %s", p->stack_sample > 1 ? "~" : "",
			100.0 * share, site);
	free(site);
}

/*
 * Many small writes: the classic unbuffered loop.  Only writes, whose
 * size the program chooses; a read's size depends on what is there.
 */
static void tiny_io(struct emit *e, const struct profile *p,
		    const struct report_opts *o, double threshold)
{
	const struct profile_row *r;
	char calls[32], avg[32], fewer[32], label[PROFILE_ROW_LABEL_MAX];
	uint64_t mean, after;
	size_t i;
	FILE *f;

	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (!in_family(r, FAM_WRITE) ||
		    r->calls < TINY_MIN_CALLS || !r->bytes_done ||
		    r->timed != r->calls)
			continue;
		mean = r->bytes_done / r->calls;
		after = (r->bytes_done + SUGGESTED_BUF - 1) / SUGGESTED_BUF;
		if ((double)mean >= threshold || after * 16 > r->calls)
			continue;
		profile_row_label(r, label, sizeof(label));
		if (!(f = finding_begin(e, "%s", label)))
			return;
		fprintf(f, "%s: %s calls averaging %s %s", label,
			fmt_thousands(calls, sizeof(calls), r->calls),
			fmt_thousands(avg, sizeof(avg), mean),
			plural(mean, "byte", "bytes"));
		print_share_of_run(f, p, row_time(r, o));
		print_site(f, p, r, o);
		fprintf(f, ". A 64 KiB buffer would make ~%s calls.",
			fmt_thousands(fewer, sizeof(fewer), after));
		finding_end(e);
	}
}

static const char *io_name(const struct profile *p,
			   const struct profile_sub *io)
{
	return family_name(&p->rows[io->row]);
}

/* The sub-row's syscall as the tables show it, into buf. */
static const char *io_label(const struct profile *p,
			    const struct profile_sub *io, char *buf)
{
	return profile_row_label(&p->rows[io->row], buf, PROFILE_ROW_LABEL_MAX);
}

/*
 * O_DIRECT refused the size: every call on the row asked the same size,
 * and it is not a multiple of the device's logical block size (512 when
 * /sys did not say: no device has a smaller one).  Failures with an
 * aligned size come from the offset or the buffer, and those on a file
 * with no device behind it from something else: not this rule's.
 */
static bool direct_size_refused(const struct profile *p,
				const struct profile_sub *io, uint64_t lbs)
{
	const struct profile_file *file = profile_file_at(profile_files(p),
							  io->key);

	return (file->flags & PF_DIRECT) && io->einval &&
	       file->backing != FD_BACKING_NONE &&
	       io->key2 == PROFILE_FILE_NONE && io->size_max &&
	       io->size_max_calls == io->calls && io->size_max % lbs;
}

static void odirect_einval(struct emit *e, const struct profile *p,
			   const struct report_opts *o, double threshold)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_file *file;
	const struct profile_sub *io;
	char times[32], size[32], label[PROFILE_ROW_LABEL_MAX];
	size_t i;
	FILE *f;

	(void)o;
	for (i = 0; i < b->nsubs; i++) {
		io = &b->subs[i];
		file = profile_file_at(b, io->key);
		if (!direct_size_refused(p, io, file->lbs ? file->lbs
						  : (uint64_t)threshold))
			continue;
		io_label(p, io, label);
		if (!(f = finding_begin(e, "%s %s", label, file->path)))
			return;
		fprintf(f, "%s to %s failed %s %s with EINVAL: O_DIRECT needs "
			"sizes that are multiples of ", label, file->path,
			fmt_thousands(times, sizeof(times), io->einval),
			plural(io->einval, "time", "times"));
		if (file->lbs)
			fprintf(f, "%u", file->lbs);
		else
			fprintf(f, "the device's logical block size (%.0f or "
				"more)", threshold);
		fprintf(f, " (each call asked %s bytes).",
			fmt_thousands(size, sizeof(size), io->size_max));
		finding_end(e);
	}
}

/*
 * Sequential calls whose size neither fills a whole number of blocks nor
 * divides a block straddle block boundaries (1130 against 4096 does;
 * 1024 and 8192 do not).  Only when nearly every call asked that size.
 */
static bool straddles(const struct profile *p, const struct profile_sub *io,
		      double threshold)
{
	const struct profile_file *file = profile_file_at(profile_files(p),
							  io->key);
	const char *name = io_name(p, io);
	uint64_t s = io->size_max, b = file->blksize;

	if (file->kind != FD_REG && file->kind != FD_BLK)
		return false;
	if (strcmp(name, "write") && strcmp(name, "read"))
		return false;
	if (!b || !s || io->calls - io->errors < BLOCK_MIN_CALLS ||
	    (double)io->size_max_calls < threshold * (double)io->calls)
		return false;
	return s % b && b % s;
}

/* "write to X", "read from X" */
static const char *dir_word(const struct profile *p,
			    const struct profile_sub *io)
{
	return in_family(&p->rows[io->row], FAM_READ) ? "from" : "to";
}

/*
 * What straddling costs depends on the path: O_DIRECT and O_SYNC make the
 * device do partial blocks (read-modify-write, or a refusal); through the
 * page cache the kernel merges them, and the size is a neutral fact; with
 * no block device behind the file (tmpfs) no device does any.
 */
static const char *misfit_cost(const struct profile_file *file)
{
	bool direct = file->flags & (PF_DIRECT | PF_SYNC | PF_DSYNC);

	if (file->backing == FD_BACKING_NONE)
		return "no block device is behind this file, so no device "
		       "handles partial blocks";
	if (direct && file->backing == FD_BACKING_DEVICE)
		return "with O_DIRECT or O_SYNC each call makes the device "
		       "handle partial blocks";
	if (direct)
		return "whether a block device is behind this file is not "
		       "known; with O_DIRECT or O_SYNC each call would make "
		       "one handle partial blocks";
	return "through the page cache this costs little, the kernel merges "
	       "partial blocks; it matters with O_DIRECT or O_SYNC";
}

static void block_misfit(struct emit *e, const struct profile *p,
			 const struct report_opts *o, double threshold)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_file *file;
	const struct profile_sub *io;
	char same[32], calls[32], size[32], label[PROFILE_ROW_LABEL_MAX];
	size_t i;
	FILE *f;

	(void)o;
	for (i = 0; i < b->nsubs; i++) {
		io = &b->subs[i];
		if (!straddles(p, io, threshold))
			continue;
		file = profile_file_at(b, io->key);
		io_label(p, io, label);
		if (!(f = finding_begin(e, "%s %s", label, file->path)))
			return;
		fprintf(f, "%s %s %s: %s of %s calls asked %s bytes, which "
			"neither fills nor divides its block size %u: %s.",
			label, dir_word(p, io), file->path,
			fmt_thousands(same, sizeof(same), io->size_max_calls),
			fmt_thousands(calls, sizeof(calls), io->calls),
			fmt_thousands(size, sizeof(size), io->size_max),
			file->blksize, misfit_cost(file));
		finding_end(e);
	}
}

static uint64_t family_time(const struct profile *p,
			    const struct report_opts *o,
			    enum family fam, uint64_t *calls)
{
	uint64_t ns = 0;
	size_t i;

	*calls = 0;
	for (i = 0; i < p->nrows; i++) {
		if (!in_family(&p->rows[i], fam))
			continue;
		ns += row_time(&p->rows[i], o);
		*calls += p->rows[i].calls;
	}
	return ns;
}

/*
 * fsync and friends: the device flush, which the page cache hid.  Heavy
 * when it takes most of the syscall time (waits left out: a parent's
 * wait4 spans its child's run) or more than the writes it flushed.
 */
static void sync_heavy(struct emit *e, const struct profile *p,
		       const struct report_opts *o, double threshold)
{
	const struct profile_row *r;
	uint64_t busy = busy_time(p, o), writes, nwrites;
	char calls[32], wcalls[32], label[PROFILE_ROW_LABEL_MAX];
	size_t i;
	FILE *f;

	writes = family_time(p, o, FAM_WRITE, &nwrites);
	for (i = 0; i < p->nrows; i++) {
		r = &p->rows[i];
		if (!in_family(r, FAM_SYNC) || !r->timed ||
		    r->timed != r->calls || !row_time(r, o) ||
		    (pct(row_time(r, o), busy) < threshold &&
		     row_time(r, o) <= writes))
			continue;
		profile_row_label(r, label, sizeof(label));
		if (!(f = finding_begin(e, "%s", label)))
			return;
		fprintf(f, "%s: %s %s took ", label,
			fmt_thousands(calls, sizeof(calls), r->calls),
			plural(r->calls, "call", "calls"));
		print_table_share(f, p, o, row_time(r, o));
		fputs(" of syscall time", f);
		if (nwrites && row_time(r, o) > writes)
			fprintf(f, ", %.1fx the %.3f ms of the %s %s it "
				"flushed: the page cache absorbed them, the "
				"cost moved to the flush",
				(double)row_time(r, o) / (double)(writes ?
				writes : 1), (double)writes / 1e6,
				fmt_thousands(wcalls, sizeof(wcalls), nwrites),
				plural(nwrites, "write", "writes"));
		fputc('.', f);
		finding_end(e);
	}
}

/* File i of the run. */
static const struct profile_file *file_at(const struct profile *p, size_t i)
{
	return profile_file_at(profile_files(p), (uint32_t)i);
}

/* Files whose bytes can go through splice/sendfile/copy_file_range. */
static bool copyable(const struct profile_file *f)
{
	return f->kind == FD_REG || f->kind == FD_BLK || f->kind == FD_PIPE ||
	       f->kind == FD_SOCK;
}

/* Bytes and calls of plain reads from and writes to one file. */
struct flow {
	uint64_t in, in_calls, out, out_calls;
};

static void sum_by_file(const struct profile *p, struct flow *fl)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_sub *io;
	size_t i;

	for (i = 0; i < b->nsubs; i++) {
		io = &b->subs[i];
		if (io->key2 != PROFILE_FILE_NONE)
			continue;
		if (in_family(&p->rows[io->row], FAM_READ)) {
			fl[io->key].in += io->bytes_done;
			fl[io->key].in_calls += io->calls;
		} else if (in_family(&p->rows[io->row], FAM_WRITE)) {
			fl[io->key].out += io->bytes_done;
			fl[io->key].out_calls += io->calls;
		}
	}
}

/* Equal within 1/COPY_TOLERANCE, or within slack. */
static bool about_equal(uint64_t a, uint64_t b, uint64_t slack)
{
	uint64_t big = a > b ? a : b, diff = a > b ? a - b : b - a;

	return diff <= big / COPY_TOLERANCE || diff <= slack;
}

/*
 * A copy loop reads as much from one file as it writes to the other, in
 * about as many calls (a pipeline of two programs through a pipe would
 * otherwise pair its two ends' files).
 */
static bool copies(const struct profile *p, const struct flow *fl, size_t a,
		   size_t b, double threshold)
{
	return a != b && copyable(file_at(p, a)) && copyable(file_at(p, b)) &&
	       (double)fl[a].in >= threshold &&
	       about_equal(fl[a].in, fl[b].out, 0) &&
	       about_equal(fl[a].in_calls, fl[b].out_calls, 2);
}

/* The pair (src, dst) moving the most bytes, read and written alike. */
static uint64_t best_pair(const struct profile *p, const struct flow *fl,
			  double threshold, size_t *src, size_t *dst)
{
	size_t a, b, n = profile_files(p)->nkeys;
	uint64_t best = 0;

	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++) {
			if (!copies(p, fl, a, b, threshold) || fl[a].in <= best)
				continue;
			best = fl[a].in;
			*src = a;
			*dst = b;
		}
	return best;
}

static const char *copy_call(const struct profile_file *a,
			     const struct profile_file *b)
{
	if (a->kind == FD_REG && b->kind == FD_REG)
		return "copy_file_range";
	if (a->kind == FD_REG)
		return "sendfile";
	return "splice";
}

static void user_copy(struct emit *e, const struct profile *p,
		      const struct report_opts *o, double threshold)
{
	struct flow *fl = calloc(profile_files(p)->nkeys + 1, sizeof(*fl));
	size_t src = 0, dst = 0;
	uint64_t bytes;
	char b[32];
	FILE *f;

	(void)o;
	if (!fl) {
		e->err = -ENOMEM;
		return;
	}
	sum_by_file(p, fl);
	bytes = best_pair(p, fl, threshold, &src, &dst);
	if (!bytes || !(f = finding_begin(e, "%s %s", file_at(p, src)->path,
					  file_at(p, dst)->path)))
		goto out_free;
	fprintf(f, "read+write pairs copied %s through user space from %s "
		"to %s: %s would skip the copy.",
		fmt_bytes(b, sizeof(b), bytes), file_at(p, src)->path,
		file_at(p, dst)->path, copy_call(file_at(p, src),
						 file_at(p, dst)));
	finding_end(e);
out_free:
	free(fl);
}

/*
 * Time that no syscall accounts for.  Against the traced wall that would
 * lump iotrace's own stops with the program's user space, so with the
 * untraced estimate it speaks of the untraced run only, and only when the
 * estimate is resolved; without one (older files) it says both causes.
 */
static void outside_syscalls(struct emit *e, const struct profile *p,
			     const struct report_opts *o, double threshold)
{
	const struct profile_baseline *b = &p->baseline;
	struct profile_estimate est;
	struct profile_totals t;
	double outside;
	FILE *f;

	profile_totals(p, &t);
	profile_untraced(p, &est);
	if (!p->exit.known || p->wall_ns < OUTSIDE_MIN_WALL_NS ||
	    t.timed != t.calls || totals_time(&t, o) > p->wall_ns)
		return;
	if (b->runs) {
		/* Measured: what the --baseline line leaves to user space. */
		outside = baseline_outside_user(b) < 0 ? 0 :
			  100.0 - 100.0 * baseline_outside_user(b);
		if (outside >= threshold && (f = finding_begin(e, "%s", "")))
			fprintf(f, "%.1f%% of the untraced run (--baseline) "
				"was user CPU: the time is in the program's "
				"own code, not in syscalls.", outside);
	} else if (!est.known) {
		/* The header's share of wall, the rest of it. */
		outside = 100.0 - pct(totals_time(&t, o), p->wall_ns);
		if (outside >= threshold && (f = finding_begin(e, "%s", "")))
			fprintf(f, "%.1f%% of wall time was outside syscalls "
				"(user space or tracing overhead).", outside);
	} else if (est.resolved && est.syscall_ns < est.wall_ns) {
		outside = 100.0 - pct(est.syscall_ns, est.wall_ns);
		if (outside >= threshold && (f = finding_begin(e, "%s", "")))
			fprintf(f, "about %.0f%% of the untraced run was "
				"outside syscalls: user-space work (user CPU "
				"%.3f s) or waiting.", outside,
				(double)p->cost.user_ns / 1e9);
	}
	if (e->f)
		finding_end(e);
}

/*
 * When most of the traced wall is iotrace's own, shares of that wall mean
 * little: say so, and how to measure the untraced run instead.  With the
 * untraced runs measured (--baseline), only where they agree: the traced
 * wall at least 1 / (1 - threshold) times theirs.
 */
static bool baseline_disagrees(const struct profile *p, double threshold)
{
	const struct profile_baseline *b = &p->baseline;

	return b->runs && b->wall_ns &&
	       (b->wall_ns >= p->wall_ns ||
		pct(p->wall_ns - b->wall_ns, p->wall_ns) < threshold);
}

static void tracing_dominates(struct emit *e, const struct profile *p,
			      const struct report_opts *o, double threshold)
{
	struct profile_estimate est;
	FILE *f;

	(void)o;
	profile_untraced(p, &est);
	if (!est.known || pct(est.added_lo_ns, p->wall_ns) < threshold ||
	    baseline_disagrees(p, threshold) ||
	    !(f = finding_begin(e, "%s", "")))
		return;
	fputs("tracing dominates this run: ", f);
	print_added(f, p);
	fprintf(f, " added %.0f-%.0f%% of the %.3f s traced wall, so how the "
		"program's own time splits between syscalls and user space "
		"%s; %s.", pct(est.added_lo_ns, p->wall_ns),
		pct(est.added_hi_ns < p->wall_ns ? est.added_hi_ns :
		    p->wall_ns, p->wall_ns), (double)p->wall_ns / 1e9,
		est.resolved ? "is only an estimate" :
		"cannot be read from it", p->baseline.runs ?
		"go by the untraced runs of --baseline above" :
		p->exit.attached ? "tracing a run started by iotrace "
		"with --baseline would measure it" :
		"`--baseline` measures the untraced run");
	finding_end(e);
}

static bool waits_on_peer(const struct profile_file *f)
{
	return f && (f->kind == FD_PIPE || f->kind == FD_SOCK);
}

/*
 * Calls on a pipe or socket wait for the other end: their times are the
 * other end's pace as much as this process's work.  Say so where they
 * weigh in the total.  Tracing changes both ends' pace, but how much, and
 * which way, only an untraced run measures: no claim about it here.
 */
static void peer_waits(struct emit *e, const struct profile *p,
		       const struct report_opts *o, double threshold)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_sub *io;
	uint64_t busy = busy_time(p, o), peer = 0, calls = 0;
	char n[32];
	size_t i;
	FILE *f;

	for (i = 0; i < b->nsubs; i++) {
		io = &b->subs[i];
		if (!waits_on_peer(profile_file_at(b, io->key)) &&
		    (io->key2 == PROFILE_KEY_NONE ||
		     !waits_on_peer(profile_file_at(b, io->key2))))
			continue;
		peer += sub_time(io, o);
		calls += io->calls;
	}
	if (!busy || pct(peer, busy) < threshold ||
	    !(f = finding_begin(e, "%s", "")))
		return;
	fprintf(f, "%s calls on pipes or sockets took ",
		fmt_thousands(n, sizeof(n), calls));
	print_table_share(f, p, o, peer);
	fputs(" of syscall time: they wait for the other end, so their "
	      "times are its pace as much as this process's work.", f);
	finding_end(e);
}

/* O_DIRECT or O_SYNC I/O to a file with a block device behind it. */
static bool blocks_on_device(const struct profile_file *f)
{
	return f && (f->flags & (PF_DIRECT | PF_SYNC | PF_DSYNC)) &&
	       f->backing == FD_BACKING_DEVICE;
}

/*
 * Time in calls that wait for the device on every call: O_DIRECT or
 * O_SYNC I/O where a block device is behind the file (on tmpfs such a
 * call is a copy in memory), from the file breakdown; their count in
 * *calls.
 */
static uint64_t device_time(const struct profile *p,
			    const struct report_opts *o, uint64_t *calls)
{
	const struct profile_breakdown *b = profile_files(p);
	uint64_t ns = 0;
	size_t i;

	*calls = 0;
	for (i = 0; i < b->nsubs; i++) {
		if (!blocks_on_device(profile_file_at(b, b->subs[i].key)))
			continue;
		ns += sub_time(&b->subs[i], o);
		*calls += b->subs[i].calls;
	}
	return ns;
}

/* Whether any of row r's calls went to a file a device is behind. */
static bool row_on_device(const struct profile *p, const struct profile_row *r)
{
	const struct profile_breakdown *b = profile_files(p);
	size_t i;

	for (i = 0; i < b->nsubs; i++)
		if (&p->rows[b->subs[i].row] == r &&
		    blocks_on_device(profile_file_at(b, b->subs[i].key)))
			return true;
	return false;
}

/*
 * Truth row t's calls as the traced run's row r: the same calls (within
 * 1/COPY_TOLERANCE), each timed, taking COLD_RATIO times as long traced.
 */
static bool slower_traced(const struct profile_truth_row *t,
			  const struct profile_row *r,
			  const struct report_opts *o)
{
	return t->calls && r && r->timed == r->calls &&
	       about_equal(t->calls, r->calls, 0) &&
	       (double)row_time(r, o) / (double)r->timed >=
	       COLD_RATIO * (double)t->total_ns / (double)t->calls;
}

/*
 * "; between them, read took 9.700 us a call traced, 5.4x its 1.800 us
 * untraced (--truth): ..." for each syscall none of whose calls went
 * to the device that the workload's own untraced timing (--truth)
 * measured that much faster; nothing where it did not, or without one.
 */
static void print_cold(FILE *f, const struct profile *p,
		       const struct report_opts *o)
{
	const struct profile_truth_row *t;
	const struct profile_row *r;
	double traced, untraced;
	size_t i, n = 0;

	for (i = 0; i < p->truth.nrows; i++) {
		t = &p->truth.rows[i];
		r = profile_row_find(p, t->name);
		if (!slower_traced(t, r, o) || row_on_device(p, r))
			continue;
		traced = (double)row_time(r, o) / (double)r->timed / 1e3;
		untraced = (double)t->total_ns / (double)t->calls / 1e3;
		fprintf(f, "%s %s took %.3f us a call traced, %.1fx its %.3f "
			"us untraced (--truth)", n++ ? "," : "; between them,",
			t->name, traced, traced / untraced, untraced);
	}
	if (n)
		fputs(": calls after each wait start cold, and tracing stops "
		      "them right there", f);
}

/*
 * Calls between blocking ones may start cold (caches, a wake-up after
 * the device's wait), and tracing adds its stops right there: measured
 * once, the /dev/zero read between O_DIRECT 4 KiB writes of `run dd`
 * took 1.8 us untraced and 9.7 us traced, but in other runs it was
 * faster traced.  So it is said only as this run's --truth measured it.
 */
static void after_blocking(struct emit *e, const struct profile *p,
			   const struct report_opts *o, double threshold)
{
	uint64_t calls, dev, busy = busy_time(p, o);
	struct profile_totals t;
	char n[32];
	FILE *f;

	profile_totals(p, &t);
	dev = device_time(p, o, &calls);
	if (!busy || calls < BLOCK_MIN_CALLS || t.timed < 2 * calls ||
	    pct(dev, busy) < threshold || !(f = finding_begin(e, "%s", "")))
		return;
	fprintf(f, "%s calls waited for the device (O_DIRECT or O_SYNC "
		"I/O) and took ", fmt_thousands(n, sizeof(n), calls));
	print_table_share(f, p, o, dev);
	fputs(" of syscall time", f);
	print_cold(f, p, o);
	fputc('.', f);
	finding_end(e);
}

/* The rules, in the order their findings print. */
static const struct rule rules[] = {
	{ "tiny-io", tiny_io, 4096 },		/* mean bytes per call below */
	{ "odirect-einval", odirect_einval, 512 }, /* alignment if unknown */
	{ "block-misfit", block_misfit, 0.9 },	/* share of calls that size */
	{ "sync-heavy", sync_heavy, 50 },	/* % of syscall time */
	{ "user-copy", user_copy, 1000000 },	/* bytes copied, at least */
	{ "outside-syscalls", outside_syscalls, 80 }, /* % of wall */
	{ "tracing-dominates", tracing_dominates, 50 }, /* % added */
	{ "peer-waits", peer_waits, 10 },	/* % of syscall time */
	{ "after-blocking", after_blocking, 50 }, /* % on the device */
};

void findings_release(struct findings *fs)
{
	size_t i;

	for (i = 0; i < fs->n; i++) {
		free(fs->v[i].about);
		free(fs->v[i].text);
	}
	free(fs->v);
	fs->v = NULL;
	fs->n = 0;
}

int findings_collect(struct findings *out, const struct profile *p,
		     const struct report_opts *o, const char *id)
{
	struct emit e = { .out = out };
	bool found = false;
	size_t i;

	out->v = NULL;
	out->n = 0;
	for (i = 0; i < sizeof(rules) / sizeof(rules[0]) && !e.err; i++) {
		if (id && strcmp(id, rules[i].id))
			continue;
		found = true;
		e.rule = rules[i].id;
		rules[i].check(&e, p, o, rules[i].threshold);
	}
	if (e.err)
		findings_release(out);
	return e.err ? e.err : found ? 0 : -EINVAL;
}

int findings_run(FILE *f, const struct profile *p,
		 const struct report_opts *o, const char *id)
{
	struct findings fs;
	int err = findings_collect(&fs, p, o, id);
	size_t i;

	if (err < 0)
		return err;
	for (i = 0; i < fs.n; i++)
		fprintf(f, "- %s\n", fs.v[i].text);
	findings_release(&fs);
	return (int)i;
}

int findings_render(FILE *f, const struct profile *p,
		    const struct report_opts *o)
{
	struct findings fs;
	size_t i;

	if (!o || !o->findings)
		return 0;
	if (findings_collect(&fs, p, o, NULL) < 0)
		return -1;
	/* No heading when no rule has anything. */
	if (fs.n)
		fputs("\nFindings:\n", f);
	for (i = 0; i < fs.n; i++)
		fprintf(f, "- %s\n", fs.v[i].text);
	findings_release(&fs);
	return ferror(f) ? -1 : 0;
}
