// SPDX-License-Identifier: MIT
/*
 * Tracee: makes exactly N getppid() syscalls, for the test that
 * iotrace's memory does not grow with the number of syscalls.
 * Usage: spin N.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}
