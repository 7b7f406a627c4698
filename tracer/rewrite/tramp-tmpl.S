/* SPDX-License-Identifier: MIT */
/*
 * The trampoline of a rewritten call site (rewrite.h), as a template:
 * tramp.c copies one variant into the pool and fills its fields (the
 * call's number, the shift, the constants after its code).  Variants,
 * because the fd argument's register is part of two instructions and a
 * call that moves no data has no bytes to add; RW_TRAMP below is the one
 * body they share.  The bytes live in .rodata: iotrace never runs them,
 * it copies them, so they are written with no reference outside
 * themselves (jumps, rip-relative loads of their own constants) and
 * rw_tramp_tab[] gives each variant's offsets (tramp-tmpl.h).
 *
 * Rules the body keeps, and why:
 *  - jumps only, no call/ret: a shadow stack would see a return to
 *    where nothing called;
 *  - nothing written in the 128 bytes below the site's rsp: that red
 *    zone is the program's (libc's wrappers are leaf functions and may
 *    keep data there), so the frame starts below it;
 *  - rcx and r11 used freely, rax too: the syscall clobbers them anyway,
 *    as do the flags (glibc's syscall asm declares "cc" clobbered);
 *  - every other register the program sees at site + 7 as the original
 *    syscall leaves it: rbx, r12 and rdx are pushed below the red zone;
 *  - the cell's address in rbx and t0 in r12, which the kernel keeps
 *    across the syscall, so rw_tramp_leave() reads t0 from the task's
 *    registers when a signal interrupts the call (rbx as the base: its
 *    lock-prefixed adds need no SIB byte, which keeps the longest
 *    variant under RW_TRAMP_MAX);
 *  - no vector registers: the program's, unsaved, are live.
 */
#include "tracer/rewrite/tramp-tmpl.h"

	.section .rodata.rw_tramp_tab, "a"
	.balign 4
	.globl rw_tramp_tab
	.type rw_tramp_tab, @object
rw_tramp_tab:

	.section .rodata.rw_tramp, "a"
	.globl rw_tramp_code
	.type rw_tramp_code, @object
rw_tramp_code:

/*
 * One variant.  name: its labels' suffix; fd: the 32-bit name of the fd
 * argument's register, or empty (cell 0, no check); moves: 1 if a
 * result > 0 is bytes moved.
 */
.macro RW_TRAMP name, fd, moves
.Lt_\name:
.ifnb \fd
	/* 1. fds the cells do not cover take the original syscall (a
	 * ptrace stop); before anything else, so that way touches nothing
	 * but the flags.  The kernel reads an fd as unsigned int. */
	cmpl	$TT_FDS, %\fd
	jb	.Lenter_\name
	mov	$0, %eax
.Lnr_slow_\name:
	jmp	*.Lk_slow_\name(%rip)
.Lenter_\name:
.endif
	/* 2. The frame, below the red zone: the registers the body writes
	 * that the program keeps (tramp-tmpl.h's push order). */
	lea	-TT_REDZONE(%rsp), %rsp
.Lframed_\name:
	push	%rbx
.Lsaved_rbx_\name:
	push	%r12
.Lsaved_r12_\name:
	push	%rdx
.Lsaved_rdx_\name:
	/* 3. rbx = &cell[slot][fd]; the call counted at its entry, so
	 * calls - done is what is in flight. */
	mov	.Lk_cell_\name(%rip), %rbx
.ifnb \fd
	mov	%\fd, %eax
	imul	$TT_CELL_SIZE, %rax, %rax
	add	%rax, %rbx
.endif
	lock incq TT_CELL_CALLS(%rbx)
.Lcounted_\name:
	/* 4. t0 in r12 (rdtsc writes rdx: syscall argument 3). */
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	mov	%rax, %r12
	/* 5. The arguments as the program left them; the call. */
	mov	(%rsp), %rdx
.Lrdx_back_\name:
	mov	$0, %eax
.Lnr_\name:
	syscall
.Lsysret_\name:
	/* 6. The result in rcx; ns = ((t1 - t0) * mult) >> shift, the
	 * product's 128 bits in rdx:rax. */
	mov	%rax, %rcx
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	sub	%r12, %rax
	mulq	.Lk_mult_\name(%rip)
	shrd	$0, %rdx, %rax
.Lshift_\name:
	lock addq %rax, TT_CELL_NS(%rbx)
	lock incq TT_CELL_DONE(%rbx)
	cmp	$-4095, %rcx		/* unsigned: -4095 .. -1 */
.if \moves
	jae	.Lerror_\name
	test	%rcx, %rcx
	jle	.Lhist_\name
	lock addq %rcx, TT_CELL_BYTES(%rbx)
	jmp	.Lhist_\name
.Lerror_\name:
.else
	jb	.Lhist_\name
.endif
	lock incq TT_CELL_ERRORS(%rbx)
.Lhist_\name:
	/* bucket = floor(log2(ns | 1)), at most RW_HIST - 1: ns | 1 puts
	 * 0 ns in bucket 0 and spares bsr's undefined result on 0. */
	mov	%rax, %rdx
	or	$1, %rdx
	bsr	%rdx, %rdx
	cmp	$TT_HIST_TOP, %edx
	jbe	.Lbucket_\name
	mov	$TT_HIST_TOP, %edx
.Lbucket_\name:
	mov	.Lk_hist_\name(%rip), %r11
	lock incq (%r11,%rdx,8)
	/* 7. The result, the program's registers; back after the
	 * original syscall. */
	mov	%rcx, %rax
	pop	%rdx
	pop	%r12
	pop	%rbx
	lea	TT_REDZONE(%rsp), %rsp
	jmp	*.Lk_back_\name(%rip)
.ifnb \fd
.Lk_slow_\name:
	.quad	0			/* site + 5 */
.endif
.Lk_back_\name:
	.quad	0			/* site + 7 */
.Lk_cell_\name:
	.quad	0			/* &counters->cell[slot][0] */
.Lk_hist_\name:
	.quad	0			/* &counters->hist[slot][0] */
.Lk_mult_\name:
	.quad	0			/* mult */
.Lend_\name:

	/* Its row of rw_tramp_tab[], in TT_ order.  The immediates are
	 * the last bytes of their instructions. */
	.pushsection .rodata.rw_tramp_tab, "a"
	.long	.Lt_\name - rw_tramp_code		/* TT_START */
	.long	.Lend_\name - .Lt_\name			/* TT_LEN */
	.long	.Lframed_\name - .Lt_\name		/* TT_FRAMED */
	.long	.Lsaved_rbx_\name - .Lt_\name		/* TT_SAVED_RBX */
	.long	.Lsaved_r12_\name - .Lt_\name		/* TT_SAVED_R12 */
	.long	.Lsaved_rdx_\name - .Lt_\name		/* TT_SAVED_RDX */
	.long	.Lcounted_\name - .Lt_\name		/* TT_COUNTED */
	.long	.Lrdx_back_\name - .Lt_\name		/* TT_RDX_BACK */
	.long	.Lsysret_\name - .Lt_\name		/* TT_SYSRET */
	.long	.Lnr_\name - 4 - .Lt_\name		/* TT_NR */
.ifnb \fd
	.long	.Lnr_slow_\name - 4 - .Lt_\name		/* TT_NR_SLOW */
.else
	.long	0
.endif
	.long	.Lshift_\name - 1 - .Lt_\name		/* TT_SHIFT */
.ifnb \fd
	.long	.Lk_slow_\name - .Lt_\name		/* TT_K_SLOW */
.else
	.long	0
.endif
	.long	.Lk_back_\name - .Lt_\name		/* TT_K_BACK */
	.long	.Lk_cell_\name - .Lt_\name		/* TT_K_CELL */
	.long	.Lk_hist_\name - .Lt_\name		/* TT_K_HIST */
	.long	.Lk_mult_\name - .Lt_\name		/* TT_K_MULT */
	.popsection
.endm

/* In enum rw_reg's order (RW_NOREG first), without then with bytes. */
	RW_TRAMP noreg0, , 0
	RW_TRAMP noreg1, , 1
	RW_TRAMP rdi0, edi, 0
	RW_TRAMP rdi1, edi, 1
	RW_TRAMP rsi0, esi, 0
	RW_TRAMP rsi1, esi, 1
	RW_TRAMP rdx0, edx, 0
	RW_TRAMP rdx1, edx, 1
	RW_TRAMP r10_0, r10d, 0
	RW_TRAMP r10_1, r10d, 1
	RW_TRAMP r8_0, r8d, 0
	RW_TRAMP r8_1, r8d, 1
	RW_TRAMP r9_0, r9d, 0
	RW_TRAMP r9_1, r9d, 1

	.size rw_tramp_code, . - rw_tramp_code
	.section .rodata.rw_tramp_tab, "a"
	.size rw_tramp_tab, . - rw_tramp_tab

	.section .note.GNU-stack, "", @progbits
