/* SPDX-License-Identifier: MIT */
/*
 * A shared object of known truth for the fast path's site finder
 * (tests/unit/test-rewrite-sites.c), never run: one function per rule
 * of tracer/rewrite/sites.c, each with its syscall.  Hot in the test:
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

/* SHAPE twice: a 7-byte mov to %rax, and xor. */
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
