// SPDX-License-Identifier: MIT
/*
 * Tracee for the agent engine's fault cases: what a program does with
 * SIGSYS, signals and children must behave as untraced, and its counts
 * stay exact.  Usage: sigsys MODE N, MODE one of
 *   block    blocks SIGSYS and SIGUSR1, makes N writes, raises SIGUSR1
 *            (which must stay pending, not kill it), prints
 *            "blocked=1 pending=1" if it reads both back so
 *   handler  installs a SIGSYS handler, N writes, raises SIGSYS once,
 *            prints "handled=1"
 *   thandler a second thread, blocked in read(2) while the first
 *            installs a SIGSYS handler, then makes N writes; then
 *            SIGSYS is raised once: "handled=1"
 *   signals  N times raises SIGUSR1, whose handler (sa_mask full)
 *            writes one byte; prints "signals=N"
 *   eintr    a read interrupted by SIGALRM (no SA_RESTART): "eintr=1"
 *   storm    N getppid()s while SIGALRM comes every 50 us, its handler
 *            writing one byte; prints "storm=N signals=S" (S varies)
 *   forks    N fork()s of a child that exits at once, each reaped,
 *            while SIGALRM comes every 500 us; prints "forks=N"
 *   spawn    N posix_spawn()s of /bin/true and N vfork()+_exit, reaped
 *   inherit  blocks SIGSYS, then N fork()s and N threads: each prints
 *            "blocked=1" if it reads SIGSYS blocked; each fork child
 *            then runs "sigsys mask", which prints "exec blocked=1" so
 *   rawfork  in a child (not the process iotrace started, whose
 *            events its waitpid reports first), blocks SIGSYS, then
 *            N fork()s made by syscall(2), so that each child's first
 *            call is its own, reading its mask: each prints
 *            "blocked=1" if SIGSYS is blocked, then runs "sigsys mask"
 *   mask     prints "exec blocked=B", B whether SIGSYS is blocked
 *   env      prints LD_PRELOAD and IOTRACE_AGENT if set (in environ, then
 *            in /proc/self/environ), its open fds,
 *            and "sigsys=dfl" if SIGSYS reads back as the default
 * Writes go to /dev/null; output to stdout.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
static volatile sig_atomic_t got;
static int devnull;

static void on_signal(int sig)
{
	(void)sig;
	got++;
	if (write(devnull, "s", 1) != 1)
		_exit(3);
}

static void writes(int n)
{
	while (n-- > 0)
		if (write(devnull, "x", 1) != 1)
			exit(3);
}

static int mode_block(int n)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGSYS);
	sigaddset(&s, SIGUSR1);
	sigprocmask(SIG_BLOCK, &s, NULL);
	writes(n);
	raise(SIGUSR1);
	sigprocmask(SIG_BLOCK, NULL, &s);
	printf("blocked=%d", sigismember(&s, SIGSYS) &&
	       sigismember(&s, SIGUSR1));
	sigpending(&s);
	printf(" pending=%d\n", sigismember(&s, SIGUSR1));
	return 0;
}

static int mode_handler(int n)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGSYS, &sa, NULL);
	writes(n);
	raise(SIGSYS);
	printf("handled=%d\n", (int)got);
	return 0;
}

static int pipe_fds[2], thread_writes;

static void *thread_main(void *arg)
{
	char c;

	(void)arg;
	if (read(pipe_fds[0], &c, 1) != 1)
		exit(3);
	writes(thread_writes);
	return NULL;
}

static int mode_thandler(int n)
{
	struct sigaction sa;
	pthread_t t;

	thread_writes = n;
	if (pipe(pipe_fds) < 0 || pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGSYS, &sa, NULL);
	if (write(pipe_fds[1], "g", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	raise(SIGSYS);
	printf("handled=%d\n", (int)got);
	return 0;
}

static int mode_signals(int n)
{
	struct sigaction sa;
	int i;

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

/* SIGALRM every us microseconds, caught by on_signal (SA_RESTART); 0: off. */
static void alarms(long us)
{
	struct itimerval it = { { 0, us }, { 0, us } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	if (us)
		sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * Signals land anywhere: in the loop, in the agent's handler, between a
 * probe and its call again.
 */
static int mode_storm(int n)
{
	int i;

	alarms(50);
	for (i = 0; i < n; i++)
		getppid();
	alarms(0);
	printf("storm=%d signals=%d\n", i, (int)got);
	return 0;
}

/* A signal between the agent's request to be traced and its fork. */
static int mode_forks(int n)
{
	int i, done = 0;
	pid_t pid;

	alarms(500);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid == 0)
			_exit(0);
		if (pid > 0 && waitpid(pid, NULL, 0) == pid)
			done++;
	}
	alarms(0);
	printf("forks=%d\n", done);
	return 0;
}

static int mode_eintr(int n)
{
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	struct sigaction sa;
	int p[2];
	char c;

	(void)n;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGALRM, &sa, NULL);
	if (pipe(p) < 0)
		return 1;
	setitimer(ITIMER_REAL, &it, NULL);
	printf("eintr=%d\n", read(p[0], &c, 1) < 0);
	return 0;
}

static int mode_spawn(int n)
{
	char *argv[] = { "true", NULL };
	pid_t pid;
	volatile int i;	/* vfork: the child shares the frame */

	for (i = 0; i < n; i++) {
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ))
			return 1;
		waitpid(pid, NULL, 0);
		pid = vfork();
		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
	return 0;
}

static void print_sigsys_blocked(const char *who)
{
	sigset_t s;

	pthread_sigmask(SIG_BLOCK, NULL, &s);
	printf("%sblocked=%d\n", who, sigismember(&s, SIGSYS));
	fflush(stdout);
}

static void *inherit_thread(void *arg)
{
	(void)arg;
	print_sigsys_blocked("");
	return NULL;
}

/* SIGSYS blocked, stdout flushed: before forks that print. */
static void block_sigsys(void)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGSYS);
	sigprocmask(SIG_BLOCK, &s, NULL);
	fflush(stdout);
}

/* A blocked SIGSYS is inherited by forks, threads and execve. */
static int mode_inherit(int n)
{
	pthread_t th;
	pid_t pid;
	int i;

	block_sigsys();
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid == 0) {
			print_sigsys_blocked("");
			execl("/proc/self/exe", "sigsys", "mask", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		if (pthread_create(&th, NULL, inherit_thread, NULL) ||
		    pthread_join(th, NULL))
			return 1;
	}
	return 0;
}

/*
 * A fork with no libc in the child before its own calls: the child's
 * first call reads its mask (a task armed late, after that call, read
 * the real mask, where the agent never blocks SIGSYS).
 */
static int rawforks(int n)
{
	unsigned long long mask;
	pid_t pid;
	int i;

	block_sigsys();
	for (i = 0; i < n; i++) {
		pid = (pid_t)syscall(SYS_fork);
		if (pid == 0) {
			mask = 0;
			syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, 8);
			if (write(1, mask & (1ull << (SIGSYS - 1)) ?
				  "blocked=1\n" : "blocked=0\n", 10) != 10)
				_exit(3);
			execl("/proc/self/exe", "sigsys", "mask", (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, NULL, 0) != pid)
			return 1;
	}
	return 0;
}

static int mode_rawfork(int n)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(rawforks(n));
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) ?
	       WEXITSTATUS(st) : 1;
}

static int mode_mask(int n)
{
	(void)n;
	print_sigsys_blocked("exec ");
	return 0;
}

/* The same variables in /proc/self/environ, as the kernel shows them. */
static void proc_environ(void)
{
	static char buf[1 << 16];
	size_t n, i;
	FILE *f = fopen("/proc/self/environ", "r");

	n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = '\0';
	for (i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, "LD_PRELOAD=", 11) ||
		    !strncmp(buf + i, "IOTRACE_AGENT=", 14))
			printf("proc %s\n", buf + i);
}

static int mode_env(int n)
{
	struct sigaction sa;
	struct dirent *d;
	DIR *dir;
	char **e;

	(void)n;
	for (e = environ; *e; e++)
		if (!strncmp(*e, "LD_PRELOAD=", 11) ||
		    !strncmp(*e, "IOTRACE_AGENT=", 14))
			printf("%s\n", *e);
	proc_environ();
	dir = opendir("/proc/self/fd");
	while (dir && (d = readdir(dir)))
		if (d->d_name[0] != '.' && atoi(d->d_name) != dirfd(dir))
			printf("fd %s\n", d->d_name);
	if (dir)
		closedir(dir);
	sigaction(SIGSYS, NULL, &sa);
	if (sa.sa_handler == SIG_DFL)
		printf("sigsys=dfl\n");
	return 0;
}

/* The modes; eintr and env take no count. */
static const struct {
	const char *name;
	int (*run)(int n);
} modes[] = {
	{ "block", mode_block }, { "handler", mode_handler },
	{ "thandler", mode_thandler }, { "signals", mode_signals },
	{ "eintr", mode_eintr }, { "storm", mode_storm },
	{ "forks", mode_forks }, { "spawn", mode_spawn }, { "env", mode_env },
	{ "inherit", mode_inherit }, { "mask", mode_mask },
	{ "rawfork", mode_rawfork },
};

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;
	size_t i;

	devnull = open("/dev/null", O_WRONLY);
	if (argc < 2 || devnull < 0)
		return 2;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].run(n);
	return 2;
}
