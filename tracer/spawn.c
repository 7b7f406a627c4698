// SPDX-License-Identifier: MIT
/*
 * The spawn target of the ptrace engine: a command or a function run in a
 * child started for the run.  The child must see exactly what it would see
 * without iotrace, so iotrace remembers every signal disposition and the
 * mask it changes, and the child puts them back before it stops itself to
 * be seized.  The seize happens while the child is stopped, before it runs
 * a single instruction of the command, so its very first syscall (the
 * execve, as strace counts it) is traced, and so is every task after it:
 * the seccomp filter and pinning can be used.  Told to stop, the run kills
 * what it started.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/tracer-int.h"

volatile sig_atomic_t tracer_fatal_signal;
static volatile sig_atomic_t tracer_interrupt;
volatile sig_atomic_t tracer_leader;
/* A pidfd of tracer_leader, -1 if none: it never names another process. */
static volatile sig_atomic_t leader_pidfd = -1;

/*
 * Signals whose disposition iotrace changes while it traces.  SIGPIPE
 * (sent, or the report written to a closed pipe) is handled as SIGTERM:
 * it must not kill iotrace and lose --save.
 */
static const int handled_signals[] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP,
				       SIGPIPE };
#define NHANDLED (sizeof(handled_signals) / sizeof(handled_signals[0]))
static struct sigaction saved_actions[NHANDLED];
static sigset_t saved_mask;

/*
 * SIGTERM and SIGHUP sent to iotrace alone end the traced command: kill
 * the first process now (the stop loop kills the rest), so the wait in the
 * loop returns even when nothing else would happen.  Only while iotrace
 * has not reaped it: then its pid may be anyone's.  Through its pidfd
 * where the kernel has them (5.3), so even a signal between the reaping
 * and tracer_leader_reaped() signals nobody; by pid otherwise.
 */
static void on_fatal_signal(int sig)
{
	int saved_errno = errno;	/* the interrupted code's, kept */

	tracer_fatal_signal = sig;
	if (leader_pidfd >= 0)
		syscall(SYS_pidfd_send_signal, (int)leader_pidfd, SIGKILL,
			NULL, 0);
	else if (tracer_leader > 0)
		kill(tracer_leader, SIGKILL);
	errno = saved_errno;
}

static void leader_set(pid_t pid)
{
	tracer_leader = pid;
	leader_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
}

void tracer_leader_reaped(void)
{
	int fd = leader_pidfd;

	tracer_leader = 0;
	leader_pidfd = -1;
	if (fd >= 0)
		close(fd);
}

/*
 * SIGINT and SIGQUIT from the terminal reach the whole foreground group:
 * the command decides what they do, and iotrace stays to print the table
 * of what ran.  iotrace only notes them: one that comes before the command
 * has started (during calibration) or between the runs of a sweep means
 * the user wants to stop.  Signals the user had iotrace ignore (nohup)
 * stay ignored.
 */
static void on_interrupt(int sig)
{
	int saved_errno = errno;

	tracer_interrupt = sig;
	errno = saved_errno;
}

int tracer_pending_signal(void)
{
	return tracer_fatal_signal ? tracer_fatal_signal : tracer_interrupt;
}

void tracer_signals_init(void)
{
	static bool done;	/* a second call must not save our own state */
	struct sigaction sa;
	size_t i;

	if (done)
		return;
	done = true;
	sigprocmask(SIG_SETMASK, NULL, &saved_mask);
	for (i = 0; i < NHANDLED; i++) {
		int sig = handled_signals[i];

		sigaction(sig, NULL, &saved_actions[i]);
		if (saved_actions[i].sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof(sa));
		sigemptyset(&sa.sa_mask);
		/* No SA_RESTART: waitpid returns EINTR to the stop loop. */
		sa.sa_handler = (sig == SIGTERM || sig == SIGHUP ||
				 sig == SIGPIPE) ? on_fatal_signal : on_interrupt;
		sigaction(sig, &sa, NULL);
	}
}

/* In the child, before exec: only async-signal-safe calls. */
static void restore_signals(void)
{
	size_t i;

	for (i = 0; i < NHANDLED; i++)
		sigaction(handled_signals[i], &saved_actions[i], NULL);
	sigprocmask(SIG_SETMASK, &saved_mask, NULL);
}

/*
 * Like execvp: a file the kernel will not run (ENOEXEC: a script without
 * #!) is run by /bin/sh.  No allocation: the child is between fork and
 * exec.
 */
static int exec_command(char **argv)
{
	size_t n = 0;

	execv(argv[0], argv);
	if (errno == ENOEXEC) {
		while (argv[n])
			n++;
		{
			char *sh_argv[n + 2];

			sh_argv[0] = (char *)"sh";
			memcpy(sh_argv + 1, argv, (n + 1) * sizeof(*argv));
			execv("/bin/sh", sh_argv);
		}
	}
	return errno == EACCES ? 126 : 127;
}

int tracer_target_exec(const struct tracer_target *target)
{
	switch (target->kind) {
	case TARGET_COMMAND:
		return exec_command(target->argv);
	case TARGET_FUNCTION:
		return target->child.run(target->child.arg);
	default:
		return 127;
	}
}

static int check_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(path, X_OK) < 0)
		return -errno;
	return 0;
}

int tracer_resolve(const char *argv0, char *buf, size_t size)
{
	const char *path = getenv("PATH"), *p, *end;
	int err, first_err = -ENOENT;

	if (!*argv0)
		return -ENOENT;
	if (strchr(argv0, '/')) {
		if ((size_t)snprintf(buf, size, "%s", argv0) >= size)
			return -ENAMETOOLONG;
		return check_executable(buf);
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		/* An empty PATH element means the current directory. */
		if ((size_t)snprintf(buf, size, "%.*s%s%s", (int)(end - p), p,
				     end == p ? "" : "/", argv0) < size) {
			err = check_executable(buf);
			if (!err)
				return 0;
			/* Like execvp: a found but unrunnable file wins. */
			if (err == -EACCES)
				first_err = err;
		}
		if (!*end)
			return first_err;
	}
}

/*
 * The filter goes in after the seize: loaded before, the SIGSTOP would be
 * a traced syscall with no tracer yet (ENOSYS).  In seccomp mode the
 * parent resumes with PTRACE_CONT, so loading it makes no stop either.
 */
static int load_filter(const struct plan *pl)
{
	struct sock_fprog prog = { pl->bpf_len, pl->bpf };

	if (pl->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	/*
	 * SPEC_ALLOW: a filter must not turn on the speculative store bypass
	 * mitigation the kernel gives seccomp tasks, which would slow the
	 * program down as it never is untraced.  Kernels before 4.17 lack
	 * the flag: plain prctl then.
	 */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_SPEC_ALLOW, &prog) == 0)
		return 0;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

static void child_main(const struct plan *pl,
		       const struct tracer_target *target)
{
	restore_signals();
	/* Stop here until the parent has seized us. */
	kill(getpid(), SIGSTOP);
	if (pl->bpf && load_filter(pl) < 0)
		_exit(126);
	_exit(tracer_target_exec(target));
}

/* Forks the child and seizes it, stopped: it is the run's first task. */
static int spawn_start(struct loop *l, const struct tracer_target *target)
{
	unsigned long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
				PTRACE_O_EXITKILL;
	int status, err;
	pid_t pid;

	if (l->plan.bpf)
		options |= PTRACE_O_TRACESECCOMP;
	if (l->opts->follow)
		options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			   PTRACE_O_TRACECLONE;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_main(&l->plan, target);

	while (waitpid(pid, &status, WSTOPPED) < 0)
		if (errno != EINTR)
			goto out_kill;
	if (!WIFSTOPPED(status)) {
		errno = ECHILD;
		goto out_kill;
	}
	if (ptrace(PTRACE_SEIZE, pid, 0L, options) < 0)
		goto out_kill;
	if (!loop_add_task(l, pid, pid)) {
		errno = ENOMEM;
		goto out_kill;
	}
	l->leader = pid;
	leader_set(pid);
	/*
	 * The seized child reports its group-stop; SIGCONT ends it, so the
	 * child is not left marked stopped.  The loop resumes both stops.
	 */
	kill(pid, SIGCONT);
	return 0;

out_kill:
	err = errno;
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -err;
}

/* Told to stop: everything started for the run is killed. */
static void spawn_end(struct loop *l)
{
	size_t i;

	for (i = 0; i < l->tasks.cap; i++)
		if (l->tasks.slots[i].tid)
			kill(l->tasks.slots[i].tid, SIGKILL);
}

/* A task met after that (a child forked meanwhile) is killed too. */
static bool spawn_end_task(struct loop *l, struct task *t)
{
	(void)l;
	kill(t->tid, SIGKILL);
	return false;	/* resumed, it dies */
}

const struct ptrace_target spawn_target = {
	.from_birth = true,
	.probe = NULL,
	.start = spawn_start,
	.end = spawn_end,
	.end_task = spawn_end_task,
};
