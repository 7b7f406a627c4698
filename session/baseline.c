// SPDX-License-Identifier: MIT
/*
 * Untraced runs: the ground truth a traced run is read against.
 * `--baseline[=N]` runs the command (or built-in workload) N times
 * untraced before tracing it, and sweeps measure every point this way.
 * Each run is timed as time(1) times it: CLOCK_MONOTONIC from before the
 * fork to after the reap, user and system CPU from wait4's rusage (which
 * includes the descendants the run waited for).  The child gets what the
 * traced child gets (environment, working directory, CPU mask, and the
 * signal dispositions iotrace found), except its standard streams: stdin
 * is /dev/null, stdout is discarded and stderr is kept in memory, shown
 * only if the run fails (the command's output is never shown twice).  What
 * the untraced runs and the traced run had as stdin and stdout is kept
 * with the figures, so that the report can say when they differ (a
 * command writing to a pipe is measured writing to /dev/null, whose wall
 * may be shorter).  The median run (by wall) is kept, with the spread of
 * all.
 *
 * Sweeps also trace with the command's output hidden; stdio_hide() points
 * iotrace's own standard streams elsewhere around a traced run, since the
 * tracer starts the child itself (see the comment there).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "session/session.h"

/* The end of a failed run's stderr that is shown, in bytes. */
#define SHOWN_MAX 4096

struct run_time {
	uint64_t wall_ns, user_ns, sys_ns;
};

const char *wait_status_text(char *buf, size_t size, int status)
{
	const char *abbrev;

	if (WIFEXITED(status)) {
		snprintf(buf, size, "exited %d", WEXITSTATUS(status));
		return buf;
	}
	if (!WIFSIGNALED(status)) {
		snprintf(buf, size, "ended abnormally");
		return buf;
	}
	abbrev = sigabbrev_np(WTERMSIG(status));
	if (abbrev)
		snprintf(buf, size, "killed by SIG%s%s", abbrev,
			 WCOREDUMP(status) ? " (core dumped)" : "");
	else
		snprintf(buf, size, "killed by signal %d%s", WTERMSIG(status),
			 WCOREDUMP(status) ? " (core dumped)" : "");
	return buf;
}

static bool succeeded(int status)
{
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static uint64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull +
	       (uint64_t)tv.tv_usec * 1000ull;
}

/* What fd is, in the words the report uses; "" if nothing can say. */
static void stream_kind(int fd, char *buf, size_t size)
{
	struct stat st, null;
	const char *kind;

	if (fstat(fd, &st) < 0)
		kind = errno == EBADF ? "closed" : "";
	else if (S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 &&
		 S_ISCHR(null.st_mode) && st.st_rdev == null.st_rdev)
		kind = "/dev/null";
	else if (isatty(fd))
		kind = "a terminal";
	else if (S_ISFIFO(st.st_mode))
		kind = "a pipe";
	else if (S_ISSOCK(st.st_mode))
		kind = "a socket";
	else if (S_ISREG(st.st_mode))
		kind = "a file";
	else
		kind = "a device";
	snprintf(buf, size, "%s", kind);
}

static void streams_close(struct run_streams *s)
{
	if (s->null_in >= 0)
		close(s->null_in);
	if (s->null_out >= 0)
		close(s->null_out);
	if (s->capture >= 0)
		close(s->capture);
	s->null_in = s->null_out = s->capture = -1;
}

/* Output shown: both to iotrace's stderr.  Hidden: stderr kept. */
static int streams_open(struct run_streams *s, bool show_output)
{
	s->capture = -1;
	s->null_out = -1;
	s->null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (s->null_in < 0)
		return -errno;
	s->fd[0] = s->null_in;
	s->fd[1] = s->fd[2] = STDERR_FILENO;
	if (show_output)
		return 0;
	s->null_out = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (s->null_out < 0) {
		streams_close(s);
		return -errno;
	}
	/* Without a memory file the output is lost, not shown: no harm. */
	s->capture = memfd_create("iotrace-stderr", MFD_CLOEXEC);
	s->fd[1] = s->null_out;
	s->fd[2] = s->capture >= 0 ? s->capture : s->null_out;
	return 0;
}

/* The end of what a failed run wrote on stderr, onto iotrace's. */
static void show_captured(const struct run_streams *s)
{
	char buf[SHOWN_MAX];
	off_t end = s->capture >= 0 ? lseek(s->capture, 0, SEEK_END) : 0;
	off_t from = end > SHOWN_MAX ? end - SHOWN_MAX : 0;
	ssize_t n;

	if (end <= 0)
		return;
	n = pread(s->capture, buf, (size_t)(end - from), from);
	if (n <= 0)
		return;
	fflush(stderr);
	if (from)
		fputs("[...]\n", stderr);
	fwrite(buf, 1, (size_t)n, stderr);
	if (buf[n - 1] != '\n')
		fputc('\n', stderr);
}

/*
 * In the child, between fork and the run: only async-signal-safe calls.
 * The signal state iotrace started with, as the tracer gives the traced
 * child.
 */
static void untraced_child(const struct tracer_target *target,
			   const struct run_streams *s)
{
	int fd;

	tracer_signals_restore();
	for (fd = 0; fd < 3; fd++)
		if (s->fd[fd] != fd && dup2(s->fd[fd], fd) < 0)
			_exit(127);
	/* A workload does not exec: close what CLOEXEC would have. */
	if (s->null_in > 2)
		close(s->null_in);
	if (s->null_out > 2)
		close(s->null_out);
	if (s->capture > 2)
		close(s->capture);
	_exit(tracer_target_exec(target));
}

/*
 * One untraced run: its wait status in *status, its times in t.  0, or
 * -errno (-EINTR: iotrace was asked to stop, the run killed).
 */
static int run_once(const struct tracer_target *target,
		    const struct run_streams *s, int *status, struct run_time *t)
{
	struct rusage ru;
	uint64_t t0;
	pid_t pid;

	/* The child's stderr shares this offset: back to an empty file. */
	if (s->capture >= 0 && (ftruncate(s->capture, 0) < 0 ||
				lseek(s->capture, 0, SEEK_SET) < 0))
		return -errno;
	t0 = mono_now();
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		untraced_child(target, s);
	while (wait4(pid, status, 0, &ru) < 0) {
		if (errno != EINTR)
			return -errno;
		if (tracer_pending_signal())
			kill(pid, SIGKILL);
	}
	t->wall_ns = mono_now() - t0;
	t->user_ns = tv_ns(ru.ru_utime);
	t->sys_ns = tv_ns(ru.ru_stime);
	return tracer_pending_signal() ? -EINTR : 0;
}

static int cmp_wall(const void *a, const void *b)
{
	const struct run_time *x = a, *y = b;

	return x->wall_ns < y->wall_ns ? -1 : x->wall_ns > y->wall_ns;
}

/* The median run (the faster middle one for even n) and the spread. */
static void summarise(struct run_time *t, int n, struct profile_baseline *b)
{
	const struct run_time *mid;

	qsort(t, (size_t)n, sizeof(*t), cmp_wall);
	mid = &t[(n - 1) / 2];
	b->runs = (uint32_t)n;
	b->wall_ns = mid->wall_ns;
	b->user_ns = mid->user_ns;
	b->sys_ns = mid->sys_ns;
	b->wall_min_ns = t[0].wall_ns;
	b->wall_max_ns = t[n - 1].wall_ns;
}

int baseline_measure(const struct tracer_target *target, int runs,
		     bool show_output, struct profile_baseline *b,
		     struct baseline_failure *fail)
{
	struct run_time t[PROFILE_BASELINE_MAX];
	struct run_streams s;
	int n, err;

	memset(b, 0, sizeof(*b));
	memset(fail, 0, sizeof(*fail));
	if (runs < 1 || runs > PROFILE_BASELINE_MAX)
		return -EINVAL;
	tracer_signals_init();
	err = streams_open(&s, show_output);
	if (err < 0)
		return err;
	fflush(NULL);
	for (n = 0; n < runs; n++) {
		err = run_once(target, &s, &fail->status, &t[n]);
		if (err < 0)
			goto out_close;
		if (!succeeded(fail->status)) {
			fail->run = n + 1;
			show_captured(&s);
			break;
		}
	}
	if (n)
		summarise(t, n, b);
	stream_kind(s.fd[0], b->in, sizeof(b->in));
	stream_kind(s.fd[1], b->out, sizeof(b->out));
	err = fail->run ? 1 : 0;
out_close:
	streams_close(&s);
	return err;
}

int baseline_for_trace(const struct session_opts *so,
		       const struct tracer_target *target, const char *what,
		       struct profile_baseline *b)
{
	struct baseline_failure fail;
	char how[64];
	int err = baseline_measure(target, so->baseline, false, b, &fail);

	/* The traced child gets iotrace's own streams (tracer_spawn). */
	stream_kind(STDIN_FILENO, b->traced_in, sizeof(b->traced_in));
	stream_kind(STDOUT_FILENO, b->traced_out, sizeof(b->traced_out));
	if (err == 0)
		return 0;
	if (err == -EINTR || tracer_pending_signal()) {
		so->error("--baseline: SIG%s during the untraced runs: "
			  "nothing traced",
			  sigabbrev_np(tracer_pending_signal()));
		return -EINTR;
	}
	if (err < 0) {
		so->error("--baseline: cannot run '%s' untraced: %s", what,
			  strerror(-err));
		return err;
	}
	so->error("--baseline: '%s' %s in untraced run %d of %d: nothing "
		  "traced (it must succeed to be measured)", what,
		  wait_status_text(how, sizeof(how), fail.status), fail.run,
		  so->baseline);
	return 1;
}

/*
 * A traced child is forked by the tracer, which gives it iotrace's own
 * standard streams; a sweep hides the command's output by pointing
 * iotrace's fds elsewhere for the length of the run.  iotrace's own
 * messages meanwhile go through stderr (a FILE the C library lets a
 * program reassign) to a copy of the real fd 2.  The copies are
 * close-on-exec; a built-in workload (which does not exec) sees them
 * as two more open fds.
 */
int stdio_hide(struct stdio_saved *sv, bool show_output)
{
	int fd, err;

	memset(sv, 0, sizeof(*sv));
	sv->s.null_in = sv->s.null_out = sv->s.capture = -1;
	/* Saved first: a stream iotrace was started without stays closed. */
	for (fd = 0; fd < 3; fd++) {
		sv->fd[fd] = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		sv->closed[fd] = sv->fd[fd] < 0 && errno == EBADF;
		if (sv->fd[fd] < 0 && !sv->closed[fd])
			goto out_undo;
	}
	err = streams_open(&sv->s, show_output);
	if (err < 0) {
		errno = -err;
		goto out_undo;
	}
	sv->err = sv->fd[2] >= 0 ? fdopen(sv->fd[2], "w") : NULL;
	if (sv->fd[2] >= 0 && !sv->err)
		goto out_undo;
	fflush(NULL);
	if (sv->err) {
		setvbuf(sv->err, NULL, _IONBF, 0);
		sv->stderr_was = stderr;
		stderr = sv->err;
	}
	for (fd = 0; fd < 3; fd++)
		if (sv->s.fd[fd] != fd && dup2(sv->s.fd[fd], fd) < 0)
			goto out_undo;
	sv->active = true;
	return 0;

out_undo:
	err = -errno;
	sv->active = true;
	stdio_restore(sv, false);
	return err;
}

void stdio_restore(struct stdio_saved *sv, bool show_stderr)
{
	int fd;

	if (!sv->active)
		return;
	fflush(NULL);
	for (fd = 0; fd < 3; fd++) {
		if (sv->fd[fd] >= 0)
			dup2(sv->fd[fd], fd);
		else if (sv->closed[fd])
			close(fd);
	}
	if (sv->stderr_was)
		stderr = sv->stderr_was;
	if (sv->err)
		fclose(sv->err);	/* closes fd[2] */
	else if (sv->fd[2] >= 0)
		close(sv->fd[2]);
	for (fd = 0; fd < 2; fd++)
		if (sv->fd[fd] >= 0)
			close(sv->fd[fd]);
	if (show_stderr)
		show_captured(&sv->s);
	/* What took the place of a closed stream is not closed twice. */
	for (fd = 0; fd < 3; fd++) {
		if (sv->s.null_in == fd)
			sv->s.null_in = -1;
		if (sv->s.null_out == fd)
			sv->s.null_out = -1;
		if (sv->s.capture == fd)
			sv->s.capture = -1;
	}
	streams_close(&sv->s);
	sv->active = false;
}
