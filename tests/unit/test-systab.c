// SPDX-License-Identifier: MIT
/*
 * Unit tests of the syscall table (syscalls/systab.c, syscalls/syscalls.c):
 * every fact row names a call some personality knows, once, in order;
 * the numbers are libseccomp's; classes, fd effects, size and fd
 * arguments hold per personality (i386's fstat64, _llseek, fcntl64,
 * sendfile64, x32's calls); and the plan built from the table gives each
 * personality its actions, numbers outside the tables what -e trace= says,
 * and a filter libseccomp can build with a rule for every named call.
 */
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include "tracer/ptrace/ptrace-int.h"
#include "tests/unit/tap.h"

enum { X86_64, I386, X32 };	/* syscall_pers[] on x86_64 */

static const struct syscall_fact *fact(int pers, const char *name)
{
	return syscall_fact(pers, syscall_pers_number(pers, name));
}

static bool known_somewhere(const char *name)
{
	int p;

	for (p = 0; p < syscall_npers; p++)
		if (syscall_pers_number(p, name) >= 0)
			return true;
	return false;
}

/* Sorted by name with leading '_' ignored, so each name has one place. */
static void test_rows(void)
{
	size_t i, unknown = 0, unsorted = 0, sized = 0;
	const char *a, *b;

	for (i = 0; i < syscall_nfacts; i++) {
		if (!known_somewhere(syscall_facts[i].name)) {
			printf("# no personality knows '%s'\n",
			       syscall_facts[i].name);
			unknown++;
		}
		if (syscall_facts[i].size)
			sized++;
		if (!i)
			continue;
		a = syscall_facts[i - 1].name;
		b = syscall_facts[i].name;
		a += *a == '_';
		b += *b == '_';
		if (strcmp(a, b) >= 0) {
			printf("# '%s' before '%s'\n", a, b);
			unsorted++;
		}
	}
	is_int(unknown, 0, "every fact names a call a personality knows");
	is_int(unsorted, 0, "rows sorted by name, each name once");
	is_int(sized, 20, "20 calls move data (%%io), sendfile64 among them");
	ok(syscall_fact_by_name("fstat64") ==
	   syscall_fact(I386, syscall_pers_number(I386, "fstat64")),
	   "a fact by name is the fact by number");
}

/* The generated tables say what libseccomp says, number by number. */
static void test_numbers(void)
{
	static const char *const names[] = {
		"read", "fstat64", "_llseek", "socket", "shmget", "mmap2",
		"rt_sigaction", "sched_getaffinity", NULL,
	};
	const char *const *n;
	int p, bad = 0, want;

	for (p = 0; p < syscall_npers; p++) {
		for (n = names; *n; n++) {
			want = seccomp_syscall_resolve_name_arch(
				syscall_pers[p].token, *n);
			/* i386's direct socket calls resolve to socketcall's
			   pseudo numbers in libseccomp; x32's carry the bit. */
			if (want < 0 && syscall_pers_number(p, *n) >= 0 &&
			    (!strcmp(*n, "socket") || !strcmp(*n, "shmget")))
				continue;
			if (want >= 0)
				want &= ~syscall_pers[p].nr_bit;
			bad += syscall_pers_number(p, *n) != (want < 0 ? -1
								      : want);
		}
	}
	is_int(bad, 0, "names and numbers are libseccomp's");
	is_int(syscall_pers_number(I386, "fstat64"), 197, "i386 fstat64 197");
	is_int(syscall_pers_number(I386, "socket"), 359,
	       "i386 socket by its own number, 359");
	is_int(syscall_pers_number(X86_64, "fstat64"), -1,
	       "x86_64 has no fstat64");
	is_int(syscall_pers_number(X32, "rt_sigaction"), 512,
	       "x32 rt_sigaction is 512");
}

static bool in_class(int pers, const char *name, uint32_t mask)
{
	return syscall_fact_classes(fact(pers, name)) & mask;
}

static void test_classes(void)
{
	ok(in_class(I386, "stat64", SC_STAT) &&
	   !in_class(I386, "fstat64", SC_STAT) &&
	   in_class(I386, "fstat64", SC_FSTAT) &&
	   in_class(I386, "lstat64", SC_LSTAT) &&
	   in_class(I386, "fstatat64", SC_FSTAT),
	   "i386 stat64 is %%stat, fstat64 and fstatat64 %%fstat");
	ok(in_class(I386, "fstat64", SC_DESC) &&
	   in_class(I386, "_llseek", SC_DESC) &&
	   in_class(I386, "fcntl64", SC_DESC) &&
	   in_class(I386, "_newselect", SC_DESC) &&
	   in_class(I386, "socketcall", SC_DESC),
	   "i386 %%desc: fstat64, _llseek, fcntl64, _newselect, socketcall");
	ok(in_class(I386, "socket", SC_NETWORK) &&
	   in_class(I386, "sendfile64", SC_NETWORK) &&
	   !in_class(I386, "socketcall", SC_NETWORK),
	   "i386 %%network: socket, sendfile64, not socketcall (as strace)");
	ok(in_class(I386, "mmap2", SC_MEMORY) &&
	   in_class(I386, "ipc", SC_IPC) &&
	   in_class(I386, "waitpid", SC_PROCESS),
	   "i386 mmap2 %%memory, ipc %%ipc, waitpid %%process");
	ok(in_class(X32, "read", SC_DESC | SC_IO) &&
	   in_class(X32, "rt_sigaction", SC_SIGNAL),
	   "x32 read %%desc and %%io, rt_sigaction (512) %%signal");
	ok(in_class(X86_64, "stat", SC_STAT) &&
	   !in_class(X86_64, "fstat", SC_STAT) &&
	   in_class(X86_64, "fsync", SC_SYNC) &&
	   in_class(I386, "sendfile64", SC_IO),
	   "x86_64 %%stat is stat only; fsync %%sync; sendfile64 %%io");
}

static void test_fd_facts(void)
{
	int p, bad = 0;

	for (p = 0; p < syscall_npers; p++) {
		bad += fact(p, "close")->fx != FX_ARG0;
		bad += fact(p, "dup2") && fact(p, "dup2")->fx != FX_ARG1;
		bad += fact(p, "openat")->fx != FX_RET;
		bad += fact(p, "execve")->fx != FX_EXEC;
		bad += fact(p, "clone")->fx != FX_CHILD;
		bad += fact(p, "clone")->flags != SF_CLONE_FLAGS;
		bad += fact(p, "clone3") &&
		       fact(p, "clone3")->flags != SF_CLONE_ARGS;
		bad += fact(p, "exit_group")->flags != SF_NORETURN;
		bad += fact(p, "sched_getaffinity")->flags != SF_GETAFFINITY;
	}
	is_int(bad, 0, "close, dup2, openat, execve, clone, clone3, "
	       "exit_group, sched_getaffinity: the same facts in every "
	       "personality");
	for (p = 0, bad = 0; p < syscall_npers; p++) {
		bad += !(fact(p, "prctl")->flags & SF_SECCOMP);
		bad += !(fact(p, "seccomp")->flags & SF_SECCOMP);
		bad += !(fact(p, "read")->flags & SF_STRICT);
		bad += !(fact(p, "write")->flags & SF_STRICT);
		bad += !(fact(p, "exit")->flags & SF_STRICT);
		bad += !!(fact(p, "exit_group")->flags & SF_STRICT);
	}
	is_int(bad, 0, "prctl and seccomp may load a filter, read, write "
	       "and exit are allowed in strict mode, in every personality");
	ok((fact(I386, "sigreturn")->flags & SF_STRICT) &&
	   (fact(X86_64, "rt_sigreturn")->flags & SF_STRICT),
	   "the signal returns strict mode allows");
	ok((fact(I386, "waitpid")->flags & SF_WAITS) &&
	   (fact(I386, "futex_time64")->flags & SF_WAITS) &&
	   (fact(X32, "wait4")->flags & SF_WAITS) &&
	   (fact(X86_64, "restart_syscall")->flags & SF_WAITS) &&
	   !(fact(X86_64, "read")->flags & SF_WAITS),
	   "waiting calls in every personality, i386's waitpid and the "
	   "restart of a wait among them");
	ok((fact(X86_64, "accept")->flags & SF_WAITS) &&
	   (fact(X86_64, "accept4")->flags & SF_WAITS) &&
	   fact(X86_64, "accept4")->fx == FX_RET &&
	   (fact(X86_64, "semtimedop")->flags & SF_WAITS) &&
	   (fact(X86_64, "msgrcv")->flags & SF_WAITS) &&
	   (fact(X86_64, "mq_timedreceive")->flags & SF_WAITS) &&
	   !(fact(X86_64, "msgsnd")->flags & SF_WAITS),
	   "accept waits for a client, SysV and POSIX IPC receives for a "
	   "sender; accept still returns an fd");
	for (p = 0, bad = 0; p < syscall_npers; p++) {
		bad += !(fact(p, "pread64")->flags & SF_READ_FAMILY);
		bad += !(fact(p, "readv")->flags & SF_READ_FAMILY);
		bad += !(fact(p, "pwritev")->flags & SF_WRITE_FAMILY);
		bad += !(fact(p, "write")->flags & SF_WRITE_FAMILY);
		bad += !!(fact(p, "write")->flags & SF_READ_FAMILY);
		bad += !!(fact(p, "sendto")->flags & SF_WRITE_FAMILY);
		bad += !!(fact(p, "splice")->flags &
			  (SF_READ_FAMILY | SF_WRITE_FAMILY));
		bad += !(syscall_fact_classes(fact(p, "fdatasync")) & SC_SYNC);
		bad += !(fact(p, "mprotect")->flags & SF_MAPS_CODE);
	}
	is_int(bad, 0, "the read and write families and %%sync, the "
	       "findings' words, and mprotect may map code, in every "
	       "personality");
	{
		static const char *const hot[] = {
			/* the data's */
			"copy_file_range", "pread64", "preadv", "preadv2",
			"pwrite64", "pwritev", "pwritev2", "read", "readv",
			"recvfrom", "recvmsg", "sendfile", "sendmsg",
			"sendto", "splice", "write", "writev",
			/* the I/O's steering */
			"fadvise64", "fallocate", "fdatasync", "fsync",
			"ftruncate", "ioctl", "lseek", "readahead",
			"sync_file_range",
			/* a buffer's memory, its code maps apart */
			"mmap", "munmap",
			/* a tree's opens and closes */
			"close", "creat", "dup", "fcntl", "open", "openat",
			"openat2",
			/* a tree's metadata */
			"access", "faccessat", "faccessat2", "fgetxattr",
			"flistxattr", "fstat", "fstatfs", "getdents",
			"getdents64", "getxattr", "lgetxattr", "listxattr",
			"llistxattr", "lstat", "newfstatat", "readlink",
			"readlinkat", "stat", "statfs", "statx", NULL
		};
		size_t i, n = 0;

		for (i = 0, bad = 0; i < syscall_nfacts; i++) {
			const struct syscall_fact *f = &syscall_facts[i];

			if (!(f->flags & SF_HOT))
				continue;
			n++;
			/* the rewriter's cell is arg 0's fd (a file's row
			   where the fact names it), or a copy's source
			   and destination; of the fd table's calls, those
			   that return a new fd, close (arg 0) and fcntl,
			   never one that frees an fd beside others (dup2,
			   close_range) or execs; never a wait left out */
			bad += (f->fd && f->fd != ARG(0) && !f->fd2) ||
			       (f->fx != FX_NONE && f->fx != FX_RET &&
				f->fx != FX_ARG0 && f->fx != FX_FCNTL) ||
			       (f->flags & SF_WAITS);
		}
		for (i = 0; hot[i]; i++)
			bad += !(fact(X86_64, hot[i])->flags & SF_HOT);
		is_int(n, i, "fifty-five hot calls");
		is_int(bad, 0, "the hot calls: an fd in arg 0 or a pair, none closed");
	}
	is_int(fact(I386, "fcntl64")->fx, FX_FCNTL, "i386 fcntl64 dups");
	is_int(fact(I386, "socketcall")->fx, FX_RET, "socketcall may open");
	ok(!fact(I386, "_llseek") || fact(I386, "_llseek")->fx == FX_NONE,
	   "_llseek leaves fds alone");
}

static void test_args(void)
{
	const struct syscall_fact *f = fact(I386, "sendfile64");

	ok(f->size == ARG(3) && f->fd == ARG(1) && f->fd2 == ARG(0),
	   "sendfile64: count in arg 3, from the fd in 1 to the fd in 0");
	f = fact(X32, "pread64");
	ok(f->size == ARG(2) && f->fd == ARG(0) && !f->fd2,
	   "x32 pread64: size arg 2, fd arg 0");
	f = fact(I386, "readv");
	ok(f->size == ARG_IOV && f->fd == ARG(0), "readv: size in memory");
	f = fact(X86_64, "splice");
	ok(f->size == ARG(4) && f->fd == ARG(0) && f->fd2 == ARG(2),
	   "splice: len arg 4, in fd 0, out fd 2");
	ok(!fact(I386, "fstat64")->size, "fstat64 moves no data");
}

static void test_locate(void)
{
	int nr;

	is_int(syscall_locate(AUDIT_ARCH_I386, 197, &nr), I386, "i386 arch");
	is_int(nr, 197, "its number");
	is_int(syscall_locate(AUDIT_ARCH_X86_64, 0x40000000 | 39, &nr), X32,
	       "the x32 bit: x32");
	is_int(nr, 39, "the number without the bit");
	is_int(syscall_locate(AUDIT_ARCH_X86_64, -1, &nr), X86_64,
	       "syscall(-1) is x86_64's, out of its table");
	is_int(nr, -1, "number -1");
	is_int(syscall_locate(AUDIT_ARCH_AARCH64, 1, &nr), -1,
	       "no personality has aarch64 here");
}

/* other: what numbers outside the tables get, against the set's word. */
static void build(struct plan *pl, const char *trace, bool other,
		  bool seccomp)
{
	static struct syscall_set set;
	struct tracer_opts o = { .follow = true, .trace = &set,
				 .seccomp = seccomp, .pin = true };
	char bad[64];

	syscall_set_parse(&set, trace, bad, sizeof(bad));
	set.other = other;
	ok(plan_build(pl, &o) == 0, "plan for -e trace=%s%s%s", trace,
	   other != (trace[0] == 'a' || trace[0] == '!') ?
	   " (other numbers flipped)" : "",
	   seccomp ? " with its filter" : "");
}

static void test_plan(void)
{
	uint32_t x86 = AUDIT_ARCH_X86_64, i386 = AUDIT_ARCH_I386;
	struct plan pl;

	build(&pl, "write", false, false);
	ok(plan_action(&pl, x86, 5000) == ACT_SKIP &&
	   plan_action(&pl, x86, -1) == ACT_SKIP &&
	   plan_action(&pl, i386, 1024) == ACT_SKIP,
	   "trace=write: out-of-table numbers skipped");
	ok(plan_action(&pl, i386, 4) == ACT_TIME &&
	   plan_action(&pl, x86, 0x40000000 | 1) == ACT_TIME,
	   "i386 and x32 write timed");
	is_int(plan_action(&pl, i386, 6), ACT_TRACK_ENTRY,
	       "i386 close tracked for the fd cache");
	is_int(plan_action(&pl, i386, 242), ACT_FIXUP,
	       "i386 sched_getaffinity fixed up for pinning");
	is_int(plan_action(&pl, x86, 56), ACT_TRACK | ACT_CLONE,
	       "clone seen at entry for CLONE_UNTRACED, exit for the fd cache");
	is_int(plan_action(&pl, i386, 435) & ACT_CLONE, ACT_CLONE,
	       "i386 clone3 seen at entry for CLONE_UNTRACED");
	plan_release(&pl);
	build(&pl, "all", true, false);
	ok(plan_action(&pl, x86, 5000) == ACT_TIME &&
	   plan_action(&pl, x86, -1) == ACT_TIME,
	   "trace=all: out-of-table numbers timed");
	is_int(plan_action(&pl, i386, 252), ACT_SKIP, "exit_group: no stop");
	plan_release(&pl);
	build(&pl, "fstat64", false, true);
	ok(pl.bpf && plan_action(&pl, i386, 197) == ACT_TIME &&
	   plan_action(&pl, x86, 5) == ACT_SKIP,
	   "trace=fstat64: i386 197 timed, x86_64 5 (fstat) not");
	ok(plan_action(&pl, x86, 157) == ACT_SECCOMP &&
	   plan_action(&pl, x86, 317) == ACT_SECCOMP &&
	   plan_action(&pl, i386, 172) == ACT_SECCOMP &&
	   plan_action(&pl, i386, 354) == ACT_SECCOMP,
	   "with the filter, prctl and seccomp stop at entry, untraced");
	plan_release(&pl);
	build(&pl, "fstat64", false, false);
	is_int(plan_action(&pl, x86, 157), ACT_SKIP,
	       "without it, prctl does not stop: the kernel's own rules");
	plan_release(&pl);
	ok(plan_data_ours(PLAN_DATA_TAG | ACT_TIME) &&
	   !plan_data_ours(ACT_TIME) && !plan_data_ours(0) &&
	   !plan_data_ours(0xffff),
	   "iotrace's filter data is tagged; a program's 0, 2, 0xffff not");
	/* Filters with a rule for every named call of every personality. */
	build(&pl, "all", false, true);
	plan_release(&pl);
	build(&pl, "none", true, true);
	plan_release(&pl);
}

int main(void)
{
	test_rows();
	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		ok(1, "# skip x86_64 personalities on this arch");
		return done_testing();
	}
	test_numbers();
	test_classes();
	test_fd_facts();
	test_args();
	test_locate();
	test_plan();
	return done_testing();
}
