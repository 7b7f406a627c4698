// SPDX-License-Identifier: MIT
/*
 * Unit tests of rw_tramp_unlock() (tracer/rewrite/tramp.c): the twin a
 * process of one thread runs has each lock prefix of the trampoline's
 * code turned into a ds prefix (ignored: the instruction stays one, as
 * many to decode as with the lock), and a sized call's `lock
 * cmpxchg16b; jne` of the size pair two stores of the pair, and nothing
 * else changed, so every offset rw_tramp_leave() knows stays; its
 * constants (which may hold 0xf0 bytes) are never touched; code that is
 * not what emit wrote is refused whole.  What the twin counts: test-rewrite-count.c.
 */
#include <string.h>
#include <Zydis/Zydis.h>
#include "tracer/rewrite/rewrite.h"
#include "tests/unit/rewrite-pairs.h"
#include "tests/unit/tap.h"

/* Locked instructions in buf's first n bytes, decoded, and in *insns
 * how many instructions they are; -1: undecodable. */
static int decoded(const uint8_t *buf, size_t n, int *insns)
{
	ZydisDecodedInstruction insn;
	ZydisDecoderContext ctx;
	ZydisDecoder dec;
	size_t off = 0;
	int locked = 0;

	*insns = 0;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64,
			 ZYDIS_STACK_WIDTH_64);
	while (off < n) {
		if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&dec, &ctx,
				buf + off, n - off, &insn)))
			return -1;
		locked += !!(insn.attributes & ZYDIS_ATTRIB_HAS_LOCK);
		off += insn.length;
		++*insns;
	}
	return locked;
}

/* Where the code ends: the first constant is site + resume or the stub,
 * which emit put as 8 bytes the test can find. */
static size_t code_end(const uint8_t *buf, size_t len, uint64_t v)
{
	size_t i;

	for (i = 0; i + 8 <= len; i++)
		if (!memcmp(buf + i, &v, 8))
			return i;
	return len;
}

/* lock cmpxchg16b 48(%r11); jne: the size pair's update, and the twin's
 * mov %rbx,48(%r11); mov %rcx,56(%r11) in its 8 bytes. */
static const uint8_t pair_cas[7] = { 0xf0, 0x49, 0x0f, 0xc7, 0x4b, 48, 0x75 };
static const uint8_t pair_stores[8] = { 0x49, 0x89, 0x5b, 48,
					0x49, 0x89, 0x4b, 56 };

/* Where a's code (end bytes) has the pair's update, or end. */
static size_t pair_at(const uint8_t *a, size_t end)
{
	const uint8_t *p = memmem(a, end, pair_cas, sizeof(pair_cas));

	return p ? (size_t)(p - a) : end;
}

/* s's trampoline and its twin: only the code's lock prefixes differ (ds
 * prefixes in the twin, as many instructions), and the size pair's
 * update of a sized call, which became its stores. */
static bool unlocks_right(const struct rw_tramp_spec *s, size_t *n)
{
	uint8_t a[RW_TRAMP_MAX], b[RW_TRAMP_MAX];
	size_t len, i, end, pair;
	int locked, insns_a, insns_b;

	len = rw_tramp_emit(a, s);
	memcpy(b, a, len);
	*n = rw_tramp_unlock(b, len, s);
	end = code_end(a, len, s->fd_reg == RW_NOREG && !s->sample ?
		       s->site + s->resume : s->stub);
	pair = pair_at(a, end);
	if ((pair < end) != (s->size_reg != RW_NOREG) ||
	    (pair < end && memcmp(b + pair, pair_stores, sizeof(pair_stores))))
		return false;
	for (i = 0; i < len; i++)
		if (a[i] != b[i] && (i < pair || i >= pair + 8) &&
		    (a[i] != 0xf0 || b[i] != 0x3e || i >= end))
			return false;
	locked = decoded(a, end, &insns_a);
	return len && *n > 0 && (int)*n == locked &&
	       decoded(b, end, &insns_b) == 0 && insns_b == insns_a &&
	       !memcmp(a + end, b + end, len - end);
}

static void test_variants(void)
{
	struct rw_tramp_spec s;
	bool right;
	size_t n;
	int r, m;

	memset(&s, 0, sizeof(s));
	s.at = 0x200000000000ull;
	s.site = 0x7f0000001000ull;
	s.stub = 0x7f0000f00000ull + RW_ISLAND_STUB;
	s.resume = 7;
	s.nr = 1;
	/* counters whose bytes hold 0xf0: a constant emit writes must not
	   be taken for a prefix */
	s.counters = 0x2000f0f0f000ull;
	s.mult = 0xf0f0f0f0ull;
	for (r = RW_NOREG; r <= RW_R9; r++) {
		for (m = 0; m < 8; m++) {
			s.fd_reg = r;
			s.moves_data = m & 1;
			s.size_reg = m & 2 ? RW_RDX : RW_NOREG;
			s.sample = m & 4 ? 16 : 0;
			right = unlocks_right(&s, &n);
			ok(right,
			   "fd register %d, moves %d, size %d, sampled %d: "
			   "%zu lock prefixes out%s, nothing else "
			   "changed", r, m & 1, s.size_reg, !!(m & 4), n,
			   m & 2 ? ", the size pair stored" : "");
		}
	}
	for (r = 0; r < PAIR_VARIANTS; r++) {
		pair_variant(&s, r);
		right = unlocks_right(&s, &n);
		ok(right, "two fds in %d and %d, size %d, "
		   "sampled %d: %zu lock prefixes out, the size pair stored, "
		   "nothing else changed",
		   s.fd_reg, s.fd2_reg, s.size_reg, r % 2, n);
	}
}

static void test_refused(void)
{
	struct rw_tramp_spec s;
	uint8_t a[RW_TRAMP_MAX], b[RW_TRAMP_MAX];
	size_t len;

	memset(&s, 0, sizeof(s));
	s.site = 0x7f0000001000ull;
	s.stub = 0x7f0000f00000ull + RW_ISLAND_STUB;
	s.resume = 7;
	s.nr = 1;
	s.fd_reg = RW_RDI;
	s.size_reg = RW_RDX;
	len = rw_tramp_emit(a, &s);
	memset(a, 0x0f, 16);	/* 0f 0f...: no instruction */
	memcpy(b, a, len);
	ok(len && rw_tramp_unlock(b, len, &s) == 0 && !memcmp(a, b, len),
	   "code that is not emit's (16 bytes changed): refused, left as "
	   "it was");
	ok(rw_tramp_unlock(b, len - 1 < 8 ? 0 : 8, &s) == 0,
	   "a buffer shorter than the trampoline: refused");
}

/*
 * The post is the program's own instruction, displaced: a lock prefix it
 * has is the program's, and stays in the twin (only the trampoline's
 * own prefixes go).
 */
static void test_post_kept(void)
{
	static const uint8_t post[3] = { 0xf0, 0x01, 0x03 };	/* lock add */
	struct rw_tramp_spec s;
	uint8_t a[RW_TRAMP_MAX];
	size_t len, n;

	memset(&s, 0, sizeof(s));
	s.site = 0x7f0000001000ull;
	s.stub = 0x7f0000f00000ull + RW_ISLAND_STUB;
	s.resume = 12;
	s.post_len = sizeof(post);
	memcpy(s.post, post, sizeof(post));
	s.nr = 1;
	s.fd_reg = RW_RDI;
	s.size_reg = RW_RDX;
	len = rw_tramp_emit(a, &s);
	n = len ? rw_tramp_unlock(a, len, &s) : 0;
	ok(n > 0 && memmem(a, len, post, sizeof(post)),
	   "a post with a lock prefix: %zu of the trampoline's prefixes out, "
	   "the post's kept", n);
}

int main(void)
{
	test_variants();
	test_refused();
	test_post_kept();
	return done_testing();
}
