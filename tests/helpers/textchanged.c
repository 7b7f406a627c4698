// SPDX-License-Identifier: MIT
/*
 * Tracee: changes its own libc's write() before it writes.  In the first
 * 64 bytes of libc's write it finds `mov $1,%eax; syscall` (b8 01 00 00
 * 00 0f 05) and makes the mov `xor %eax,%eax; inc %eax; nop` (31 c0 ff
 * c0 90): the same call, other bytes than libc.so.6 has there.  Then it
 * makes N one-byte writes to /dev/null.  Prints "changed=1 writes=N"
 * (changed=0 where the pattern is not found: nothing to test).  The
 * truth, untraced: N + 1 writes (the line it prints), whatever a tracer
 * does; a tracer that rewrites call sites must leave this one alone, as
 * its bytes are not the file's.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static const unsigned char site[] = { 0xb8, 1, 0, 0, 0, 0x0f, 0x05 };
static const unsigned char same[] = { 0x31, 0xc0, 0xff, 0xc0, 0x90 };

static int change(unsigned char *fn)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *at = NULL, *start;
	int i;

	for (i = 0; i < 64; i++)
		if (!memcmp(fn + i, site, sizeof(site))) {
			at = fn + i;
			break;
		}
	if (!at)
		return 0;
	start = (unsigned char *)((uintptr_t)at & ~(uintptr_t)(page - 1));
	/* Two pages: the 5 bytes may cross into the next. */
	if (mprotect(start, 2 * page, PROT_READ | PROT_WRITE | PROT_EXEC) < 0)
		return 0;
	memcpy(at, same, sizeof(same));
	mprotect(start, 2 * page, PROT_READ | PROT_EXEC);
	return 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000, fd, i, changed;
	unsigned char *fn = dlsym(RTLD_NEXT, "write");

	changed = fn ? change(fn) : 0;
	fd = open("/dev/null", O_WRONLY);
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return 1;
	close(fd);
	printf("changed=%d writes=%d\n", changed, n);
	return 0;
}
