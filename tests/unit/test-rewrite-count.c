// SPDX-License-Identifier: MIT
/*
 * Unit tests of what the fast path's trampolines count (tracer/rewrite/
 * tramp-tmpl.S), on the fake sites of rewrite-fakes.h: a call counts
 * once, at its end, in its fd's cell (calls, errors, einval, ns, bytes,
 * the size asked, short transfers, the largest size asked and its
 * calls), its slot's histogram and extremes (max_ns, nmin_ns) and,
 * failed, its errno's row; exact from 8 threads too, and under races set
 * up on purpose.  Real calls give the common cases; results a kernel
 * rarely gives (a short transfer of a size past 2^63, errnos past
 * RW_ERRNOS, -4096) are forced by a tracer at a child's syscall exits.
 * The tests of one thread run again on the twins (rw_tramp_unlock()).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
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

/* --- the slot's extremes --- */

/* fd k of /dev/zero dups at fds ZFD .. ZFD + NZFD - 1: a cell per call,
 * so each call's ns is its cell's. */
#define ZFD 10
#define NZFD 240

static int zero_fds(void)
{
	int z = open("/dev/zero", O_RDONLY), i, n = 0;

	for (i = 0; z >= 0 && i < NZFD; i++)
		n += dup2(z, ZFD + i) == ZFD + i;
	if (z >= 0)
		close(z);
	return n == NZFD ? 0 : -1;
}

static void zero_fds_close(void)
{
	int i;

	for (i = 0; i < NZFD; i++)
		close(ZFD + i);
}

/* Whether slot's extremes are those of the ns in its cells of fds
 * [ZFD, ZFD + n), each one call. */
static bool extremes_exact(int slot, int n)
{
	static int said;
	uint64_t max = 0, min = ~0ULL;
	int i;

	for (i = 0; i < n; i++) {
		const struct rw_cell *c = &C->cell[slot][ZFD + i];

		if (c->calls != 1)
			return false;
		max = c->ns > max ? c->ns : max;
		min = c->ns < min ? c->ns : min;
	}
	if (C->max_ns[slot] == max && ~C->nmin_ns[slot] == min)
		return true;
	if (said++ < 5)	/* a few: a race lost may lose thousands */
		printf("# slot %d: max %llu (want %llu), min %llu (want "
		       "%llu)\n", slot, (unsigned long long)C->max_ns[slot],
		       (unsigned long long)max,
		       (unsigned long long)~C->nmin_ns[slot],
		       (unsigned long long)min);
	return false;
}

static void test_extremes(void)
{
	static char buf[1 << 16];
	static const long sizes[] = { 1 << 16, 1, 4096, 1 << 15, 16 };
	int slot = fakes[F_READ].slot, i, n = 0, null;
	uint64_t clamp;

	if (zero_fds()) {
		ok(0, "/dev/zero at fds %d..", ZFD);
		return;
	}
	memset(C, 0, sizeof(*C));
	ok(C->max_ns[slot] == 0 && ~C->nmin_ns[slot] == ~0ULL,
	   "no call yet: max 0, min ~0 (none)");
	for (i = 0; i < (int)(sizeof(sizes) / sizeof(*sizes)); i++)
		n += entry(F_READ)(ZFD + i, (long)buf, sizes[i], 0, 0, 0) ==
		     sizes[i];
	is_int(n, 5, "five reads of /dev/zero, 1 to 64 KiB");
	ok(extremes_exact(slot, 5), "max_ns and ~nmin_ns: the largest and "
	   "smallest of their cells' ns (%llu, %llu)",
	   (unsigned long long)C->max_ns[slot],
	   (unsigned long long)~C->nmin_ns[slot]);
	null = open("/dev/null", O_WRONLY);
	entry(F_ZERO)(null, (long)"x", 1, 0, 0, 0);
	entry(F_CLAMP)(null, (long)"x", 1, 0, 0, 0);
	ok(C->max_ns[fakes[F_ZERO].slot] == 0 &&
	   C->nmin_ns[fakes[F_ZERO].slot] == ~0ULL,
	   "0 ns: max 0, min 0 (nmin ~0)");
	clamp = C->cell[fakes[F_CLAMP].slot][null].ns;
	ok(C->max_ns[fakes[F_CLAMP].slot] == clamp &&
	   ~C->nmin_ns[fakes[F_CLAMP].slot] == clamp,
	   "one call past 2^63 ns: max and min are it");
	ok(slot_clean(fakes[F_WRITE].slot), "other slots untouched");
	close(null);
	zero_fds_close();
}

/*
 * 8 threads on one slot, each read a cell of its own (so each call's ns
 * is known), sizes rising in a round (a new max each time a thread
 * passes the others), falling in the next (a new min), 8 KiB to 240
 * KiB: the round's extremes exact.
 */
#define ROUNDS 40
#define PER_ROUND (NZFD / THREADS)

struct ext_arg {
	pthread_barrier_t *go;
	int t;
};

static void *extremes_thread(void *arg)
{
	struct ext_arg *a = arg;
	char *buf = malloc(PER_ROUND * 8192);
	int r, k, size;

	for (r = 0; r < ROUNDS; r++) {
		pthread_barrier_wait(a->go);
		for (k = 0; k < PER_ROUND; k++) {
			size = (r % 2 ? PER_ROUND - k : k + 1) * 8192;
			if (buf)
				entry(F_READ)(ZFD + k * THREADS + a->t,
					      (long)buf, size, 0, 0, 0);
		}
		pthread_barrier_wait(a->go);
	}
	free(buf);
	return NULL;
}

static void test_extremes_threads(void)
{
	int slot = fakes[F_READ].slot, i, r, made = 0, wrong = 0;
	struct ext_arg args[THREADS];
	pthread_barrier_t go;
	pthread_t t[THREADS];

	if (zero_fds() || pthread_barrier_init(&go, NULL, THREADS + 1)) {
		ok(0, "/dev/zero at fds %d.., a barrier", ZFD);
		return;
	}
	for (i = 0; i < THREADS; i++) {
		args[i] = (struct ext_arg){ &go, i };
		made += !pthread_create(&t[i], NULL, extremes_thread, &args[i]);
	}
	if (!ok(made == THREADS, "%d threads", THREADS))
		exit(1);
	for (r = 0; r < ROUNDS; r++) {
		memset(C, 0, sizeof(*C));
		pthread_barrier_wait(&go);
		pthread_barrier_wait(&go);
		wrong += !extremes_exact(slot, PER_ROUND * THREADS);
	}
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	is_int(wrong, 0, "%d rounds of %d calls from %d threads: every "
	       "round's max and min exact", ROUNDS, PER_ROUND * THREADS,
	       THREADS);
	pthread_barrier_destroy(&go);
	zero_fds_close();
}

/*
 * Races on purpose: this thread and another (two cores) released
 * together by a spinning start, one call each (race.call(0), (1)) on
 * counters race.reset() set, so that both update them at about the same
 * time; race.check() says whether the round's result is the one any
 * order of the two calls gives.  The spin yields after a while: the
 * machine may have fewer cores free.  The rounds that failed.
 */
#define RACES 20000

static struct {
	void (*reset)(void);
	void (*call)(int t);
	bool (*check)(void);
	atomic_int round, done;
} race;

static void race_wait(atomic_int *v, int want)
{
	int n = 0;

	while (atomic_load(v) != want)
		if (++n > 10000)
			sched_yield();
}

static void *race_thread(void *arg)
{
	int r;

	(void)arg;
	for (r = 1; r <= RACES; r++) {
		race_wait(&race.round, r);
		race.call(1);
		atomic_store(&race.done, r);
	}
	return NULL;
}

static int races(void (*reset)(void), void (*call)(int),
		 bool (*check)(void))
{
	int r, wrong = 0;
	pthread_t t;

	race.reset = reset;
	race.call = call;
	race.check = check;
	atomic_store(&race.round, 0);
	atomic_store(&race.done, 0);
	if (pthread_create(&t, NULL, race_thread, NULL))
		return -1;
	for (r = 1; r <= RACES; r++) {
		race.reset();
		atomic_store(&race.round, r);
		race.call(0);
		race_wait(&race.done, r);
		wrong += !race.check();
	}
	pthread_join(t, NULL);
	return wrong;
}

/* The extremes: an empty slot, a read of 1 byte each into a cell of
 * its own; the larger ns must be the max, the smaller the min. */
static void ext_reset(void)
{
	int slot = fakes[F_READ].slot;

	memset(&C->cell[slot][ZFD], 0, 2 * sizeof(struct rw_cell));
	C->max_ns[slot] = C->nmin_ns[slot] = 0;
}

static void ext_call(int t)
{
	char c;

	entry(F_READ)(ZFD + t, (long)&c, 1, 0, 0, 0);
}

static bool ext_check(void)
{
	return extremes_exact(fakes[F_READ].slot, 2);
}

/* The size pair: (100, 5), one call asking 100 again, one 101: in
 * either order (101, 1); an increment of the old pair landing on the
 * new one gives (101, 2). */
static int race_fd;

static struct rw_cell *size_cell(void)
{
	return &C->cell[fakes[F_WRITE].slot][race_fd];
}

static void size_reset(void)
{
	size_cell()->size_max = 100;
	size_cell()->size_max_calls = 5;
}

static void size_call(int t)
{
	static char buf[128];

	entry(F_WRITE)(race_fd, (long)buf, 100 + t, 0, 0, 0);
}

static bool size_check(void)
{
	return size_cell()->size_max == 101 &&
	       size_cell()->size_max_calls == 1;
}

static void test_races(void)
{
	if (zero_fds() || (race_fd = open("/dev/null", O_WRONLY)) < 0) {
		ok(0, "/dev/zero at fds %d.., /dev/null", ZFD);
		return;
	}
	memset(C, 0, sizeof(*C));
	is_int(races(ext_reset, ext_call, ext_check), 0, "%d races of two "
	       "calls: the max and min exact in each", RACES);
	is_int(races(size_reset, size_call, size_check), 0, "%d races of "
	       "size_max again against a new one: (101, 1) in each", RACES);
	close(race_fd);
	zero_fds_close();
}

/* --- einval, size_max --- */

static void test_einval(void)
{
	int slot = fakes[F_READ].slot, efd = eventfd(0, 0);
	struct rw_cell *c;
	char buf[8];

	if (efd < 0) {
		ok(0, "an eventfd");
		return;
	}
	memset(C, 0, sizeof(*C));
	c = &C->cell[slot][efd];
	is_int(entry(F_READ)(efd, (long)buf, 4, 0, 0, 0), -EINVAL,
	       "read of 4 bytes of an eventfd: -EINVAL");
	ok(cell_is(c, 1, 1, 0, 4, 0) && c->einval == 1 &&
	   C->err[slot][EINVAL] == 1, "counted: an error, einval, its errno");
	close(200);
	is_int(entry(F_READ)(200, (long)buf, 4, 0, 0, 0), -EBADF,
	       "read of a closed fd: -EBADF");
	ok(C->cell[slot][200].errors == 1 && C->cell[slot][200].einval == 0,
	   "an error, not einval");
	if (eventfd_write(efd, 7))
		ok(0, "the eventfd written");
	is_int(entry(F_READ)(efd, (long)buf, 8, 0, 0, 0), 8,
	       "read of 8: the count");
	ok(cell_is(c, 2, 1, 8, 12, 0) && c->einval == 1,
	   "a success: einval unchanged");
	close(efd);
}

/* Writes to /dev/null of sizes[], one after the other: size_max and its
 * calls. */
static void test_size_max(void)
{
	static const long sizes[] = { 5, 9, 9, 3, 0, 9, 7 };
	int slot = fakes[F_WRITE].slot, fd = open("/dev/null", O_WRONLY);
	static char buf[16];
	struct rw_cell *c = &C->cell[slot][fd];
	size_t i;

	memset(C, 0, sizeof(*C));
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		entry(F_WRITE)(fd, (long)buf, sizes[i], 0, 0, 0);
	ok(c->size_max == 9 && c->size_max_calls == 3, "sizes 5 9 9 3 0 9 7: "
	   "size_max 9, asked by 3 calls (%llu, %llu)",
	   (unsigned long long)c->size_max,
	   (unsigned long long)c->size_max_calls);
	entry(F_WRITE)(fd, (long)buf, 12, 0, 0, 0);
	ok(c->size_max == 12 && c->size_max_calls == 1, "then 12: 12, once");
	entry(F_GETPID)(0, 0, 0, 0, 0, 0);
	ok(C->cell[fakes[F_GETPID].slot][0].size_max == 0 &&
	   C->cell[fakes[F_GETPID].slot][0].size_max_calls == 0,
	   "no size register: none");
	close(fd);
}

/*
 * 8 threads on one cell (/dev/null), sizes rising by levels all threads
 * climb together (a new size_max racing the calls of the level before
 * and after it), then half the threads one size and half a larger one
 * (the calls asking size_max again meeting on the pair): size_max and
 * its calls exact, as only the pair's cmpxchg16b and its retry keep
 * them.
 */
#define LEVEL 64
#define OWN_CALLS 50000

static void *sizes_climb(void *arg)
{
	static char buf[PER_THREAD / LEVEL];
	long fd = (long)arg;
	int k;

	for (k = 0; k < PER_THREAD; k++)
		entry(F_WRITE)(fd, (long)buf, k / LEVEL, 0, 0, 0);
	return NULL;
}

static void *sizes_own(void *arg)
{
	static char buf[1024];
	long fd = (long)arg >> 8, size = 1000 + ((long)arg & 0xff);
	int k;

	for (k = 0; k < OWN_CALLS; k++)
		entry(F_WRITE)(fd, (long)buf, size, 0, 0, 0);
	return NULL;
}

static int run_threads(void *(*fn)(void *), long arg, bool own)
{
	pthread_t t[THREADS];
	int i, made = 0;

	for (i = 0; i < THREADS; i++)
		made += !pthread_create(&t[i], NULL, fn, (void *)(own ?
					arg << 8 | i % 2 : arg));
	for (i = 0; i < made; i++)
		pthread_join(t[i], NULL);
	return made;
}

static void test_size_max_threads(void)
{
	int slot = fakes[F_WRITE].slot, fd = open("/dev/null", O_WRONLY);
	struct rw_cell *c = &C->cell[slot][fd];
	uint64_t top = (PER_THREAD - 1) / LEVEL;
	uint64_t at_top = PER_THREAD - top * LEVEL;

	memset(C, 0, sizeof(*C));
	if (!ok(run_threads(sizes_climb, fd, false) == THREADS, "%d threads "
		"climbing sizes", THREADS))
		return;
	ok(c->size_max == top && c->size_max_calls == THREADS * at_top &&
	   c->calls == THREADS * PER_THREAD, "size_max %llu, asked by %llu "
	   "calls (%llu, %llu)", (unsigned long long)top,
	   (unsigned long long)(THREADS * at_top),
	   (unsigned long long)c->size_max,
	   (unsigned long long)c->size_max_calls);
	memset(C, 0, sizeof(*C));
	if (!ok(run_threads(sizes_own, fd, true) == THREADS, "%d threads "
		"asking sizes 1000 and 1001", THREADS))
		return;
	ok(c->size_max == 1001 && c->size_max_calls == THREADS / 2 * OWN_CALLS,
	   "size_max 1001, asked by the %d calls of its %d threads (%llu, "
	   "%llu)", THREADS / 2 * OWN_CALLS, THREADS / 2,
	   (unsigned long long)c->size_max,
	   (unsigned long long)c->size_max_calls);
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
	{ 8, -EINVAL, false, EINVAL },	/* einval too */
	{ 8, (1LL << 32) - EINVAL, false, -1 },	/* -EINVAL's low half:
						   bytes, not einval */
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

		const struct rw_cell *c = &C->cell[k->slot][fd];

		ok(cell_is(c, NFORCED, errors, k->moves_data ? bytes : 0,
			   sized ? req : 0, sized ? shorts : 0), "moves %d, "
		   "size %d: calls, errors, bytes, asked and shorts exact",
		   k->moves_data, k->size_reg);
		ok(c->einval == 1, "moves %d, size %d: -EINVAL once in "
		   "einval (%llu)", k->moves_data, k->size_reg,
		   (unsigned long long)c->einval);
		ok(sized ? c->size_max == ~0ULL && c->size_max_calls == 1 :
		   !c->size_max && !c->size_max_calls, "moves %d, size %d: "
		   "size_max %s", k->moves_data, k->size_reg, sized ?
		   "2^64 - 1 (unsigned), asked once" : "none");
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

/*
 * -k --stack-sample N: the first call of a slot and each N-th after it
 * go to the stub's syscall, counted there by ptrace, not here: each
 * leaves the cell alone and adds one to the slot's sample_pending.  The
 * countdown is the slot's, whatever the fd.
 */
static void test_samples(void)
{
	int slot = fakes[F_SWRITE].slot, fd = open("/dev/null", O_WRONLY);
	int fd2 = open("/dev/null", O_WRONLY), i, right = 0;
	struct rw_cell *c, *c2;

	if (fd < 0 || fd2 < 0) {
		ok(0, "/dev/null twice");
		return;
	}
	memset(C, 0, sizeof(*C));
	c = &C->cell[slot][fd];
	c2 = &C->cell[slot][fd2];
	for (i = 0; i < 9; i++)
		right += entry(F_SWRITE)(i % 3 ? fd : fd2, (long)"x", 1, 0, 0,
					 0) == 1;
	is_int(right, 9, "9 writes, 1 in 4 sampled: each returns 1");
	is_int(C->sample_pending[slot], 3, "calls 1, 5 and 9 sent to the "
	       "stub: 3 samples pending");
	is_int(c->calls + c2->calls, 6, "the other 6 counted in the cells");
	is_int(c2->calls, 2, "fd2's calls 4 and 7 (1 was sampled)");
	is_int(hist_sum(slot), 6, "the histogram has the 6");
	is_int((long)C->sample_left[slot], 3, "3 calls to go before the next "
	       "sample");
	is_int(C->sample_pending[fakes[F_WRITE].slot], 0,
	       "an unsampled trampoline sends none");
	close(fd);
	close(fd2);
}

/*
 * Two-fd calls: the cell is the source fd's, and counts the destination
 * its first call had (fd2: 1 + that fd); a call to another destination,
 * or one past the cells, takes the stub's syscall (a ptrace stop under
 * iotrace; here, made uncounted) and still moves its bytes.
 */
static void test_two_fds(void)
{
	int p[2], null = open("/dev/null", O_WRONLY), other = dup(null);
	int slot = fakes[F_SPLICE].slot, sf = fakes[F_SENDFILE].slot;
	int mem = memfd_create("two-fds", 0);
	struct rw_cell *c;
	long r1, r2, r3;

	if (pipe(p) || null < 0 || other < 0 || mem < 0 ||
	    write(mem, "0123456789", 10) != 10) {
		ok(0, "a pipe, /dev/null twice, a memfd");
		return;
	}
	memset(C, 0, sizeof(*C));
	c = &C->cell[slot][p[0]];
	r1 = write(p[1], "abcdef", 6) == 6 ?
	     entry(F_SPLICE)(p[0], 0, null, 0, 4096, 0) : -1;
	ok(r1 == 6 && cell_is(c, 1, 0, 6, 4096, 1) && c->fd2 ==
	   (uint64_t)null + 1, "splice of 6 bytes asked 4096: the pipe's "
	   "cell counts it, to /dev/null's fd (%ld)", r1);
	r2 = write(p[1], "ghi", 3) == 3 ?
	     entry(F_SPLICE)(p[0], 0, other, 0, 3, 0) : -1;
	ok(r2 == 3 && cell_is(c, 1, 0, 6, 4096, 1) && c->fd2 ==
	   (uint64_t)null + 1, "to another fd: through the stub, the cell "
	   "kept as it was (%ld)", r2);
	r3 = write(p[1], "jk", 2) == 2 ?
	     entry(F_SPLICE)(p[0], 0, null, 0, 2, 0) : -1;
	ok(r3 == 2 && cell_is(c, 2, 0, 8, 4098, 1),
	   "to its own fd again: counted (%ld)", r3);
	is_int(entry(F_SPLICE)(p[0], 0, 300, 0, 1, 0), -EBADF,
	       "a destination past the cells: the stub's syscall's EBADF");
	ok(cell_is(c, 2, 0, 8, 4098, 1) && hist_sum(slot) == 2,
	   "and nothing counted for it");
	c = &C->cell[sf][mem];
	lseek(mem, 0, SEEK_SET);
	is_int(entry(F_SENDFILE)(null, mem, 0, 100, 0, 0), 10,
	       "sendfile of a 10-byte memfd to /dev/null");
	ok(cell_is(c, 1, 0, 10, 100, 1) && c->fd2 == (uint64_t)null + 1,
	   "the in fd's cell (arg 1), its out fd (arg 0) claimed, the size "
	   "from r10");
	close(p[0]);
	close(p[1]);
	close(null);
	close(other);
	close(mem);
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
	test_extremes();
	test_extremes_threads();
	test_races();
	test_einval();
	test_size_max();
	test_size_max_threads();
	test_forced_results();
	test_samples();
	test_two_fds();
	/* The twins, as a process of one thread runs them: the same
	   counts from the same calls, one thread at a time. */
	ok(unlock_fakes() == 0, "every trampoline made its twin");
	printf("# the twins\n");
	test_write_counted();
	test_histogram_ends();
	test_write_error();
	test_read_short();
	test_noreg_and_r8();
	test_extremes();
	test_einval();
	test_size_max();
	test_forced_results();
	test_samples();
	test_two_fds();
	return done_testing();
}
