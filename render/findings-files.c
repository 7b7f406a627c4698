// SPDX-License-Identifier: MIT
/*
 * The findings rules on files, from the file breakdown: O_DIRECT sizes
 * the device refused, sizes that straddle the block size, read+write
 * pairs copying through user space, calls on pipes and sockets, calls
 * waiting for a device (only where a block device is behind the file)
 * and, as --truth measured them, the calls between.  Their rows are in
 * findings.c's rules[].
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render/findings-int.h"

#define BLOCK_MIN_CALLS 16	/* block-size rule: enough calls to matter */
#define COPY_TOLERANCE 100	/* copy rule: bytes equal within 1/100 */
#define COLD_RATIO 2.0		/* traced this many times untraced: cold */

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

void findings_odirect_einval(struct emit *e, const struct profile *p,
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

void findings_block_misfit(struct emit *e, const struct profile *p,
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

void findings_user_copy(struct emit *e, const struct profile *p,
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
void findings_peer_waits(struct emit *e, const struct profile *p,
			 const struct report_opts *o, double threshold)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_sub *io;
	uint64_t busy = findings_busy_time(p, o), peer = 0, calls = 0;
	char n[32];
	size_t i;
	FILE *f;

	for (i = 0; i < b->nsubs; i++) {
		io = &b->subs[i];
		/* A call that waits is no work, wherever it waits. */
		if (profile_row_waits(&p->rows[io->row]))
			continue;
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
	findings_print_share(f, p, o, peer);
	fputs(": they wait for the other end, so their "
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
 * "; between them, read took T us a call traced, Rx its U us untraced
 * (--truth): ..." for each syscall none of whose calls went to the
 * device that the workload's own untraced timing (--truth) measured that
 * much faster; nothing where it did not, or without one.
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
 * the device's wait), and tracing adds its stops right there, but not in
 * every run: --truth has had them faster traced too.  So it is said only
 * as this run's --truth measured it.
 */
void findings_after_blocking(struct emit *e, const struct profile *p,
			     const struct report_opts *o, double threshold)
{
	uint64_t calls, dev, busy = findings_busy_time(p, o);
	struct profile_totals t;
	char n[32];
	FILE *f;

	profile_totals_where(p, &t, profile_row_works);
	dev = device_time(p, o, &calls);
	if (!busy || calls < BLOCK_MIN_CALLS || t.timed < 2 * calls ||
	    pct(dev, busy) < threshold || !(f = finding_begin(e, "%s", "")))
		return;
	fprintf(f, "%s calls waited for the device (O_DIRECT or O_SYNC "
		"I/O) and took ", fmt_thousands(n, sizeof(n), calls));
	findings_print_share(f, p, o, dev);
	print_cold(f, p, o);
	fputc('.', f);
	finding_end(e);
}
