/* SPDX-License-Identifier: MIT */
/*
 * A shared object of known truth for the fast path's site finder
 * (tests/unit/test-rewrite-sites.c), never run: one function per rule
 * of tracer/rewrite/sites.c and shape, each with its syscall.  Hot in the test:
 * read (0), write (1), pread64 (17).  Functions with .size are found by
 * their symbols; rw_fde has none, so only its FDE (.cfi_*) gives its
 * range.  The bytes that matter are spelled out with .byte where the
 * assembler could choose another encoding.
 */
	.text

/* Declares a function with a symbol of its size; its CFI opens. */
#define FUNC(name) \
	.globl name; .type name, @function; .p2align 4; name: .cfi_startproc
#define END(name) .cfi_endproc; .size name, . - name

/* Accepted: mov $0,%eax; syscall. */
FUNC(rw_plain)
	.byte 0xb8, 0, 0, 0, 0		/* mov $0,%eax (read) */
	syscall
	ret
END(rw_plain)

/* NOT_HOT: getpid (39) is not in the hot set. */
FUNC(rw_cold)
	.byte 0xb8, 39, 0, 0, 0		/* mov $39,%eax */
	syscall
	ret
END(rw_cold)

/* SHAPE twice: a 7-byte mov to %rax, and xor with no cmp after. */
FUNC(rw_rax)
	.byte 0x48, 0xc7, 0xc0, 1, 0, 0, 0	/* mov $1,%rax */
	syscall
	ret
END(rw_rax)

FUNC(rw_xor)
	xorl %eax, %eax
	syscall
	ret
END(rw_xor)

/* UNDECODED: b8 01 00 00 00 0f 05 is the tail of mov $1,%r8d. */
FUNC(rw_r8)
	.byte 0x41, 0xb8, 1, 0, 0, 0	/* mov $1,%r8d */
	syscall
	ret
END(rw_r8)

/* TARGET: rw_into jumps into the middle of this mov (jmp rel32). */
FUNC(rw_target)
.Ltarget_mov:
	.byte 0xb8, 1, 0, 0, 0		/* mov $1,%eax (write) */
	syscall
	ret
END(rw_target)

FUNC(rw_into)
	{disp32} jmp .Ltarget_mov + 2
END(rw_into)

/* Accepted: rw_tosys jumps to its syscall, past the mov (jmp rel8). */
FUNC(rw_shared)
	.byte 0xb8, 1, 0, 0, 0		/* mov $1,%eax (write) */
.Lshared_sys:
	syscall
	ret
END(rw_shared)

FUNC(rw_tosys)
	jmp .Lshared_sys
END(rw_tosys)

/* Accepted, found through its FDE: no .size, so no sized symbol. */
	.globl rw_fde
	.type rw_fde, @function
	.p2align 4
rw_fde:
	.cfi_startproc
	.byte 0xb8, 17, 0, 0, 0		/* mov $17,%eax (pread64) */
	syscall
	ret
	.cfi_endproc

/* Accepted, the xor shape (read): xor; syscall; cmp $-4096,%rax, as
 * glibc's read; rw_xorin branches to its first byte and past its cmp,
 * which stay instruction starts once it is rewritten. */
FUNC(rw_xorcmp)
.Lxor_site:
	.byte 0x31, 0xc0			/* xor %eax,%eax */
	syscall
	.byte 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff	/* cmp $-4096,%rax */
.Lxor_after:
	ja 1f
	ret
1:	neg %eax
	ret
END(rw_xorcmp)

FUNC(rw_xorin)
	jz .Lxor_site
	jmp .Lxor_after
END(rw_xorin)

/* TARGET: the xor shape's syscall is overwritten; a branch to it
 * refuses the site. */
FUNC(rw_xorsys)
	.byte 0x31, 0xc0
.Lxorsys_sys:
	syscall
	.byte 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff
	ret
END(rw_xorsys)

FUNC(rw_toxorsys)
	jmp .Lxorsys_sys
END(rw_toxorsys)

/* TARGET: so is its cmp (the last byte the rewrite takes: + 9). */
FUNC(rw_xorend)
	.byte 0x31, 0xc0
	syscall
	.byte 0x48, 0x3d, 0x00, 0xf0, 0xff
.Lxorend_last:
	.byte 0xff
	ret
END(rw_xorend)

FUNC(rw_toxorend)
	{disp32} jmp .Lxorend_last
END(rw_toxorend)

/* Accepted as the xor shape, though b8 is 5 bytes before the syscall
 * too: the decode steps on the xor (add $0x1b800,%eax ends in b8 01
 * 00), and as a mov the number would be 0xc0310001. */
FUNC(rw_both)
	.byte 0x05, 0x00, 0xb8, 0x01, 0x00	/* add $0x1b800,%eax */
	.byte 0x31, 0xc0
	syscall
	.byte 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff
	ret
END(rw_both)

/* Accepted, the loads shape (pwrite64, 18), as glibc's splice when it
 * has threads: the mov, two loads from the frame, then the syscall. */
FUNC(rw_loads)
	.byte 0xb8, 18, 0, 0, 0			/* mov $18,%eax */
	.byte 0x48, 0x8b, 0x74, 0x24, 0x10	/* mov 0x10(%rsp),%rsi */
	.byte 0x8b, 0x7c, 0x24, 0x08		/* mov 0x8(%rsp),%edi */
	syscall
	ret
END(rw_loads)

/* SHAPE three times: loads the trampoline may not run twice or
 * elsewhere: into %rax (the number), relative to rip, with an index. */
FUNC(rw_loadrax)
	.byte 0xb8, 18, 0, 0, 0
	.byte 0x48, 0x8b, 0x44, 0x24, 0x10	/* mov 0x10(%rsp),%rax */
	syscall
	ret
END(rw_loadrax)

FUNC(rw_loadrip)
	.byte 0xb8, 18, 0, 0, 0
	.byte 0x48, 0x8b, 0x35, 0, 0, 0, 0	/* mov 0(%rip),%rsi */
	syscall
	ret
END(rw_loadrip)

FUNC(rw_loadidx)
	.byte 0xb8, 18, 0, 0, 0
	.byte 0x48, 0x8b, 0x34, 0x0c		/* mov (%rsp,%rcx),%rsi */
	syscall
	ret
END(rw_loadidx)

/* Not a syscall: b8 01 00 00 00 0f 05 90 is movabs's immediate. */
FUNC(rw_imm)
	.byte 0x48, 0xb8, 0xb8, 1, 0, 0, 0, 0x0f, 0x05, 0x90
	ret
END(rw_imm)

/* UNDECODED: the same bytes as data between functions, in no range. */
	.globl rw_data
	.type rw_data, @object
	.p2align 4
rw_data:
	.byte 0xb8, 1, 0, 0, 0, 0x0f, 0x05
	.size rw_data, . - rw_data

	.section .note.GNU-stack, "", @progbits
