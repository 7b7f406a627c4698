// SPDX-License-Identifier: MIT
/*
 * seccomp-self COUNT: installs its own seccomp filter (allow everything,
 * as sandboxes layered on top of a tracer do), then makes COUNT writes to
 * /dev/null.  iotrace's counts must not change because of it.
 */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 1, allow };
	long i, n = argc > 1 ? atol(argv[1]) : 10;
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("seccomp");
		return 1;
	}
	fd = open("/dev/null", O_WRONLY);
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return 1;
	return 0;
}
