// SPDX-License-Identifier: MIT
/*
 * Tracee: reads of an empty pipe interrupted by a timer signal, the
 * handler installed without SA_RESTART, so each interrupted read fails
 * with EINTR and the program sees it.  A periodic SIGALRM (setitimer,
 * every 2 ms) runs until N reads have failed with EINTR; the timer is
 * then stopped, a byte written to the pipe and read.  Prints
 * "eintr=E other=O read=R": E reads failed with EINTR (N), O failed
 * otherwise or returned early (0), R the last read's result (1).
 * Signals that come between two reads interrupt nothing (nothing else
 * blocks), so what timing decides is how many signals there were, not
 * the counts: the read row is N + 1 calls (and the loader's), N
 * errors; setitimer 2.  Usage: readintr N.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

int main(int argc, char **argv)
{
	struct itimerval every = {{0, 2000}, {0, 2000}}, stop;
	int p[2], n = argc > 1 ? atoi(argv[1]) : 1, eintr = 0, other = 0;
	struct sigaction sa;
	ssize_t r;
	char c;

	memset(&sa, 0, sizeof(sa));
	memset(&stop, 0, sizeof(stop));
	sa.sa_handler = on_alarm; /* sa_flags 0: no SA_RESTART */
	if (sigaction(SIGALRM, &sa, NULL) < 0 || pipe(p) < 0 ||
	    setitimer(ITIMER_REAL, &every, NULL) < 0)
		return 1;
	while (eintr < n) {
		r = read(p[0], &c, 1);
		if (r < 0 && errno == EINTR)
			eintr++;
		else
			other++;
	}
	if (setitimer(ITIMER_REAL, &stop, NULL) < 0 || write(p[1], "d", 1) != 1)
		return 1;
	r = read(p[0], &c, 1);
	printf("eintr=%d other=%d read=%d\n", eintr, other, (int)r);
	return 0;
}
