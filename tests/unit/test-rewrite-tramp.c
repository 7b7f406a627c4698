// SPDX-License-Identifier: MIT
/*
 * Unit tests of the fast path's machine code (tracer/rewrite/tramp.c),
 * on the fake sites of rewrite-fakes.h, of both shapes: each emitted
 * variant keeps the template's rules (decoded here: its writes, and the
 * flags after the post), posts it may not run are refused, islands,
 * their stubs and site patches are the bytes they must be, and what the
 * program sees through a trampoline is what the plain syscall gives it,
 * to the register, the flags and the red zone.  A traced child then
 * stops inside a trampoline, in its syscall or before it, and
 * rw_tramp_leave() must take it back to the site, or to the stub's
 * syscall, as if it had never left, with nothing counted; a child
 * blocked in a site as it is patched is moved by rw_site_move_ip().
 * What the counters see is test-rewrite-count.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <x86intrin.h>
#include <Zydis/Zydis.h>
#include "tracer/rewrite/rewrite.h"
#include "tests/unit/rewrite-fakes.h"
#include "tests/unit/rewrite-pairs.h"
#include "tests/unit/tap.h"

/* --- what the generator emits --- */

/*
 * Where rbx and r11 point, as the decode follows them: the counters'
 * cells (a constant emit set to a cell row of C, then the fd's index
 * added: the fd check bounds it), the fds' dirty marks, another row of
 * C (histogram, errnos, extremes, fd_changes), or anything else.
 */
enum base { B_OTHER, B_CELL, B_DIRTY, B_ROW };

struct bases {
	enum base rax, rcx, rbx, r11;
};

static enum base *base_of(struct bases *b, ZydisRegister r)
{
	r = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	return r == ZYDIS_REGISTER_RAX ? &b->rax :
	       r == ZYDIS_REGISTER_RCX ? &b->rcx :
	       r == ZYDIS_REGISTER_RBX ? &b->rbx :
	       r == ZYDIS_REGISTER_R11 ? &b->r11 : NULL;
}

/* What a rip-relative qword the trampoline loads points at. */
static enum base constant_base(uint64_t v)
{
	uint64_t c = (uint64_t)C, cells = sizeof(C->cell);

	if (v >= c && v < c + cells)
		return B_CELL;
	if (v == (uint64_t)C->dirty)
		return B_DIRTY;
	return v >= c + cells && v < c + sizeof(*C) ? B_ROW : B_OTHER;
}

/* rbx or r11 written by in: what it points at afterwards. */
static enum base written_base(const ZydisDecodedInstruction *in,
			      const ZydisDecodedOperand *op,
			      const struct bases *b, const uint8_t *code,
			      size_t off)
{
	uint64_t v;

	if (in->mnemonic == ZYDIS_MNEMONIC_MOV &&
	    op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    op[1].mem.base == ZYDIS_REGISTER_RIP) {
		memcpy(&v, code + off + in->length + op[1].mem.disp.value, 8);
		return constant_base(v);
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_MOV &&
	    op[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
	    op[1].reg.value == ZYDIS_REGISTER_RBX)
		return b->rbx;
	if (in->mnemonic == ZYDIS_MNEMONIC_ADD &&
	    ((op[0].reg.value == ZYDIS_REGISTER_RBX && b->rbx == B_CELL) ||
	     (op[0].reg.value == ZYDIS_REGISTER_R11 && b->r11 == B_CELL)))
		return B_CELL;		/* + fd * sizeof(struct rw_cell) */
	/* the fd (the fd check bounds it) + the dirty marks' constant */
	if (in->mnemonic == ZYDIS_MNEMONIC_ADD &&
	    op[1].type == ZYDIS_OPERAND_TYPE_MEMORY &&
	    op[1].mem.base == ZYDIS_REGISTER_RIP) {
		memcpy(&v, code + off + in->length + op[1].mem.disp.value, 8);
		return constant_base(v) == B_DIRTY ? B_DIRTY : B_OTHER;
	}
	return B_OTHER;
}

static const char *operand_breaks(const ZydisDecodedInstruction *in,
				  const ZydisDecodedOperand *op,
				  const struct bases *b)
{
	enum base base;

	if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		switch (ZydisRegisterGetClass(op->reg.value)) {
		case ZYDIS_REGCLASS_X87: case ZYDIS_REGCLASS_MMX:
		case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM:
		case ZYDIS_REGCLASS_ZMM: case ZYDIS_REGCLASS_TMM:
		case ZYDIS_REGCLASS_MASK:
			return "a vector register";
		default:
			return NULL;
		}
	}
	if (op->type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) ||
	    in->mnemonic == ZYDIS_MNEMONIC_PUSH)
		return NULL;
	/* A dirty mark: a byte stored whole, which a lock could not make
	   more atomic, at the fd's (the fd check bounds it). */
	if ((op->mem.base == ZYDIS_REGISTER_RAX && b->rax == B_DIRTY) ||
	    (op->mem.base == ZYDIS_REGISTER_RCX && b->rcx == B_DIRTY))
		return in->mnemonic == ZYDIS_MNEMONIC_MOV && op->size == 8 &&
		       op->mem.disp.value == 0 &&
		       op->mem.index == ZYDIS_REGISTER_NONE ?
		       NULL : "a write to the dirty marks but a byte's store";
	if (!(in->attributes & ZYDIS_ATTRIB_HAS_LOCK))
		return "a memory write with no lock prefix";
	base = op->mem.base == ZYDIS_REGISTER_RBX ? b->rbx :
	       op->mem.base == ZYDIS_REGISTER_R11 ? b->r11 : B_OTHER;
	if (base == B_OTHER)
		return "a locked write off the counters";
	if (base == B_CELL && (op->mem.index != ZYDIS_REGISTER_NONE ||
			       op->mem.disp.value < 0 ||
			       (uint64_t)op->mem.disp.value + op->size / 8 >
			       sizeof(struct rw_cell)))
		return "a write off its cell";
	return NULL;
}

/*
 * The rules of tramp-tmpl.S's header that the code shows by itself, or
 * NULL: no call or ret; no vector register; every memory write but a
 * push and a dirty mark's byte a lock-prefixed one into the counters
 * (through rbx or r11 loaded
 * from a constant emit set to an address in C, or copied from one: a
 * cell, within its fields, or a row or extreme of the slot; cmpxchg16b
 * included).  Decoded up to the first constant its rip-relative operands
 * read, whose offset is *end_at.
 */
static const char *tramp_breaks_rules(const uint8_t *code, size_t len,
				      size_t *end_at)
{
	ZydisDecodedOperand op[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	struct bases b = { B_OTHER, B_OTHER, B_OTHER, B_OTHER };
	size_t off = 0, end = len;
	const char *why;
	enum base *w;
	int i;

	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	while (off < end) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, code + off,
							 len - off, &in, op)))
			return "bytes that do not decode";
		if (in.meta.category == ZYDIS_CATEGORY_CALL ||
		    in.meta.category == ZYDIS_CATEGORY_RET)
			return "a call or ret";
		for (i = 0; i < in.operand_count; i++) {
			size_t to = off + in.length +
				    (size_t)op[i].mem.disp.value;

			if ((why = operand_breaks(&in, &op[i], &b)))
				return why;
			if (op[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
			    op[i].mem.base == ZYDIS_REGISTER_RIP && to < end)
				end = to;
		}
		for (i = 0; i < in.operand_count; i++)
			if (op[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			    (op[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) &&
			    (w = base_of(&b, op[i].reg.value)))
				*w = written_base(&in, op, &b, code, off);
		off += in.length;
	}
	*end_at = end;
	return off == end ? NULL : "code running into its constants";
}

/*
 * The flags rule: the post's bytes are in the code, and after them only
 * instructions that write no flag (nops), then the final jmp.  NULL, or
 * what breaks it.
 */
static const char *post_breaks_rules(const uint8_t *code, size_t end,
				     const struct rw_tramp_spec *s)
{
	ZydisDecodedInstruction in;
	ZydisDecoder dec;
	const uint8_t *p;
	size_t off;

	if (!s->post_len)
		return NULL;
	p = memmem(code, end, s->post, s->post_len);
	if (!p)
		return "no post";
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	for (off = (size_t)(p - code) + s->post_len; off < end;
	     off += in.length) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, NULL,
				code + off, end - off, &in)))
			return "bytes that do not decode";
		if (in.cpu_flags && (in.cpu_flags->modified |
				     in.cpu_flags->set_0 |
				     in.cpu_flags->set_1 |
				     in.cpu_flags->undefined))
			return "an instruction after the post writes flags";
		if (in.meta.category == ZYDIS_CATEGORY_UNCOND_BR)
			return off + in.length == end ? NULL :
			       "code after the final jmp";
		if (in.meta.category != ZYDIS_CATEGORY_NOP)
			return "an instruction after the post";
	}
	return "no jmp after the post";
}

/* s's trampoline: made, within RW_TRAMP_MAX, in the rules; its length. */
static size_t emits_right(const struct rw_tramp_spec *s, const char **why)
{
	uint8_t buf[RW_TRAMP_MAX];
	size_t len, end;

	len = rw_tramp_emit(buf, s);
	*why = len ? tramp_breaks_rules(buf, len, &end) : "none";
	if (!*why)
		*why = post_breaks_rules(buf, end, s);
	return len <= RW_TRAMP_MAX && !*why ? len : 0;
}

static void test_emit_shape(int f)
{
	struct rw_tramp_spec s = spec[f];
	size_t len, shortest = RW_TRAMP_MAX, longest = 0;
	const char *why;
	int r, m;

	for (r = RW_NOREG; r <= RW_R9; r++) {
		for (m = 0; m < 8; m++) {
			s.fd_reg = r;
			s.moves_data = m & 1;
			s.size_reg = m & 2 ? RW_RDX : RW_NOREG;
			s.sample = m & 4 ? 16 : 0;
			len = emits_right(&s, &why);
			longest = len > longest ? len : longest;
			shortest = len && len < shortest ? len : shortest;
			ok(len, "%s shape: fd register %d, moves %d, size %d, "
			   "sampled %d: %zu bytes, in the rules (%s)",
			   fakes[f].xor ? "xor" : "mov", r, m & 1, s.size_reg,
			   !!(m & 4), len, why ? why : "kept");
		}
	}
	for (r = 0; r < PAIR_VARIANTS; r++) {
		pair_variant(&s, r);
		len = emits_right(&s, &why);
		longest = len > longest ? len : longest;
		ok(len, "%s shape: two fds in %d and %d, size %d, sampled "
		   "%d: %zu bytes, in the rules (%s)",
		   fakes[f].xor ? "xor" : "mov", s.fd_reg, s.fd2_reg,
		   s.size_reg, r % 2, len, why ? why : "kept");
	}
	s.fd_reg = RW_RDX;
	ok(!rw_tramp_emit((uint8_t[RW_TRAMP_MAX]){ 0 }, &s), "no two-fd "
	   "trampoline for registers no call has");
	for (r = RW_FDOP_FREES; r <= RW_FDOP_MAPS; r++) {
		for (m = 0; m < 2; m++) {
			s = spec[f];
			s.fd_reg = RW_NOREG;
			s.size_reg = RW_NOREG;
			s.moves_data = false;
			s.fdop = (enum rw_fdop)r;
			s.sample = m ? 16 : 0;
			len = emits_right(&s, &why);
			longest = len > longest ? len : longest;
			ok(len, "%s shape: the fd table's %s, sampled %d: %zu "
			   "bytes, in the rules (%s)",
			   fakes[f].xor ? "xor" : "mov",
			   r == RW_FDOP_FREES ? "close" :
			   r == RW_FDOP_CHANGES ? "fcntl" : "mmap", m, len,
			   why ? why : "kept");
		}
	}
	s.fd_reg = RW_RDI;
	ok(!rw_tramp_emit((uint8_t[RW_TRAMP_MAX]){ 0 }, &s), "no fd table "
	   "trampoline with a cell's fd");
	printf("# trampolines: %zu to %zu bytes\n", shortest, longest);
}

/* Posts emit must refuse, and some it must take. */
static void test_posts(void)
{
	static const struct {
		uint8_t b[RW_POST_MAX + 1];
		unsigned n;
		bool ok;
		const char *what;
	} posts[] = {
		{ { 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff }, 6, true,
		  "cmp $-4096,%rax" },
		{ { 0x48, 0x85, 0xc0 }, 3, true, "test %rax,%rax" },
		{ { 0 }, 0, true, "none" },
		{ { 0x48, 0x3d, 0x00, 0xf0 }, 4, false, "a cut instruction" },
		{ { 0x48, 0x3b, 0x05, 0, 0, 0, 0 }, 7, false,
		  "cmp 0(%rip),%rax" },
		{ { 0xeb, 0x00 }, 2, false, "jmp" },
		{ { 0x0f, 0x05 }, 2, false, "syscall" },
		{ { 0x50 }, 1, false, "push" },
		{ { 0x48, 0x85, 0xc0, 0x48, 0x85, 0xc0, 0x48, 0x85, 0xc0 }, 9,
		  false, "past RW_POST_MAX" },
	};
	uint8_t buf[RW_TRAMP_MAX], isl[RW_ISLAND_LEN];
	struct rw_tramp_spec s;
	size_t i;

	for (i = 0; i < sizeof(posts) / sizeof(*posts); i++) {
		s = spec[F_XREAD];
		memcpy(s.post, posts[i].b, posts[i].n < RW_POST_MAX ?
		       posts[i].n : RW_POST_MAX);
		s.post_len = posts[i].n;
		s.resume = 4 + posts[i].n;
		ok(rw_post_ok(posts[i].b, posts[i].n) == posts[i].ok &&
		   !rw_tramp_emit(buf, &s) == !posts[i].ok &&
		   !rw_island_emit(isl, s.stub - RW_ISLAND_STUB, &s) ==
		   !posts[i].ok, "post %s: %s", posts[i].what,
		   posts[i].ok ? "taken" : "refused");
	}
	s = spec[F_XREAD];
	s.resume = s.post_len + 1;
	ok(!rw_tramp_emit(buf, &s) &&
	   !rw_island_emit(isl, s.stub - RW_ISLAND_STUB, &s),
	   "a resume with no room for the syscall before the post: refused");
}

/*
 * The loads shape's pre: loads from the frame a trampoline may run
 * before the call and again from the site, and what it must refuse.
 */
static void test_pres(void)
{
	static const struct {
		uint8_t b[RW_PRE_MAX + 2];
		unsigned n;
		bool ok;
		const char *what;
	} pres[] = {
		{ { 0x48, 0x8b, 0x74, 0x24, 0x10, 0x8b, 0x7c, 0x24, 0x08 }, 9,
		  true, "glibc's splice: mov 0x10(%rsp),%rsi; mov 0x8(%rsp),%edi" },
		{ { 0x8b, 0x7c, 0x24, 0xf8 }, 4, true, "mov -8(%rsp),%edi" },
		{ { 0 }, 0, true, "none" },
		{ { 0x48, 0x8b, 0x44, 0x24, 0x10 }, 5, false,
		  "mov 0x10(%rsp),%rax: the number's register" },
		{ { 0x48, 0x8b, 0x64, 0x24, 0x10 }, 5, false,
		  "mov 0x10(%rsp),%rsp" },
		{ { 0x48, 0x8b, 0x35, 0, 0, 0, 0 }, 7, false,
		  "mov 0(%rip),%rsi" },
		{ { 0x48, 0x8b, 0x34, 0x0c }, 4, false, "mov (%rsp,%rcx),%rsi" },
		{ { 0x48, 0x8b, 0x37 }, 3, false, "mov (%rdi),%rsi" },
		{ { 0x40, 0x8a, 0x7c, 0x24, 0x08 }, 5, false,
		  "mov 0x8(%rsp),%dil: a byte register" },
		{ { 0x48, 0x89, 0x74, 0x24, 0x10 }, 5, false,
		  "mov %rsi,0x10(%rsp): a store" },
		{ { 0x48, 0x03, 0x74, 0x24, 0x10 }, 5, false,
		  "add 0x10(%rsp),%rsi" },
		{ { 0x64, 0x48, 0x8b, 0x74, 0x24, 0x10 }, 6, false,
		  "mov %fs:0x10(%rsp),%rsi" },
		{ { 0x48, 0x8b, 0x74, 0x24 }, 4, false, "a cut instruction" },
		{ { 0x48, 0x8b, 0x74, 0x24, 0x10, 0x48, 0x8b, 0x74, 0x24, 0x10,
		    0x90 }, 11, false, "past RW_PRE_MAX" },
	};
	uint8_t buf[RW_TRAMP_MAX];
	struct rw_tramp_spec s;
	size_t i;

	for (i = 0; i < sizeof(pres) / sizeof(*pres); i++) {
		s = spec[F_LWRITE];
		memcpy(s.pre, pres[i].b, pres[i].n < RW_PRE_MAX ?
		       pres[i].n : RW_PRE_MAX);
		s.pre_len = pres[i].n;
		s.resume = 7 + pres[i].n;
		ok(rw_pre_ok(pres[i].b, pres[i].n) == pres[i].ok &&
		   !rw_tramp_emit(buf, &s) == !pres[i].ok,
		   "pre %s: %s", pres[i].what, pres[i].ok ? "taken" : "refused");
	}
	s = spec[F_LWRITE];
	s.resume = 7;
	is_int(rw_tramp_emit(buf, &s), 0, "a pre with a resume that skips "
	       "none of it: refused");
	s = spec[F_LWRITE];
	s.post_len = 1;
	s.post[0] = 0x90;
	is_int(rw_tramp_emit(buf, &s), 0, "a pre and a post: refused");
	s = spec[F_LWRITE];
	is_int(rw_tramp_emit(buf, &s), tramp_len[F_LWRITE],
	       "the loads fake's trampoline: its pre, then the template");
	ok(!memcmp(buf, load_bytes, sizeof(load_bytes)),
	   "its first bytes are the pre");
}

/*
 * The loads shape run: the pre's load gives the call its fd (the site
 * stored it below rsp), through the trampoline and through the stub
 * (an fd the cells do not cover); a task stopped in the pre is put back
 * at the site, where the site's own loads run again.
 */
static void test_loads(void)
{
	struct rw_cell *c;
	struct user_regs_struct r;
	uint64_t before, elapsed;
	bool uncount;
	char got[8];
	int p[2];

	if (pipe(p) || dup2(p[1], 300) != 300) {
		ok(0, "a pipe");
		return;
	}
	c = &C->cell[fakes[F_LWRITE].slot][p[1]];
	before = c->calls;
	is_int(entry(F_LWRITE)(p[1], (long)"load", 4, 0, 0, 0), 4,
	       "loads shape: a write of 4 through the trampoline");
	ok(c->calls == before + 1 && c->bytes >= 4, "its cell counts it");
	is_int(entry(F_LWRITE)(300, (long)"more", 4, 0, 0, 0), 4,
	       "loads shape: fd 300 through the stub's syscall");
	ok(read(p[0], got, 8) == 8 && !memcmp(got, "loadmore", 8),
	   "both writes' bytes, in order");
	memset(&r, 0, sizeof(r));
	r.rdi = 7;
	ok(rw_tramp_leave(&spec[F_LWRITE], spec[F_LWRITE].at + 2, &r, 0, NULL,
			  NULL, &uncount, &elapsed) == RW_AT_BEFORE &&
	   r.rip == spec[F_LWRITE].site && r.rdi == 7,
	   "stopped in the pre: back at the site, nothing else changed");
	memset(&r, 0, sizeof(r));
	ok(rw_tramp_leave(&spec[F_LWRITE], spec[F_LWRITE].at +
			  sizeof(load_bytes), &r, 0, NULL, NULL, &uncount,
			  &elapsed) == RW_AT_BEFORE &&
	   r.rip == spec[F_LWRITE].site,
	   "at the template's first byte: back at the site");
	close(300);
	close(p[0]);
	close(p[1]);
}

static void test_emit(void)
{
	static const enum rw_reg no_size[] = { RW_NOREG - 1, RW_RDI, RW_RSI,
		RW_R10, RW_R8, RW_R9, RW_R9 + 1 };
	struct rw_tramp_spec s;
	uint8_t buf[RW_TRAMP_MAX];
	int r, z;

	test_emit_shape(F_WRITE);
	test_emit_shape(F_XREAD);
	s = spec[F_WRITE];
	for (z = 0; z < (int)(sizeof(no_size) / sizeof(*no_size)); z++) {
		s.size_reg = no_size[z];
		is_int(rw_tramp_emit(buf, &s), 0, "no trampoline for a size "
		       "in register %d", no_size[z]);
	}
	s = spec[F_WRITE];
	s.slot = RW_SLOTS;
	is_int(rw_tramp_emit(buf, &s), 0, "no trampoline for slot RW_SLOTS");
	s = spec[F_WRITE];
	s.shift = 64;
	is_int(rw_tramp_emit(buf, &s), 0, "nor for a shift of 64");
	s = spec[F_WRITE];
	s.fd_reg = RW_R9 + 1;
	is_int(rw_tramp_emit(buf, &s), 0, "nor for a register it lacks");
	test_posts();
	test_pres();
	for (r = 0; r < F_N; r++)
		ok(tramp_len[r] > 0, "fake %d: site, island, trampoline", r);
}

static void test_island(void)
{
	static const uint8_t want_mov[RW_ISLAND_LEN] = {
		0xff, 0x25, 0, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33,
		0x22, 0x11, 0x0f, 0x05, 0xe9, 0xb2, 0xff, 0xff, 0xff, 0xcc,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc };
	static const uint8_t want_xor[RW_ISLAND_LEN] = {
		0xff, 0x25, 0, 0, 0, 0, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33,
		0x22, 0x11, 0x0f, 0x05, 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff,
		0xe9, 0xef, 0xef, 0xff, 0xff, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc };
	uint8_t isl[RW_ISLAND_LEN], same[RW_ISLAND_LEN];
	uint64_t at = 0x7f0000002000;
	struct rw_tramp_spec s = spec[F_WRITE];

	s.at = 0x1122334455667788;
	s.site = at - 0x40;		/* back at site + 7 = at - 0x39 */
	s.stub = at + RW_ISLAND_STUB;
	ok(rw_island_emit(isl, at, &s) && !memcmp(isl, want_mov, sizeof(isl)),
	   "mov shape's island: jmp *0(%%rip); .quad T; syscall; jmp rel32 "
	   "site + 7; int3");
	s = spec[F_XREAD];
	s.at = 0x1122334455667788;
	s.site = at - 0x1000;		/* site + 10 = at - 0xff6 */
	s.stub = at + RW_ISLAND_STUB;
	ok(rw_island_emit(isl, at, &s) && !memcmp(isl, want_xor, sizeof(isl)),
	   "xor shape's: syscall; cmp $-4096,%%rax; jmp rel32 site + 10");
	memcpy(same, isl, sizeof(isl));
	s.stub = at + RW_ISLAND_STUB + 1;
	ok(!rw_island_emit(isl, at, &s), "a stub elsewhere: refused");
	s.stub = at + RW_ISLAND_STUB;
	s.site = at + 0x80000000ULL + 17;	/* + 10 is 2^31 past its jmp */
	ok(!rw_island_emit(isl, at, &s), "a site out of the stub's reach: "
	   "refused");
	ok(!memcmp(isl, same, sizeof(isl)), "refusals leave the bytes");
	s.site--;
	ok(rw_island_emit(isl, at, &s), "2^31 - 1 past it: in reach");
}

static void test_patch(void)
{
	uint8_t site[RW_SITE_MAX] = { 0xb8, 1, 0, 0, 0, 1, 2, 3, 4, 5 };
	static const uint8_t want_site[RW_SITE_MAX] = { 0xe9, 0xfb, 0x0f, 0, 0,
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc };
	uint64_t at = 0x7f0000001000;

	ok(rw_site_patch(site, at, 5, at + 0x1000) &&
	   !memcmp(site, want_site, 5) && site[5] == 1,
	   "mov site: jmp rel32 from its end, 5 bytes");
	ok(rw_site_patch(site, at, 10, at + 0x1000) &&
	   !memcmp(site, want_site, sizeof(site)),
	   "xor site: jmp rel32, then 5 int3");
	ok(!rw_site_patch(site, at, 4, at + 0x1000) &&
	   !rw_site_patch(site, at, 11, at + 0x1000),
	   "4 or 11 bytes: refused");
	ok(rw_site_patch(site, at, 5, at + 5 + INT32_MAX), "reach: +2^31 - 1");
	ok(rw_site_patch(site, at, 5, at + 5 - 0x80000000ULL), "reach: -2^31");
	memcpy(site, want_site, sizeof(site));
	ok(!rw_site_patch(site, at, 10, at + 5 + 0x80000000ULL) &&
	   !rw_site_patch(site, at, 10, at + 4 - 0x80000000ULL) &&
	   !memcmp(site, want_site, sizeof(site)),
	   "an island out of rel32 reach is refused, the bytes untouched");
}

/* Where patching moves a task found at each byte of a site. */
static void test_move_ip(void)
{
	static const int64_t want_xor[] = { 0, -1, 100, -1, 102, -1, -1, -1,
		-1, -1, 10, 11 };
	static const int64_t want_mov[] = { 0, -1, -1, -1, -1, 5, 6, 7 };
	uint64_t site = 0x7f0000001000, stub = 0x7f0000000000 + 100;
	bool all = true;
	int i;

	for (i = 0; i < (int)(sizeof(want_xor) / sizeof(*want_xor)); i++) {
		uint64_t got = rw_site_move_ip(&sites[F_XREAD], site, stub,
					       site + (uint64_t)i);
		uint64_t want = want_xor[i] < 0 ? 0 : want_xor[i] >= 100 ?
				0x7f0000000000 + (uint64_t)want_xor[i] :
				site + (uint64_t)want_xor[i];

		if (got != want) {
			printf("# xor site + %d: %#llx\n", i,
			       (unsigned long long)got);
			all = false;
		}
	}
	ok(all, "xor shape: site + 2 to the stub's syscall, + 4 to its cmp, "
	   "+ 10 stays, between instructions 0");
	all = rw_site_move_ip(&sites[F_XREAD], site, stub, site - 1) ==
	      site - 1;
	for (i = 0; i < (int)(sizeof(want_mov) / sizeof(*want_mov)); i++)
		all &= rw_site_move_ip(&sites[F_WRITE], site, stub,
				       site + (uint64_t)i) ==
		       (want_mov[i] < 0 ? 0 : site + (uint64_t)want_mov[i]);
	ok(all, "mov shape: only the mov is rewritten; its syscall stays");
}

/* --- calls through the trampolines, in this process --- */

static void test_fd_out_of_cells(void)
{
	struct rw_counters *before = malloc(sizeof(*C));
	char got[8] = "";
	int p[2];

	if (!before || pipe(p) || dup2(p[1], 300) != 300 ||
	    dup2(p[0], 301) != 301) {
		ok(0, "a pipe at fds 300, 301");
		free(before);
		return;
	}
	memcpy(before, C, sizeof(*C));
	is_int(entry(F_WRITE)(300, (long)"world", 5, 0, 0, 0), 5,
	       "fd 300 (>= RW_FDS) takes the stub's syscall");
	ok(read(p[0], got, sizeof(got)) == 5 && !memcmp(got, "world", 5),
	   "the write happens");
	if (write(p[1], "hello", 5) != 5)
		ok(0, "5 bytes in the pipe");
	is_int(entry(F_XREAD)(301, (long)got, sizeof(got), 0, 0, 0), 5,
	       "xor shape: fd 301 reads through the stub, its cmp's flags "
	       "as the site's (5: no error)");
	ok(!memcmp(got, "hello", 5), "the read happens");
	close(302);
	is_int(entry(F_XREAD)(302, (long)got, sizeof(got), 0, 0, 0), EBADF,
	       "a closed fd 302: -EBADF, the flags say an error (+EBADF)");
	ok(!memcmp(before, C, sizeof(*C)), "nothing is counted");
	close(300);
	close(301);
	close(p[0]);
	close(p[1]);
	free(before);
}

/*
 * -k's samples (--stack-sample): every call does what it does untraced,
 * the 1 in N sent to the stub's syscall too (there a ptrace stop, here
 * the call itself); what the counters see: test-rewrite-count.c.
 */
static void test_sampled_calls(void)
{
	char got[16] = "";
	int p[2], i, right = 0;

	if (pipe(p)) {
		ok(0, "a pipe");
		return;
	}
	for (i = 0; i < 8; i++)
		right += entry(F_SWRITE)(p[1], (long)"ab", 2, 0, 0, 0) == 2;
	is_int(right, 8, "8 sampled-site writes, 2 of them through the stub: "
	       "each returns 2");
	ok(read(p[0], got, sizeof(got)) == 16 &&
	   !memcmp(got, "abababababababab", 16), "all 16 bytes written");
	close(p[0]);
	close(p[1]);
	if (pipe(p) || write(p[1], "xyz", 3) != 3) {
		ok(0, "a pipe with 3 bytes");
		return;
	}
	for (i = right = 0; i < 3; i++)
		right += entry(F_SXREAD)(p[0], (long)got + i, 1, 0, 0, 0) == 1;
	close(p[1]);
	right += entry(F_SXREAD)(p[0], (long)got, 1, 0, 0, 0) == 0;
	right += entry(F_SXREAD)(-1, (long)got, 1, 0, 0, 0) == EBADF;
	right += entry(F_SXREAD)(p[0], (long)got, 1, 0, 0, 0) == 0;
	is_int(right, 6, "xor shape, 1 read in 3 through the stub: 3 bytes, "
	       "end of file, +EBADF (its cmp's flags), end of file");
	ok(!memcmp(got, "xyz", 3), "the bytes read in order");
	close(p[0]);
}

/*
 * harness_call(h): every general register but rax, rcx and r11 (the
 * syscall's) loaded from h->in, the 128 bytes below the site's rsp from
 * h->red_in, the site called, then all of them stored back.  The site's
 * rsp is the harness's minus the return address: its red zone is
 * [rsp - 136, rsp - 8) from the harness's rsp, which nothing between the
 * fill and the copy writes.
 */
enum { H_RBX, H_RBP, H_RDX, H_RSI, H_RDI, H_R8, H_R9, H_R10, H_R12, H_R13,
       H_R14, H_R15, H_N };

struct harness {
	uint64_t site;		/*   0 */
	uint64_t rsp_in;	/*   8: before the call */
	uint64_t rsp_out;	/*  16: after it */
	int64_t result;		/*  24: rax after it */
	uint64_t in[H_N];	/*  32 */
	uint64_t out[H_N];	/* 128 */
	uint64_t red_in[16];	/* 224 */
	uint64_t red_out[16];	/* 352 */
	int handled;		/* 480: the child's SIGUSR1 handler ran */
};
_Static_assert(offsetof(struct harness, in) == 32 &&
	       offsetof(struct harness, out) == 128 &&
	       offsetof(struct harness, red_in) == 224 &&
	       offsetof(struct harness, red_out) == 352, "harness_call's offsets");

void harness_call(struct harness *h);
__asm__(
	"	.text\n"
	"	.globl harness_call\n"
	"	.type harness_call, @function\n"
	"harness_call:\n"
	"	push %rbx\n	push %rbp\n	push %r12\n"
	"	push %r13\n	push %r14\n	push %r15\n"
	"	push %rdi\n"
	"	mov %rsp, 8(%rdi)\n"
	"	xor %ecx, %ecx\n"
	"1:	mov 224(%rdi,%rcx,8), %rax\n"
	"	mov %rax, -136(%rsp,%rcx,8)\n"
	"	inc %ecx\n	cmp $16, %ecx\n	jne 1b\n"
	"	mov %rdi, %rax\n"
	"	mov 32(%rax), %rbx\n	mov 40(%rax), %rbp\n"
	"	mov 48(%rax), %rdx\n	mov 56(%rax), %rsi\n"
	"	mov 64(%rax), %rdi\n	mov 72(%rax), %r8\n"
	"	mov 80(%rax), %r9\n	mov 88(%rax), %r10\n"
	"	mov 96(%rax), %r12\n	mov 104(%rax), %r13\n"
	"	mov 112(%rax), %r14\n	mov 120(%rax), %r15\n"
	"	call *(%rax)\n"
	"	mov (%rsp), %r11\n"
	"	mov %rsp, 16(%r11)\n"
	"	mov %rax, 24(%r11)\n"
	"	mov %rbx, 128(%r11)\n	mov %rbp, 136(%r11)\n"
	"	mov %rdx, 144(%r11)\n	mov %rsi, 152(%r11)\n"
	"	mov %rdi, 160(%r11)\n	mov %r8, 168(%r11)\n"
	"	mov %r9, 176(%r11)\n	mov %r10, 184(%r11)\n"
	"	mov %r12, 192(%r11)\n	mov %r13, 200(%r11)\n"
	"	mov %r14, 208(%r11)\n	mov %r15, 216(%r11)\n"
	"	xor %ecx, %ecx\n"
	"2:	mov -136(%rsp,%rcx,8), %rax\n"
	"	mov %rax, 352(%r11,%rcx,8)\n"
	"	inc %ecx\n	cmp $16, %ecx\n	jne 2b\n"
	"	pop %rdi\n"
	"	pop %r15\n	pop %r14\n	pop %r13\n"
	"	pop %r12\n	pop %rbp\n	pop %rbx\n"
	"	ret\n"
	"	.size harness_call, . - harness_call\n");

static struct harness *H;		/* shared with forked children */

/* A call of fake f with (fd, buf, len), every other value a pattern. */
static void harness_fill(int f, long fd, const void *buf, long len)
{
	int i;

	memset(H, 0, sizeof(*H));
	H->site = (uint64_t)entry(f);
	for (i = 0; i < H_N; i++)
		H->in[i] = 0x0101010101010101ULL * (uint64_t)(i + 1) ^
			   0x8000000000000000ULL;
	H->in[H_RDI] = (uint64_t)fd;
	H->in[H_RSI] = (uint64_t)buf;
	H->in[H_RDX] = (uint64_t)len;
	for (i = 0; i < 16; i++)
		H->red_in[i] = 0xa5a5a5a500000000ULL | (uint64_t)i;
}

static bool harness_intact(void)
{
	return !memcmp(H->in, H->out, sizeof(H->in)) &&
	       !memcmp(H->red_in, H->red_out, sizeof(H->red_in)) &&
	       H->rsp_in == H->rsp_out;
}

static void test_registers_kept(void)
{
	int p[2];
	char got[8];

	if (pipe(p) || dup2(p[1], 300) != 300) {
		ok(0, "a pipe");
		return;
	}
	harness_fill(F_WRITE, p[1], "regs", 4);
	harness_call(H);
	is_int(H->result, 4, "the harness's write returns 4");
	ok(harness_intact(), "every register but rax, rcx, r11 and the red "
	   "zone are as before the call");
	harness_fill(F_WRITE, 300, "regs", 4);
	harness_call(H);
	ok(H->result == 4 && harness_intact(),
	   "so on the way to the stub's syscall (fd 300)");
	close(200);
	harness_fill(F_WRITE, 200, "regs", 4);
	harness_call(H);
	ok(H->result == -EBADF && harness_intact(), "and on an error");
	ok(read(p[0], got, sizeof(got)) == 8, "the writes happened");
	if (write(p[1], "regs", 4) != 4)
		ok(0, "4 bytes in the pipe");
	harness_fill(F_XREAD, p[0], got, sizeof(got));
	harness_call(H);
	ok(H->result == 4 && harness_intact(), "xor shape: a read of 4, the "
	   "flags no error, registers and red zone kept");
	harness_fill(F_XREAD, 200, got, sizeof(got));
	harness_call(H);
	ok(H->result == EBADF && harness_intact(), "xor shape: an error, the "
	   "flags one (+EBADF), registers and red zone kept");
	close(300);
	close(p[0]);
	close(p[1]);
}

/* --- a traced child stopped inside a trampoline --- */

static int read_child(void *ctx, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };

	if (process_vm_readv(*(pid_t *)ctx, &local, 1, &remote, 1, 0) !=
	    (ssize_t)n)
		return -EFAULT;
	return 0;
}

static int read_fails(void *ctx, uint64_t addr, void *buf, size_t n)
{
	(void)ctx, (void)addr, (void)buf, (void)n;
	return -EIO;
}

/* Whether pid is blocked in syscall nr with its pc (the address after
 * the syscall) in [lo, hi) (/proc/PID/syscall: "nr args... sp pc"). */
static bool blocked_at(pid_t pid, long nr, uint64_t lo, uint64_t hi)
{
	char path[64], buf[256], *pc;
	uint64_t at;
	long got;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	fp = fopen(path, "r");
	if (!fp)
		return false;
	buf[0] = '\0';
	if (!fgets(buf, sizeof(buf), fp))
		buf[0] = '\0';
	fclose(fp);
	pc = strrchr(buf, ' ');
	if (sscanf(buf, "%ld", &got) != 1 || got != nr || !pc)
		return false;
	at = strtoull(pc + 1, NULL, 16);
	return at >= lo && at < hi;
}

/* Waits (5 s at most) for pid to block in a read at a pc in [lo, hi). */
static bool wait_blocked(pid_t pid, uint64_t lo, uint64_t hi)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (blocked_at(pid, 0, lo, hi))
			return true;
		usleep(1000);
	}
	return false;
}

static void on_usr1(int sig)
{
	(void)sig;
	H->handled = 1;
}

/* The registers the program has at the site: H->in, rsp below the
 * return address. */
static bool regs_at_site(const struct user_regs_struct *r)
{
	const unsigned long long got[H_N] = {
		r->rbx, r->rbp, r->rdx, r->rsi, r->rdi, r->r8, r->r9,
		r->r10, r->r12, r->r13, r->r14, r->r15,
	};
	int i;

	for (i = 0; i < H_N; i++)
		if (got[i] != H->in[i])
			return false;
	return r->rsp == H->rsp_in - 8;
}

static const char *shape(int f)
{
	return fakes[f].xor ? "xor" : "mov";
}

/*
 * After leave took the child past a syscall outside the pool, with
 * SA_RESTART: the kernel restarts the read there (the mov shape's own
 * syscall at the site, the xor shape's stub), where it blocks again; 16
 * bytes then end it, and it returns 16 at site + resume, uncounted.
 */
static void restarted_completes(int f, pid_t pid, int wr)
{
	uint64_t at = rw_tramp_restart_ip(&spec[f]);
	int st;

	ok(wait_blocked(pid, at, at + 1),
	   "%s shape: restarted, blocked in the %s syscall", shape(f),
	   fakes[f].xor ? "stub's" : "site's own");
	if (write(wr, "0123456789abcdef", 16) != 16)
		ok(0, "16 bytes in the pipe");
	st = child_status(pid);
	ok(WIFEXITED(st) && H->handled, "%s shape: the handler ran, the "
	   "child exited", shape(f));
	is_int(H->result, 16, "%s shape: read returned 16 at site + resume",
	       shape(f));
}

/*
 * A read on an empty pipe, interrupted by SIGUSR1: at the signal-delivery
 * stop the task is in the trampoline's syscall; taken past the site's
 * own syscall (mov shape) or the stub's (xor shape) with -ERESTARTSYS
 * kept.  Without SA_RESTART the kernel turns that into -EINTR there,
 * which the site's code after it (or the stub's post, the xor shape's
 * cmp: +EINTR through its error path) returns; with it, the kernel makes
 * the call again from there.
 */
static void test_leave_in_syscall(int f, bool restart)
{
	struct sigaction sa = { .sa_handler = on_usr1,
				.sa_flags = restart ? SA_RESTART : 0 };
	struct user_regs_struct regs;
	uint64_t ns;
	char buf[16];
	bool uncount;
	pid_t pid;
	int p[2], st;

	if (pipe(p))
		return;
	memset(C, 0, sizeof(*C));
	harness_fill(f, p[0], buf, sizeof(buf));
	pid = fork();
	if (pid == 0) {
		sigaction(SIGUSR1, &sa, NULL);
		harness_call(H);
		_exit(0);
	}
	ptrace(PTRACE_SEIZE, pid, 0L, PTRACE_O_EXITKILL);
	wait_blocked(pid, spec[f].at, spec[f].at + tramp_len[f]);
	kill(pid, SIGUSR1);
	st = child_status(pid);
	if (!ok(WIFSTOPPED(st) && WSTOPSIG(st) == SIGUSR1,
		"the child stops at SIGUSR1's delivery (0x%x)", st) ||
	    ptrace(PTRACE_GETREGS, pid, 0L, &regs)) {
		child_kill(pid);
		goto out;
	}
	is_int(rw_tramp_leave(&spec[f], regs.rip, &regs, __rdtsc(),
			      read_child, &pid, &uncount, &ns),
	       RW_AT_SYSCALL, "%s shape: stopped in the trampoline's syscall",
	       shape(f));
	ok(regs.rip == (fakes[f].xor ? spec[f].stub + 2 :
			spec[f].site + spec[f].resume) &&
	   regs.rcx == regs.rip,
	   "%s shape: taken past the %s syscall, rcx as that syscall leaves "
	   "it", shape(f), fakes[f].xor ? "stub's" : "site's own");
	ok(regs_at_site(&regs), "rsp and the saved registers as at the site");
	ok((long long)regs.rax == -512 && !uncount && ns > 0,
	   "rax -ERESTARTSYS kept, nothing to uncount, it ran %lu ns",
	   (unsigned long)ns);
	ok(slot_clean(fakes[f].slot), "nothing counted in its syscall");
	ptrace(PTRACE_SETREGS, pid, 0L, &regs);
	ptrace(PTRACE_CONT, pid, 0L, (void *)(long)SIGUSR1);
	if (restart) {
		restarted_completes(f, pid, p[1]);
	} else {
		st = child_status(pid);
		ok(WIFEXITED(st) && H->handled, "the handler ran, the child "
		   "exited");
		is_int(H->result, site_result(f, -EINTR), "%s shape: read "
		       "returned -EINTR", shape(f));
	}
	ok(harness_intact(), "registers and red zone intact after it");
	ok(slot_clean(fakes[f].slot) && !err_total(), "the trampoline's "
	   "end never ran, nothing is counted: iotrace counts the call");
out:
	close(p[0]);
	close(p[1]);
}

static int step(pid_t pid, struct user_regs_struct *r)
{
	int st;

	if (ptrace(PTRACE_SINGLESTEP, pid, 0L, 0L))
		return -1;
	st = child_status(pid);
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return -1;
	return ptrace(PTRACE_GETREGS, pid, 0L, r) ? -1 : 0;
}

/*
 * A child making H's call of fake f, stopped k instructions into the
 * trampoline (or where it went if it left): single-stepped from a
 * SIGUSR2 it raises before the call, that signal discarded.  *site: its
 * registers at the site.  The pid, or -1 (the child killed).
 */
static pid_t child_stepped(int f, int k, struct user_regs_struct *site,
			   struct user_regs_struct *now)
{
	int go[2], n;
	pid_t pid;
	char c;

	if (pipe(go))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		raise(SIGUSR2);
		harness_call(H);
		_exit(0);
	}
	close(go[0]);
	ptrace(PTRACE_SEIZE, pid, 0L, PTRACE_O_EXITKILL);
	n = (int)write(go[1], "g", 1);
	close(go[1]);
	if (n != 1 || child_status(pid) != (SIGUSR2 << 8 | 0x7f))
		goto out_kill;
	for (n = 0; n < 100000 && now->rip != spec[f].site; n++)
		if (step(pid, now))
			goto out_kill;
	*site = *now;
	for (n = 0; n < 2; n++)	/* the site's jmp, the island's */
		if (step(pid, now))
			goto out_kill;
	for (n = 0; n < k && in_tramp(f, now->rip); n++)
		if (step(pid, now))
			goto out_kill;
	return pid;
out_kill:
	child_kill(pid);
	return -1;
}

static bool regs_same_but_dead(struct user_regs_struct a,
			       const struct user_regs_struct *b)
{
	a.rax = b->rax;		/* the site's mov (xor) sets it */
	a.eflags = b->eflags;	/* the syscall's "cc" */
	return !memcmp(&a, b, sizeof(a));
}

/*
 * An unreadable stack undoes all (what the good one does) or nothing;
 * *nothing counts the stops it had to read at.
 */
static bool all_or_nothing(int f, const struct user_regs_struct *stop,
			   const struct user_regs_struct *undone, int *nothing)
{
	struct user_regs_struct r = *stop;
	bool uncount;
	uint64_t ns;
	enum rw_at at = rw_tramp_leave(&spec[f], stop->rip, &r, 0,
				       read_fails, NULL, &uncount, &ns);

	if (at == RW_AT_AFTER) {
		++*nothing;
		return !memcmp(&r, stop, sizeof(r)) && !uncount;
	}
	return at == RW_AT_BEFORE && !memcmp(&r, undone, sizeof(r));
}

/* After leave: the child, resumed, must make its call once, normally. */
static bool resumed_completes(int f, pid_t pid,
			      const struct user_regs_struct *r, long fd)
{
	struct rw_cell *c = &C->cell[fakes[f].slot][fd % RW_FDS];
	int st;

	ptrace(PTRACE_SETREGS, pid, 0L, r);
	ptrace(PTRACE_CONT, pid, 0L, 0L);
	st = child_status(pid);
	if (!WIFEXITED(st) || H->result != 16 || !harness_intact())
		return false;
	if (fd >= RW_FDS)
		return slot_clean(fakes[f].slot);
	return cell_is(c, 1, 0, 16, 16, 0) && hist_sum(fakes[f].slot) == 1;
}

/* Where a step out of the trampoline lands: the site's resume, or for
 * an fd the cells do not cover, the stub's syscall. */
static bool stepped_out(int f, const struct user_regs_struct *now)
{
	if (in_tramp(f, now->rip))
		return now->rax == 16;
	return now->rip == spec[f].stub;
}

/*
 * A read of 16 bytes waiting in a pipe, stopped after each of the
 * trampoline's instructions in turn, up to the first stop past its
 * syscall (RW_AT_AFTER) or out of it (fd >= RW_FDS: the stub's way).
 * Each stop before the syscall must go back to the site with the site's
 * registers, nothing counted (the call counts at its end) and nothing to
 * uncount, and the call made again must complete and count once.
 */
static void test_leave_before(int f, bool big_fd)
{
	struct user_regs_struct site, now, r;
	int p[2], k, slot = fakes[f].slot, nothing = 0;
	bool uncount, all_or_none = true, ended = false;
	char buf[16];
	uint64_t ns;
	long fd;
	pid_t pid;

	if (pipe(p) || (big_fd && dup2(p[0], 300) != 300))
		return;
	fd = big_fd ? 300 : p[0];
	for (k = 0; k < 64 && !ended; k++) {
		memset(C, 0, sizeof(*C));
		harness_fill(f, fd, buf, sizeof(buf));
		if (write(p[1], "0123456789abcdef", 16) != 16 ||
		    (pid = child_stepped(f, k, &site, &now)) < 0) {
			ok(0, "fd %ld, %d steps in: a stopped child", fd, k);
			break;
		}
		r = now;
		switch (rw_tramp_leave(&spec[f], now.rip, &r, __rdtsc(),
				       read_child, &pid, &uncount, &ns)) {
		case RW_AT_BEFORE:
			ok(r.rip == site.rip && regs_same_but_dead(r, &site),
			   "%s, fd %ld, %d steps in: before the syscall; back "
			   "at the site, its registers", shape(f), fd, k);
			ok(!uncount && slot_clean(slot), "fd %ld, %d steps "
			   "in: nothing counted, nothing to uncount", fd, k);
			all_or_none &= all_or_nothing(f, &now, &r, &nothing);
			ok(resumed_completes(f, pid, &r, fd), "fd %ld, %d "
			   "steps in: resumed, the call is made once", fd, k);
			break;
		case RW_AT_SYSCALL:
			ok(0, "fd %ld, %d steps in: in no syscall", fd, k);
			child_kill(pid);
			break;
		case RW_AT_AFTER:
			ended = true;
			ok(!memcmp(&r, &now, sizeof(r)) && !uncount &&
			   stepped_out(f, &now), "%s, fd %ld, %d steps in: "
			   "%s; registers untouched", shape(f), fd, k,
			   in_tramp(f, now.rip) ? "after the syscall"
			   : "out of the trampoline, at the stub");
			ok(slot_clean(slot), "fd %ld, %d steps in: not counted "
			   "yet", fd, k);
			ok(resumed_completes(f, pid, &r, fd), "fd %ld, %d "
			   "steps in: resumed, the call completes", fd, k);
			break;
		}
	}
	ok(ended, "%s, fd %ld: the steps reach the syscall's end", shape(f),
	   fd);
	ok(all_or_none && (big_fd || nothing > 0), "fd %ld: an unreadable "
	   "stack undoes all or nothing (nothing at %d stops)", fd, nothing);
	if (big_fd)
		close(300);
	close(p[0]);
	close(p[1]);
}

/* Writes n bytes at addr of pid's memory, read-only text too. */
static int poke(pid_t pid, uint64_t addr, const void *buf, size_t n)
{
	char path[64];
	ssize_t w;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR);
	if (fd < 0)
		return -1;
	w = pwrite(fd, buf, n, (off_t)addr);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/*
 * Patching a site a task is in: a child blocked in the xor site's
 * syscall (not yet patched: F_XLATE) is interrupted, the site patched
 * through /proc/PID/mem and the task moved by rw_site_move_ip() to the
 * stub's syscall + 2, as a restart wants: the read is made again from
 * the stub, returns through its cmp and back at site + 10, uncounted;
 * the next call takes the patched site, counted.
 */
static void test_move_ip_live(void)
{
	const struct rw_tramp_spec *s = &spec[F_XLATE];
	struct user_regs_struct regs;
	uint8_t jmp[RW_SITE_MAX];
	struct rw_cell *c;
	char buf[16];
	int p[2], st;
	pid_t pid;

	if (pipe(p) || !rw_site_patch(jmp, s->site, 10, s->stub -
				      RW_ISLAND_STUB))
		return;
	memset(C, 0, sizeof(*C));
	c = &C->cell[fakes[F_XLATE].slot][p[0]];
	harness_fill(F_XLATE, p[0], buf, sizeof(buf));
	pid = fork();
	if (pid == 0) {
		harness_call(H);
		H->handled = (int)entry(F_XLATE)(p[0], (long)buf, 16, 0, 0, 0);
		_exit(0);
	}
	ptrace(PTRACE_SEIZE, pid, 0L, PTRACE_O_EXITKILL);
	ok(wait_blocked(pid, s->site + 4, s->site + 5),
	   "a child blocked in the unpatched site's syscall");
	ptrace(PTRACE_INTERRUPT, pid, 0L, 0L);
	st = child_status(pid);
	if (!ok(st >> 8 == (SIGTRAP | PTRACE_EVENT_STOP << 8) &&
		!ptrace(PTRACE_GETREGS, pid, 0L, &regs) &&
		regs.rip == s->site + 4 && (long long)regs.rax == -512,
		"interrupted at site + 4, rax -ERESTARTSYS") ||
	    !ok(!poke(pid, s->site, jmp, sizeof(jmp)), "the site patched")) {
		child_kill(pid);
		goto out;
	}
	regs.rip = rw_site_move_ip(&sites[F_XLATE], s->site, s->stub,
				   regs.rip);
	is_int(regs.rip, s->stub + 2, "moved past the stub's syscall");
	ptrace(PTRACE_SETREGS, pid, 0L, &regs);
	ptrace(PTRACE_CONT, pid, 0L, 0L);
	ok(wait_blocked(pid, s->stub + 2, s->stub + 3),
	   "the read restarted from the stub's syscall");
	if (write(p[1], "0123456789abcdef0123456789abcdef", 32) != 32)
		ok(0, "32 bytes in the pipe");
	st = child_status(pid);
	ok(WIFEXITED(st) && H->result == 16 && harness_intact(),
	   "it returned 16 at site + 10, registers and red zone kept");
	ok(H->handled == 16 && cell_is(c, 1, 0, 16, 16, 0),
	   "the next call went through the patched site, counted once");
out:
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	H = mmap(NULL, sizeof(*H), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (H == MAP_FAILED || setup()) {
		ok(0, "the fake sites are set up");
		return done_testing();
	}
	test_emit();
	test_island();
	test_patch();
	test_move_ip();
	test_fd_out_of_cells();
	test_sampled_calls();
	test_registers_kept();
	test_loads();
	test_leave_in_syscall(F_READ, false);
	test_leave_in_syscall(F_XREAD, false);
	test_leave_in_syscall(F_READ, true);
	test_leave_in_syscall(F_XREAD, true);
	test_leave_before(F_READ, false);
	test_leave_before(F_READ, true);
	test_leave_before(F_XREAD, false);
	test_leave_before(F_XREAD, true);
	test_move_ip_live();
	return done_testing();
}
