/* SPDX-License-Identifier: MIT */
/*
 * The unwinder (-k), as an engine sees it: made for a run, asked for the
 * stack of a task stopped at a call's entry, told when a process's
 * mappings change or it is gone.  The ptrace engine's stop loop calls
 * unwinder_stack() at the entry of each traced call; nothing else of it
 * is per stop.  Behind it (unwind-int.h): per-process map caches
 * (procmaps.c), libunwind over accessors of its own (unwind.c), whole
 * unwinds remembered (unwmemo.c), over the ELF objects of elf/elfobj.h;
 * stacks are interned into a struct tracer_stacks (tracer.h).
 */
#ifndef IOTRACE_UNWIND_H
#define IOTRACE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include "tracer/tracer.h"

struct unwinder;
/* NULL: no memory. */
struct unwinder *unwinder_new(struct tracer_stacks *st, unsigned depth,
			      unsigned sample);
void unwinder_free(struct unwinder *u);
/*
 * At the entry stop of syscall nr (arch) of tid in process tgid: the id
 * of its user stack in the table, TRACER_ID_NONE when it is not unwound
 * (not sampled, another personality, table full).  at: 0, or the
 * instruction pointer to unwind from, for a call the fast path sent to
 * its site's stub (tracer/rewrite/), which no unwind information
 * describes: after the site's syscall, where the program made it.
 * force: a call the fast path sampled, always unwound and not one of
 * the 1 in N of ptrace's stops.
 */
uint32_t unwinder_stack(struct unwinder *u, pid_t tid, pid_t tgid,
			uint32_t arch, int nr, uint64_t at, bool force);
/*
 * Calls of nr that 1-in-N sampling lets go before it unwinds the next
 * (0: the next one), so that a process rewritten as it runs (whose
 * trampolines sample its calls from then on) keeps the run's 1 in N.
 */
unsigned unwinder_sample_wait(const struct unwinder *u, int nr);
/* tgid's mappings may have changed (execve, an executable mmap). */
void unwinder_maps_changed(struct unwinder *u, pid_t tgid);
/* tgid is gone: its map cache goes. */
void unwinder_forget(struct unwinder *u, pid_t tgid);

#endif
