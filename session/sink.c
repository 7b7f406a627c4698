// SPDX-License-Identifier: MIT
/*
 * The sink of a traced run: what the engine delivers (each call, the
 * calls the fast path counted, a task's end, the stop calibration) into
 * the profile.  The profile reads no /proc and knows no tracer: here an
 * fd becomes the file it names (the fd cache, else /proc at the call's
 * exit stop), a stack id its frames, a task its name.
 */
#include <string.h>
#include "session/session.h"

/*
 * The file fd of tid points at, at the call's exit stop (its fds still
 * valid): from the cache, else from /proc, cached.
 */
static int file_of(void *ctx, struct profile *p, pid_t tid, int fd)
{
	struct session_sink *s = ctx;
	struct fd_desc d;
	int id = fd_cache_lookup(s->fds, tid, fd);

	if (id >= 0)
		return id;
	/* EBADF and the like: nothing to cache. */
	if (fd_describe(tid, fd, &d) < 0)
		return profile_file_unresolved(p);
	id = profile_file_desc(p, &d);
	if (id >= 0)
		fd_cache_store(s->fds, tid, fd, id);
	return id;
}

static void on_syscall(void *ctx, const struct tracer_event *ev)
{
	struct session_sink *s = ctx;

	profile_add(s->p, ev);
	/* Every event, so the cache sees closes; NULL: out of memory. */
	if (s->fds) {
		fd_cache_event(s->fds, ev);
		profile_add_files(s->p, ev, file_of, s);
	}
	if (s->stacks)
		profile_add_callsite(s->p, &s->sites,
				     tracer_stacks_get(s->stacks, ev->stack_id),
				     ev);
	if (s->per_process)
		profile_add_process(s->p, ev);
	if (s->per_thread)
		profile_add_thread(s->p, ev);
}

static void on_fds_changed(void *ctx)
{
	struct session_sink *s = ctx;

	if (s->fds)
		fd_cache_forget_all(s->fds);
}

static void on_aggregate(void *ctx, const struct tracer_aggregate *a)
{
	struct session_sink *s = ctx;

	profile_add_aggregate(s->p, a);
	if (s->per_process)
		profile_add_process_aggregate(s->p, a);
}

/*
 * What a stop costs, measured at the run's start, before its first call:
 * the profile subtracts it from every timed call.  A failed calibration
 * leaves times uncorrected, and says so.
 */
static void on_calibrated(void *ctx, const struct tracer_calibration *c,
			  int err)
{
	struct session_sink *s = ctx;

	if (err < 0) {
		if (!tracer_pending_signal())
			s->error("calibration failed (%s): times are not "
				 "corrected", strerror(-err));
		return;
	}
	s->calib = *c;
	s->p->overhead_ns = c->overhead_ns;
	s->p->calibrated = true;
	TRACER_DEBUG("stops calibrated: %llu ns added per timed call, "
		     "%llu ns per stop", (unsigned long long)c->overhead_ns,
		     (unsigned long long)c->stop_ns);
}

/* Storage accounting always; names and io per task where asked. */
static void on_task_exit(void *ctx, const struct tracer_task_exit *x)
{
	struct session_sink *s = ctx;

	profile_storage_exit(s->p, x);
	profile_cost_exit(s->p, x);
	if (s->per_process)
		profile_process_exit(s->p, x);
	if (s->per_thread)
		profile_thread_exit(s->p, x);
}

void session_sink_init(struct session_sink *s, const struct session_opts *so,
		       const struct tracer_stacks *stacks, struct profile *p)
{
	memset(s, 0, sizeof(*s));
	s->sink = (struct tracer_sink){ on_syscall, s, on_aggregate,
					on_task_exit, on_calibrated,
					on_fds_changed };
	s->p = p;
	p->task_comm = tracer_task_comm;
	/* The tracer shows the cache every close, even under -e trace=,
	   or says fds changed where it could not (on_fds_changed). */
	s->fds = fd_cache_new(p->native_arch, true);
	s->per_process = so->per_process;
	s->per_thread = so->tracer.per_thread;
	s->stacks = stacks;
	s->error = so->error;
}

void session_sink_release(struct session_sink *s)
{
	profile_stack_cache_release(&s->sites);
	fd_cache_free(s->fds);
	s->fds = NULL;
}
