// SPDX-License-Identifier: MIT
/*
 * The plan: what to do at each syscall, and the seccomp-bpf filter built
 * from it with libseccomp.  With the filter, syscalls iotrace does not
 * trace cost no stop at all, count-only syscalls cost one stop, timed ones
 * two; the filter's 16-bit SECCOMP_RET_DATA carries the action, so the
 * stop loop needs no lookup.  The filter is built here, in the parent, and
 * exported as raw BPF so the child only makes one prctl() to load it.
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
#include <sys/utsname.h>
#include <unistd.h>
#include "tracer/tracer-int.h"

/* These never return: never in the table (like strace), never a stop. */
static const char *const never_return[] = { "exit", "exit_group", NULL };
/* Pinning must see these return: the mask the program asks or sets. */
static const char *const pin_sensitive[] = {
	"sched_getaffinity", "sched_setaffinity", NULL
};

static void mark(uint8_t *actions, uint32_t arch, const char *const *names,
		 uint8_t set, uint8_t clear)
{
	int nr;

	for (; *names; names++) {
		nr = seccomp_syscall_resolve_name_arch(arch, *names);
		if (nr >= 0 && nr < SYSCALL_SET_MAX)
			actions[nr] = (uint8_t)((actions[nr] & ~clear) | set);
	}
}

/* Whether any call that moves data (%io) is traced: files to attribute. */
static bool moves_data(const uint8_t *actions, uint32_t arch)
{
	struct syscall_set io;
	char bad[8];
	int nr;

	syscall_set_parse(&io, "%io", bad, sizeof(bad));
	for (nr = 0; nr < SYSCALL_SET_MAX; nr++)
		if (actions[nr] != ACT_SKIP && syscall_set_has(&io, arch, nr))
			return true;
	return false;
}

/*
 * By number, with no name lookups (a name per number costs milliseconds
 * in libseccomp): numbers no name knows get what "all" gives them.
 */
static void fill_actions(uint8_t *actions, uint32_t arch,
			 const struct tracer_opts *opts)
{
	int nr;

	for (nr = 0; nr < SYSCALL_SET_MAX; nr++) {
		actions[nr] = ACT_SKIP;
		if (opts->trace && !syscall_set_has(opts->trace, arch, nr))
			continue;
		actions[nr] = opts->count &&
			      syscall_set_has(opts->count, arch, nr) ?
			      ACT_COUNT : ACT_TIME;
	}
	if (!arch)
		return;
	mark(actions, arch, never_return, ACT_SKIP, 0xff);
	/* The fd cache understands native calls only. */
	if (arch == seccomp_arch_native() && moves_data(actions, arch))
		fd_mark_tracked(actions, arch);
	if (opts->pin)
		mark(actions, arch, pin_sensitive, ACT_FIXUP, 0);
}

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
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
	return NULL;
}

/* The action most syscalls get is the filter's default; rules for the rest. */
static uint8_t most_common(const uint8_t *actions)
{
	unsigned counts[32] = { 0 };
	uint8_t best = 0;
	int nr;

	for (nr = 0; nr < SYSCALL_SET_MAX; nr++)
		counts[actions[nr] & 31]++;
	for (nr = 1; nr < 32; nr++)
		if (counts[nr] > counts[best])
			best = (uint8_t)nr;
	return best;
}

static uint32_t scmp_action(uint8_t act)
{
	return act == ACT_SKIP ? SCMP_ACT_ALLOW : SCMP_ACT_TRACE(act);
}

static int add_rules(scmp_filter_ctx ctx, const uint8_t *actions, uint8_t dflt)
{
	int nr, err;

	for (nr = 0; nr < SYSCALL_SET_MAX; nr++) {
		if (actions[nr] == dflt)
			continue;
		err = seccomp_rule_add(ctx, scmp_action(actions[nr]), nr, 0);
		/* A number this libseccomp cannot place is left to dflt. */
		if (err < 0 && err != -EDOM && err != -EINVAL)
			return err;
	}
	return 0;
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

static int build_filter(struct plan *pl)
{
	uint8_t dflt = most_common(pl->native);
	scmp_filter_ctx ctx = seccomp_init(scmp_action(dflt));
	int err;

	if (!ctx)
		return -ENOMEM;
	/*
	 * i386 calls on x86_64 get the same actions, translated by name;
	 * any other arch (x32) is allowed, never killed.
	 */
	err = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	/* A binary search over syscall numbers: every call runs the filter. */
	if (!err)
		err = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (!err && pl->native_arch == SCMP_ARCH_X86_64)
		err = seccomp_arch_add(ctx, SCMP_ARCH_X86);
	if (!err)
		err = add_rules(ctx, pl->native, dflt);
	if (!err)
		err = export_bpf(ctx, pl);
	seccomp_release(ctx);
	return err;
}

int plan_build(struct plan *pl, const struct tracer_opts *opts)
{
	uint32_t native = seccomp_arch_native();
	uint32_t compat = native == SCMP_ARCH_X86_64 ? SCMP_ARCH_X86 : 0;
	int err;

	memset(pl, 0, sizeof(*pl));
	pl->native_arch = native;
	fill_actions(pl->native, native, opts);
	fill_actions(pl->compat, compat, opts);
	if (!opts->seccomp)
		return 0;
	err = build_filter(pl);
	if (err < 0) {
		plan_release(pl);
		return err;
	}
	/* Without CAP_SYS_ADMIN the kernel wants no_new_privs first. */
	pl->no_new_privs = geteuid() != 0;
	return 0;
}

void plan_release(struct plan *pl)
{
	free(pl->bpf);
	pl->bpf = NULL;
	pl->bpf_len = 0;
}
