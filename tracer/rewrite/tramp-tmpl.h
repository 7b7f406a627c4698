/* SPDX-License-Identifier: MIT */
/*
 * What the trampoline template (tramp-tmpl.S) and its emitter (tramp.c)
 * share, private to tracer/rewrite/: the frame the trampoline keeps on
 * the task's stack and the row of offsets each template variant has in
 * rw_tramp_tab[].  Included by the assembler too, so only #defines and,
 * for C, the declarations of its symbols.  tramp.c checks that the
 * numbers written here for the assembler match rewrite.h's structs.
 */
#ifndef IOTRACE_TRAMP_TMPL_H
#define IOTRACE_TRAMP_TMPL_H

/* rewrite.h's numbers, as the assembler needs them (checked in tramp.c). */
#define TT_FDS 256		/* RW_FDS */
#define TT_HIST_TOP 39		/* RW_HIST - 1 */
#define TT_ERRNOS 134		/* RW_ERRNOS */
#define TT_POST_MAX 8		/* RW_POST_MAX */
#define TT_NMIN 512		/* nmin_ns[slot] - max_ns[slot]: RW_SLOTS * 8 */
#define TT_EINVAL 22		/* EINVAL */
#define TT_PENDING 512		/* sample_pending[slot] - sample_left[slot]:
				   RW_SLOTS * 8 */
#define TT_CELL_SIZE 80		/* sizeof(struct rw_cell) */
#define TT_CELL_CALLS 0		/* offsetof(struct rw_cell, calls) ... */
#define TT_CELL_ERRORS 8
#define TT_CELL_NS 16
#define TT_CELL_BYTES 24
#define TT_CELL_REQ 32
#define TT_CELL_SHORTS 40
#define TT_CELL_SIZE_MAX 48	/* 16-byte aligned: cmpxchg16b's pair */
#define TT_CELL_SIZE_MAX_CALLS 56
#define TT_CELL_EINVAL 64
#define TT_CELL_FD2 72		/* 1 + a two-fd call's destination fd */

/*
 * The frame: the red zone skipped (lea), then the registers the body
 * writes that the program keeps, pushed in this order, so the k-th push
 * (0-based) holds its register at the program's rsp - TT_REDZONE -
 * 8 * (k + 1).
 */
#define TT_REDZONE 128
#define TT_PUSH_RBX 0		/* the program's rbx (the cell's address) */
#define TT_PUSH_R12 1		/* the program's r12 (t0) */
#define TT_PUSH_RDX 2		/* the program's rdx (rdtsc writes it; a
				   size in rdx is read back from here) */

/*
 * One row of rw_tramp_tab[]: offsets from the variant's first byte
 * (TT_START: from rw_tramp_code).  An offset that marks a state is the
 * first byte after the instruction that makes it, so "ip >= TT_SYSRET"
 * reads "the syscall was made".  A field the variant lacks is 0.
 */
#define TT_START 0		/* its code, from rw_tramp_code */
#define TT_LEN 1		/* its bytes, code and constants */
#define TT_FRAMED 2		/* after the lea past the red zone */
#define TT_SAVED_RBX 3		/* after its push */
#define TT_SAVED_R12 4
#define TT_SAVED_RDX 5
#define TT_RDX_BACK 6		/* after rdx is the program's again */
#define TT_SYSRET 7		/* after the syscall */
#define TT_NR 8			/* imm32 of the mov $NR,%eax before syscall */
#define TT_NR_SLOW 9		/* imm32 of the fd check's mov (0: none) */
#define TT_NR_SAMP 10		/* imm32 of the sample's mov (0: none) */
#define TT_SHIFT 11		/* imm8 of the shrd */
#define TT_POST 12		/* TT_POST_MAX nops, where post is copied */
#define TT_K_SLOW 13		/* .quad the stub's syscall (0: none) */
#define TT_K_BACK 14		/* .quad site + resume */
#define TT_K_CELL 15		/* .quad &counters->cell[slot][0] */
#define TT_K_HIST 16		/* .quad &counters->hist[slot][0] */
#define TT_K_ERR 17		/* .quad &counters->err[slot][0] */
#define TT_K_EXT 18		/* .quad &counters->max_ns[slot] */
#define TT_K_MULT 19		/* .quad mult */
#define TT_K_SAMP 20		/* .quad &counters->sample_left[slot] (0:
				   none) */
#define TT_K_PERIOD 21		/* .quad N */
#define TT_SIZECAS 22		/* the size pair's lock cmpxchg16b (0:
				   none), which the twin makes two stores */
#define TT_K_DIRTY 23		/* .quad &counters->dirty[0] (0: none) */
#define TT_K_FDCH 24		/* .quad &counters->fd_changes (0: none) */
#define TT_N 25

/* Variants: enum rw_reg's 7 fd registers (RW_NOREG first), each without
 * then with bytes moved, each of those without then with a size in rdx,
 * each without then with -k's samples: row (((fd_reg - RW_NOREG) * 2 +
 * moves_data) * 2 + (size_reg == RW_RDX)) * 2 + (sample > 1); then the
 * two-fd calls', without then with samples: TT_PAIRS + 2 * pair +
 * (sample > 1), pair 0 splice's and copy_file_range's registers (fd rdi,
 * fd2 rdx, size r8), pair 1 sendfile's (rsi, rdi, r10). */
#define TT_PAIRS 56
/* Then the fd table's calls and mmap's: TT_FDOPS + 2 * (fdop - 1) +
 * (sample > 1), fdop TT_FDOP_FREES (close), TT_FDOP_CHANGES (fcntl) or
 * TT_FDOP_MAPS (mmap: executable pages to the stub). */
#define TT_FDOPS 60
#define TT_FDOP_NONE 0
#define TT_FDOP_FREES 1
#define TT_FDOP_CHANGES 2
#define TT_FDOP_MAPS 3
#define TT_PROT_EXEC 4		/* PROT_EXEC */
#define TT_VARIANTS 66

#ifndef __ASSEMBLER__
#include <stdint.h>
extern const uint8_t rw_tramp_code[];
extern const uint32_t rw_tramp_tab[TT_VARIANTS][TT_N];
/* Every lock prefix's offset from rw_tramp_code, in the code's order. */
extern const uint32_t rw_tramp_locks[], rw_tramp_nlocks;
#endif

#endif
