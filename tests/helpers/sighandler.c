// SPDX-License-Identifier: MIT
/*
 * Tracee: a signal handler's calls, for the tables they make (each
 * delivery ends in an rt_sigreturn).  Usage: sighandler N: N times
 * raises SIGUSR1, whose handler (sa_mask full, SA_RESTART) writes one
 * byte to /dev/null; prints "signals=N" to stdout.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got;
static int devnull;

static void on_signal(int sig)
{
	(void)sig;
	got++;
	if (write(devnull, "s", 1) != 1)
		_exit(3);
}

int main(int argc, char **argv)
{
	int i, n = argc > 1 ? atoi(argv[1]) : 0;
	struct sigaction sa;

	devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0)
		return 2;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++)
		raise(SIGUSR1);
	printf("signals=%d\n", (int)got);
	return 0;
}
