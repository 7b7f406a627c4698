// SPDX-License-Identifier: MIT
/*
 * The fast path (issue 21; docs/fastpath.md): hot call sites of a
 * program's libc rewritten to trampolines in a pool P whose `syscall`
 * the run's seccomp filter lets through, so the call costs no ptrace
 * stop.  The ptrace engine stays in charge of every task; this header is
 * the part that knows machine code: which sites can be rewritten
 * (sites.c), the code put at them and in the pool (tramp.c), and how a
 * task stopped inside a trampoline is taken back to the site (tramp.c).
 *
 * A site is a `syscall` (0f 05) with the instruction that loads its
 * number before it, in one of two shapes (sites.c):
 *   mov:  `mov $NR,%eax; syscall` (b8 imm32 0f 05): the 5-byte mov
 *         becomes `jmp rel32`; the syscall stays, so any other path to
 *         it still stops under ptrace; back at site + 7;
 *   xor:  `xor %eax,%eax; syscall; cmp $-4096,%rax` (31 c0 0f 05 48 3d
 *         00 f0 ff ff: glibc 2.36's read), 4 bytes before the syscall,
 *         too few for a jmp: the 10 bytes become `jmp rel32` and 5 int3;
 *         the trampoline runs the displaced cmp after the call; back at
 *         site + 10;
 *   loads: `mov $NR,%eax; mov d(%rsp),%reg...; syscall` (glibc 2.36's
 *         splice for a process with threads reloads two arguments from
 *         its frame after its cancellation check): the 5-byte mov
 *         becomes `jmp rel32`, the loads and the syscall stay; the
 *         trampoline runs a copy of the loads (the pre) before anything
 *         else; back after the syscall.
 * The jmp reaches an island near the object (`jmp *0(%rip); .quad T`,
 * then the site's restart stub: `syscall; <post>; jmp rel32 site +
 * resume`) and through it the site's trampoline T in P.  T returns with
 * `jmp *`, never call/ret.  The stub, outside P, is the site's syscall
 * that still stops under ptrace: the trampoline's way for an fd the
 * cells do not cover, and where rw_tramp_leave() puts a call a signal
 * interrupted, so that the kernel's restart goes through it.
 */
#ifndef IOTRACE_REWRITE_H
#define IOTRACE_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RW_SITE_LEN 5		/* the jmp rel32 put at a site's first byte:
				   the fewest bytes a site rewrites */
#define RW_SITE_MAX 10		/* the most (the xor shape) */
#define RW_FILED_MAX (RW_SITE_MAX + 8)	/* a site's bytes checked */
#define RW_POST_MAX 8		/* displaced bytes run after the call */
#define RW_PRE_MAX 10		/* copied loads run before it (rw_pre_ok) */
#define RW_ISLAND_LEN 32	/* jmp *0(%rip); .quad T; the stub: syscall;
				   post; jmp rel32 site + resume; int3s */
#define RW_ISLAND_STUB 14	/* the stub's syscall, from the island */
#define RW_FDS 256		/* fds counted per fd; others: ptrace */
#define RW_SLOTS 64		/* hot calls per run (their counter slots) */
#define RW_HIST 40		/* log2 ns, as PROFILE_HIST_BUCKETS */

#define RW_ERRNOS 134		/* errnos counted apart; others: err[.][0] */

/*
 * The counters of one process: a memfd of its own, mapped at the same
 * address in the process (the trampolines add to it with lock-prefixed
 * instructions) and in iotrace (which reads and folds it).  A call counts
 * once, at the trampoline's end, after its syscall: nothing is counted
 * at its entry, so a call iotrace takes out of a trampoline before or in
 * its syscall (rw_tramp_leave()) is not in the counters, and one that
 * never ends (the task killed in it) is in none.
 *
 * A cell, per slot and fd: calls, their ns, and of their results r:
 * errors (r in -4095..-1), einval (r == -EINVAL, on that path only) and
 * bytes (r > 0, when the call moves data).  With a size register
 * (rw_tramp_spec.size_reg), the size s the program asked for, its value
 * at entry, on every call, failed ones too: req adds it; shorts counts
 * the calls with 0 <= r < s (a short transfer: EOF, a pipe's partial
 * read); size_max is the largest s asked (unsigned, as size_t) and
 * size_max_calls how many calls asked exactly that, the pair updated
 * as one (lock cmpxchg16b: it is 16-byte aligned), so exact under
 * threads; both 0 until a call asks.  Without a size register the four
 * stay 0.
 */
struct rw_cell {
	uint64_t calls; /* calls ended (after the syscall) */
	uint64_t errors, ns, bytes, req, shorts;
	_Alignas(16) uint64_t size_max;
	uint64_t size_max_calls;
	uint64_t einval;
	/*
	 * A two-fd call's cell (splice, sendfile, copy_file_range), per
	 * source fd: 1 + the destination fd its calls had, set by the first
	 * (lock cmpxchg, before its syscall) and never changed, so the cell
	 * counts one (source, destination) pair of fd numbers; a call with
	 * another destination takes the stub's syscall (ptrace).  0: no
	 * call yet.  Fds name files anew only at stops, where the cells of
	 * both are folded, so the pair's files are known at each fold.
	 */
	uint64_t fd2;
};

/*
 * Per slot, besides its cells: the histogram, the errno row, and the
 * extremes of its calls' ns: max_ns[slot] (0: none yet, or all took 0
 * ns: calls says which) and nmin_ns[slot], the minimum's complement
 * (~min: 0 in a zeroed page, so a slot with no call reads ~0, none),
 * each updated only by a call past it (lock cmpxchg), so exact under
 * threads.
 */
struct rw_counters {
	struct rw_cell cell[RW_SLOTS][RW_FDS];
	uint64_t hist[RW_SLOTS][RW_HIST];	/* bucket b: [2^b, 2^(b+1)) ns;
						   0 ns in bucket 0 */
	uint64_t err[RW_SLOTS][RW_ERRNOS];	/* calls that failed with
						   -e (result in -4095..-1),
						   e < RW_ERRNOS; the rest
						   in err[slot][0] */
	uint64_t max_ns[RW_SLOTS], nmin_ns[RW_SLOTS];
	/* -k sampled (rw_tramp_spec.sample): each slot's countdown to its
	   next sample, and the samples sent to the stub whose stop iotrace
	   has not yet taken (fast.c's fast_sampled_ip()). */
	int64_t sample_left[RW_SLOTS];
	uint64_t sample_pending[RW_SLOTS];
	/*
	 * What the fd table's calls through trampolines need.  dirty[fd]:
	 * 1 once a trampoline's call named fd (its cells may hold counts
	 * not folded yet), 0 again as iotrace folds it; a close of a dirty
	 * fd takes the stub's syscall, a stop where the fold finds the fd
	 * still naming its file.  fd_changes: one more at each close and
	 * fcntl made through a trampoline, so iotrace renews what it knows
	 * of the process's fds at its next stop.
	 */
	uint8_t dirty[RW_FDS];
	uint64_t fd_changes;
};

/* The sites of one object, as found in its file (sites.c). */
enum rw_refusal {
	RW_REFUSE_SHAPE,	/* a syscall not after `mov $imm32,%eax`,
				   nor read's xor shape */
	RW_REFUSE_NOT_HOT,	/* its number is not a hot call */
	RW_REFUSE_UNDECODED,	/* not on an instruction boundary of a
				   function the decoder walked */
	RW_REFUSE_TARGET,	/* a branch lands inside the rewritten
				   bytes, past their first */
	RW_REFUSE_N,
};

/*
 * One site.  Its first len bytes are rewritten (rw_site_patch()); the
 * syscall is at vaddr + resume - post_len - 2, and post, the post_len
 * bytes after it, are displaced instructions the trampoline and the
 * stub run after the call (position-independent, verbatim); execution
 * goes on at vaddr + resume.  pre, pre_len bytes from vaddr + 5, are the
 * loads of the loads shape, which stay in place and which the
 * trampoline runs a copy of first.  mov shape: len 5, resume 7, no post
 * (the syscall at vaddr + 5 stays); xor shape: len 10, resume 10, post
 * `cmp $-4096,%rax` (6 bytes); loads shape: len 5, resume 7 + pre_len.
 */
struct rw_site {
	uint64_t vaddr;		/* ELF vaddr of its first byte (add the
				   load bias) */
	uint64_t offset;	/* its offset in the file: a mapping of file
				   offset off at address A has it at
				   A + offset - off */
	int nr;			/* x86_64 syscall number: mov's imm32, or 0 */
	uint8_t len;		/* bytes rewritten: 5 or 10 */
	uint8_t resume;		/* where execution goes on: 7 or 10 */
	uint8_t post_len;
	uint8_t post[RW_POST_MAX];
	uint8_t pre_len;
	uint8_t pre[RW_PRE_MAX];
	/* The file's bytes from vaddr (filed_len of them, as many as its
	   segment has up to RW_FILED_MAX): a process whose bytes there are
	   not these from the first up to max(len, resume) is not patched. */
	uint8_t filed_len;
	uint8_t filed[RW_FILED_MAX];
};

struct rw_sites {
	struct rw_site *site;	/* ascending vaddr; free with rw_sites_free() */
	size_t n;
	size_t syscalls;	/* syscall instructions found in all */
	size_t refused[RW_REFUSE_N];
};

/*
 * The rewritable sites of the ELF object at path (x86_64, ET_DYN or
 * ET_EXEC) whose number nr has hot[nr / 8] & (1 << nr % 8) (hot has 128
 * bytes: numbers 0..1023).  0, or -errno (-ENOEXEC: not an x86_64 ELF).
 */
int rw_sites_find(const char *path, const uint8_t hot[128],
		  struct rw_sites *out);
void rw_sites_free(struct rw_sites *s);

/* Registers of struct user_regs_struct the generator names. */
enum rw_reg { RW_NOREG = -1, RW_RDI, RW_RSI, RW_RDX, RW_R10, RW_R8, RW_R9 };

/* What a call does to the fd table, as its trampoline must know. */
enum rw_fdop {
	RW_FDOP_NONE,		/* nothing (a new fd at most: openat, dup) */
	RW_FDOP_FREES,		/* frees the fd in rdi (close) */
	RW_FDOP_CHANGES,	/* may change what an fd names (fcntl) */
	RW_FDOP_MAPS,		/* maps pages, prot in rdx: executable ones
				   go to the stub's syscall (mmap) */
};

/* What one trampoline does (tramp.c). */
struct rw_tramp_spec {
	uint64_t at;		/* where its code runs, in the pool */
	uint64_t site;		/* the site's first byte in the process */
	uint64_t stub;		/* its restart stub's syscall: the island's
				   address + RW_ISLAND_STUB */
	unsigned resume;	/* back at site + resume (rw_site.resume) */
	unsigned post_len;	/* rw_site.post_len, .post: run after the */
	uint8_t post[RW_POST_MAX];	/* call, by the trampoline and stub */
	unsigned pre_len;	/* rw_site.pre_len, .pre: run first, at at;
				   the template's code follows them */
	uint8_t pre[RW_PRE_MAX];
	int nr;			/* the call, made from the trampoline */
	int slot;		/* 0 .. RW_SLOTS - 1 */
	enum rw_reg fd_reg;	/* the fd argument (cell index); RW_NOREG:
				   cell 0.  An fd outside 0 .. RW_FDS - 1
				   goes to the stub's syscall (ptrace) */
	bool two_fd;		/* a two-fd call: its destination fd in
				   fd2_reg (the cell's fd2); outside 0 ..
				   RW_FDS - 1, or not the cell's, to the
				   stub's syscall */
	enum rw_reg fd2_reg;
	bool moves_data;	/* a result > 0 is bytes moved */
	enum rw_reg size_reg;	/* the size argument (req, shorts, size_max):
				   RW_RDX (read, write, pread64, pwrite64's
				   count), or RW_NOREG: none (readv, writev,
				   lseek, fsync); a two-fd call's own
				   (rw_tramp_shape_ok()) */
	enum rw_fdop fdop;	/* close, fcntl: no fd_reg, no data */
	uint64_t counters;	/* address of struct rw_counters there:
				   the cells, rows and extremes of slot */
	uint64_t mult;		/* ns = (ticks * mult) >> shift */
	unsigned shift;
	uint64_t sample;	/* > 1: 1 call in sample of the slot's in the
				   process takes the stub's syscall, a ptrace
				   stop (-k --stack-sample); else none */
};

/*
 * Whether the template has a trampoline for these registers: any fd
 * register (or none) with the size in rdx or none, the two-fd calls'
 * own: splice and copy_file_range (fd rdi, fd2 rdx, size r8), sendfile
 * (fd rsi, fd2 rdi, size r10), which move data; and close's and fcntl's
 * (fdop: no fd register of the cells', no data).
 */
bool rw_tramp_shape_ok(enum rw_reg fd, bool two_fd, enum rw_reg fd2,
		       enum rw_reg size, bool moves_data, enum rw_fdop fdop);

/*
 * Bytes a trampoline takes at most.  The variants take 286-535 bytes;
 * the longest are the two-fd calls' with -k's samples: two fd checks
 * and dirty marks, the claim of the destination, bytes and a size (its
 * add and compare, the size_max pair's cmpxchg16b loop).  The pool's 4
 * MiB of code hold 7,825 of 536.
 */
#define RW_TRAMP_MAX (536 + RW_PRE_MAX)

/*
 * Writes the trampoline of s into buf (RW_TRAMP_MAX bytes); its length,
 * or 0 (nothing written) for a spec it cannot make: a slot out of the
 * counters, a shift of 64 or more, a negative nr, an fd_reg outside enum
 * rw_reg, a size_reg other than RW_NOREG and RW_RDX, a post that is
 * not instructions it may run anywhere (rw_post_ok()) or a resume
 * before the syscall and post.
 */
size_t rw_tramp_emit(uint8_t *buf, const struct rw_tramp_spec *s);
/*
 * Makes the trampoline rw_tramp_emit() wrote in buf (len bytes) its twin
 * for a process of one thread: each lock prefix of its code a ds (an
 * override 64-bit mode ignores: the instruction stays one), so
 * every offset, and what rw_tramp_leave() knows of each, stays.  The
 * prefixes taken out, or 0 (buf untouched) if its code is not what emit
 * wrote for s (the prefixes' places are its variant's, decoded once).
 */
size_t rw_tramp_unlock(uint8_t *buf, size_t len,
		       const struct rw_tramp_spec *s);
/*
 * The island at address island for s (RW_ISLAND_LEN bytes): jmp *0(%rip)
 * to s->at, then the restart stub at island + RW_ISLAND_STUB (which must
 * be s->stub): syscall; s->post; jmp rel32 s->site + s->resume; int3s.
 * False (buf untouched) if s->stub is elsewhere, the post is refused as
 * by rw_tramp_emit(), or the site is out of rel32 reach.
 */
bool rw_island_emit(uint8_t buf[RW_ISLAND_LEN], uint64_t island,
		    const struct rw_tramp_spec *s);
/*
 * The len bytes (RW_SITE_LEN .. RW_SITE_MAX: rw_site.len) put at site:
 * jmp rel32 to island, then int3s; false if out of reach or len is not
 * one of those.
 */
bool rw_site_patch(uint8_t *buf, uint64_t site, unsigned len,
		   uint64_t island);
/*
 * Where a task stopped at ip must be put (its rip) when st's site, at
 * address site in the process, is patched, its stub at stub: ip itself
 * outside the rewritten bytes or at their first; the stub's syscall for
 * a task about to make the displaced syscall (xor shape: site + 2); the
 * stub's copy of a post instruction for one at that instruction (site +
 * 4: just after the syscall, in it or returned from it, so a restart
 * goes through the stub's syscall as rw_tramp_leave()'s RW_AT_SYSCALL);
 * 0 for an ip no instruction of the site starts at (not for a site
 * rw_sites_find() gave: sites.c refuses those a branch enters).
 */
uint64_t rw_site_move_ip(const struct rw_site *st, uint64_t site,
			 uint64_t stub, uint64_t ip);
/* Whether post (n bytes) is instructions a trampoline or stub may run:
 * decoded whole, arithmetic or logic only (cmp, test...), nothing
 * relative to rip; n <= RW_POST_MAX. */
bool rw_post_ok(const uint8_t *post, size_t n);
/*
 * Whether pre (n bytes) is loads a trampoline may run before the call
 * and again after a site's first byte: each `mov d(%rsp),%reg` (no index,
 * no segment, no prefix) into a 32- or 64-bit register other than rax
 * and rsp, so that running them twice, or at another address, reads
 * the same and writes a register the site's code overwrites anyway;
 * n <= RW_PRE_MAX.
 */
bool rw_pre_ok(const uint8_t *pre, size_t n);

/*
 * A task stopped (a signal-delivery stop) at ip inside the trampoline of
 * s, with registers *regs (struct user_regs_struct, as PTRACE_GETREGS
 * gives; rax holds -ERESTART* or the result when stopped in or after the
 * syscall).  Decides how it leaves so that the program sees what it
 * would untraced and counts stay as strace's:
 *   RW_AT_BEFORE: not yet in the syscall: *regs becomes the task's at
 *     the site (rip = site, saved registers and rsp back); nothing of
 *     the call was counted, and it is made again from the site;
 *   RW_AT_SYSCALL: interrupted in its syscall (rax -ERESTART*): *regs
 *     becomes the task's just after a syscall outside the pool (rip =
 *     rcx = rw_tramp_restart_ip(s), rax kept, the registers and rsp the
 *     program's), so that the kernel's restart, if any (rip -= 2), makes
 *     the call again from there: a ptrace stop; an -EINTR return goes on
 *     as the site's code after its syscall would.
 *     *elapsed_ns is how long the call had run.  The trampoline's end
 *     never runs, so nothing of the call is in the counters: iotrace
 *     counts it itself (a call, its error, its ns, the slot's extremes;
 *     with a size register its req and size_max, the size *regs holds
 *     again, the program's rdx);
 *   RW_AT_AFTER: after the syscall: iotrace single-steps it out of the
 *     pool before it delivers the signal (the steps count the call and
 *     run the post).
 * *uncount is always false: the entry is never counted, so there is
 * nothing to take off (kept for callers written when it was).
 * read(addr, buf, n) reads the task's memory (its stack); 0 or -errno.
 */
enum rw_at { RW_AT_BEFORE, RW_AT_SYSCALL, RW_AT_AFTER };
/*
 * Where a call interrupted in s's trampoline is put, just after a
 * syscall instruction outside the pool: the mov shape's own, which the
 * rewrite left at site + resume - 2, so that a signal handler, a
 * siglongjmp or pthread_cancel's unwinding starts in the program's
 * code, with its unwind information (C++ destructors above the call
 * run); the xor shape has no syscall left at the site, and goes to the
 * stub's (s->stub + 2), whose post then takes it back to site + resume.
 */
uint64_t rw_tramp_restart_ip(const struct rw_tramp_spec *s);
struct user_regs_struct;
enum rw_at rw_tramp_leave(const struct rw_tramp_spec *s, uint64_t ip,
			  struct user_regs_struct *regs, uint64_t now_ticks,
			  int (*read)(void *ctx, uint64_t addr, void *buf,
				      size_t n),
			  void *ctx, bool *uncount, uint64_t *elapsed_ns);

/* Ticks to ns (tsc.c): ns = (ticks * mult) >> shift. */
struct rw_tsc {
	uint64_t mult;
	unsigned shift;
};
/* Why the trampolines cannot run here, or NULL: a TSC that cannot time
 * calls, or no cmpxchg16b (cx16), which size_max takes. */
const char *rw_tsc_unusable(void);
/* The scale that turns ticks into ns; 0 or -EINVAL. */
int rw_tsc_scale(uint64_t ticks, uint64_t ns, struct rw_tsc *t);
/* Measured against CLOCK_MONOTONIC over ~2 ms; 0 or -EINVAL. */
int rw_tsc_calibrate(struct rw_tsc *t);
/*
 * The same in two steps, so the time between them serves: a reading
 * now (mark), and the scale from it at least min_ns later (since,
 * which waits for the rest if need be).  0 or -EINVAL.
 */
struct rw_tsc_mark {
	uint64_t mono, ticks;
};
void rw_tsc_mark(struct rw_tsc_mark *m);
int rw_tsc_since(const struct rw_tsc_mark *m, uint64_t min_ns,
		 struct rw_tsc *t);
uint64_t rw_tsc_ns(const struct rw_tsc *t, uint64_t ticks);

/*
 * The pool (pool.c): RW_POOL_SIZE bytes at an address picked at random
 * per run (rw_pool_pick()), the trampolines' code first, then each
 * process's struct rw_counters at RW_POOL_COUNTERS.
 */
#define RW_POOL_CODE (4ull << 20)
#define RW_POOL_COUNTERS RW_POOL_CODE
#define RW_POOL_SIZE (RW_POOL_CODE + ((sizeof(struct rw_counters) + 4095) & ~4095ull))
uint64_t rw_pool_pick(void);
/*
 * Puts before the filter *bpf (*len instructions, malloc'd) a test that
 * allows every call whose instruction pointer is in [lo, lo + size):
 * page-aligned, within one 4 GiB region.  0, or -EINVAL, -ENOMEM.
 */
struct sock_filter;
int rw_filter_allow_pool(struct sock_filter **bpf, unsigned short *len,
			 uint64_t lo, uint64_t size);

#endif
