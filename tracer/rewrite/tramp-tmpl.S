/* SPDX-License-Identifier: MIT */
/*
 * The trampoline of a rewritten call site (rewrite.h), as a template:
 * tramp.c copies one variant into the pool and fills its fields (the
 * call's number, the shift, the constants after its code).  Variants,
 * because the fd argument's register is part of two instructions, a
 * call that moves no data has no bytes to add and one with no size
 * argument no size to add or compare; RW_TRAMP below is the one body
 * they share.  The bytes live in .rodata: iotrace never runs them, it
 * copies them, so they are written with no reference outside themselves
 * (jumps, rip-relative loads of their own constants) and rw_tramp_tab[]
 * gives each variant's offsets (tramp-tmpl.h).
 *
 * A call counts once, at its end: its cell (calls, ns, bytes, req,
 * shorts or errors), its histogram bucket and, on an error, its errno's
 * count are all added after the syscall, nothing before it, so a task
 * taken back to the site before the syscall has nothing to undo.
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
 *  - the size (req, shorts) read back from the program's rdx in the
 *    frame: the value it gave at entry, whatever rdtsc left in rdx;
 *  - lock-prefixed adds for every counter: the cells, rows and
 *    histogram are the process's, shared by its threads;
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
 * result > 0 is bytes moved; sized: 1 if rdx is the size asked for (req,
 * shorts).
 */
.macro RW_TRAMP name, fd, moves, sized
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
	/* 3. rbx = &cell[slot][fd]; nothing is counted before the call
	 * ends, so a task taken out of it here leaves no trace. */
	mov	.Lk_cell_\name(%rip), %rbx
.ifnb \fd
	mov	%\fd, %eax
	imul	$TT_CELL_SIZE, %rax, %rax
	add	%rax, %rbx
.endif
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
	 * product's 128 bits in rdx:rax.  The call counts here, once. */
	mov	%rax, %rcx
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	sub	%r12, %rax
	mulq	.Lk_mult_\name(%rip)
	shrd	$0, %rdx, %rax
.Lshift_\name:
	lock addq %rax, TT_CELL_NS(%rbx)
	lock incq TT_CELL_CALLS(%rbx)
.if \sized
	/* the size as the program gave it, from its saved rdx */
	mov	(%rsp), %rdx
	lock addq %rdx, TT_CELL_REQ(%rbx)
.endif
	cmp	$-4095, %rcx		/* unsigned: -4095 .. -1 */
.if \moves | \sized
	jae	.Lerror_\name
	test	%rcx, %rcx
.if \moves
.if \sized
	js	.Lhist_\name		/* not an error, nor a transfer */
	jz	.Lshort_\name
.else
	jle	.Lhist_\name
.endif
	lock addq %rcx, TT_CELL_BYTES(%rbx)
.else
	js	.Lhist_\name
.endif
.if \sized
.Lshort_\name:
	/* 0 <= result < size, the size unsigned as size_t */
	cmp	%rdx, %rcx
	jae	.Lhist_\name
	lock incq TT_CELL_SHORTS(%rbx)
.endif
	jmp	.Lhist_\name
.Lerror_\name:
.else
	jb	.Lhist_\name
.endif
	/* 7. An error: its errno's count, err[slot][0] past the row. */
	lock incq TT_CELL_ERRORS(%rbx)
	mov	%ecx, %edx
	neg	%edx			/* 1 .. 4095 */
	cmp	$TT_ERRNOS, %edx
	jb	.Lerrno_\name
	xor	%edx, %edx
.Lerrno_\name:
	mov	.Lk_err_\name(%rip), %r11
	lock incq (%r11,%rdx,8)
.Lhist_\name:
	/* 8. bucket = floor(log2(ns | 1)), at most RW_HIST - 1: ns | 1
	 * puts 0 ns in bucket 0 and spares bsr's undefined result on 0. */
	mov	%rax, %rdx
	or	$1, %rdx
	bsr	%rdx, %rdx
	cmp	$TT_HIST_TOP, %edx
	jbe	.Lbucket_\name
	mov	$TT_HIST_TOP, %edx
.Lbucket_\name:
	mov	.Lk_hist_\name(%rip), %r11
	lock incq (%r11,%rdx,8)
	/* 9. The result, the program's registers; back after the
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
.Lk_err_\name:
	.quad	0			/* &counters->err[slot][0] */
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
	.long	.Lk_err_\name - .Lt_\name		/* TT_K_ERR */
	.long	.Lk_mult_\name - .Lt_\name		/* TT_K_MULT */
	.popsection
.endm

/* One register's four: without then with bytes, each without then with
 * a size in rdx. */
.macro RW_TRAMPS name, fd
	RW_TRAMP \name\()_00, \fd, 0, 0
	RW_TRAMP \name\()_01, \fd, 0, 1
	RW_TRAMP \name\()_10, \fd, 1, 0
	RW_TRAMP \name\()_11, \fd, 1, 1
.endm

/* In enum rw_reg's order, RW_NOREG first (tramp-tmpl.h: TT_VARIANTS). */
	RW_TRAMPS noreg,
	RW_TRAMPS rdi, edi
	RW_TRAMPS rsi, esi
	RW_TRAMPS rdx, edx
	RW_TRAMPS r10, r10d
	RW_TRAMPS r8, r8d
	RW_TRAMPS r9, r9d

	.size rw_tramp_code, . - rw_tramp_code
	.section .rodata.rw_tramp_tab, "a"
	.size rw_tramp_tab, . - rw_tramp_tab

	.section .note.GNU-stack, "", @progbits
