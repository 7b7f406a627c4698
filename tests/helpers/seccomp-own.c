// SPDX-License-Identifier: MIT
/*
 * seccomp-own [-t] [-f] DATA N: a program with a seccomp filter of its
 * own, as sandboxes have, loaded with seccomp(2) (prctl with -p).  Its
 * filter returns SECCOMP_RET_TRACE with DATA for getppid, ERRNO(EPERM)
 * for getpgrp, TRAP for gettid (its own SIGSYS handler counts them) and
 * ALLOW for the rest.  Then it makes each of the three N times and
 * prints what each returned, as it would see it untraced: getppid fails
 * with ENOSYS (no tracer wants the calls), getpgrp with EPERM, gettid
 * raises SIGSYS.  With -f it does so in a forked child too, with -t in
 * a second thread: both inherit the filter.  It also writes N times to
 * /dev/null after loading it, calls that its filter allows.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define ARCH AUDIT_ARCH_I386
#else
#error "seccomp-own: name this architecture's AUDIT_ARCH"
#endif

static volatile sig_atomic_t sigsys_seen;
static long calls = 10;

static void on_sigsys(int sig)
{
	(void)sig;
	sigsys_seen++;
}

/* getppid: TRACE(data); getpgrp: ERRNO(EPERM); gettid: TRAP; else ALLOW. */
static int load(unsigned data, int by_prctl)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | (data & 0xffff)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getpgrp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	if (by_prctl)
		return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

/* One call N times; its results, as "NAME ok|ERRNONAME xN". */
static void call_n(const char *name, long nr)
{
	long i, ok = 0, err = 0, last = 0;

	for (i = 0; i < calls; i++) {
		if (syscall(nr) >= 0) {
			ok++;
		} else {
			err++;
			last = errno;
		}
	}
	printf("%s: %ld ok, %ld failed (%s)\n", name, ok, err,
	       err ? strerror((int)last) : "-");
}

static void *exercise(void *who)
{
	long i;
	int fd = open("/dev/null", O_WRONLY);

	sigsys_seen = 0;
	printf("%s\n", (const char *)who);
	call_n("getppid", SYS_getppid);
	call_n("getpgrp", SYS_getpgrp);
	call_n("gettid", SYS_gettid);
	printf("SIGSYS: %d\n", (int)sigsys_seen);
	for (i = 0; i < calls; i++)
		if (write(fd, "x", 1) != 1)
			printf("write failed\n");
	close(fd);
	fflush(stdout);
	return NULL;
}

int main(int argc, char **argv)
{
	int opt, by_prctl = 0, fork_too = 0, thread_too = 0, status;
	pthread_t th;
	pid_t pid;

	while ((opt = getopt(argc, argv, "pft")) != -1) {
		if (opt == 'p')
			by_prctl = 1;
		else if (opt == 'f')
			fork_too = 1;
		else if (opt == 't')
			thread_too = 1;
		else
			return 2;
	}
	if (argc - optind != 2)
		return 2;
	calls = atol(argv[optind + 1]);
	signal(SIGSYS, on_sigsys);
	if (load((unsigned)strtoul(argv[optind], NULL, 0), by_prctl) < 0) {
		perror("seccomp-own: filter");
		return 1;
	}
	exercise((void *)"main");
	if (thread_too && (pthread_create(&th, NULL, exercise,
					  (void *)"thread") ||
			   pthread_join(th, NULL)))
		return 1;
	if (fork_too) {
		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			exercise((void *)"child");
			_exit(0);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0)
			return 1;
	}
	return 0;
}
