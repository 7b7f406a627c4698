// SPDX-License-Identifier: MIT
/*
 * seccomp-self COUNT [COMMAND ARGS...]: installs its own seccomp filter
 * (allow everything, as sandboxes layered on top of a tracer do, but
 * kill the process at an mprotect making memory executable, as a
 * W^X sandbox would), then makes COUNT writes to /dev/null, then runs
 * COMMAND if given (which inherits the filter).  iotrace's counts must
 * not change because of it, and nothing of iotrace's may trip it.
 */
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter allow[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mprotect, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(allow) / sizeof(allow[0]), allow };
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
	if (argc > 2) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		return 127;
	}
	return 0;
}
