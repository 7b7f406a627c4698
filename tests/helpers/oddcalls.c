// SPDX-License-Identifier: MIT
/*
 * Makes calls outside the syscall tables, once each, and one write to
 * stdout: syscall(5000), syscall(-1), syscall(1024) (just past the
 * tables, which hold numbers 0..1023), and, built for x86_64, getpid and
 * write by their x32 numbers (the x32 bit set; a kernel without x32
 * refuses them with ENOSYS, but tracers see them).  Every odd call fails
 * with ENOSYS; the program exits 0 when they all did.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#define X32_BIT 0x40000000L

static int odd(long nr)
{
	return syscall(nr, -1L, 0L, 0L) == -1 && errno == ENOSYS;
}

int main(void)
{
	int all = odd(5000) & odd(-1) & odd(1024);

#ifdef __x86_64__
	if (syscall(X32_BIT | SYS_getpid) < 0)
		all &= errno == ENOSYS;
	/* x32's write (a kernel with x32 writes nothing to fd -1 either) */
	all &= syscall(X32_BIT | SYS_write, -1L, "x", 1L) == -1;
#endif
	if (write(1, "odd\n", 4) != 4)
		return 1;
	return all ? 0 : 1;
}
