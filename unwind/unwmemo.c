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
 * nothing allocated per unwind.  What libunwind reads goes through
 * here too (unwind_read_word(), unwind_reg(), the task's pages read at
 * most once an unwind), so the memo notes every word as it is read and
 * checks a memo with the same readers: unwind.c's accessors call these,
 * and nothing here calls back into unwind.c.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "tracer/tracer.h"
#include "unwind/unwind-int.h"

/* The page at addr of the task, read at most once per unwind. */
static const struct page *page_at(struct unwinder *u, uint64_t addr)
{
	struct page *pg;
	struct iovec local, remote;
	unsigned i;

	addr &= ~(uint64_t)(PAGE - 1);
	for (i = 0; i < PAGES; i++)
		if (u->pages[i].stamp == u->clock && u->pages[i].addr == addr)
			return u->pages[i].ok ? &u->pages[i] : NULL;
	pg = &u->pages[u->next_page++ % PAGES];
	pg->addr = addr;
	pg->stamp = u->clock;
	local = (struct iovec){ pg->data, PAGE };
	remote = (struct iovec){ (void *)addr, PAGE };
	pg->ok = process_vm_readv(u->tid, &local, 1, &remote, 1, 0) == PAGE;
	return pg->ok ? pg : NULL;
}

/*
 * 8 bytes at an aligned addr: a built table, an object's file or
 * memory; memory is what the memo keeps.
 */
int unwind_read_word(struct unwinder *u, uint64_t addr, uint64_t *val)
{
	const struct umap *m;
	const struct elf_obj *o;
	const struct page *pg;
	uint64_t i;

	if (addr >= SYNTH_BASE) {
		i = (addr - SYNTH_BASE) >> 32;
		o = i < u->nobjs ? u->objs[i] : NULL;
		addr &= 0xffffffffu;
		if (!o || addr + 8 > o->nsynth * 2 * sizeof(int32_t))
			return -UNW_EINVAL;
		memcpy(val, (const char *)o->synth + addr, 8);
		return 0;
	}
	m = unwind_map_of(u->proc, addr);
	if (m && elf_obj_read(m->obj, addr - m->bias, val) == 0)
		return 0;
	pg = page_at(u, addr);
	if (!pg) {
		memo_spoil(u);
		return -UNW_EINVAL;
	}
	memcpy(val, pg->data + (addr & (PAGE - 1)), 8);
	memo_note_word(u, addr, *val);
	return 0;
}

uint64_t unwind_reg(const struct user_regs_struct *r, int reg)
{
	const unsigned long long *v[] = {
		[UNW_X86_64_RAX] = &r->rax, [UNW_X86_64_RDX] = &r->rdx,
		[UNW_X86_64_RCX] = &r->rcx, [UNW_X86_64_RBX] = &r->rbx,
		[UNW_X86_64_RSI] = &r->rsi, [UNW_X86_64_RDI] = &r->rdi,
		[UNW_X86_64_RBP] = &r->rbp, [UNW_X86_64_RSP] = &r->rsp,
		[UNW_X86_64_R8] = &r->r8,   [UNW_X86_64_R9] = &r->r9,
		[UNW_X86_64_R10] = &r->r10, [UNW_X86_64_R11] = &r->r11,
		[UNW_X86_64_R12] = &r->r12, [UNW_X86_64_R13] = &r->r13,
		[UNW_X86_64_R14] = &r->r14, [UNW_X86_64_R15] = &r->r15,
		[UNW_X86_64_RIP] = &r->rip,
	};

	return reg >= 0 && reg <= UNW_X86_64_RIP ? *v[reg] : 0;
}

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
