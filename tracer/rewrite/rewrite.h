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
 * A site is `mov $NR,%eax` (b8 imm32, 5 bytes) followed by `syscall`
 * (0f 05).  The mov becomes `jmp rel32` to an island stub near the object
 * (`jmp *0(%rip); .quad T`, 14 bytes) that reaches the site's trampoline T
 * in P; the `syscall` stays, so any other path to it still stops under
 * ptrace.  T returns to site + 7 with `jmp *`, never call/ret.
 */
#ifndef IOTRACE_REWRITE_H
#define IOTRACE_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RW_SITE_LEN 5		/* the mov that becomes a jmp rel32 */
#define RW_ISLAND_LEN 14	/* jmp *0(%rip); .quad target */
#define RW_FDS 256		/* fds counted per fd; others: ptrace */
#define RW_SLOTS 32		/* hot calls per run (their counter slots) */
#define RW_HIST 40		/* log2 ns, as PROFILE_HIST_BUCKETS */

#define RW_ERRNOS 134		/* errnos counted apart; others: err[.][0] */

/*
 * The counters of one process: a memfd of its own, mapped at the same
 * address in the process (the trampolines add to it with lock-prefixed
 * adds) and in iotrace (which reads and folds it).  A call counts once,
 * at the trampoline's end, after its syscall: nothing is counted at its
 * entry, so a call iotrace takes out of a trampoline before or in its
 * syscall (rw_tramp_leave()) is not in the cell, and one that never ends
 * (the task killed in it) is in no cell.  With a size register
 * (rw_tramp_spec.size_reg), req adds the size the program asked for, its
 * value at entry, on every call, failed ones too; shorts counts the
 * calls whose result r is 0 <= r < that size (a short transfer: EOF, a
 * pipe's partial read).
 */
struct rw_cell {
	uint64_t calls; /* calls ended (after the syscall) */
	uint64_t errors, ns, bytes, req, shorts;
};

struct rw_counters {
	struct rw_cell cell[RW_SLOTS][RW_FDS];
	uint64_t hist[RW_SLOTS][RW_HIST];	/* bucket b: [2^b, 2^(b+1)) ns;
						   0 ns in bucket 0 */
	uint64_t err[RW_SLOTS][RW_ERRNOS];	/* calls that failed with
						   -e (result in -4095..-1),
						   e < RW_ERRNOS; the rest
						   in err[slot][0] */
};

/* The sites of one object, as found in its file (sites.c). */
enum rw_refusal {
	RW_REFUSE_SHAPE,	/* a syscall not after `mov $imm32,%eax` */
	RW_REFUSE_NOT_HOT,	/* its number is not a hot call */
	RW_REFUSE_UNDECODED,	/* not on an instruction boundary of a
				   function the decoder walked */
	RW_REFUSE_TARGET,	/* a branch lands inside the 5-byte mov */
	RW_REFUSE_N,
};

struct rw_site {
	uint64_t vaddr;		/* ELF vaddr of the mov (add the load bias) */
	uint64_t offset;	/* its offset in the file: a mapping of file
				   offset off at address A has it at
				   A + offset - off */
	int nr;			/* the immediate: x86_64 syscall number */
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

/* What one trampoline does (tramp.c). */
struct rw_tramp_spec {
	uint64_t at;		/* where its code runs, in the pool */
	uint64_t site;		/* the mov's address in the process: the
				   syscall at site + 5, back at site + 7 */
	int nr;			/* the call, made from the trampoline */
	int slot;		/* 0 .. RW_SLOTS - 1 */
	enum rw_reg fd_reg;	/* the fd argument (cell index); RW_NOREG:
				   cell 0.  An fd outside 0 .. RW_FDS - 1
				   goes to the original syscall (ptrace) */
	bool moves_data;	/* a result > 0 is bytes moved */
	enum rw_reg size_reg;	/* the size argument (req, shorts): RW_RDX
				   (read, write, pread64, pwrite64's count),
				   or RW_NOREG: none (readv, writev, lseek,
				   fsync); no other register */
	uint64_t counters;	/* address of struct rw_counters there:
				   the cells, hist and err rows of slot */
	uint64_t mult;		/* ns = (ticks * mult) >> shift */
	unsigned shift;
};

/*
 * Bytes a trampoline takes at most: 5 cache lines.  The longest variant
 * is 280 bytes (an fd in r8-r10, whose instructions take a REX prefix,
 * with bytes and a size: the size's add and compare, the errno row's
 * index and address), past the 256 this was before those; the pool's
 * 4 MiB of code hold 13,107 of 320.
 */
#define RW_TRAMP_MAX 320

/*
 * Writes the trampoline of s into buf (RW_TRAMP_MAX bytes); its length,
 * or 0 (nothing written) for a spec it cannot make: a slot out of the
 * counters, a shift of 64 or more, a negative nr, an fd_reg outside enum
 * rw_reg, a size_reg other than RW_NOREG and RW_RDX.
 */
size_t rw_tramp_emit(uint8_t *buf, const struct rw_tramp_spec *s);
/* The island stub at address at jumping to target (RW_ISLAND_LEN bytes). */
void rw_island_emit(uint8_t *buf, uint64_t target);
/* The 5 bytes put at site: jmp rel32 to island; false if out of reach. */
bool rw_site_patch(uint8_t buf[RW_SITE_LEN], uint64_t site, uint64_t island);

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
 *     becomes the task's just after the original syscall (rip = site +
 *     7, rax kept, so the kernel's restart, if any, goes through the
 *     original `syscall`: a ptrace stop); *elapsed_ns is how long the
 *     call had run.  The trampoline's end never runs, so nothing of
 *     the call is in the counters: iotrace counts it itself (a call,
 *     its error, its ns; with a size register its req, which *regs
 *     holds again, the program's);
 *   RW_AT_AFTER: after the syscall: iotrace single-steps it out of the
 *     pool before it delivers the signal (the steps count the call).
 * *uncount is always false: the entry is never counted, so there is
 * nothing to take off (kept for callers written when it was).
 * read(addr, buf, n) reads the task's memory (its stack); 0 or -errno.
 */
enum rw_at { RW_AT_BEFORE, RW_AT_SYSCALL, RW_AT_AFTER };
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
/* Why the TSC cannot time calls here, or NULL. */
const char *rw_tsc_unusable(void);
/* The scale that turns ticks into ns; 0 or -EINVAL. */
int rw_tsc_scale(uint64_t ticks, uint64_t ns, struct rw_tsc *t);
/* Measured against CLOCK_MONOTONIC over ~20 ms; 0 or -EINVAL. */
int rw_tsc_calibrate(struct rw_tsc *t);
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
