/* SPDX-License-Identifier: MIT */
/*
 * The fake call sites the fast path's trampoline tests share
 * (test-rewrite-tramp.c: what the program sees; test-rewrite-count.c:
 * what the counters see): `mov $NR,%eax; syscall; ret`, or glibc's read
 * (`xor %eax,%eax; syscall; cmp $-4096,%rax` and a test of its flags),
 * in a region of the test's own, rewritten as iotrace rewrites a
 * program's (site -> jmp rel32 -> island -> trampoline, the island's
 * stub back to the site), then called as C functions; the counters in
 * shared memory, so forked children count into them too.
 */
#ifndef IOTRACE_REWRITE_FAKES_H
#define IOTRACE_REWRITE_FAKES_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "tracer/rewrite/rewrite.h"

/* --- the fake sites, their islands and trampolines --- */

enum { F_WRITE, F_READ, F_GETPID, F_MMAP, F_ZERO, F_CLAMP,
       F_RD00, F_RD01, F_RD10, F_RD11, F_XREAD, F_XLATE, F_SWRITE, F_SXREAD,
       F_SPLICE, F_SENDFILE, F_LWRITE, F_N };

/* ns = ticks, through the 128-bit product: (t * 2^62) >> 62. */
#define TICKS (1ULL << 62), 62

static const struct fake {
	int nr, slot;
	enum rw_reg fd_reg;
	bool moves_data;
	enum rw_reg size_reg;
	uint64_t mult;
	unsigned shift;
	uint8_t pre[5];		/* before the mov: glibc's mmap moves its
				   4th argument from rcx to r10 */
	size_t npre;
	bool xor;		/* the xor shape (read), else the mov one */
	bool late;		/* left unpatched by setup() */
	uint64_t sample;	/* -k's 1 call in sample to the stub */
	bool two_fd;		/* a destination fd in fd2_reg */
	enum rw_reg fd2_reg;
	uint8_t loads;		/* the loads shape: load_bytes' first
				   loads bytes between the mov and syscall */
} fakes[F_N] = {
	[F_WRITE] = { 1, 3, RW_RDI, true, RW_RDX, TICKS, { 0 }, 0, 0, 0 },
	[F_READ] = { 0, 5, RW_RDI, true, RW_RDX, TICKS, { 0 }, 0, 0, 0 },
	[F_GETPID] = { 39, 7, RW_NOREG, false, RW_NOREG, TICKS, { 0 }, 0, 0,
		       0 },
	[F_MMAP] = { 9, 9, RW_R8, false, RW_NOREG, TICKS,
		     { 0x49, 0x89, 0xca }, 3, 0, 0 },
	/* the histogram's ends: always 0 ns; 2^64 - ticks ns */
	[F_ZERO] = { 1, 11, RW_RDI, true, RW_RDX, 0, 0, { 0 }, 0, 0, 0 },
	[F_CLAMP] = { 1, 12, RW_RDI, true, RW_RDX, ~0ULL, 0, { 0 }, 0, 0, 0 },
	/* read with and without bytes (first digit), without and with a
	 * size (second): the results a tracer forces */
	[F_RD00] = { 0, 13, RW_RDI, false, RW_NOREG, TICKS, { 0 }, 0, 0, 0 },
	[F_RD01] = { 0, 14, RW_RDI, false, RW_RDX, TICKS, { 0 }, 0, 0, 0 },
	[F_RD10] = { 0, 15, RW_RDI, true, RW_NOREG, TICKS, { 0 }, 0, 0, 0 },
	[F_RD11] = { 0, 16, RW_RDI, true, RW_RDX, TICKS, { 0 }, 0, 0, 0 },
	/* glibc's read: xor; syscall; cmp, its flags tested after */
	[F_XREAD] = { 0, 17, RW_RDI, true, RW_RDX, TICKS, { 0 }, 0, 1, 0 },
	[F_XLATE] = { 0, 18, RW_RDI, true, RW_RDX, TICKS, { 0 }, 0, 1, 1 },
	/* -k --stack-sample: 1 write in 4, 1 read in 3 through the stub */
	[F_SWRITE] = { 1, 19, RW_RDI, true, RW_RDX, TICKS, { 0 }, 0, 0, 0,
		       4 },
	[F_SXREAD] = { 0, 20, RW_RDI, true, RW_RDX, TICKS, { 0 }, 0, 1, 0,
		       3 },
	/* two-fd calls, their 4th argument moved to r10 as glibc does:
	 * splice(in, off, out, off, len, flags), sendfile(out, in, off,
	 * count) */
	[F_SPLICE] = { 275, 21, RW_RDI, true, RW_R8, TICKS,
		       { 0x49, 0x89, 0xca }, 3, 0, 0, 0, true, RW_RDX },
	[F_SENDFILE] = { 40, 22, RW_RSI, true, RW_R10, TICKS,
			 { 0x49, 0x89, 0xca }, 3, 0, 0, 0, true, RW_RDI },
	/* the loads shape, as glibc's splice with threads: its fd stored
	 * below rsp before the site (mov %rdi,-8(%rsp)), loaded back
	 * between the mov and the syscall (mov -8(%rsp),%edi) */
	[F_LWRITE] = { 1, 23, RW_RDI, true, RW_RDX, TICKS,
		       { 0x48, 0x89, 0x7c, 0x24, 0xf8 }, 5, 0, 0, 0, false,
		       RW_NOREG, 4 },
};
static const uint8_t load_bytes[4] = { 0x8b, 0x7c, 0x24, 0xf8 };

/* The sites' bytes, then their tails: ret for the mov shape; for the xor
 * shape, the flags of its cmp tested as glibc does (ja to the error
 * path), which returns +errno: `ja 1f; ret; 1: neg %rax; ret`. */
static const uint8_t xor_cmp[6] = { 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff };
static const uint8_t xor_site[17] = { 0x31, 0xc0, 0x0f, 0x05,
	0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff,
	0x77, 0x01, 0xc3, 0x48, 0xf7, 0xd8, 0xc3 };

#define REGION 0x4000
#define AT_SITE(i) (0x20 * (i))		/* page 0: sites, then islands */
#define AT_ISLAND(i) (0x400 + RW_ISLAND_LEN * (i))
#define AT_TRAMP(i) (0x1000 + RW_TRAMP_MAX * (i))	/* pages 1.. */
_Static_assert(AT_SITE(F_N) <= AT_ISLAND(0) && AT_ISLAND(F_N) <= 0x1000 &&
	       AT_TRAMP(F_N) <= REGION, "the fakes fit the region");

static uint8_t *region;
static struct rw_counters *C;		/* shared with forked children */
static struct rw_tramp_spec spec[F_N];
static struct rw_site sites[F_N];	/* as rw_sites_find() gives them */
static size_t tramp_len[F_N];

typedef long (*site_fn)(long, long, long, long, long, long);

static inline site_fn entry(int f)
{
	return (site_fn)(void *)(region + AT_SITE(f));
}

static inline void fill_spec(int f)
{
	const struct fake *k = &fakes[f];
	struct rw_site *st = &sites[f];

	*st = (struct rw_site){ .nr = k->nr, .len = 5, .resume = 7 };
	if (k->loads) {
		st->resume = (uint8_t)(7 + k->loads);
		st->pre_len = k->loads;
		memcpy(st->pre, load_bytes, k->loads);
	}
	if (k->xor) {
		*st = (struct rw_site){ .nr = 0, .len = 10, .resume = 10,
					.post_len = sizeof(xor_cmp) };
		memcpy(st->post, xor_cmp, sizeof(xor_cmp));
	}
	spec[f] = (struct rw_tramp_spec){
		.at = (uint64_t)(region + AT_TRAMP(f)),
		.site = (uint64_t)(region + AT_SITE(f) + k->npre),
		.stub = (uint64_t)(region + AT_ISLAND(f) + RW_ISLAND_STUB),
		.resume = st->resume,
		.post_len = st->post_len,
		.nr = k->nr,
		.slot = k->slot,
		.fd_reg = k->fd_reg,
		.two_fd = k->two_fd,
		.fd2_reg = k->fd2_reg,
		.moves_data = k->moves_data,
		.size_reg = k->size_reg,
		.counters = (uint64_t)C,
		.mult = k->mult,
		.shift = k->shift,
		.sample = k->sample,
	};
	memcpy(spec[f].post, st->post, st->post_len);
	spec[f].pre_len = st->pre_len;
	memcpy(spec[f].pre, st->pre, st->pre_len);
}

/* The site's original bytes at s (with its tail). */
static inline void site_bytes(int f, uint8_t *s)
{
	const struct fake *k = &fakes[f];
	uint8_t tail[8 + sizeof(load_bytes)] = { 0xb8, 0, 0, 0, 0, 0x0f,
						   0x05, 0xc3 };

	memcpy(tail + 1, &k->nr, 4);
	if (k->loads) {
		memcpy(tail + 5, load_bytes, k->loads);
		memcpy(tail + 5 + k->loads, "\x0f\x05\xc3", 3);
	}
	memcpy(s, k->pre, k->npre);
	if (k->xor)
		memcpy(s + k->npre, xor_site, sizeof(xor_site));
	else
		memcpy(s + k->npre, tail, sizeof(tail));
}

static inline void build_fake(int f)
{
	uint8_t *s = region + AT_SITE(f), *isl = region + AT_ISLAND(f);
	uint8_t jmp[RW_SITE_MAX];

	site_bytes(f, s);
	fill_spec(f);
	tramp_len[f] = rw_tramp_emit(region + AT_TRAMP(f), &spec[f]);
	if (!rw_island_emit(isl, (uint64_t)isl, &spec[f]) ||
	    !rw_site_patch(jmp, spec[f].site, sites[f].len, (uint64_t)isl))
		tramp_len[f] = 0;
	else if (!fakes[f].late)
		memcpy(s + fakes[f].npre, jmp, sites[f].len);
}

static inline int setup(void)
{
	int f;

	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	C = mmap(NULL, sizeof(*C), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED || C == MAP_FAILED)
		return -errno;
	for (f = 0; f < F_N; f++)
		build_fake(f);
	return mprotect(region, REGION, PROT_READ | PROT_EXEC) ? -errno : 0;
}

/*
 * Every fake's trampoline made its twin, as a process of one thread
 * runs it (rw_tramp_unlock()); the counters' tests then run again.
 */
static inline int unlock_fakes(void)
{
	int f;

	if (mprotect(region, REGION, PROT_READ | PROT_WRITE))
		return -errno;
	for (f = 0; f < F_N; f++)
		if (tramp_len[f] &&
		    !rw_tramp_unlock(region + AT_TRAMP(f), tramp_len[f],
				     &spec[f]))
			return -EINVAL;
	return mprotect(region, REGION, PROT_READ | PROT_EXEC) ? -errno : 0;
}

/* What the fake's tail returns for a call whose syscall gave r: the xor
 * shape's error path returns +errno. */
static inline long site_result(int f, long r)
{
	return fakes[f].xor && r < 0 && r >= -4095 ? -r : r;
}

static inline unsigned bucket_of(uint64_t ns)
{
	unsigned b = ns ? 63 - (unsigned)__builtin_clzll(ns) : 0;

	return b < RW_HIST ? b : RW_HIST - 1;
}

static inline uint64_t hist_sum(int slot)
{
	uint64_t n = 0;
	int b;

	for (b = 0; b < RW_HIST; b++)
		n += C->hist[slot][b];
	return n;
}

/* Every errno count of every slot. */
static inline uint64_t err_total(void)
{
	uint64_t n = 0;
	int s, e;

	for (s = 0; s < RW_SLOTS; s++)
		for (e = 0; e < RW_ERRNOS; e++)
			n += C->err[s][e];
	return n;
}

/* Whether nothing of slot is counted: its cells, histogram, errnos,
 * extremes. */
static inline bool slot_clean(int slot)
{
	static const struct rw_cell zero;
	int i;

	for (i = 0; i < RW_FDS; i++)
		if (memcmp(&C->cell[slot][i], &zero, sizeof(zero)))
			return false;
	for (i = 0; i < RW_ERRNOS; i++)
		if (C->err[slot][i])
			return false;
	return hist_sum(slot) == 0 && !C->max_ns[slot] && !C->nmin_ns[slot];
}

static inline bool cell_is(const struct rw_cell *c, uint64_t calls,
		    uint64_t errors, uint64_t bytes, uint64_t req,
		    uint64_t shorts)
{
	if (c->calls == calls && c->errors == errors && c->bytes == bytes &&
	    c->req == req && c->shorts == shorts)
		return true;
	printf("# cell: calls %llu errors %llu bytes %llu req %llu shorts "
	       "%llu\n", (unsigned long long)c->calls,
	       (unsigned long long)c->errors, (unsigned long long)c->bytes,
	       (unsigned long long)c->req, (unsigned long long)c->shorts);
	return false;
}

static inline bool in_tramp(int f, uint64_t ip)
{
	return ip >= spec[f].at && ip < spec[f].at + tramp_len[f];
}

static inline int child_status(pid_t pid)
{
	int st = -1;

	waitpid(pid, &st, 0);
	return st;
}

static inline void child_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#endif
