// SPDX-License-Identifier: MIT
/*
 * The I/O table, printed under the strace-compatible one: per (syscall,
 * file), how many calls, how many bytes moved, the average per call whose
 * return is known (all but those counted without an exit stop), how many
 * calls moved less than they asked for, and the throughput while inside
 * the call (bytes / time in the call; 1 MB = 10^6 bytes).  A two-fd call
 * (splice, sendfile, tee, copy_file_range) has one row per source ->
 * destination pair.  Rows are sorted by bytes, most first; only the
 * first IO_ROWS_SHOWN are printed, the rest summed up in one line.
 */
#include <stdlib.h>
#include <string.h>
#include "reports/render/render.h"

#define IO_ROWS_SHOWN 20

/* qsort has no context: rows sort by their own numbers only. */
static int cmp_io(const void *pa, const void *pb)
{
	const struct profile_io *a = *(const struct profile_io *const *)pa;
	const struct profile_io *b = *(const struct profile_io *const *)pb;

	if (a->bytes_done != b->bytes_done)
		return a->bytes_done < b->bytes_done ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	return a->file < b->file ? -1 : a->file > b->file;
}

static void file_label(char *buf, size_t size, const struct profile_file *f)
{
	char notes[128];

	profile_file_notes(f, notes, sizeof(notes));
	if (notes[0])
		snprintf(buf, size, "%s (%s)", f->path, notes);
	else
		snprintf(buf, size, "%s", f->path);
}

static void io_label(char *buf, size_t size, const struct profile *p,
		     const struct profile_io *io)
{
	char a[PROFILE_PATH_MAX + 160], b[PROFILE_PATH_MAX + 160];

	file_label(a, sizeof(a), &p->files[io->file]);
	if (io->file2 == PROFILE_FILE_NONE) {
		snprintf(buf, size, "%s", a);
		return;
	}
	file_label(b, sizeof(b), &p->files[io->file2]);
	snprintf(buf, size, "%s -> %s", a, b);
}

static void print_io(FILE *f, const struct profile *p,
		     const struct profile_io *io, int namew,
		     const struct report_opts *o)
{
	const struct profile_row *r = &p->rows[io->row];
	uint64_t ns = o && o->raw_time ? io->raw_time_ns : io->time_ns;
	char bytes[24], avg[24], shortc[24], rate[24], name[PROFILE_LABEL_MAX];
	char label[2 * PROFILE_PATH_MAX + 330];

	/* Calls counted without an exit stop have no return: no bytes. */
	if (!io->timed) {
		snprintf(bytes, sizeof(bytes), "-");
		snprintf(avg, sizeof(avg), "-");
	} else {
		snprintf(bytes, sizeof(bytes), "%llu",
			 (unsigned long long)io->bytes_done);
		snprintf(avg, sizeof(avg), "%llu",
			 (unsigned long long)(io->bytes_done / io->timed));
	}
	if (r->io_arg < 0 || r->io_arg >= 6 || io->timed < io->calls)
		snprintf(shortc, sizeof(shortc), "-");
	else
		snprintf(shortc, sizeof(shortc), "%llu",
			 (unsigned long long)io->short_calls);
	if (!ns || io->timed < io->calls)
		snprintf(rate, sizeof(rate), "-");
	else
		snprintf(rate, sizeof(rate), "%.1f",
			 (double)io->bytes_done * 1e3 / (double)ns);
	io_label(label, sizeof(label), p, io);
	fprintf(f, "%-*s %9llu %12s %9s %7s %14s  %s\n", namew,
		profile_row_label(r, name, sizeof(name)),
		(unsigned long long)io->calls, bytes, avg, shortc, rate, label);
}

static int name_width(const struct profile *p)
{
	char name[PROFILE_LABEL_MAX];
	size_t i, w = 6;

	for (i = 0; i < p->nios; i++)
		if (strlen(profile_row_label(&p->rows[p->ios[i].row], name,
					     sizeof(name))) > w)
			w = strlen(name);
	return (int)w;
}

static void print_rest(FILE *f, const struct profile_io **v, size_t from,
		       size_t n)
{
	uint64_t calls = 0, bytes = 0;
	size_t i;

	for (i = from; i < n; i++) {
		calls += v[i]->calls;
		bytes += v[i]->bytes_done;
	}
	fprintf(f, "(%zu more rows: %llu calls, %llu bytes)\n", n - from,
		(unsigned long long)calls, (unsigned long long)bytes);
}

int io_render(FILE *f, const struct profile *p, const struct report_opts *o)
{
	const struct profile_io **v;
	size_t i, n = p->nios;
	int namew = name_width(p);

	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -1;
	for (i = 0; i < n; i++)
		v[i] = &p->ios[i];
	qsort(v, n, sizeof(*v), cmp_io);
	fprintf(f, "\n%-*s %9s %12s %9s %7s %14s  %s\n", namew, "I/O", "calls",
		"bytes", "avg size", "short", "MB/s in call", "file");
	for (i = 0; i < n && i < IO_ROWS_SHOWN; i++)
		print_io(f, p, v[i], namew, o);
	if (n > IO_ROWS_SHOWN)
		print_rest(f, v, IO_ROWS_SHOWN, n);
	free(v);
	return ferror(f) ? -1 : 0;
}
