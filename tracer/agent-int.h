/* SPDX-License-Identifier: MIT */
/*
 * Shared by the agent engine's files only: tracer/agent.c (the engine:
 * the shared counters, the run), tracer/agent-stops.c (what the stop
 * loop does for it: markers, arming, fallbacks), tracer/agent-inject.c
 * (mapping the agent into a program), tracer/agent-files.c (the
 * per-file counts), tracer/agent-wait.c (the detached processes) and
 * tracer/agent-watchdog.c (their watchdog).  The layout they share
 * with the agent itself is agent/agent-abi.h.
 */
#ifndef IOTRACE_AGENT_INT_H
#define IOTRACE_AGENT_INT_H

#include <elf.h>
#include "agent/agent-abi.h"
#include "tracer/tracer-int.h"

#define AGENT_DETACHED_MAX 256	/* detached processes waited for */

/*
 * The agent as iotrace maps it into a program (agent-inject.c): its
 * segments laid out from offset 0, where its symbols are, its relative
 * relocations; read once per run.
 */
struct agent_image {
	unsigned char *bytes;		/* span bytes, as mapped at 0 */
	unsigned char *scratch;		/* span more: relocated, configured */
	size_t span;			/* page-rounded */
	uint64_t text_lo, text_len;	/* the code's pages */
	uint64_t boot, cfg, vblocked;	/* AGENT_SYM_* offsets */
	uint64_t region;		/* the code region's (HELLO's) */
	Elf64_Rela *rela;		/* R_X86_64_RELATIVE only */
	size_t nrela;
	uint64_t vdso_clock;		/* clock_gettime's offset in the
					   vDSO; 0: none */
};
int agent_image_load(struct agent_image *im, const char *path);
void agent_image_release(struct agent_image *im);

/* One run of the agent engine. */
struct agent_run {
	struct agent_shm *shm;		/* the counters, mapped shared */
	size_t shm_size;		/* shm->size: AGENT_SHM_BASE or all */
	int shm_fd;			/* their memfd, close-on-exec */
	struct tracer_engine_use *use;	/* in the run's result */
	const struct tracer_sink *sink;	/* where events go on to */
	const char *so;			/* the agent's path */
	struct agent_image image;	/* what is mapped into programs */
	char shm_path[64];		/* the counters, for the agent */
	long filters_base;		/* seccomp filters of a program with
					   none of its own: iotrace's and
					   the marker filter */
	bool first_seen;		/* the first task has stopped */
	size_t held;			/* new tasks held in their first
					   stop (AGENT_T_EARLY) */
	/* Processes running detached, and a pidfd of each (agent-wait.c) */
	pid_t detached_pid[AGENT_DETACHED_MAX];
	int detached_fd[AGENT_DETACHED_MAX];
	size_t ndetached;
	int watchdog_fd;		/* to the watchdog; -1: none (nothing
					   detaches, agent-watchdog.c) */
	uint64_t *site_calls;		/* -k: per native number, calls
					   given with a stack */
};

/* What the agent adds to a call, calibrated (agent-calib.c). */
struct agent_costs {
	uint64_t correction_ns;	/* to the time it measures of a call:
				   subtracted by the agent */
	uint64_t correction_io_ns;	/* the same, a call moving data */
	uint64_t dispatch_ns;	/* to the wall, per call it handles (the
				   signal, the handler): for the estimate */
};
/* Measures them now, as opts would trace; zero where it cannot. */
void agent_calibrate_costs(const struct tracer_opts *opts,
			   struct agent_costs *costs);
/* Set while calibrating: agent_run() records each timed call there. */
extern struct agent_calib *agent_calib_out;
/* The engine's run() (agent.c). */
int agent_run(const struct tracer_opts *opts,
	      const struct tracer_target *target,
	      const struct tracer_sink *sink, struct tracer_result *res);

/*
 * A task of process tgid is to be detached: wait for the process.  False
 * when it cannot be waited for (the task must stay traced).
 */
bool agent_track(struct loop *l, pid_t tgid);
/*
 * Whether a process may run detached: its pid and user namespaces are
 * iotrace's and it could signal iotrace (agent-wait.c).
 */
bool agent_may_detach(pid_t tgid);
/* Tells t's agent it stays traced: it never signals iotrace. */
void agent_inject_stay(const struct loop *l, const struct task *t);
/* Whether tgid is a process iotrace let run detached, alive. */
bool agent_is_detached(const struct agent_run *ar, pid_t tgid);
/* Forgets every such process, first killing it if kill. */
void agent_untrack_all(struct agent_run *ar, bool kill);

/*
 * The watchdog (agent-watchdog.c), which kills the detached processes if
 * iotrace dies: start() forks it before the command (watchdog_fd -1 if it
 * could not), add() hands it a pidfd of a process about to be detached
 * (false: it has not got it, the process must stay traced), stop() ends
 * it without a kill at the end of the run.
 */
void agent_watchdog_start(struct agent_run *ar);
bool agent_watchdog_add(struct agent_run *ar, int pidfd);
void agent_watchdog_stop(struct agent_run *ar);

/*
 * Per-file counts (agent-files.c): the facts the agent needs, per native
 * number (0, or -ENOSPC if a call got no column); after the run, an
 * aggregate per (file, call) to the sink.
 */
int agent_files_fill(struct agent_files *af);
void agent_files_deliver(struct agent_run *ar);

/*
 * -k (agent-sites.c): start() asks the agents for their calls' stacks
 * (0 or -ENOMEM), agent_sites_drain() (tracer-int.h) unwinds those
 * ready, exec() forgets the hint of a task that has a new stack (its
 * execve), end() counts the calls left without one.
 */
int agent_sites_start(struct agent_run *ar, const struct tracer_opts *opts);
void agent_sites_exec(struct agent_run *ar, pid_t tid);
void agent_sites_end(struct agent_run *ar);

/*
 * The agent's way into a program (agent-inject.c), from execve's exit
 * stop: start() makes the first step (false: not started), step() the
 * next ones at the injected calls' exits, done() puts the program's
 * registers back at boot's ARMED marker, unmap() takes the agent away
 * again at its FALLBACK (the task fallen back, OFF, once it is gone);
 * inherit() marks a new task whose parent's SIGSYS the program blocked,
 * vblock() blocks it in the child at its first stop.
 */
bool agent_inject_start(struct loop *l, struct task *t);
void agent_inject_step(struct loop *l, struct task *t, int64_t ret);
void agent_inject_done(struct task *t);
void agent_inject_unmap(struct loop *l, struct task *t);
void agent_inject_inherit(const struct loop *l, const struct task *p,
			  struct task *c);
void agent_inject_vblock(const struct loop *l, struct task *t);

/*
 * The program at path as the agent sees it: AGENT_WHY_NONE for an x86_64
 * ELF program (the agent can be mapped into it) or a "#!" script (its
 * interpreter is what runs), else why not (AGENT_WHY_NOT_LOADED: not
 * readable; _SETUID, _NOT64).
 */
int agent_classify(const char *path);
/* Why a process fell back, as the header says it ("own seccomp filter"). */
const char *agent_why_text(int why);

#endif
