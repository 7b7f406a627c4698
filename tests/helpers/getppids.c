// SPDX-License-Identifier: MIT
/*
 * Tracee: getppid made as iotrace's stop calibration makes it, from the
 * program itself.  N plain getppid() calls, then M by syscall(3) with
 * 0x696f7472616365 ("iotrace", tracer/ptrace/ptrace-int.h's CALIB_MAGIC)
 * as a first argument, which the kernel ignores and iotrace's filter
 * stops at.  Prints "same=S" (how many of the M returned getppid()'s
 * answer).  The truth: the getppid row is N + M calls, no error, with
 * or without iotrace's own calibration before the program starts.
 * Usage: getppids N M.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int m = argc > 2 ? atoi(argv[2]) : 1;
	int i, same = 0;
	pid_t parent = 0;

	for (i = 0; i < n; i++)
		parent = getppid();
	for (i = 0; i < m; i++)
		same += syscall(SYS_getppid, 0x696f7472616365ull) == parent;
	printf("same=%d\n", same);
	return 0;
}
