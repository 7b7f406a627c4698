// SPDX-License-Identifier: MIT
/*
 * What a call through the fast path costs, measured at the run's start
 * (fast-int.h), so the untraced picture and the times need no guess.  A
 * thread of iotrace makes 1-byte writes to /dev/null from a site of its
 * own: untraced first, then under a seccomp filter that, like the run's,
 * lets calls from the trampolines' pages through at its first test, both
 * from the site as it was and from the site rewritten to a trampoline
 * (rewrite.h's code, as the run emits it), locked and as the twin a
 * process of one thread runs.  Per round, the calls' mean in a loop, as
 * a program makes them: what a trampoline adds to the wall (rewritten -
 * untraced) and what its clock counts that the call untraced would not
 * take (the filter's entry path: filtered - untraced), untraced being
 * its fastest round (fastest_of()); the figures are the medians over
 * rounds, the ranges the second lowest and highest.
 * It runs before the command starts, beside the stop calibration;
 * fast_clock() reads its figures and the TSC's scale at their first use.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include "tracer/rewrite/fast-int.h"

/*
 * A round of each way is CALLS calls: one that a timer tick or the other
 * CPU's work falls into is left out at both ends of the range
 * (added_range()), and the rounds are short enough to fill the TSC's
 * interval, not more.
 */
#define CALLS 64		/* per round and way */
#define ROUNDS 5
#define PAGE 4096ul

/* The thread's: it writes nothing else (struct fast_calib is copied). */
struct calib_out {
	uint64_t native[ROUNDS], filtered[ROUNDS], tramp[ROUNDS],
		 twin[ROUNDS];	/* ticks */
	int err;
};

typedef long (*site_fn)(long fd, const void *buf, long n);

/* mov $1,%eax; syscall; ret: write(2) as a libc leaf would make it. */
static const uint8_t site_code[] = { 0xb8, 1, 0, 0, 0, 0x0f, 0x05, 0xc3 };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * CALLS calls of fn back to back, as a program's loop makes them, in
 * ticks a call: one clock around them all, since a clock read around
 * each would keep the next call from overlapping this one's end.
 */
static uint64_t round_of(site_fn fn, int fd)
{
	uint64_t t0;
	char c = 0;
	int i;

	t0 = __rdtsc();
	for (i = 0; i < CALLS; i++)
		fn(fd, &c, 1);
	return (__rdtsc() - t0) / CALLS;
}

static int load_filter(uint64_t lo, uint64_t size)
{
	struct sock_filter *bpf = malloc(sizeof(*bpf));
	unsigned short len = 1;
	struct sock_fprog prog;
	int err;

	if (!bpf)
		return -ENOMEM;
	bpf[0] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K,
					      SECCOMP_RET_ALLOW);
	err = rw_filter_allow_pool(&bpf, &len, lo, size);
	if (err < 0)
		goto out;
	prog.len = len;
	prog.filter = bpf;
	/* The kernel copies the program: ours is freed either way. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		err = -errno;
out:
	free(bpf);
	return err;
}

/*
 * The site again at code + at, rewritten to jump to its island 64 bytes
 * further, which reaches the trampoline at tramp + t (spec s, filled).
 */
static bool emit(uint8_t *code, uint8_t *tramp, size_t at, size_t t,
		 struct rw_tramp_spec *s)
{
	memcpy(code + at, site_code, sizeof(site_code));
	s->at = (uint64_t)tramp + t;
	s->site = (uint64_t)code + at;
	s->stub = (uint64_t)code + at + 64 + RW_ISLAND_STUB;
	return rw_tramp_emit(tramp + t, s) &&
	       rw_island_emit(code + at + 64, (uint64_t)code + at + 64, s) &&
	       rw_site_patch(code + at, (uint64_t)code + at, RW_SITE_LEN,
			     (uint64_t)code + at + 64);
}

/*
 * The thread's side: a page of code (the site three times: as it was,
 * and rewritten to jump to an island in the same page, for the locked
 * trampoline and for its twin), the trampolines' page at a page-aligned
 * address of its own, counters; all unmapped again.
 */
static int measure_in(uint8_t *code, uint8_t *tramp, void *cnt, int fd,
		      struct calib_out *out)
{
	struct rw_tramp_spec s, twin;
	size_t len;
	int r, err;

	memcpy(code, site_code, sizeof(site_code));
	memset(&s, 0, sizeof(s));
	s.resume = 7;
	s.nr = SYS_write;
	s.fd_reg = RW_RDI;
	s.moves_data = true;
	s.size_reg = RW_RDX;
	s.counters = (uint64_t)cnt;
	s.mult = 1;	/* its own clock is not read: the rounds' ticks are */
	s.shift = 0;
	twin = s;
	if (!emit(code, tramp, 64, 0, &s) ||
	    !emit(code, tramp, 192, PAGE / 2, &twin))
		return -EINVAL;
	len = rw_tramp_emit(tramp + PAGE / 2, &twin);
	if (!rw_tramp_unlock(tramp + PAGE / 2, len, &twin))
		return -EINVAL;
	if (mprotect(code, PAGE, PROT_READ | PROT_EXEC) < 0 ||
	    mprotect(tramp, PAGE, PROT_READ | PROT_EXEC) < 0)
		return -errno;
	for (r = 0; r < ROUNDS; r++)
		out->native[r] = round_of((site_fn)(void *)code, fd);
	err = load_filter((uint64_t)tramp, PAGE);
	if (err)
		return err;
	for (r = 0; r < ROUNDS; r++) {
		out->filtered[r] = round_of((site_fn)(void *)code, fd);
		out->tramp[r] = round_of((site_fn)(void *)(code + 64), fd);
		out->twin[r] = round_of((site_fn)(void *)(code + 192), fd);
	}
	return 0;
}

static void *measure(void *arg)
{
	struct calib_out *c = arg;
	uint8_t *code, *tramp;
	void *cnt;
	int fd;

	c->err = -ENOMEM;
	code = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		goto out;
	tramp = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tramp == MAP_FAILED)
		goto out_code;
	cnt = mmap(NULL, sizeof(struct rw_counters), PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (cnt == MAP_FAILED)
		goto out_tramp;
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || fd >= RW_FDS)
		goto out_fd;
	c->err = measure_in(code, tramp, cnt, fd, c);
out_fd:
	if (fd >= 0)
		close(fd);
	munmap(cnt, sizeof(struct rw_counters));
out_tramp:
	munmap(tramp, PAGE);
out_code:
	munmap(code, PAGE);
out:
	return NULL;
}

static uint64_t median_of(uint64_t *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_u64);
	return v[ROUNDS / 2];
}

/*
 * The untraced rounds' fastest: what falls into a round (the command's
 * start on the other CPU, a tick) only ever slows it, and the untraced
 * rounds all come first, before the filter, so a burst there has no
 * counterpart in the others.  Their median could be such a round, above
 * every filtered one, and every figure came out 0 (docs/fastpath.md).
 */
static uint64_t fastest_of(const uint64_t *v)
{
	uint64_t min = v[0];
	int r;

	for (r = 1; r < ROUNDS; r++)
		if (v[r] < min)
			min = v[r];
	return min;
}

/*
 * Another CPU than the one iotrace runs on, which the stop calibration
 * and the command are pinned to (pin.c): the two measurements, made at
 * once, would each take the other's time on one CPU.  cpus: iotrace's
 * mask before it pinned itself (NULL: not pinned, its own mask).
 * -1: one CPU.
 */
static int other_cpu(const cpu_set_t *cpus)
{
	cpu_set_t mask;
	int cpu = sched_getcpu(), i;

	if (cpus)
		mask = *cpus;
	else if (sched_getaffinity(0, sizeof(mask), &mask) < 0)
		return -1;
	if (cpu < 0)
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (i != cpu && CPU_ISSET(i, &mask))
			return i;
	return -1;
}

/*
 * For a built-in workload, which runs in a fork of iotrace: a thread of
 * iotrace's would leave glibc's __libc_single_threaded false in that
 * fork, and its wrappers would take their multi-threaded path, whose
 * sites are not all rewritten (splice's are not).  The calls are made
 * in a child instead, waited for here: before the run, so the stop
 * loop's wait never meets it.
 */
static int measure_in_child(struct calib_out *out)
{
	struct calib_out *shared;
	int status, err = 0;
	pid_t pid;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -errno;
	shared->err = -ECHILD;
	pid = fork();
	if (pid == 0) {
		measure(shared);
		_exit(0);
	}
	if (pid < 0) {
		err = -errno;
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			err = -errno;
			goto out;
		}
	*out = *shared;
out:
	munmap(shared, sizeof(*shared));
	return err;
}

/*
 * A thread of iotrace's makes the calls: its seccomp filter and
 * no_new_privs are its own (no SECCOMP_FILTER_FLAG_TSYNC), and it has no
 * child for the stop loop's wait to meet.  Every signal is blocked in
 * it, so iotrace's handlers run where they always did.  in_child: a
 * child makes them, at once (measure_in_child()).
 */
int fast_calibrate_start(struct fast_calib *c, bool in_child,
			 const cpu_set_t *cpus)
{
	pthread_attr_t attr;
	sigset_t all, was;
	cpu_set_t cpu;
	int other;
	int err;

	c->out = calloc(1, sizeof(*c->out));
	if (!c->out)
		return -ENOMEM;
	c->measured = in_child;
	if (in_child) {
		err = measure_in_child(c->out);
		if (err) {
			free(c->out);
			c->out = NULL;
		}
		return err;
	}
	pthread_attr_init(&attr);
	other = other_cpu(cpus);
	if (other >= 0) {
		CPU_ZERO(&cpu);
		CPU_SET(other, &cpu);
		pthread_attr_setaffinity_np(&attr, sizeof(cpu), &cpu);
		TRACER_DEBUG("fast path's calibration thread on CPU %d", other);
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	err = pthread_create(&c->thread, &attr, measure, c->out);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	pthread_attr_destroy(&attr);
	if (err) {
		free(c->out);
		c->out = NULL;
		return -err;
	}
	return 0;
}

/*
 * The second lowest and second highest of the rounds' v[r] - nat, in
 * ns: a round that an interrupt or the other CPU's work fell into moves
 * a mean of 256 calls by tens of ns, and is left out at either end.
 */
static void added_range(const struct rw_tsc *t, const uint64_t *v,
			uint64_t nat, uint64_t *lo, uint64_t *hi)
{
	uint64_t add[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++)
		add[r] = v[r] > nat ? v[r] - nat : 0;
	qsort(add, ROUNDS, sizeof(*add), cmp_u64);
	*lo = rw_tsc_ns(t, add[1]);
	*hi = rw_tsc_ns(t, add[ROUNDS - 2]);
}

/* f->use's figures from the rounds' ticks. */
static void fill(struct fast_run *f, struct calib_out *out)
{
	struct tracer_fast_use *u = f->use;
	uint64_t nat = fastest_of(out->native), infl[ROUNDS];
	int r;

	for (r = 0; r < ROUNDS; r++)
		infl[r] = out->filtered[r] > nat ? out->filtered[r] - nat : 0;
	added_range(&f->tsc, out->twin, nat, &u->call_lo_ns, &u->call_hi_ns);
	added_range(&f->tsc, out->tramp, nat, &u->locked_call_lo_ns,
		    &u->locked_call_hi_ns);
	u->inflation_ns = rw_tsc_ns(&f->tsc, median_of(infl));
}

int fast_calibrate_end(struct fast_run *f, struct fast_calib *c)
{
	struct calib_out out;
	int err;

	if (!c->out)
		return -EINVAL;
	if (!c->measured)
		pthread_join(c->thread, NULL);
	out = *c->out;
	err = out.err;
	free(c->out);
	c->out = NULL;
	if (err || !f)
		return err ? err : -EIO;
	fill(f, &out);
	return 0;
}

/*
 * The TSC's interval: two tight readings (tsc.c) are each good to a few
 * tens of ns, so the scale to about 1 part in 10,000 over half a ms.
 */
#define FAST_TSC_NS 500000

/* --debug: the clock, and what the calibration measured. */
static void debug_clock(const struct fast_run *f, int err)
{
	const struct tracer_fast_use *u = f->use;

	if (!f->clock_ok || err)
		tracer_debugf("fast path's clock %s, its calibration %s",
			      f->clock_ok ? "calibrated" : "failed",
			      err ? strerror(-err) : "done");
	else
		tracer_debugf("fast path's clock calibrated: a call adds "
			      "%llu-%llu ns (%llu-%llu locked), the filter %llu",
			      (unsigned long long)u->call_lo_ns,
			      (unsigned long long)u->call_hi_ns,
			      (unsigned long long)u->locked_call_lo_ns,
			      (unsigned long long)u->locked_call_hi_ns,
			      (unsigned long long)u->inflation_ns);
}

/*
 * The trampolines' clock, at the first rewrite: the calibration thread's
 * figures, then the TSC's scale from the mark fast_start() took
 * (FAST_TSC_NS at least; the thread's rounds take about that).  false: no
 * clock, no trampoline, and the run says why.
 */
bool fast_clock(struct fast_run *f)
{
	if (!f->clock_tried) {
		f->clock_tried = true;
		/* Without it the times keep the filter's cost: said as 0. */
		if (f->calibrating) {
			struct fast_calib c = f->calib;
			int err;

			f->calibrating = false;
			f->clock_ok = rw_tsc_since(&f->mark, FAST_TSC_NS,
						   &f->tsc) == 0;
			err = fast_calibrate_end(f->clock_ok ? f : NULL, &c);
			if (tracer_debug_on)
				debug_clock(f, err);
		} else {
			f->clock_ok = rw_tsc_since(&f->mark, FAST_TSC_NS,
						   &f->tsc) == 0;
		}
		/* No trampoline ever: every site stays on its stops. */
		if (!f->clock_ok) {
			f->use->on = false;
			f->use->why_off = "the TSC could not be calibrated";
			TRACER_DEBUG("fast path off: %s", f->use->why_off);
		}
	}
	return f->clock_ok;
}

/*
 * The warm start: the TSC's first reading and the thread, once per
 * iotrace, started before the stop calibration, whose ms fill their
 * pause; the first run with the fast path on takes them.
 */
static struct {
	bool marked, started;
	struct rw_tsc_mark mark;
	struct fast_calib calib;
} warm;

/* Whether opts trace a hot call (SF_HOT) at all: -e trace=mmap does
 * not, and its run has no fast path to calibrate. */
static bool traces_hot(const struct tracer_opts *opts)
{
	const struct syscall_fact *fact;
	int nr;

	for (nr = 0; nr < 512; nr++) {
		fact = syscall_fact(0, nr);
		if (fact && (fact->flags & SF_HOT) &&
		    (!opts->trace ||
		     syscall_set_has_pers(opts->trace, 0, nr)))
			return true;
	}
	return false;
}

void fast_warm_start(const struct tracer_opts *opts, const cpu_set_t *cpus)
{
	static bool tried;

	if (tried || fast_opts_why_not(opts) || !traces_hot(opts) ||
	    rw_tsc_unusable())
		return;
	tried = true;
	rw_tsc_mark(&warm.mark);
	warm.marked = true;
	warm.started = fast_calibrate_start(&warm.calib, opts->in_fork,
					    cpus) == 0;
	TRACER_DEBUG("fast path's calibration %s",
		     !warm.started ? "failed to start" :
		     opts->in_fork ? "measured in a child" : "started");
}

bool fast_warm_take(struct fast_run *f)
{
	if (!warm.marked)
		return false;
	warm.marked = false;
	f->mark = warm.mark;
	f->calib = warm.calib;
	f->calibrating = warm.started;
	return true;
}

/*
 * Why the options keep the fast path off, or NULL: here, as the warm
 * start asks it before fast.c's fast_start() does.
 */
const char *fast_opts_why_not(const struct tracer_opts *opts)
{
#ifndef __x86_64__
	(void)opts;
	return "not an x86_64 build";
#else
	if (!opts->rewrite)
		return "--no-rewrite";
	if (!opts->seccomp)
		return "no seccomp filter";
	if (opts->stacks && opts->stack_sample <= 1)
		return "-k without --stack-sample unwinds every call";
	if (opts->per_thread)
		return "--per-thread: its counters are per process";
	return NULL;
#endif
}
