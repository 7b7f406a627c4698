// SPDX-License-Identifier: MIT
/*
 * The plan: what to do at each syscall, and the seccomp-bpf filter built
 * from it with libseccomp.  With the filter, syscalls iotrace does not
 * trace cost no stop at all, count-only syscalls cost one stop, timed ones
 * two; the filter's 16-bit SECCOMP_RET_DATA carries the action, tagged
 * (PLAN_DATA_TAG) so that a program's own filter's data is told apart,
 * and the stop loop needs no lookup.  Every personality (x86_64, i386, x32) is
 * planned by its own numbers from the syscall table; numbers outside the
 * tables get what -e trace= says of them, which is also the filter's
 * default.  The filter is built here, in the parent, and exported as raw
 * BPF so the child only makes one prctl() to load it.
 */
#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"

/* What opts make of number nr of personality pers (-1: outside all). */
static uint8_t traced_action(const struct tracer_opts *opts, int pers, int nr)
{
	if (opts->trace && !syscall_set_has_pers(opts->trace, pers, nr))
		return ACT_SKIP;
	return opts->count && syscall_set_has_pers(opts->count, pers, nr) ?
	       ACT_COUNT : ACT_TIME;
}

/*
 * By number, from the sets' bits: no name lookups.  Eight numbers at a
 * time where neither set has one of them (most of a -e trace= set).
 */
static void fill_actions(uint8_t *actions, int pers,
			 const struct tracer_opts *opts)
{
	const uint8_t *t = opts->trace ? opts->trace->bits[pers] : NULL;
	const uint8_t *c = opts->count ? opts->count->bits[pers] : NULL;
	int i, nr;

	for (i = 0; i < SYSCALL_SET_MAX / 8; i++) {
		if ((t && !t[i]) || (!t && (!c || !c[i]))) {
			memset(actions + i * 8, t ? ACT_SKIP : ACT_TIME, 8);
			continue;
		}
		for (nr = i * 8; nr < i * 8 + 8; nr++)
			actions[nr] = traced_action(opts, pers, nr);
	}
}

/*
 * The facts: calls that never return are never a stop (like strace,
 * never in the table); pinning must see the calls about the CPU mask
 * return.  Returns whether a call that moves data (%io) is traced.
 */
static bool apply_facts(uint8_t *actions, int pers, bool pin)
{
	const struct syscall_fact *f;
	const uint16_t *nrs;
	int i, n = syscall_pers_facts(pers, &nrs);
	bool data = false;

	for (i = 0; i < n; i++) {
		f = syscall_fact(pers, nrs[i]);
		if (f->flags & SF_NORETURN)
			actions[nrs[i]] = ACT_SKIP;
		if (pin && (f->flags & (SF_GETAFFINITY | SF_SETAFFINITY)))
			actions[nrs[i]] |= ACT_FIXUP;
		if (f->size && actions[nrs[i]] != ACT_SKIP)
			data = true;
	}
	return data;
}

/*
 * The stops that other parts of the tracer act on, by fact, once the
 * actions are settled: clone.c clears CLONE_UNTRACED (children followed),
 * ownfilter.c sees a program load a filter of its own (filter mode), the
 * unwinder sees code mapped (-k: the native personality only).
 */
static void mark_facts(uint8_t *actions, int pers,
		       const struct tracer_opts *opts)
{
	const struct syscall_fact *f;
	const uint16_t *nrs;
	int i, n = syscall_pers_facts(pers, &nrs);

	for (i = 0; i < n; i++) {
		f = syscall_fact(pers, nrs[i]);
		if (opts->follow &&
		    (f->flags & (SF_CLONE_FLAGS | SF_CLONE_ARGS)))
			actions[nrs[i]] |= ACT_CLONE;
		if (opts->seccomp && (f->flags & SF_SECCOMP))
			actions[nrs[i]] |= ACT_SECCOMP;
		if ((opts->stacks || opts->rewrite) && pers == 0 &&
		    (f->flags & SF_MAPS_CODE))
			actions[nrs[i]] |= ACT_MAPS;
		/* The fast path starts each image at its execve's exit,
		   even where no fd needs tracking (-e trace=newfstatat). */
		if (opts->rewrite && pers == 0 && f->fx == FX_EXEC &&
		    actions[nrs[i]] == ACT_SKIP)
			actions[nrs[i]] = ACT_TRACK_ENTRY;
	}
}

/*
 * Marks ACT_TRACK on the syscalls the fd cache (procfd/fds.c) must see
 * (close, dup2, execve, clone...) where the plan would skip them: a
 * cache that missed a close could name the wrong file.  Only the calls
 * that free or change an fd need to be seen: a number comes back from
 * open, socket or dup only after one of them freed it.
 */
static void fd_mark_tracked(uint8_t *actions, int pers)
{
	const struct syscall_fact *f;
	const uint16_t *nrs;
	int i, n = syscall_pers_facts(pers, &nrs);

	for (i = 0; i < n; i++) {
		f = syscall_fact(pers, nrs[i]);
		if (f->fx == FX_NONE || f->fx == FX_RET ||
		    actions[nrs[i]] != ACT_SKIP)
			continue;
		/* Only a new task's tid needs the return value. */
		actions[nrs[i]] = f->fx == FX_CHILD ? ACT_TRACK :
				  ACT_TRACK_ENTRY;
	}
}

/*
 * Every personality is planned alike: a 32-bit program in a 64-bit tree
 * (or alone) has its fds tracked and its CPU mask kept like any other.
 */
static void fill_plan(struct plan *pl, const struct tracer_opts *opts)
{
	bool data = false;
	int p;

	pl->other = traced_action(opts, -1, -1);
	for (p = 0; p < syscall_npers; p++) {
		fill_actions(pl->act[p], p, opts);
		data |= apply_facts(pl->act[p], p, opts->pin);
	}
	for (p = 0; data && p < syscall_npers; p++)
		fd_mark_tracked(pl->act[p], p);
	for (p = 0; p < syscall_npers; p++)
		mark_facts(pl->act[p], p, opts);
}

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/*
 * Whether the kernel returns SECCOMP_RET_TRACE, asked of the kernel
 * itself (since 4.14; older ones say EINVAL, and a child is asked).
 */
static bool trace_action_avail(void)
{
	uint32_t action = SECCOMP_RET_TRACE;

	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

/*
 * Whether this process may load a seccomp filter at all: a sandbox's own
 * filter (some containers) may refuse seccomp(2) and prctl.  With no
 * filter on iotrace (seccomp mode 0) nothing stands between the child and
 * the kernel, whose support trace_action_avail() tells: no child is
 * needed, and a fork is a good share of a short run's start.  Under a
 * filter (mode 2) only a child can tell: it tries an allow-all filter, as
 * the traced command's first task would load the plan's.  Asked once per
 * iotrace.  NULL, or why not.
 */
static const char *filter_refused(void)
{
	static char why[80];
	static int known;	/* 0: not asked yet, 1: asked */
	struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K,
					    SECCOMP_RET_ALLOW);
	struct sock_fprog prog = { 1, &allow };
	int status, err = 0;
	pid_t pid;

	if (known)
		return why[0] ? why : NULL;
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) == 0 && trace_action_avail()) {
		known = 1;
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0)
			_exit(errno & 0xff);
		_exit(0);
	}
	if (pid < 0)
		return NULL;	/* not known: the run will tell */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return NULL;
	known = 1;
	if (WIFEXITED(status))
		err = WEXITSTATUS(status);
	if (err)
		snprintf(why, sizeof(why), "seccomp(2) refused here (%s)",
			 strerror(err));
	return why[0] ? why : NULL;
}

const char *tracer_seccomp_unusable(const struct tracer_opts *opts)
{
	if (!opts->follow)
		return "--no-follow: untraced children would inherit the filter";
	/* Since 4.8 the seccomp stop comes after syscall-entry-stop. */
	if (!kernel_at_least(4, 8))
		return "kernel older than 4.8";
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0)
		return "kernel without seccomp";
	return filter_refused();
}

static uint32_t scmp_action(uint8_t act)
{
	return act == ACT_SKIP ? SCMP_ACT_ALLOW :
	       SCMP_ACT_TRACE(PLAN_DATA_TAG | act);
}

/*
 * The number that names call nr of personality pers for libseccomp,
 * whose rules take native numbers (or its negative pseudo numbers for
 * names the native arch lacks, like i386's fstat64) and translate them
 * into each filter's arch by name.  -1: no name, no rule.
 */
static int rule_number(int pers, int nr)
{
	char buf[SYSCALL_NAME_MAX];

	if (pers == 0)
		return nr;
	if (!syscall_pers_named(pers, nr))
		return -1;
	return seccomp_syscall_resolve_name(syscall_pers_name(pers, nr, buf,
							      sizeof(buf)));
}

/*
 * The stop calibration's getppid(CALIB_MAGIC) stops with ACT_TIME; any
 * other getppid keeps the plan's action.  Both rules test the argument:
 * libseccomp lets a rule without one win over every rule with one.
 */
static int calib_rules(scmp_filter_ctx ctx, const struct plan *pl)
{
	uint8_t act = pl->act[0][SYS_getppid];
	int err = 0;

	/* libseccomp refuses a rule of the default's action (EACCES). */
	if (act == ACT_TIME)
		return 0;
	if (pl->other != ACT_TIME)
		err = seccomp_rule_add_exact(ctx, scmp_action(ACT_TIME),
					     SYS_getppid, 1,
					     SCMP_A0(SCMP_CMP_EQ, CALIB_MAGIC));
	if (!err && act != pl->other)
		err = seccomp_rule_add_exact(ctx, scmp_action(act), SYS_getppid,
					     1, SCMP_A0(SCMP_CMP_NE,
							CALIB_MAGIC));
	return err;
}

/*
 * One personality's filter: its arch only, so each rule lands on that
 * arch's call of the name.  Numbers that get the default (the action of
 * numbers outside the table) need no rule; an unnamed number never needs
 * one (sets and facts reach calls by name).
 */
static scmp_filter_ctx pers_filter(const struct plan *pl, int pers)
{
	const struct syscall_pers *sp = &syscall_pers[pers];
	scmp_filter_ctx ctx = seccomp_init(scmp_action(pl->other));
	int nr, num, err;

	if (!ctx)
		return NULL;
	/* A task of an arch no personality has is allowed, never killed. */
	err = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (!err && sp->token != seccomp_arch_native())
		err = seccomp_arch_add(ctx, sp->token);
	if (!err && sp->token != seccomp_arch_native())
		err = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE);
	for (nr = 0; !err && nr < SYSCALL_SET_MAX; nr++) {
		if (pl->act[pers][nr] == pl->other ||
		    (pers == 0 && nr == SYS_getppid && pl->calib &&
		     pl->act[0][nr] != ACT_TIME))
			continue;
		num = rule_number(pers, nr);
		if (num != -1)
			err = seccomp_rule_add_exact(ctx,
					scmp_action(pl->act[pers][nr]), num, 0);
	}
	if (!err && pers == 0 && pl->calib)
		err = calib_rules(ctx, pl);
	if (err) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* libseccomp 2.5 exports BPF to a descriptor only: read it back. */
static int export_bpf(scmp_filter_ctx ctx, struct plan *pl)
{
	struct stat st;
	int fd, err = 0;

	fd = memfd_create("iotrace-bpf", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = seccomp_export_bpf(ctx, fd);
	if (err < 0)
		goto out_close;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    st.st_size / sizeof(struct sock_filter) > 0xffff) {
		err = -EINVAL;
		goto out_close;
	}
	pl->bpf = malloc((size_t)st.st_size);
	if (!pl->bpf) {
		err = -ENOMEM;
		goto out_close;
	}
	if (pread(fd, pl->bpf, (size_t)st.st_size, 0) != st.st_size) {
		err = -EIO;
		goto out_close;
	}
	pl->bpf_len = (unsigned short)(st.st_size / sizeof(struct sock_filter));
out_close:
	close(fd);
	return err;
}

/* The personalities' filters merged into one, exported as raw BPF. */
static int build_filter(struct plan *pl)
{
	scmp_filter_ctx ctx = pers_filter(pl, 0), one;
	int p, err = ctx ? 0 : -ENOMEM;

	for (p = 1; !err && p < syscall_npers; p++) {
		one = pers_filter(pl, p);
		err = one ? seccomp_merge(ctx, one) : -ENOMEM;
		if (err && one)
			seccomp_release(one);
	}
	/* A binary search over syscall numbers: every call runs the filter. */
	if (!err)
		err = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (!err)
		err = export_bpf(ctx, pl);
	seccomp_release(ctx);
	return err;
}

/*
 * The plan's filter kept between runs (tracer/cache.c): libseccomp takes
 * longer to build it than a short command runs.  The key is all
 * build_filter() reads (the actions, the calibration's rule) and what
 * it is built with: this iotrace (its file, changed by a rebuild) and
 * this libseccomp (version and API level).
 */
#define BPF_MAGIC 0x31667062746f69ull	/* "iotbpf1": the format */

struct bpf_key {
	uint64_t magic;
	struct tracer_file_id exe;
	uint32_t scmp_major, scmp_minor, scmp_micro, scmp_api;
	uint8_t act[SYSCALL_PERS_MAX][SYSCALL_SET_MAX];
	uint32_t npers;
	uint8_t other, calib;
};

static bool bpf_key_of(const struct plan *pl, struct bpf_key *k)
{
	const struct scmp_version *v = seccomp_version();

	memset(k, 0, sizeof(*k));
	if (!v || !tracer_file_id("/proc/self/exe", &k->exe))
		return false;
	k->magic = BPF_MAGIC;
	k->scmp_major = v->major;
	k->scmp_minor = v->minor;
	k->scmp_micro = v->micro;
	k->scmp_api = seccomp_api_get();
	memcpy(k->act, pl->act, sizeof(k->act));
	k->npers = (uint32_t)syscall_npers;
	k->other = pl->other;
	k->calib = pl->calib;
	return true;
}

/* The filter from the cache, or built and kept there. */
static int cached_filter(struct plan *pl)
{
	struct bpf_key k;
	size_t len;
	bool keyed = bpf_key_of(pl, &k);
	int err;

	pl->bpf = keyed ? tracer_cache_read("plan", &k, sizeof(k), &len) :
			  NULL;
	if (pl->bpf && len && len % sizeof(*pl->bpf) == 0 &&
	    len / sizeof(*pl->bpf) <= 0xffff) {
		pl->bpf_len = (unsigned short)(len / sizeof(*pl->bpf));
		return 0;
	}
	free(pl->bpf);
	pl->bpf = NULL;
	err = build_filter(pl);
	if (!err && keyed)
		tracer_cache_write("plan", &k, sizeof(k), pl->bpf,
				   pl->bpf_len * sizeof(*pl->bpf));
	return err;
}

/* --debug: what the filter stops at, per native call. */
static void debug_plan(const struct plan *pl)
{
	int nr, timed = 0, counted = 0, seen = 0;

	for (nr = 0; nr < SYSCALL_SET_MAX; nr++) {
		if (!syscall_pers_named(0, nr))
			continue;
		timed += (pl->act[0][nr] & ACT_TIME) != 0;
		counted += (pl->act[0][nr] & ACT_COUNT) != 0;
		seen += pl->act[0][nr] != ACT_SKIP;
	}
	tracer_debugf("plan: %d native calls stop (%d timed, %d counted, "
		      "%d for iotrace's own needs), filter %u instructions",
		      seen, timed, counted, seen - timed - counted,
		      (unsigned)pl->bpf_len);
}

int plan_build(struct plan *pl, const struct tracer_opts *opts)
{
	int err;

	memset(pl, 0, sizeof(*pl));
	fill_plan(pl, opts);
	pl->calib = opts->calibrate;
	if (!opts->seccomp)
		return 0;
	err = cached_filter(pl);
	if (err < 0) {
		plan_release(pl);
		return err;
	}
	/* Without CAP_SYS_ADMIN the kernel wants no_new_privs first. */
	pl->no_new_privs = geteuid() != 0;
	if (tracer_debug_on)
		debug_plan(pl);
	return 0;
}

void plan_release(struct plan *pl)
{
	free(pl->bpf);
	pl->bpf = NULL;
	pl->bpf_len = 0;
}
