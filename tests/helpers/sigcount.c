// SPDX-License-Identifier: MIT
/*
 * Tracee: reports every SIGUSR1, SIGTERM and SIGPIPE it receives as one
 * line on stdout, until SIGUSR2 ends it (exit 0) or SIGINT does (exit
 * 5, as a program that cleans up on Ctrl-C would).  A tracer that
 * swallows or doubles a signal changes the lines.  "ready" on stdout when
 * the handlers are installed.
 */
#include <signal.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t got[NSIG], done;

static void on_signal(int sig)
{
	if (sig == SIGUSR2 || sig == SIGINT)
		done = sig;
	else
		got[sig]++;
}

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(1);
}

int main(void)
{
	static const int sigs[] = { SIGUSR1, SIGTERM, SIGPIPE, SIGUSR2,
				    SIGINT };
	static const char *const names[] = { "USR1\n", "TERM\n", "PIPE\n" };
	struct sigaction sa;
	sigset_t block, old;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&block);
	for (i = 0; i < 5; i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	/* Block them between checks so none arrives unseen. */
	sigprocmask(SIG_BLOCK, &block, &old);
	say("ready\n");
	while (!done) {
		sigsuspend(&old);
		for (i = 0; i < 3; i++)
			for (; got[sigs[i]]; got[sigs[i]]--)
				say(names[i]);
	}
	if (done == SIGINT)
		say("INT\n");
	return done == SIGINT ? 5 : 0;
}
