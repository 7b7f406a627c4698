// SPDX-License-Identifier: MIT
/*
 * A child made with CLONE_UNTRACED (raw clone, or clone3 with "3"): the
 * child writes one line to stdout, then its Cpus_allowed_list line from
 * /proc/self/status (pinning must have ended), and exits 0; the parent
 * waits for it and exits with the child's status.  Under iotrace the
 * child must run as it does untraced (not fail with ENOSYS under an
 * unanswered filter) and its writes are counted.
 */
#include <linux/sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_UNTRACED
#define CLONE_UNTRACED 0x00800000
#endif

static long make_child(int use_clone3)
{
	struct clone_args ca;

	if (!use_clone3)
		return syscall(SYS_clone, CLONE_UNTRACED | SIGCHLD, 0L, 0L,
			       0L, 0L);
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_UNTRACED;
	ca.exit_signal = SIGCHLD;
	return syscall(SYS_clone3, &ca, sizeof(ca));
}

/* The child: two writes, 0 when both are whole. */
static int child(void)
{
	static const char line[] = "child wrote\n";
	char buf[4096], *p, *end;
	int fd = open("/proc/self/status", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (write(1, line, sizeof(line) - 1) != sizeof(line) - 1 || n <= 0)
		return 1;
	buf[n] = '\0';
	p = strstr(buf, "\nCpus_allowed_list:");
	end = p ? strchr(p + 1, '\n') : NULL;
	if (!end)
		return 1;
	return write(1, p + 1, end - p) == end - p ? 0 : 1;
}

int main(int argc, char **argv)
{
	long pid = make_child(argc > 1 && strcmp(argv[1], "3") == 0);
	int status;

	if (pid < 0)
		return 3;
	if (pid == 0)
		_exit(child());
	if (waitpid((pid_t)pid, &status, 0) != (pid_t)pid)
		return 4;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 5;
}
