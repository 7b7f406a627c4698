// SPDX-License-Identifier: MIT
/*
 * The machine code of the fast path (rewrite.h): a site's first bytes
 * turned into a jmp rel32 to its island, the island's absolute jmp to
 * the trampoline and its restart stub, the trampoline itself (a variant
 * of tramp-tmpl.S, its fields filled in), and the way out for a task a
 * signal stops inside one, or that patching finds inside a site.  The
 * template's offsets table (rw_tramp_tab[]) is the one description of
 * the trampoline here: what emit patches and what leave knows of each
 * instruction's state both come from it, so the two cannot drift from
 * the code.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/user.h>
#include <Zydis/Zydis.h>
#include "tracer/rewrite/rewrite.h"
#include "tracer/rewrite/tramp-tmpl.h"

/* The numbers tramp-tmpl.S was written with. */
_Static_assert(TT_FDS == RW_FDS, "tramp-tmpl.h: RW_FDS");
_Static_assert(TT_HIST_TOP == RW_HIST - 1, "tramp-tmpl.h: RW_HIST");
_Static_assert(TT_ERRNOS == RW_ERRNOS, "tramp-tmpl.h: RW_ERRNOS");
_Static_assert(TT_POST_MAX == RW_POST_MAX, "tramp-tmpl.h: RW_POST_MAX");
_Static_assert(TT_EINVAL == EINVAL, "tramp-tmpl.h: EINVAL");
_Static_assert(TT_NMIN == offsetof(struct rw_counters, nmin_ns) -
			  offsetof(struct rw_counters, max_ns),
	       "tramp-tmpl.h: nmin_ns from max_ns");
_Static_assert(TT_CELL_SIZE == sizeof(struct rw_cell), "rw_cell's size");
_Static_assert(TT_CELL_CALLS == offsetof(struct rw_cell, calls) &&
	       TT_CELL_ERRORS == offsetof(struct rw_cell, errors) &&
	       TT_CELL_NS == offsetof(struct rw_cell, ns) &&
	       TT_CELL_BYTES == offsetof(struct rw_cell, bytes) &&
	       TT_CELL_REQ == offsetof(struct rw_cell, req) &&
	       TT_CELL_SHORTS == offsetof(struct rw_cell, shorts) &&
	       TT_CELL_SIZE_MAX == offsetof(struct rw_cell, size_max) &&
	       TT_CELL_SIZE_MAX_CALLS ==
	       offsetof(struct rw_cell, size_max_calls) &&
	       TT_CELL_EINVAL == offsetof(struct rw_cell, einval) &&
	       TT_CELL_FD2 == offsetof(struct rw_cell, fd2),
	       "rw_cell's fields");
/* cmpxchg16b faults on a pair that is not 16-byte aligned: the counters
 * are page-aligned, so the cells' size and the pair's offset must be. */
_Static_assert(TT_CELL_SIZE % 16 == 0 && TT_CELL_SIZE_MAX % 16 == 0 &&
	       offsetof(struct rw_counters, cell) % 16 == 0,
	       "size_max's pair 16-byte aligned");
_Static_assert(TT_PENDING == offsetof(struct rw_counters, sample_pending) -
			     offsetof(struct rw_counters, sample_left),
	       "tramp-tmpl.h: sample_pending from sample_left");
_Static_assert(RW_R9 - RW_NOREG + 1 == TT_PAIRS / 8, "rw_reg's values");

#define ERESTARTSYS 512		/* the kernel's, never seen by programs */
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* The two-fd calls' registers, in the template's order (TT_PAIRS). */
static const struct {
	enum rw_reg fd, fd2, size;
} tramp_pairs[] = {
	{ RW_RDI, RW_RDX, RW_R8 },	/* splice, copy_file_range */
	{ RW_RSI, RW_RDI, RW_R10 },	/* sendfile */
};
_Static_assert(TT_PAIRS + 2 * sizeof(tramp_pairs) / sizeof(*tramp_pairs) ==
	       TT_FDOPS, "tramp-tmpl.S's two-fd variants");
_Static_assert(TT_FDOP_NONE == RW_FDOP_NONE && TT_FDOP_FREES == RW_FDOP_FREES &&
	       TT_FDOP_CHANGES == RW_FDOP_CHANGES &&
	       TT_FDOP_MAPS == RW_FDOP_MAPS && TT_PROT_EXEC == PROT_EXEC &&
	       TT_FDOPS + 2 * RW_FDOP_MAPS == TT_VARIANTS,
	       "tramp-tmpl.S's fd table variants");

/* The variant's row for these registers without -k's samples, or -1. */
static int shape_row(enum rw_reg fd, bool two_fd, enum rw_reg fd2,
		     enum rw_reg size, bool moves, enum rw_fdop fdop)
{
	size_t i;

	if (fdop != RW_FDOP_NONE)
		return fdop <= RW_FDOP_MAPS && fd == RW_NOREG && !two_fd &&
		       size == RW_NOREG && !moves ?
		       TT_FDOPS + 2 * ((int)fdop - 1) : -1;
	if (!two_fd) {
		if (fd < RW_NOREG || fd > RW_R9 ||
		    (size != RW_NOREG && size != RW_RDX))
			return -1;
		return (((fd - RW_NOREG) * 2 + moves) * 2 +
			(size == RW_RDX)) * 2;
	}
	for (i = 0; i < sizeof(tramp_pairs) / sizeof(*tramp_pairs); i++)
		if (moves && fd == tramp_pairs[i].fd &&
		    fd2 == tramp_pairs[i].fd2 && size == tramp_pairs[i].size)
			return TT_PAIRS + 2 * (int)i;
	return -1;
}

bool rw_tramp_shape_ok(enum rw_reg fd, bool two_fd, enum rw_reg fd2,
		       enum rw_reg size, bool moves_data, enum rw_fdop fdop)
{
	return shape_row(fd, two_fd, fd2, size, moves_data, fdop) >= 0;
}

/* The row of s's variant (tramp-tmpl.h's order), or NULL if s asks for
 * none the template has (rw_tramp_shape_ok()). */
static const uint32_t *tramp_row(const struct rw_tramp_spec *s)
{
	int row = shape_row(s->fd_reg, s->two_fd, s->fd2_reg, s->size_reg,
			    s->moves_data, s->fdop);

	return row < 0 ? NULL : rw_tramp_tab[row + (s->sample > 1)];
}

/* Where the syscall is, from the site: before the post, back at resume. */
static bool site_layout_ok(unsigned resume, unsigned post_len)
{
	return post_len <= RW_POST_MAX && resume >= post_len + 2;
}

/*
 * What the trampoline cannot do: a slot out of the counters, a shift
 * shrd would take modulo 64, a number the mov's imm32 would change, a
 * post it may not run or a resume that leaves no room for the syscall.
 */
static bool tramp_spec_ok(const struct rw_tramp_spec *s)
{
	return s->slot >= 0 && s->slot < RW_SLOTS && s->shift < 64 &&
	       s->nr >= 0 && site_layout_ok(s->resume, s->post_len) &&
	       rw_post_ok(s->post, s->post_len) &&
	       rw_pre_ok(s->pre, s->pre_len) &&
	       (!s->pre_len || (!s->post_len &&
				s->resume == RW_SITE_LEN + s->pre_len + 2));
}

static bool post_decoder(ZydisDecoder *dec)
{
	return ZYAN_SUCCESS(ZydisDecoderInit(dec, ZYDIS_MACHINE_MODE_LONG_64,
					     ZYDIS_STACK_WIDTH_64));
}

/*
 * The length of the instruction at post, if a trampoline may run it,
 * else 0: arithmetic or logic (cmp, test, add...), whose meaning is the
 * same at any address, and no operand relative to rip.  Anything else
 * (a branch, a syscall, a stack or system instruction) is refused: it
 * would run in the pool, where the filter lets a syscall through.
 */
static size_t post_insn(const ZydisDecoder *dec, const uint8_t *post,
			size_t n)
{
	ZydisDecodedInstruction in;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(dec, NULL, post, n,
							&in)))
		return 0;
	if (in.meta.category != ZYDIS_CATEGORY_BINARY &&
	    in.meta.category != ZYDIS_CATEGORY_LOGICAL)
		return 0;
	/* a rip-relative operand, or a relative immediate */
	return in.attributes & ZYDIS_ATTRIB_IS_RELATIVE ? 0 : in.length;
}

/* Whether the n bytes at b are whole instructions that insn() takes,
   n at most max. */
static bool all_taken(const uint8_t *b, size_t n, size_t max,
		      size_t (*insn)(const ZydisDecoder *, const uint8_t *,
				     size_t))
{
	ZydisDecoder dec;
	size_t off = 0, len;

	if (n > max || (n && !post_decoder(&dec)))
		return false;
	for (; off < n; off += len)
		if (!(len = insn(&dec, b + off, n - off)))
			return false;
	return true;
}

bool rw_post_ok(const uint8_t *post, size_t n)
{
	return all_taken(post, n, RW_POST_MAX, post_insn);
}

/* The length of the load at pre if rw_pre_ok() takes it, else 0. */
static size_t pre_insn(const ZydisDecoder *dec, const uint8_t *pre, size_t n)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisRegister to;

	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, pre, n, &in, op)) ||
	    in.mnemonic != ZYDIS_MNEMONIC_MOV ||
	    in.operand_count_visible != 2 ||
	    (in.attributes & (ZYDIS_ATTRIB_HAS_SEGMENT | ZYDIS_ATTRIB_HAS_LOCK |
			      ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPNE |
			      ZYDIS_ATTRIB_IS_RELATIVE)) ||
	    op[0].type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    (op[0].size != 32 && op[0].size != 64) ||
	    op[1].type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    op[1].mem.base != ZYDIS_REGISTER_RSP ||
	    op[1].mem.index != ZYDIS_REGISTER_NONE)
		return 0;
	to = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
					      op[0].reg.value);
	if (ZydisRegisterGetClass(to) != ZYDIS_REGCLASS_GPR64 ||
	    to == ZYDIS_REGISTER_RAX || to == ZYDIS_REGISTER_RSP)
		return 0;
	return in.length;
}

bool rw_pre_ok(const uint8_t *pre, size_t n)
{
	return all_taken(pre, n, RW_PRE_MAX, pre_insn);
}

static void put32(uint8_t *buf, uint32_t at, uint32_t v)
{
	memcpy(buf + at, &v, sizeof(v));
}

static void put64(uint8_t *buf, uint32_t at, uint64_t v)
{
	memcpy(buf + at, &v, sizeof(v));
}

/* The counters' address of slot's row in the array at off of rows of
 * size bytes. */
static uint64_t row(const struct rw_tramp_spec *s, size_t off, size_t size)
{
	return s->counters + off + (uint64_t)s->slot * size;
}

/*
 * Copies s's variant and fills its fields.  0 (nothing written) for a
 * spec tramp_spec_ok() refuses or one tramp_row() has no variant for: a
 * length of 0 is no trampoline.
 */
size_t rw_tramp_emit(uint8_t *out, const struct rw_tramp_spec *s)
{
	const uint32_t *t = tramp_row(s);
	const struct rw_counters *c = NULL;
	uint8_t *buf = out + s->pre_len;	/* the template's code */

	if (!t || !tramp_spec_ok(s) || s->pre_len + t[TT_LEN] > RW_TRAMP_MAX)
		return 0;
	memcpy(out, s->pre, s->pre_len);
	memcpy(buf, rw_tramp_code + t[TT_START], t[TT_LEN]);
	put32(buf, t[TT_NR], (uint32_t)s->nr);
	if (t[TT_NR_SLOW])
		put32(buf, t[TT_NR_SLOW], (uint32_t)s->nr);
	if (t[TT_K_SLOW])
		put64(buf, t[TT_K_SLOW], s->stub);
	if (t[TT_NR_SAMP]) {
		put32(buf, t[TT_NR_SAMP], (uint32_t)s->nr);
		put64(buf, t[TT_K_SAMP],
		      row(s, offsetof(struct rw_counters, sample_left),
			  sizeof(c->sample_left[0])));
		put64(buf, t[TT_K_PERIOD], s->sample);
	}
	buf[t[TT_SHIFT]] = (uint8_t)s->shift;
	memcpy(buf + t[TT_POST], s->post, s->post_len);
	put64(buf, t[TT_K_BACK], s->site + s->resume);
	put64(buf, t[TT_K_CELL], row(s, offsetof(struct rw_counters, cell),
				     sizeof(c->cell[0])));
	put64(buf, t[TT_K_HIST], row(s, offsetof(struct rw_counters, hist),
				     sizeof(c->hist[0])));
	put64(buf, t[TT_K_ERR], row(s, offsetof(struct rw_counters, err),
				    sizeof(c->err[0])));
	put64(buf, t[TT_K_EXT], row(s, offsetof(struct rw_counters, max_ns),
				    sizeof(c->max_ns[0])));
	put64(buf, t[TT_K_MULT], s->mult);
	if (t[TT_K_DIRTY])
		put64(buf, t[TT_K_DIRTY],
		      s->counters + offsetof(struct rw_counters, dirty));
	if (t[TT_K_FDCH])
		put64(buf, t[TT_K_FDCH],
		      s->counters + offsetof(struct rw_counters, fd_changes));
	return s->pre_len + t[TT_LEN];
}

/* The index of the first of rw_tramp_locks[] at off or after it. */
static size_t first_lock_from(size_t off)
{
	size_t lo = 0, hi = rw_tramp_nlocks, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (rw_tramp_locks[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The lock prefixes of variant t's code, its first end bytes: the slice
 * of rw_tramp_locks[] (offsets from rw_tramp_code, sorted, as in the code:
 * the assembler lists them, tramp-tmpl.S's RW_LOCK) that falls there, n
 * of them.  An emitted trampoline keeps them at the same offsets (what
 * emit fills are immediates and constants; the post, nops in the
 * template, is the program's own instruction and keeps its prefixes).
 */
static const uint32_t *variant_locks(const uint32_t *t, size_t end, size_t *n)
{
	size_t i = first_lock_from(t[TT_START]);

	*n = first_lock_from(t[TT_START] + end) - i;
	return rw_tramp_locks + i;
}

/* Whether byte off of variant t's code is one emit fills (an immediate,
 * the post), which may differ from the template's. */
static bool filled(const uint32_t *t, size_t off)
{
	static const int imm32[] = { TT_NR, TT_NR_SLOW, TT_NR_SAMP };
	size_t i;

	for (i = 0; i < sizeof(imm32) / sizeof(*imm32); i++)
		if (t[imm32[i]] && off >= t[imm32[i]] &&
		    off < t[imm32[i]] + 4)
			return true;
	return off == t[TT_SHIFT] ||
	       (off >= t[TT_POST] && off < t[TT_POST] + TT_POST_MAX);
}

/*
 * The size pair's update, `lock cmpxchg16b size_max(%r11); jne back`,
 * and what the twin has in its 8 bytes: the pair stored, size (rbx) then
 * its calls (rcx).  With one thread the pair read before is the pair
 * the cmpxchg16b would find, so it would always succeed; unlocked, it
 * still costs a few ns a call, and every call of a size asked before
 * makes it.
 */
static const uint8_t size_cas[7] = { 0xf0, 0x49, 0x0f, 0xc7, 0x4b,
				     TT_CELL_SIZE_MAX, 0x75 };
static const uint8_t size_stores[8] = { 0x49, 0x89, 0x5b, TT_CELL_SIZE_MAX,
					0x49, 0x89, 0x4b,
					TT_CELL_SIZE_MAX_CALLS };

/*
 * What a lock prefix becomes: ds, a segment override 64-bit mode
 * ignores, rather than a nop, so the instruction stays one and the twin
 * runs as many as the trampoline, one fewer per prefix than with nops.
 */
#define TWIN_PREFIX 0x3e

/*
 * The twin of a trampoline rw_tramp_emit() wrote in buf (len bytes),
 * for a process with one thread: each lock prefix of its code (before
 * its constants) becomes a ds prefix, and the size pair's cmpxchg16b two
 * stores of the same length, so every offset, and what rw_tramp_leave()
 * knows of each, stays.  The number of prefixes taken out, or 0 (buf as
 * it was) when its code is not what emit wrote for s.
 */
size_t rw_tramp_unlock(uint8_t *out, size_t len,
		       const struct rw_tramp_spec *s)
{
	const uint32_t *t = tramp_row(s);
	uint8_t *buf = out + s->pre_len;	/* the template's code */
	const uint8_t *tmpl;
	const uint32_t *at;
	size_t n, i, end;

	if (!t || len < s->pre_len + t[TT_LEN] ||
	    memcmp(out, s->pre, s->pre_len))
		return 0;
	/* Only the variant's own code, as emit wrote it, is unlocked. */
	tmpl = rw_tramp_code + t[TT_START];
	end = t[TT_K_SLOW] ? t[TT_K_SLOW] : t[TT_K_BACK];
	at = variant_locks(t, end, &n);
	for (i = 0; i < end; i++)
		if (buf[i] != tmpl[i] && !filled(t, i))
			return 0;
	if (t[TT_SIZECAS] && (t[TT_SIZECAS] + sizeof(size_stores) > end ||
			      memcmp(buf + t[TT_SIZECAS], size_cas,
				     sizeof(size_cas))))
		return 0;
	for (i = 0; i < n; i++)
		buf[at[i] - t[TT_START]] = TWIN_PREFIX;
	if (t[TT_SIZECAS])
		memcpy(buf + t[TT_SIZECAS], size_stores, sizeof(size_stores));
	return n;
}

/* The rel32 of a jmp whose 5 bytes end at from, to to; false if out of
 * reach. */
static bool rel32(uint64_t from, uint64_t to, int32_t *rel)
{
	int64_t d = (int64_t)(to - from);

	if (d < INT32_MIN || d > INT32_MAX)
		return false;
	*rel = (int32_t)d;
	return true;
}

/*
 * jmp *0(%rip) (ff 25, disp32 0), then the target it reads; the stub:
 * syscall, the post, jmp rel32 (e9) back to the site; int3 (cc) to the
 * end.
 */
bool rw_island_emit(uint8_t buf[RW_ISLAND_LEN], uint64_t island,
		    const struct rw_tramp_spec *s)
{
	static const uint8_t jmp[6] = { 0xff, 0x25, 0, 0, 0, 0 };
	uint32_t back = RW_ISLAND_STUB + 2 + s->post_len;
	int32_t rel;

	_Static_assert(RW_ISLAND_STUB == sizeof(jmp) + 8 &&
		       RW_ISLAND_STUB + 2 + RW_POST_MAX + 5 <= RW_ISLAND_LEN,
		       "the island's layout");
	if (s->stub != island + RW_ISLAND_STUB ||
	    !site_layout_ok(s->resume, s->post_len) ||
	    !rw_post_ok(s->post, s->post_len) ||
	    !rel32(island + back + 5, s->site + s->resume, &rel))
		return false;
	memset(buf, 0xcc, RW_ISLAND_LEN);
	memcpy(buf, jmp, sizeof(jmp));
	put64(buf, sizeof(jmp), s->at);
	buf[RW_ISLAND_STUB] = 0x0f;
	buf[RW_ISLAND_STUB + 1] = 0x05;
	memcpy(buf + RW_ISLAND_STUB + 2, s->post, s->post_len);
	buf[back] = 0xe9;
	put32(buf, back + 1, (uint32_t)rel);
	return true;
}

/* jmp rel32 (e9), relative to the end of its 5 bytes; int3 (cc) after. */
bool rw_site_patch(uint8_t *buf, uint64_t site, unsigned len,
		   uint64_t island)
{
	int32_t rel;

	if (len < RW_SITE_LEN || len > RW_SITE_MAX ||
	    !rel32(site + RW_SITE_LEN, island, &rel))
		return false;
	buf[0] = 0xe9;
	put32(buf, 1, (uint32_t)rel);
	memset(buf + RW_SITE_LEN, 0xcc, len - RW_SITE_LEN);
	return true;
}

/*
 * rw_site_move_ip() (rewrite.h): the site's instructions past its first
 * byte that the rewrite overwrites each have their copy in the stub:
 * the syscall at stub, the post's at stub + 2 on.  The mov shape's
 * syscall (past the rewritten bytes) stays where it is.
 */
uint64_t rw_site_move_ip(const struct rw_site *st, uint64_t site,
			 uint64_t stub, uint64_t ip)
{
	uint64_t sys = site + st->resume - st->post_len - 2, at;
	ZydisDecoder dec;
	size_t len;

	if (ip <= site || ip >= site + st->len)
		return ip;
	if (!site_layout_ok(st->resume, st->post_len) || ip < sys)
		return 0;
	if (ip == sys)
		return stub;
	if (!post_decoder(&dec))
		return 0;
	for (at = sys + 2; at < site + st->resume; at += len) {
		if (ip == at)
			return stub + 2 + (at - sys - 2);
		len = post_insn(&dec, st->post + (at - sys - 2),
				site + st->resume - at);
		if (!len)
			return 0;
	}
	return 0;
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
 * the same unframing, just after the stub's syscall with rcx as that
 * syscall leaves it, its return address); anywhere else after it the
 * trampoline's own way out is the one to take (RW_AT_AFTER, *regs
 * untouched).  An ip outside the trampoline, or a stack iotrace cannot
 * read, also gives RW_AT_AFTER with *regs untouched: nothing that would
 * change what the program sees is done on a guess.  Nothing is counted
 * before the syscall ends, so *uncount is always false.
 */
uint64_t rw_tramp_restart_ip(const struct rw_tramp_spec *s)
{
	return s->post_len ? s->stub + 2 : s->site + s->resume;
}

enum rw_at rw_tramp_leave(const struct rw_tramp_spec *s, uint64_t ip,
			  struct user_regs_struct *regs, uint64_t now_ticks,
			  int (*read)(void *ctx, uint64_t addr, void *buf,
				      size_t n),
			  void *ctx, bool *uncount, uint64_t *elapsed_ns)
{
	const uint32_t *t = tramp_row(s);
	uint64_t off = ip - s->at - s->pre_len;
	struct user_regs_struct r = *regs;
	bool in_call;

	*uncount = false;
	*elapsed_ns = 0;
	/* In the copied loads: the site's own loads run again from it. */
	if (t && ip >= s->at && ip < s->at + s->pre_len) {
		regs->rip = s->site;
		return RW_AT_BEFORE;
	}
	if (!t || ip < s->at + s->pre_len || off >= t[TT_LEN] ||
	    off > t[TT_SYSRET])
		return RW_AT_AFTER;
	in_call = off == t[TT_SYSRET];
	if (in_call && !is_restart(regs->rax))
		return RW_AT_AFTER;
	if (tramp_unframe(t, off, &r, read, ctx))
		return RW_AT_AFTER;
	if (in_call) {
		*elapsed_ns = tramp_ns(s, regs->r12, now_ticks);
		r.rip = rw_tramp_restart_ip(s);
		r.rcx = r.rip;
		*regs = r;
		return RW_AT_SYSCALL;
	}
	r.rip = s->site;
	*regs = r;
	return RW_AT_BEFORE;
}
