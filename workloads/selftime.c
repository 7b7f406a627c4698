// SPDX-License-Identifier: MIT
/*
 * The workloads' I/O syscalls, each optionally timed in-process: the
 * ground truth of --truth.  CLOCK_MONOTONIC is read through the vDSO
 * (no syscall, tens of ns) right around the call, and the sample goes
 * into a log-linear histogram in a shared mapping, so a median can be
 * read later without keeping a million samples.  A sample spans the
 * call and one clock read (the end of the first, the start of the
 * second): what two reads back to back span, measured once, is taken
 * off each.  With no recorder (the traced run) no clock is read, so
 * tracing sees exactly the workload.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <time.h>
#include <unistd.h>
#include "workloads/workload.h"

const char *const st_call_names[ST_NCALLS] = {
	[ST_READ] = "read",
	[ST_WRITE] = "write",
	[ST_FSYNC] = "fsync",
	[ST_FDATASYNC] = "fdatasync",
	[ST_SPLICE] = "splice",
	[ST_SENDFILE] = "sendfile",
	[ST_COPY_FILE_RANGE] = "copy_file_range",
};

static uint64_t now_ns(void);

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median span of two clock reads back to back. */
#define CLOCK_PAIRS 101
static uint64_t clock_cost(void)
{
	uint64_t d[CLOCK_PAIRS], t0;
	int i;

	for (i = 0; i < CLOCK_PAIRS; i++) {
		t0 = now_ns();
		d[i] = now_ns() - t0;
	}
	qsort(d, CLOCK_PAIRS, sizeof(*d), cmp_u64);
	return d[CLOCK_PAIRS / 2];
}

struct selftime *selftime_map(void)
{
	struct selftime *m = mmap(NULL, sizeof(struct selftime),
				  PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	m->clock_ns = clock_cost();
	return m;
}

void selftime_unmap(struct selftime *st)
{
	if (st)
		munmap(st, sizeof(*st));
}

/* Bucket of a sample: ns itself below ST_SUBS, then log-linear. */
static unsigned bucket_of(uint64_t ns)
{
	unsigned e;

	if (ns < ST_SUBS)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns);
	if (e >= ST_SUB_BITS + ST_OCTAVES)
		return ST_BUCKETS - 1;
	return ST_SUBS * (e - ST_SUB_BITS + 1) +
	       (unsigned)((ns >> (e - ST_SUB_BITS)) & (ST_SUBS - 1));
}

/* The midpoint of a bucket: the inverse of bucket_of(). */
static uint64_t bucket_mid(unsigned b)
{
	unsigned octave, sub;
	uint64_t width;

	if (b < ST_SUBS)
		return b;
	octave = b / ST_SUBS - 1;
	sub = b % ST_SUBS;
	width = 1ull << octave;
	return ((uint64_t)(ST_SUBS + sub) << octave) + width / 2;
}

void selftime_add(struct selftime *st, enum st_call c, uint64_t ns)
{
	struct selftime_row *r = &st->rows[c];

	r->calls++;
	r->total_ns += ns;
	r->hist[bucket_of(ns)]++;
}

uint64_t selftime_median(const struct selftime_row *r)
{
	uint64_t want = (r->calls + 1) / 2, seen = 0;
	unsigned b;

	for (b = 0; b < ST_BUCKETS; b++) {
		seen += r->hist[b];
		if (seen >= want && want)
			return bucket_mid(b);
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t st_begin(const struct selftime *st)
{
	return st ? now_ns() : 0;
}

static void st_end(struct selftime *st, enum st_call c, uint64_t t0)
{
	int saved = errno;

	uint64_t ns;

	if (st) {
		ns = now_ns() - t0;
		selftime_add(st, c, ns > st->clock_ns ? ns - st->clock_ns : 0);
	}
	errno = saved;
}

/* One timed call: t0, the call, the sample; errno survives. */
#define TIMED(st, c, call)                           \
	({                                           \
		uint64_t t0_ = st_begin(st);         \
		__typeof__(call) r_ = (call);        \
		st_end(st, c, t0_);                  \
		r_;                                  \
	})

ssize_t wl_read(struct selftime *st, int fd, void *buf, size_t len)
{
	return TIMED(st, ST_READ, read(fd, buf, len));
}

ssize_t wl_write(struct selftime *st, int fd, const void *buf, size_t len)
{
	return TIMED(st, ST_WRITE, write(fd, buf, len));
}

int wl_fsync(struct selftime *st, int fd)
{
	return TIMED(st, ST_FSYNC, fsync(fd));
}

int wl_fdatasync(struct selftime *st, int fd)
{
	return TIMED(st, ST_FDATASYNC, fdatasync(fd));
}

ssize_t wl_splice(struct selftime *st, int in, int out, size_t len)
{
	return TIMED(st, ST_SPLICE,
		     splice(in, NULL, out, NULL, len, SPLICE_F_MOVE));
}

ssize_t wl_sendfile(struct selftime *st, int out, int in, size_t len)
{
	return TIMED(st, ST_SENDFILE, sendfile(out, in, NULL, len));
}

ssize_t wl_copy_file_range(struct selftime *st, int in, int out, size_t len)
{
	return TIMED(st, ST_COPY_FILE_RANGE,
		     copy_file_range(in, NULL, out, NULL, len, 0));
}

size_t wl_write_all(struct selftime *st, int fd, const void *buf, size_t len,
		    int *err)
{
	size_t done = 0;
	ssize_t n;

	*err = 0;
	while (done < len) {
		n = wl_write(st, fd, (const char *)buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			*err = n < 0 ? errno : EIO;
			break;
		}
		done += (size_t)n;
	}
	return done;
}

void wl_say(struct selftime *st, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int n, err;

	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(msg))
		n = sizeof(msg) - 1;
	wl_write_all(st, STDERR_FILENO, msg, (size_t)n, &err);
}
