// SPDX-License-Identifier: MIT
/*
 * A 64-bit program that makes calls of the other personalities: N
 * getpid()s through int $0x80 (i386 number 20, which is writev on
 * x86_64), one x32 getpid, then N writes to /dev/null.  Prints
 * "int80=ok" when every int $0x80 getpid returned the pid, and "x32="
 * "pid", "enosys" (a kernel without x32) or "other": the same traced
 * as untraced.  Usage: int80 N
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define X32_BIT 0x40000000L

static long int80(long nr)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr) : "memory");
	return r;
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 1, ok = 1;
	long pid = getpid(), r;
	int fd = open("/dev/null", O_WRONLY);

	for (i = 0; i < n; i++)
		ok &= int80(20) == pid;
	r = syscall(X32_BIT | SYS_getpid);
	for (i = 0; i < n && fd >= 0; i++)
		if (write(fd, "x", 1) != 1)
			return 3;
	printf("int80=%s\nx32=%s\n", ok ? "ok" : "wrong",
	       r == pid ? "pid" : r < 0 && errno == ENOSYS ? "enosys" :
	       "other");
	return 0;
}
