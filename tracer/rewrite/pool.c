// SPDX-License-Identifier: MIT
/*
 * The pool P: one address range per run, the same in every process of
 * the run, where the trampolines run.  The run's seccomp filter, built
 * before the command starts (seccomp.c), begins with a test of the
 * call's instruction pointer: a call made from inside P's code is
 * allowed before the filter's usual plan, so it costs no ptrace stop.
 * Any other call, a program's own raw `syscall` included, goes through
 * the plan as before.
 *
 * P is picked at random in [RW_POOL_LO, RW_POOL_HI): far below where the
 * kernel puts mmap()s without a hint (top-down from under the stack,
 * 0x7f...) and far above a PIE executable and its heap (0x55..0x56...),
 * so neither the program's mappings nor the loader's collide with it;
 * iotrace maps it with MAP_FIXED_NOREPLACE all the same, and a process
 * where it cannot is left to ptrace.  P never crosses a 4 GiB boundary,
 * so the filter compares the pointer's high word once.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "tracer/rewrite/rewrite.h"

#define RW_POOL_LO 0x200000000000ull
#define RW_POOL_HI 0x400000000000ull

uint64_t rw_pool_pick(void)
{
	uint64_t r = 0, span = (RW_POOL_HI - RW_POOL_LO) >> 32;
	uint64_t base;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (uint64_t)rand() << 31 ^ (uint64_t)rand();
	/* a 4 GiB region at random, then a page-aligned offset in it
	   leaving room for the whole pool */
	base = RW_POOL_LO + ((r % span) << 32);
	base += ((r >> 32) % ((1ull << 32) - RW_POOL_SIZE)) & ~0xfffull;
	return base;
}

#define IP_LO offsetof(struct seccomp_data, instruction_pointer)
#define IP_HI (IP_LO + 4)

int rw_filter_allow_pool(struct sock_filter **bpf, unsigned short *len,
			 uint64_t lo, uint64_t size)
{
	uint32_t hi = (uint32_t)(lo >> 32), lo32 = (uint32_t)lo;
	/*
	 * Jump offsets count from the next instruction: 3 and 2 go past
	 * the ALLOW to the plan, which follows unchanged (its own jumps
	 * are relative, so prefixing keeps them right).
	 */
	const struct sock_filter prefix[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, IP_HI),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, hi, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, IP_LO),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, lo32, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, lo32 + (uint32_t)size, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	size_t n = sizeof(prefix) / sizeof(prefix[0]);
	struct sock_filter *out;

	if (!size || (lo & 0xfff) || size > (1ull << 32) ||
	    (lo >> 32) != ((lo + size - 1) >> 32) ||
	    (size_t)*len + n > 0xffff)
		return -EINVAL;
	out = malloc((*len + n) * sizeof(*out));
	if (!out)
		return -ENOMEM;
	memcpy(out, prefix, sizeof(prefix));
	memcpy(out + n, *bpf, *len * sizeof(*out));
	free(*bpf);
	*bpf = out;
	*len = (unsigned short)(*len + n);
	return 0;
}
