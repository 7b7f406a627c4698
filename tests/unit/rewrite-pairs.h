/* SPDX-License-Identifier: MIT */
/*
 * The two-fd calls' trampoline variants (tramp-tmpl.S's TT_PAIRS), as
 * the tests of their code walk them: splice's and copy_file_range's
 * registers (source rdi, destination rdx, size r8), then sendfile's
 * (rsi, rdi, r10), each without then with -k's samples.
 */
#ifndef IOTRACE_REWRITE_PAIRS_H
#define IOTRACE_REWRITE_PAIRS_H

#include "tracer/rewrite/rewrite.h"

#define PAIR_VARIANTS 4

/* Variant k (0 .. PAIR_VARIANTS - 1) of the two-fd calls, set in s. */
static inline void pair_variant(struct rw_tramp_spec *s, int k)
{
	static const enum rw_reg regs[][3] = {
		{ RW_RDI, RW_RDX, RW_R8 }, { RW_RSI, RW_RDI, RW_R10 },
	};

	s->two_fd = s->moves_data = true;
	s->fd_reg = regs[k / 2][0];
	s->fd2_reg = regs[k / 2][1];
	s->size_reg = regs[k / 2][2];
	s->sample = k % 2 ? 16 : 0;
}

#endif
