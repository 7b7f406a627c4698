/* SPDX-License-Identifier: MIT */
/*
 * The syscall table, one per personality (x86_64, i386 and x32 on an
 * x86_64 host; the native one elsewhere): for every number, its name and
 * its facts.  Names and numbers come from libseccomp, dumped at build time
 * by scripts/gen-systab.c (no number is written by hand, and start-up
 * resolves nothing); the facts are one table of rows by name in
 * syscalls/systab.c, the one place to add a syscall fact.  The seccomp plan,
 * -e trace= sets and %classes, fd tracking, I/O accounting and pinning all
 * read them from here, for every personality.  Included by tracer.h.
 */
#ifndef IOTRACE_SYSCALLS_H
#define IOTRACE_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Numbers 0 .. SYSCALL_SET_MAX - 1 of a personality are its table. */
#define SYSCALL_SET_MAX 1024
#define SYSCALL_PERS_MAX 3
#define SYSCALL_NAME_MAX 40	/* longest name or "syscall_-2147483648" */

/* A personality: one numbering of the syscalls a task may use. */
struct syscall_pers {
	const char *name;	/* "x86_64", "i386", "x32" */
	uint32_t arch;		/* AUDIT_ARCH_* its calls report */
	uint32_t token;		/* SCMP_ARCH_* in libseccomp */
	int nr_bit;		/* set in each of its numbers (x32), or 0 */
};

/* The personalities of this build, the native one first (systab.c). */
extern const struct syscall_pers syscall_pers[];
extern const int syscall_npers;

/* Class flags of a fact: strace's classes, and iotrace's %sync. */
enum {
	SC_FILE = 1 << 0,	/* %file: takes a path (strace TF) */
	SC_DESC = 1 << 1,	/* %desc: takes or returns an fd (TD) */
	SC_NETWORK = 1 << 2,	/* %network (TN) */
	SC_PROCESS = 1 << 3,	/* %process (TP) */
	SC_SIGNAL = 1 << 4,	/* %signal (TS) */
	SC_MEMORY = 1 << 5,	/* %memory (TM) */
	SC_IPC = 1 << 6,	/* %ipc (TI) */
	SC_STAT = 1 << 7,	/* %stat: stat by path (TST) */
	SC_LSTAT = 1 << 8,	/* %lstat (TLST) */
	SC_FSTAT = 1 << 9,	/* %fstat: stat by fd, or at (TFST) */
	SC_STATFS = 1 << 10,	/* %statfs (TSF) */
	SC_FSTATFS = 1 << 11,	/* %fstatfs (TFSF) */
	SC_CREDS = 1 << 12,	/* %creds (TC) */
	SC_CLOCK = 1 << 13,	/* %clock (TCL) */
	SC_PURE = 1 << 14,	/* %pure: no arguments, never fails (PU) */
	SC_SYNC = 1 << 15,	/* %sync: flushes data to storage */
	SC_IO = 1 << 16,	/* %io: moves data; implied by a size */
};

/* What a successful call does to the fd table (fds.c). */
enum syscall_fx {
	FX_NONE,
	FX_RET,		/* returns a new fd: that number was reused */
	FX_ARG0,	/* closes or changes the fd in arg 0 */
	FX_ARG1,	/* replaces the fd in arg 1 (dup2, dup3) */
	FX_RANGE,	/* closes args 0..1 (close_range) */
	FX_EXEC,	/* closes the task's close-on-exec fds */
	FX_CHILD,	/* returns a new tid: forget what that tid had */
	FX_FCNTL,	/* F_DUPFD* returns an fd, F_SETFL changes flags */
};

/* Other facts. */
enum {
	SF_NORETURN = 1 << 0,	/* never returns: never a stop, never a row */
	SF_GETAFFINITY = 1 << 1, /* pinning rewrites what it returns */
	SF_SETAFFINITY = 1 << 2, /* the program's own mask ends pinning */
	SF_WAITS = 1 << 3,	/* waits for another process or an event: its
				   time is not the program's own work */
	SF_CLONE_FLAGS = 1 << 4, /* arg 0 is clone flags: CLONE_UNTRACED is
				   cleared at entry (clone.c) */
	SF_CLONE_ARGS = 1 << 5,	/* arg 0 points at struct clone_args, whose
				   flags are cleared alike (clone3) */
	SF_SECCOMP = 1 << 6,	/* may give the task a seccomp filter or
				   strict mode of its own (ownfilter.c) */
	SF_STRICT = 1 << 7,	/* allowed in seccomp strict mode (the
				   signal return: see ownfilter.c) */
	SF_READ_FAMILY = 1 << 8, /* read(2) and its kin: data from a file
				   at its offset into memory (findings) */
	SF_WRITE_FAMILY = 1 << 9, /* write(2) and its kin, the other way */
	SF_MAPS_CODE = 1 << 10,	/* may map code (prot in arg 2): -k's map
				   cache of the process goes stale */
	SF_HOT = 1 << 11,	/* made in loops, on one fd (arg 0), a
				   pair (a copy: splice...) or a path,
				   and no wait; of the fd table's calls,
				   those that return a new fd, close and
				   fcntl: the fast path rewrites its call
				   sites (tracer/rewrite/) */
	SF_SLEEPS = 1 << 12,	/* waits for a time, nothing else: as long
				   traced as untraced (the untraced floor) */
};

/* Argument n in size, fd and fd2; 0 is "none". */
#define ARG(n) ((n) + 1)
#define ARG_IOV 7		/* the size is in memory (iovec, msghdr) */

/* What iotrace knows of a syscall, whatever its number (systab.c). */
struct syscall_fact {
	const char *name;
	uint32_t classes;	/* SC_* */
	uint8_t size;		/* ARG(n) with the size asked, ARG_IOV, or 0:
				   moves no data */
	uint8_t fd, fd2;	/* ARG(n) of the (source) fd, of the
				   destination fd of a two-fd call; 0: none */
	uint8_t fx;		/* enum syscall_fx */
	uint16_t flags;		/* SF_* */
};

extern const struct syscall_fact syscall_facts[];
extern const size_t syscall_nfacts;

/* The -e trace= classes: "%file" is { "file", SC_FILE }. */
struct syscall_class {
	const char *name;	/* without the leading % */
	uint32_t mask;		/* a call with any of these is in it */
};
extern const struct syscall_class syscall_classes[];	/* NULL-terminated */

/* syscall_locate() for the calls the inline test below does not take. */
int syscall_locate_other(uint32_t arch, int nr, int *pnr);

/*
 * Where a call of arch with number nr belongs: returns its personality
 * (-1: no personality has arch) and sets *pnr to its number there (x32's
 * bit cleared), which may lie outside 0 .. SYSCALL_SET_MAX - 1.  Inline
 * for the common case, a native number in the table (the native
 * personality has no number bit, so such a number is its own).
 */
static inline int syscall_locate(uint32_t arch, int nr, int *pnr)
{
	if (arch == syscall_pers[0].arch && nr >= 0 && nr < SYSCALL_SET_MAX) {
		*pnr = nr;
		return 0;
	}
	return syscall_locate_other(arch, nr, pnr);
}
/* The facts of number nr of personality pers; NULL: none known. */
const struct syscall_fact *syscall_fact(int pers, int nr);
/*
 * The numbers of pers that have facts, ascending, in *nrs: loops over
 * facts visit a few hundred numbers, not SYSCALL_SET_MAX.  Their count.
 */
int syscall_pers_facts(int pers, const uint16_t **nrs);
/* Its classes: the fact's, and %io for a call with a size. */
uint32_t syscall_fact_classes(const struct syscall_fact *f);
/* The fact row of a name, or NULL. */
const struct syscall_fact *syscall_fact_by_name(const char *name);
/* Name of number nr of pers: the table's, or "syscall_N" in buf. */
const char *syscall_pers_name(int pers, int nr, char *buf, size_t size);
/* Whether number nr of pers has a name in the table. */
bool syscall_pers_named(int pers, int nr);
/* The lowest number of name in pers, or -1. */
int syscall_pers_number(int pers, const char *name);
/* name ("syscall_N" too) in pers: 0 and its number, or -1. */
int syscall_pers_lookup(int pers, const char *name, int *nr);
/* The personality called word ("i386"), or -1. */
int syscall_pers_find(const char *word);
/*
 * A name as people write it, "fstat64" or "write/i386" (the personality
 * after a slash; "syscall_N" for a number): 0 and its personality and
 * number, tried in the native personality first; -1 if none knows it.
 */
int syscall_lookup(const char *label, int *pers, int *nr);

/* Name of nr in arch, or "syscall_NNN" in buf for numbers without one. */
const char *syscall_name(uint32_t arch, int nr, char *buf, size_t size);
/* Number of a syscall by name in the native personality, or -1. */
int syscall_number(const char *name);

/*
 * A set of syscalls, by number, in every personality; numbers outside
 * the tables (negative, or past SYSCALL_SET_MAX) are in it when other is.
 * Built from names and classes as strace's -e trace= takes them.
 */
struct syscall_set {
	uint8_t bits[SYSCALL_PERS_MAX][SYSCALL_SET_MAX / 8];
	bool other;
};

/*
 * Parses strace's -e trace= value: a comma list of names and %class
 * words, with a leading '!' negating the whole list.  Returns 0, or -1
 * with the offending word in bad.
 */
int syscall_set_parse(struct syscall_set *set, const char *spec,
		      char *bad, size_t badsize);
bool syscall_set_has(const struct syscall_set *set, uint32_t arch, int nr);

/* The same for a number already located: personality pers, number nr. */
static inline bool syscall_set_has_pers(const struct syscall_set *set,
					int pers, int nr)
{
	if (pers < 0 || pers >= SYSCALL_PERS_MAX || nr < 0 ||
	    nr >= SYSCALL_SET_MAX)
		return set->other;
	return set->bits[pers][nr / 8] & (1u << (nr % 8));
}

/* Names of the classes, "%file" ..., for --help and the man page. */
extern const char *const syscall_class_names[];

#endif
