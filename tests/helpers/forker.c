// SPDX-License-Identifier: MIT
/*
 * Tracee: forks N children one after another; each calls getppid() once
 * and exits; the parent reaps each with wait4.  A tracer following
 * children counts exactly N forks, N getppid and N wait4.
 * Usage: forker N.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i, status, bad = 0;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(getppid() > 0 ? 7 : 1);
		if (waitpid(pid, &status, 0) != pid ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 7)
			bad++;
	}
	return bad ? 1 : 0;
}
