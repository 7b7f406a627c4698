// SPDX-License-Identifier: MIT
/*
 * bufwrite: total bytes written as unit-byte application writes through a
 * user-space buffer of buf bytes, the way a buffered stream does it (the
 * Java seed: a million 1-byte writes, 1,000,000 write(2) calls down to
 * 16).  Writes smaller than the buffer are copied in and the buffer goes
 * out with one write(2) each time it is full, and once more at close, so
 * buf >= unit gives exactly ceil(total/buf) calls; a write as large as
 * the buffer (or buf=0) flushes what is pending and goes straight to
 * write(2).  flush=never forgets the final flush, the classic lost-tail
 * bug, and says how many bytes never reached the file.  Quiet otherwise,
 * so the table's write count is the workload's and nothing else.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "workloads/workload.h"

#define BW(field) offsetof(struct workload_args, u.bufwrite.field)
#define GIB (1ull << 30)

static const struct wl_word bw_flushes[] = {
	{ "close", BW_FLUSH_CLOSE }, { "never", BW_FLUSH_NEVER },
	{ NULL, 0 },
};

static const struct wl_word bw_fsyncs[] = {
	{ "none", BW_FSYNC_NONE }, { "end", BW_FSYNC_END },
	{ "every", BW_FSYNC_EVERY },
	{ NULL, 0 },
};

static const struct wl_key bw_keys[] = {
	{ "of", WK_PATH, BW(out), 0, NULL, "output file (default /dev/null)" },
	{ "total", WK_SIZE, BW(total), 0, NULL,
	  "bytes to write in all (default 1000000)" },
	{ "unit", WK_SIZE, BW(unit), GIB, NULL,
	  "bytes per application write (default 1)" },
	{ "buf", WK_SIZE0, BW(buf), GIB, NULL,
	  "user-space buffer bytes; 0: none (default 8192)" },
	{ "flush", WK_CHOICE, BW(flush), 0, bw_flushes,
	  "close: flush at close (default); never: lose the tail" },
	{ "fsync", WK_CHOICE, BW(fsync), 0, bw_fsyncs,
	  "none (default), end: once before close, every: after each write" },
	{ NULL, 0, 0, 0, NULL, NULL },
};

static int bw_parse(struct workload_args *a, int argc, char **argv)
{
	struct bufwrite_args *b = &a->u.bufwrite;
	int err;

	snprintf(b->out, sizeof(b->out), "/dev/null");
	b->total = 1000000;
	b->unit = 1;
	b->buf = 8192;
	err = wl_parse_keys(a, argc, argv);
	if (err < 0)
		return err;
	return wl_check_writable(a, "of", b->out);
}

/* The stream: a buffer, what is pending in it, what reached the file. */
struct stream {
	const struct workload_args *a;
	int fd;
	char *buf;
	size_t pending;
	uint64_t written;
	int err;		/* first errno; the stream is dead after it */
};

/* One write(2) of data, then fsync=every; false once the stream failed. */
static bool put(struct stream *s, const char *data, size_t len)
{
	const struct bufwrite_args *b = &s->a->u.bufwrite;

	s->written += wl_write_all(s->a->truth, s->fd, data, len, &s->err);
	if (!s->err && b->fsync == BW_FSYNC_EVERY &&
	    wl_fsync(s->a->truth, s->fd) < 0)
		s->err = errno;
	return !s->err;
}

static bool flush(struct stream *s)
{
	size_t n = s->pending;

	s->pending = 0;
	return !n || put(s, s->buf, n);
}

/* An application write of len bytes, as a buffered stream takes it. */
static bool app_write(struct stream *s, const char *data, size_t len)
{
	size_t cap = (size_t)s->a->u.bufwrite.buf, n;

	if (len >= cap)
		return flush(s) && put(s, data, len);
	while (len) {
		n = cap - s->pending < len ? cap - s->pending : len;
		memcpy(s->buf + s->pending, data, n);
		s->pending += n;
		data += n;
		len -= n;
		if (s->pending == cap && !flush(s))
			return false;
	}
	return true;
}

static void bw_loop(struct stream *s, const char *unit)
{
	const struct bufwrite_args *b = &s->a->u.bufwrite;
	uint64_t left = b->total;
	size_t len;

	while (left) {
		len = left < b->unit ? (size_t)left : (size_t)b->unit;
		if (!app_write(s, unit, len))
			return;
		left -= len;
	}
	if (b->flush == BW_FLUSH_CLOSE && !flush(s))
		return;
	if (b->fsync == BW_FSYNC_END && wl_fsync(s->a->truth, s->fd) < 0)
		s->err = errno;
}

static int bw_report(const struct stream *s)
{
	const struct bufwrite_args *b = &s->a->u.bufwrite;

	if (s->err) {
		wl_say(s->a->truth, "bufwrite: writing '%s' failed after %llu "
			"bytes reached it: %s\n", b->out,
			(unsigned long long)s->written, strerror(s->err));
		return -s->err;
	}
	if (s->pending)
		wl_say(s->a->truth, "bufwrite: flush=never: %zu bytes lost "
		       "(left in the buffer); '%s' has %llu of %llu bytes\n",
		       s->pending, b->out, (unsigned long long)s->written,
		       (unsigned long long)b->total);
	return 0;
}

static int bw_run(const struct workload_args *a)
{
	const struct bufwrite_args *b = &a->u.bufwrite;
	struct stream s = { .a = a };
	char *unit;
	int err = -ENOMEM;

	unit = malloc((size_t)b->unit);
	s.buf = malloc(b->buf ? (size_t)b->buf : 1);
	if (!unit || !s.buf) {
		wl_say(a->truth, "bufwrite: out of memory\n");
		goto out_free;
	}
	memset(unit, 'x', (size_t)b->unit);
	s.fd = open(b->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (s.fd < 0) {
		err = -errno;
		wl_say(a->truth, "bufwrite: cannot open '%s': %s\n", b->out,
			strerror(-err));
		goto out_free;
	}
	bw_loop(&s, unit);
	if (close(s.fd) < 0 && !s.err)
		s.err = errno;
	err = bw_report(&s);
out_free:
	free(s.buf);
	free(unit);
	return err;
}

const struct workload workload_bufwrite = {
	.name = "bufwrite",
	.summary = "unit-byte writes through a buf-byte user-space buffer",
	.usage = "iotrace run bufwrite total=1000000 unit=1 buf=8192 of=out",
	.keys = bw_keys,
	.parse = bw_parse,
	.run = bw_run,
};
