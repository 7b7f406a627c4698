// SPDX-License-Identifier: MIT
/*
 * Aggregating events into the profile.  profile_add() is on the stop
 * loop's path: one array index to find the row (rows.c), a handful of
 * additions, no allocation except the first time a syscall is seen.
 */
#include <errno.h>
#include <stddef.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "profile/profile.h"

void profile_init(struct profile *p)
{
	struct utsname u;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	memset(p, 0, sizeof(*p));
	p->native_arch = seccomp_arch_native();
	p->source = "iotrace";
	p->start_time = time(NULL);
	p->ncpus = n > 0 ? (int)n : 1;
	if (uname(&u) == 0)
		snprintf(p->kernel, sizeof(p->kernel), "%s", u.release);
	profile_set_dims(p, NULL);
}

static void free_argv(struct profile *p)
{
	int i;

	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	p->argv = NULL;
	p->argc = 0;
}

void profile_release(struct profile *p)
{
	free(p->rows);
	free(p->index);
	free_argv(p);
	profile_breakdowns_release(p);
	profile_waiters_release(p);
	p->rows = NULL;
	p->index = NULL;
	p->nrows = p->cap = 0;
}

int profile_set_command(struct profile *p, int argc, char *const argv[])
{
	int i;

	free_argv(p);
	p->argv = calloc((size_t)argc + 1, sizeof(*p->argv));
	if (!p->argv)
		return -ENOMEM;
	for (i = 0; i < argc; i++) {
		p->argv[i] = strdup(argv[i]);
		if (!p->argv[i]) {
			p->argc = i;
			free_argv(p);
			return -ENOMEM;
		}
		/* As a loaded one: a newline or ESC would reach a terminal. */
		profile_clean_text(p->argv[i], true);
	}
	p->argc = argc;
	return 0;
}

/*
 * Summed: what totals add up over rows (sums.c).  Not min_ns and max_ns,
 * nor bytes_req, which saturates (a copy_file_range asks for SSIZE_MAX
 * bytes) and nothing totals.
 */
#define COUNTER(field, col, sum) \
	{ #field, offsetof(struct profile_row, field), col, sum, false }
#define LATER(field, sum) \
	{ #field, offsetof(struct profile_row, field), false, sum, true }
const struct profile_counter profile_counters[] = {
	COUNTER(calls, true, true),	   COUNTER(errors, true, true),
	COUNTER(timed, false, true),	   COUNTER(time_ns, false, true),
	COUNTER(raw_time_ns, false, true), COUNTER(min_ns, false, false),
	COUNTER(max_ns, false, false),	   COUNTER(errno_other, false, true),
	COUNTER(bytes_req, false, false),  COUNTER(bytes_done, false, true),
	COUNTER(short_calls, false, true), LATER(fast_timed, true),
	LATER(fast_raw_ns, true),	   { NULL, 0, false, false, false },
};

uint64_t profile_counter_get(const struct profile_row *r,
			     const struct profile_counter *c)
{
	if (c->offset == offsetof(struct profile_row, min_ns) && !r->timed)
		return 0;
	return *(const uint64_t *)((const char *)r + c->offset);
}

void profile_row_add_errno(struct profile_row *r, int err, uint64_t n)
{
	size_t i;

	for (i = 0; i < PROFILE_ERRNO_SLOTS; i++) {
		if (r->errnos[i].err == err || !r->errnos[i].err) {
			r->errnos[i].err = err;
			r->errnos[i].count += n;
			return;
		}
	}
	r->errno_other += n;
}

static unsigned hist_bucket(uint64_t ns)
{
	unsigned b = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;

	return b < PROFILE_HIST_BUCKETS ? b : PROFILE_HIST_BUCKETS - 1;
}

/*
 * copy_file_range and sendfile callers often ask for "everything"
 * (SSIZE_MAX): the sum of requests saturates instead of wrapping.
 */
static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Failed calls moved nothing and are counted as errors, not as short. */
static void add_io(struct profile_row *r, const struct tracer_event *ev)
{
	if (ev->ret < 0)
		return;
	r->bytes_done += (uint64_t)ev->ret;
	if (r->io_arg >= 0 && r->io_arg < 6) {
		r->bytes_req = add_sat(r->bytes_req, ev->args[r->io_arg]);
		if ((uint64_t)ev->ret < ev->args[r->io_arg])
			r->short_calls++;
	}
}

int profile_add(struct profile *p, const struct tracer_event *ev)
{
	struct profile_row *r;
	uint64_t raw, ns;

	if (ev->flags & EVF_HIDDEN)
		return 0;
	r = profile_event_row(p, ev);
	if (!r)
		return -ENOMEM;
	r->calls++;
	if (profile_row_waits(r) && profile_note_waiter(p, ev->tid) < 0)
		return -ENOMEM;
	if (ev->flags & EVF_COUNT_ONLY)
		return 0;
	if (ev->ret < 0 && ev->ret >= -4095) {
		r->errors++;
		profile_row_add_errno(r, (int)-ev->ret, 1);
	}
	raw = ev->exit_ns - ev->entry_ns;
	ns = raw > p->overhead_ns ? raw - p->overhead_ns : 0;
	r->timed++;
	r->raw_time_ns += raw;
	r->time_ns += ns;
	if (ns < r->min_ns)
		r->min_ns = ns;
	if (ns > r->max_ns)
		r->max_ns = ns;
	r->hist[hist_bucket(ns)]++;
	if (r->io_arg != IO_NONE)
		add_io(r, ev);
	return 0;
}

void profile_totals(const struct profile *p, struct profile_totals *t)
{
	profile_totals_where(p, t, NULL);
}

void profile_totals_where(const struct profile *p, struct profile_totals *t,
			  bool (*keep)(const struct profile_row *r))
{
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < p->nrows; i++) {
		if (keep && !keep(&p->rows[i]))
			continue;
		t->calls += p->rows[i].calls;
		t->errors += p->rows[i].errors;
		t->timed += p->rows[i].timed;
		t->time_ns += p->rows[i].time_ns;
		t->raw_time_ns += p->rows[i].raw_time_ns;
		t->time_us += profile_round_us(p->rows[i].time_ns);
		t->raw_time_us += profile_round_us(p->rows[i].raw_time_ns);
	}
}

void profile_set_exit(struct profile *p, int wait_status, int fatal_signal)
{
	struct profile_exit *e = &p->exit;

	memset(e, 0, sizeof(*e));
	e->known = true;
	e->fatal_signal = fatal_signal;
	if (WIFSIGNALED(wait_status)) {
		e->signal = WTERMSIG(wait_status);
		e->core = WCOREDUMP(wait_status);
	} else {
		e->code = WEXITSTATUS(wait_status);
	}
}

void profile_set_trace_expr(struct profile *p, const char *expr)
{
	snprintf(p->trace_expr, sizeof(p->trace_expr), "%s", expr ? expr : "");
	profile_clean_text(p->trace_expr, true);
}

uint64_t profile_row_percentile(const struct profile_row *r, double q)
{
	uint64_t n = 0, want;
	unsigned b;

	if (!r->timed)
		return 0;
	/* The rank of the q-th percentile, 1-based: ceil(q% of calls). */
	want = (uint64_t)((double)r->timed * q / 100.0 + 0.999999);
	if (!want)
		want = 1;
	for (b = 0; b < PROFILE_HIST_BUCKETS; b++) {
		n += r->hist[b];
		if (n >= want)
			break;
	}
	/* The last bucket is open-ended; max_ns bounds every bucket. */
	if (b >= PROFILE_HIST_BUCKETS - 1)
		return r->max_ns;
	return profile_hist_high(b) < r->max_ns ? profile_hist_high(b) + 1
						 : r->max_ns;
}
