// SPDX-License-Identifier: MIT
/*
 * Unit tests of the fast path's machine code (tracer/rewrite/tramp.c),
 * on the fake sites of rewrite-fakes.h: each emitted variant keeps the
 * template's rules (decoded here), islands and site patches are the
 * bytes they must be, and what the program sees through a trampoline
 * is what the plain syscall gives it, to the register and to the red
 * zone.  A traced child then stops inside a trampoline, in its syscall
 * or before it, and rw_tramp_leave() must take it back to the site as
 * if it had never left, with nothing counted.  What the counters see
 * is test-rewrite-count.c's.
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
#include <Zydis/Zydis.h>
#include "tracer/rewrite/rewrite.h"
#include "tests/unit/rewrite-fakes.h"
#include "tests/unit/tap.h"

/* --- what the generator emits --- */

static const char *operand_breaks(const ZydisDecodedInstruction *in,
				  const ZydisDecodedOperand *op)
{
	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		switch (ZydisRegisterGetClass(op->reg.value)) {
		case ZYDIS_REGCLASS_X87: case ZYDIS_REGCLASS_MMX:
		case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM:
		case ZYDIS_REGCLASS_ZMM: case ZYDIS_REGCLASS_TMM:
		case ZYDIS_REGCLASS_MASK:
			return "a vector register";
		default:
			return NULL;
		}
	}
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ||
	    in->mnemonic == ZYDIS_MNEMONIC_PUSH)
		return NULL;
	if (!(in->attributes & ZYDIS_ATTRIB_HAS_LOCK))
		return "a memory write with no lock prefix";
	if (op->mem.base != ZYDIS_REGISTER_RBX &&
	    op->mem.base != ZYDIS_REGISTER_R11)
		return "a locked write off the counters' base registers";
	return NULL;
}

/*
 * The rules of tramp-tmpl.S's header that the code shows by itself, or
 * NULL: no call or ret; no vector register; every memory write but a
 * push a lock-prefixed one into the counters (rbx: the cell; r11: the
 * histogram or errno row).  Decoded up to the first constant its
 * rip-relative operands read.
 */
static const char *tramp_breaks_rules(const uint8_t *code, size_t len)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	size_t off = 0, end = len;
	const char *why;
	int i;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	while (off < end) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + off,
							 len - off, &in, op)))
			return "bytes that do not decode";
		if (in.meta.category == ZYDIS_CATEGORY_CALL ||
		    in.meta.category == ZYDIS_CATEGORY_RET)
			return "a call or ret";
		for (i = 0; i < in.operand_count; i++) {
			size_t to = off + in.length +
				    (size_t)op[i].mem.disp.value;

			if ((why = operand_breaks(&in, &op[i])))
				return why;
			if (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			    op[i].mem.base == ZYDIS_REGISTER_RIP && to < end)
				end = to;
		}
		off += in.length;
	}
	return off == end ? NULL : "code running into its constants";
}

static void test_emit(void)
{
	static const enum rw_reg no_size[] = { RW_NOREG - 1, RW_RDI, RW_RSI,
		RW_R10, RW_R8, RW_R9, RW_R9 + 1 };
	struct rw_tramp_spec s = spec[F_WRITE];
	uint8_t buf[RW_TRAMP_MAX];
	size_t len, shortest = RW_TRAMP_MAX, longest = 0;
	const char *why;
	int r, m, z;

	for (r = RW_NOREG; r <= RW_R9; r++) {
		for (m = 0; m < 4; m++) {
			s.fd_reg = r;
			s.moves_data = m & 1;
			s.size_reg = m & 2 ? RW_RDX : RW_NOREG;
			len = rw_tramp_emit(buf, &s);
			longest = len > longest ? len : longest;
			shortest = len && len < shortest ? len : shortest;
			why = len ? tramp_breaks_rules(buf, len) : "none";
			ok(len > 0 && len <= RW_TRAMP_MAX && !why,
			   "fd register %d, moves %d, size %d: %zu bytes, "
			   "in the rules (%s)", r, m & 1, s.size_reg, len,
			   why ? why : "kept");
		}
	}
	printf("# trampolines: %zu to %zu bytes\n", shortest, longest);
	s = spec[F_WRITE];
	for (z = 0; z < (int)(sizeof(no_size) / sizeof(*no_size)); z++) {
		s.size_reg = no_size[z];
		is_int(rw_tramp_emit(buf, &s), 0, "no trampoline for a size "
		       "in register %d", no_size[z]);
	}
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
	uint64_t ns;
	char buf[16];
	bool uncount;
	pid_t pid;
	int p[2], i, st;

	if (pipe(p))
		return;
	memset(C, 0, sizeof(*C));
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
	   "rax -ERESTARTSYS kept, nothing to uncount, it ran %lu ns",
	   (unsigned long)ns);
	ok(slot_clean(fakes[F_READ].slot), "nothing counted in its syscall");
	ptrace(PTRACE_SETREGS, pid, 0L, &regs);
	ptrace(PTRACE_CONT, pid, 0L, (void *)(long)SIGUSR1);
	st = child_status(pid);
	ok(WIFEXITED(st) && H->handled, "the handler ran, the child exited");
	is_int(H->result, -EINTR, "read returned -EINTR at site + 7");
	ok(harness_intact(), "registers and red zone intact after it");
	ok(slot_clean(fakes[F_READ].slot) && !err_total(), "the trampoline's "
	   "end never ran, nothing is counted: iotrace counts the call");
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
		return slot_clean(fakes[F_READ].slot);
	return cell_is(c, 1, 0, 16, 16, 0) &&
	       hist_sum(fakes[F_READ].slot) == 1;
}

/*
 * A read of 16 bytes waiting in a pipe, stopped after each of the
 * trampoline's instructions in turn, up to the first stop past its
 * syscall (RW_AT_AFTER) or out of it (fd >= RW_FDS: the original
 * syscall's way).  Each stop before the syscall must go back to the
 * site with the site's registers, nothing counted (the call counts at
 * its end) and nothing to uncount, and the call made again must complete
 * and count once.
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
			ok(!uncount && slot_clean(slot), "fd %ld, %d steps "
			   "in: nothing counted, nothing to uncount", fd, k);
			all_or_none &= all_or_nothing(&now, &r, &nothing);
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
			ok(slot_clean(slot), "fd %ld, %d steps in: not counted "
			   "yet", fd, k);
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
	test_fd_out_of_cells();
	test_registers_kept();
	test_leave_in_syscall();
	test_leave_before(false);
	test_leave_before(true);
	return done_testing();
}
