// SPDX-License-Identifier: MIT
/*
 * Tracee: write(2) made without libc's write(): N one-byte writes to
 * /dev/null by a syscall instruction of the program's own (inline
 * `mov $1,%eax; syscall` on x86_64, `mov $4,%eax; int $0x80` on i386:
 * no libc code runs), then N by syscall(3), libc's generic wrapper, with
 * SYS_write.  Prints "raw=R syscall=S", the writes that returned 1 of
 * each (N and N).  The truth: the write row is 2N + 1 calls (the line
 * printed), no error.  Usage: rawcalls N.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One write(fd, "x", 1) by the program's own instruction. */
static long raw_write(long fd)
{
	static const char x = 'x';
	long r;

#ifdef __x86_64__
	__asm__ volatile("mov $1, %%eax\n\tsyscall"
			 : "=a"(r)
			 : "D"(fd), "S"(&x), "d"(1L)
			 : "rcx", "r11", "memory");
#else
	__asm__ volatile("mov $4, %%eax\n\tint $0x80"
			 : "=a"(r)
			 : "b"(fd), "c"(&x), "d"(1L)
			 : "memory");
#endif
	return r;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 1, raw = 0, gen = 0;
	int fd = open("/dev/null", O_WRONLY);

	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++)
		raw += raw_write(fd) == 1;
	for (i = 0; i < n; i++)
		gen += syscall(SYS_write, fd, "x", 1) == 1;
	printf("raw=%d syscall=%d\n", raw, gen);
	return 0;
}
