// SPDX-License-Identifier: MIT
/*
 * The pool and the filter's test of the instruction pointer: a call made
 * from code in the pool passes the filter untouched, the same call from
 * anywhere else (one byte past the pool too) meets the plan.  The plan
 * here fails getppid with EPERM, so no tracer is needed: a child loads
 * the filter and reports what each call returned.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "tap.h"
#include "tracer/rewrite/rewrite.h"

/* mov $SYS_getppid,%eax; syscall; ret */
static const unsigned char getppid_code[] = {
	0xb8, SYS_getppid, 0, 0, 0, 0x0f, 0x05, 0xc3
};

static int plan_denying_getppid(struct sock_filter **bpf, unsigned short *len)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct stat st;
	int fd, err = -1;

	if (!ctx)
		return -1;
	fd = memfd_create("bpf", 0);
	if (fd >= 0 &&
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(getppid), 0) == 0 &&
	    seccomp_export_bpf(ctx, fd) == 0 && fstat(fd, &st) == 0 &&
	    (*bpf = malloc((size_t)st.st_size)) &&
	    pread(fd, *bpf, (size_t)st.st_size, 0) == st.st_size) {
		*len = (unsigned short)(st.st_size / sizeof(**bpf));
		err = 0;
	}
	if (fd >= 0)
		close(fd);
	seccomp_release(ctx);
	return err;
}

/* Code at addr, one page; calls it. */
static long call_at(uint64_t addr)
{
	void *p = mmap((void *)addr, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

	if (p != (void *)addr)
		return -1000;
	memcpy(p, getppid_code, sizeof(getppid_code));
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) < 0)
		return -1001;
	return ((long (*)(void))p)();
}

/*
 * In a child: 1 if getppid from libc is denied, 2 if from the pool's
 * first and last page it is allowed, 4 if from the page past the pool
 * it is denied.
 */
static int child(uint64_t pool, struct sock_filter *bpf, unsigned short len)
{
	struct sock_fprog prog = { len, bpf };
	pid_t parent = getppid();
	int r = 0;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return 100;
	if (syscall(SYS_getppid) == -1 && errno == EPERM)
		r |= 1;
	if (call_at(pool) == parent &&
	    call_at(pool + RW_POOL_CODE - 4096) == parent)
		r |= 2;
	if (call_at(pool + RW_POOL_CODE) == -EPERM)
		r |= 4;
	return r;
}

int main(void)
{
	struct sock_filter *bpf = NULL;
	unsigned short len = 0, len0;
	uint64_t p, pool = rw_pool_pick();
	int i, status, good = 1;
	pid_t pid;

	for (i = 0; i < 1000; i++) {
		p = rw_pool_pick();
		good = good && !(p & 0xfff) && p >= 0x200000000000ull &&
		       p + RW_POOL_SIZE <= 0x400000000000ull &&
		       (p >> 32) == ((p + RW_POOL_SIZE - 1) >> 32);
	}
	ok(good, "1000 pools: page-aligned, in range, none across 4 GiB");

	if (plan_denying_getppid(&bpf, &len) < 0)
		return 1;
	len0 = len;
	is_int(rw_filter_allow_pool(&bpf, &len, pool + 1, RW_POOL_CODE),
	       -EINVAL, "a pool not page-aligned is refused");
	is_int(rw_filter_allow_pool(&bpf, &len, 0x1fffff000ull, 0x2000),
	       -EINVAL, "a pool across 4 GiB is refused");
	is_int(len, len0, "a refused pool leaves the filter as it was");
	is_int(rw_filter_allow_pool(&bpf, &len, pool, RW_POOL_CODE), 0,
	       "the pool's test goes before the plan");
	is_int(len, len0 + 6, "six instructions more");

	pid = fork();
	if (pid == 0)
		_exit(child(pool, bpf, len));
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status), "the child ran to its end");
	status = WEXITSTATUS(status);
	ok(status & 1, "getppid from libc meets the plan (EPERM)");
	ok(status & 2, "getppid from the pool's first and last page passes");
	ok(status & 4, "getppid from the page past the pool meets the plan");
	free(bpf);
	done_testing();
}
