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
#include <stddef.h>
#include <string.h>
#include "tracer/rewrite/rewrite.h"
#include "tracer/rewrite/tramp-tmpl.h"

/* The numbers tramp-tmpl.S was written with. */
_Static_assert(TT_FDS == RW_FDS, "tramp-tmpl.h: RW_FDS");
_Static_assert(TT_HIST_TOP == RW_HIST - 1, "tramp-tmpl.h: RW_HIST");
_Static_assert(TT_CELL_SIZE == sizeof(struct rw_cell), "rw_cell's size");
_Static_assert(TT_CELL_CALLS == offsetof(struct rw_cell, calls) &&
	       TT_CELL_DONE == offsetof(struct rw_cell, done) &&
	       TT_CELL_ERRORS == offsetof(struct rw_cell, errors) &&
	       TT_CELL_NS == offsetof(struct rw_cell, ns) &&
	       TT_CELL_BYTES == offsetof(struct rw_cell, bytes),
	       "rw_cell's fields");
_Static_assert(RW_R9 - RW_NOREG + 1 == TT_VARIANTS / 2, "rw_reg's values");

/* The row of s's variant, or NULL if s asks for none the template has. */
static const uint32_t *tramp_row(const struct rw_tramp_spec *s)
{
	if (s->fd_reg < RW_NOREG || s->fd_reg > RW_R9)
		return NULL;
	return rw_tramp_tab[(s->fd_reg - RW_NOREG) * 2 + !!s->moves_data];
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
 * spec tramp_spec_ok() refuses or a fd_reg outside enum rw_reg: a
 * length of 0 is no trampoline.
 */
size_t rw_tramp_emit(uint8_t *buf, const struct rw_tramp_spec *s)
{
	const uint32_t *t = tramp_row(s);
	uint64_t cells = sizeof(((struct rw_counters *)0)->cell[0]);
	uint64_t hists = sizeof(((struct rw_counters *)0)->hist[0]);

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
