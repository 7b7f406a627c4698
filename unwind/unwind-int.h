/* SPDX-License-Identifier: MIT */
/*
 * Shared by the unwinder's files only (unwind.c, unwmemo.c, procmaps.c):
 * the map caches, the per-process state and the memo of whole unwinds
 * behind unwind.h.
 */
#ifndef IOTRACE_UNWIND_INT_H
#define IOTRACE_UNWIND_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>
#include <libunwind.h>
#include "elf/elfobj.h"
#include "unwind/unwind.h"

#define ELF_OBJS_MAX 1024	/* objects known to one unwinder */
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
