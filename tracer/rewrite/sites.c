// SPDX-License-Identifier: MIT
/*
 * Which syscall sites of an ELF object the fast path may rewrite
 * (rewrite.h), found in its file: the object is read as the unwinder
 * reads it (elf/elfobj.h: segments, symbols, FDEs) and its code
 * decoded with Zydis.  Every `syscall` (0f 05) of an executable segment
 * is judged once, by these rules in this order; the first it fails is
 * its one refusal, so n + the refusals = syscalls:
 *
 * - SHAPE: the syscall is in one of three shapes (rewrite.h), with the
 *   number a constant of the instruction before it, or of the mov before
 *   the loads before it.  mov: the 5 bytes
 *   before it are `mov $imm32,%eax` (b8 imm32); the rewrite puts a jmp
 *   rel32, 5 bytes, in the mov's place.  xor: the 2 before it are `xor
 *   %eax,%eax` (31 c0, read) and the 6 after it `cmp $-4096,%rax` (48 3d
 *   00 f0 ff ff), as glibc's read: the jmp takes the xor, the syscall and
 *   the cmp's first byte, so the cmp is displaced (the trampoline and
 *   the stub run it after the call) and the rest of its bytes become
 *   int3.  `mov $1,%rax` (7 bytes), an xor with anything else after the
 *   syscall, or a number from a register leave nothing to swap.  Where
 *   the bytes fit both, the shape whose first byte the decode of the
 *   function steps on is the one judged.  loads: neither fits, and the
 *   decode of the function steps on `mov $imm32,%eax` one or two
 *   instructions before the syscall, those between loads rw_pre_ok()
 *   takes (glibc's splice and copy_file_range in a process with
 *   threads reload two arguments from the frame there): the jmp takes
 *   the mov's place, the loads and the syscall stay, and the trampoline
 *   runs a copy of the loads first.  Being found by the decode, it is
 *   never UNDECODED; TARGET is judged on the mov's bytes.
 * - NOT_HOT: the number is in the hot set.  Only hot calls have counter
 *   slots (RW_SLOTS); the others stay with ptrace.
 * - UNDECODED: the mov (or the xor) is an instruction.  The bytes b8 ..
 *   0f 05 also turn up inside other instructions (an immediate, a
 *   displacement, a prefixed `mov $imm,%r8d`) and in data, and rewriting
 *   those would corrupt the program.  x86 code does not resynchronise,
 *   so only a decode from a function's first byte shows where its
 *   instructions begin: the function holding the syscall is decoded
 *   linearly from its start and must step on the mov or xor (the
 *   syscall after it, and the xor shape's cmp after that, are then
 *   instructions too).  Functions are sized symbols
 *   (.symtab, else .dynsym: the compiler's own extents), else FDEs of
 *   .eh_frame: Debian's libc.so.6 has no .symtab and .dynsym names only
 *   exported functions, while every function built with CFI has an FDE.
 * - TARGET: no direct branch (jmp, jcc, call, loop, xbegin: rel8/rel32)
 *   of the object lands on site + 1 .. site + len - 1, the rewritten
 *   bytes past the first: once rewritten, those are the jmp's
 *   displacement and int3s, and a branch there would run garbage.  A
 *   branch to the site's first byte runs the jmp (the trampoline makes
 *   the call); one to the mov shape's syscall at mov + 5, which is not
 *   rewritten, runs the original syscall (a ptrace stop); one past the
 *   xor shape's cmp lands after the rewrite: all are fine.  The xor
 *   shape's syscall and cmp are overwritten, so a branch to either
 *   refuses the site.  Every function range is decoded for
 *   branches, and so are the executable bytes no range covers (padding,
 *   code without CFI), so that a branch from there is seen too; a
 *   target read from bytes that are not code only refuses a site,
 *   never accepts one.  Indirect branches (jump tables, returns, landing
 *   pads) cannot be seen: they land where compiled code has instruction
 *   boundaries, and the rule above already requires the site to start
 *   one.  The xor shape's syscall and cmp are boundaries too, which an
 *   indirect branch could reach unseen; in compiled code they are not
 *   block starts (the xor is the compiler's load of the asm statement's
 *   input, the cmp its test of the output, in the asm's block).
 *
 * What counts as a syscall: 0f 05 that the decode of its function finds
 * inside another instruction (an immediate's bytes) is none and is not
 * counted; 0f 05 outside every function, or past a point where its
 * function failed to decode, may be code and is counted, but never
 * accepted (UNDECODED, if shape and number pass).  On a libc this gives
 * objdump -d's count (tests/unit/test-rewrite-sites.c).
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>
#include "elf/elfobj.h"
#include "tracer/rewrite/rewrite.h"

#define NR_MAX 1024		/* numbers the hot bitmap holds */

struct range {
	uint64_t start, end;	/* [start, end) */
};

struct ranges {
	struct range *r;
	size_t n, cap;
};

/* One rw_sites_find() under way. */
struct scan {
	const struct elf_obj *o;
	const uint8_t *hot;
	ZydisDecoder dec;
	struct ranges fde;	/* FDE ranges, by start */
	struct ranges fn;	/* every function range: sized symbols and
				   FDEs, by start, each once */
	uint64_t *tgt;		/* direct branch targets, sorted */
	size_t ntgt, tgt_cap;
	size_t site_cap;
	int err;		/* -ENOMEM met in a callback */
	struct rw_sites *out;
};

static int grow(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 256;
	void *np;

	if (n < *cap)
		return 0;
	np = realloc(*p, ncap * size);
	if (!np)
		return -ENOMEM;
	*p = np;
	*cap = ncap;
	return 0;
}

static int range_add(struct ranges *rs, uint64_t start, uint64_t end)
{
	if (grow((void **)&rs->r, &rs->cap, rs->n, sizeof(*rs->r)))
		return -ENOMEM;
	rs->r[rs->n++] = (struct range){ start, end };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* qsort, which may not be given NULL even for nothing */
static void sort(void *base, size_t n, size_t size,
		 int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void fde_seen(void *ctx, uint64_t start, uint64_t len,
		     uint64_t fde_off)
{
	struct scan *s = ctx;

	(void)fde_off;
	if (!len || start + len < start)	/* empty, or wrapping */
		return;
	if (range_add(&s->fde, start, start + len))
		s->err = -ENOMEM;
}

/* s->fde from .eh_frame, s->fn from it and the sized symbols. */
static int collect_ranges(struct scan *s)
{
	const struct elf_sym *y;
	size_t i, n = 0;

	elf_fde_walk(s->o, fde_seen, s);
	if (s->err)
		return s->err;
	sort(s->fde.r, s->fde.n, sizeof(*s->fde.r), cmp_range);
	for (i = 0; i < s->fde.n; i++)
		if (range_add(&s->fn, s->fde.r[i].start, s->fde.r[i].end))
			return -ENOMEM;
	for (y = s->o->syms; y < s->o->syms + s->o->nsyms; y++)
		if (y->size && range_add(&s->fn, y->addr, y->addr + y->size))
			return -ENOMEM;
	sort(s->fn.r, s->fn.n, sizeof(*s->fn.r), cmp_range);
	/* aliases (read, __read, __libc_read) and an FDE per symbol */
	for (i = 0; i < s->fn.n; i++)
		if (!n || cmp_range(&s->fn.r[n - 1], &s->fn.r[i]))
			s->fn.r[n++] = s->fn.r[i];
	s->fn.n = n;
	return 0;
}

/*
 * The bytes of r as the file holds them, cut at the end of its
 * segment's file part; NULL when r does not start in an executable one.
 */
static const unsigned char *code_of(const struct elf_obj *o, struct range r,
				    uint64_t *len)
{
	const struct elf_seg *seg;
	uint64_t end;

	if (r.end <= r.start || !elf_obj_bytes(o, r.start, 1, &seg) ||
	    !seg->exec)
		return NULL;
	end = seg->vaddr + seg->filesz;
	*len = (r.end < end ? r.end : end) - r.start;
	return elf_obj_bytes(o, r.start, *len, NULL);
}

static bool decode(const struct scan *s, const unsigned char *p,
		   uint64_t left, ZydisDecodedInstruction *insn)
{
	ZydisDecoderContext ctx;

	return ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&s->dec, &ctx, p,
							  left, insn));
}

/* The target of a direct relative branch at ip: true, or false. */
static bool branch_target(const ZydisDecodedInstruction *insn, uint64_t ip,
			  uint64_t *to)
{
	if (insn->meta.branch_type == ZYDIS_BRANCH_TYPE_NONE ||
	    !insn->raw.imm[0].is_relative)
		return false;
	*to = ip + insn->length + (uint64_t)insn->raw.imm[0].value.s;
	return true;
}

/*
 * Decodes r linearly for its branch targets.  Past bytes that are no
 * instruction it goes on at the next byte: more targets, never fewer.
 */
static int sweep(struct scan *s, struct range r)
{
	ZydisDecodedInstruction insn;
	uint64_t len, off = 0, to;
	const unsigned char *p = code_of(s->o, r, &len);

	if (!p)
		return 0;
	while (off < len) {
		if (!decode(s, p + off, len - off, &insn)) {
			off++;
			continue;
		}
		if (branch_target(&insn, r.start + off, &to)) {
			if (grow((void **)&s->tgt, &s->tgt_cap, s->ntgt,
				 sizeof(*s->tgt)))
				return -ENOMEM;
			s->tgt[s->ntgt++] = to;
		}
		off += insn.length;
	}
	return 0;
}

/* The executable bytes of seg that no function range covers, swept. */
static int sweep_gaps(struct scan *s, const struct elf_seg *seg)
{
	uint64_t at = seg->vaddr, end = seg->vaddr + seg->filesz;
	const struct range *r;
	int err;

	for (r = s->fn.r; r < s->fn.r + s->fn.n && at < end; r++) {
		if (r->end <= at)
			continue;
		if (r->start > at &&
		    (err = sweep(s, (struct range){ at, r->start < end ?
						    r->start : end })))
			return err;
		at = r->end > at ? r->end : at;
	}
	return at < end ? sweep(s, (struct range){ at, end }) : 0;
}

/* s->tgt: every direct branch target decoded in the object, sorted. */
static int collect_targets(struct scan *s)
{
	const struct elf_seg *seg;
	size_t i;
	int err;

	for (i = 0; i < s->fn.n; i++)
		if ((err = sweep(s, s->fn.r[i])))
			return err;
	for (seg = s->o->segs; seg < s->o->segs + s->o->nsegs; seg++)
		if (seg->exec && (err = sweep_gaps(s, seg)))
			return err;
	sort(s->tgt, s->ntgt, sizeof(*s->tgt), cmp_u64);
	return 0;
}

/* Whether a branch target lies in [lo, hi]. */
static bool targeted(const struct scan *s, uint64_t lo, uint64_t hi)
{
	size_t a = 0, b = s->ntgt, mid;

	while (a < b) {
		mid = a + (b - a) / 2;
		if (s->tgt[mid] < lo)
			a = mid + 1;
		else
			b = mid;
	}
	return a < s->ntgt && s->tgt[a] <= hi;
}

/* The function holding vaddr: a sized symbol's, else an FDE's. */
static bool function_of(const struct scan *s, uint64_t vaddr,
			struct range *fn)
{
	const struct elf_sym *y = elf_obj_symbol(s->o, vaddr);
	size_t a = 0, b = s->fde.n, mid;

	if (y && y->size) {
		*fn = (struct range){ y->addr, y->addr + y->size };
		return true;
	}
	while (a < b) {
		mid = a + (b - a) / 2;
		if (s->fde.r[mid].start <= vaddr)
			a = mid + 1;
		else
			b = mid;
	}
	if (!a || vaddr >= s->fde.r[a - 1].end)
		return false;
	*fn = s->fde.r[a - 1];
	return true;
}

enum walk {
	WALK_AT,	/* an instruction starts at the address */
	WALK_INSIDE,	/* an instruction spans it */
	WALK_LOST,	/* the decode failed before it */
};

/* The instructions before a syscall the loads shape looks back over:
   its mov and up to two loads. */
#define BACK 3

/*
 * Decodes fn from its start up to vaddr; back[0]: where the instruction
 * before vaddr starts, back[1] the one before it... (UINT64_MAX: none).
 */
static enum walk walk_to(const struct scan *s, struct range fn,
			 uint64_t vaddr, uint64_t back[BACK])
{
	ZydisDecodedInstruction insn;
	uint64_t len, off = 0;
	const unsigned char *p = code_of(s->o, fn, &len);
	int i;

	for (i = 0; i < BACK; i++)
		back[i] = UINT64_MAX;
	if (!p)
		return WALK_LOST;
	while (fn.start + off < vaddr) {
		if (!decode(s, p + off, len - off, &insn))
			return WALK_LOST;
		memmove(back + 1, back, (BACK - 1) * sizeof(*back));
		back[0] = fn.start + off;
		off += insn.length;
	}
	return fn.start + off == vaddr ? WALK_AT : WALK_INSIDE;
}

/*
 * The shapes of rewrite.h: the bytes before the syscall (imm: the mov's
 * number there, else nr) and after it (the post), and what is rewritten.
 */
static const struct shape {
	uint8_t pre[5];
	uint8_t npre;
	bool imm;		/* pre[1..4] is the number */
	int nr;
	uint8_t post[6];
	uint8_t npost;
	uint8_t len;		/* bytes rewritten from the site */
} shapes[] = {
	{ { 0xb8 }, 5, true, -1, { 0 }, 0, 5 },
	{ { 0x31, 0xc0 }, 2, false, 0,
	  { 0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff }, 6, 10 },
};
#define NSHAPES (sizeof(shapes) / sizeof(*shapes))

/* Whether the bytes around the syscall at sys are shape k's. */
static bool shape_fits(const struct scan *s, const struct shape *k,
		       uint64_t sys)
{
	const unsigned char *p;
	uint64_t site = sys - k->npre;

	if (sys < k->npre)
		return false;
	p = elf_obj_bytes(s->o, site, k->npre + 2u + k->npost, NULL);
	return p && p[0] == k->pre[0] && (k->imm || !memcmp(p, k->pre,
							    k->npre)) &&
	       !memcmp(p + k->npre + 2, k->post, k->npost);
}

/* The shape of the syscall at sys: the one the decode steps on (its site
 * at prev), else the first that fits; NULL: none. */
static const struct shape *shape_of(const struct scan *s, uint64_t sys,
				    uint64_t prev)
{
	const struct shape *first = NULL;
	size_t k;

	for (k = 0; k < NSHAPES; k++) {
		if (!shape_fits(s, &shapes[k], sys))
			continue;
		if (sys - shapes[k].npre == prev)
			return &shapes[k];
		first = first ? first : &shapes[k];
	}
	return first;
}

/*
 * The loads shape of the syscall at sys, which the decode stepped on
 * (back: the instructions before it): `mov $imm32,%eax` at back[k], k
 * of 1 or 2, then loads up to sys that rw_pre_ok() takes.  Its site and
 * the loads' length, or false.
 */
static bool loads_shape(const struct scan *s, uint64_t sys,
			const uint64_t back[BACK], uint64_t *site,
			unsigned *pre_len)
{
	const unsigned char *p;
	int k;

	for (k = 1; k < BACK && back[k] != UINT64_MAX; k++) {
		if (back[k] + RW_SITE_LEN != back[k - 1] ||
		    sys - back[k - 1] > RW_PRE_MAX + 0u)
			continue;
		p = elf_obj_bytes(s->o, back[k], (size_t)(sys - back[k]),
				  NULL);
		if (p && p[0] == 0xb8 &&
		    rw_pre_ok(p + RW_SITE_LEN, sys - back[k] - RW_SITE_LEN)) {
			*site = back[k];
			*pre_len = (unsigned)(sys - back[k] - RW_SITE_LEN);
			return true;
		}
	}
	return false;
}

/* The site of shape k at site, in seg's file part: its file offset from
 * seg's. */
static int site_add(struct scan *s, const struct shape *k, uint64_t site,
		    int nr)
{
	const struct elf_seg *seg;
	struct rw_sites *out = s->out;
	struct rw_site *st;
	uint64_t left;

	if (!elf_obj_bytes(s->o, site, 1, &seg))
		return -EINVAL;
	left = seg->vaddr + seg->filesz - site;
	if (grow((void **)&out->site, &s->site_cap, out->n,
		 sizeof(*out->site)))
		return -ENOMEM;
	st = &out->site[out->n++];
	*st = (struct rw_site){
		.vaddr = site, .offset = seg->off + (site - seg->vaddr),
		.nr = nr, .len = k->len, .resume = k->npre + 2u + k->npost,
		.post_len = k->npost,
	};
	memcpy(st->post, k->post, k->npost);
	st->filed_len = (uint8_t)(left < RW_FILED_MAX ? left : RW_FILED_MAX);
	memcpy(st->filed, elf_obj_bytes(s->o, site, st->filed_len, NULL),
	       st->filed_len);
	return 0;
}

/* The loads shape's site at site, its pre_len bytes of loads after the
 * mov: a mov shape's site with the loads between. */
static int loads_add(struct scan *s, uint64_t site, unsigned pre_len, int nr)
{
	struct rw_site *st;
	int err = site_add(s, &shapes[0], site, nr);

	if (err)
		return err;
	st = &s->out->site[s->out->n - 1];
	st->pre_len = (uint8_t)pre_len;
	st->resume = (uint8_t)(st->resume + pre_len);
	memcpy(st->pre, elf_obj_bytes(s->o, site + RW_SITE_LEN, pre_len, NULL),
	       pre_len);
	return 0;
}

/* The 0f 05 at vaddr judged by the rules of this file's comment. */
static int judge(struct scan *s, uint64_t vaddr)
{
	enum walk w = WALK_LOST;
	uint64_t site, back[BACK] = { UINT64_MAX, UINT64_MAX, UINT64_MAX },
		 prev;
	unsigned pre_len;
	const struct shape *k;
	struct range fn;
	uint32_t nr;

	if (function_of(s, vaddr, &fn))
		w = walk_to(s, fn, vaddr, back);
	if (w == WALK_INSIDE)
		return 0;
	s->out->syscalls++;
	prev = back[0];
	if (!(k = shape_of(s, vaddr, w == WALK_AT ? prev : UINT64_MAX))) {
		/* The loads shape is known by its decode alone. */
		if (w != WALK_AT || !loads_shape(s, vaddr, back, &site,
						 &pre_len)) {
			s->out->refused[RW_REFUSE_SHAPE]++;
			return 0;
		}
		memcpy(&nr, elf_obj_bytes(s->o, site + 1, 4, NULL), 4);
		if (nr >= NR_MAX || !(s->hot[nr / 8] & (1u << nr % 8)))
			s->out->refused[RW_REFUSE_NOT_HOT]++;
		else if (targeted(s, site + 1, site + RW_SITE_LEN - 1))
			s->out->refused[RW_REFUSE_TARGET]++;
		else
			return loads_add(s, site, pre_len, (int)nr);
		return 0;
	}
	site = vaddr - k->npre;
	nr = (uint32_t)k->nr;
	if (k->imm)
		memcpy(&nr, elf_obj_bytes(s->o, site + 1, 4, NULL), 4);
	if (nr >= NR_MAX || !(s->hot[nr / 8] & (1u << nr % 8)))
		s->out->refused[RW_REFUSE_NOT_HOT]++;
	else if (w != WALK_AT || prev != site)
		s->out->refused[RW_REFUSE_UNDECODED]++;
	else if (targeted(s, site + 1, site + k->len - 1))
		s->out->refused[RW_REFUSE_TARGET]++;
	else
		return site_add(s, k, site, (int)nr);
	return 0;
}

/* Every 0f 05 of an executable segment's file part, judged. */
static int scan_segment(struct scan *s, const struct elf_seg *seg)
{
	const unsigned char *p = elf_obj_bytes(s->o, seg->vaddr, seg->filesz,
					       NULL);
	uint64_t i;
	int err;

	if (!p || seg->filesz < 2)
		return 0;
	for (i = 0; i + 1 < seg->filesz; i++)
		if (p[i] == 0x0f && p[i + 1] == 0x05 &&
		    (err = judge(s, seg->vaddr + i)))
			return err;
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct rw_site *x = a, *y = b;

	return x->vaddr < y->vaddr ? -1 : x->vaddr > y->vaddr;
}

/* The object's sites into s->out; 0, or -errno. */
static int find(struct scan *s)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)s->o->image;
	const struct elf_seg *seg;
	int err;

	if (eh->e_type != ET_DYN && eh->e_type != ET_EXEC)
		return -ENOEXEC;
	if (!ZYAN_SUCCESS(ZydisDecoderInit(&s->dec, ZYDIS_MACHINE_MODE_LONG_64,
					   ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	if ((err = collect_ranges(s)) || (err = collect_targets(s)))
		return err;
	for (seg = s->o->segs; seg < s->o->segs + s->o->nsegs; seg++)
		if (seg->exec && (err = scan_segment(s, seg)))
			return err;
	sort(s->out->site, s->out->n, sizeof(*s->out->site), cmp_site);
	return 0;
}

int rw_sites_find(const char *path, const uint8_t hot[128],
		  struct rw_sites *out)
{
	struct scan s = { .hot = hot, .out = out };
	struct elf_obj *o;
	int err;

	memset(out, 0, sizeof(*out));
	err = elf_obj_load(path, 0, 0, &o);
	if (err)
		return err;
	s.o = o;
	err = find(&s);
	free(s.fde.r);
	free(s.fn.r);
	free(s.tgt);
	elf_obj_free(o);
	if (err)
		rw_sites_free(out);
	return err;
}

void rw_sites_free(struct rw_sites *s)
{
	free(s->site);
	memset(s, 0, sizeof(*s));
}
