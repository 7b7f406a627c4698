// SPDX-License-Identifier: MIT
/*
 * dd: GNU dd's copy loop for the keys the seeds used (if, of, bs, count,
 * skip, seek, iflag, oflag, conv, status) plus size=, which sets count to
 * ceil(size/bs) so a sweep over block sizes moves the same bytes.
 * Without if=, count= or size=, it copies 1 MiB: the default input,
 * /dev/zero, has no end, and `iotrace run dd` must finish.  Each
 * read of bs bytes is followed by one write of what was read, as dd does
 * with bs=.  The buffer is aligned for O_DIRECT; when the kernel still
 * refuses a size with EINVAL, dd stops and says which size, which
 * alignment and which file, without retrying.  The closing lines (records
 * in/out, bytes, seconds, rate) go to stderr in one write(2).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "workloads/workload.h"

#define DD(field) offsetof(struct workload_args, u.dd.field)
#define GIB (1ull << 30)
/* What `run dd` copies from its default input, which never ends. */
#define DEFAULT_SIZE (1ull << 20)

static const struct wl_word dd_flags[] = {
	{ "direct", DDF_DIRECT }, { "sync", DDF_SYNC },
	{ "dsync", DDF_DSYNC },	  { "nonblock", DDF_NONBLOCK },
	{ NULL, 0 },
};

static const struct wl_word dd_convs[] = {
	{ "fsync", DDC_FSYNC },	{ "fdatasync", DDC_FDATASYNC },
	{ "notrunc", DDC_NOTRUNC },
	{ NULL, 0 },
};

static const struct wl_word dd_statuses[] = {
	{ "default", DDS_DEFAULT }, { "noxfer", DDS_NOXFER },
	{ "none", DDS_NONE },
	{ NULL, 0 },
};

static const struct wl_key dd_keys[] = {
	{ "if", WK_PATH, DD(in), 0, NULL, "input file (default /dev/zero)" },
	{ "of", WK_PATH, DD(out), 0, NULL, "output file (default /dev/null)" },
	{ "bs", WK_SIZE, DD(bs), GIB, NULL,
	  "bytes per read and per write (default 512, at most 1G)" },
	{ "count", WK_SIZE0, DD(count), 0, NULL,
	  "copy this many blocks (default: until end of input;\n"
	  "             without if=, 1M worth: /dev/zero has no end)" },
	{ "size", WK_SIZE, DD(size), 0, NULL,
	  "copy this many bytes: count=ceil(size/bs)" },
	{ "skip", WK_SIZE0, DD(skip), 0, NULL, "skip blocks of input first" },
	{ "seek", WK_SIZE0, DD(seek), 0, NULL, "skip blocks of output first" },
	{ "iflag", WK_FLAGS, DD(iflag), 0, dd_flags,
	  "input flags: direct,sync,dsync,nonblock" },
	{ "oflag", WK_FLAGS, DD(oflag), 0, dd_flags,
	  "output flags: direct,sync,dsync,nonblock" },
	{ "conv", WK_FLAGS, DD(conv), 0, dd_convs,
	  "fsync,fdatasync (before close), notrunc" },
	{ "status", WK_CHOICE, DD(status), 0, dd_statuses,
	  "none: no closing lines; noxfer: no rate line" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static const struct {
	int flag, oflag;
} open_flags[] = {
	{ DDF_DIRECT, O_DIRECT }, { DDF_SYNC, O_SYNC },
	{ DDF_DSYNC, O_DSYNC },	  { DDF_NONBLOCK, O_NONBLOCK },
};

static int to_open_flags(int flags)
{
	int o = 0;
	size_t i;

	for (i = 0; i < sizeof(open_flags) / sizeof(open_flags[0]); i++)
		if (flags & open_flags[i].flag)
			o |= open_flags[i].oflag;
	return o;
}

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

/*
 * blocks * bs must be a file offset: refused as GNU dd does, instead of
 * wrapping round to a small offset (copying from 0, truncating the
 * output there).
 */
static int check_offset(struct workload_args *a, const char *key,
			uint64_t blocks, uint64_t bs)
{
	if (blocks <= (uint64_t)INT64_MAX / bs)
		return 0;
	return wl_bad(a, key, "%llu blocks of %llu bytes is past the largest "
		      "file offset", (unsigned long long)blocks,
		      (unsigned long long)bs);
}

static int dd_parse(struct workload_args *a, int argc, char **argv)
{
	struct dd_args *d = &a->u.dd;
	long page = sysconf(_SC_PAGESIZE);
	int err;

	snprintf(d->in, sizeof(d->in), "/dev/zero");
	snprintf(d->out, sizeof(d->out), "/dev/null");
	d->bs = 512;
	d->count = UINT64_MAX;
	err = wl_parse_keys(a, argc, argv);
	if (err < 0)
		return err;
	if (wl_given(a, "size") && wl_given(a, "count"))
		return wl_bad(a, "size", "give count= or size=, not both");
	if (!wl_given(a, "size") && !wl_given(a, "count") &&
	    !wl_given(a, "if"))
		d->size = DEFAULT_SIZE;
	if (d->size)
		d->count = d->size / d->bs + (d->size % d->bs != 0);
	err = check_offset(a, "skip", d->skip, d->bs);
	if (err < 0)
		return err;
	err = check_offset(a, "seek", d->seek, d->bs);
	if (err < 0)
		return err;
	err = wl_check_readable(a, "if", d->in, to_open_flags(d->iflag));
	if (err < 0)
		return err;
	err = wl_check_writable(a, "of", d->out);
	if (err < 0)
		return err;
	d->in_align = (d->iflag & DDF_DIRECT) ? wl_direct_align(d->in) : 1;
	d->out_align = (d->oflag & DDF_DIRECT) ? wl_direct_align(d->out) : 1;
	d->buf_align = max_size(max_size(d->in_align, d->out_align),
				page > 0 ? (size_t)page : 4096);
	return 0;
}

/* Counters for the closing lines. */
struct dd_stats {
	uint64_t full_in, part_in, full_out, part_out, bytes;
	uint64_t start_ns;
};

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* "3.1 kB", "3.0 KiB": GNU dd's short forms, one decimal below 10. */
static void human(char *buf, size_t size, double v, bool iec,
		  const char *unit)
{
	static const char *const prefixes[] = { "", "k", "M", "G", "T", "P" };
	double base = iec ? 1024 : 1000;
	size_t i = 0;

	while (v >= base && i + 1 < sizeof(prefixes) / sizeof(prefixes[0])) {
		v /= base;
		i++;
	}
	snprintf(buf, size, v < 10 && i ? "%.1f %s%s%s" : "%.0f %s%s%s", v,
		 iec && i == 1 ? "K" : prefixes[i], iec && i ? "i" : "", unit);
}

/* "(41 kB, 40 KiB) ": both forms, as GNU dd prints them. */
static void human_bytes(char *buf, size_t size, uint64_t bytes)
{
	char si[32], iec[32];

	human(si, sizeof(si), (double)bytes, false, "B");
	human(iec, sizeof(iec), (double)bytes, true, "B");
	if (bytes < 1000)
		buf[0] = '\0';
	else if (bytes < 1024)
		snprintf(buf, size, "(%s) ", si);
	else
		snprintf(buf, size, "(%s, %s) ", si, iec);
}

/* Like GNU dd: records, bytes, seconds, rate; all in one write(2). */
static void dd_report(const struct workload_args *a, const struct dd_stats *s)
{
	const struct dd_args *d = &a->u.dd;
	double secs = (double)(mono_now() - s->start_ns) / 1e9;
	char msg[512], sizes[80], rate[32];
	int n;

	if (d->status == DDS_NONE)
		return;
	n = snprintf(msg, sizeof(msg), "%llu+%llu records in\n%llu+%llu "
		     "records out\n", (unsigned long long)s->full_in,
		     (unsigned long long)s->part_in,
		     (unsigned long long)s->full_out,
		     (unsigned long long)s->part_out);
	if (d->status != DDS_NOXFER && n > 0 && (size_t)n < sizeof(msg)) {
		human_bytes(sizes, sizeof(sizes), s->bytes);
		human(rate, sizeof(rate), secs > 0 ? (double)s->bytes / secs
			: 0, false, "B/s");
		snprintf(msg + n, sizeof(msg) - (size_t)n, "%llu byte%s %s"
			 "copied, %.6g s, %s\n", (unsigned long long)s->bytes,
			 s->bytes == 1 ? "" : "s", sizes, secs, rate);
	}
	wl_say(a->truth, "%s", msg);
}

static int open_output(const struct dd_args *d)
{
	int flags = O_WRONLY | O_CREAT | O_CLOEXEC | to_open_flags(d->oflag);

	/* GNU dd: truncate at the seek point, not to zero, unless notrunc. */
	if (!d->seek && !(d->conv & DDC_NOTRUNC))
		flags |= O_TRUNC;
	return open(d->out, flags, 0666);
}

/* lseek by blocks; where the fd cannot seek, read and drop them. */
static int skip_input(const struct dd_args *d, int fd, char *buf,
		      struct selftime *st)
{
	uint64_t i;

	if (!d->skip || lseek(fd, (off_t)(d->skip * d->bs), SEEK_CUR) >= 0)
		return 0;
	if (errno != ESPIPE)
		return -errno;
	for (i = 0; i < d->skip; i++)
		if (wl_read(st, fd, buf, d->bs) <= 0)
			break;
	return 0;
}

static int seek_output(const struct dd_args *d, int fd)
{
	struct stat sb;
	off_t at = (off_t)(d->seek * d->bs);

	if (!d->seek)
		return 0;
	if (lseek(fd, at, SEEK_CUR) < 0)
		return -errno;
	if (!(d->conv & DDC_NOTRUNC) && fstat(fd, &sb) == 0 &&
	    S_ISREG(sb.st_mode) && ftruncate(fd, at) < 0)
		return -errno;
	return 0;
}

static void say_error(struct selftime *st, const char *what,
		      const char *path, int err)
{
	wl_say(st, "dd: %s '%s': %s\n", what, path, strerror(err));
}

/* EINVAL from an O_DIRECT write or read: say what alignment was needed. */
static void say_direct(const struct workload_args *a, const char *op,
		       const char *path, size_t len, size_t align)
{
	wl_say(a->truth, "dd: O_DIRECT %s of %zu bytes %s '%s' refused "
	       "(EINVAL): sizes and offsets must be multiples of %zu bytes "
	       "(buffer aligned to %zu); use a bs that is a multiple of %zu\n",
	       op, len, *op == 'w' ? "to" : "from", path, align,
	       a->u.dd.buf_align, align);
}

/* Writes one block; false when the loop must stop (error reported). */
static bool put_block(const struct workload_args *a, int fd, const char *buf,
		      size_t len, struct dd_stats *s)
{
	const struct dd_args *d = &a->u.dd;
	size_t done;
	int err;

	done = wl_write_all(a->truth, fd, buf, len, &err);
	s->bytes += done;
	if (done == d->bs)
		s->full_out++;
	else if (done)
		s->part_out++;
	if (!err)
		return true;
	if (err == EINVAL && (d->oflag & DDF_DIRECT))
		say_direct(a, "write", d->out, len, d->out_align);
	wl_say(a->truth, "dd: error writing '%s' after %llu bytes: %s\n",
		d->out, (unsigned long long)s->bytes, strerror(err));
	return false;
}

/* Reads one block: bytes read, 0 at end, -1 on an error (reported). */
static ssize_t get_block(const struct workload_args *a, int fd, char *buf,
			 struct dd_stats *s)
{
	const struct dd_args *d = &a->u.dd;
	ssize_t n;

	do
		n = wl_read(a->truth, fd, buf, d->bs);
	while (n < 0 && errno == EINTR);
	if (n > 0 && (uint64_t)n == d->bs)
		s->full_in++;
	else if (n > 0)
		s->part_in++;
	if (n >= 0)
		return n;
	if (errno == EINVAL && (d->iflag & DDF_DIRECT))
		say_direct(a, "read", d->in, d->bs, d->in_align);
	say_error(a->truth, "error reading", d->in, errno);
	return -1;
}

static int copy_loop(const struct workload_args *a, int in, int out,
		     char *buf, struct dd_stats *s)
{
	uint64_t i;
	ssize_t n;

	for (i = 0; i < a->u.dd.count; i++) {
		n = get_block(a, in, buf, s);
		if (n < 0)
			return -EIO;
		if (!n)
			break;
		if (!put_block(a, out, buf, (size_t)n, s))
			return -EIO;
	}
	return 0;
}

static int sync_output(const struct workload_args *a, int out)
{
	const struct dd_args *d = &a->u.dd;

	int err = 0;

	if ((d->conv & DDC_FSYNC) && wl_fsync(a->truth, out) < 0)
		err = errno;
	else if ((d->conv & DDC_FDATASYNC) && wl_fdatasync(a->truth, out) < 0)
		err = errno;
	if (err)
		say_error(a->truth, "cannot sync", d->out, err);
	return -err;
}

static int dd_copy(const struct workload_args *a, char *buf,
		   struct dd_stats *s)
{
	const struct dd_args *d = &a->u.dd;
	int in, out, err;

	in = open(d->in, O_RDONLY | O_CLOEXEC | to_open_flags(d->iflag));
	if (in < 0) {
		err = -errno;
		say_error(a->truth, "failed to open", d->in, -err);
		return err;
	}
	out = open_output(d);
	if (out < 0) {
		err = -errno;
		say_error(a->truth, "failed to open", d->out, -err);
		if (err == -EINVAL && (d->oflag & DDF_DIRECT))
			wl_say(a->truth, "dd: the filesystem of '%s' has no "
				"O_DIRECT\n", d->out);
		goto out_close_in;
	}
	err = skip_input(d, in, buf, a->truth);
	if (err < 0) {
		say_error(a->truth, "cannot skip to the offset in", d->in,
			  -err);
		goto out_close_out;
	}
	err = seek_output(d, out);
	if (err < 0) {
		say_error(a->truth, "cannot seek in", d->out, -err);
		goto out_close_out;
	}
	err = copy_loop(a, in, out, buf, s);
	if (!err)
		err = sync_output(a, out);
out_close_out:
	if (close(out) < 0 && !err) {
		err = -errno;
		say_error(a->truth, "error closing", d->out, -err);
	}
out_close_in:
	close(in);
	return err;
}

static int dd_run(const struct workload_args *a)
{
	const struct dd_args *d = &a->u.dd;
	struct dd_stats s;
	void *buf;
	int err;

	memset(&s, 0, sizeof(s));
	s.start_ns = mono_now();
	err = posix_memalign(&buf, d->buf_align, d->bs);
	if (err) {
		wl_say(a->truth, "dd: cannot allocate %llu bytes: %s\n",
			(unsigned long long)d->bs, strerror(err));
		return -err;
	}
	err = dd_copy(a, buf, &s);
	dd_report(a, &s);
	free(buf);
	return err;
}

const struct workload workload_dd = {
	.name = "dd",
	.summary = "GNU dd's read/write loop, plus size= and O_DIRECT done "
		   "right",
	.usage = "iotrace run dd if=/dev/zero of=out bs=4K count=256 "
		 "oflag=direct",
	.keys = dd_keys,
	.parse = dd_parse,
	.run = dd_run,
};
