// SPDX-License-Identifier: MIT
/*
 * -k's memo of whole unwinds.  An unwind is a function of what
 * libunwind reads: some registers and some stack words (the unwind
 * tables and code come from the object files, fixed for one generation
 * of the process's maps).  So the memo keeps, per (maps generation,
 * instruction pointer, stack pointer), the registers and stack words
 * the last unwind read and the stack it found; a call made again from
 * the same place with the same values there gets the same stack without
 * libunwind, which takes its locks with signals blocked (two
 * sigprocmask calls a frame) and dominated -k's cost: a loop of dd
 * reads and writes spent most of iotrace's time in them.  Exact: any
 * value read differs, or the memo's room for them ran out, or a read
 * failed (memory the next call may have), and the call is unwound as
 * ever.  Fixed size (MEMO_SLOTS, made on first use),
 * nothing allocated per unwind.
 */
#include <stdlib.h>
#include <string.h>
#include "tracer/tracer.h"
#include "unwind/unwind-int.h"

static struct memo *slot_of(struct unwinder *u)
{
	uint64_t h = u->proc->gen * 0x9e3779b97f4a7c15ull;

	h = (h ^ u->regs.rip) * 0x100000001b3ull;
	h = (h ^ u->regs.rsp) * 0x100000001b3ull;
	return &u->memo[(h ^ h >> 29) & (MEMO_SLOTS - 1)];
}

uint32_t memo_find(struct unwinder *u)
{
	const struct memo *m;
	uint64_t v;
	unsigned i;

	if (!u->memo)
		return TRACER_ID_NONE;
	m = slot_of(u);
	if (m->id == TRACER_ID_NONE || m->gen != u->proc->gen ||
	    m->rip != u->regs.rip || m->rsp != u->regs.rsp)
		return TRACER_ID_NONE;
	for (i = 0; i < MEMO_REGS; i++)
		if ((m->regmask >> i & 1) &&
		    unwind_reg(&u->regs, (int)i) != m->reg[i])
			return TRACER_ID_NONE;
	for (i = 0; i < m->nwords; i++)
		if (unwind_read_word(u, m->word[i].addr, &v) < 0 ||
		    v != m->word[i].val)
			return TRACER_ID_NONE;
	return m->id;
}

void memo_begin(struct unwinder *u)
{
	if (!u->memo)
		u->memo = calloc(MEMO_SLOTS, sizeof(*u->memo));
	u->log.regmask = 0;
	u->log.nwords = 0;
	u->logging = u->memo != NULL;
	u->log_full = false;
}

void memo_note_reg(struct unwinder *u, int reg, uint64_t val)
{
	if (!u->logging || reg < 0 || reg >= MEMO_REGS)
		return;
	u->log.regmask |= 1u << reg;
	u->log.reg[reg] = val;
}

void memo_note_word(struct unwinder *u, uint64_t addr, uint64_t val)
{
	unsigned i;

	if (!u->logging)
		return;
	for (i = 0; i < u->log.nwords; i++)
		if (u->log.word[i].addr == addr)
			return;
	if (u->log.nwords == MEMO_WORDS) {
		u->log_full = true;
		return;
	}
	u->log.word[u->log.nwords++] = (struct memo_word){ addr, val };
}

void memo_spoil(struct unwinder *u)
{
	u->log_full = true;
}

void memo_keep(struct unwinder *u, uint32_t id)
{
	struct memo *m;

	if (!u->logging)
		return;
	u->logging = false;
	if (u->log_full || id == TRACER_ID_NONE)
		return;
	m = slot_of(u);
	*m = u->log;
	m->gen = u->proc->gen;
	m->rip = u->regs.rip;
	m->rsp = u->regs.rsp;
	m->id = id;
}
