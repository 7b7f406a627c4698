// SPDX-License-Identifier: MIT
/*
 * seccomp-strict prctl|seccomp N [bad]: prints what PR_GET_SECCOMP says,
 * enters seccomp strict mode (by prctl or by seccomp(2)) and prints its
 * result; then, in strict mode, writes N lines to stdout and reads one
 * byte from stdin, and leaves with exit(2) (status 0).  With "bad" it
 * then calls getppid, which strict mode answers with SIGKILL.  Entering
 * strict mode fails only with a filter in place (EINVAL): it then exits
 * 3 after saying so.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char line[64], c;
	int i, n, len, ret;

	if (argc < 3)
		return 2;
	n = atoi(argv[2]);
	printf("PR_GET_SECCOMP: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
	fflush(stdout);
	if (!strcmp(argv[1], "prctl"))
		ret = prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0);
	else
		ret = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0,
				   NULL);
	if (ret < 0) {
		printf("strict: %s\n", strerror(errno));
		return 3;
	}
	/* From here: read, write, exit and sigreturn only. */
	len = snprintf(line, sizeof(line), "strict: %d\n", ret);
	if (write(1, line, (size_t)len) != len)
		syscall(SYS_exit, 4);
	for (i = 0; i < n; i++)
		if (write(1, "in strict mode\n", 15) != 15)
			syscall(SYS_exit, 4);
	if (read(0, &c, 1) < 0)
		syscall(SYS_exit, 5);
	if (argc > 3 && !strcmp(argv[3], "bad"))
		syscall(SYS_getppid);
	syscall(SYS_exit, 0);
	return 0;
}
