// SPDX-License-Identifier: MIT
/*
 * The shared object tests/helpers/dlwrite.c dlopens (built into
 * build/helpers/libhotwrite.so, and -m32 into build/helpers32/): two
 * functions that each make N one-byte writes to FD and return how many
 * returned 1.  hotwrite_libc calls libc's write(); hotwrite_raw has its
 * own call site, `mov $1,%eax; syscall` (x86_64: the pattern a
 * rewriter of libc's sites looks for, here in code loaded late) or
 * `mov $4,%eax; int $0x80` (i386).
 */
#include <unistd.h>

int hotwrite_libc(int fd, int n)
{
	int i, ok = 0;

	for (i = 0; i < n; i++)
		ok += write(fd, "x", 1) == 1;
	return ok;
}

int hotwrite_raw(int fd, int n)
{
	static const char x = 'x';
	int i, ok = 0;
	long r;

	for (i = 0; i < n; i++) {
#ifdef __x86_64__
		__asm__ volatile("mov $1, %%eax\n\tsyscall"
				 : "=a"(r)
				 : "D"((long)fd), "S"(&x), "d"(1L)
				 : "rcx", "r11", "memory");
#else
		__asm__ volatile("mov $4, %%eax\n\tint $0x80"
				 : "=a"(r)
				 : "b"(fd), "c"(&x), "d"(1L)
				 : "memory");
#endif
		ok += r == 1;
	}
	return ok;
}
