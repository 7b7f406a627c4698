// SPDX-License-Identifier: MIT
/*
 * Tracee: forks N children one after another; each calls getppid() once
 * and exits; the parent reaps each with wait4.  A tracer following
 * children counts exactly N forks, N getppid and N wait4.
 * Usage: forker N [P].  With P, P processes do that at once: the first
 * forks them all, then reaps them with wait4 (P more forks and wait4s,
 * P*N getppid), and exits 1 if any of them failed.
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int forks(int n)
{
	int i, status, bad = 0;
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

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i, status, bad = 0;
	int p = argc > 2 ? atoi(argv[2]) : 0;
	pid_t pid;

	if (!p)
		return forks(n);
	for (i = 0; i < p; i++) {
		pid = fork();
		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(forks(n));
	}
	for (i = 0; i < p; i++)
		if (wait(&status) < 0 || status != 0)
			bad++;
	return bad ? 1 : 0;
}
