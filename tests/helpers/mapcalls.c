// SPDX-License-Identifier: MIT
/*
 * The memory calls of a buffer allocated and freed over and over, for
 * the fast path's mmap (t0955):
 *   mapcalls N
 * N rounds of an anonymous 64 KiB mmap, its munmap and an ioctl
 * (FIONREAD on a pipe); then its own executable mapped once with
 * PROT_EXEC, which must stop (iotrace patches what a process maps to
 * run), and unmapped.  Prints nothing; exits 0, 1 on a failed call.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, fds[2], avail, fd;
	void *p;

	if (argc != 2 || pipe(fds) < 0)
		return 2;
	while (n-- > 0) {
		p = mmap(NULL, 65536, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || munmap(p, 65536) < 0 ||
		    ioctl(fds[0], FIONREAD, &avail) < 0)
			return 1;
	}
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED || munmap(p, 4096) < 0)
		return 1;
	return 0;
}
