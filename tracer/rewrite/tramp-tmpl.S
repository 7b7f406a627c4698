/* SPDX-License-Identifier: MIT */
/*
 * The trampoline of a rewritten call site (rewrite.h), as a template:
 * tramp.c copies one variant into the pool and fills its fields (the
 * call's number, the shift, the post, the constants after its code).
 * Variants, because the fd argument's register is part of two
 * instructions, a call that moves no data has no bytes to add and one
 * with no size argument no size to add, compare or keep the largest of;
 * RW_TRAMP below is the one body they share.  The bytes live in
 * .rodata: iotrace never runs them, it copies them, so they are written
 * with no reference outside themselves (jumps, rip-relative loads of
 * their own constants) and rw_tramp_tab[] gives each variant's offsets
 * (tramp-tmpl.h).
 *
 * A call counts once, at its end: its cell (calls, ns, bytes, req,
 * shorts, size_max and its calls, or errors and einval), its histogram
 * bucket, its slot's extremes and, on an error, its errno's count are all
 * written after the syscall, nothing before it, so a task taken back to
 * the site before the syscall has nothing to undo.  The one write before
 * it, a two-fd call's claim of its destination (the cell's fd2), counts
 * nothing: made again, the call finds it made.
 *
 * Rules the body keeps, and why:
 *  - jumps only, no call/ret: a shadow stack would see a return to
 *    where nothing called;
 *  - nothing written in the 128 bytes below the site's rsp: that red
 *    zone is the program's (libc's wrappers are leaf functions and may
 *    keep data there), so the frame starts below it;
 *  - rcx and r11 used freely, rax too: the syscall clobbers them anyway,
 *    as do the flags (glibc's syscall asm declares "cc" clobbered);
 *  - every other register the program sees at site + resume as the
 *    original code leaves it: rbx, r12 and rdx are pushed below the red
 *    zone;
 *  - the flags at site + resume are the post's (the site's displaced
 *    `cmp $-4096,%rax`, whose flags the program's next `ja` tests): the
 *    post runs last, after the registers are restored, and nothing after
 *    it may touch the flags: only the nops that pad it (nop writes no
 *    flag) and the final `jmp *`;
 *  - the cell's address in rbx and t0 in r12, which the kernel keeps
 *    across the syscall, so rw_tramp_leave() reads t0 from the task's
 *    registers when a signal interrupts the call (rbx as the base: its
 *    lock-prefixed adds need no SIB byte); after the call r12 holds
 *    its ticks, then its ns, then the result;
 *  - what needs only the result is counted before what needs the
 *    second rdtsc's ticks: rdtsc's result comes late, and instructions
 *    waiting for it fill the scheduler, so the fewer of them come first
 *    the more of the rest runs meanwhile;
 *  - the size (req, shorts, size_max) read back from the program's rdx
 *    in the frame: the value it gave at entry, whatever rdtsc left in
 *    rdx;
 *  - every counter written by a lock-prefixed instruction: the cells,
 *    rows and extremes are the process's, shared by its threads.  The
 *    extremes and size_max are read first with a plain load: only a
 *    call that changes them takes a `lock cmpxchg` (cmpxchg16b for the
 *    size_max pair, which a call asking size_max again also takes: one
 *    locked instruction for the two), retried while another thread
 *    changed them in between;
 *  - no vector registers: the program's, unsaved, are live.
 */
#include "tracer/rewrite/tramp-tmpl.h"

	.section .rodata.rw_tramp_tab, "a"
	.balign 4
	.globl rw_tramp_tab
	.type rw_tramp_tab, @object
rw_tramp_tab:

	.section .rodata.rw_tramp_locks, "a"
	.balign 4
	.globl rw_tramp_locks
	.type rw_tramp_locks, @object
rw_tramp_locks:

	.section .rodata.rw_tramp, "a"
	.globl rw_tramp_code
	.type rw_tramp_code, @object
rw_tramp_code:

/*
 * A lock prefix, for the instruction on the next line; its offset from
 * rw_tramp_code goes in rw_tramp_locks[], which the twin of a process of
 * one thread turns into ds prefixes (tramp.c): the assembler knows where each
 * one is, so no run decodes the template to find them.
 */
.macro RW_LOCK
.Llock\@:
	.pushsection .rodata.rw_tramp_locks, "a"
	.long	.Llock\@ - rw_tramp_code
	.popsection
	lock
.endm

/*
 * One extreme of a slot: the value in r12 put in off(%r11) if above it
 * (unsigned).  A plain load and compare on the common path; only a value
 * past it takes lock cmpxchg, again if another thread moved it between.
 */
.macro RW_RAISE name, off
	mov	\off(%r11), %rax
.Lraise_\name:
	cmp	%rax, %r12
	jbe	.Lraised_\name
	RW_LOCK
	cmpxchg %r12, \off(%r11)
	jne	.Lraise_\name		/* rax: the value it found */
.Lraised_\name:
.endm

/*
 * One variant.  name: its labels' suffix; fd: the 32-bit name of the fd
 * argument's register, or empty (cell 0, no check); moves: 1 if a
 * result > 0 is bytes moved; sized: 1 if the call has a size asked for
 * (req, shorts, size_max), in rdx or in size; sample: 1 if 1 call in N
 * of the slot's takes the stub's syscall, a ptrace stop that -k unwinds
 * (--stack-sample N); fd2: a two-fd call's destination fd's register
 * (32-bit name), or empty; size: the size's register when not rdx (one
 * the syscall and the body leave alone: r8, r10), or empty; fdop: what
 * the call does to the fd table, TT_FDOP_* (tramp-tmpl.h): 0 nothing,
 * 1 frees the fd in edi (close: only one whose cells hold nothing to
 * fold, else the stub's syscall), 2 may change an fd's description
 * (fcntl); either adds one to fd_changes, after the call; 3 maps pages
 * (mmap: executable ones, whose object iotrace patches at the call's
 * exit, take the stub's syscall), nothing to fd_changes.
 */
.macro RW_TRAMP name, fd, moves, sized, sample, fd2=, size=, fdop=0
.Lt_\name:
.ifnb \fd
	.set	.Lfdck_\name, 1
.else
	.set	.Lfdck_\name, (\fdop == TT_FDOP_FREES) | (\fdop == TT_FDOP_MAPS)
.endif
	.set	.Lfdch_\name, (\fdop == TT_FDOP_FREES) | (\fdop == TT_FDOP_CHANGES)
	/* the dirty marks: an fd's calls set them, a close reads them */
	.set	.Ldirty_\name, .Lfdck_\name & (\fdop != TT_FDOP_MAPS)
.ifnb \fd
	/* 1. fds the cells do not cover take the stub's syscall (a ptrace
	 * stop) and its post back to the site; before anything else, so
	 * that way touches nothing but the flags (which the post sets).
	 * The kernel reads an fd as unsigned int.  One they cover is
	 * marked dirty (its close must stop, to fold its cells) through
	 * rax alone, which the site's mov sets anyway. */
	cmpl	$TT_FDS, %\fd
	jb	.Lfd_ok_\name
.elseif \fdop == TT_FDOP_FREES
	/* 1. A close: of an fd the cells cover and none of its calls
	 * made here since its last fold (not dirty); any other takes the
	 * stub's syscall, a stop where iotrace folds the fd's cells
	 * while it still names its file.  rax and the flags only, as on
	 * the fd check's way. */
	cmpl	$TT_FDS, %edi
	jae	.Lslow_fd_\name
	mov	%edi, %eax
	add	.Lk_dirty_\name(%rip), %rax
	cmpb	$0, (%rax)
	je	.Lenter_\name
.elseif \fdop == TT_FDOP_MAPS
	/* 1. An mmap of executable pages (PROT_EXEC in its prot, edx)
	 * takes the stub's syscall, a stop whose exit patches the object
	 * it maps; any other goes on.  The flags only, as on the fd
	 * check's way. */
	testb	$TT_PROT_EXEC, %dl
	jz	.Lenter_\name
.endif
.if .Lfdck_\name
.Lslow_fd_\name:
	mov	$0, %eax
.Lnr_slow_\name:
	jmp	*.Lk_slow_\name(%rip)
.endif
.ifnb \fd
.Lfd_ok_\name:
	mov	%\fd, %eax
	add	.Lk_dirty_\name(%rip), %rax
	movb	$1, (%rax)
.endif
.Lenter_\name:
.ifnb \fd2
	/* 1a. A two-fd call: the destination covered too, and the one
	 * the cell counts (its fd2: 1 + that fd), claimed by the first
	 * call; another one takes the stub's syscall.  Only rax, rcx,
	 * r11 and the flags are written, as on the fd check's way. */
	cmpl	$TT_FDS, %\fd2
	jae	.Lslow_fd_\name
	mov	%\fd2, %ecx
	add	.Lk_dirty_\name(%rip), %rcx
	movb	$1, (%rcx)		/* its dirty mark */
	mov	%\fd2, %ecx
	inc	%ecx
	mov	%\fd, %eax
	imul	$TT_CELL_SIZE, %rax, %rax
	mov	.Lk_cell_\name(%rip), %r11
	add	%rax, %r11
	cmp	%rcx, TT_CELL_FD2(%r11)
	je	.Lpaired_\name
	xor	%eax, %eax
	RW_LOCK
	cmpxchg %rcx, TT_CELL_FD2(%r11)
	je	.Lpaired_\name		/* claimed */
	cmp	%rax, %rcx		/* another thread claimed it */
	jne	.Lslow_fd_\name
.Lpaired_\name:
.endif
.if \sample
	/* 1b. -k's sample: the slot's countdown (sample_left[slot]) below
	 * 0 sends this call to the stub's syscall, N more to the countdown
	 * (an add: threads that raced past it each take one, and 1 call in
	 * N is sampled however they interleave), and says so in
	 * sample_pending[slot], which iotrace takes back at the stop (a
	 * restart at the stub is no sample).  The first call is one, as
	 * ptrace's 1 in N takes the first.  Nothing of the program's is
	 * touched yet but rax, rcx, r11 and the flags, as on the fd
	 * check's way. */
	mov	.Lk_samp_\name(%rip), %r11
	RW_LOCK
	decq (%r11)
	jns	.Lunsampled_\name
	mov	.Lk_period_\name(%rip), %rcx
	RW_LOCK
	addq %rcx, (%r11)
	RW_LOCK
	incq TT_PENDING(%r11)
	mov	$0, %eax
.Lnr_samp_\name:
	jmp	*.Lk_slow_\name(%rip)
.Lunsampled_\name:
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
	/* 6. The result in rcx, t1 - t0 in r12 (ns are made of them at
	 * 8, after the counts that need only the result).  The call
	 * counts here, once. */
	mov	%rax, %rcx
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	sub	%r12, %rax
	mov	%rax, %r12
.if .Lfdch_\name
	/* A close or an fcntl made here: iotrace's view of the fds is
	 * stale, which it sees at the process's next stop. */
	mov	.Lk_fdch_\name(%rip), %r11
	RW_LOCK
	incq	(%r11)
.endif
	RW_LOCK
	incq TT_CELL_CALLS(%rbx)
.if \sized
	/* the size as the program gave it, from its saved rdx */
.ifb \size
	mov	(%rsp), %rdx
.else
	mov	%\size, %rdx
.endif
	RW_LOCK
	addq %rdx, TT_CELL_REQ(%rbx)
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
	RW_LOCK
	addq %rcx, TT_CELL_BYTES(%rbx)
.else
	js	.Lhist_\name
.endif
.if \sized
.Lshort_\name:
	/* 0 <= result < size, the size unsigned as size_t */
	cmp	%rdx, %rcx
	jae	.Lhist_\name
	RW_LOCK
	incq TT_CELL_SHORTS(%rbx)
.endif
	jmp	.Lhist_\name
.Lerror_\name:
.else
	jb	.Lhist_\name
.endif
	/* 7. An error: einval, its errno's count, err[slot][0] past the
	 * row. */
	RW_LOCK
	incq TT_CELL_ERRORS(%rbx)
	mov	%ecx, %edx
	neg	%edx			/* 1 .. 4095 */
	cmp	$TT_EINVAL, %edx
	jne	.Lnotinval_\name
	RW_LOCK
	incq TT_CELL_EINVAL(%rbx)
.Lnotinval_\name:
	cmp	$TT_ERRNOS, %edx
	jb	.Lerrno_\name
	xor	%edx, %edx
.Lerrno_\name:
	mov	.Lk_err_\name(%rip), %r11
	RW_LOCK
	incq (%r11,%rdx,8)
.Lhist_\name:
	/* 8. ns = ((t1 - t0) * mult) >> shift, the product's 128 bits in
	 * rdx:rax; then bucket = floor(log2(ns | 1)), at most RW_HIST - 1:
	 * ns | 1 puts 0 ns in bucket 0 and spares bsr's undefined result
	 * on 0. */
	mov	%r12, %rax
	mulq	.Lk_mult_\name(%rip)
	shrd	$0, %rdx, %rax
.Lshift_\name:
	RW_LOCK
	addq %rax, TT_CELL_NS(%rbx)
	mov	%rax, %rdx
	or	$1, %rdx
	bsr	%rdx, %rdx
	cmp	$TT_HIST_TOP, %edx
	jbe	.Lbucket_\name
	mov	$TT_HIST_TOP, %edx
.Lbucket_\name:
	mov	.Lk_hist_\name(%rip), %r11
	RW_LOCK
	incq (%r11,%rdx,8)
	/* 9. The slot's extremes: max_ns, then nmin_ns (~min) with ~ns,
	 * both raised (r12 holds the value). */
	mov	%rax, %r12
	mov	.Lk_ext_\name(%rip), %r11
	RW_RAISE \name\()_max, 0
	not	%r12
	RW_RAISE \name\()_min, TT_NMIN
.if \sized
	/* 10. size_max and size_max_calls, one 16-byte pair: rdx:rax what
	 * the cell holds (two plain loads; cmpxchg16b checks them), rcx:rbx
	 * what it becomes.  A size below size_max changes nothing: size_max
	 * only grows, so one read above the size stays above it.  The
	 * result in r12, the cell in r11, rbx the size.  The twin of a
	 * process of one thread stores the pair instead, in the same 8
	 * bytes as the cmpxchg16b and its jne (tramp.c: size_stores). */
	mov	%rcx, %r12
	mov	%rbx, %r11
.ifb \size
	mov	(%rsp), %rbx
.else
	mov	%\size, %rbx
.endif
	mov	TT_CELL_SIZE_MAX(%r11), %rax
	mov	TT_CELL_SIZE_MAX_CALLS(%r11), %rdx
.Lsize_\name:
	cmp	%rax, %rbx
	jb	.Lsized_\name		/* below size_max: nothing */
	lea	1(%rdx), %rcx		/* size_max again: one more call */
	je	.Lsizecas_\name
	mov	$1, %ecx		/* a new size_max: its first call */
.Lsizecas_\name:
	RW_LOCK
	cmpxchg16b TT_CELL_SIZE_MAX(%r11)
	jne	.Lsize_\name		/* rdx:rax: the pair it found */
.Lsized_\name:
	mov	%r12, %rax
.else
	mov	%rcx, %rax
.endif
	/* 11. The result, the program's registers, the post (the flags the
	 * program tests after the call: nothing after it touches them);
	 * back at site + resume. */
	pop	%rdx
	pop	%r12
	pop	%rbx
	lea	TT_REDZONE(%rsp), %rsp
.Lpost_\name:
	.fill	TT_POST_MAX, 1, 0x90	/* the post, then nops */
	jmp	*.Lk_back_\name(%rip)
.if .Lfdck_\name
	.set	.Lslow_\name, 1
.else
	.set	.Lslow_\name, \sample
.endif
.if .Lslow_\name
.Lk_slow_\name:
	.quad	0			/* the stub's syscall */
.endif
.if .Ldirty_\name
.Lk_dirty_\name:
	.quad	0			/* &counters->dirty[0] */
.endif
.if .Lfdch_\name
.Lk_fdch_\name:
	.quad	0			/* &counters->fd_changes */
.endif
.Lk_back_\name:
	.quad	0			/* site + resume */
.Lk_cell_\name:
	.quad	0			/* &counters->cell[slot][0] */
.Lk_hist_\name:
	.quad	0			/* &counters->hist[slot][0] */
.Lk_err_\name:
	.quad	0			/* &counters->err[slot][0] */
.Lk_ext_\name:
	.quad	0			/* &counters->max_ns[slot] */
.Lk_mult_\name:
	.quad	0			/* mult */
.if \sample
.Lk_samp_\name:
	.quad	0			/* &counters->sample_left[slot] */
.Lk_period_\name:
	.quad	0			/* N */
.endif
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
.if .Lfdck_\name
	.long	.Lnr_slow_\name - 4 - .Lt_\name		/* TT_NR_SLOW */
.else
	.long	0
.endif
.if \sample
	.long	.Lnr_samp_\name - 4 - .Lt_\name		/* TT_NR_SAMP */
.else
	.long	0
.endif
	.long	.Lshift_\name - 1 - .Lt_\name		/* TT_SHIFT */
	.long	.Lpost_\name - .Lt_\name		/* TT_POST */
.if .Lslow_\name
	.long	.Lk_slow_\name - .Lt_\name		/* TT_K_SLOW */
.else
	.long	0
.endif
	.long	.Lk_back_\name - .Lt_\name		/* TT_K_BACK */
	.long	.Lk_cell_\name - .Lt_\name		/* TT_K_CELL */
	.long	.Lk_hist_\name - .Lt_\name		/* TT_K_HIST */
	.long	.Lk_err_\name - .Lt_\name		/* TT_K_ERR */
	.long	.Lk_ext_\name - .Lt_\name		/* TT_K_EXT */
	.long	.Lk_mult_\name - .Lt_\name		/* TT_K_MULT */
.if \sample
	.long	.Lk_samp_\name - .Lt_\name		/* TT_K_SAMP */
	.long	.Lk_period_\name - .Lt_\name		/* TT_K_PERIOD */
.else
	.long	0, 0
.endif
.if \sized
	.long	.Lsizecas_\name - .Lt_\name		/* TT_SIZECAS */
.else
	.long	0
.endif
.if .Ldirty_\name
	.long	.Lk_dirty_\name - .Lt_\name		/* TT_K_DIRTY */
.else
	.long	0
.endif
.if .Lfdch_\name
	.long	.Lk_fdch_\name - .Lt_\name		/* TT_K_FDCH */
.else
	.long	0
.endif
	.popsection
.endm

/* One register's eight: without then with bytes, each without then with
 * a size in rdx, each without then with -k's samples. */
.macro RW_TRAMPS name, fd
	RW_TRAMP \name\()_000, \fd, 0, 0, 0
	RW_TRAMP \name\()_001, \fd, 0, 0, 1
	RW_TRAMP \name\()_010, \fd, 0, 1, 0
	RW_TRAMP \name\()_011, \fd, 0, 1, 1
	RW_TRAMP \name\()_100, \fd, 1, 0, 0
	RW_TRAMP \name\()_101, \fd, 1, 0, 1
	RW_TRAMP \name\()_110, \fd, 1, 1, 0
	RW_TRAMP \name\()_111, \fd, 1, 1, 1
.endm

/* In enum rw_reg's order, RW_NOREG first (tramp-tmpl.h: TT_VARIANTS). */
	RW_TRAMPS noreg,
	RW_TRAMPS rdi, edi
	RW_TRAMPS rsi, esi
	RW_TRAMPS rdx, edx
	RW_TRAMPS r10, r10d
	RW_TRAMPS r8, r8d
	RW_TRAMPS r9, r9d
/* The two-fd calls' (TT_PAIRS): splice(in, off, out, off, len, flags)
 * and copy_file_range's, then sendfile(out, in, off, count). */
	RW_TRAMP pair0_0, edi, 1, 1, 0, edx, r8
	RW_TRAMP pair0_1, edi, 1, 1, 1, edx, r8
	RW_TRAMP pair1_0, esi, 1, 1, 0, edi, r10
	RW_TRAMP pair1_1, esi, 1, 1, 1, edi, r10
/* The fd table's calls (TT_FDOPS): close's, then fcntl's, each without
 * then with samples; their cell is 0. */
	RW_TRAMP frees_0, , 0, 0, 0, , , TT_FDOP_FREES
	RW_TRAMP frees_1, , 0, 0, 1, , , TT_FDOP_FREES
	RW_TRAMP changes_0, , 0, 0, 0, , , TT_FDOP_CHANGES
	RW_TRAMP changes_1, , 0, 0, 1, , , TT_FDOP_CHANGES
/* mmap's (TT_FDOP_MAPS): cell 0 too. */
	RW_TRAMP maps_0, , 0, 0, 0, , , TT_FDOP_MAPS
	RW_TRAMP maps_1, , 0, 0, 1, , , TT_FDOP_MAPS

	.size rw_tramp_code, . - rw_tramp_code
	.section .rodata.rw_tramp_locks, "a"
	.size rw_tramp_locks, . - rw_tramp_locks
.Llocks_end:
	.section .rodata.rw_tramp_tab, "a"
	.size rw_tramp_tab, . - rw_tramp_tab
	.balign 4
	.globl rw_tramp_nlocks
	.type rw_tramp_nlocks, @object
rw_tramp_nlocks:
	.long	(.Llocks_end - rw_tramp_locks) / 4
	.size rw_tramp_nlocks, 4

	.section .note.GNU-stack, "", @progbits
