// SPDX-License-Identifier: MIT
/*
 * The spawn target of the ptrace engine: a command or a function run in a
 * child started for the run.  The child must see exactly what it would see
 * without iotrace, so iotrace remembers every signal disposition and the
 * mask it changes, and the child puts them back before it is seized.  The
 * seize happens before the child runs a single instruction of the
 * command, so its very first syscall (the execve, as strace counts it) is
 * traced, and so is every task after it: the seccomp filter and pinning
 * can be used.  Told to stop, the run kills what it started.
 *
 * Nothing iotrace starts may outlive it stopped, even when iotrace is
 * killed by a signal it cannot catch: the child is seized with
 * PTRACE_O_EXITKILL while it waits on a pipe, not while it is stopped, and
 * goes on only once it has read a byte the parent writes after the seize;
 * end of file instead means the parent died first, and the child exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

/*
 * execve(2) itself, its error as -errno: the child of a command shares
 * iotrace's memory, errno with it (spawn_child()), so the child reads
 * no errno.
 */
static long raw_execve(const char *path, char *const argv[])
{
#ifdef __x86_64__
	long r;

	__asm__ volatile("syscall"
			 : "=a"(r)
			 : "0"((long)SYS_execve), "D"(path), "S"(argv),
			   "d"(environ)
			 : "rcx", "r11", "memory");
	return r;
#else
	execv(path, argv);
	return -errno;
#endif
}

/*
 * Like execvp: the resolved path is run with argv as typed (argv[0]
 * too: `sh -c 'echo $0'` says sh, dd's messages say dd), and a file the
 * kernel will not run (ENOEXEC: a script without #!) is run by /bin/sh
 * as glibc's execvp runs it: /bin/sh PATH ARGS...  No allocation: the
 * child is between fork and exec.
 */
static int exec_command(const struct tracer_command *c)
{
	size_t n = 0;
	long err = raw_execve(c->path, c->argv);

	if (err == -ENOEXEC) {
		while (c->argv[n])
			n++;
		{
			char *sh_argv[n + 2];

			sh_argv[0] = (char *)"/bin/sh";
			sh_argv[1] = (char *)c->path;
			memcpy(sh_argv + 2, c->argv + 1, n * sizeof(*c->argv));
			err = raw_execve("/bin/sh", sh_argv);
		}
	}
	return err == -EACCES ? 126 : 127;
}

int tracer_target_exec(const struct tracer_target *target)
{
	switch (target->kind) {
	case TARGET_COMMAND:
		return exec_command(&target->command);
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

/*
 * In the child: waits for the parent's byte on go, which comes only once
 * the child is seized (EXITKILL: a death of iotrace kills it from then
 * on); end of file means iotrace died before, and the child goes too,
 * never stopped.  Then it stops itself once, traced: the parent turns on
 * the run's mode of stops (and discards the SIGSTOP) before the filter is
 * loaded and the command's first call is made.  The read and the kill
 * make no syscall stop: none is asked for before that stop.  The stop
 * calibration's calls come last, from iotrace's code (calibrate.c).
 */
static void child_main(const struct plan *pl,
		       const struct tracer_target *target, int go_fd)
{
	ssize_t n;
	char go;

	tracer_signals_restore();
	while ((n = read(go_fd, &go, 1)) < 0 && errno == EINTR)
		;
	if (n != 1)
		_exit(127);
	close(go_fd);
	kill(getpid(), SIGSTOP);
	if (pl->bpf && load_filter(pl) < 0)
		_exit(126);
	if (pl->calib)
		calib_run_calls();
	_exit(tracer_target_exec(target));
}

/*
 * After the seize and the parent's byte: waits for the child's own
 * SIGSTOP and resumes it without the signal, in the run's mode
 * (PTRACE_SYSCALL: its execve stops; PTRACE_CONT: only the filter stops
 * it).  A signal sent to the child meanwhile is delivered, a group-stop
 * kept until SIGCONT, as the stop loop would.  0, or -errno; -ECHILD
 * when the child is gone and reaped (its pid may be anyone's now).
 */
static int first_stop(struct loop *l, pid_t pid, bool function)
{
	struct task self;
	int status, sig;

	for (;;) {
		if (waitpid(pid, &status, __WALL) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (!WIFSTOPPED(status))
			return -ECHILD;		/* reaped */
		sig = WSTOPSIG(status);
		if (status >> 16 == PTRACE_EVENT_STOP) {
			ptrace(sig == SIGSTOP || sig == SIGTSTP ||
			       sig == SIGTTIN || sig == SIGTTOU ?
			       PTRACE_LISTEN : PTRACE_CONT, pid, 0L, 0L);
			continue;
		}
		if (sig == SIGSTOP)
			break;
		ptrace(PTRACE_CONT, pid, 0L, (long)sig);
	}
	/* A workload has no execve: the fast path's pool goes in now,
	   before the filter and the workload. */
	if (function && l->hooks) {
		memset(&self, 0, sizeof(self));
		self.tid = self.tgid = pid;
		l->hooks->spawned(l, &self);
	}
	if (ptrace(l->plan.bpf ? PTRACE_CONT : PTRACE_SYSCALL,
		   pid, 0L, 0L) < 0)
		return -errno;
	return 0;
}

/*
 * Seizes the child, then lets it go on: the byte on go[1].  The pipe is
 * closed either way, its read end only after the write, so a child that
 * died first makes no SIGPIPE here.  0 or -errno.
 */
static int seize_child(struct loop *l, pid_t pid, const int go[2],
		       bool function)
{
	unsigned long options = PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC |
				PTRACE_O_EXITKILL;
	int err = 0;

	if (l->plan.bpf)
		options |= PTRACE_O_TRACESECCOMP;
	/* The fast path's counters are folded while the fds are open; a
	   task's own io is read while /proc still has it.  Not for attached
	   processes: their io counts what they did before. */
	if (l->hooks || l->sink->task_exit)
		options |= PTRACE_O_TRACEEXIT;
	if (l->opts->follow)
		options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
			   PTRACE_O_TRACECLONE;
	if (ptrace(PTRACE_SEIZE, pid, 0L, options) < 0 ||
	    write(go[1], "", 1) != 1)
		err = -errno;
	close(go[1]);
	close(go[0]);
	return err ? err : first_stop(l, pid, function);
}

/*
 * A command's child shares iotrace's memory until its execve (CLONE_VM,
 * as posix_spawn's child does): no page tables copied, no page faulted
 * in twice, no address space torn down at the exec, which together are
 * most of a fork's cost and a good share of a short command's start.
 * Unlike posix_spawn's parent, iotrace runs on meanwhile (it seizes the
 * child), so the child keeps to what is its own: this stack, its copy
 * of the descriptors and of the signal dispositions (no CLONE_FILES or
 * CLONE_SIGHAND), no allocation, no stdio, no errno read (the two
 * share it: raw_execve(); read's EINTR alone, which takes a handler,
 * and the child has none).  The stack is unmapped once the child has
 * exec'd or is gone: at the run's end (spawn_finish()), one run at a
 * time.  A built-in workload runs iotrace's code in its own memory:
 * forked.  So is every child of an ASan build, whose runtime takes a
 * stack it did not make for a wild one, and every child where execve
 * is not made raw (its error would be read from the shared errno).
 */
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
#define SHARE_MEMORY true
#else
#define SHARE_MEMORY false
#endif
#define CHILD_STACK (8u << 20)	/* reserved, not touched: as a thread's */

static void *child_stack;

/* On spawn_start()'s stack: the child reads it before its SIGSTOP, which
   spawn_start() waits for before it returns. */
struct child_args {
	const struct plan *pl;
	const struct tracer_target *target;
	int go[2];
};

static int spawn_child_main(void *arg)
{
	struct child_args *a = arg;

	close(a->go[1]);
	child_main(a->pl, a->target, a->go[0]);
	return 127;
}

static pid_t spawn_child(struct child_args *a)
{
	void *stack;
	pid_t pid;

	if (a->target->kind != TARGET_COMMAND || !SHARE_MEMORY) {
		pid = fork();
		if (pid == 0)
			spawn_child_main(a);
		return pid;
	}
	stack = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
		     -1, 0);
	if (stack == MAP_FAILED)
		return -1;
	pid = clone(spawn_child_main, (char *)stack + CHILD_STACK,
		    CLONE_VM | SIGCHLD, a);
	if (pid < 0)
		munmap(stack, CHILD_STACK);
	else
		child_stack = stack;
	return pid;
}

static void spawn_finish(struct loop *l)
{
	(void)l;
	if (child_stack)
		munmap(child_stack, CHILD_STACK);
	child_stack = NULL;
}

/* Starts the child and seizes it: it is the run's first task. */
static int spawn_start(struct loop *l, const struct tracer_target *target)
{
	struct child_args a = { &l->plan, target, { -1, -1 } };
	int status, err;
	int *go = a.go;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	pid = spawn_child(&a);
	if (pid < 0) {
		err = -errno;
		close(go[0]);
		close(go[1]);
		return err;
	}
	err = seize_child(l, pid, go, target->kind == TARGET_FUNCTION);
	if (err == -ECHILD) {
		spawn_finish(l);
		return err;	/* already reaped: nothing to kill */
	}
	if (!err && !loop_add_task(l, pid, pid))
		err = -ENOMEM;
	if (err)
		goto out_kill;
	l->leader = pid;
	l->leader_iotrace = target->kind == TARGET_COMMAND;
	TRACER_DEBUG("pid %d: seized, %s", (int)pid,
		     target->kind == TARGET_COMMAND ? "its execve next" :
		     "the workload next");
	tracer_leader_set(pid);
	return 0;

out_kill:
	kill(pid, SIGKILL);
	waitpid(pid, &status, __WALL);
	spawn_finish(l);
	return err;
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
	.finish = spawn_finish,
};
