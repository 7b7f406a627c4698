// SPDX-License-Identifier: MIT
/*
 * The FDEs of an object's .eh_frame (elfobj.h), walked for two readers:
 * the FDE search table of an object linked without .eh_frame_hdr (gcc
 * -static leaves it out), one (start, FDE) pair per FDE, relative to
 * the section's address, sorted, the layout libunwind searches in
 * .eh_frame_hdr; and the fast path's site finder, for which an FDE is
 * the range of a function (a stripped libc has no other).  Only what
 * they need is decoded: each CIE's augmentation for the FDE pointer
 * encoding, and each FDE's initial location (absolute or pc-relative,
 * 2, 4 or 8 bytes) and address range.  FDEs in other encodings, and
 * 64-bit DWARF entries, are left out: their code is not unwound, as if
 * it had no unwind info, and holds no site.
 */
#include <stdlib.h>
#include <string.h>
#include "elf/elfobj.h"

#define PE_OMIT 0xff

struct span {
	const unsigned char *p, *end;
};

static bool uleb(struct span *s, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (s->p < s->end && shift < 64) {
		*v |= (uint64_t)(*s->p & 0x7f) << shift;
		shift += 7;
		if (!(*s->p++ & 0x80))
			return true;
	}
	return false;
}

/* Size of a pointer in encoding enc; 0: one this file does not read. */
static unsigned enc_size(unsigned enc)
{
	switch (enc & 0x0f) {
	case 0x00: case 0x04: case 0x0c: return 8;
	case 0x03: case 0x0b: return 4;
	case 0x02: case 0x0a: return 2;
	}
	return 0;
}

/* The value at s->p in enc, pc-relative to vaddr of s->p if asked. */
static bool read_ptr(struct span *s, unsigned enc, uint64_t vaddr,
		     uint64_t *v)
{
	unsigned n = enc_size(enc);
	int64_t sv;
	uint64_t u = 0;

	if (!n || (enc & 0x70) > 0x10 || s->end - s->p < n)
		return false;
	memcpy(&u, s->p, n);
	if (enc & 0x08) {	/* signed: extend */
		sv = n == 2 ? (int16_t)u : n == 4 ? (int32_t)u : (int64_t)u;
		u = (uint64_t)sv;
	}
	s->p += n;
	*v = (enc & 0x70) == 0x10 ? vaddr + u : u;
	return true;
}

/* The FDE pointer encoding of the CIE in c ('z' augmentation 'R'). */
static unsigned cie_encoding(struct span c)
{
	const char *aug;
	uint64_t v;
	unsigned version;

	if (c.end - c.p < 2)
		return PE_OMIT;
	version = *c.p++;
	aug = (const char *)c.p;
	c.p = memchr(c.p, 0, (size_t)(c.end - c.p));
	if (!c.p || aug[0] != 'z')
		return aug[0] ? PE_OMIT : 0x00;
	c.p++;
	if (!uleb(&c, &v) || !uleb(&c, &v))	/* code, data align */
		return PE_OMIT;
	if (version == 1 ? c.p++ >= c.end : !uleb(&c, &v))
		return PE_OMIT;
	if (!uleb(&c, &v))			/* augmentation length */
		return PE_OMIT;
	for (aug++; *aug && c.p < c.end; aug++) {
		if (*aug == 'R')
			return *c.p;
		if (*aug == 'L') {
			c.p++;
		} else if (*aug == 'P') {
			/* the personality routine's pointer: skipped */
			if (!enc_size(*c.p))
				return PE_OMIT;
			c.p += 1 + enc_size(*c.p);
		}
	}
	return 0x00;
}

static int cmp_pair(const void *a, const void *b)
{
	const int32_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * The FDE at e (its length field, n bytes after it) of the section sec
 * (at vaddr, ending at end): the code it covers given to fn.  The range
 * has the encoding's size and sign, never its pc-relative base.
 */
static void read_fde(const unsigned char *sec, uint64_t vaddr,
		     const unsigned char *e, uint32_t n,
		     const unsigned char *end, elf_fde_fn *fn, void *ctx)
{
	uint32_t id;
	const unsigned char *cie;
	struct span c, f = { e + 8, e + 4 + n };
	uint32_t clen;
	uint64_t start, len;
	unsigned enc;

	memcpy(&id, e + 4, 4);
	cie = e + 4 - id;
	if (cie < sec || cie + 8 > end)
		return;
	memcpy(&clen, cie, 4);
	if (clen == 0xffffffff || cie + 4 + clen > end)
		return;
	c = (struct span){ cie + 8, cie + 4 + clen };
	enc = cie_encoding(c);
	if (enc == PE_OMIT ||
	    !read_ptr(&f, enc, vaddr + (uint64_t)(e + 8 - sec), &start) ||
	    !read_ptr(&f, enc & 0x0f, 0, &len))
		return;
	fn(ctx, start, len, (uint64_t)(e - sec));
}

void elf_fde_walk(const struct elf_obj *o, elf_fde_fn *fn, void *ctx)
{
	const unsigned char *sec, *e, *end;
	uint32_t n, id;

	if (o->ehf_size < 8)
		return;
	sec = o->image + o->ehf_off;
	end = sec + o->ehf_size;
	for (e = sec; end - e >= 8; e += 4 + n) {
		memcpy(&n, e, 4);
		if (!n || n == 0xffffffff || n > (uint64_t)(end - e - 4))
			break;
		memcpy(&id, e + 4, 4);
		if (id && n >= 8)
			read_fde(sec, o->ehf_vaddr, e, n, end, fn, ctx);
	}
}

/* Pairs o->synth has room for: an FDE takes 16 bytes at least. */
static size_t synth_cap(const struct elf_obj *o)
{
	return o->ehf_size / 16 + 1;
}

/* One FDE's pair appended to the table under way. */
static void add_pair(void *ctx, uint64_t start, uint64_t len,
		     uint64_t fde_off)
{
	struct elf_obj *o = ctx;

	(void)len;
	if (o->nsynth >= synth_cap(o))
		return;
	o->synth[2 * o->nsynth] = (int32_t)(start - o->ehf_vaddr);
	o->synth[2 * o->nsynth + 1] = (int32_t)fde_off;
	o->nsynth++;
}

void elf_synth_table(struct elf_obj *o)
{
	if (o->ehf_size < 8)
		return;
	o->synth = malloc(synth_cap(o) * 2 * sizeof(*o->synth));
	if (!o->synth)
		return;
	elf_fde_walk(o, add_pair, o);
	qsort(o->synth, o->nsynth, 2 * sizeof(*o->synth), cmp_pair);
	o->synth_base = o->ehf_vaddr;
}
