// SPDX-License-Identifier: MIT
/*
 * Tracee: a program that asks to be traced by its parent, as a debugger's
 * inferior does.  Under a tracer PTRACE_TRACEME fails with EPERM (a task
 * has one tracer), and the program goes on untraced by its parent: no
 * SIGTRAP stops it, its parent never sees it stopped.  Usage: traceme
 * MODE, MODE one of
 *   self   PTRACE_TRACEME, then raises SIGUSR1 (handled): prints
 *          "traceme=R usr1=1", R 0 or an errno name.  Untraced its
 *          parent would be its tracer and see it stopped: run it only
 *          under a tracer (or as "child" does)
 *   child  forks a child that runs "traceme exec" (/proc/self/exe):
 *          it asks to be traced, then runs /bin/true, whose exec stops
 *          it with SIGTRAP if it is traced by this process; each stop
 *          seen is printed
 *          ("stopped SIGTRAP") and continued; then how it ended
 *          ("exited 0", "killed by N")
 * Untraced, "child" prints "traceme=0", "stopped SIGTRAP", "exited 0";
 * under a tracer "traceme=EPERM", "exited 0".
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t usr1;

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

static const char *traceme(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		return "0";
	return errno == EPERM ? "EPERM" : "other";
}

static int mode_self(void)
{
	struct sigaction sa;
	const char *r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	r = traceme();
	raise(SIGUSR1);
	printf("traceme=%s usr1=%d\n", r, (int)usr1);
	return 0;
}

static int mode_exec(void)
{
	printf("traceme=%s\n", traceme());
	fflush(stdout);
	execl("/bin/true", "true", (char *)NULL);
	return 127;
}

/* The would-be debugger: every stop of the child printed, continued. */
static int mode_child(void)
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		execl("/proc/self/exe", "traceme", "exec", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == pid && WIFSTOPPED(status)) {
		printf("stopped %s\n", WSTOPSIG(status) == SIGTRAP ? "SIGTRAP" :
		       "other");
		fflush(stdout);
		ptrace(PTRACE_CONT, pid, NULL, NULL);
	}
	if (WIFEXITED(status))
		printf("exited %d\n", WEXITSTATUS(status));
	else
		printf("killed by %d\n", WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "self"))
		return mode_self();
	if (argc == 2 && !strcmp(argv[1], "exec"))
		return mode_exec();
	if (argc == 2 && !strcmp(argv[1], "child"))
		return mode_child();
	fprintf(stderr, "usage: traceme self|child\n");
	return 2;
}
