// SPDX-License-Identifier: MIT
/*
 * The agent engine: the ptrace engine's stop loop, with an agent inside
 * each traced program (agent/agent.c, iotrace-agent.so) that counts and
 * times the calls itself through Syscall User Dispatch, without a stop.
 * ptrace still starts the command, follows forks, threads and execs,
 * maps the agent into each new program before its first instruction
 * (agent-inject.c), delivers signals, reaps, and counts what the agent
 * cannot: forks and clones (run by the program itself), and whole
 * processes it cannot enter (set-user-ID and 32-bit programs, SIGSYS not
 * free, a seccomp filter of their own).
 * An armed task runs detached; its agent asks to be traced again (a
 * request slot in the shared memory and a signal that interrupts the
 * loop's wait) before anything ptrace must see.
 * agent-stops.c is the loop's side of it.
 *
 * The agent is found beside the iotrace binary, then in build/ below it
 * (a source tree), then one directory up (unit tests in build/tests/).
 * A program gets the counters' path in the agent's configuration (a
 * /proc path to iotrace's memfd: no file is left behind and no
 * descriptor in the program); nothing is added to its environment.  A
 * function target (a built-in workload) gets the agent dlopen()ed into
 * iotrace before the fork and armed in the child.  The
 * counters are read once, at the end, and given to the sink as
 * aggregates; the sink sees ptrace's calls as events, as ever.
 */
#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <errno.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/agent-int.h"

#ifndef PR_SET_SYSCALL_USER_DISPATCH
#define PR_SET_SYSCALL_USER_DISPATCH 59
#endif
#define AGENT_SO "iotrace-agent.so"

/* The agent's path: beside /proc/self/exe, or in its build/; NULL. */
static const char *agent_so(void)
{
	static char path[PATH_MAX];
	static const char *const dirs[] = { "/", "/build/", "/../" };
	char exe[PATH_MAX], *slash;
	ssize_t n;
	size_t i;

	if (path[0])
		return path;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if ((size_t)snprintf(path, sizeof(path), "%s%s%s", exe,
				     dirs[i], AGENT_SO) < sizeof(path) &&
		    access(path, R_OK) == 0)
			return path;
	path[0] = '\0';
	return NULL;
}

static const char *agent_probe(const struct tracer_opts *opts,
			       const struct tracer_target *target)
{
	struct tracer_opts o = *opts;

	if (target->kind == TARGET_PIDS)
		return "-p: the agent is loaded only into a program as it "
		       "starts";
	if (target->kind != TARGET_COMMAND && target->kind != TARGET_FUNCTION)
		return "the agent engine cannot trace this kind of target";
	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		return "the agent runs on x86_64 only";
	if (!agent_so())
		return AGENT_SO " not found beside iotrace";
	if (prctl(PR_SET_SYSCALL_USER_DISPATCH, 0, 0, 0, 0) < 0)
		return "kernel without Syscall User Dispatch (5.11)";
	/* The marker filter is a seccomp filter: the same conditions. */
	o.seccomp = true;
	return tracer_seccomp_unusable(&o);
}

/*
 * A command the agent could only hand to ptrace (set-user-ID, not
 * x86_64): ptrace alone, with its seccomp filter, measures it better.
 * A "#!" script's interpreter is what runs: left to the run to find out.
 */
static const char *agent_unsuited(const struct tracer_opts *opts,
				  const struct tracer_target *target)
{
	int why;

	(void)opts;
	if (target->kind != TARGET_COMMAND)
		return NULL;
	why = agent_classify(target->command.path);
	return why == AGENT_WHY_NONE || why == AGENT_WHY_NOT_LOADED ? NULL :
	       agent_why_text(why);
}

/* From the last calibrate() (agent-calib.c): see struct agent_costs. */
static struct agent_costs agent_costs;
struct agent_calib *agent_calib_out;

/*
 * Unarmed tasks are traced at every call: ptrace's stop cost, measured
 * as the ptrace engine measures it, goes to c.  What the agent adds to
 * a call (agent-calib.c) is kept for the runs.
 */
static int agent_calibrate(const struct tracer_opts *opts,
			   struct tracer_calibration *c)
{
	struct tracer_opts o = *opts;
	int err;

	o.seccomp = false;
	err = calibrate_by_run(&ptrace_engine, &o, c);
	if (err < 0)
		return err;
	agent_calibrate_costs(opts, &agent_costs);
	return 0;
}

/* The agent's plan: the ptrace engine's actions, native numbers. */
static void fill_shm(struct agent_shm *s, size_t size, const struct plan *pl)
{
	const struct syscall_fact *f;
	int nr;

	s->magic = AGENT_MAGIC;
	s->version = AGENT_VERSION;
	s->size = (uint32_t)size;
	for (nr = 0; nr < AGENT_NR_MAX; nr++) {
		uint8_t act = pl->act[0][nr];

		s->act[nr] = act & ACT_TIME ? AGENT_ACT_TIME :
			     act & ACT_COUNT ? AGENT_ACT_COUNT : AGENT_ACT_SKIP;
		f = syscall_fact(0, nr);
		s->size_arg[nr] = (int8_t)(!f || !f->size ? -1 :
					   f->size == ARG_IOV ? 6 :
					   f->size - 1);
	}
}

static void shm_close(struct agent_run *ar)
{
	if (ar->shm)
		munmap(ar->shm, ar->shm_size);
	if (ar->shm_fd >= 0)
		close(ar->shm_fd);
	ar->shm = NULL;
	ar->shm_fd = -1;
}

static int shm_open_run(struct agent_run *ar, const struct tracer_opts *opts)
{
	struct tracer_opts o = *opts;
	struct plan pl;
	int err;

	ar->shm_size = opts->stacks ? sizeof(*ar->shm) : AGENT_SHM_BASE;
	ar->shm_fd = memfd_create("iotrace-agent", MFD_CLOEXEC);
	if (ar->shm_fd < 0)
		return -errno;
	if (ftruncate(ar->shm_fd, (off_t)ar->shm_size) < 0)
		goto out_errno;
	ar->shm = mmap(NULL, ar->shm_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED, ar->shm_fd, 0);
	if (ar->shm == MAP_FAILED) {
		ar->shm = NULL;
		goto out_errno;
	}
	o.seccomp = false;
	err = plan_build(&pl, &o);
	if (err < 0)
		goto out_close;
	fill_shm(ar->shm, ar->shm_size, &pl);
	plan_release(&pl);
	err = agent_files_fill(&ar->shm->files);
	if (err < 0)
		goto out_close;
	return 0;
out_errno:
	err = -errno;
out_close:
	shm_close(ar);
	return err;
}

/* libseccomp 2.5 exports BPF to a descriptor only: read it back. */
static int export_bpf(scmp_filter_ctx ctx, struct plan *pl)
{
	struct stat st;
	int fd, err;

	fd = memfd_create("iotrace-bpf", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = seccomp_export_bpf(ctx, fd);
	if (!err && (fstat(fd, &st) < 0 || st.st_size <= 0 ||
		     st.st_size / sizeof(struct sock_filter) > 0xffff))
		err = -EINVAL;
	if (!err && !(pl->bpf = malloc((size_t)st.st_size)))
		err = -ENOMEM;
	if (!err && pread(fd, pl->bpf, (size_t)st.st_size, 0) != st.st_size)
		err = -EIO;
	if (!err)
		pl->bpf_len = (unsigned short)(st.st_size /
					       sizeof(struct sock_filter));
	close(fd);
	return err;
}

/*
 * The engine's filter stops at markers only (getpid with AGENT_MAGIC),
 * so an armed task runs without a stop, and its agent's markers still
 * reach the loop.  Replaces the (filterless) plan's.
 */
int agent_plan(struct loop *l)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int err;

	if (!ctx)
		return -ENOMEM;
	err = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (!err)
		err = seccomp_rule_add_exact(ctx, SCMP_ACT_TRACE(0),
					     SCMP_SYS(getpid), 1,
					     SCMP_A0(SCMP_CMP_EQ, AGENT_MAGIC));
	if (!err)
		err = export_bpf(ctx, &l->plan);
	seccomp_release(ctx);
	l->plan.no_new_privs = geteuid() != 0;
	/* A filter all the same: PR_GET_SECCOMP, strict mode... */
	plan_mark_seccomp(&l->plan);
	return err < 0 ? err : 0;
}

/* A function target runs in a fork of iotrace: the agent goes first. */
struct fn_wrap {
	struct tracer_child orig;
	int (*start)(int fd);
	int fd;
	int watchdog_fd;	/* iotrace's, not the workload's */
};

static int wrapped_child(void *arg)
{
	const struct fn_wrap *w = arg;

	if (w->watchdog_fd >= 0)
		close(w->watchdog_fd);
	w->start(w->fd);	/* closes fd; falls back on its own */
	return w->orig.run(w->orig.arg);
}

static int wrap_function(const struct agent_run *ar, struct tracer_target *t,
			 struct fn_wrap *w)
{
	static void *handle;
	struct agent_cfg *cfg;

	if (!handle)
		handle = dlopen(agent_so(), RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return -ENOEXEC;
	*(void **)&w->start = dlsym(handle, AGENT_SYM_START);
	cfg = dlsym(handle, AGENT_SYM_CFG);
	if (!w->start || !cfg)
		return -ENOEXEC;
	/* libc's clock (the vDSO's) in iotrace's fork */
	cfg->clock_fn = (uint64_t)(uintptr_t)clock_gettime;
	w->orig = t->child;
	w->fd = ar->shm_fd;
	w->watchdog_fd = ar->watchdog_fd;
	t->child.run = wrapped_child;
	t->child.arg = w;
	return 0;
}

volatile sig_atomic_t agent_signalled;

/* An agent asks to be traced again: the stop loop's wait returns EINTR. */
static void on_request(int sig)
{
	(void)sig;
	agent_signalled = 1;
}

/*
 * The signal agents send, handled for the run without SA_RESTART (so
 * the loop's waitpid returns to look at the requests); old keeps what
 * it replaces.
 */
static int requests_on(struct agent_run *ar, struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_request;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGRTMIN + 5, &sa, old) < 0)
		return -errno;
	ar->shm->attach_sig = SIGRTMIN + 5;
	__atomic_store_n(&ar->shm->tracer_pid, (uint32_t)getpid(),
			 __ATOMIC_RELEASE);
	return 0;
}

/* No more requests: agents still running (detached) stop asking. */
static void requests_off(struct agent_run *ar, const struct sigaction *old)
{
	__atomic_store_n(&ar->shm->tracer_pid, 0, __ATOMIC_RELEASE);
	sigaction(SIGRTMIN + 5, old, NULL);
	agent_signalled = 0;
}

/* Counts ptrace's calls on their way to the sink. */
static void count_event(void *ctx, const struct tracer_event *ev)
{
	struct agent_run *ar = ctx;

	if (!(ev->flags & EVF_HIDDEN))
		ar->use->ptrace_calls++;
	ar->sink->syscall(ar->sink->ctx, ev);
}

/*
 * The probes' samples (agent/probe.c): what each call cost the wall,
 * measured in the run.  A sample past the histogram (a preemption, an
 * interrupt) counts as its last bucket: one 4 ms preemption must not add
 * half a microsecond to every call of a million.  The mean, and its
 * standard error, go to the result; nothing without samples.
 */
static void probe_stats(const struct agent_probe *pr,
			struct tracer_engine_use *u)
{
	double n = 0, sum = 0, sq = 0, v, mean, var;
	size_t i;

	u->probes = pr->launched;
	for (i = 0; i < AGENT_PROBE_BUCKETS; i++) {
		v = ((double)i + 0.5) * AGENT_PROBE_NS;
		n += (double)pr->hist[i];
		sum += (double)pr->hist[i] * v;
		sq += (double)pr->hist[i] * v * v;
	}
	u->probe_samples = (uint64_t)n;
	if (n < 2)
		return;
	mean = sum / n;
	var = (sq - n * mean * mean) / (n - 1);
	u->dispatch_run_ns = (uint64_t)(mean + 0.5) + u->correction_ns;
	u->dispatch_run_se_ns = var > 0 ? (uint64_t)(sqrt(var / n) + 0.5) : 0;
}

/* The agents' counters, one aggregate per syscall they counted. */
static void deliver(struct agent_run *ar)
{
	const struct agent_row *r;
	struct tracer_aggregate a;
	int nr, i;

	for (nr = 0; nr < AGENT_NR_MAX; nr++) {
		r = &ar->shm->rows[nr];
		if (!r->calls)
			continue;
		memset(&a, 0, sizeof(a));
		a.arch = syscall_pers[0].arch;
		a.nr = nr;
		a.calls = r->calls;
		a.timed = r->timed;
		if (ar->shm->size_arg[nr] >= 0)
			ar->use->io_timed += r->timed;
		a.errors = r->errors;
		a.time_ns = r->time_ns;
		a.raw_time_ns = r->raw_time_ns;
		a.min_ns = r->min_ns;
		a.max_ns = r->max_ns;
		a.bytes_req = r->bytes_req;
		a.bytes_done = r->bytes_done;
		a.short_calls = r->short_calls;
		memcpy(a.hist, r->hist, sizeof(a.hist));
		for (i = 0; i < TRACER_ERRNO_SLOTS; i++) {
			a.errnos[i].err = (int)r->errnos[i][0];
			a.errnos[i].count = r->errnos[i][1];
		}
		a.errno_other = r->errno_other;
		ar->use->agent_calls += a.calls;
		if (ar->sink->aggregate)
			ar->sink->aggregate(ar->sink->ctx, &a);
	}
}

/* The agent's part of a target: its image, or its function. */
static int prepare(struct agent_run *ar, struct tracer_target *t,
		   struct fn_wrap *w)
{
	int err;

	snprintf(ar->shm_path, sizeof(ar->shm_path), "/proc/%d/fd/%d",
		 (int)getpid(), ar->shm_fd);
	ar->filters_base = task_status_field(getpid(), "Seccomp_filters", 0) +
			   1;
	err = agent_image_load(&ar->image, ar->so);
	if (!err)
		agent_watchdog_start(ar);
	if (!err && t->kind == TARGET_FUNCTION)
		err = wrap_function(ar, t, w);
	return err;
}

int agent_run(const struct tracer_opts *opts,
	      const struct tracer_target *target,
	      const struct tracer_sink *sink, struct tracer_result *res)
{
	struct agent_run ar = { .shm_fd = -1, .watchdog_fd = -1,
				.use = &res->use, .sink = sink,
				.so = agent_so() };
	struct tracer_sink counting = { count_event, &ar, NULL };
	struct tracer_opts o = *opts;
	struct tracer_target t = *target;
	struct loop l = { .opts = &o, .target = &spawn_target,
			  .sink = &counting, .res = res, .agent = &ar };
	struct fn_wrap w;
	struct sigaction old_sa;
	int err;

	memset(res, 0, sizeof(*res));
	res->engine = "agent";
	if (agent_probe(opts, target))
		return -EINVAL;
	/* No full filter: the markers' instead.  Pinning stays (a stop per
	   dispatched call costs less on one CPU): the agent has the CPU mask
	   calls run under ptrace, which hides it as ever. */
	o.seccomp = false;
	err = shm_open_run(&ar, opts);
	if (err < 0)
		return err;
	ar.shm->correction_ns = agent_costs.correction_ns;
	ar.shm->correction_io_ns = agent_costs.correction_io_ns;
	ar.shm->calib.on = agent_calib_out != NULL;
	err = agent_sites_start(&ar, opts);
	if (err < 0)
		goto out_close;
	res->use.correction_ns = agent_costs.correction_ns;
	res->use.correction_io_ns = agent_costs.correction_io_ns;
	res->use.dispatch_ns = agent_costs.dispatch_ns;
	err = prepare(&ar, &t, &w);
	if (err < 0)
		goto out_close;
	res->use.known = true;
	err = requests_on(&ar, &old_sa);
	if (!err)
		err = ptrace_run_loop(&l, &t);
	requests_off(&ar, &old_sa);
	agent_untrack_all(&ar, false);
	res->use.untraced = ar.shm->untraced;
	probe_stats(&ar.shm->probe, &res->use);
	deliver(&ar);
	agent_files_deliver(&ar);
	agent_sites_end(&ar);
	if (agent_calib_out)
		*agent_calib_out = ar.shm->calib;
out_close:
	agent_watchdog_stop(&ar);
	free(ar.site_calls);
	agent_image_release(&ar.image);
	shm_close(&ar);
	return err;
}

const struct tracer_engine agent_engine = {
	.name = "agent",
	.probe = agent_probe,
	.unsuited = agent_unsuited,
	.calibrate = agent_calibrate,
	.run = agent_run,
};
