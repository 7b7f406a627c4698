// SPDX-License-Identifier: MIT
/*
 * The findings rules on hand-built profiles: each rule speaks when its
 * numbers say so, with the exact sentence, and stays silent just past
 * its threshold and where it would be guessing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"
#include "tap.h"
#include "profile-fixtures.h"

static const struct report_opts opts = { .findings = true };

/* A syscall row, every call timed. */
static struct profile_row *row(struct profile *p, const char *name,
			       uint64_t calls, uint64_t bytes, uint64_t ns)
{
	struct profile_row *r = profile_row_get(p, name);

	r->calls = r->timed = calls;
	r->bytes_done = bytes;
	r->time_ns = r->raw_time_ns = ns;
	return r;
}

/* An io row of every call asking `size` bytes, all moved. */
static struct profile_sub *io(struct profile *p, const char *name,
			      uint32_t f, uint64_t calls, uint64_t size)
{
	struct profile_row *r = profile_row_get(p, name);
	struct profile_sub *v = profile_io_get(p, f, PROFILE_FILE_NONE,
					       (uint32_t)(r - p->rows));

	v->calls = v->timed = calls;
	v->size_max = size;
	v->size_max_calls = calls;
	v->bytes_req = v->bytes_done = calls * size;
	return v;
}

static void fresh(struct profile *p)
{
	profile_init(p);
	p->exit.known = true;
}

/* The text rule id prints for p; caller frees. */
static char *run(const struct profile *p, const char *id)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (findings_run(m, p, &opts, id) < 0)
		fputs("(error)", m);
	fclose(m);
	return text;
}

static void expect(const struct profile *p, const char *id, const char *want,
		   const char *what)
{
	char *got = run(p, id);

	is_str(got, want, "%s: %s", id, what);
	free(got);
}

static void test_tiny_io(void)
{
	struct profile p;

	fresh(&p);
	p.wall_ns = 4000000000ull;
	row(&p, "write", 1000000, 1000000, 3720000000ull);
	expect(&p, "tiny-io", "- write: 1,000,000 calls averaging 1 byte "
	       "took 93% of wall time. A 64 KiB buffer would make ~16 "
	       "calls.\n", "one million 1-byte writes");
	profile_release(&p);

	/* The same writes in a 4 s run they took 1% of: a buffer would
	   change nothing the user waits for. */
	fresh(&p);
	p.wall_ns = 4000000000ull;
	row(&p, "write", 1000000, 1000000, 40000000ull);
	expect(&p, "tiny-io", "", "silent at 1% of the run");
	profile_release(&p);

	fresh(&p);
	row(&p, "write", 999, 999, 1000);
	expect(&p, "tiny-io", "", "silent under 1000 calls");
	row(&p, "read", 1000000, 1000000, 1000);
	expect(&p, "tiny-io", "", "silent on reads");
	profile_release(&p);

	fresh(&p);
	row(&p, "write", 20480, 20480 * 4096ull, 1000);
	expect(&p, "tiny-io", "", "silent at 4096 bytes a call");
	profile_release(&p);

	/* 1954 writes of ~512: 64 KiB would be 8 calls, 244x fewer. */
	fresh(&p);
	row(&p, "write", 1954, 1000000, 1000);
	expect(&p, "tiny-io", "- write: 1,954 calls averaging 511 bytes. A 64 "
	       "KiB buffer would make ~16 calls.\n",
	       "no wall time: no share claimed");
	profile_release(&p);
}

static void test_odirect_einval(void)
{
	struct profile_sub *v;
	struct profile p;
	uint32_t f;

	fresh(&p);
	f = file(&p, "/x/test1", FD_REG, PF_DIRECT, 4096, 512);
	v = io(&p, "write", f, 1, 1130);
	v->errors = v->einval = 1;
	v->bytes_done = v->bytes_req = 0;
	expect(&p, "odirect-einval", "- write to /x/test1 failed 1 time with "
	       "EINVAL: O_DIRECT needs sizes that are multiples of 512 (each "
	       "call asked 1,130 bytes).\n", "dd bs=1130 oflag=direct");
	v->size_max = 4096;
	expect(&p, "odirect-einval", "", "silent when the size is aligned");
	v->size_max = 1130;
	v->size_max_calls = 0;
	expect(&p, "odirect-einval", "", "silent when sizes varied");
	profile_release(&p);

	fresh(&p);
	f = file(&p, "/x/test1", FD_REG, 0, 4096, 512);
	v = io(&p, "write", f, 1, 1130);
	v->errors = v->einval = 1;
	expect(&p, "odirect-einval", "", "silent without O_DIRECT");
	profile_release(&p);

	fresh(&p);
	f = file_backed(&p, "/dev/shm/x", FD_REG, PF_DIRECT, 4096, 0,
			FD_BACKING_NONE);
	v = io(&p, "write", f, 3, 100);
	v->errors = v->einval = 3;
	expect(&p, "odirect-einval", "", "silent with no device behind the "
	       "file: no device's block size refused it");
	profile_release(&p);

	fresh(&p);
	f = file(&p, "/t/x", FD_REG, PF_DIRECT, 4096, 0);
	v = io(&p, "write", f, 3, 100);
	v->errors = v->einval = 3;
	expect(&p, "odirect-einval", "- write to /t/x failed 3 times with "
	       "EINVAL: O_DIRECT needs sizes that are multiples of the "
	       "device's logical block size (512 or more) (each call asked "
	       "100 bytes).\n", "no block size known: says so");
	profile_release(&p);
}

static void test_block_misfit(void)
{
	struct profile_sub *v;
	struct profile p;
	uint32_t f;

	fresh(&p);
	f = file(&p, "/x/test1", FD_REG, 0, 4096, 512);
	io(&p, "write", f, 18560, 1130);
	expect(&p, "block-misfit", "- write to /x/test1: 18,560 of 18,560 "
	       "calls asked 1,130 bytes, which neither fills nor divides its "
	       "block size 4096: through the page cache this costs little, "
	       "the kernel merges partial blocks; it matters with O_DIRECT or "
	       "O_SYNC.\n", "bs=1130 buffered: a neutral fact");
	profile_release(&p);

	fresh(&p);
	f = file(&p, "/x/test1", FD_REG, PF_SYNC, 4096, 512);
	io(&p, "write", f, 18560, 1130);
	expect(&p, "block-misfit", "- write to /x/test1: 18,560 of "
	       "18,560 calls asked 1,130 bytes, which neither fills nor "
	       "divides its block size 4096: with O_DIRECT or O_SYNC each "
	       "call makes the device handle partial blocks.\n",
	       "bs=1130 O_SYNC: a cost");
	profile_release(&p);

	/* dd of=/dev/shm/x oflag=direct: tmpfs takes any size, in memory. */
	fresh(&p);
	f = file_backed(&p, "/dev/shm/x", FD_REG, PF_DIRECT, 4096, 0,
			FD_BACKING_NONE);
	io(&p, "write", f, 18560, 1130);
	expect(&p, "block-misfit", "- write to /dev/shm/x: 18,560 of 18,560 "
	       "calls asked 1,130 bytes, which neither fills nor divides its "
	       "block size 4096: no block device is behind this file, so no "
	       "device handles partial blocks.\n",
	       "O_DIRECT on tmpfs: no device said to do anything");
	profile_release(&p);

	fresh(&p);
	f = file_backed(&p, "/o/x", FD_REG, PF_SYNC, 4096, 0,
			FD_BACKING_UNKNOWN);
	io(&p, "write", f, 18560, 1130);
	expect(&p, "block-misfit", "- write to /o/x: 18,560 of 18,560 calls "
	       "asked 1,130 bytes, which neither fills nor divides its block "
	       "size 4096: whether a block device is behind this file is not "
	       "known; with O_DIRECT or O_SYNC each call would make one "
	       "handle partial blocks.\n",
	       "O_SYNC where no device is known: said as a condition");
	profile_release(&p);

	fresh(&p);
	f = file(&p, "/x/test1", FD_REG, 0, 4096, 512);
	io(&p, "write", f, 20480, 1024);
	io(&p, "read", f, 100, 8192);
	expect(&p, "block-misfit", "", "silent for 1024 and 8192");
	profile_release(&p);

	fresh(&p);
	f = file(&p, "pipe:[1]", FD_PIPE, 0, 4096, 0);
	io(&p, "write", f, 18560, 1130);
	expect(&p, "block-misfit", "", "silent on pipes");
	profile_release(&p);

	fresh(&p);
	f = file(&p, "/x/test1", FD_REG, 0, 4096, 512);
	v = io(&p, "write", f, 100, 1130);
	v->size_max_calls = 89;
	expect(&p, "block-misfit", "", "silent when under 90% were that size");
	v->size_max_calls = 90;
	expect(&p, "block-misfit", "- write to /x/test1: 90 of 100 calls "
	       "asked 1,130 bytes, which neither fills nor divides its block "
	       "size 4096: through the page cache this costs little, the "
	       "kernel merges partial blocks; it matters with O_DIRECT or "
	       "O_SYNC.\n", "speaks at 90%");
	v->calls = 15;
	v->size_max_calls = 15;
	expect(&p, "block-misfit", "", "silent under 16 calls");
	profile_release(&p);
}

static void test_sync_heavy(void)
{
	struct profile p;

	fresh(&p);
	row(&p, "fdatasync", 12, 0, 810000);
	row(&p, "write", 100, 1000, 190000);
	expect(&p, "sync-heavy", "- fdatasync: 12 calls took 81.00% of syscall "
	       "time, 4.3x the 0.190 ms of the 100 writes it flushed: the "
	       "page cache absorbed them, the cost moved to the flush.\n",
	       "fdatasync dominates");
	profile_release(&p);

	/* sh -c 'dd ...; sync': the parent's wait4 spans dd's whole run. */
	fresh(&p);
	row(&p, "wait4", 2, 0, 2000000);
	row(&p, "sync", 1, 0, 300000);
	row(&p, "write", 300, 300 << 16, 200000);
	row(&p, "openat", 10, 0, 500000);
	expect(&p, "sync-heavy", "- sync: 1 call took 10.00% of syscall time "
	       "(30% of the work, waits apart), 1.5x the 0.200 ms of the 300 "
	       "writes it flushed: the page cache absorbed them, the cost "
	       "moved to the flush.\n",
	       "a flush dearer than its writes speaks, with the table's "
	       "share (the wait4 in it), then the work's (waits left out)");
	profile_release(&p);

	fresh(&p);
	row(&p, "fsync", 1, 0, 490);
	row(&p, "write", 100, 1000, 510);
	expect(&p, "sync-heavy", "", "silent under half");
	profile_release(&p);

	fresh(&p);
	row(&p, "fsync", 2, 0, 0)->timed = 0;
	expect(&p, "sync-heavy", "", "silent without times");
	profile_release(&p);
}

/* A run's storage: W bytes written, U of them still dirty at exit. */
static void storage(struct profile *p, uint64_t written, uint64_t dirty)
{
	struct profile_storage *s = &p->storage;

	s->tasks = s->tasks_io = 2;
	s->write_bytes = written;
	s->wchar = written;
	s->mem_known = true;
	s->dirty_before = 40 << 20;
	s->dirty_after = (40 << 20) + dirty;
}

#define GIB (1ull << 30)

static void test_page_cache(void)
{
	struct profile p;

	fresh(&p);
	row(&p, "write", 256, GIB, 250000000);
	storage(&p, GIB, GIB - GIB / 32);
	expect(&p, "page-cache", "- 1.0 GiB written, 3% of it reached the "
	       "device before exit (992.0 MiB left dirty in memory): the page "
	       "cache absorbed the writes, so their times are memory copies; "
	       "the device's cost comes at sync or writeback, after the run: "
	       "an fsync before exit (dd conv=fsync) or O_DIRECT (dd "
	       "oflag=direct) measures it.\n", "1 GiB, 97% still dirty");
	expect(&p, "sync-paid", "", "and no flush paid");
	/* A file truncated over the run's start: its dirty pages dropped
	   unwritten, which the dirty memory's growth does not show. */
	p.storage.dirty_after = p.storage.dirty_before;
	p.storage.cancelled = GIB;
	expect(&p, "page-cache", "- 1.0 GiB written, 0% of it reached the "
	       "device before exit (1.0 GiB left dirty in memory): the page "
	       "cache absorbed the writes, so their times are memory copies; "
	       "the device's cost comes at sync or writeback, after the run: "
	       "an fsync before exit (dd conv=fsync) or O_DIRECT (dd "
	       "oflag=direct) measures it.\n", "truncated dirty pages count");
	p.storage.cancelled = 0;
	storage(&p, GIB, GIB / 2 - 1);
	expect(&p, "page-cache", "", "silent under half still dirty");
	storage(&p, GIB, GIB);
	p.storage.tasks_io = 1;
	expect(&p, "page-cache", "", "silent when a task's io was unreadable");
	storage(&p, GIB, GIB);
	p.storage.mem_known = false;
	expect(&p, "page-cache", "", "silent without /proc/meminfo");
	storage(&p, (32 << 20) - 1, (32 << 20) - 1);
	expect(&p, "page-cache", "", "silent under 32 MiB");
	profile_release(&p);
}

static void test_sync_paid(void)
{
	struct profile p;

	fresh(&p);
	row(&p, "write", 256, GIB, 200000000);
	row(&p, "fsync", 1, 0, 400000000);
	row(&p, "close", 3, 0, 1000);
	storage(&p, GIB, 0);
	expect(&p, "sync-paid", "- fsync paid for earlier writes: 1.0 GiB "
	       "written through the page cache, 100% of it on the device "
	       "before exit; the calls that wait for a flush took fsync "
	       "0.400 s (1 call), close 0.000 s (3 calls), write 0.200 s "
	       "(256 calls): the device's cost is there, not in the writes' "
	       "MB/s alone.\n", "dd conv=fsync");
	expect(&p, "sync-heavy", "", "sync-heavy leaves it to sync-paid");
	expect(&p, "page-cache", "", "not the page cache's");
	expect(&p, "device-writes", "", "not the writes'");
	storage(&p, GIB, GIB / 2);
	expect(&p, "sync-paid", "", "silent with half still dirty");
	profile_release(&p);
}

static void test_device_writes(void)
{
	struct profile_sub *v;
	struct profile p;
	uint32_t f;

	fresh(&p);
	f = file(&p, "/x/out", FD_REG, PF_DIRECT, 4096, 512);
	v = io(&p, "write", f, 256, 4 << 20);
	row(&p, "write", 256, GIB, 500000000);
	storage(&p, GIB, 0);
	expect(&p, "device-writes", "- 1.0 GiB written with O_DIRECT or "
	       "O_SYNC, 100% of it on the device before exit: each write "
	       "waited for the device, so the 0.500 s in writes (2147.5 MB/s) "
	       "is the device's cost.\n", "dd oflag=direct");
	expect(&p, "sync-paid", "", "no flush paid for them");
	v->bytes_done = GIB / 2 - 1;
	expect(&p, "device-writes", "", "silent when most went through the "
	       "page cache");
	profile_release(&p);
}

static void test_user_copy(void)
{
	struct profile p;
	uint32_t a, b, z;

	fresh(&p);
	a = file(&p, "/d/in", FD_REG, 0, 4096, 512);
	b = file(&p, "/d/out", FD_REG, 0, 4096, 512);
	io(&p, "read", a, 16001, 131072)->bytes_done = 2000000000ull;
	io(&p, "write", b, 16000, 125000);
	expect(&p, "user-copy", "- read+write pairs copied 2.0 GB through "
	       "user space from /d/in to /d/out: copy_file_range would skip "
	       "the copy.\n", "file to file");
	profile_release(&p);

	fresh(&p);
	a = file(&p, "/d/in", FD_REG, 0, 4096, 512);
	b = file(&p, "pipe:[7]", FD_PIPE, 0, 4096, 0);
	io(&p, "read", a, 100, 65536);
	io(&p, "write", b, 100, 65536);
	expect(&p, "user-copy", "- read+write pairs copied 6.6 MB through "
	       "user space from /d/in to pipe:[7]: sendfile would skip the "
	       "copy.\n", "file to pipe");
	profile_release(&p);

	fresh(&p);
	z = file(&p, "/dev/zero", FD_CHR, 0, 4096, 0);
	b = file(&p, "/d/out", FD_REG, 0, 4096, 512);
	io(&p, "read", z, 20000, 1024);
	io(&p, "write", b, 20000, 1024);
	expect(&p, "user-copy", "", "silent from /dev/zero");
	profile_release(&p);

	fresh(&p);
	a = file(&p, "/d/in", FD_REG, 0, 4096, 512);
	b = file(&p, "/d/out", FD_REG, 0, 4096, 512);
	io(&p, "read", a, 40, 125000);
	io(&p, "write", b, 77, 64935)->bytes_done = 5000000;
	expect(&p, "user-copy", "", "silent when calls do not pair up");
	profile_release(&p);

	fresh(&p);
	a = file(&p, "/d/in", FD_REG, 0, 4096, 512);
	b = file(&p, "/d/out", FD_REG, 0, 4096, 512);
	io(&p, "read", a, 100, 9000);
	io(&p, "write", b, 100, 9000);
	expect(&p, "user-copy", "", "silent under 1 MB");
	io(&p, "write", b, 100, 9000)->bytes_done = 1000000;
	expect(&p, "user-copy", "", "silent when bytes differ");
	profile_release(&p);
}

static void test_outside(void)
{
	struct profile p;

	fresh(&p);
	p.wall_ns = 1000000000ull;
	row(&p, "write", 10, 10, 160000000ull);
	expect(&p, "outside-syscalls", "- 84.0% of wall time was outside "
	       "syscalls (user space or tracing overhead).\n", "84% outside");
	row(&p, "write", 10, 10, 210000000ull);
	expect(&p, "outside-syscalls", "", "silent at 79%");
	p.wall_ns = 40000000ull;
	row(&p, "write", 10, 10, 1000);
	expect(&p, "outside-syscalls", "", "silent for a run under 50 ms");
	p.wall_ns = 1000000000ull;
	p.exit.known = false;
	expect(&p, "outside-syscalls", "", "silent without a wall clock");
	profile_release(&p);
}

/*
 * A traced run with its stop costs: 1 s traced, 100,000 stops costing
 * 2-3 us each beyond 0.5 s of the tracer's own work, 10 ms user CPU.
 */
static void costed(struct profile *p, uint64_t stop_lo, uint64_t stop_hi)
{
	fresh(p);
	p->wall_ns = 1000000000ull;
	p->stops = 100000;
	p->cost.known = p->cost.cpu_known = true;
	p->cost.busy_ns = 500000000ull;
	p->cost.stop_lo_ns = stop_lo;
	p->cost.stop_hi_ns = stop_hi;
	p->cost.user_ns = 10000000ull;
}

static void test_peer_waits(void)
{
	struct profile_sub *v;
	struct profile p;
	uint32_t f;

	fresh(&p);
	f = file(&p, "pipe:[7]", FD_PIPE, 0, 4096, 0);
	v = io(&p, "write", f, 1000, 65536);
	v->time_ns = 300000;
	row(&p, "write", 1000, 65536000, 300000);
	row(&p, "read", 1000, 65536000, 700000);
	expect(&p, "peer-waits", "- 1,000 calls on pipes or sockets took 30.00% "
	       "of syscall time: they wait for the other end, so their times "
	       "are its pace as much as this process's work.\n",
	       "a pipe's share named, no claim of what tracing did");
	v->time_ns = 90000;
	expect(&p, "peer-waits", "", "silent under 10%");
	profile_release(&p);
}

/* Truth row i of p: a workload's own untraced timing of calls of name. */
static void truth(struct profile *p, size_t i, const char *name,
		  uint64_t calls, uint64_t total_ns)
{
	struct profile_truth_row *t = &p->truth.rows[i];

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->calls = calls;
	t->median_ns = total_ns / calls;
	t->total_ns = total_ns;
	if (p->truth.nrows <= i)
		p->truth.nrows = i + 1;
}

static void test_after_blocking(void)
{
	struct profile_sub *v;
	struct profile p;
	uint32_t f;

	fresh(&p);
	f = file(&p, "/x/out", FD_REG, PF_DIRECT, 4096, 512);
	v = io(&p, "write", f, 2000, 4096);
	v->time_ns = 180000000;
	row(&p, "write", 2000, 2000 * 4096, 180000000);
	row(&p, "read", 2000, 2000 * 4096, 20000000);
	expect(&p, "after-blocking", "- 2,000 calls waited for the device "
	       "(O_DIRECT or O_SYNC I/O) and took 90.00% of syscall time.\n",
	       "O_DIRECT writes; nothing said of untraced times unmeasured");
	/* --truth: the reads 1 us untraced, 10 us traced; the writes 80. */
	truth(&p, 0, "read", 2000, 2000000);
	truth(&p, 1, "write", 2000, 160000000);
	expect(&p, "after-blocking", "- 2,000 calls waited for the device "
	       "(O_DIRECT or O_SYNC I/O) and took 90.00% of syscall time; "
	       "between them, read took 10.000 us a call traced, 10.0x its "
	       "1.000 us untraced (--truth): calls after each wait start "
	       "cold, and tracing stops them right there.\n",
	       "--truth measured the reads slower traced: said, with figures");
	/* Issue 20: --truth had the reads slower untraced than traced. */
	truth(&p, 0, "read", 2000, 30000000);
	expect(&p, "after-blocking", "- 2,000 calls waited for the device "
	       "(O_DIRECT or O_SYNC I/O) and took 90.00% of syscall time.\n",
	       "--truth has them faster traced: no claim");
	truth(&p, 0, "read", 2000, 10000001);
	expect(&p, "after-blocking", "- 2,000 calls waited for the device "
	       "(O_DIRECT or O_SYNC I/O) and took 90.00% of syscall time.\n",
	       "under twice their untraced time: no claim");
	truth(&p, 0, "read", 1000, 1000000);
	expect(&p, "after-blocking", "- 2,000 calls waited for the device "
	       "(O_DIRECT or O_SYNC I/O) and took 90.00% of syscall time.\n",
	       "--truth of other calls (1,000 of 2,000): no claim");
	v->time_ns = 10000000;
	expect(&p, "after-blocking", "", "silent when the device is not "
	       "most of the time");
	profile_release(&p);

	/* The same O_DIRECT writes to /dev/shm: ~1 us copies, no device. */
	fresh(&p);
	f = file_backed(&p, "/dev/shm/x", FD_REG, PF_DIRECT, 4096, 0,
			FD_BACKING_NONE);
	v = io(&p, "write", f, 18560, 1130);
	v->time_ns = 21683000;
	row(&p, "write", 18563, 18560 * 1130, 21683000);
	row(&p, "read", 18563, 18560 * 1130, 7110000);
	expect(&p, "after-blocking", "", "silent on tmpfs: nothing waited "
	       "for a device");
	profile_release(&p);

	fresh(&p);
	f = file_backed(&p, "/o/x", FD_REG, PF_DIRECT, 4096, 0,
			FD_BACKING_UNKNOWN);
	v = io(&p, "write", f, 2000, 4096);
	v->time_ns = 180000000;
	row(&p, "write", 2000, 2000 * 4096, 180000000);
	row(&p, "read", 2000, 2000 * 4096, 20000000);
	expect(&p, "after-blocking", "", "silent where no device is known");
	profile_release(&p);

	fresh(&p);
	row(&p, "fsync", 10, 0, 900000);
	row(&p, "write", 1000, 1000, 100000);
	expect(&p, "after-blocking", "", "silent on fsync: sync-heavy's");
	profile_release(&p);
}

/* The header's second line of p (header.c), or "" when it has none. */
static char *second_line(const struct profile *p)
{
	char *buf = NULL, *nl, *line;
	size_t size = 0;
	FILE *m = open_memstream(&buf, &size);

	if (!m)
		return NULL;
	header_render(m, p, NULL);
	fclose(m);
	nl = buf ? strchr(buf, '\n') : NULL;
	line = strdup(nl ? nl + 1 : "");
	free(buf);
	return line;
}

static void expect_second(const struct profile *p, const char *want,
			  const char *what)
{
	char *got = second_line(p);

	is_str(got, want, "header: %s", what);
	free(got);
}

/*
 * What tracing does to a run is the header's to say, once: its second
 * line, a range where the estimate cannot resolve the split (no finding
 * says it again), the measured runs where --baseline has them.
 */
static void test_untraced(void)
{
	struct profile p;

	/* Untraced: at least user CPU and the syscalls (10 + 20 ms), at most
	 * 1 - 0.5 - 0.1 s x 0.75 x 2 us = 0.35 s */
	costed(&p, 2000, 3000);
	profile_set_exit(&p, 0, 0);
	row(&p, "write", 50000, 50000, 20000000ull);
	expect(&p, "outside-syscalls", "", "unresolved: no split claimed");
	expect_second(&p, "iotrace: untraced 30.0 to 350 ms (estimated): "
		      "tracing added too much to tell its share in syscalls; "
		      "--baseline measures it\n", "the range, and --baseline");
	/* --baseline measured the untraced run: its median says it. */
	p.baseline = (struct profile_baseline){ 3, 200000000, 180000000,
						220000000, 0, 150000000, "", "", "", "" };
	expect_second(&p, "iotrace: untraced 200 ms (--baseline, median of 3 "
		      "runs), 10% of it in syscalls\n", "the runs measured");
	memset(&p.baseline, 0, sizeof(p.baseline));
	profile_release(&p);

	/*
	 * Untraced at most 1 - 0.4 - 0.1 s x 0.75 = 0.525 s, at least the
	 * 0.45 s of user CPU and 0.05 s of syscalls: resolved.
	 */
	costed(&p, 1000, 1000);
	profile_set_exit(&p, 0, 0);
	p.cost.busy_ns = 400000000ull;
	p.cost.user_ns = 450000000ull;
	row(&p, "write", 50000, 50000, 50000000ull);
	expect(&p, "outside-syscalls", "- about 90% of the untraced run was "
	       "outside syscalls: user-space work (user CPU 0.450 s) or "
	       "waiting.\n", "against the untraced estimate");
	expect_second(&p, "iotrace: untraced ~500 ms (estimated), 10% of it "
		      "in syscalls\n", "resolved: a point and the share");
	profile_release(&p);
}

/*
 * Issue 22: a Java-like run, 19 threads idle in futex for the whole run
 * while one writes.  The table keeps futex first; the waits finding says
 * it is waiting, how long and by how many threads, and which call led
 * the work; outside-syscalls is no longer silenced by waits that pass
 * the wall, nor computed from them.
 */
static void test_waits(void)
{
	struct profile p;

	fresh(&p);
	p.wall_ns = 4000000000ull;
	p.wait_tasks = 19;
	row(&p, "futex", 809, 0, 43000000000ull);
	row(&p, "write", 1000000, 1000000, 600000000ull);
	row(&p, "poll", 12, 0, 1000000000ull);
	row(&p, "epoll_wait", 3, 0, 75000000ull);
	row(&p, "openat", 40, 0, 2000000ull);
	expect(&p, "waits", "- 98.65% of syscall time was in calls that wait, "
	       "not work: 19 threads waited 44.075 s in futex 43.000 s (809 "
	       "calls), poll 1.000 s (12 calls); the work took 0.602 s, led "
	       "by write 0.600 s (1,000,000 calls).\n", "futex said apart, "
	       "epoll_wait's 0.2% of the waits not named");
	expect(&p, "outside-syscalls", "- 85.0% of wall time was outside "
	       "syscalls that work (user space, calls that wait or tracing "
	       "overhead).\n", "the work's share, waits apart");
	p.wait_tasks = 0;
	expect(&p, "waits", "- 98.65% of syscall time was in calls that wait, "
	       "not work: waited 44.075 s in futex 43.000 s (809 calls), poll "
	       "1.000 s (12 calls); the work took 0.602 s, led by write 0.600 "
	       "s (1,000,000 calls).\n", "no count of threads where the run "
	       "has none");
	row(&p, "futex", 809, 0, 500000000ull);
	row(&p, "poll", 12, 0, 0);
	expect(&p, "waits", "", "silent where waits are under half the time");
	profile_release(&p);

	fresh(&p);
	row(&p, "nanosleep", 3, 0, 300000000ull);
	expect(&p, "waits", "- 100.00% of syscall time was in calls that "
	       "wait, not work: waited 0.300 s in nanosleep 0.300 s (3 "
	       "calls).\n", "only waits: no work to name");
	profile_release(&p);
}

/* The % time cell of the table's row for syscall name, in text. */
static void table_cell(const char *text, const char *name, char *cell)
{
	const char *l, *end;
	size_t n = strlen(name);

	cell[0] = '\0';
	for (l = text; (end = strchr(l, '\n')); l = end + 1)
		if ((size_t)(end - l) > n + 1 && end[-(long)n - 1] == ' ' &&
		    !strncmp(end - n, name, n) && sscanf(l, "%15s", cell) == 1)
			return;
}

/*
 * Issue 20: sh -c 'dd ...; sync', the parent's wait4 spanning dd.  The
 * sync finding said 51% of syscall time (waits left out) where the
 * table's % time said 25.57%: a share in a finding is the table's.
 */
static void test_shares_are_the_table(void)
{
	char *text = NULL, cell[16], want[128];
	struct profile_sub *v;
	struct profile p;
	size_t len = 0;
	uint32_t f;
	FILE *m;

	fresh(&p);
	p.wall_ns = 100000000;
	row(&p, "wait4", 2, 0, 31357000);
	row(&p, "sync", 1, 0, 17586000);
	row(&p, "write", 303, 303 << 16, 4413000);
	row(&p, "read", 307, 300 << 16, 3000000);
	f = file(&p, "pipe:[3]", FD_PIPE, 0, 4096, 0);
	v = io(&p, "read", f, 307, 65536);
	v->time_ns = 3000000;
	m = open_memstream(&text, &len);
	table_render(m, &p, &opts);
	fclose(m);
	table_cell(text, "sync", cell);
	snprintf(want, sizeof(want), "- sync: 1 call took %s%% of syscall "
		 "time (70%% of the work, waits apart), ", cell);
	ok(!strcmp(cell, "31.21") && strstr(text, want),
	   "sync: %s%%, as its row's %% time", cell);
	ok(strstr(text, "- 307 calls on pipes or sockets took 5.32% of "
		  "syscall time") != NULL, "peer-waits: over the table's total "
	   "too (waits in)");
	free(text);
	profile_release(&p);
}

/* --baseline's figures as its header line gives them. */
static void test_baseline_shares(void)
{
	struct profile p;

	fresh(&p);
	p.wall_ns = 4000000000ull;
	row(&p, "write", 1000000, 1000000, 3720000000ull);
	p.baseline = (struct profile_baseline){ 3, 10000000, 9000000,
						11000000, 2000000, 1000000, "", "", "", "" };
	expect(&p, "tiny-io", "- write: 1,000,000 calls averaging 1 byte "
	       "(untraced, 80.0% of the run was outside user space). A 64 KiB "
	       "buffer would make ~16 calls.\n",
	       "outside user space as the --baseline line has it");
	p.baseline.user_ns = 15000000;
	expect(&p, "tiny-io", "- write: 1,000,000 calls averaging 1 byte. A "
	       "64 KiB buffer would make ~16 calls.\n", "more CPU than "
	       "wall: no share, as the --baseline line gives none");
	profile_release(&p);

	fresh(&p);
	p.wall_ns = 1000000000ull;
	row(&p, "write", 10, 10, 100000000ull);
	p.baseline = (struct profile_baseline){ 3, 10000000, 9000000,
						11000000, 9000000, 500000, "", "", "", "" };
	expect(&p, "outside-syscalls", "- 90.0% of the untraced run "
	       "(--baseline) was user CPU: the time is in the program's own "
	       "code, not in syscalls.\n", "user CPU: 100% less the "
	       "header's 10.0% outside user space");
	p.baseline.user_ns = 15000000;
	expect(&p, "outside-syscalls", "", "tasks in parallel (more CPU than "
	       "wall): no 150% of the run");
	profile_release(&p);
}

static void test_render(void)
{
	struct report_opts off = { .findings = false };
	char *text = NULL;
	size_t len = 0;
	struct profile p;
	FILE *m;

	fresh(&p);
	row(&p, "fdatasync", 12, 0, 810);
	m = open_memstream(&text, &len);
	findings_render(m, &p, &off);
	fflush(m);
	is_int(len, 0, "--no-findings prints nothing");
	findings_render(m, &p, &opts);
	fclose(m);
	is_str(text, "\nFindings:\n- fdatasync: 12 calls took 100.00% of "
	       "syscall time.\n", "heading, then the lines");
	free(text);
	text = NULL;
	profile_release(&p);

	fresh(&p);
	row(&p, "write", 10, 100, 1000);
	m = open_memstream(&text, &len);
	findings_render(m, &p, &opts);
	fclose(m);
	is_int(len, 0, "nothing to say: no heading either");
	free(text);
	is_int(findings_run(stdout, &p, &opts, "no-such-rule"), -EINVAL,
	       "an unknown rule id is an error");
	profile_release(&p);
}

/* A path of n characters under /d, for findings longer than a line. */
static const char *long_path(char *buf, size_t n, char c)
{
	memset(buf, c, n);
	memcpy(buf, "/d/", 3);
	buf[n] = '\0';
	return buf;
}

static void test_collect(void)
{
	char in[251], out[251], want[700];
	struct findings fs;
	struct profile p;
	uint32_t a, b;

	fresh(&p);
	row(&p, "fdatasync", 12, 0, 810000);
	row(&p, "write", 100000, 100000, 190000);
	is_int(findings_collect(&fs, &p, &opts, NULL), 0, "collected");
	is_int(fs.n, 2, "two findings");
	is_str(fs.v[0].rule, "tiny-io", "the first one's rule");
	is_str(fs.v[0].about, "write", "... what it is about");
	is_str(fs.v[0].text, "write: 100,000 calls averaging 1 byte. A 64 "
	       "KiB buffer would make ~2 calls.", "... its text, no bullet");
	is_str(fs.v[1].rule, "sync-heavy", "the second one's rule");
	is_str(fs.v[1].about, "fdatasync", "... what it is about");
	findings_release(&fs);
	is_int(fs.n, 0, "released");
	is_int(findings_collect(&fs, &p, &opts, "no-such-rule"), -EINVAL,
	       "an unknown rule id is an error");
	profile_release(&p);

	/* Two 250-byte paths: a finding longer than any line buffer. */
	fresh(&p);
	a = file(&p, long_path(in, 250, 'i'), FD_REG, 0, 4096, 512);
	b = file(&p, long_path(out, 250, 'o'), FD_REG, 0, 4096, 512);
	io(&p, "read", a, 100, 65536);
	io(&p, "write", b, 100, 65536);
	snprintf(want, sizeof(want), "read+write pairs copied 6.6 MB through "
		 "user space from %s to %s: copy_file_range would skip the "
		 "copy.", in, out);
	findings_collect(&fs, &p, &opts, "user-copy");
	ok(fs.n == 1 && strlen(want) > 512 && !strcmp(fs.v[0].text, want),
	   "a finding of %zu bytes, whole", strlen(want));
	findings_release(&fs);
	profile_release(&p);
}

int main(void)
{
	test_tiny_io();
	test_odirect_einval();
	test_block_misfit();
	test_sync_heavy();
	test_page_cache();
	test_sync_paid();
	test_device_writes();
	test_untraced();
	test_peer_waits();
	test_waits();
	test_after_blocking();
	test_user_copy();
	test_outside();
	test_shares_are_the_table();
	test_baseline_shares();
	test_render();
	test_collect();
	return done_testing();
}
