// SPDX-License-Identifier: MIT
/*
 * Unit tests of the engine interface (tracer.h), driving the ptrace
 * engine through it as the CLI does: the registry finds it; probe() says
 * why for what it cannot serve; tracer_engine_choose() takes its
 * fallbacks; run() over a function target delivers
 * every call once, with the thread group of the task that made it, in
 * both modes; calibrate() runs.  The traced child starts two threads and
 * forks a process, each making a known number of getppid calls, so the
 * counts per task are exact.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/tracer.h"
#include "tests/unit/tap.h"

#define THREAD1_CALLS 300
#define THREAD2_CALLS 500
#define FORKED_CALLS 7
#define MAX_TASKS 16

/* What the sink saw of one task. */
struct seen_task {
	pid_t tid, tgid;
	unsigned getppid;	/* calls */
	int64_t ppid;		/* what getppid returned */
	unsigned other_tgid;	/* events whose tgid differed from the first */
};

struct seen {
	struct seen_task tasks[MAX_TASKS];
	size_t ntasks;
	pid_t pid;		/* what the first process's getpid returned */
	unsigned events, ids_given, overflow;
};

static struct seen_task *seen_task(struct seen *s,
				   const struct tracer_event *ev)
{
	size_t i;

	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i].tid == ev->tid)
			return &s->tasks[i];
	if (s->ntasks == MAX_TASKS)
		return NULL;
	s->tasks[s->ntasks].tid = ev->tid;
	s->tasks[s->ntasks].tgid = ev->tgid;
	return &s->tasks[s->ntasks++];
}

static void on_syscall(void *ctx, const struct tracer_event *ev)
{
	struct seen *s = ctx;
	struct seen_task *t = seen_task(s, ev);

	s->events++;
	if (ev->file_id != TRACER_ID_NONE || ev->stack_id != TRACER_ID_NONE)
		s->ids_given++;
	if (!t) {
		s->overflow++;
		return;
	}
	if (ev->tgid != t->tgid)
		t->other_tgid++;
	if (ev->nr == SYS_getpid && !s->pid)
		s->pid = (pid_t)ev->ret;
	if (ev->nr == SYS_getppid) {
		t->getppid++;
		t->ppid = ev->ret;
	}
}

static void *caller(void *arg)
{
	long i, n = (long)arg;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return NULL;
}

/* The traced child: two threads, then a forked process, all calling. */
static int workload(void *arg)
{
	pthread_t t1, t2;
	int status;
	pid_t pid;

	(void)arg;
	syscall(SYS_getpid);
	if (pthread_create(&t1, NULL, caller, (void *)(long)THREAD1_CALLS) ||
	    pthread_create(&t2, NULL, caller, (void *)(long)THREAD2_CALLS))
		return 10;
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	pid = fork();
	if (pid == 0) {
		caller((void *)(long)FORKED_CALLS);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status)
		return 11;
	return 0;
}

static int exit_with_3(void *arg)
{
	(void)arg;
	return 3;
}

static const struct tracer_target function_target = {
	.kind = TARGET_FUNCTION, .child = { workload, NULL }
};

static void test_registry(void)
{
	const struct tracer_engine *e = tracer_engine_find("ptrace");

	ok(e && e == tracer_engines[0], "ptrace is found and is the default");
	is_str(e ? e->name : NULL, "ptrace", "its name");
	ok(!tracer_engine_find("perf"), "no engine called perf");
}

static void test_probe(const struct tracer_engine *e)
{
	struct tracer_opts o = { .follow = false, .seccomp = true };
	struct tracer_target pids = { .kind = TARGET_PIDS };
	pid_t self = getpid();
	const char *why;

	why = e->probe(&o, &function_target);
	ok(why && strstr(why, "--no-follow"),
	   "seccomp with follow off: refused, saying why (%s)", why);
	o.seccomp = false;
	ok(!e->probe(&o, &function_target), "follow off without seccomp: ok");
	o.follow = true;
	ok(!e->probe(&o, &function_target), "follow on without seccomp: ok");
	why = e->probe(&o, &pids);
	ok(why && *why, "no pids to attach to: refused (%s)", why);
	pids.attach.pids = &self;
	pids.attach.npids = 1;
	why = e->probe(&o, &pids);
	ok(why && strstr(why, "iotrace itself"),
	   "attaching to itself: refused, naming the pid (%s)", why);
	o.seccomp = true;
	why = e->probe(&o, &pids);
	ok(why && strstr(why, "seccomp"),
	   "running processes with seccomp: refused (%s)", why);
}

/*
 * tracer_engine_choose(): auto and a name give the default engine for
 * what it traces as given; a refusal its fallbacks cure (the seccomp
 * filter, for --no-follow) is cured, said and left in the options; one
 * they do not (iotrace itself) is refused; an unknown name is.
 */
static void test_choose(void)
{
	struct tracer_opts o = { .follow = true, .seccomp = false };
	struct tracer_target pids = { .kind = TARGET_PIDS };
	struct tracer_choice c;
	pid_t self = getpid();

	is_int(tracer_engine_choose(NULL, &o, &function_target, &c), 0,
	       "auto: chosen");
	ok(c.engine == tracer_engines[0] && !c.why && !c.gave_up,
	   "auto: the default, nothing given up");
	is_int(tracer_engine_choose("auto", &o, &function_target, &c), 0,
	       "\"auto\": the same");
	ok(c.engine == tracer_engines[0], "\"auto\": the default");
	o.follow = false;
	o.seccomp = true;
	is_int(tracer_engine_choose(tracer_engines[0]->name, &o,
				    &function_target, &c), 0,
	       "seccomp with follow off: chosen by a fallback");
	ok(c.gave_up && c.gave_up->what &&
	   !strcmp(c.gave_up->what, "no seccomp filter"),
	   "the fallback: no seccomp filter (%s)",
	   c.gave_up ? c.gave_up->what : "none");
	ok(c.gave_up_why && strstr(c.gave_up_why, "--no-follow"),
	   "and why it was taken (%s)", c.gave_up_why);
	ok(!o.seccomp, "the options say it");
	o.follow = true;
	o.seccomp = true;
	pids.attach.pids = &self;
	pids.attach.npids = 1;
	is_int(tracer_engine_choose(NULL, &o, &pids, &c), -EINVAL,
	       "attaching to itself: no engine");
	ok(c.engine == tracer_engines[0] && c.why &&
	   strstr(c.why, "iotrace itself"),
	   "the default's refusal, after its fallback (%s)", c.why);
	ok(c.gave_up && !o.seccomp, "the fallback was tried");
	is_int(tracer_engine_choose("perf", &o, &function_target, &c),
	       -EINVAL, "an unknown name: refused");
	ok(!c.engine && c.why, "no engine, and why (%s)", c.why);
}

/* The three tasks other than the first process, by what they were. */
static void check_tasks(const struct seen *s, const char *mode)
{
	unsigned threads = 0, forked = 0, calls[2] = { 0, 0 };
	pid_t tids[2] = { 0, 0 };
	size_t i;

	for (i = 0; i < s->ntasks; i++) {
		const struct seen_task *t = &s->tasks[i];

		ok(!t->other_tgid, "%s: task %d always has tgid %d", mode,
		   (int)t->tid, (int)t->tgid);
		if (t->tgid == s->pid && t->tid != s->pid && threads < 2) {
			tids[threads] = t->tid;
			calls[threads++] = t->getppid;
		} else if (t->tgid != s->pid) {
			forked++;
			ok(t->tgid == t->tid, "%s: forked process is its own "
			   "thread group", mode);
			is_int(t->getppid, FORKED_CALLS, "%s: forked process's "
			       "calls", mode);
			is_int(t->ppid, s->pid, "%s: ... and its parent", mode);
		}
	}
	is_int(threads, 2, "%s: two threads in the first process's group",
	       mode);
	ok(tids[0] != tids[1], "%s: threads have their own tids", mode);
	is_int(calls[0] + calls[1], THREAD1_CALLS + THREAD2_CALLS,
	       "%s: threads' calls", mode);
	ok(calls[0] != calls[1] && (calls[0] == THREAD1_CALLS ||
				    calls[0] == THREAD2_CALLS),
	   "%s: each thread's calls counted exactly (%u, %u)", mode, calls[0],
	   calls[1]);
	is_int(forked, 1, "%s: one forked process", mode);
}

static void test_run(const struct tracer_engine *e, bool seccomp)
{
	struct tracer_opts o = { .follow = true, .seccomp = seccomp,
				 .pin = true };
	const char *mode = seccomp ? "seccomp-bpf" : "ptrace";
	struct seen s = { 0 };
	struct tracer_sink sink = { on_syscall, &s, NULL, NULL, NULL, NULL };
	struct tracer_result res;
	int err;

	err = e->run(&o, &function_target, &sink, &res);
	is_int(err, 0, "%s: run", mode);
	ok(res.exited && WIFEXITED(res.status) && !WEXITSTATUS(res.status),
	   "%s: the child exited 0 (status 0x%x)", mode, res.status);
	is_str(res.engine, mode, "%s: the result names the mode", mode);
	ok(s.pid > 0 && s.pid != getpid(), "%s: the child's getpid seen",
	   mode);
	ok(!s.ids_given && !s.overflow, "%s: no file or stack ids", mode);
	is_int(s.tasks[0].tid, s.pid, "%s: first task is the child", mode);
	is_int(s.tasks[0].tgid, s.pid, "%s: ... and its own thread group",
	       mode);
	is_int(s.tasks[0].getppid, 0, "%s: the child itself made no getppid",
	       mode);
	check_tasks(&s, mode);
}

/* Without follow only the first task is traced; its status comes back. */
static void test_no_follow(const struct tracer_engine *e)
{
	struct tracer_opts o = { .follow = false };
	struct tracer_target t3 = { .kind = TARGET_FUNCTION,
				    .child = { exit_with_3, NULL } };
	struct seen s = { 0 };
	struct tracer_sink sink = { on_syscall, &s, NULL, NULL, NULL, NULL };
	struct tracer_result res;

	is_int(e->run(&o, &function_target, &sink, &res), 0, "no-follow run");
	ok(s.ntasks == 1 && s.tasks[0].tid == s.pid && !s.tasks[0].getppid,
	   "no-follow: the first task only (%zu tasks)", s.ntasks);
	is_int(e->run(&o, &t3, &sink, &res), 0, "exit 3: run");
	ok(res.exited && WIFEXITED(res.status) && WEXITSTATUS(res.status) == 3,
	   "exit 3: the status comes back");
	o.seccomp = true;
	is_int(e->run(&o, &t3, &sink, &res), -EINVAL,
	       "run refuses what probe refuses");
}

static void test_calibrate(const struct tracer_engine *e)
{
	struct tracer_opts o = { .follow = true, .pin = true };
	struct tracer_calibration c;

	is_int(e->calibrate(&o, &c), 0, "calibrate, ptrace mode");
	o.seccomp = !e->probe(&(struct tracer_opts){ .follow = true,
						     .seccomp = true },
			      &function_target);
	is_int(e->calibrate(&o, &c), 0, "calibrate, %s mode",
	       o.seccomp ? "seccomp-bpf" : "ptrace");
	ok(c.overhead_lo_ns <= c.overhead_ns &&
	   c.overhead_ns <= c.overhead_hi_ns, "median between its quartiles");
	ok(c.bare_ns > 0 && c.pair_ns > 0, "an untraced call and a cycle");
}

int main(void)
{
	const struct tracer_engine *e = tracer_engines[0];
	struct tracer_opts o = { .follow = true, .seccomp = true };
	const char *no_seccomp = e->probe(&o, &function_target);

	test_registry();
	test_probe(e);
	test_choose();
	test_run(e, false);
	if (no_seccomp)
		ok(1, "# skip seccomp-bpf mode: %s", no_seccomp);
	else
		test_run(e, true);
	test_no_follow(e);
	test_calibrate(e);
	return done_testing();
}
