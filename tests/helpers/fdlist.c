// SPDX-License-Identifier: MIT
/*
 * Tracee: prints every open descriptor with what it points to, its
 * status flags and close-on-exec flag, in fd order, skipping the one it
 * reads /proc/self/fd with.  A tracer that leaks or changes descriptors
 * changes the output.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void)
{
	DIR *d = opendir("/proc/self/fd");
	char path[64], target[4096];
	int fd, max = 1024;
	ssize_t n;

	if (!d)
		return 1;
	for (fd = 0; fd < max; fd++) {
		if (fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		printf("%d %s flags=%#x fd_flags=%#x\n", fd, target,
		       fcntl(fd, F_GETFL), fcntl(fd, F_GETFD));
	}
	closedir(d);
	return 0;
}
