// SPDX-License-Identifier: MIT
/*
 * Tracee: a second thread execs the command while the leader waits in
 * pause(), so the kernel hands the leader's tid to the execing thread.
 * The tracer must keep counting the new program under the leader's tid.
 * Usage: threxec COMMAND [ARGS...].
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char **cmd;

static void *execer(void *arg)
{
	(void)arg;
	execv(cmd[0], cmd);
	perror(cmd[0]);
	_exit(127);
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc < 2)
		return 2;
	cmd = argv + 1;
	if (pthread_create(&t, NULL, execer, NULL))
		return 1;
	for (;;)
		pause();
}
