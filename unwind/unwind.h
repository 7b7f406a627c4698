/* SPDX-License-Identifier: MIT */
/*
 * The unwinder of the ptrace engine (-k), private to tracer/: over the
 * ELF objects of elfobj.h (symbols, unwind tables, segments), the
 * unwinder itself (unwind.c: per-process map caches,
 * libunwind over accessors of its own, stacks interned into a
 * struct tracer_stacks).  The stop loop calls unwinder_stack() at the
 * entry of each traced call and tells it when a process's mappings
 * change; nothing else of it is per stop.
 */
#ifndef IOTRACE_UNWIND_H
#define IOTRACE_UNWIND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include <libunwind.h>
#include "elf/elfobj.h"
#include "tracer/tracer.h"

/* --- the unwinder (unwind.c) --- */

#define ELF_OBJS_MAX 1024	/* objects known to one unwinder */

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
/* tgid's mappings may have changed (execve, an executable mmap). */
void unwinder_maps_changed(struct unwinder *u, pid_t tgid);
/* tgid is gone: its map cache goes. */
void unwinder_forget(struct unwinder *u, pid_t tgid);

/* --- inside the unwinder only (unwind.c, procmaps.c) --- */

#define PROCS_MAX 256		/* processes with a map cache */
#define MAPS_MAX 1024		/* executable mappings per process */
#define RAW_SLOTS 16384		/* stacks cached by return addresses */
#define PAGES 8			/* tracee pages read per unwind */
#define PAGE 4096
/* Where the search tables built from .eh_frame seem to be: kernel space,
   never a tracee's address, one 4 GiB window per object. */
#define SYNTH_BASE 0xffff800000000000ull

struct umap {
	uint64_t start, end;	/* the object's extent in the process */
	uint64_t bias;
	struct elf_obj *obj;
};

struct uproc {
	pid_t tgid;		/* 0: free */
	bool dirty;		/* mappings changed: read them again */
	bool missed;		/* re-read once for an unknown address */
	uint64_t gen;		/* mappings' identity in the raw cache */
	uint64_t used;		/* last unwind, for eviction */
	struct umap *maps;	/* by start */
	size_t nmaps;
	unw_addr_space_t as;	/* libunwind's, with its per-IP cache */
};

struct raw_slot {
	uint64_t hash, gen;
	uint32_t id;		/* in the stacks table; NONE: empty */
	uint16_t n;
	bool truncated;
};

/* A whole unwind remembered (unwmemo.c): what it read, what it found. */
#define MEMO_SLOTS 2048
#define MEMO_WORDS 40		/* stack words read, at most */
#define MEMO_REGS (UNW_X86_64_RIP + 1)

struct memo_word {
	uint64_t addr, val;
};

struct memo {
	uint64_t gen, rip, rsp;	/* the process's maps, where the call was */
	uint32_t id;		/* the stack found; NONE: empty */
	uint32_t regmask;	/* registers read (UNW_X86_64_*) */
	uint64_t reg[MEMO_REGS];
	unsigned nwords;
	struct memo_word word[MEMO_WORDS];
};

struct page {
	uint64_t addr;		/* page address */
	uint64_t stamp;		/* the unwind it was read in */
	bool ok;		/* read; else unreadable */
	unsigned char data[PAGE];
};

struct unwinder {
	struct tracer_stacks *st;
	unsigned depth, sample;
	struct uproc procs[PROCS_MAX];
	struct elf_obj *objs[ELF_OBJS_MAX];
	unsigned nobjs;
	uint64_t gens, clock;
	struct raw_slot *raw;	/* RAW_SLOTS */
	uint64_t *raw_pcs;	/* depth per slot */
	struct page pages[PAGES];
	unsigned next_page;
	uint32_t *counts;	/* calls per syscall number (sampling) */
	/* the unwind under way */
	struct uproc *proc;
	pid_t tid;
	struct user_regs_struct regs;
	struct memo *memo;		/* MEMO_SLOTS; NULL until used */
	struct memo log;		/* what the unwind under way reads */
	bool logging, log_full;
	unw_accessors_t acc;
};

/*
 * The map cache of tgid, made (evicting the least recently unwound) if
 * need be; NULL: no memory.  Its maps are read by unwind_maps_read().
 */
struct uproc *unwind_proc_get(struct unwinder *u, pid_t tgid);
void unwind_proc_release(struct uproc *p);
/* Reads p's executable mappings; a new generation if they changed. */
void unwind_maps_read(struct unwinder *u, struct uproc *p);
/* The mapping holding addr, or NULL. */
const struct umap *unwind_map_of(const struct uproc *p, uint64_t addr);
/* Register reg (UNW_X86_64_*) of regs; 0 for another. */
uint64_t unwind_reg(const struct user_regs_struct *regs, int reg);
/* 8 bytes at aligned addr of the unwind under way: 0, or -UNW_EINVAL. */
int unwind_read_word(struct unwinder *u, uint64_t addr, uint64_t *val);

/*
 * The memo (unwmemo.c): find() the stack of the unwind about to be made
 * (u->proc, u->regs) if the last one from there read the same values
 * (NONE: unwind it); begin() logs what the walk reads (note_*()), keep()
 * remembers it with the stack it found.
 */
uint32_t memo_find(struct unwinder *u);
void memo_begin(struct unwinder *u);
void memo_note_reg(struct unwinder *u, int reg, uint64_t val);
void memo_note_word(struct unwinder *u, uint64_t addr, uint64_t val);
/* A read failed: this walk is not kept (the next may read more). */
void memo_spoil(struct unwinder *u);
void memo_keep(struct unwinder *u, uint32_t id);

#endif
