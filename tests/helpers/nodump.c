// SPDX-License-Identifier: MIT
/*
 * Tracee: a process that makes itself non-dumpable (PR_SET_DUMPABLE 0,
 * as ssh-agent and set-user-ID programs are): a tracer of the same user
 * without privilege may neither read nor write its memory
 * (process_vm_*, PTRACE_PEEKDATA) nor its /proc fd links from then on,
 * though it stays its tracer.  Then, alone, it reads its CPU mask, makes
 * N writes to /dev/null, forks a child that calls getppid and is reaped,
 * and reads its mask again.  Prints "dumpable=0 cpus=C,C forked=1", C
 * the CPUs in its mask each time, as sched_getaffinity returns them.
 * Usage: nodump N.
 */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static int cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) < 0)
		return -1;
	return CPU_COUNT(&set);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, fd, before, status, i;
	pid_t pid;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return 1;
	before = cpus();
	fd = open("/dev/null", O_WRONLY);
	if (fd < 0)
		return 1;
	for (i = 0; i < n; i++)
		if (write(fd, "x", 1) != 1)
			return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0)
		_exit(getppid() > 0 ? 0 : 1);
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	printf("dumpable=%d cpus=%d,%d forked=%d\n",
	       prctl(PR_GET_DUMPABLE, 0, 0, 0, 0), before, cpus(),
	       status == 0);
	return 0;
}
