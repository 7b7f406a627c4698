// SPDX-License-Identifier: MIT
/*
 * The syscall facts: the one place to say what iotrace knows of a syscall.
 * A row is a name (any personality's: "read", i386's "fstat64", "_llseek")
 * and its facts: strace's classes (the same letters as strace's
 * syscallent.h: TD is %desc, TF %file ...) plus iotrace's %sync; for
 * calls that move data, which argument holds the size asked for and which
 * the fds (%io is every call with a size); what a call does to the fd
 * table; and whether it never returns, waits for others, or is about
 * the CPU mask.  Numbers never appear here: scripts/gen-systab.c
 * resolves each row in each personality through libseccomp at build time
 * (syscalls.c reads the result).  A name with no fact needs no row.  Rows
 * are sorted by name, leading '_' ignored.
 */
#include <linux/audit.h>
#include <seccomp.h>
#include "syscalls/syscalls.h"

/*
 * The personalities of the build's architecture, the native one first.
 * x32 shares x86_64's AUDIT_ARCH and tells itself by a bit in the number.
 */
const struct syscall_pers syscall_pers[] = {
#if defined(__x86_64__)
	{ "x86_64", AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, 0 },
	{ "i386", AUDIT_ARCH_I386, SCMP_ARCH_X86, 0 },
	{ "x32", AUDIT_ARCH_X86_64, SCMP_ARCH_X32, 0x40000000 },
#elif defined(__i386__)
	{ "i386", AUDIT_ARCH_I386, SCMP_ARCH_X86, 0 },
#elif defined(__aarch64__)
	{ "aarch64", AUDIT_ARCH_AARCH64, SCMP_ARCH_AARCH64, 0 },
#elif defined(__riscv) && __riscv_xlen == 64
	{ "riscv64", AUDIT_ARCH_RISCV64, SCMP_ARCH_RISCV64, 0 },
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{ "ppc64le", AUDIT_ARCH_PPC64LE, SCMP_ARCH_PPC64LE, 0 },
#elif defined(__s390x__)
	{ "s390x", AUDIT_ARCH_S390X, SCMP_ARCH_S390X, 0 },
#endif
};
/* Another architecture: name its personalities above. */
_Static_assert(sizeof(syscall_pers) > 0, "no personality for this arch");
const int syscall_npers = sizeof(syscall_pers) / sizeof(syscall_pers[0]);

/* strace's class letters, so rows read like its syscallent.h. */
#define TF SC_FILE
#define TD SC_DESC
#define TN SC_NETWORK
#define TP SC_PROCESS
#define TS SC_SIGNAL
#define TM SC_MEMORY
#define TI SC_IPC
#define TST SC_STAT
#define TLST SC_LSTAT
#define TFST SC_FSTAT
#define TSF SC_STATFS
#define TFSF SC_FSTATFS
#define TC SC_CREDS
#define TCL SC_CLOCK
#define PU SC_PURE
#define TSY SC_SYNC

/* A call with classes only. */
#define ROW(name, classes) { name, classes, 0, 0, 0, FX_NONE, 0 }
/*
 * The same, hot (SF_HOT): the metadata a tree walk, a build or a backup
 * asks of each file (stat, getdents, access, xattrs) and the calls that
 * steer a file's I/O (fadvise, fallocate, fsync...).
 */
#define HOT(name, classes) { name, classes, 0, 0, 0, FX_NONE, SF_HOT }
/*
 * A call that moves data: size, fd and fd2 are ARG(n) (0: none).  A
 * two-fd call lists its source fd first: bytes are counted once, on the
 * (source, destination) pair.
 */
#define DATA(name, classes, size, fd, fd2) \
	{ name, classes, size, fd, fd2, FX_NONE, 0 }
/* The same, hot (SF_HOT): a socket's sends and receives, the copy loops
   of splice, sendfile... */
#define HOTDATA(name, classes, size, fd, fd2) \
	{ name, classes, size, fd, fd2, FX_NONE, SF_HOT }
/* A call that changes the fd table (enum syscall_fx). */
#define FDS(name, classes, fx) { name, classes, 0, 0, 0, fx, 0 }
/*
 * The same, hot (SF_HOT): the fd calls a tree walk makes for each
 * directory, which the fast path can keep the fd table right across: one
 * that only returns a new fd (FX_RET: its number was freed by a close,
 * a dup2 or an exec, where its counters were folded), close (FX_ARG0:
 * its trampoline stops for an fd with counts to fold) and fcntl
 * (FX_FCNTL: what iotrace knew of the fds is renewed at the next stop).
 * dup2, dup3 and close_range, which free an fd their arguments name
 * beside others, stop.
 */
#define HOTFDS(name, classes, fx) { name, classes, 0, 0, 0, fx, SF_HOT }
/* A call with other facts (SF_*). */
#define FLAG(name, classes, flags) { name, classes, 0, 0, 0, FX_NONE, flags }
/*
 * read(2) and write(2) and their kin, at an fd's offset (SF_*_FAMILY);
 * hot (SF_HOT): the calls I/O loops make.
 */
#define RW(name, size, flags) \
	{ name, TD, size, ARG(0), 0, FX_NONE, (flags) | SF_HOT }
const struct syscall_fact syscall_facts[] = {
	/* A server's accept waits for a client: another process. */
	{ "accept", TN, 0, 0, 0, FX_RET, SF_WAITS },
	{ "accept4", TN, 0, 0, 0, FX_RET, SF_WAITS },
	HOT("access", TF),
	ROW("acct", TF),
	ROW("adjtimex", TCL),
	ROW("bind", TN),
	ROW("bpf", TD),
	ROW("break", TM),
	ROW("brk", TM),
	ROW("capget", TC),
	ROW("capset", TC),
	ROW("chdir", TF),
	ROW("chmod", TF),
	ROW("chown", TF),
	ROW("chown32", TF),
	ROW("chroot", TF),
	ROW("clock_adjtime", TCL),
	ROW("clock_adjtime64", TCL),
	ROW("clock_getres", TCL),
	ROW("clock_getres_time64", TCL),
	ROW("clock_gettime", TCL),
	ROW("clock_gettime64", TCL),
	FLAG("clock_nanosleep", 0, SF_WAITS | SF_SLEEPS),
	FLAG("clock_nanosleep_time64", 0, SF_WAITS | SF_SLEEPS),
	ROW("clock_settime", TCL),
	ROW("clock_settime64", TCL),
	/* A new task, and flags where CLONE_UNTRACED is cleared (clone.c). */
	{ "clone", TP, 0, 0, 0, FX_CHILD, SF_CLONE_FLAGS },
	{ "clone3", TP, 0, 0, 0, FX_CHILD, SF_CLONE_ARGS },
	HOTFDS("close", TD, FX_ARG0),
	FDS("close_range", 0, FX_RANGE),
	ROW("connect", TN),
	HOTDATA("copy_file_range", TD, ARG(4), ARG(0), ARG(2)),
	HOTFDS("creat", TF | TD, FX_RET),
	HOTFDS("dup", TD, FX_RET),
	FDS("dup2", TD, FX_ARG1),
	FDS("dup3", TD, FX_ARG1),
	FDS("epoll_create", TD, FX_RET),
	FDS("epoll_create1", TD, FX_RET),
	ROW("epoll_ctl", TD),
	FLAG("epoll_pwait", TD, SF_WAITS),
	FLAG("epoll_pwait2", TD, SF_WAITS),
	FLAG("epoll_wait", TD, SF_WAITS),
	FDS("eventfd", TD, FX_RET),
	FDS("eventfd2", TD, FX_RET),
	FDS("execve", TF | TP, FX_EXEC),
	FDS("execveat", TF | TD | TP, FX_EXEC),
	FLAG("exit", TP, SF_NORETURN | SF_STRICT),
	FLAG("exit_group", TP, SF_NORETURN),
	HOT("faccessat", TF | TD),
	HOT("faccessat2", TF | TD),
	HOT("fadvise64", TD),
	ROW("fadvise64_64", TD),
	HOT("fallocate", TD),
	FDS("fanotify_init", TD, FX_RET),
	ROW("fanotify_mark", TF | TD),
	ROW("fchdir", TD),
	ROW("fchmod", TD),
	ROW("fchmodat", TF | TD),
	ROW("fchown", TD),
	ROW("fchown32", TD),
	ROW("fchownat", TF | TD),
	HOTFDS("fcntl", TD, FX_FCNTL),
	FDS("fcntl64", TD, FX_FCNTL),
	HOT("fdatasync", TD | TSY),
	HOT("fgetxattr", TD),
	ROW("finit_module", TD),
	HOT("flistxattr", TD),
	ROW("flock", TD),
	FDS("fork", TP, FX_CHILD),
	ROW("fremovexattr", TD),
	ROW("fsconfig", TF | TD),
	ROW("fsetxattr", TD),
	FDS("fsmount", TD, FX_RET),
	FDS("fsopen", TD, FX_RET),
	FDS("fspick", TF | TD, FX_RET),
	HOT("fstat", TD | TFST),
	ROW("fstat64", TD | TFST),
	ROW("fstatat64", TF | TD | TFST),
	HOT("fstatfs", TD | TFSF),
	ROW("fstatfs64", TD | TFSF),
	HOT("fsync", TD | TSY),
	HOT("ftruncate", TD),
	ROW("ftruncate64", TD),
	FLAG("futex", 0, SF_WAITS),
	FLAG("futex_time64", 0, SF_WAITS),
	ROW("futimesat", TF | TD),
	ROW("get_mempolicy", TM),
	ROW("getcwd", TF),
	HOT("getdents", TD),
	HOT("getdents64", TD),
	ROW("getegid", TC | PU),
	ROW("getegid32", TC | PU),
	ROW("geteuid", TC | PU),
	ROW("geteuid32", TC | PU),
	ROW("getgid", TC | PU),
	ROW("getgid32", TC | PU),
	ROW("getgroups", TC),
	ROW("getgroups32", TC),
	ROW("getpeername", TN),
	ROW("getpgrp", PU),
	ROW("getpid", PU),
	ROW("getpmsg", TN),
	ROW("getppid", PU),
	ROW("getresgid", TC),
	ROW("getresgid32", TC),
	ROW("getresuid", TC),
	ROW("getresuid32", TC),
	ROW("getsockname", TN),
	ROW("getsockopt", TN),
	ROW("gettid", PU),
	ROW("gettimeofday", TCL),
	ROW("getuid", TC | PU),
	ROW("getuid32", TC | PU),
	HOT("getxattr", TF),
	ROW("inotify_add_watch", TF | TD),
	FDS("inotify_init", TD, FX_RET),
	FDS("inotify_init1", TD, FX_RET),
	ROW("inotify_rm_watch", TD),
	ROW("io_destroy", TM),
	FLAG("io_getevents", 0, SF_WAITS),
	FLAG("io_pgetevents", 0, SF_WAITS),
	FLAG("io_pgetevents_time64", 0, SF_WAITS),
	ROW("io_setup", TM),
	ROW("io_uring_enter", TD | TS),
	ROW("io_uring_register", TD | TM),
	FDS("io_uring_setup", TD, FX_RET),
	HOT("ioctl", TD),
	ROW("ipc", TI),
	ROW("kexec_file_load", TD),
	ROW("kill", TP | TS),
	ROW("landlock_add_rule", TD),
	ROW("landlock_create_ruleset", TD),
	ROW("landlock_restrict_self", TD),
	ROW("lchown", TF),
	ROW("lchown32", TF),
	HOT("lgetxattr", TF),
	ROW("link", TF),
	ROW("linkat", TF | TD),
	ROW("listen", TN),
	HOT("listxattr", TF),
	HOT("llistxattr", TF),
	ROW("_llseek", TD),
	ROW("lremovexattr", TF),
	HOT("lseek", TD),
	ROW("lsetxattr", TF),
	HOT("lstat", TF | TLST),
	ROW("lstat64", TF | TLST),
	ROW("madvise", TM),
	ROW("mbind", TM),
	FDS("memfd_create", TD, FX_RET),
	ROW("memfd_secret", TD),
	ROW("migrate_pages", TM),
	ROW("mincore", TM),
	ROW("mkdir", TF),
	ROW("mkdirat", TF | TD),
	ROW("mknod", TF),
	ROW("mknodat", TF | TD),
	ROW("mlock", TM),
	ROW("mlock2", TM),
	ROW("mlockall", TM),
	/* Hot: a buffer malloc'd and freed per file (cp -r: an mmap and a
	   munmap a file) would stop twice a file.  Its executable maps
	   still stop, at its trampoline's check (RW_FDOP_MAPS). */
	FLAG("mmap", TD | TM, SF_MAPS_CODE | SF_HOT),
	ROW("mmap2", TD | TM),
	ROW("mount", TF),
	ROW("mount_setattr", TF | TD),
	ROW("move_mount", TF | TD),
	ROW("move_pages", TM),
	FLAG("mprotect", TM, SF_MAPS_CODE),
	ROW("mq_getsetattr", TD),
	ROW("mq_notify", TD),
	ROW("mq_open", TD),
	FLAG("mq_timedreceive", TD, SF_WAITS),
	FLAG("mq_timedreceive_time64", TD, SF_WAITS),
	ROW("mq_timedsend", TD),
	ROW("mq_timedsend_time64", TD),
	ROW("mremap", TM),
	ROW("msgctl", TI),
	ROW("msgget", TI),
	FLAG("msgrcv", TI, SF_WAITS),
	ROW("msgsnd", TI),
	ROW("msync", TM | TSY),
	ROW("munlock", TM),
	ROW("munlockall", TM),
	HOT("munmap", TM),
	ROW("name_to_handle_at", TF | TD),
	FLAG("nanosleep", 0, SF_WAITS | SF_SLEEPS),
	HOT("newfstatat", TF | TD | TFST),
	FLAG("_newselect", TD, SF_WAITS),
	ROW("oldfstat", TD | TFST),
	ROW("oldlstat", TF | TLST),
	ROW("oldstat", TF | TST),
	HOTFDS("open", TF | TD, FX_RET),
	FDS("open_by_handle_at", TD, FX_RET),
	FDS("open_tree", TF | TD, FX_RET),
	HOTFDS("openat", TF | TD, FX_RET),
	HOTFDS("openat2", TF | TD, FX_RET),
	FLAG("pause", TS, SF_WAITS),
	FDS("perf_event_open", TD, FX_RET),
	FDS("pidfd_getfd", TD, FX_RET),
	FDS("pidfd_open", TD, FX_RET),
	ROW("pidfd_send_signal", TD | TP | TS),
	ROW("pipe", TD),
	ROW("pipe2", TD),
	ROW("pivot_root", TF),
	FLAG("pkey_mprotect", TM, SF_MAPS_CODE),
	FLAG("poll", TD, SF_WAITS),
	FLAG("ppoll", TD, SF_WAITS),
	FLAG("ppoll_time64", TD, SF_WAITS),
	FLAG("prctl", TC, SF_SECCOMP),
	RW("pread64", ARG(2), SF_READ_FAMILY),
	RW("preadv", ARG_IOV, SF_READ_FAMILY),
	RW("preadv2", ARG_IOV, SF_READ_FAMILY),
	ROW("process_madvise", TD),
	ROW("process_mrelease", TD),
	FLAG("pselect6", TD, SF_WAITS),
	FLAG("pselect6_time64", TD, SF_WAITS),
	ROW("putpmsg", TN),
	RW("pwrite64", ARG(2), SF_WRITE_FAMILY),
	RW("pwritev", ARG_IOV, SF_WRITE_FAMILY),
	RW("pwritev2", ARG_IOV, SF_WRITE_FAMILY),
	ROW("quotactl", TF),
	ROW("quotactl_fd", TD),
	/* Strict mode allows read, write, exit and a signal return. */
	RW("read", ARG(2), SF_READ_FAMILY | SF_STRICT),
	HOT("readahead", TD),
	ROW("readdir", TD),
	HOT("readlink", TF),
	HOT("readlinkat", TF | TD),
	RW("readv", ARG_IOV, SF_READ_FAMILY),
	HOTDATA("recvfrom", TN, ARG(2), ARG(0), 0),
	ROW("recvmmsg", TN),
	ROW("recvmmsg_time64", TN),
	HOTDATA("recvmsg", TN, ARG_IOV, ARG(0), 0),
	ROW("remap_file_pages", TM),
	ROW("removexattr", TF),
	ROW("rename", TF),
	ROW("renameat", TF | TD),
	ROW("renameat2", TF | TD),
	/* The kernel's own restart of an interrupted nanosleep, poll or
	   futex wait: the wait goes on. */
	FLAG("restart_syscall", 0, SF_WAITS),
	ROW("rmdir", TF),
	ROW("rt_sigaction", TS),
	ROW("rt_sigpending", TS),
	ROW("rt_sigprocmask", TS),
	ROW("rt_sigqueueinfo", TP | TS),
	FLAG("rt_sigreturn", TS, SF_STRICT),
	FLAG("rt_sigsuspend", TS, SF_WAITS),
	FLAG("rt_sigtimedwait", TS, SF_WAITS),
	FLAG("rt_sigtimedwait_time64", TS, SF_WAITS),
	ROW("rt_tgsigqueueinfo", TP | TS),
	FLAG("sched_getaffinity", 0, SF_GETAFFINITY),
	FLAG("sched_setaffinity", 0, SF_SETAFFINITY),
	/* A filter or strict mode of the program's own (ownfilter.c). */
	FLAG("seccomp", 0, SF_SECCOMP),
	FLAG("select", TD, SF_WAITS),
	ROW("semctl", TI),
	ROW("semget", TI),
	FLAG("semop", TI, SF_WAITS),
	FLAG("semtimedop", TI, SF_WAITS),
	FLAG("semtimedop_time64", TI, SF_WAITS),
	HOTDATA("sendfile", TD | TN, ARG(3), ARG(1), ARG(0)),
	DATA("sendfile64", TD | TN, ARG(3), ARG(1), ARG(0)),
	ROW("sendmmsg", TN),
	HOTDATA("sendmsg", TN, ARG_IOV, ARG(0), 0),
	HOTDATA("sendto", TN, ARG(2), ARG(0), 0),
	ROW("set_mempolicy", TM),
	ROW("set_mempolicy_home_node", TM),
	ROW("setfsgid", TC),
	ROW("setfsgid32", TC),
	ROW("setfsuid", TC),
	ROW("setfsuid32", TC),
	ROW("setgid", TC),
	ROW("setgid32", TC),
	ROW("setgroups", TC),
	ROW("setgroups32", TC),
	ROW("setns", TD),
	ROW("setregid", TC),
	ROW("setregid32", TC),
	ROW("setresgid", TC),
	ROW("setresgid32", TC),
	ROW("setresuid", TC),
	ROW("setresuid32", TC),
	ROW("setreuid", TC),
	ROW("setreuid32", TC),
	ROW("setsockopt", TN),
	ROW("settimeofday", TCL),
	ROW("setuid", TC),
	ROW("setuid32", TC),
	ROW("setxattr", TF),
	ROW("sgetmask", TS),
	ROW("shmat", TM | TI),
	ROW("shmctl", TI),
	ROW("shmdt", TM | TI),
	ROW("shmget", TI),
	ROW("shutdown", TN),
	ROW("sigaction", TS),
	ROW("sigaltstack", TS),
	ROW("signal", TS),
	FDS("signalfd", TD | TS, FX_RET),
	FDS("signalfd4", TD | TS, FX_RET),
	ROW("sigpending", TS),
	ROW("sigprocmask", TS),
	FLAG("sigreturn", TS, SF_STRICT),
	FLAG("sigsuspend", TS, SF_WAITS),
	FDS("socket", TN, FX_RET),
	FDS("socketcall", TD, FX_RET),
	ROW("socketpair", TN),
	HOTDATA("splice", TD, ARG(4), ARG(0), ARG(2)),
	ROW("ssetmask", TS),
	HOT("stat", TF | TST),
	ROW("stat64", TF | TST),
	HOT("statfs", TF | TSF),
	ROW("statfs64", TF | TSF),
	HOT("statx", TF | TD | TFST),
	ROW("swapoff", TF),
	ROW("swapon", TF),
	ROW("symlink", TF),
	ROW("symlinkat", TF | TD),
	ROW("sync", TSY),
	HOT("sync_file_range", TD | TSY),
	ROW("syncfs", TD | TSY),
	DATA("tee", TD, ARG(2), ARG(0), ARG(1)),
	ROW("tgkill", TP | TS),
	ROW("time", TCL),
	FDS("timerfd_create", TD, FX_RET),
	ROW("timerfd_gettime", TD),
	ROW("timerfd_gettime64", TD),
	ROW("timerfd_settime", TD),
	ROW("timerfd_settime64", TD),
	ROW("tkill", TP | TS),
	ROW("truncate", TF),
	ROW("truncate64", TF),
	ROW("umount", TF),
	ROW("umount2", TF),
	ROW("unlink", TF),
	ROW("unlinkat", TF | TD),
	ROW("uselib", TF),
	FDS("userfaultfd", TD, FX_RET),
	ROW("utime", TF),
	ROW("utimensat", TF | TD),
	ROW("utimensat_time64", TF | TD),
	ROW("utimes", TF),
	FDS("vfork", TP, FX_CHILD),
	DATA("vmsplice", TD, ARG_IOV, ARG(0), 0),
	FLAG("wait4", TP, SF_WAITS),
	FLAG("waitid", TP, SF_WAITS),
	FLAG("waitpid", TP, SF_WAITS),
	RW("write", ARG(2), SF_WRITE_FAMILY | SF_STRICT),
	RW("writev", ARG_IOV, SF_WRITE_FAMILY),
};
const size_t syscall_nfacts = sizeof(syscall_facts) / sizeof(syscall_facts[0]);

/* strace's classes by its names, and iotrace's %io and %sync. */
const struct syscall_class syscall_classes[] = {
	{ "file", TF },			{ "desc", TD },
	{ "network", TN },		{ "net", TN },
	{ "process", TP },		{ "signal", TS },
	{ "memory", TM },		{ "ipc", TI },
	{ "stat", TST },		{ "lstat", TLST },
	{ "fstat", TFST },		{ "%stat", TST | TLST | TFST },
	{ "statfs", TSF },		{ "fstatfs", TFSF },
	{ "%statfs", TSF | TFSF },	{ "creds", TC },
	{ "clock", TCL },		{ "pure", PU },
	{ "io", SC_IO },		{ "sync", TSY },
	{ NULL, 0 },
};

/*
 * What --help lists (one line's worth; iotrace(1) has them all); every
 * word names a row of syscall_classes[].
 */
const char *const syscall_class_names[] = {
	"%file", "%desc", "%network", "%process", "%signal", "%memory",
	"%ipc", "%stat", "%%stat", "%creds", "%clock", "%io", "%sync", NULL
};
