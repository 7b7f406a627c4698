// SPDX-License-Identifier: MIT
/*
 * killearly RUNS MAX_US SIG CMD [ARGS...]: starts CMD (iotrace) RUNS
 * times, each with a marker of its own in the environment, sends it
 * signal number SIG (9: SIGKILL) after a random delay of 0 to MAX_US
 * microseconds, waits for it to end, and then
 * looks through /proc for any process still carrying that marker: one
 * that CMD started and that outlived it.  Such a process gets a second
 * to go away (a process killed by PTRACE_O_EXITKILL dies a moment after
 * its tracer); one still there (stopped, or running untraced) is a
 * leftover, named on stderr and killed.  Prints "leftovers N in RUNS
 * runs (S stopped)" and exits 1 when N is not 0.  It sets no subreaper:
 * an orphan goes to init, as it would for a user.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long seed;

/* A small LCG: the delays need no quality, only spread. */
static long rand_below(long n)
{
	seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (long)((seed >> 33) % (unsigned long long)n);
}

/* Whether /proc/PID/environ holds marker; its state letter in *state. */
static int has_marker(const char *pid, const char *marker, char *state)
{
	char path[64], buf[65536], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/environ", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (p = buf; p < buf + n; p += strlen(p) + 1)
		if (!strcmp(p, marker))
			break;
	if (p >= buf + n)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	fd = open(path, O_RDONLY);
	*state = '?';
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		p = strrchr(buf, ')');
		if (p && p[1])
			*state = p[2];
	}
	return 1;
}

/*
 * The processes carrying marker: killed (so nothing stays behind) and
 * counted when kill is set, counted only otherwise.  *stopped counts
 * those in a stop (T or t).
 */
static int scan(const char *marker, int kill_them, int *stopped)
{
	struct dirent *d;
	DIR *dir = opendir("/proc");
	char state;
	int found = 0;

	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		if (!has_marker(d->d_name, marker, &state))
			continue;
		found++;
		if (!kill_them)
			continue;
		if (state == 'T' || state == 't')
			(*stopped)++;
		fprintf(stderr, "killearly: %s left behind, state %c\n",
			d->d_name, state);
		kill(atoi(d->d_name), SIGKILL);
	}
	closedir(dir);
	return found;
}

/* One run: 1 when CMD left a process behind. */
static int one_run(int run, long max_us, int sig, char **cmd,
		   int *stopped)
{
	struct timespec ts;
	char marker[64];
	long us = rand_below(max_us + 1);
	int i, status;
	pid_t pid;

	snprintf(marker, sizeof(marker), "IOTRACE_KILLEARLY=%d.%d",
		 (int)getpid(), run);
	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		putenv(marker);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	ts.tv_sec = 0;
	ts.tv_nsec = us * 1000;
	nanosleep(&ts, NULL);
	kill(pid, sig);
	waitpid(pid, &status, 0);
	/* Dying tracees go within a moment; give them a second. */
	for (i = 0; i < 100 && scan(marker, 0, NULL); i++)
		usleep(10000);
	return scan(marker, 1, stopped) > 0;
}

int main(int argc, char **argv)
{
	int runs, run, sig, left = 0, stopped = 0;
	long max_us;

	if (argc < 5) {
		fprintf(stderr,
			"usage: killearly RUNS MAX_US SIG CMD [ARGS...]\n");
		return 2;
	}
	runs = atoi(argv[1]);
	max_us = atol(argv[2]);
	sig = atoi(argv[3]);
	seed = (unsigned long long)time(NULL) ^ (unsigned long long)getpid();
	for (run = 0; run < runs; run++)
		left += one_run(run, max_us, sig, argv + 4, &stopped);
	printf("leftovers %d in %d runs (%d stopped)\n", left, runs, stopped);
	return left ? 1 : 0;
}
