// SPDX-License-Identifier: MIT
/*
 * Syscall names and sets.  Numbers and names come from libseccomp, never
 * from a table of our own; the only table here is strace's classes
 * (%file, %desc, ...), which are lists of names, resolved per arch.
 */
#include <errno.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"

#define X32_SYSCALL_BIT 0x40000000

struct syscall_class {
	const char *name;	/* without the % */
	const char *members;	/* space-separated syscall names */
};

/*
 * strace's classes, by the same rule as strace: %file takes a path,
 * %desc a descriptor, and so on.  %io is iotrace's own: the calls that
 * move data, as the I/O report counts them.  Names a given arch lacks
 * (stat on arm64, say) are skipped.
 */
static const struct syscall_class classes[] = {
	{ "file", "open openat openat2 creat access faccessat faccessat2 "
		  "stat lstat newfstatat statx statfs chdir chroot chmod "
		  "fchmodat chown lchown fchownat link linkat unlink "
		  "unlinkat symlink symlinkat readlink readlinkat rename "
		  "renameat renameat2 mkdir mkdirat rmdir mknod mknodat "
		  "truncate utime utimes utimensat futimesat execve execveat "
		  "getxattr lgetxattr setxattr lsetxattr listxattr "
		  "llistxattr removexattr lremovexattr mount umount2 swapon "
		  "swapoff acct pivot_root name_to_handle_at "
		  "inotify_add_watch fanotify_mark uselib quotactl "
		  "open_tree move_mount fspick mount_setattr" },
	{ "desc", "read write open openat openat2 creat close fstat lseek "
		  "mmap ioctl pread64 pwrite64 readv writev preadv pwritev "
		  "preadv2 pwritev2 pipe pipe2 select pselect6 poll ppoll "
		  "dup dup2 dup3 fcntl flock fsync fdatasync sync_file_range "
		  "syncfs ftruncate fallocate getdents getdents64 fchdir "
		  "fchmod fchown fstatfs readahead fadvise64 fgetxattr "
		  "fsetxattr flistxattr fremovexattr epoll_create "
		  "epoll_create1 epoll_ctl epoll_wait epoll_pwait "
		  "epoll_pwait2 eventfd eventfd2 timerfd_create "
		  "timerfd_settime timerfd_gettime signalfd signalfd4 "
		  "inotify_init inotify_init1 fanotify_init sendfile splice "
		  "tee vmsplice copy_file_range memfd_create userfaultfd "
		  "faccessat faccessat2 fchmodat fchownat newfstatat statx "
		  "linkat unlinkat symlinkat readlinkat renameat renameat2 "
		  "mkdirat mknodat utimensat futimesat execveat "
		  "name_to_handle_at open_by_handle_at pidfd_open "
		  "pidfd_getfd close_range io_uring_setup io_uring_enter "
		  "io_uring_register" },
	{ "network", "socket socketpair bind listen accept accept4 connect "
		     "getsockname getpeername sendto recvfrom sendmsg "
		     "recvmsg sendmmsg recvmmsg shutdown setsockopt "
		     "getsockopt" },
	{ "process", "fork vfork clone clone3 execve execveat exit "
		     "exit_group wait4 waitid kill tkill tgkill "
		     "rt_sigqueueinfo rt_tgsigqueueinfo pidfd_send_signal "
		     "unshare" },
	{ "signal", "rt_sigaction rt_sigprocmask rt_sigreturn rt_sigsuspend "
		    "rt_sigpending rt_sigtimedwait rt_sigqueueinfo "
		    "rt_tgsigqueueinfo sigaltstack kill tkill tgkill signalfd "
		    "signalfd4 pause pidfd_send_signal" },
	{ "memory", "mmap munmap mprotect brk mremap madvise mlock munlock "
		    "mlockall munlockall mincore msync remap_file_pages mbind "
		    "set_mempolicy get_mempolicy migrate_pages move_pages "
		    "pkey_mprotect mlock2 process_madvise shmat shmdt" },
	{ "ipc", "msgget msgsnd msgrcv msgctl semget semop semtimedop semctl "
		 "shmget shmat shmdt shmctl" },
	{ "stat", "stat lstat fstat newfstatat statx" },
	{ "creds", "getuid geteuid getgid getegid setuid setgid setreuid "
		   "setregid setresuid setresgid getresuid getresgid "
		   "setfsuid setfsgid getgroups setgroups capget capset "
		   "prctl" },
	{ "clock", "time gettimeofday settimeofday clock_gettime "
		   "clock_settime clock_getres clock_nanosleep adjtimex "
		   "clock_adjtime" },
	{ "io", "read write pread64 pwrite64 readv writev preadv pwritev "
		"preadv2 pwritev2 sendfile splice tee vmsplice "
		"copy_file_range sendto recvfrom sendmsg recvmsg" },
	{ "sync", "fsync fdatasync sync syncfs sync_file_range msync" },
};

const char *const syscall_class_names[] = {
	"%file", "%desc", "%network", "%process", "%signal", "%memory",
	"%ipc", "%stat", "%creds", "%clock", "%io", "%sync", NULL
};

/* The arches a set covers: the native one and, on x86_64, i386. */
static uint32_t native_arch(void)
{
	return seccomp_arch_native();
}

static uint32_t compat_arch(void)
{
	return native_arch() == SCMP_ARCH_X86_64 ? SCMP_ARCH_X86 : 0;
}

const char *syscall_name(uint32_t arch, int nr, char *buf, size_t size)
{
	uint32_t token = arch;
	char *name;

	/* A negative number (syscall(-1)) has the bit set too: not x32. */
	if (arch == SCMP_ARCH_X86_64 && nr >= 0 && (nr & X32_SYSCALL_BIT))
		token = SCMP_ARCH_X32;
	name = seccomp_syscall_resolve_num_arch(token, nr);
	if (name) {
		snprintf(buf, size, "%s", name);
		free(name);
	} else {
		snprintf(buf, size, "syscall_%d",
			 token == SCMP_ARCH_X32 ? nr & ~X32_SYSCALL_BIT : nr);
	}
	return buf;
}

int syscall_number(const char *name)
{
	int nr = seccomp_syscall_resolve_name_arch(native_arch(), name);

	return nr < 0 ? -1 : nr;
}

static void bit_set(uint8_t *bits, int nr, bool on)
{
	if (nr < 0 || nr >= SYSCALL_SET_MAX)
		return;
	if (on)
		bits[nr / 8] |= (uint8_t)(1u << (nr % 8));
	else
		bits[nr / 8] &= (uint8_t)~(1u << (nr % 8));
}

bool syscall_set_has(const struct syscall_set *set, uint32_t arch, int nr)
{
	const uint8_t *bits = arch == native_arch() ? set->native : set->compat;

	if (nr < 0 || nr >= SYSCALL_SET_MAX)
		return false;
	return bits[nr / 8] & (1u << (nr % 8));
}

/* Sets or clears one name in both arches; -1 when neither knows it. */
static int set_name(struct syscall_set *set, const char *name, bool on)
{
	int nat = seccomp_syscall_resolve_name_arch(native_arch(), name);
	int cmp = compat_arch() ?
		  seccomp_syscall_resolve_name_arch(compat_arch(), name) : -1;

	bit_set(set->native, nat, on);
	bit_set(set->compat, cmp, on);
	return nat < 0 && cmp < 0 ? -1 : 0;
}

static int set_class(struct syscall_set *set, const char *cls, bool on)
{
	char word[64];
	const char *p, *end;
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		if (strcmp(classes[i].name, cls))
			continue;
		for (p = classes[i].members; *p; p = *end ? end + 1 : end) {
			end = strchrnul(p, ' ');
			snprintf(word, sizeof(word), "%.*s", (int)(end - p), p);
			set_name(set, word, on);
		}
		return 0;
	}
	return -1;
}

static int set_word(struct syscall_set *set, const char *word, bool on)
{
	if (!strcmp(word, "all")) {
		memset(set, on ? 0xff : 0, sizeof(*set));
		return 0;
	}
	if (!strcmp(word, "none"))
		return 0;
	if (word[0] == '%')
		return set_class(set, word + 1, on);
	/* strace's "?name": a name this arch may lack is no error. */
	if (word[0] == '?')
		return (set_name(set, word + 1, on), 0);
	return set_name(set, word, on);
}

int syscall_set_parse(struct syscall_set *set, const char *spec,
		      char *bad, size_t badsize)
{
	bool negate = spec[0] == '!';
	char word[128];
	const char *p, *end;

	memset(set, 0, sizeof(*set));
	if (negate)
		spec++;
	if (!*spec) {
		snprintf(bad, badsize, "%s", "(empty)");
		return -1;
	}
	for (p = spec;; p = end + 1) {
		end = strchrnul(p, ',');
		if ((size_t)(end - p) >= sizeof(word) || end == p) {
			snprintf(bad, badsize, "%.*s", (int)(end - p), p);
			return -1;
		}
		snprintf(word, sizeof(word), "%.*s", (int)(end - p), p);
		if (set_word(set, word, true) < 0) {
			snprintf(bad, badsize, "%s", word);
			return -1;
		}
		if (!*end)
			break;
	}
	if (negate) {
		size_t i;

		for (i = 0; i < sizeof(set->native); i++) {
			set->native[i] = (uint8_t)~set->native[i];
			set->compat[i] = (uint8_t)~set->compat[i];
		}
	}
	return 0;
}
