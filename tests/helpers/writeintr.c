// SPDX-License-Identifier: MIT
/*
 * A write blocked on a full pipe, interrupted by a periodic SIGALRM
 * whose handler has no SA_RESTART, 5 times (t0955): each interrupted
 * write fails with EINTR, which the program sees and strace counts as
 * one call with an error.  Prints "eintr=5 other=0".
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static void on_alarm(int sig)
{
	(void)sig;
}

int main(void)
{
	struct itimerval every = { { 0, 20000 }, { 0, 20000 } }, off;
	struct sigaction sa;
	char buf[4096];
	int p[2], i, eintr = 0, other = 0;

	memset(&sa, 0, sizeof(sa));
	memset(&off, 0, sizeof(off));
	memset(buf, 0, sizeof(buf));
	sa.sa_handler = on_alarm;
	if (pipe(p) < 0 || sigaction(SIGALRM, &sa, NULL) < 0 ||
	    fcntl(p[1], F_SETFL, O_NONBLOCK) < 0)
		return 1;
	while (write(p[1], buf, sizeof(buf)) > 0)	/* full */
		;
	if (fcntl(p[1], F_SETFL, 0) < 0 || setitimer(ITIMER_REAL, &every, NULL))
		return 1;
	for (i = 0; i < 5; i++) {
		if (write(p[1], buf, 1) < 0 && errno == EINTR)
			eintr++;
		else
			other++;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("eintr=%d other=%d\n", eintr, other);
	return 0;
}
