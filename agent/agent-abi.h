/* SPDX-License-Identifier: MIT */
/*
 * What the in-process agent (agent/agent.c, build/iotrace-agent.so) and
 * the agent engine (tracer/agent.c) share: the layout of the counters
 * they share through one MAP_SHARED memfd, the marker calls by which the
 * agent tells the tracer what it does, and the reasons a process falls
 * back to ptrace.  Plain data only: the agent links nothing of iotrace.
 *
 * A marker is getpid() with AGENT_MAGIC in its first argument, made from
 * the agent's own code region.  getpid ignores its arguments, so a
 * marker changes nothing; iotrace's seccomp filter stops at it (and only
 * at it), so the tracer sees it even while the task runs unstopped.
 *
 * An armed task runs detached from ptrace (a dispatched call would
 * otherwise cost a signal-delivery stop).  Before a marker or an execve
 * it asks iotrace to trace it again: a request slot with its tid, a
 * signal to iotrace, and a futex wait until iotrace has seized it.  A
 * marker that returns -ENOSYS found no tracer.
 */
#ifndef IOTRACE_AGENT_ABI_H
#define IOTRACE_AGENT_ABI_H

#include <stddef.h>
#include <stdint.h>

#define AGENT_MAGIC 0x696f74726163656bULL	/* "iotracek" */
#define AGENT_VERSION 11
#define AGENT_NR_MAX 1024		/* native syscall numbers counted */
#define AGENT_HIST_BUCKETS 40		/* log2 ns, as the profile's */
#define AGENT_ERRNO_SLOTS 4
#define AGENT_REQ_SLOTS 64		/* attach requests in flight */
#define AGENT_REQ_CLAIMED 0xffffffffu	/* a slot taken, not yet filled */
#define AGENT_EXEC_SLOTS 64		/* timed execves in flight */
#define AGENT_PROBE_NS 16		/* width of a dispatch-cost bucket */
#define AGENT_PROBE_BUCKETS 1024	/* up to 16.4 us; the last: beyond */
#define AGENT_CALIB_MAX 8192		/* calls calibration records */
#define AGENT_CALIB_NS_MAX ((1u << 22) - 1)

/* Markers: getpid(AGENT_MAGIC, op, a, b, region start, region length). */
enum agent_op {
	AGENT_OP_HELLO = 1,	/* a, b: start and length of the agent's
				   code region; its calls are its own */
	AGENT_OP_ARMED = 2,	/* dispatch is on: stop tracing my calls */
	AGENT_OP_FALLBACK = 3,	/* a: enum agent_why; b: 1 for the whole
				   process; trace me (and them) by ptrace */
	AGENT_OP_NATIVE = 4,	/* a: a call (fork, clone...) I cannot
				   issue from the handler: the task runs it
				   itself next, traced by ptrace, and is
				   armed again at its exit */
};

/*
 * How the agent gets into a program (tracer/agent-inject.c): after each
 * execve, before the program's first instruction, the tracer maps the
 * agent's image into it, fills AGENT_SYM_CFG and runs AGENT_SYM_BOOT on
 * the program's stack.  Boot arms the agent (HELLO, ... ARMED or
 * FALLBACK) and never returns: at its last marker the tracer puts the
 * program's registers back.  A built-in workload (a fork of iotrace,
 * which dlopen()s the agent) calls AGENT_SYM_START with the counters'
 * fd instead.
 */
#define AGENT_SYM_BOOT "iotrace_agent_boot"
#define AGENT_SYM_START "iotrace_agent_start"
#define AGENT_SYM_CFG "iotrace_agent_cfg"
#define AGENT_SYM_VBLOCKED "iotrace_agent_vblocked"
#define AGENT_SYM_REGION "iotrace_agent_region"	/* HELLO's region */
#define AGENT_VBLOCKED_SLOTS 64	/* threads with SIGSYS blocked at once */
struct agent_cfg {
	char shm_path[64];	/* /proc/PID/fd/N: the counters (boot) */
	uint64_t clock_fn;	/* the process's clock_gettime (vDSO), or 0:
				   the agent makes the call itself */
	int32_t stay_traced;	/* 1: iotrace keeps this process traced
				   (another pid namespace, or it could
				   not signal iotrace): never ask, never
				   signal; iotrace sets it, forks copy it */
};

/* Why a process is measured by ptrace rather than the agent. */
enum agent_why {
	AGENT_WHY_NONE = 0,
	AGENT_WHY_NOT_LOADED,	/* the agent could not be mapped into it */
	AGENT_WHY_SETUID,	/* set-user-ID: not entered */
	AGENT_WHY_NOT64,	/* not an x86_64 program */
	AGENT_WHY_SIGSYS_IGNORED,	/* SIGSYS ignored when it started */
	AGENT_WHY_SIGSYS_BLOCKED,	/* SIGSYS blocked when it started */
	AGENT_WHY_SIGSYS_HANDLER,	/* installs its own SIGSYS handler */
	AGENT_WHY_SECCOMP,	/* installs a seccomp filter of its own */
	AGENT_WHY_SUD,		/* uses Syscall User Dispatch itself */
	AGENT_WHY_NO_SUD,	/* the kernel refused Syscall User Dispatch */
	AGENT_WHY_NO_SHM,	/* the shared counters could not be mapped */
	AGENT_WHY_PERSONALITY,	/* makes i386 (int $0x80), x32 calls, or
				   calls of numbers outside rows[] */
	AGENT_WHY_CREDS,	/* changes its credentials or dumpability:
				   iotrace might not seize it again */
	AGENT_WHY_NWHY,
};

/* The agent's action per call, from iotrace's plan (-e trace=). */
enum {
	AGENT_ACT_SKIP = 0,	/* not counted */
	AGENT_ACT_COUNT = 1,	/* counted, not timed */
	AGENT_ACT_TIME = 2,	/* counted and timed */
};

/* What one syscall number added up to, over every agent of the run. */
struct agent_row {
	uint64_t calls, timed, errors;
	uint64_t time_ns, min_ns, max_ns;	/* corrected; min_ns 0: none
						   timed yet */
	uint64_t raw_time_ns;			/* before the correction */
	uint64_t bytes_req, bytes_done, short_calls;
	uint64_t hist[AGENT_HIST_BUCKETS];
	uint64_t errnos[AGENT_ERRNO_SLOTS][2];	/* { errno, count } */
	uint64_t errno_other;
};

/*
 * Per-file counts (agent/files.c; tracer/agent-files.c reads them): which
 * file each data call's fd named, as the ptrace engine's fd cache finds
 * it.  Per syscall number, iotrace passes what its facts say
 * (tracer/systab.c): the fds a call moves data through and what it does
 * to the fd table.  A process maps its fds (below AGENT_FD_MAX) to file
 * slots in memory of its own, described the first time a data call uses
 * one (the path from /proc/thread-self/fd/N, the open flags, the stat)
 * and forgotten when the facts say the fd changed; the slots and their
 * counters, one cell per (file, call), are shared by every agent of the
 * run.  Slots past AGENT_FILES_MAX, or pairs past AGENT_PAIRS_MAX, go to
 * AGENT_FILE_UNATTRIBUTED: counted, never dropped.
 */
#define AGENT_FD_MAX 4096		/* fds mapped per process; past it,
					   described at every call */
#define AGENT_FILES_MAX 512		/* file slots, the two below too */
#define AGENT_FILE_UNRESOLVED 0		/* the fd named no file */
#define AGENT_FILE_UNATTRIBUTED 1	/* past the bounds */
#define AGENT_FILE_FIRST 2
#define AGENT_FILE_INDEX 1024		/* hash index of slots (2^n) */
#define AGENT_IO_COLS 32		/* calls with an fd that move data */
#define AGENT_PAIRS_MAX 256		/* (file, file2, call) of two-fd
					   calls (2^n) */
#define AGENT_PATH_MAX 256		/* a path's end, as the profile
					   keeps it */

/* What a call does to the fd table (the facts' FX_*, as the agent acts). */
enum agent_fx {
	AGENT_FX_NONE = 0,
	AGENT_FX_RET,		/* returns a new fd */
	AGENT_FX_ARG0,		/* closes or changes the fd in arg 0 */
	AGENT_FX_ARG1,		/* replaces the fd in arg 1 */
	AGENT_FX_RANGE,		/* closes args 0..1 */
	AGENT_FX_FCNTL,		/* F_DUPFD* returns one, F_SETFL changes one */
};

/* Per syscall number, from the facts. */
struct agent_nr_files {
	uint8_t col;		/* 1 + its column in a file's cells; 0: it
				   moves no data through an fd */
	int8_t fd_arg;		/* argument with the (source) fd */
	int8_t fd2_arg;		/* argument with the destination fd; -1 */
	uint8_t fx;		/* enum agent_fx */
};

/* A (file, call) cell: the sub-row the ptrace engine would keep. */
struct agent_io {
	uint64_t calls, timed, errors, einval;
	uint64_t time_ns, raw_time_ns;		/* corrected, as measured */
	uint64_t bytes_req, bytes_done, short_calls;
	uint64_t size_max, size_max_calls;	/* largest size asked, and
						   how many asked it */
};

/* What an fd named when it was described. */
struct agent_file_id {
	uint64_t dev, ino, rdev;	/* of the stat; 0 without one */
	uint32_t mode;			/* st_mode */
	uint32_t blksize;		/* st_blksize */
	uint32_t flags;			/* open flags (F_GETFL) */
	uint32_t fstype;		/* the filesystem's statfs f_type;
					   0 without one */
	uint16_t len;			/* of path */
	uint8_t cut;			/* path is the end of a longer one */
	uint8_t stat_ok;		/* the stat worked */
	char path[AGENT_PATH_MAX];	/* NUL-terminated */
};

struct agent_file {
	uint32_t ready;			/* 1 once id is written */
	uint32_t pad;
	struct agent_file_id id;
	struct agent_io io[AGENT_IO_COLS];	/* one-fd calls, by column */
};

struct agent_pair {
	uint32_t key;		/* 0: free; else 1 + file | file2 << 10 |
				   column << 20 */
	uint32_t pad;
	struct agent_io io;
};

struct agent_files {
	struct agent_nr_files nr[AGENT_NR_MAX];
	uint32_t nfiles;			/* slots taken (may pass
						   AGENT_FILES_MAX) */
	uint32_t index[AGENT_FILE_INDEX];	/* 1 + slot; 0: free */
	struct agent_pair pairs[AGENT_PAIRS_MAX];
	struct agent_file file[AGENT_FILES_MAX];
};

/*
 * -k (agent/sites.c; tracer/agent-sites.c reads them): the agent cannot
 * unwind (no loader, no libunwind in a program's memory), so for each
 * call it counts (1 in sample per syscall) it leaves its registers and a
 * copy of the stack above them in a slot; iotrace unwinds them with the
 * ptrace engine's unwinder (the copy in place of the live stack) while
 * the process lives, and frees the slot.  Slots are taken in any order
 * (order does not matter to a sum).  When none is free the agent wakes
 * iotrace and waits (freed is a futex); before its process exits it
 * waits until iotrace has taken its slots, as its maps go with it.
 * How much stack to copy: up to the highest address an unwind of the
 * same thread read (its outermost frame's, as a rule) and a page more,
 * which iotrace leaves as a hint per thread; all it may (its first
 * call, which waits for the hint) where there is none yet, and
 * AGENT_SITE_STACK where the stack pointer is not below it (another
 * stack).  A stack that needed more than its copy had is cut (and
 * marked so).
 */
#define AGENT_SITE_SLOTS 256
#define AGENT_SITE_STACK 16384		/* stack bytes copied where the
					   hint is for another stack */
#define AGENT_SITE_STACK_MAX 65536	/* ... at most */
#define AGENT_SITE_HINTS 256		/* threads with a hint (2^n) */
enum { AGENT_SITE_FREE = 0, AGENT_SITE_BUSY, AGENT_SITE_READY };
enum {
	AGENT_SITE_CALL = 1,		/* a call: counted at this site */
	AGENT_SITE_TIMED = 2,		/* its time (and result) is in it:
					   alone, an execve that failed, its
					   call sent before it */
};

struct agent_site {
	uint32_t state;			/* AGENT_SITE_FREE... */
	uint32_t flags;			/* AGENT_SITE_CALL... */
	uint32_t tgid, tid;
	int32_t nr;
	uint32_t len;			/* stack bytes copied */
	int64_t ret;
	uint64_t ns;			/* as measured (raw) */
	uint64_t gregs[17];		/* ucontext's, REG_R8 to REG_RIP */
	unsigned char stack[AGENT_SITE_STACK_MAX];	/* from REG_RSP */
};

struct agent_site_hint {		/* at [tid % AGENT_SITE_HINTS] */
	uint64_t tid;			/* 0: none */
	uint64_t top;			/* the highest stack address read */
};

struct agent_sites {
	uint32_t sample;		/* 0: no -k; 1 call in sample */
	uint32_t next;			/* where to look for a free slot */
	uint32_t ready;			/* slots READY (about) */
	uint32_t freed;			/* futex: bumped as slots free */
	uint32_t seen[AGENT_NR_MAX];	/* calls per syscall, for sample */
	struct agent_site_hint hint[AGENT_SITE_HINTS];
	struct agent_site slot[AGENT_SITE_SLOTS];
};

struct agent_shm {
	uint64_t magic;			/* AGENT_MAGIC once filled */
	uint32_t version;		/* AGENT_VERSION */
	uint32_t size;			/* AGENT_SHM_BASE, or with -k
					   sizeof(struct agent_shm) */
	uint8_t act[AGENT_NR_MAX];	/* AGENT_ACT_* */
	int8_t size_arg[AGENT_NR_MAX];	/* argument with the size asked,
					   -1: moves no data, 6: moves data,
					   size not in an argument */
	struct agent_files files;	/* per-file counts (see above) */
	uint32_t tracer_pid;		/* iotrace, to signal; 0: gone, or
					   armed tasks stay traced */
	int32_t attach_sig;		/* the signal that says "requests" */
	uint32_t req_head;		/* next request slot (mod SLOTS) */
	uint32_t untraced;		/* tasks iotrace could not attach to
					   again: their later calls are lost */
	uint64_t correction_ns;		/* what dispatch adds to a timed call
					   (calibrated): subtracted */
	uint64_t correction_io_ns;	/* the same for calls that move data
					   (agent_correction()) */
	/*
	 * A slot is the asker's from its claim (tid 0 -> AGENT_REQ_CLAIMED,
	 * then pid, then its tid) until it has read iotrace's answer in
	 * done and frees it (tid 0): two askers never share one.
	 */
	struct {
		uint32_t tid;		/* 0: free */
		uint32_t pid;		/* its process */
		uint32_t done;		/* futex: 1 once seized, 2 if it
					   could not be */
	} req[AGENT_REQ_SLOTS];
	/*
	 * A timed execve or execveat in flight (agent/agent.c's
	 * exec_call()), made once iotrace traces the task again: one that
	 * succeeds never returns to the agent, so iotrace counts it, timed
	 * from start_ns to its PTRACE_EVENT_EXEC; one that fails comes back
	 * and the agent counts it.
	 */
	struct agent_exec {
		uint32_t tid;		/* the caller; 0: free */
		int32_t nr;		/* SYS_execve or SYS_execveat */
		uint64_t start_ns;	/* CLOCK_MONOTONIC as it was issued */
		uint64_t args[6];
	} execs[AGENT_EXEC_SLOTS];
	struct agent_row rows[AGENT_NR_MAX];
	/*
	 * What dispatch costs the wall, measured in the run (agent/probe.c):
	 * now and then a timed call's return goes through a second, empty
	 * dispatch; its round trip plus the handler's own time around the
	 * call is one sample.
	 */
	struct agent_probe {
		uint64_t launched;	/* round trips the probes added */
		uint64_t samples;	/* of them, timed undisturbed */
		uint64_t hist[AGENT_PROBE_BUCKETS];	/* AGENT_PROBE_NS each */
	} probe;
	/*
	 * Calibration only (tracer/agent-calib.c): each timed call's
	 * number and time as measured, for iotrace to take medians of.
	 */
	struct agent_calib {
		uint32_t on, n;
		uint32_t rec[AGENT_CALIB_MAX];	/* nr << 22 | ns (capped) */
	} calib;
	struct agent_sites sites;	/* -k (above) */
};

/*
 * What the agent subtracts from a call it timed: a call that moves data
 * (a size argument) pays more for dispatch than getppid does (caches the
 * signal left colder), so it has a correction of its own.
 */
static inline uint64_t agent_correction(const struct agent_shm *s, int nr)
{
	return s->size_arg[nr] >= 0 ? s->correction_io_ns : s->correction_ns;
}

/*
 * The counters are mapped up to the slots of -k only with -k (size says
 * which): the slots are 16 MiB of address space each program would see.
 */
#define AGENT_SHM_BASE offsetof(struct agent_shm, sites.slot)

#endif
