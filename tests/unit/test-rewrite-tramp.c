// SPDX-License-Identifier: MIT
/*
 * Unit tests of the fast path's machine code (tracer/rewrite/tramp.c):
 * fake libc call sites (`mov $NR,%eax; syscall; ret`) in a region of
 * this process, rewritten as iotrace rewrites a program's (site -> jmp
 * rel32 -> island -> trampoline), then called as C functions.  What the
 * program sees must be what the plain syscall gives it, to the register
 * and to the red zone; what the counters see is exact.  A traced child
 * then stops inside a trampoline, in its syscall or before it, and
 * rw_tramp_leave() must take it back to the site as if it had never
 * left.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include "tracer/rewrite/rewrite.h"
#include "tests/unit/tap.h"

/* --- the fake sites, their islands and trampolines --- */

enum { F_WRITE, F_READ, F_GETPID, F_MMAP, F_ZERO, F_CLAMP, F_N };

/* ns = ticks, through the 128-bit product: (t * 2^62) >> 62. */
#define TICKS (1ULL << 62), 62

static const struct fake {
	int nr, slot;
	enum rw_reg fd_reg;
	bool moves_data;
	uint64_t mult;
	unsigned shift;
	uint8_t pre[3];		/* before the mov: glibc's mmap moves its
				   4th argument from rcx to r10 */
	size_t npre;
} fakes[F_N] = {
	[F_WRITE] = { 1, 3, RW_RDI, true, TICKS, { 0 }, 0 },
	[F_READ] = { 0, 5, RW_RDI, true, TICKS, { 0 }, 0 },
	[F_GETPID] = { 39, 7, RW_NOREG, false, TICKS, { 0 }, 0 },
	[F_MMAP] = { 9, 9, RW_R8, false, TICKS, { 0x49, 0x89, 0xca }, 3 },
	/* the histogram's ends: always 0 ns; 2^64 - ticks ns */
	[F_ZERO] = { 1, 11, RW_RDI, true, 0, 0, { 0 }, 0 },
	[F_CLAMP] = { 1, 12, RW_RDI, true, ~0ULL, 0, { 0 }, 0 },
};

#define REGION 0x2000
#define AT_SITE(i) (0x40 * (i))		/* page 0: sites, then islands */
#define AT_ISLAND(i) (0x400 + 0x20 * (i))
#define AT_TRAMP(i) (0x1000 + 0x100 * (i))	/* page 1 */

static uint8_t *region;
static struct rw_counters *C;		/* shared with forked children */
static struct rw_tramp_spec spec[F_N];
static size_t tramp_len[F_N];

typedef long (*site_fn)(long, long, long, long, long, long);

static site_fn entry(int f)
{
	return (site_fn)(void *)(region + AT_SITE(f));
}

static void fill_spec(int f)
{
	const struct fake *k = &fakes[f];

	spec[f] = (struct rw_tramp_spec){
		.at = (uint64_t)(region + AT_TRAMP(f)),
		.site = (uint64_t)(region + AT_SITE(f) + k->npre),
		.nr = k->nr,
		.slot = k->slot,
		.fd_reg = k->fd_reg,
		.moves_data = k->moves_data,
		.counters = (uint64_t)C,
		.mult = k->mult,
		.shift = k->shift,
	};
}

static void build_fake(int f)
{
	const struct fake *k = &fakes[f];
	uint8_t *s = region + AT_SITE(f);
	uint8_t tail[8] = { 0xb8, 0, 0, 0, 0, 0x0f, 0x05, 0xc3 };
	uint64_t island = (uint64_t)(region + AT_ISLAND(f));

	memcpy(tail + 1, &k->nr, 4);
	memcpy(s, k->pre, k->npre);
	memcpy(s + k->npre, tail, sizeof(tail));
	fill_spec(f);
	tramp_len[f] = rw_tramp_emit(region + AT_TRAMP(f), &spec[f]);
	rw_island_emit(region + AT_ISLAND(f), spec[f].at);
	if (!rw_site_patch(s + k->npre, spec[f].site, island))
		tramp_len[f] = 0;
}

static int setup(void)
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

static unsigned bucket_of(uint64_t ns)
{
	unsigned b = ns ? 63 - (unsigned)__builtin_clzll(ns) : 0;

	return b < RW_HIST ? b : RW_HIST - 1;
}

static uint64_t hist_sum(int slot)
{
	uint64_t n = 0;
	int b;

	for (b = 0; b < RW_HIST; b++)
		n += C->hist[slot][b];
	return n;
}

/* --- what the generator emits --- */

static void test_emit(void)
{
	struct rw_tramp_spec s = spec[F_WRITE];
	uint8_t buf[RW_TRAMP_MAX];
	size_t len, longest = 0;
	int r, m;

	for (r = RW_NOREG; r <= RW_R9; r++) {
		for (m = 0; m < 2; m++) {
			s.fd_reg = r;
			s.moves_data = m;
			len = rw_tramp_emit(buf, &s);
			longest = len > longest ? len : longest;
			ok(len > 0 && len <= RW_TRAMP_MAX,
			   "fd register %d, moves %d: %zu bytes", r, m, len);
		}
	}
	printf("# longest trampoline: %zu bytes\n", longest);
	s = spec[F_WRITE];
	s.slot = RW_SLOTS;
	is_int(rw_tramp_emit(buf, &s), 0, "no trampoline for slot RW_SLOTS");
	s = spec[F_WRITE];
	s.shift = 64;
	is_int(rw_tramp_emit(buf, &s), 0, "nor for a shift of 64");
	s = spec[F_WRITE];
	s.fd_reg = RW_R9 + 1;
	is_int(rw_tramp_emit(buf, &s), 0, "nor for a register it lacks");
	for (r = 0; r < F_N; r++)
		ok(tramp_len[r] > 0, "fake %d: site, island, trampoline", r);
}

static void test_island_and_patch(void)
{
	uint8_t isl[RW_ISLAND_LEN], site[RW_SITE_LEN] = { 0xb8, 1, 0, 0, 0 };
	static const uint8_t want_isl[RW_ISLAND_LEN] = {
		0xff, 0x25, 0, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33,
		0x22, 0x11 };
	static const uint8_t want_site[RW_SITE_LEN] = { 0xe9, 0xfb, 0x0f, 0, 0 };
	uint64_t at = 0x7f0000001000;

	rw_island_emit(isl, 0x1122334455667788);
	ok(!memcmp(isl, want_isl, sizeof(isl)), "island: jmp *0(%%rip); .quad");
	ok(rw_site_patch(site, at, at + 0x1000) &&
	   !memcmp(site, want_site, sizeof(site)),
	   "site: jmp rel32 from its end");
	ok(rw_site_patch(site, at, at + 5 + INT32_MAX), "reach: +2^31 - 1");
	ok(rw_site_patch(site, at, at + 5 - 0x80000000ULL), "reach: -2^31");
	memcpy(site, want_site, sizeof(site));
	ok(!rw_site_patch(site, at, at + 5 + 0x80000000ULL) &&
	   !rw_site_patch(site, at, at + 4 - 0x80000000ULL) &&
	   !memcmp(site, want_site, sizeof(site)),
	   "an island out of rel32 reach is refused, the bytes untouched");
}

/* --- calls through the trampolines, in this process --- */

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
	ok(c->calls == 1 && c->done == 1 && c->bytes == 5 && c->errors == 0,
	   "its cell: 1 call, done, 5 bytes, no error (%lu %lu %lu %lu)",
	   (unsigned long)c->calls, (unsigned long)c->done,
	   (unsigned long)c->bytes, (unsigned long)c->errors);
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
	ok(c->calls == 1 && c->done == 1 && c->errors == 1 && c->bytes == 0,
	   "counted as an error, no bytes");
	is_int(hist_sum(fakes[F_WRITE].slot), 1, "its time in the histogram");
}

static void test_fd_out_of_cells(void)
{
	struct rw_counters *before = malloc(sizeof(*C));
	char got[8] = "";
	int p[2];

	if (!before || pipe(p) || dup2(p[1], 300) != 300) {
		ok(0, "a pipe at fd 300");
		free(before);
		return;
	}
	memcpy(before, C, sizeof(*C));
	is_int(entry(F_WRITE)(300, (long)"world", 5, 0, 0, 0), 5,
	       "fd 300 (>= RW_FDS) takes the original syscall");
	ok(read(p[0], got, sizeof(got)) == 5 && !memcmp(got, "world", 5),
	   "the write happens");
	ok(!memcmp(before, C, sizeof(*C)), "nothing is counted");
	close(300);
	close(p[0]);
	close(p[1]);
	free(before);
}

static void test_noreg_and_r8(void)
{
	struct rw_cell *c0 = &C->cell[fakes[F_GETPID].slot][0], *cm;
	int fd = memfd_create("tramp", 0);
	long r;

	memset(C, 0, sizeof(*C));
	is_int(entry(F_GETPID)(0, 0, 0, 0, 0, 0), getpid(),
	       "getpid (no fd) through the trampoline");
	ok(c0->calls == 1 && c0->done == 1 && c0->bytes == 0,
	   "counted in cell 0, no bytes");
	if (fd < 0 || ftruncate(fd, 4096)) {
		ok(0, "a memfd");
		return;
	}
	cm = &C->cell[fakes[F_MMAP].slot][fd];
	r = entry(F_MMAP)(0, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
	ok(r > 0 && *(volatile char *)r == 0 && !munmap((void *)r, 4096),
	   "mmap (fd in r8, a REX register) maps the file");
	ok(cm->calls == 1 && cm->done == 1 && cm->errors == 0 &&
	   cm->bytes == 0, "counted in the fd's cell; an address is no bytes");
	close(fd);
}

/*
 * harness_call(h): every general register but rax, rcx and r11 (the
 * syscall's) loaded from h->in, the 128 bytes below the site's rsp from
 * h->red_in, the site called, then all of them stored back.  The site's
 * rsp is the harness's minus the return address: its red zone is
 * [rsp - 136, rsp - 8) from the harness's rsp, which nothing between the
 * fill and the copy writes.
 */
enum { H_RBX, H_RBP, H_RDX, H_RSI, H_RDI, H_R8, H_R9, H_R10, H_R12, H_R13,
       H_R14, H_R15, H_N };

struct harness {
	uint64_t site;		/*   0 */
	uint64_t rsp_in;	/*   8: before the call */
	uint64_t rsp_out;	/*  16: after it */
	int64_t result;		/*  24: rax after it */
	uint64_t in[H_N];	/*  32 */
	uint64_t out[H_N];	/* 128 */
	uint64_t red_in[16];	/* 224 */
	uint64_t red_out[16];	/* 352 */
	int handled;		/* 480: the child's SIGUSR1 handler ran */
};
_Static_assert(offsetof(struct harness, in) == 32 &&
	       offsetof(struct harness, out) == 128 &&
	       offsetof(struct harness, red_in) == 224 &&
	       offsetof(struct harness, red_out) == 352, "harness_call's offsets");

void harness_call(struct harness *h);
__asm__(
	"	.text\n"
	"	.globl harness_call\n"
	"	.type harness_call, @function\n"
	"harness_call:\n"
	"	push %rbx\n	push %rbp\n	push %r12\n"
	"	push %r13\n	push %r14\n	push %r15\n"
	"	push %rdi\n"
	"	mov %rsp, 8(%rdi)\n"
	"	xor %ecx, %ecx\n"
	"1:	mov 224(%rdi,%rcx,8), %rax\n"
	"	mov %rax, -136(%rsp,%rcx,8)\n"
	"	inc %ecx\n	cmp $16, %ecx\n	jne 1b\n"
	"	mov %rdi, %rax\n"
	"	mov 32(%rax), %rbx\n	mov 40(%rax), %rbp\n"
	"	mov 48(%rax), %rdx\n	mov 56(%rax), %rsi\n"
	"	mov 64(%rax), %rdi\n	mov 72(%rax), %r8\n"
	"	mov 80(%rax), %r9\n	mov 88(%rax), %r10\n"
	"	mov 96(%rax), %r12\n	mov 104(%rax), %r13\n"
	"	mov 112(%rax), %r14\n	mov 120(%rax), %r15\n"
	"	call *(%rax)\n"
	"	mov (%rsp), %r11\n"
	"	mov %rsp, 16(%r11)\n"
	"	mov %rax, 24(%r11)\n"
	"	mov %rbx, 128(%r11)\n	mov %rbp, 136(%r11)\n"
	"	mov %rdx, 144(%r11)\n	mov %rsi, 152(%r11)\n"
	"	mov %rdi, 160(%r11)\n	mov %r8, 168(%r11)\n"
	"	mov %r9, 176(%r11)\n	mov %r10, 184(%r11)\n"
	"	mov %r12, 192(%r11)\n	mov %r13, 200(%r11)\n"
	"	mov %r14, 208(%r11)\n	mov %r15, 216(%r11)\n"
	"	xor %ecx, %ecx\n"
	"2:	mov -136(%rsp,%rcx,8), %rax\n"
	"	mov %rax, 352(%r11,%rcx,8)\n"
	"	inc %ecx\n	cmp $16, %ecx\n	jne 2b\n"
	"	pop %rdi\n"
	"	pop %r15\n	pop %r14\n	pop %r13\n"
	"	pop %r12\n	pop %rbp\n	pop %rbx\n"
	"	ret\n"
	"	.size harness_call, . - harness_call\n");

static struct harness *H;		/* shared with forked children */

/* A call of fake f with (fd, buf, len), every other value a pattern. */
static void harness_fill(int f, long fd, const void *buf, long len)
{
	int i;

	memset(H, 0, sizeof(*H));
	H->site = (uint64_t)entry(f);
	for (i = 0; i < H_N; i++)
		H->in[i] = 0x0101010101010101ULL * (uint64_t)(i + 1) ^
			   0x8000000000000000ULL;
	H->in[H_RDI] = (uint64_t)fd;
	H->in[H_RSI] = (uint64_t)buf;
	H->in[H_RDX] = (uint64_t)len;
	for (i = 0; i < 16; i++)
		H->red_in[i] = 0xa5a5a5a500000000ULL | (uint64_t)i;
}

static bool harness_intact(void)
{
	return !memcmp(H->in, H->out, sizeof(H->in)) &&
	       !memcmp(H->red_in, H->red_out, sizeof(H->red_in)) &&
	       H->rsp_in == H->rsp_out;
}

static void test_registers_kept(void)
{
	int p[2];
	char got[8];

	if (pipe(p) || dup2(p[1], 300) != 300) {
		ok(0, "a pipe");
		return;
	}
	harness_fill(F_WRITE, p[1], "regs", 4);
	harness_call(H);
	is_int(H->result, 4, "the harness's write returns 4");
	ok(harness_intact(), "every register but rax, rcx, r11 and the red "
	   "zone are as before the call");
	harness_fill(F_WRITE, 300, "regs", 4);
	harness_call(H);
	ok(H->result == 4 && harness_intact(),
	   "so on the way to the original syscall (fd 300)");
	close(200);
	harness_fill(F_WRITE, 200, "regs", 4);
	harness_call(H);
	ok(H->result == -EBADF && harness_intact(), "and on an error");
	ok(read(p[0], got, sizeof(got)) == 8, "the writes happened");
	close(300);
	close(p[0]);
	close(p[1]);
}

/* --- a traced child stopped inside a trampoline --- */

static int read_child(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	if (process_vm_readv(*(pid_t *)ctx, &local, 1, &remote, 1, 0) !=
	    (ssize_t)n)
		return -EFAULT;
	return 0;
}

static int read_fails(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx, (void)addr, (void)buf, (void)n;
	return -EIO;
}

static bool in_tramp(int f, uint64_t ip)
{
	return ip >= spec[f].at && ip < spec[f].at + tramp_len[f];
}

/* Whether pid is blocked in syscall nr at an ip inside fake f's
 * trampoline (/proc/PID/syscall: "nr args... sp pc"). */
static bool blocked_in_tramp(pid_t pid, long nr, int f)
{
	char path[64], buf[256], *pc;
	long got;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	buf[0] = '\0';
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	pc = strrchr(buf, ' ');
	return sscanf(buf, "%ld", &got) == 1 && got == nr && pc &&
	       in_tramp(f, strtoull(pc + 1, NULL, 16));
}

static int child_status(pid_t pid)
{
	int st = -1;

	waitpid(pid, &st, 0);
	return st;
}

static void child_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void on_usr1(int sig)
{
	(void)sig;
	H->handled = 1;
}

/* The registers the program has at the site: H->in, rsp below the
 * return address. */
static bool regs_at_site(const struct user_regs_struct *r)
{
	const unsigned long long got[H_N] = {
		r->rbx, r->rbp, r->rdx, r->rsi, r->rdi, r->r8, r->r9,
		r->r10, r->r12, r->r13, r->r14, r->r15,
	};
	int i;

	for (i = 0; i < H_N; i++)
		if (got[i] != H->in[i])
			return false;
	return r->rsp == H->rsp_in - 8;
}

/*
 * A read on an empty pipe, interrupted by SIGUSR1 (no SA_RESTART): at
 * the signal-delivery stop the task is in the trampoline's syscall;
 * taken to site + 7 with -ERESTARTSYS kept, the kernel turns that into
 * -EINTR as it would after the original syscall.
 */
static void test_leave_in_syscall(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	struct user_regs_struct regs;
	struct rw_cell *c;
	uint64_t ns;
	char buf[16];
	bool uncount;
	pid_t pid;
	int p[2], i, st;

	if (pipe(p))
		return;
	memset(C, 0, sizeof(*C));
	c = &C->cell[fakes[F_READ].slot][p[0]];
	harness_fill(F_READ, p[0], buf, sizeof(buf));
	pid = fork();
	if (pid == 0) {
		sigaction(SIGUSR1, &sa, NULL);
		harness_call(H);
		_exit(0);
	}
	ptrace(PTRACE_SEIZE, pid, 0L, PTRACE_O_EXITKILL);
	for (i = 0; i < 5000 && !blocked_in_tramp(pid, 0, F_READ); i++)
		usleep(1000);
	kill(pid, SIGUSR1);
	st = child_status(pid);
	if (!ok(WIFSTOPPED(st) && WSTOPSIG(st) == SIGUSR1,
		"the child stops at SIGUSR1's delivery (0x%x)", st) ||
	    ptrace(PTRACE_GETREGS, pid, 0L, &regs)) {
		child_kill(pid);
		return;
	}
	is_int(rw_tramp_leave(&spec[F_READ], regs.rip, &regs, __rdtsc(),
			      read_child, &pid, &uncount, &ns),
	       RW_AT_SYSCALL, "stopped in the trampoline's syscall");
	ok(regs.rip == spec[F_READ].site + 7 && regs.rcx == regs.rip,
	   "taken to site + 7, rcx as the original syscall leaves it");
	ok(regs_at_site(&regs), "rsp and the saved registers as at the site");
	ok((long long)regs.rax == -512 && !uncount && ns > 0,
	   "rax -ERESTARTSYS kept, the entry stays counted, it ran %lu ns",
	   (unsigned long)ns);
	ok(c->calls == 1 && c->done == 0, "counted in flight: 1 call, 0 done");
	ptrace(PTRACE_SETREGS, pid, 0L, &regs);
	ptrace(PTRACE_CONT, pid, 0L, (void *)(long)SIGUSR1);
	st = child_status(pid);
	ok(WIFEXITED(st) && H->handled, "the handler ran, the child exited");
	is_int(H->result, -EINTR, "read returned -EINTR at site + 7");
	ok(harness_intact(), "registers and red zone intact after it");
	is_int(c->done, 0, "the trampoline's tail never ran: iotrace counts "
	       "the call done");
	close(p[0]);
	close(p[1]);
}

static int step(pid_t pid, struct user_regs_struct *r)
{
	int st;

	if (ptrace(PTRACE_SINGLESTEP, pid, 0L, 0L))
		return -1;
	st = child_status(pid);
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return -1;
	return ptrace(PTRACE_GETREGS, pid, 0L, r) ? -1 : 0;
}

/*
 * A child making H's call of fake f, stopped k instructions into the
 * trampoline (or where it went if it left): single-stepped from a
 * SIGUSR2 it raises before the call, that signal discarded.  *site: its
 * registers at the site.  The pid, or -1 (the child killed).
 */
static pid_t child_stepped(int f, int k, struct user_regs_struct *site,
			   struct user_regs_struct *now)
{
	int go[2], n;
	pid_t pid;
	char c;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		raise(SIGUSR2);
		harness_call(H);
		_exit(0);
	}
	close(go[0]);
	ptrace(PTRACE_SEIZE, pid, 0L, PTRACE_O_EXITKILL);
	n = (int)write(go[1], "g", 1);
	close(go[1]);
	if (n != 1 || child_status(pid) != (SIGUSR2 << 8 | 0x7f))
		goto out_kill;
	for (n = 0; n < 100000 && now->rip != spec[f].site; n++)
		if (step(pid, now))
			goto out_kill;
	*site = *now;
	for (n = 0; n < 2; n++)	/* the site's jmp, the island's */
		if (step(pid, now))
			goto out_kill;
	for (n = 0; n < k && in_tramp(f, now->rip); n++)
		if (step(pid, now))
			goto out_kill;
	return pid;
out_kill:
	child_kill(pid);
	return -1;
}

static uint64_t slot_calls(int slot)
{
	uint64_t n = 0;
	int fd;

	for (fd = 0; fd < RW_FDS; fd++)
		n += C->cell[slot][fd].calls;
	return n;
}

static bool regs_same_but_dead(struct user_regs_struct a,
			       const struct user_regs_struct *b)
{
	a.rax = b->rax;		/* the site's mov sets it */
	a.eflags = b->eflags;	/* the syscall's "cc" */
	return !memcmp(&a, b, sizeof(a));
}

/*
 * An unreadable stack undoes all (what the good one does) or nothing;
 * *nothing counts the stops it had to read at.
 */
static bool all_or_nothing(const struct user_regs_struct *stop,
			   const struct user_regs_struct *undone, int *nothing)
{
	struct user_regs_struct r = *stop;
	bool uncount;
	uint64_t ns;
	enum rw_at at = rw_tramp_leave(&spec[F_READ], stop->rip, &r, 0,
				       read_fails, NULL, &uncount, &ns);

	if (at == RW_AT_AFTER) {
		++*nothing;
		return !memcmp(&r, stop, sizeof(r)) && !uncount;
	}
	return at == RW_AT_BEFORE && !memcmp(&r, undone, sizeof(r));
}

/* After leave: the child, resumed, must make its call once, normally. */
static bool resumed_completes(pid_t pid, const struct user_regs_struct *r,
			      long fd)
{
	struct rw_cell *c = &C->cell[fakes[F_READ].slot][fd % RW_FDS];
	int st;

	ptrace(PTRACE_SETREGS, pid, 0L, r);
	ptrace(PTRACE_CONT, pid, 0L, 0L);
	st = child_status(pid);
	if (!WIFEXITED(st) || H->result != 16 || !harness_intact())
		return false;
	if (fd >= RW_FDS)
		return slot_calls(fakes[F_READ].slot) == 0;
	return c->calls == 1 && c->done == 1 && c->bytes == 16;
}

/*
 * A read of 16 bytes waiting in a pipe, stopped after each of the
 * trampoline's instructions in turn, up to the first stop past its
 * syscall (RW_AT_AFTER) or out of it (fd >= RW_FDS: the original
 * syscall's way).  Each stop before the syscall must go back to the
 * site with the site's registers, uncount exactly when the entry was
 * counted, and the call made again must complete once.
 */
static void test_leave_before(bool big_fd)
{
	struct user_regs_struct site, now, r;
	int p[2], k, slot = fakes[F_READ].slot, nothing = 0;
	bool uncount, all_or_none = true, ended = false;
	char buf[16];
	uint64_t ns;
	long fd;
	pid_t pid;

	if (pipe(p) || (big_fd && dup2(p[0], 300) != 300))
		return;
	fd = big_fd ? 300 : p[0];
	for (k = 0; k < 64 && !ended; k++) {
		memset(C, 0, sizeof(*C));
		harness_fill(F_READ, fd, buf, sizeof(buf));
		if (write(p[1], "0123456789abcdef", 16) != 16 ||
		    (pid = child_stepped(F_READ, k, &site, &now)) < 0) {
			ok(0, "fd %ld, %d steps in: a stopped child", fd, k);
			break;
		}
		r = now;
		switch (rw_tramp_leave(&spec[F_READ], now.rip, &r, __rdtsc(),
				       read_child, &pid, &uncount, &ns)) {
		case RW_AT_BEFORE:
			ok(r.rip == site.rip && regs_same_but_dead(r, &site),
			   "fd %ld, %d steps in: before the syscall; back at "
			   "the site, its registers", fd, k);
			is_int(uncount, slot_calls(slot), "fd %ld, %d steps "
			       "in: uncounted iff counted", fd, k);
			all_or_none &= all_or_nothing(&now, &r, &nothing);
			if (uncount)
				C->cell[slot][fd].calls--;
			ok(resumed_completes(pid, &r, fd), "fd %ld, %d steps "
			   "in: resumed, the call is made once", fd, k);
			break;
		case RW_AT_SYSCALL:
			ok(0, "fd %ld, %d steps in: in no syscall", fd, k);
			child_kill(pid);
			break;
		case RW_AT_AFTER:
			ended = true;
			ok(!memcmp(&r, &now, sizeof(r)) && !uncount &&
			   (in_tramp(F_READ, now.rip) ? now.rax == 16 :
			    now.rip == spec[F_READ].site + 5),
			   "fd %ld, %d steps in: %s; registers untouched", fd,
			   k, in_tramp(F_READ, now.rip) ? "after the syscall"
			   : "out of the trampoline");
			ok(resumed_completes(pid, &r, fd), "fd %ld, %d steps "
			   "in: resumed, the call completes", fd, k);
			break;
		}
	}
	ok(ended, "fd %ld: the steps reach the syscall's end", fd);
	ok(all_or_none && (big_fd || nothing > 0), "fd %ld: an unreadable "
	   "stack undoes all or nothing (nothing at %d stops)", fd, nothing);
	if (big_fd)
		close(300);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	H = mmap(NULL, sizeof(*H), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (H == MAP_FAILED || setup()) {
		ok(0, "the fake sites are set up");
		return done_testing();
	}
	test_emit();
	test_island_and_patch();
	test_write_counted();
	test_histogram_ends();
	test_write_error();
	test_fd_out_of_cells();
	test_noreg_and_r8();
	test_registers_kept();
	test_leave_in_syscall();
	test_leave_before(false);
	test_leave_before(true);
	return done_testing();
}
