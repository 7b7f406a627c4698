// SPDX-License-Identifier: MIT
/*
 * Tracee: a program that drops its privileges itself, started as root.
 * Usage: privdrop MODE UID [LIMIT], MODE one of
 *   setuid  setgroups(0), setresgid and setresuid to UID (all three
 *           ids), then reads them back and tries what UID may not do:
 *           open /etc/shadow, setuid(0); prints
 *           "uid=U,U,U shadow=E setuid0=E" (E an errno name or "ok")
 *   bomb    RLIMIT_NPROC LIMIT, then UID as above, then a fork bomb:
 *           every process forks until fork fails with EAGAIN, once,
 *           and none exits before all have failed (a pipe each holds
 *           the write end of until then), so that the limit alone
 *           decides: as many failed forks as processes, one process
 *           fewer made than that.  Each process exits with the number
 *           of processes of its subtree; the first prints
 *           "processes=P".
 * UID is best one no other process uses: RLIMIT_NPROC counts them all.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *err_name(int err)
{
	switch (err) {
	case 0:
		return "ok";
	case EACCES:
		return "EACCES";
	case EPERM:
		return "EPERM";
	case EAGAIN:
		return "EAGAIN";
	default:
		return "other";
	}
}

static int drop_to(uid_t uid)
{
	if (setgroups(0, NULL) < 0 || setresgid(uid, uid, uid) < 0 ||
	    setresuid(uid, uid, uid) < 0) {
		perror("privdrop");
		return -1;
	}
	return 0;
}

static int mode_setuid(uid_t uid)
{
	uid_t r, e, s;
	int fd, shadow, setuid0;

	if (drop_to(uid) < 0 || getresuid(&r, &e, &s) < 0)
		return 1;
	fd = open("/etc/shadow", O_RDONLY);
	shadow = fd < 0 ? errno : 0;
	if (fd >= 0)
		close(fd);
	setuid0 = setuid(0) < 0 ? errno : 0;
	printf("uid=%u,%u,%u shadow=%s setuid0=%s\n", (unsigned)r,
	       (unsigned)e, (unsigned)s, err_name(shadow), err_name(setuid0));
	return 0;
}

/*
 * The bomb, from its first process: each process forks until EAGAIN (a
 * child starts the same loop afresh), closes its end of hold, waits for
 * the end of file that says every process has failed once, and reaps
 * its children.  Exits with the processes of its subtree, 255 on any
 * surprise; the first returns them.
 */
static int bomb(const int hold[2])
{
	int procs = 1, status;
	bool first = true;
	char c;
	pid_t pid;

	for (;;) {
		pid = fork();
		if (pid == 0) {
			first = false;
			continue;
		}
		if (pid > 0)
			continue;
		if (errno != EAGAIN)
			_exit(255);
		break;
	}
	close(hold[1]);
	if (read(hold[0], &c, 1) != 0)
		_exit(255);
	while ((pid = wait(&status)) > 0) {
		if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
			_exit(255);
		procs += WEXITSTATUS(status);
	}
	if (!first)
		_exit(procs);
	return procs;
}

static int mode_bomb(uid_t uid, int limit)
{
	struct rlimit rl = { (rlim_t)limit, (rlim_t)limit };
	int hold[2], procs;

	if (limit < 1 || limit > 254 || setrlimit(RLIMIT_NPROC, &rl) < 0 ||
	    pipe(hold) < 0 || drop_to(uid) < 0)
		return 1;
	fflush(NULL);
	procs = bomb(hold);
	printf("processes=%d\n", procs);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "setuid"))
		return mode_setuid((uid_t)atoi(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "bomb"))
		return mode_bomb((uid_t)atoi(argv[2]), atoi(argv[3]));
	fprintf(stderr, "usage: privdrop setuid UID | bomb UID LIMIT\n");
	return 2;
}
