// SPDX-License-Identifier: MIT
/*
 * Unit tests of the session layer (session/session.h): the sink fed
 * hand-built events builds the rows (calls, errors, times less the
 * calibrated overhead only once a calibration came; files named through
 * the fd cache and /proc); the second calibration's bounds and its
 * minimum of stops, against an engine of the test's own; --baseline's
 * untraced runs and what they say when one fails; and real runs of
 * /bin/true through session_trace(), with the words of a refusal.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "session/session.h"
#include "tests/unit/tap.h"

#define SAID_MAX 8

/* What the session said, through its error(). */
static char said[SAID_MAX][512];
static int nsaid;

static int capture(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(said[nsaid % SAID_MAX], sizeof(said[0]), fmt, ap);
	va_end(ap);
	nsaid++;
	return -1;
}

static const struct session_opts sink_opts = { .error = capture };

static struct tracer_event event(const struct profile *p, const char *name,
				 uint64_t entry_ns, uint64_t exit_ns,
				 int64_t ret)
{
	struct tracer_event ev = {
		.tid = getpid(), .tgid = getpid(), .arch = p->native_arch,
		.nr = syscall_number(name), .ret = ret, .entry_ns = entry_ns,
		.exit_ns = exit_ns, .file_id = TRACER_ID_NONE,
		.stack_id = TRACER_ID_NONE,
	};

	return ev;
}

static void feed(struct session_sink *s, const struct tracer_event *ev)
{
	s->sink.syscall(s->sink.ctx, ev);
}

static void test_sink_calibrated(void)
{
	struct tracer_calibration c = { .overhead_ns = 100, .stop_ns = 40 };
	const struct profile_row *r;
	struct session_sink s;
	struct tracer_event ev;
	struct profile p;

	profile_init(&p);
	session_sink_init(&s, &sink_opts, NULL, &p);
	s.sink.calibrated(s.sink.ctx, &c, 0);
	ok(p.calibrated, "a calibration marks the profile calibrated");
	is_int(p.overhead_ns, 100, "with its overhead");
	is_int(s.calib.overhead_ns, 100, "kept for the second calibration");
	ev = event(&p, "getppid", 1000, 1600, 1);
	feed(&s, &ev);
	ev = event(&p, "getppid", 2000, 2050, 1);
	feed(&s, &ev);
	ev = event(&p, "access", 3000, 3300, -ENOENT);
	feed(&s, &ev);
	r = profile_row_find(&p, "getppid");
	ok(r != NULL, "getppid has a row");
	if (r) {
		is_int(r->calls, 2, "getppid: 2 calls");
		is_int(r->errors, 0, "getppid: no errors");
		is_int(r->raw_time_ns, 650, "raw time: 600 + 50 ns");
		is_int(r->time_ns, 500, "less 100 ns each, never below 0");
		is_int(r->min_ns, 0, "min: the call shorter than a stop");
		is_int(r->max_ns, 500, "max: 600 - 100 ns");
	}
	r = profile_row_find(&p, "access");
	ok(r != NULL, "access has a row");
	if (r) {
		is_int(r->calls, 1, "access: 1 call");
		is_int(r->errors, 1, "access: 1 error");
		is_int(r->time_ns, 200, "access: 300 - 100 ns");
	}
	is_int(nsaid, 0, "nothing said");
	session_sink_release(&s);
	profile_release(&p);
}

static void test_sink_uncalibrated(void)
{
	struct tracer_calibration c = { .overhead_ns = 100 };
	const struct profile_row *r;
	struct session_sink s;
	struct tracer_event ev;
	struct profile p;

	nsaid = 0;
	profile_init(&p);
	session_sink_init(&s, &sink_opts, NULL, &p);
	s.sink.calibrated(s.sink.ctx, &c, -EPERM);
	ok(!p.calibrated, "a failed calibration leaves it uncalibrated");
	is_int(p.overhead_ns, 0, "and no overhead");
	is_int(nsaid, 1, "one line said");
	is_str(said[0], "calibration failed (Operation not permitted): "
	       "times are not corrected", "in the command line's words");
	ev = event(&p, "getppid", 1000, 1600, 1);
	feed(&s, &ev);
	r = profile_row_find(&p, "getppid");
	ok(r && r->time_ns == 600 && r->raw_time_ns == 600,
	   "times untouched");
	session_sink_release(&s);
	profile_release(&p);
}

/* Files: /proc names an open fd once, the cache after. */
static void test_sink_files(void)
{
	const struct profile_breakdown *b;
	struct session_sink s;
	struct tracer_event ev;
	struct profile p;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	ok(fd >= 0, "/dev/null opened");
	profile_init(&p);
	session_sink_init(&s, &sink_opts, NULL, &p);
	ev = event(&p, "write", 1000, 1100, 10);
	ev.args[0] = (uint64_t)fd;
	ev.args[2] = 10;
	feed(&s, &ev);
	b = profile_files(&p);
	is_int(b->nkeys, 1, "one file");
	is_str(b->nkeys ? profile_file_at(b, 0)->path : NULL, "/dev/null",
	       "named from /proc");
	/* Closed behind the sink's back: only the cache can name it. */
	close(fd);
	feed(&s, &ev);
	b = profile_files(&p);
	is_int(b->nkeys, 1, "the same file again, from the cache");
	ev.args[0] = 987;
	feed(&s, &ev);
	b = profile_files(&p);
	is_int(b->nkeys, 2, "an fd that names nothing: a second key");
	is_str(b->nkeys > 1 ? profile_file_at(b, 1)->path : NULL,
	       "(unresolved fd)", "unresolved");
	ok(profile_row_find(&p, "write") &&
	   profile_row_find(&p, "write")->calls == 3, "write: 3 calls");
	session_sink_release(&s);
	profile_release(&p);
}

/* An engine of the test's: calibrate() as told, counted. */
static struct tracer_calibration fake_after;
static int fake_calls, fake_err;
static bool fake_pinned;

static int fake_calibrate(const struct tracer_opts *o,
			  struct tracer_calibration *c)
{
	fake_calls++;
	fake_pinned = o->pin;
	if (fake_err)
		return fake_err;
	*c = fake_after;
	return 0;
}

static const struct tracer_engine fake_engine = {
	.name = "fake", .calibrate = fake_calibrate,
};

static const struct tracer_calibration before = {
	.overhead_ns = 100, .overhead_lo_ns = 80, .overhead_hi_ns = 120,
	.stop_ns = 1000,
};

/* The profile's cost after a recalibration of a run of stops, tasks. */
static void recal(struct profile *p, bool calibrated, uint64_t stops,
		  uint64_t tasks)
{
	struct tracer_opts o = { .pin = true };
	struct tracer_result res = {
		.exited = true, .stops = stops, .tasks = tasks,
		.busy_ns = 777, .user_ns = 11, .sys_ns = 22,
	};

	profile_init(p);
	p->calibrated = calibrated;
	fake_calls = 0;
	fake_pinned = false;
	session_recalibrate(&fake_engine, &o, p, &before, &res);
}

static void test_recalibrate(void)
{
	const struct profile_cost *c;
	struct profile p;

	fake_after = (struct tracer_calibration){
		.overhead_lo_ns = 70, .overhead_hi_ns = 150, .stop_ns = 900,
	};
	recal(&p, false, SESSION_RECALIBRATE_MIN_STOPS, 0);
	c = &p.cost;
	is_int(fake_calls, 0, "uncalibrated: no second calibration");
	ok(!c->known, "uncalibrated: no bounds");
	ok(c->cpu_known && c->user_ns == 11 && c->sys_ns == 22,
	   "the CPU times still");
	profile_release(&p);

	recal(&p, true, SESSION_RECALIBRATE_MIN_STOPS - 1, 0);
	is_int(fake_calls, 0, "too few stops: no second calibration");
	ok(c->known, "bounded by the first alone");
	ok(c->overhead_lo_ns == 80 && c->overhead_hi_ns == 120 &&
	   c->stop_lo_ns == 1000 && c->stop_hi_ns == 1000,
	   "the first's quartiles and stop cost");
	profile_release(&p);

	recal(&p, true, SESSION_RECALIBRATE_MIN_STOPS, 0);
	is_int(fake_calls, 1, "enough stops: calibrated again");
	ok(fake_pinned, "pinned as the lone task was");
	is_int(c->overhead_lo_ns, 70, "lo: the lower of 80 and 70");
	is_int(c->overhead_hi_ns, 150, "hi: the higher of 120 and 150");
	is_int(c->stop_lo_ns, 900, "stops from 900");
	is_int(c->stop_hi_ns, 1000, "to 1000 ns");
	is_int(c->busy_ns, 777, "the tracer's busy time");
	ok(!c->many_tasks, "one task");
	profile_release(&p);

	recal(&p, true, SESSION_RECALIBRATE_MIN_STOPS, 2);
	ok(fake_calls == 1 && !fake_pinned, "past a fork: unpinned");
	ok(c->many_tasks, "many tasks");
	profile_release(&p);

	fake_err = -EIO;
	recal(&p, true, SESSION_RECALIBRATE_MIN_STOPS, 0);
	ok(fake_calls == 1 && !c->known, "a failed second: no bounds");
	fake_err = 0;
	profile_release(&p);
}

static char *true_argv[] = { (char *)"/bin/true", NULL };
static char *false_argv[] = { (char *)"/bin/false", NULL };

static struct tracer_target command(char **argv)
{
	struct tracer_target t = { .kind = TARGET_COMMAND };

	t.command.argv = argv;
	t.command.path = argv[0];
	return t;
}

static struct session_opts run_opts(void)
{
	return (struct session_opts){
		.tracer = { .follow = true, .pin = true }, .error = capture,
	};
}

static void test_trace(void)
{
	struct tracer_target t = command(true_argv);
	struct session_opts so = run_opts();
	const struct profile_row *r;
	struct profile p;

	nsaid = 0;
	is_int(session_trace(&so, &t, 1, true_argv, &p), 0, "/bin/true traced");
	is_int(session_exit_status(&p), 0, "exit status 0");
	r = profile_row_find(&p, "execve");
	ok(r && r->calls == 1, "execve: 1 call");
	ok(p.calibrated, "calibrated as it started");
	ok(p.stops > 0 && p.wall_ns > 0, "stops and a wall");
	is_int(nsaid, 0, "nothing said");
	profile_release(&p);

	so.count_only = true;
	is_int(session_trace(&so, &t, 1, true_argv, &p), 0, "--count-only");
	ok(!p.calibrated, "not calibrated");
	profile_release(&p);

	t = command(false_argv);
	so = run_opts();
	is_int(session_trace(&so, &t, 1, false_argv, &p), 0, "/bin/false");
	is_int(session_exit_status(&p), 1, "its exit status, 1");
	profile_release(&p);

	so.engine_name = "nonesuch";
	is_int(session_trace(&so, &t, 1, false_argv, &p), -1,
	       "no such engine: refused");
	is_str(nsaid ? said[nsaid - 1] : NULL, "cannot trace '/bin/false' "
	       "with the ptrace engine: no such engine", "and said why");
	profile_release(&p);
}

static void test_baseline(void)
{
	struct tracer_target t = command(true_argv);
	struct session_opts so = run_opts();
	struct profile_baseline b;

	nsaid = 0;
	so.baseline = 2;
	is_int(baseline_for_trace(&so, &t, "/bin/true", &b), 0,
	       "--baseline=2 of /bin/true");
	is_int(b.runs, 2, "two runs");
	ok(b.wall_min_ns <= b.wall_ns && b.wall_ns <= b.wall_max_ns,
	   "the median within the spread");
	is_str(b.in, "/dev/null", "stdin /dev/null");
	t = command(false_argv);
	is_int(baseline_for_trace(&so, &t, "/bin/false", &b), 1,
	       "/bin/false fails untraced");
	is_int(nsaid, 1, "one line said");
	is_str(said[0], "--baseline: '/bin/false' exited 1 in untraced run 1 "
	       "of 2: nothing traced (it must succeed to be measured)",
	       "in the command line's words");
}

int main(void)
{
	test_sink_calibrated();
	test_sink_uncalibrated();
	test_sink_files();
	test_recalibrate();
	test_trace();
	test_baseline();
	return done_testing();
}
