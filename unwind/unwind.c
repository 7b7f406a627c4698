// SPDX-License-Identifier: MIT
/*
 * The unwinder of the ptrace engine (-k): at a traced call's entry stop,
 * the task's user stack, by libunwind's remote unwinding over accessors
 * of our own (the stock _UPT_ ones read /proc/PID/maps and the object
 * files at every frame).  Per stop it costs one PTRACE_GETREGS and a
 * process_vm_readv per stack page touched: unwind tables are read from
 * the object files, mapped once (elf/elfobj.c), libunwind caches the
 * register rules of every IP it met (per process), and a stack already
 * seen (same process mappings, same return addresses) is found in a
 * fixed-size cache without being symbolized again.  Nothing here
 * allocates per stop; a process's map cache (its executable mappings
 * and their objects) is read from /proc when the process is first
 * unwound and again only when its mappings changed: execve, an mmap or
 * mprotect with PROT_EXEC (the loop says so), or once when a return
 * address lies in no known mapping (a dlopen the loop did not see).
 * Bounded: PROCS_MAX processes (least recently unwound go), ELF_OBJS_MAX
 * objects, RAW_SLOTS cached stacks, TRACER_STACKS_MAX interned stacks.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <libunwind.h>
#include <linux/audit.h>
#include "tracer/tracer.h"
#include "unwind/unwind-int.h"

/* libunwind looks FDEs up with this; exported, not declared. */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as,
					      unw_word_t ip,
					      unw_dyn_info_t *di,
					      unw_proc_info_t *pi,
					      int need_unwind_info, void *arg);

/* --- libunwind's accessors: arg is the unwinder --- */

/* The table libunwind searches for ip: .eh_frame_hdr's or ours. */
static int find_proc_info(unw_addr_space_t as, unw_word_t ip,
			  unw_proc_info_t *pi, int need, void *arg)
{
	struct unwinder *u = arg;
	const struct umap *m = unwind_map_of(u->proc, ip);
	unw_dyn_info_t di;

	if (!m || (!m->obj->eh_table && !m->obj->nsynth))
		return -UNW_ENOINFO;
	memset(&di, 0, sizeof(di));
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.start_ip = m->start;
	di.end_ip = m->end;
	if (m->obj->eh_table) {
		di.u.rti.segbase = m->bias + m->obj->eh_hdr;
		di.u.rti.table_data = m->bias + m->obj->eh_table;
		di.u.rti.table_len = m->obj->eh_nfdes;
	} else {
		di.u.rti.segbase = m->bias + m->obj->synth_base;
		di.u.rti.table_data = SYNTH_BASE +
				      ((uint64_t)m->obj->id << 32);
		di.u.rti.table_len = m->obj->nsynth;
	}
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need, arg);
}

static void put_unwind_info(unw_addr_space_t as, unw_proc_info_t *pi,
			    void *arg)
{
	(void)as, (void)pi, (void)arg;	/* libunwind frees what it made */
}

static int get_dyn_info_list_addr(unw_addr_space_t as, unw_word_t *addr,
				  void *arg)
{
	(void)as, (void)addr, (void)arg;
	return -UNW_ENOINFO;
}

static int access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val,
		      int write, void *arg)
{
	uint64_t lo, hi, shift = (addr & 7) * 8;

	(void)as;
	if (write)
		return -UNW_EINVAL;
	if (!shift)
		return unwind_read_word(arg, addr, val);
	/* Unaligned (libunwind reads aligned words; just in case). */
	if (unwind_read_word(arg, addr & ~7ull, &lo) < 0 ||
	    unwind_read_word(arg, (addr & ~7ull) + 8, &hi) < 0)
		return -UNW_EINVAL;
	*val = lo >> shift | hi << (64 - shift);
	return 0;
}

static int access_reg(unw_addr_space_t as, unw_regnum_t reg,
		      unw_word_t *val, int write, void *arg)
{
	struct unwinder *u = arg;

	(void)as;
	if (write || reg < 0 || reg > UNW_X86_64_RIP)
		return -UNW_EBADREG;
	*val = unwind_reg(&u->regs, reg);
	memo_note_reg(u, reg, *val);
	return 0;
}

static int access_fpreg(unw_addr_space_t as, unw_regnum_t reg,
			unw_fpreg_t *val, int write, void *arg)
{
	(void)as, (void)reg, (void)val, (void)write, (void)arg;
	return -UNW_EBADREG;
}

static int resume(unw_addr_space_t as, unw_cursor_t *c, void *arg)
{
	(void)as, (void)c, (void)arg;
	return -UNW_EINVAL;
}

static int get_proc_name(unw_addr_space_t as, unw_word_t addr, char *buf,
			 size_t len, unw_word_t *off, void *arg)
{
	(void)as, (void)addr, (void)buf, (void)len, (void)off, (void)arg;
	return -UNW_ENOINFO;	/* symbols are ours (elf/elfobj.c) */
}

/* --- stacks --- */

/* The return addresses of the task, innermost first; how many. */
static size_t walk(struct unwinder *u, uint64_t *pcs, bool *truncated)
{
	unw_cursor_t c;
	unw_word_t ip;
	size_t n = 0;
	int r;

	*truncated = true;
	if (unw_init_remote(&c, u->proc->as, u) < 0)
		return 0;
	do {
		r = unw_get_reg(&c, UNW_REG_IP, &ip);
		if (r < 0 || !ip)
			break;	/* ip 0: the outermost frame's caller */
		if (!unwind_map_of(u->proc, ip) && !u->proc->missed) {
			/* Code mapped unseen (dlopen): read the maps once. */
			u->proc->missed = true;
			unwind_maps_read(u, u->proc);
		}
		pcs[n++] = ip;
		if (!unwind_map_of(u->proc, ip))
			return n;	/* JIT code, garbage: stop here */
		r = n < u->depth ? unw_step(&c) : 0;
	} while (r > 0);
	*truncated = n < u->depth && r < 0;
	return n;
}

/* One frame, named: the caller's frames by the call (ip - 1). */
static void frame_of(const struct uproc *p, uint64_t pc, bool leaf,
		     struct tracer_frame *f)
{
	const struct umap *m = unwind_map_of(p, pc);
	const struct elf_sym *s;
	uint64_t vaddr;

	*f = (struct tracer_frame){ "", NULL, pc };
	if (!m)
		return;
	vaddr = pc - m->bias;
	s = elf_obj_symbol(m->obj, leaf ? vaddr : vaddr - 1);
	f->object = m->obj->path;
	f->function = s ? s->name : NULL;
	f->offset = s ? vaddr - s->addr : vaddr;
}

static uint32_t intern(struct unwinder *u, const uint64_t *pcs, size_t n,
		       bool truncated)
{
	struct tracer_frame f[TRACER_STACK_MAX];
	size_t i;

	for (i = 0; i < n; i++)
		frame_of(u->proc, pcs[i], i == 0, &f[i]);
	return tracer_stacks_intern(u->st, f, n, truncated);
}

static uint64_t raw_hash(uint64_t gen, const uint64_t *pcs, size_t n)
{
	uint64_t h = gen * 0x9e3779b97f4a7c15ull;

	while (n--)
		h = (h ^ *pcs++) * 0x100000001b3ull;
	return h ^ h >> 29;
}

/* The id of the stack in pcs: cached, else symbolized and interned. */
static uint32_t stack_id(struct unwinder *u, const uint64_t *pcs, size_t n,
			 bool truncated)
{
	uint64_t h = raw_hash(u->proc->gen, pcs, n) + truncated;
	size_t i = (size_t)h & (RAW_SLOTS - 1);
	struct raw_slot *s = &u->raw[i];
	uint64_t *spcs = u->raw_pcs + i * u->depth;

	if (s->id != TRACER_ID_NONE && s->hash == h && s->gen == u->proc->gen &&
	    s->n == n && s->truncated == truncated &&
	    !memcmp(spcs, pcs, n * sizeof(*pcs)))
		return s->id;
	s->id = intern(u, pcs, n, truncated);
	s->hash = h;
	s->gen = u->proc->gen;
	s->n = (uint16_t)n;
	s->truncated = truncated;
	memcpy(spcs, pcs, n * sizeof(*pcs));
	return s->id;
}

/* The stack of u->regs in u->proc: remembered, or unwound and kept. */
static uint32_t unwind_now(struct unwinder *u)
{
	uint64_t pcs[TRACER_STACK_MAX];
	bool truncated;
	uint32_t id;
	size_t n;

	id = memo_find(u);
	if (id != TRACER_ID_NONE)
		return id;
	memo_begin(u);
	n = walk(u, pcs, &truncated);
	/* No maps (the process is gone): nothing to name the frames by. */
	id = u->proc->nmaps ? stack_id(u, pcs, n, truncated) : TRACER_ID_NONE;
	memo_keep(u, id);
	return id;
}

/* Whether this call of nr is one of the 1 in u->sample unwound. */
static bool sampled(struct unwinder *u, int nr)
{
	if (u->sample <= 1)
		return true;
	if (nr < 0 || nr >= SYSCALL_SET_MAX)
		return true;
	return u->counts[nr]++ % u->sample == 0;
}

unsigned unwinder_sample_wait(const struct unwinder *u, int nr)
{
	if (!u || u->sample <= 1 || nr < 0 || nr >= SYSCALL_SET_MAX)
		return 0;
	return (u->sample - u->counts[nr] % u->sample) % u->sample;
}

uint32_t unwinder_stack(struct unwinder *u, pid_t tid, pid_t tgid,
			uint32_t arch, int nr, uint64_t at, bool force)
{
	/* libunwind here unwinds x86_64 code only. */
	if (arch != AUDIT_ARCH_X86_64 || (!force && !sampled(u, nr)))
		return TRACER_ID_NONE;
	u->proc = unwind_proc_get(u, tgid);
	if (!u->proc || ptrace(PTRACE_GETREGS, tid, 0L, &u->regs) < 0)
		return TRACER_ID_NONE;
	if (at)
		u->regs.rip = at;
	u->tid = tid;
	u->proc->used = ++u->clock;
	if (u->proc->dirty)
		unwind_maps_read(u, u->proc);
	return unwind_now(u);
}

/* --- the unwinder --- */

struct unwinder *unwinder_new(struct tracer_stacks *st, unsigned depth,
			      unsigned sample)
{
	struct unwinder *u = calloc(1, sizeof(*u));

	if (!u)
		return NULL;
	u->st = st;
	u->depth = depth && depth <= TRACER_STACK_MAX ? depth :
		   TRACER_STACK_DEPTH;
	u->sample = sample;
	u->raw = calloc(RAW_SLOTS, sizeof(*u->raw));
	u->raw_pcs = calloc((size_t)RAW_SLOTS * u->depth, sizeof(uint64_t));
	u->counts = calloc(SYSCALL_SET_MAX, sizeof(*u->counts));
	if (!u->raw || !u->raw_pcs || !u->counts) {
		unwinder_free(u);
		return NULL;
	}
	u->acc = (unw_accessors_t){
		.find_proc_info = find_proc_info,
		.put_unwind_info = put_unwind_info,
		.get_dyn_info_list_addr = get_dyn_info_list_addr,
		.access_mem = access_mem,
		.access_reg = access_reg,
		.access_fpreg = access_fpreg,
		.resume = resume,
		.get_proc_name = get_proc_name,
	};
	return u;
}

void unwinder_free(struct unwinder *u)
{
	unsigned i;

	if (!u)
		return;
	for (i = 0; i < PROCS_MAX; i++)
		unwind_proc_release(&u->procs[i]);
	for (i = 0; i < u->nobjs; i++)
		elf_obj_free(u->objs[i]);
	free(u->memo);
	free(u->raw);
	free(u->raw_pcs);
	free(u->counts);
	free(u);
}
