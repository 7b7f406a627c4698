// SPDX-License-Identifier: MIT
/*
 * Unit tests of the agent engine through the engine interface, as
 * test-engine.c drives ptrace: the registry finds it; probe() refuses
 * -p with a reason; run() over a function target whose main thread,
 * second thread and forked process make known numbers of getppid calls
 * gets every one of them counted by the agent (aggregates), none by
 * ptrace (events), and says so in res.use.  profile_add_aggregate()
 * adds an aggregate to a row as the events would.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "reports/profile/profile.h"
#include "tracer/tracer.h"
#include "tests/unit/tap.h"

#define MAIN_CALLS 300
#define THREAD_CALLS 500
#define FORKED_CALLS 7

struct seen {
	uint64_t events_getppid, agg_getppid, agg_timed;
	unsigned aggregates;
};

static void on_syscall(void *ctx, const struct tracer_event *ev)
{
	struct seen *s = ctx;

	if (ev->nr == SYS_getppid && !(ev->flags & EVF_HIDDEN))
		s->events_getppid++;
}

static void on_aggregate(void *ctx, const struct tracer_aggregate *a)
{
	struct seen *s = ctx;

	s->aggregates++;
	if (a->nr == SYS_getppid) {
		s->agg_getppid += a->calls;
		s->agg_timed += a->timed;
	}
}

static void calls(int n)
{
	while (n-- > 0)
		syscall(SYS_getppid);
}

static void *thread_main(void *arg)
{
	(void)arg;
	calls(THREAD_CALLS);
	return NULL;
}

static int workload(void *arg)
{
	pthread_t t;
	pid_t pid;

	(void)arg;
	calls(MAIN_CALLS);
	if (pthread_create(&t, NULL, thread_main, NULL))
		return 1;
	pthread_join(t, NULL);
	pid = fork();
	if (pid == 0)
		_exit((calls(FORKED_CALLS), 0));
	return pid < 0 || waitpid(pid, NULL, 0) != pid;
}

static void test_run(const struct tracer_engine *e)
{
	struct tracer_opts opts = { .follow = true };
	struct tracer_target target = {
		.kind = TARGET_FUNCTION, .child = { workload, NULL }
	};
	struct seen s;
	struct tracer_sink sink = { on_syscall, &s, on_aggregate };
	struct tracer_result res;

	memset(&s, 0, sizeof(s));
	is_int(e->run(&opts, &target, &sink, &res), 0, "run() succeeds");
	ok(res.exited && WIFEXITED(res.status) && !WEXITSTATUS(res.status),
	   "the workload exited 0");
	is_int(s.agg_getppid, MAIN_CALLS + THREAD_CALLS + FORKED_CALLS,
	       "every getppid counted by the agent");
	is_int(s.agg_timed, s.agg_getppid, "... and timed");
	is_int(s.events_getppid, 0, "none by ptrace");
	ok(res.use.known, "res.use filled");
	is_int(res.use.agent_procs, 2, "two processes measured by the agent");
	is_int(res.use.agent_tasks, 3, "three tasks armed, each once");
	is_int(res.use.fallbacks, 0, "no fallback");
	if (res.use.fallbacks)
		printf("# %d: %s\n", (int)res.use.fallback[0].pid, res.use.fallback[0].why);
	ok(res.use.agent_calls >= s.agg_getppid, "agent_calls counts them");
	is_str(res.engine, "agent", "res.engine names the engine");
}

static void test_aggregate(void)
{
	struct tracer_aggregate a;
	struct profile p;
	const struct profile_row *r;

	memset(&a, 0, sizeof(a));
	a.arch = syscall_pers[0].arch;
	a.nr = SYS_write;
	a.calls = 10;
	a.timed = 10;
	a.errors = 2;
	a.errnos[0].err = EINTR;
	a.errnos[0].count = 2;
	a.time_ns = 5000;
	a.min_ns = 100;
	a.max_ns = 1500;
	a.bytes_req = 800;
	a.bytes_done = 600;
	a.short_calls = 1;
	a.hist[8] = 10;
	profile_init(&p);
	is_int(profile_add_aggregate(&p, &a), 0, "aggregate added");
	r = profile_row_find(&p, "write");
	ok(r != NULL, "its row is write");
	if (r) {
		is_int(r->calls, 10, "calls");
		is_int(r->errors, 2, "errors");
		is_int(r->errnos[0].err, EINTR, "errno kept");
		is_int(r->time_ns, 5000, "time, nothing subtracted");
		is_int(r->min_ns, 100, "min");
		is_int(r->max_ns, 1500, "max");
		is_int(r->bytes_done, 600, "bytes moved");
		is_int(r->short_calls, 1, "short calls");
		is_int(r->hist[8], 10, "histogram");
	}
	profile_release(&p);
}

int main(void)
{
	const struct tracer_engine *e = tracer_engine_find("agent");
	struct tracer_opts opts = { .follow = true };
	struct tracer_target pids = { .kind = TARGET_PIDS };
	struct tracer_target fn = { .kind = TARGET_FUNCTION };
	const char *why;

	ok(e != NULL, "the registry has the agent engine");
	if (!e)
		return done_testing();
	ok(e->probe(&opts, &pids) != NULL, "probe() refuses -p");
	test_aggregate();
	why = e->probe(&opts, &fn);
	if (why) {
		printf("# agent engine unavailable here: %s\n", why);
		return done_testing();
	}
	test_run(e);
	return done_testing();
}
