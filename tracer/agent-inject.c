// SPDX-License-Identifier: MIT
/*
 * How the agent gets into a program: after each execve, at the call's
 * exit stop, before the program's first instruction (the dynamic
 * loader's or a static binary's), the tracer maps the agent's image into
 * it and runs its boot entry there.  No dynamic loader is involved: the
 * program's environment, its loader's calls and allocations, its TLS and
 * its list of libraries are what they would be untraced (LD_PRELOAD made
 * the loader map one more page in some programs, and had to be hidden
 * from the environment).  The agent links nothing (agent/libc.c), so it
 * needs no loader, and its only relocations are relative (the Makefile
 * checks), applied here.
 *
 * The steps, each a stop of the loop (a signal may come between two, and
 * is delivered as ever):
 *   1. execve's exit: the registers are saved, the word at the entry
 *      point is replaced by a syscall instruction, and mmap is made from
 *      there (anonymous, read-write: the image's span);
 *   2. its exit: the image, relocated to where it landed, with the
 *      counters' path and the process's vDSO clock in its configuration,
 *      is written with process_vm_writev (or word by word with ptrace
 *      where that is refused); mprotect makes its code executable;
 *   3. its exit: the entry point's word is put back, and the task goes on
 *      in the agent's boot entry, on the program's stack below what the
 *      kernel put there; boot says HELLO, arms, and ends with ARMED or
 *      FALLBACK, at which the registers of step 1 are put back and the
 *      marker skipped (agent_inject_done()).
 * The injected calls are iotrace's: hidden like the agent's own.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include "tracer/agent-int.h"

#define PAGE 4096ul
#define PAGE_UP(x) (((x) + PAGE - 1) & ~(PAGE - 1))
#define SYSCALL_INSN 0x050fu	/* 0f 05, little-endian */

/* The section headers of the ELF image elf (size bytes), or NULL. */
static const Elf64_Shdr *sections(const unsigned char *elf, size_t size,
				  size_t *n)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return NULL;
	*n = eh->e_shnum;
	return (const Elf64_Shdr *)(elf + eh->e_shoff);
}

/* The value of the dynamic symbol name in elf, or 0. */
static uint64_t elf_symbol(const unsigned char *elf, size_t size,
			   const char *name)
{
	const Elf64_Shdr *sh, *str;
	const Elf64_Sym *sym;
	size_t n, i, j;

	sh = sections(elf, size, &n);
	for (i = 0; sh && i < n; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= n ||
		    sh[i].sh_offset > size ||
		    sh[i].sh_size > size - sh[i].sh_offset)
			continue;
		str = &sh[sh[i].sh_link];
		if (str->sh_offset > size || str->sh_size > size - str->sh_offset)
			continue;
		sym = (const Elf64_Sym *)(elf + sh[i].sh_offset);
		for (j = 0; j < sh[i].sh_size / sizeof(*sym); j++)
			if (sym[j].st_name < str->sh_size && sym[j].st_value &&
			    !strncmp((const char *)elf + str->sh_offset +
				     sym[j].st_name, name,
				     str->sh_size - sym[j].st_name))
				return sym[j].st_value;
	}
	return 0;
}

/*
 * Where clock_gettime is in the vDSO, from iotrace's own (every 64-bit
 * process of this kernel has the same image): an offset, or 0.
 */
static uint64_t vdso_clock_offset(void)
{
	const unsigned char *vdso =
		(const unsigned char *)getauxval(AT_SYSINFO_EHDR);

	/* The image is two pages or so; its headers say where the rest is. */
	return vdso ? elf_symbol(vdso, 2 * PAGE, "__vdso_clock_gettime") : 0;
}

/* The segments into im->bytes, the code's pages, the span. */
static int lay_out(struct agent_image *im, const unsigned char *elf,
		   size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
	const Elf64_Phdr *ph;
	uint64_t end = 0;
	int i;

	if (eh->e_phentsize != sizeof(*ph) || eh->e_phoff > size ||
	    (size - eh->e_phoff) / sizeof(*ph) < eh->e_phnum)
		return -ENOEXEC;
	ph = (const Elf64_Phdr *)(elf + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_vaddr + ph[i].p_memsz > end)
			end = ph[i].p_vaddr + ph[i].p_memsz;
	im->span = PAGE_UP(end);
	if (!im->span || im->span > (1u << 24))
		return -ENOEXEC;
	im->bytes = calloc(2, im->span);	/* and the scratch copy */
	if (!im->bytes)
		return -ENOMEM;
	im->scratch = im->bytes + im->span;
	for (i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		if (ph[i].p_offset > size || ph[i].p_filesz > size - ph[i].p_offset ||
		    ph[i].p_filesz > ph[i].p_memsz)
			return -ENOEXEC;
		memcpy(im->bytes + ph[i].p_vaddr, elf + ph[i].p_offset,
		       ph[i].p_filesz);
		if (ph[i].p_flags & PF_X) {
			im->text_lo = ph[i].p_vaddr & ~(PAGE - 1);
			im->text_len = PAGE_UP(ph[i].p_vaddr + ph[i].p_memsz) -
				       im->text_lo;
		}
	}
	return im->text_len ? 0 : -ENOEXEC;
}

/* The relocations, kept: relative ones only (anything else: -ENOEXEC). */
static int take_relocs(struct agent_image *im, const unsigned char *elf,
		       size_t size)
{
	const Elf64_Shdr *sh;
	const Elf64_Rela *r;
	size_t n, i, j, k = 0, total = 0;

	sh = sections(elf, size, &n);
	if (!sh)
		return -ENOEXEC;
	for (i = 0; i < n; i++)
		if (sh[i].sh_type == SHT_RELA)
			total += sh[i].sh_size / sizeof(*r);
	im->rela = calloc(total ? total : 1, sizeof(*im->rela));
	if (!im->rela)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (sh[i].sh_type != SHT_RELA)
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			return -ENOEXEC;
		r = (const Elf64_Rela *)(elf + sh[i].sh_offset);
		for (j = 0; j < sh[i].sh_size / sizeof(*r); j++) {
			if (ELF64_R_TYPE(r[j].r_info) != R_X86_64_RELATIVE ||
			    r[j].r_offset + 8 > im->span)
				return -ENOEXEC;
			im->rela[k++] = r[j];
		}
	}
	im->nrela = k;
	return 0;
}

static int read_file(const char *path, unsigned char **buf, size_t *size)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size <= 0 || st.st_size > (1 << 24))
		err = -ENOEXEC;
	else if (!(*buf = malloc((size_t)st.st_size)))
		err = -ENOMEM;
	else if (pread(fd, *buf, (size_t)st.st_size, 0) != st.st_size)
		err = -EIO;
	if (!err)
		*size = (size_t)st.st_size;
	close(fd);
	return err;
}

int agent_image_load(struct agent_image *im, const char *path)
{
	unsigned char *elf = NULL;
	size_t size = 0;
	int err;

	memset(im, 0, sizeof(*im));
	err = read_file(path, &elf, &size);
	if (err < 0)
		return err;
	err = lay_out(im, elf, size);
	if (!err)
		err = take_relocs(im, elf, size);
	im->boot = elf_symbol(elf, size, AGENT_SYM_BOOT);
	im->cfg = elf_symbol(elf, size, AGENT_SYM_CFG);
	im->vblocked = elf_symbol(elf, size, AGENT_SYM_VBLOCKED);
	im->region = elf_symbol(elf, size, AGENT_SYM_REGION);
	if (!err && (!im->boot || !im->cfg || !im->vblocked || !im->region ||
		     im->cfg + sizeof(struct agent_cfg) > im->span ||
		     im->vblocked + sizeof(int32_t) * AGENT_VBLOCKED_SLOTS >
		     im->span))
		err = -ENOEXEC;
	im->vdso_clock = vdso_clock_offset();
	free(elf);
	if (err < 0)
		agent_image_release(im);
	return err;
}

void agent_image_release(struct agent_image *im)
{
	free(im->bytes);
	free(im->rela);
	memset(im, 0, sizeof(*im));
}

/* Where tid's vDSO is (one /proc read per execve), or 0. */
static uint64_t vdso_of(pid_t tid)
{
	return task_auxv(tid, AT_SYSINFO_EHDR);
}

/* Makes the task, at a syscall stop, call nr(a, b, c, d) from ip next. */
static int call_next(pid_t tid, const struct user_regs_struct *from,
		     long nr, uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	struct user_regs_struct r = *from;

	r.orig_rax = (uint64_t)-1;
	r.rax = (uint64_t)nr;
	r.rdi = a;
	r.rsi = b;
	r.rdx = c;
	r.r10 = d;
	r.r8 = (uint64_t)-1;
	r.r9 = 0;
	return ptrace(PTRACE_SETREGS, tid, 0L, &r) < 0 ? -errno : 0;
}

bool agent_inject_start(struct loop *l, struct task *t)
{
	const struct agent_image *im = &l->agent->image;
	long word;

	if (!im->span ||
	    ptrace(PTRACE_GETREGS, t->tid, 0L, &t->agent_regs) < 0)
		return false;
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)t->agent_regs.rip, 0L);
	if (errno)
		return false;
	t->agent_word = (uint64_t)word;
	if (ptrace(PTRACE_POKETEXT, t->tid, (void *)t->agent_regs.rip,
		   (void *)((t->agent_word & ~0xffffull) | SYSCALL_INSN)) < 0)
		return false;
	if (call_next(t->tid, &t->agent_regs, SYS_mmap, 0, im->span,
		      PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS) < 0) {
		ptrace(PTRACE_POKETEXT, t->tid, (void *)t->agent_regs.rip,
		       (void *)t->agent_word);
		return false;
	}
	t->agent = AGENT_T_INJ_MAP;
	return true;
}

/*
 * n bytes at buf into tid's memory at addr, a word at a time: where
 * process_vm_writev is refused (a container's seccomp profile), ptrace's
 * own access still works, at ~1 us a word (36 KiB: ~5 ms an execve).
 */
static int poke(pid_t tid, uint64_t addr, const unsigned char *buf, size_t n)
{
	uint64_t word;
	size_t i;

	for (i = 0; i + sizeof(word) <= n; i += sizeof(word)) {
		memcpy(&word, buf + i, sizeof(word));
		if (ptrace(PTRACE_POKEDATA, tid, (void *)(addr + i),
			   (void *)word) < 0)
			return -errno;
	}
	return 0;
}

/* The image relocated to base, configured for t, into t's memory. */
static int write_image(const struct agent_run *ar, const struct task *t,
		       uint64_t base)
{
	const struct agent_image *im = &ar->image;
	struct agent_cfg *cfg = (struct agent_cfg *)(im->scratch + im->cfg);
	struct iovec local = { im->scratch, im->span };
	struct iovec remote = { (void *)base, im->span };
	uint64_t vdso = im->vdso_clock ? vdso_of(t->tid) : 0;
	size_t i;

	memcpy(im->scratch, im->bytes, im->span);
	for (i = 0; i < im->nrela; i++)
		*(uint64_t *)(im->scratch + im->rela[i].r_offset) =
			base + (uint64_t)im->rela[i].r_addend;
	memcpy(cfg->shm_path, ar->shm_path, sizeof(cfg->shm_path));
	cfg->clock_fn = vdso ? vdso + im->vdso_clock : 0;
	if (process_vm_writev(t->tid, &local, 1, &remote, 1, 0) ==
	    (ssize_t)im->span)
		return 0;
	return poke(t->tid, base, im->scratch, im->span);
}

/* The program as it was at step 1, the entry point's word back. */
static void put_back(struct task *t, bool skip_call)
{
	struct user_regs_struct r = t->agent_regs;

	ptrace(PTRACE_POKETEXT, t->tid, (void *)r.rip, (void *)t->agent_word);
	if (skip_call)
		r.orig_rax = (uint64_t)-1;
	ptrace(PTRACE_SETREGS, t->tid, 0L, &r);
}

/* Step 3's start: the entry word back, the task on to boot. */
static int boot(struct task *t, const struct agent_image *im)
{
	struct user_regs_struct r = t->agent_regs;

	if (ptrace(PTRACE_POKETEXT, t->tid, (void *)r.rip,
		   (void *)t->agent_word) < 0)
		return -errno;
	r.orig_rax = (uint64_t)-1;
	r.rip = t->agent_base + im->boot;
	r.rsp = ((r.rsp - PAGE) & ~15ull) - 8;	/* as if called */
	if (ptrace(PTRACE_SETREGS, t->tid, 0L, &r) < 0)
		return -errno;
	t->agent = AGENT_T_NONE;
	t->agent_booting = true;
	return 0;
}

/*
 * Steps 2 and 3; a failure leaves the program to ptrace, and what was
 * mapped goes again (munmap from the same instruction), so the program
 * has no trace of it: an mprotect refused (a security policy against
 * executable anonymous memory) left 36 KiB of it in every program.
 */
void agent_inject_step(struct loop *l, struct task *t, int64_t ret)
{
	const struct agent_image *im = &l->agent->image;
	bool failed = ret < 0 && ret >= -4095;

	switch (t->agent) {
	case AGENT_T_INJ_MAP:
		if (failed)
			goto out_fail;
		t->agent_base = (uint64_t)ret;
		if (write_image(l->agent, t, t->agent_base) < 0 ||
		    call_next(t->tid, &t->agent_regs, SYS_mprotect,
			      t->agent_base + im->text_lo, im->text_len,
			      PROT_READ | PROT_EXEC, 0) < 0)
			goto out_unmap;
		t->agent = AGENT_T_INJ_PROT;
		return;
	case AGENT_T_INJ_PROT:
		if (failed)
			goto out_unmap;
		if (boot(t, im) < 0)
			goto out_fail;
		return;
	default:	/* AGENT_T_INJ_UNMAP: unmapped */
		if (t->agent_off_after) {
			put_back(t, false);
			t->agent = AGENT_T_OFF;
			t->agent_off_after = false;
			return;
		}
		goto out_fail;
	}
out_unmap:
	if (call_next(t->tid, &t->agent_regs, SYS_munmap, t->agent_base,
		      im->span, 0, 0) == 0) {
		t->agent = AGENT_T_INJ_UNMAP;
		return;
	}
out_fail:
	put_back(t, false);
	t->agent = AGENT_T_NONE;
	t->agent_why = AGENT_WHY_NOT_LOADED;
}

/*
 * Boot's FALLBACK marker (SIGSYS not free, no counters, no dispatch): the
 * agent is no use to the program, which ptrace measures; the marker,
 * stopped at its seccomp stop, becomes munmap of the agent (the kernel
 * runs the call the tracer leaves there), and its exit stop puts the
 * program's registers back.  Where that cannot be set up, the registers
 * go back now and the agent stays mapped, unused.
 */
void agent_inject_unmap(struct loop *l, struct task *t)
{
	struct user_regs_struct r;

	t->agent_booting = false;
	if (ptrace(PTRACE_GETREGS, t->tid, 0L, &r) < 0)
		goto out_put_back;
	r.orig_rax = SYS_munmap;
	r.rdi = t->agent_base;
	r.rsi = l->agent->image.span;
	if (ptrace(PTRACE_SETREGS, t->tid, 0L, &r) < 0)
		goto out_put_back;
	t->agent = AGENT_T_INJ_UNMAP;
	t->agent_off_after = true;
	return;
out_put_back:
	put_back(t, true);
}

void agent_inject_done(struct task *t)
{
	put_back(t, true);
	t->agent_booting = false;
}

/* n bytes of tid's memory at addr: process_vm_readv, else ptrace's. */
static int peek(pid_t tid, uint64_t addr, void *buf, size_t n)
{
	struct iovec local = { buf, n }, remote = { (void *)addr, n };
	uint64_t word, from = addr & ~7ull;
	size_t i;

	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)n)
		return 0;
	for (i = 0; from + i < addr + n; i += sizeof(word)) {
		errno = 0;
		word = (uint64_t)ptrace(PTRACE_PEEKDATA, tid,
					(void *)(from + i), 0L);
		if (errno)
			return -errno;
		/* the part of this word inside [addr, addr + n) */
		{
			uint64_t lo = from + i < addr ? addr : from + i;
			uint64_t hi = from + i + 8 > addr + n ? addr + n :
				      from + i + 8;

			memcpy((char *)buf + (lo - addr),
			       (char *)&word + (lo - (from + i)), hi - lo);
		}
	}
	return 0;
}

/* One 32-bit value into tid's memory at addr (4-aligned). */
static void poke32(pid_t tid, uint64_t addr, int32_t v)
{
	struct iovec local = { &v, sizeof(v) }, remote = { (void *)addr, 4 };
	uint64_t word, at = addr & ~7ull;

	if (process_vm_writev(tid, &local, 1, &remote, 1, 0) == 4 ||
	    peek(tid, at, &word, sizeof(word)) < 0)
		return;
	memcpy((char *)&word + (addr - at), &v, sizeof(v));
	ptrace(PTRACE_POKEDATA, tid, (void *)at, (void *)word);
}

void agent_inject_stay(const struct loop *l, const struct task *t)
{
	const struct agent_image *im = &l->agent->image;

	if (t->agent_lo && im->region)
		poke32(t->tid, t->agent_lo - im->region + im->cfg +
			       offsetof(struct agent_cfg, stay_traced), 1);
}

/* Where t's table of threads with SIGSYS blocked is, or 0. */
static uint64_t vblocked_table(const struct loop *l, const struct task *t)
{
	const struct agent_image *im = &l->agent->image;

	return t->agent_lo && im->region ?
	       t->agent_lo - im->region + im->vblocked : 0;
}

/*
 * A new task of parent: SIGSYS blocked in parent (by the program, kept
 * by the agent per thread) is blocked in the child too, as the kernel
 * would have it.  The table is found from the code region every marker
 * names.  The parent is read now, at its event stop; the child is
 * written at its own first stop (agent_inject_vblock()): before it, a
 * word access of ptrace's finds it running (under load, fork children
 * read SIGSYS unblocked where process_vm_* were refused).
 */
void agent_inject_inherit(const struct loop *l, const struct task *p,
			  struct task *c)
{
	int32_t slots[AGENT_VBLOCKED_SLOTS];
	uint64_t table = vblocked_table(l, p);
	size_t i;

	if (!table || peek(p->tid, table, slots, sizeof(slots)) < 0)
		return;
	for (i = 0; i < AGENT_VBLOCKED_SLOTS && slots[i] != p->tid; i++)
		;
	c->agent_vblock_due = i < AGENT_VBLOCKED_SLOTS;
}

void agent_inject_vblock(const struct loop *l, struct task *t)
{
	int32_t slots[AGENT_VBLOCKED_SLOTS];
	uint64_t table = vblocked_table(l, t);
	size_t i;

	t->agent_vblock_due = false;
	if (!table || peek(t->tid, table, slots, sizeof(slots)) < 0)
		return;
	for (i = 0; i < AGENT_VBLOCKED_SLOTS && slots[i]; i++)
		;
	if (i < AGENT_VBLOCKED_SLOTS)
		poke32(t->tid, table + i * sizeof(int32_t), t->tid);
}
