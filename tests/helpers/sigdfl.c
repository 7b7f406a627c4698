// SPDX-License-Identifier: MIT
/*
 * Runs a command with a known signal state: every signal's disposition
 * back to default and nothing blocked, then -i SIG ignores and -b SIG
 * blocks the given ones (numbers or names without SIG).  The tests use it
 * to start iotrace as a shell with job control, nohup or a blocked mask
 * would, since a non-interactive test shell ignores SIGINT in background
 * jobs and cannot undo that.
 * Usage: sigdfl [-i SIG]... [-b SIG]... COMMAND [ARGS...]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * glibc refuses to touch the two signals it reserves (32 and 33), which
 * make leaves ignored; the raw call sets them too.
 */
static void set_disposition(int sig, void (*handler)(int))
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} ksa = { handler, 0, NULL, 0 };

	syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof(ksa.mask));
}

static int signum(const char *s)
{
	int sig;

	if (s[0] >= '0' && s[0] <= '9')
		return atoi(s);
	for (sig = 1; sig < NSIG; sig++)
		if (sigabbrev_np(sig) && !strcmp(sigabbrev_np(sig), s))
			return sig;
	fprintf(stderr, "sigdfl: unknown signal '%s'\n", s);
	exit(2);
}

int main(int argc, char **argv)
{
	sigset_t mask;
	int sig, c;

	sigemptyset(&mask);
	for (sig = 1; sig < NSIG; sig++)
		set_disposition(sig, SIG_DFL);
	while ((c = getopt(argc, argv, "+i:b:")) != -1) {
		if (c == 'i')
			set_disposition(signum(optarg), SIG_IGN);
		else if (c == 'b')
			sigaddset(&mask, signum(optarg));
		else
			return 2;
	}
	if (optind >= argc)
		return 2;
	sigprocmask(SIG_SETMASK, &mask, NULL);
	execvp(argv[optind], argv + optind);
	perror(argv[optind]);
	return 127;
}
