// SPDX-License-Identifier: MIT
/*
 * What a call through the fast path costs, measured at the run's start
 * (fast-int.h), so the untraced picture and the times need no guess.  A
 * child of iotrace makes 1-byte writes to /dev/null from a site of its
 * own: untraced first, then under a seccomp filter that, like the run's,
 * lets calls from the trampolines' pages through at its first test, both
 * from the site as it was and from the site rewritten to a trampoline
 * (rewrite.h's code, as the run emits it).  Per round, the medians of
 * its calls: what the trampoline adds to the wall (rewritten - untraced)
 * and what its clock counts that the call untraced would not take (the
 * filter's entry path: filtered - untraced); the figures are the medians
 * over rounds, the range their lowest and highest.  Nothing here runs in
 * iotrace's own process.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include "tracer/rewrite/fast-int.h"

#define CALLS 256		/* per round and way */
#define ROUNDS 7
#define PAGE 4096ul

struct calib_out {
	uint64_t native[ROUNDS], filtered[ROUNDS], tramp[ROUNDS];	/* ticks */
};

typedef long (*site_fn)(long fd, const void *buf, long n);

/* mov $1,%eax; syscall; ret: write(2) as a libc leaf would make it. */
static const uint8_t site_code[] = { 0xb8, 1, 0, 0, 0, 0x0f, 0x05, 0xc3 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of CALLS calls of fn, in ticks a call. */
static uint64_t round_of(site_fn fn, int fd)
{
	uint64_t t[CALLS], t0;
	char c = 0;
	int i;

	for (i = 0; i < CALLS; i++) {
		t0 = __rdtsc();
		fn(fd, &c, 1);
		t[i] = __rdtsc() - t0;
	}
	qsort(t, CALLS, sizeof(*t), cmp_u64);
	return t[CALLS / 2];
}

static int load_filter(uint64_t lo, uint64_t size)
{
	struct sock_filter *bpf = malloc(sizeof(*bpf));
	unsigned short len = 1;
	struct sock_fprog prog;

	if (!bpf)
		return -ENOMEM;
	bpf[0] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	if (rw_filter_allow_pool(&bpf, &len, lo, size) < 0)
		return -ENOMEM;
	prog.len = len;
	prog.filter = bpf;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return -errno;
	return 0;
}

/*
 * The child's side: a page of code (the site twice: as it was, and
 * rewritten to jump to an island in the same page), the trampoline's
 * page at a page-aligned address of its own, counters.
 */
static int measure(struct calib_out *out)
{
	struct rw_tramp_spec s;
	uint8_t *code, *tramp;
	void *cnt;
	int fd, r, err;

	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	tramp = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cnt = mmap(NULL, sizeof(struct rw_counters), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (code == MAP_FAILED || tramp == MAP_FAILED || cnt == MAP_FAILED ||
	    fd < 0 || fd >= RW_FDS)
		return -ENOMEM;
	memcpy(code, site_code, sizeof(site_code));
	memcpy(code + 64, site_code, sizeof(site_code));
	memset(&s, 0, sizeof(s));
	s.at = (uint64_t)tramp;
	s.site = (uint64_t)code + 64;
	s.stub = (uint64_t)code + 128 + RW_ISLAND_STUB;
	s.resume = 7;
	s.nr = SYS_write;
	s.fd_reg = RW_RDI;
	s.moves_data = true;
	s.size_reg = RW_RDX;
	s.counters = (uint64_t)cnt;
	s.mult = 1;	/* its own clock is not read: the rounds' ticks are */
	s.shift = 0;
	if (!rw_tramp_emit(tramp, &s))
		return -EINVAL;
	if (!rw_island_emit(code + 128, (uint64_t)code + 128, &s) ||
	    !rw_site_patch(code + 64, (uint64_t)code + 64, RW_SITE_LEN,
			   (uint64_t)code + 128))
		return -EINVAL;
	if (mprotect(code, PAGE, PROT_READ | PROT_EXEC) < 0 ||
	    mprotect(tramp, PAGE, PROT_READ | PROT_EXEC) < 0)
		return -errno;
	for (r = 0; r < ROUNDS; r++)
		out->native[r] = round_of((site_fn)(void *)code, fd);
	err = load_filter((uint64_t)tramp, PAGE);
	if (err)
		return err;
	for (r = 0; r < ROUNDS; r++) {
		out->filtered[r] = round_of((site_fn)(void *)code, fd);
		out->tramp[r] = round_of((site_fn)(void *)(code + 64), fd);
	}
	return 0;
}

static uint64_t median_of(uint64_t *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_u64);
	return v[ROUNDS / 2];
}

int fast_calibrate_start(struct fast_calib *c)
{
	struct calib_out out;
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	c->pid = fork();
	if (c->pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (!c->pid) {
		close(p[0]);
		memset(&out, 0, sizeof(out));
		if (measure(&out) == 0 &&
		    write(p[1], &out, sizeof(out)) == (ssize_t)sizeof(out))
			_exit(0);
		_exit(1);
	}
	close(p[1]);
	c->fd = p[0];
	return 0;
}

int fast_calibrate_end(struct fast_run *f, struct fast_calib *c)
{
	struct calib_out out;
	uint64_t nat, add[ROUNDS], infl[ROUNDS];
	int status, r;
	ssize_t n;

	n = read(c->fd, &out, sizeof(out));
	close(c->fd);
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(out) || !f)
		return -EIO;
	nat = median_of(out.native);
	for (r = 0; r < ROUNDS; r++) {
		add[r] = out.tramp[r] > nat ? out.tramp[r] - nat : 0;
		infl[r] = out.filtered[r] > nat ? out.filtered[r] - nat : 0;
	}
	qsort(add, ROUNDS, sizeof(*add), cmp_u64);
	f->use->call_lo_ns = rw_tsc_ns(&f->tsc, add[0]);
	f->use->call_hi_ns = rw_tsc_ns(&f->tsc, add[ROUNDS - 1]);
	f->use->inflation_ns = rw_tsc_ns(&f->tsc, median_of(infl));
	return 0;
}
