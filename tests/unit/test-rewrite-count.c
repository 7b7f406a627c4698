// SPDX-License-Identifier: MIT
/*
 * Unit tests of what the fast path's trampolines count (tracer/rewrite/
 * tramp-tmpl.S), on the fake sites of rewrite-fakes.h: a call counts
 * once, at its end, in its fd's cell (calls, errors, ns, bytes, the size
 * asked, short transfers), its slot's histogram and, failed, its
 * errno's row; exact from 8 threads too.  Real calls give the common
 * cases; results a kernel rarely gives (a short transfer of a size past
 * 2^63, errnos past RW_ERRNOS, -4096) are forced by a tracer at a
 * child's syscall exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include "tracer/rewrite/rewrite.h"
#include "tests/unit/rewrite-fakes.h"
#include "tests/unit/tap.h"

static void test_write_counted(void)
{
	int p[2];
	char got[8] = "";
	struct rw_cell *c;
	uint64_t t0, t1;
	long r;

	if (pipe(p))
		return;
	memset(C, 0, sizeof(*C));
	c = &C->cell[fakes[F_WRITE].slot][p[1]];
	t0 = __rdtsc();
	r = entry(F_WRITE)(p[1], (long)"hello", 5, 0, 0, 0);
	t1 = __rdtsc();
	is_int(r, 5, "write through the trampoline returns its bytes");
	ok(read(p[0], got, sizeof(got)) == 5 && !memcmp(got, "hello", 5),
	   "and they reach the pipe");
	ok(cell_is(c, 1, 0, 5, 5, 0),
	   "its cell: 1 call, 5 bytes of 5 asked, no error, not short");
	is_int(err_total(), 0, "no errno counted");
	ok(c->ns > 0 && c->ns <= t1 - t0,
	   "ns = ticks * 2^62 >> 62: within the caller's ticks (%lu, %lu)",
	   (unsigned long)c->ns, (unsigned long)(t1 - t0));
	is_int(C->hist[fakes[F_WRITE].slot][bucket_of(c->ns)], 1,
	       "the histogram counts it in floor(log2(ns))");
	is_int(hist_sum(fakes[F_WRITE].slot), 1, "and nowhere else");
	close(p[0]);
	close(p[1]);
}

static void test_histogram_ends(void)
{
	int z = fakes[F_ZERO].slot, m = fakes[F_CLAMP].slot;
	int fd = open("/dev/null", O_WRONLY);

	memset(C, 0, sizeof(*C));
	entry(F_ZERO)(fd, (long)"x", 1, 0, 0, 0);
	ok(C->cell[z][fd].ns == 0 && C->hist[z][0] == 1,
	   "0 ns goes to bucket 0");
	entry(F_CLAMP)(fd, (long)"x", 1, 0, 0, 0);
	ok(C->cell[m][fd].ns > 1ULL << 63 && C->hist[m][RW_HIST - 1] == 1,
	   "ns past 2^RW_HIST goes to the last bucket");
	close(fd);
}

static void test_write_error(void)
{
	struct rw_cell *c = &C->cell[fakes[F_WRITE].slot][200];

	memset(C, 0, sizeof(*C));
	close(200);
	is_int(entry(F_WRITE)(200, (long)"x", 1, 0, 0, 0), -EBADF,
	       "write on a closed fd returns -EBADF");
	ok(cell_is(c, 1, 1, 0, 1, 0),
	   "counted as an error, no bytes, 1 asked, not short");
	is_int(C->err[fakes[F_WRITE].slot][EBADF], 1,
	       "EBADF in its slot's row");
	is_int(err_total(), 1, "and nowhere else");
	is_int(hist_sum(fakes[F_WRITE].slot), 1, "its time in the histogram");
}

/*
 * Real short reads: a pipe holding 5 bytes read 16 at a time, a read of
 * 0 (not short: 0 of 0), a full one, then end of file (0 of 16: short).
 */
static void test_read_short(void)
{
	struct rw_cell *c;
	char buf[16];
	int p[2];

	if (pipe(p)) {
		ok(0, "a pipe");
		return;
	}
	memset(C, 0, sizeof(*C));
	c = &C->cell[fakes[F_READ].slot][p[0]];
	if (write(p[1], "hello", 5) != 5)
		ok(0, "5 bytes in the pipe");
	is_int(entry(F_READ)(p[0], (long)buf, 16, 0, 0, 0), 5,
	       "read of 16 gets the pipe's 5");
	ok(cell_is(c, 1, 0, 5, 16, 1), "a short read: 16 asked, 5 bytes");
	is_int(entry(F_READ)(p[0], (long)buf, 0, 0, 0, 0), 0, "read of 0");
	ok(cell_is(c, 2, 0, 5, 16, 1), "0 of 0 is not short");
	if (write(p[1], "0123456789abcdef", 16) != 16)
		ok(0, "16 bytes in the pipe");
	is_int(entry(F_READ)(p[0], (long)buf, 16, 0, 0, 0), 16,
	       "read of 16 gets 16");
	ok(cell_is(c, 3, 0, 21, 32, 1), "16 of 16 is not short");
	close(p[1]);
	is_int(entry(F_READ)(p[0], (long)buf, 16, 0, 0, 0), 0, "end of file");
	ok(cell_is(c, 4, 0, 21, 48, 2), "0 of 16 is short");
	is_int(hist_sum(fakes[F_READ].slot), 4, "4 calls in the histogram");
	close(p[0]);
}

static void test_noreg_and_r8(void)
{
	struct rw_cell *c0 = &C->cell[fakes[F_GETPID].slot][0], *cm;
	int fd = memfd_create("tramp", 0);
	long r;

	memset(C, 0, sizeof(*C));
	is_int(entry(F_GETPID)(0, 0, 0, 0, 0, 0), getpid(),
	       "getpid (no fd) through the trampoline");
	ok(cell_is(c0, 1, 0, 0, 0, 0), "counted in cell 0, no bytes, no size");
	if (fd < 0 || ftruncate(fd, 4096)) {
		ok(0, "a memfd");
		return;
	}
	cm = &C->cell[fakes[F_MMAP].slot][fd];
	r = entry(F_MMAP)(0, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ok(r > 0 && *(volatile char *)r == 0 && !munmap((void *)r, 4096),
	   "mmap (fd in r8, a REX register) maps the file");
	ok(cell_is(cm, 1, 0, 0, 0, 0), "counted in the fd's cell; an address "
	   "is no bytes, rdx (PROT_READ) no size");
	close(fd);
}

/*
 * 8 threads on one slot, half writing to /dev/null, half to a closed fd:
 * every counter they share (the two cells, the histogram, the errno
 * row) exact, as only locked adds keep it.
 */
#define THREADS 8
#define PER_THREAD 20000

static void *hammer(void *arg)
{
	long fd = (long)arg;
	int i;

	for (i = 0; i < PER_THREAD; i++)
		entry(F_WRITE)(fd, (long)"x", 1, 0, 0, 0);
	return NULL;
}

static void test_threads(void)
{
	int slot = fakes[F_WRITE].slot, fd = open("/dev/null", O_WRONLY);
	uint64_t half = THREADS / 2 * PER_THREAD;
	pthread_t t[THREADS];
	int i, made = 0;

	memset(C, 0, sizeof(*C));
	close(200);
	for (i = 0; i < THREADS; i++)
		made += !pthread_create(&t[i], NULL, hammer,
					(void *)(long)(i % 2 ? 200 : fd));
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	if (!ok(made == THREADS, "%d threads", THREADS))
		return;
	ok(cell_is(&C->cell[slot][fd], half, 0, half, half, 0),
	   "/dev/null's cell: %llu calls, bytes and asked",
	   (unsigned long long)half);
	ok(cell_is(&C->cell[slot][200], half, half, 0, half, 0),
	   "the closed fd's: %llu calls, errors and asked",
	   (unsigned long long)half);
	is_int(C->err[slot][EBADF], half, "EBADF counted %llu times",
	       (unsigned long long)half);
	is_int(hist_sum(slot), 2 * half, "the histogram: every call");
	close(fd);
}

/*
 * Results forced at a traced child's syscall exits: reads of /dev/zero
 * through read's four variants, each call's result replaced by the
 * tracer, so that every edge of the counting is met: short or not, an
 * error or not, an errno in its row or in err[slot][0].
 */
static const struct forced {
	uint64_t size;
	int64_t result;
	bool is_short;
	int err;		/* its err[slot] index; -1: not an error */
} forced[] = {
	{ 8, 8, false, -1 },
	{ 8, 3, true, -1 },
	{ 8, 0, true, -1 },		/* end of file */
	{ 0, 0, false, -1 },		/* 0 of 0 */
	{ 8, 9, false, -1 },		/* more than asked: never short */
	{ 1ULL << 63, 5, true, -1 },	/* sizes are unsigned */
	{ 8, -4096, false, -1 },	/* no error, no transfer */
	{ ~0ULL, -4096, false, -1 },	/* nor short, under any size */
	{ 8, -4095, false, 0 },
	{ 8, -134, false, 0 },		/* RW_ERRNOS: others */
	{ 8, -133, false, 133 },
	{ 8, -1, false, 1 },
};
#define NFORCED (sizeof(forced) / sizeof(*forced))

static void forced_child(int fd, int go)
{
	char buf[8];
	int f;
	size_t i;

	if (read(go, buf, 1) != 1)
		_exit(1);
	raise(SIGUSR2);
	for (f = F_RD00; f <= F_RD11; f++)
		for (i = 0; i < NFORCED; i++)
			entry(f)(fd, (long)buf, (long)forced[i].size, 0, 0, 0);
	_exit(0);
}

/* Runs the child to its end, forcing each exit in a read trampoline; the
 * exits forced, or -1. */
static int forced_trace(pid_t pid)
{
	struct __ptrace_syscall_info si;
	struct user_regs_struct r;
	int st, f, n = 0;

	if (child_status(pid) != (SIGUSR2 << 8 | 0x7f))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, 0L, 0L))
			return -1;
		st = child_status(pid);
		if (WIFEXITED(st))
			return n;
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != (SIGTRAP | 0x80))
			return -1;
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, sizeof(si),
			   &si) <= 0 || si.op != PTRACE_SYSCALL_INFO_EXIT)
			continue;
		if (ptrace(PTRACE_GETREGS, pid, 0L, &r))
			return -1;
		for (f = F_RD00; f <= F_RD11 && !in_tramp(f, r.rip); f++)
			;
		if (f > F_RD11)
			continue;
		r.rax = (unsigned long long)forced[n++ % NFORCED].result;
		if (ptrace(PTRACE_SETREGS, pid, 0L, &r))
			return -1;
	}
}

static void test_forced_results(void)
{
	int fd = open("/dev/zero", O_RDONLY), f;
	uint64_t req = 0, bytes = 0, shorts = 0, errors = 0;
	uint64_t err[RW_ERRNOS] = { 0 };
	int go[2], n;
	size_t i;
	pid_t pid;

	if (fd < 0 || pipe(go)) {
		ok(0, "/dev/zero and a pipe");
		return;
	}
	memset(C, 0, sizeof(*C));
	for (i = 0; i < NFORCED; i++) {
		req += forced[i].size;
		if (forced[i].err >= 0) {
			errors++;
			err[forced[i].err]++;
			continue;
		}
		bytes += forced[i].result > 0 ? (uint64_t)forced[i].result : 0;
		shorts += forced[i].is_short;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		forced_child(fd, go[0]);
	}
	close(go[0]);
	ptrace(PTRACE_SEIZE, pid, 0L,
	       PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD);
	n = (int)write(go[1], "g", 1);
	close(go[1]);
	n = n == 1 ? forced_trace(pid) : -1;
	if (!ok(n == 4 * (int)NFORCED, "every read's result forced (%d)", n)) {
		child_kill(pid);
		close(fd);
		return;
	}
	for (f = F_RD00; f <= F_RD11; f++) {
		const struct fake *k = &fakes[f];
		bool sized = k->size_reg == RW_RDX;

		ok(cell_is(&C->cell[k->slot][fd], NFORCED, errors,
			   k->moves_data ? bytes : 0, sized ? req : 0,
			   sized ? shorts : 0), "moves %d, size %d: calls, "
		   "errors, bytes, asked and shorts exact", k->moves_data,
		   k->size_reg);
		ok(!memcmp(C->err[k->slot], err, sizeof(err)),
		   "moves %d, size %d: errnos 1 and 133 in their place, 134 "
		   "and 4095 in err[slot][0]", k->moves_data, k->size_reg);
		is_int(hist_sum(k->slot), NFORCED, "moves %d, size %d: the "
		       "histogram counts every call", k->moves_data,
		       k->size_reg);
	}
	is_int(err_total(), 4 * errors, "no errno counted elsewhere");
	close(fd);
}

int main(void)
{
	if (setup()) {
		ok(0, "the fake sites are set up");
		return done_testing();
	}
	test_write_counted();
	test_histogram_ends();
	test_write_error();
	test_read_short();
	test_noreg_and_r8();
	test_threads();
	test_forced_results();
	return done_testing();
}
