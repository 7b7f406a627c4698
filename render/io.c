// SPDX-License-Identifier: MIT
/*
 * The I/O table, printed under the strace-compatible one: the file
 * dimension's own section (breakdown.c prints the other dimensions).
 * Per (syscall, file), how many calls, how many bytes moved, the
 * average per call whose return is known (all but those counted without
 * an exit stop), how many calls moved less than they asked for, and the
 * throughput while inside the call (bytes / time in the call; 1 MB =
 * 10^6 bytes).  A two-fd call (splice, sendfile, tee, copy_file_range)
 * has one row per source -> destination pair.  Rows are sorted by
 * bytes, most first; only the first IO_ROWS_SHOWN are printed, the rest
 * summed up in one line.
 */
#include <stdlib.h>
#include <string.h>
#include "render/render.h"

#define IO_ROWS_SHOWN 20

/* qsort has no context: rows sort by their own numbers only. */
static int cmp_io(const void *pa, const void *pb)
{
	const struct profile_sub *a = *(const struct profile_sub *const *)pa;
	const struct profile_sub *b = *(const struct profile_sub *const *)pb;

	if (a->bytes_done != b->bytes_done)
		return a->bytes_done < b->bytes_done ? 1 : -1;
	if (a->calls != b->calls)
		return a->calls < b->calls ? 1 : -1;
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	return a->key < b->key ? -1 : a->key > b->key;
}

static void print_io(FILE *f, const struct profile *p,
		     const struct profile_sub *io, int namew,
		     const struct report_opts *o)
{
	const struct profile_row *r = &p->rows[io->row];
	uint64_t ns = o && o->raw_time ? io->raw_time_ns : io->time_ns;
	char bytes[24], avg[24], shortc[24], rate[24];
	char name[PROFILE_ROW_LABEL_MAX], label[2 * PROFILE_LABEL_MAX + 8];

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
	profile_sub_label(profile_files(p), io, label, sizeof(label));
	fprintf(f, "%-*s %9llu %12s %9s %7s %14s  %s\n", namew,
		profile_row_label(r, name, sizeof(name)),
		(unsigned long long)io->calls, bytes, avg, shortc, rate, label);
}

static void print_rest(FILE *f, const struct profile_sub **v, size_t from,
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
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_sub **v;
	size_t i, n = b->nsubs;
	int namew = breakdown_name_width(p, b, 6);

	if (!n)
		return 0;
	v = breakdown_subs(b);
	if (!v)
		return -1;
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
