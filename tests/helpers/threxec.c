// SPDX-License-Identifier: MIT
/*
 * Tracee: a second thread execs the command while the leader waits in
 * pause(), so the kernel hands the leader's tid to the execing thread.
 * The tracer must keep counting the new program under the leader's tid.
 * With -w FILE the leader first writes one byte to FILE, opened
 * close-on-exec after /dev/null (so on fd 4 when 0-2 are open): the exec
 * frees that fd number for the new program, whose loader uses fd 3 only.
 * Usage: threxec [-w FILE] COMMAND [ARGS...].
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
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

	int fd;

	if (argc > 3 && !strcmp(argv[1], "-w")) {
		if (open("/dev/null", O_RDONLY | O_CLOEXEC) < 0)
			return 1;
		fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  0644);
		if (fd < 0 || write(fd, "a", 1) != 1)
			return 1;
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		return 2;
	cmd = argv + 1;
	if (pthread_create(&t, NULL, execer, NULL))
		return 1;
	for (;;)
		pause();
}
