// SPDX-License-Identifier: MIT
/*
 * The machine code of the fast path (rewrite.h): a site's 5-byte mov
 * turned into a jmp rel32 to its island, the island's absolute jmp to
 * the trampoline, the trampoline itself (a variant of tramp-tmpl.S, its
 * fields filled in), and the way back for a task a signal stops inside
 * one.  The template's offsets table (rw_tramp_tab[]) is the one
 * description of the trampoline here: what emit patches and what leave
 * knows of each instruction's state both come from it, so the two
 * cannot drift from the code.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/user.h>
#include "tracer/rewrite/rewrite.h"
#include "tracer/rewrite/tramp-tmpl.h"

/* The numbers tramp-tmpl.S was written with. */
_Static_assert(TT_FDS == RW_FDS, "tramp-tmpl.h: RW_FDS");
_Static_assert(TT_HIST_TOP == RW_HIST - 1, "tramp-tmpl.h: RW_HIST");
_Static_assert(TT_ERRNOS == RW_ERRNOS, "tramp-tmpl.h: RW_ERRNOS");
_Static_assert(TT_CELL_SIZE == sizeof(struct rw_cell), "rw_cell's size");
_Static_assert(TT_CELL_CALLS == offsetof(struct rw_cell, calls) &&
	       TT_CELL_ERRORS == offsetof(struct rw_cell, errors) &&
	       TT_CELL_NS == offsetof(struct rw_cell, ns) &&
	       TT_CELL_BYTES == offsetof(struct rw_cell, bytes) &&
	       TT_CELL_REQ == offsetof(struct rw_cell, req) &&
	       TT_CELL_SHORTS == offsetof(struct rw_cell, shorts),
	       "rw_cell's fields");
_Static_assert(RW_R9 - RW_NOREG + 1 == TT_VARIANTS / 4, "rw_reg's values");

#define ERESTARTSYS 512		/* the kernel's, never seen by programs */
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* The row of s's variant (tramp-tmpl.h's order), or NULL if s asks for
 * none the template has: the size is in rdx or there is none. */
static const uint32_t *tramp_row(const struct rw_tramp_spec *s)
{
	if (s->fd_reg < RW_NOREG || s->fd_reg > RW_R9 ||
	    (s->size_reg != RW_NOREG && s->size_reg != RW_RDX))
		return NULL;
	return rw_tramp_tab[((s->fd_reg - RW_NOREG) * 2 + !!s->moves_data) *
			    2 + (s->size_reg == RW_RDX)];
}

/* What the trampoline cannot do: a slot out of the counters, a shift
 * shrd would take modulo 64, a number the mov's imm32 would change. */
static bool tramp_spec_ok(const struct rw_tramp_spec *s)
{
	return s->slot >= 0 && s->slot < RW_SLOTS && s->shift < 64 &&
	       s->nr >= 0;
}

static void put32(uint8_t *buf, uint32_t at, uint32_t v)
{
	memcpy(buf + at, &v, sizeof(v));
}

static void put64(uint8_t *buf, uint32_t at, uint64_t v)
{
	memcpy(buf + at, &v, sizeof(v));
}

/*
 * Copies s's variant and fills its fields.  0 (nothing written) for a
 * spec tramp_spec_ok() refuses or one tramp_row() has no variant for: a
 * length of 0 is no trampoline.
 */
size_t rw_tramp_emit(uint8_t *buf, const struct rw_tramp_spec *s)
{
	const uint32_t *t = tramp_row(s);
	uint64_t cells = sizeof(((struct rw_counters *)0)->cell[0]);
	uint64_t hists = sizeof(((struct rw_counters *)0)->hist[0]);
	uint64_t errs = sizeof(((struct rw_counters *)0)->err[0]);

	if (!t || !tramp_spec_ok(s) || t[TT_LEN] > RW_TRAMP_MAX)
		return 0;
	memcpy(buf, rw_tramp_code + t[TT_START], t[TT_LEN]);
	put32(buf, t[TT_NR], (uint32_t)s->nr);
	if (t[TT_NR_SLOW]) {
		put32(buf, t[TT_NR_SLOW], (uint32_t)s->nr);
		put64(buf, t[TT_K_SLOW], s->site + 5);
	}
	buf[t[TT_SHIFT]] = (uint8_t)s->shift;
	put64(buf, t[TT_K_BACK], s->site + 7);
	put64(buf, t[TT_K_CELL], s->counters + (uint64_t)s->slot * cells);
	put64(buf, t[TT_K_HIST], s->counters +
	      offsetof(struct rw_counters, hist) + (uint64_t)s->slot * hists);
	put64(buf, t[TT_K_ERR], s->counters +
	      offsetof(struct rw_counters, err) + (uint64_t)s->slot * errs);
	put64(buf, t[TT_K_MULT], s->mult);
	return t[TT_LEN];
}

/* jmp *0(%rip) (ff 25, disp32 0), then the target it reads. */
void rw_island_emit(uint8_t *buf, uint64_t target)
{
	static const uint8_t jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 };

	memcpy(buf, jmp, sizeof(jmp));
	put64(buf, sizeof(jmp), target);
}

/* jmp rel32 (e9), relative to the end of its 5 bytes. */
bool rw_site_patch(uint8_t buf[RW_SITE_LEN], uint64_t site, uint64_t island)
{
	int64_t rel = (int64_t)(island - (site + RW_SITE_LEN));

	if (rel < INT32_MIN || rel > INT32_MAX)
		return false;
	buf[0] = 0xe9;
	put32(buf, 1, (uint32_t)(int32_t)rel);
	return true;
}

/*
 * The registers the trampoline pushes (tramp-tmpl.h's order): where
 * user_regs_struct has them, the row field after their push, and after
 * which offset the register is the program's again before the syscall
 * (0: only after it, past anything rw_tramp_leave() undoes).
 */
static const struct tramp_pushed {
	size_t reg;		/* offsetof(struct user_regs_struct, ...) */
	int saved;		/* TT_SAVED_* */
	int back;		/* TT_RDX_BACK, or 0 */
} tramp_pushed[] = {
	[TT_PUSH_RBX] = { offsetof(struct user_regs_struct, rbx),
			  TT_SAVED_RBX, 0 },
	[TT_PUSH_R12] = { offsetof(struct user_regs_struct, r12),
			  TT_SAVED_R12, 0 },
	[TT_PUSH_RDX] = { offsetof(struct user_regs_struct, rdx),
			  TT_SAVED_RDX, TT_RDX_BACK },
};

static unsigned long long *user_reg(struct user_regs_struct *r, size_t off)
{
	return (unsigned long long *)((char *)r + off);
}

/*
 * *r, stopped at offset off (before the syscall returns), made the
 * program's: rsp before the frame, each pushed register from its slot
 * while the live one is the trampoline's.  Between its push and its
 * restore the slot holds the program's value and the live register may
 * not; outside that window the live register is the program's.
 */
static int tramp_unframe(const uint32_t *t, uint64_t off,
			 struct user_regs_struct *r,
			 int (*read)(void *, uint64_t, void *, size_t),
			 void *ctx)
{
	uint64_t rsp;
	size_t k, pushed = 0;

	if (off < t[TT_FRAMED])
		return 0;
	for (k = 0; k < sizeof(tramp_pushed) / sizeof(*tramp_pushed); k++)
		pushed += off >= t[tramp_pushed[k].saved];
	rsp = r->rsp + 8 * pushed + TT_REDZONE;
	for (k = 0; k < pushed; k++) {
		const struct tramp_pushed *p = &tramp_pushed[k];
		uint64_t v;
		int err;

		if (p->back && off >= t[p->back])
			continue;
		err = read(ctx, rsp - TT_REDZONE - 8 * (k + 1), &v, sizeof(v));
		if (err)
			return err;
		*user_reg(r, p->reg) = v;
	}
	r->rsp = rsp;
	return 0;
}

static bool is_restart(unsigned long long rax)
{
	long long e = -(long long)rax;

	return e == ERESTARTSYS || e == ERESTARTNOINTR ||
	       e == ERESTARTNOHAND || e == ERESTART_RESTARTBLOCK;
}

/* ns since t0 as the trampoline computes them; 0 if now is earlier, as
 * it may be on another CPU's clock. */
static uint64_t tramp_ns(const struct rw_tramp_spec *s, uint64_t t0,
			 uint64_t now)
{
	unsigned __int128 p;

	if (now < t0)
		return 0;
	p = (unsigned __int128)(now - t0) * s->mult;
	return (uint64_t)(p >> s->shift);
}

/*
 * rw_tramp_leave() (rewrite.h), by offset: before the frame nothing is
 * to undo; up to the syscall the frame is undone (RW_AT_BEFORE); just
 * after it with rax -ERESTART* the call was interrupted (RW_AT_SYSCALL:
 * the same unframing, at site + 7 with rcx as the original syscall
 * leaves it, its return address); anywhere else after it the
 * trampoline's own way out is the one to take (RW_AT_AFTER, *regs
 * untouched).  An ip outside the trampoline, or a stack iotrace cannot
 * read, also gives RW_AT_AFTER with *regs untouched: nothing that would
 * change what the program sees is done on a guess.  Nothing is counted
 * before the syscall ends, so *uncount is always false.
 */
enum rw_at rw_tramp_leave(const struct rw_tramp_spec *s, uint64_t ip,
			  struct user_regs_struct *regs, uint64_t now_ticks,
			  int (*read)(void *ctx, uint64_t addr, void *buf,
				      size_t n),
			  void *ctx, bool *uncount, uint64_t *elapsed_ns)
{
	const uint32_t *t = tramp_row(s);
	uint64_t off = ip - s->at;
	struct user_regs_struct r = *regs;
	bool in_call;

	*uncount = false;
	*elapsed_ns = 0;
	if (!t || ip < s->at || off >= t[TT_LEN] || off > t[TT_SYSRET])
		return RW_AT_AFTER;
	in_call = off == t[TT_SYSRET];
	if (in_call && !is_restart(regs->rax))
		return RW_AT_AFTER;
	if (tramp_unframe(t, off, &r, read, ctx))
		return RW_AT_AFTER;
	if (in_call) {
		*elapsed_ns = tramp_ns(s, regs->r12, now_ticks);
		r.rip = s->site + 7;
		r.rcx = s->site + 7;
		*regs = r;
		return RW_AT_SYSCALL;
	}
	r.rip = s->site;
	*regs = r;
	return RW_AT_BEFORE;
}
