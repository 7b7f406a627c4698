// SPDX-License-Identifier: MIT
/*
 * Tracee: children that run this program again (/proc/self/exe) to make
 * N one-byte writes to /dev/null.  Usage: children MODE N [K], MODE one of
 *   vfork  vfork(), the child execs "children write N"; the parent
 *          waits for it
 *   spawn  the same child made by posix_spawn
 *   chain  K execs in a row: the program writes N times, says
 *          "chain K", and execs itself with K-1, down to 0
 *   write  the child: N writes, then "wrote N"
 * The exit status is the child's.  The truth: the write row is N per
 * program that writes plus one per line printed; execve 2 (vfork,
 * spawn) or K + 1 (chain).
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static void writes(int n)
{
	int i, fd = open("/dev/null", O_WRONLY);

	for (i = 0; i < n; i++)
		if (fd < 0 || write(fd, "x", 1) != 1)
			exit(3);
	close(fd);
}

/* The child's status as an exit status: 0-255, 128 + signal. */
static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	char *child[] = {argv[0], "write", argc > 2 ? argv[2] : "1", NULL};
	char next[16];
	pid_t pid;
	int k;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "write")) {
		writes(atoi(argv[2]));
		printf("wrote %s\n", argv[2]);
		return 0;
	}
	if (!strcmp(argv[1], "vfork")) {
		pid = vfork();
		if (pid == 0) {
			execv("/proc/self/exe", child);
			_exit(127);
		}
		return reap(pid);
	}
	if (!strcmp(argv[1], "spawn")) {
		if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, child,
				environ))
			return 1;
		return reap(pid);
	}
	if (!strcmp(argv[1], "chain") && argc == 4) {
		k = atoi(argv[3]);
		writes(atoi(argv[2]));
		printf("chain %d\n", k);
		if (k == 0)
			return 0;
		fflush(stdout);
		snprintf(next, sizeof(next), "%d", k - 1);
		execv("/proc/self/exe",
		      (char *[]){argv[0], "chain", argv[2], next, NULL});
		return 127;
	}
	return 2;
}
