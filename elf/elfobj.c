// SPDX-License-Identifier: MIT
/*
 * ELF objects (elfobj.h) for the unwinder (-k) and the fast path's site
 * finder: what a mapped executable, shared library or vDSO says about
 * itself, read once from its file (mapped read-only, so only the pages
 * used cost memory).  Its PT_LOAD segments (load bias, and reading the
 * unwind tables and code from the file instead of the process), its
 * function symbols (.symtab, else .dynsym; a stripped object has none
 * and its frames are object+offset), where .eh_frame is, and the search
 * table of .eh_frame_hdr that libunwind looks FDEs up in; an object
 * without one (a static executable) gets the same table built from
 * .eh_frame (ehframe.c).  Every offset read from a file is checked: a corrupt
 * object gives fewer symbols or no unwind info, never a crash.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elf/elfobj.h"

/* The n bytes at off of the image, or NULL when they are not all in it. */
static const void *at(const struct elf_obj *o, uint64_t off, uint64_t n)
{
	if (off > o->size || n > o->size - off)
		return NULL;
	return o->image + off;
}

/*
 * The same for a table of 8-byte aligned structs (headers, symbols):
 * NULL too when off is not aligned, since the image is.
 */
static const void *table(const struct elf_obj *o, uint64_t off, uint64_t n)
{
	return off % 8 ? NULL : at(o, off, n);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct elf_sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The functions of a symbol table section, into o->syms. */
static void load_symtab(struct elf_obj *o, const Elf64_Shdr *sh,
			const Elf64_Shdr *strsh)
{
	const Elf64_Sym *s = table(o, sh->sh_offset, sh->sh_size);
	const char *str = at(o, strsh->sh_offset, strsh->sh_size);
	size_t i, n = sh->sh_size / sizeof(*s);
	unsigned type;

	if (!s || !str || !strsh->sh_size || str[strsh->sh_size - 1] ||
	    !(o->syms = malloc(n * sizeof(*o->syms))))
		return;
	for (i = 0; i < n; i++) {
		type = ELF64_ST_TYPE(s[i].st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    s[i].st_shndx == SHN_UNDEF || !s[i].st_value ||
		    s[i].st_name >= strsh->sh_size || !str[s[i].st_name])
			continue;
		o->syms[o->nsyms++] = (struct elf_sym){
			s[i].st_value, s[i].st_size, str + s[i].st_name };
	}
	qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
}

/* Where .eh_frame is, when the file holds all of it. */
static void set_ehframe(struct elf_obj *o, const Elf64_Shdr *sh)
{
	if (sh->sh_type == SHT_NOBITS || !at(o, sh->sh_offset, sh->sh_size))
		return;
	o->ehf_vaddr = sh->sh_addr;
	o->ehf_off = sh->sh_offset;
	o->ehf_size = sh->sh_size;
}

/* .symtab if there is one, else .dynsym; and where .eh_frame is. */
static void load_sections(struct elf_obj *o, const Elf64_Ehdr *eh)
{
	const Elf64_Shdr *sh = table(o, eh->e_shoff,
				  (uint64_t)eh->e_shnum * sizeof(*sh));
	const Elf64_Shdr *best = NULL, *names;
	const char *name;
	unsigned i;

	if (!sh || eh->e_shentsize != sizeof(*sh))
		return;
	names = eh->e_shstrndx < eh->e_shnum ? &sh[eh->e_shstrndx] : NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type == SHT_SYMTAB ||
		    (sh[i].sh_type == SHT_DYNSYM && !best))
			best = &sh[i];
		name = names ? at(o, names->sh_offset + sh[i].sh_name, 10)
			     : NULL;
		if (name && !memcmp(name, ".eh_frame", 10))
			set_ehframe(o, &sh[i]);
	}
	if (best && best->sh_link < eh->e_shnum)
		load_symtab(o, best, &sh[best->sh_link]);
}

/* The segment whose file part holds the n bytes at vaddr, or NULL. */
static const struct elf_seg *seg_of(const struct elf_obj *o, uint64_t vaddr,
				    uint64_t n)
{
	const struct elf_seg *s;

	for (s = o->segs; s < o->segs + o->nsegs; s++)
		if (vaddr >= s->vaddr && n <= s->filesz &&
		    vaddr - s->vaddr <= s->filesz - n)
			return s;
	return NULL;
}

const unsigned char *elf_obj_bytes(const struct elf_obj *o, uint64_t vaddr,
				   uint64_t n, const struct elf_seg **seg)
{
	const struct elf_seg *s = seg_of(o, vaddr, n);

	if (seg)
		*seg = s;
	return s ? at(o, s->off + vaddr - s->vaddr, n) : NULL;
}

/*
 * .eh_frame_hdr (version 1): its binary search table, when its
 * entries are the usual datarel sdata4 pairs libunwind reads.
 */
static void load_eh_hdr(struct elf_obj *o, const Elf64_Phdr *ph)
{
	const unsigned char *h = elf_obj_bytes(o, ph->p_vaddr, 12, NULL);
	uint32_t count;

	/* eh_frame_ptr sdata4 (any base), fde_count udata4, table 0x3b */
	if (!h || h[0] != 1 || (h[1] & 0x0f) != 0x0b || h[2] != 0x03 ||
	    h[3] != 0x3b)
		return;
	memcpy(&count, h + 8, sizeof(count));
	o->eh_hdr = ph->p_vaddr;
	o->eh_table = ph->p_vaddr + 12;
	o->eh_nfdes = count;
}

static void load_segments(struct elf_obj *o, const Elf64_Ehdr *eh)
{
	const Elf64_Phdr *ph = table(o, eh->e_phoff,
				  (uint64_t)eh->e_phnum * sizeof(*ph));
	unsigned i;

	if (!ph || eh->e_phentsize != sizeof(*ph))
		return;
	o->lo = UINT64_MAX;
	for (i = 0; i < eh->e_phnum && o->nsegs < ELF_SEGS_MAX; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		o->segs[o->nsegs++] = (struct elf_seg){
			ph[i].p_vaddr, ph[i].p_offset, ph[i].p_filesz,
			ph[i].p_memsz, (ph[i].p_flags & PF_W) != 0,
			(ph[i].p_flags & PF_X) != 0 };
		if (ph[i].p_vaddr < o->lo)
			o->lo = ph[i].p_vaddr;
		if (ph[i].p_vaddr + ph[i].p_memsz > o->hi)
			o->hi = ph[i].p_vaddr + ph[i].p_memsz;
	}
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_GNU_EH_FRAME)
			load_eh_hdr(o, &ph[i]);
}

/* Reads what the unwinder needs from an image already in o. */
static int load(struct elf_obj *o)
{
	const Elf64_Ehdr *eh = at(o, 0, sizeof(*eh));

	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_machine != EM_X86_64)
		return -ENOEXEC;
	load_segments(o, eh);
	if (!o->nsegs)
		return -ENOEXEC;
	load_sections(o, eh);
	if (!o->eh_table)
		elf_synth_table(o);
	return 0;
}

/* The file at path mapped read-only into o: 0, or -errno. */
static int map_file(struct elf_obj *o, const char *path)
{
	struct stat st;
	void *image;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size) {
		err = -ENOEXEC;
		goto out_close;
	}
	image = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (image == MAP_FAILED) {
		err = -errno;
		goto out_close;
	}
	o->image = image;
	o->size = (size_t)st.st_size;
	o->mapped = true;
out_close:
	close(fd);
	return err;
}

int elf_obj_load(const char *path, dev_t dev, ino_t ino,
		 struct elf_obj **out)
{
	struct elf_obj *o = calloc(1, sizeof(*o));
	int err = -ENOMEM;

	if (!o || !(o->path = strdup(path)))
		goto out_free;
	o->dev = dev;
	o->ino = ino;
	err = map_file(o, path);
	if (!err)
		err = load(o);
	if (err)
		goto out_free;
	*out = o;
	return 0;

out_free:
	elf_obj_free(o);
	return err;
}

struct elf_obj *elf_obj_open(const char *path, dev_t dev, ino_t ino)
{
	struct elf_obj *o;

	return elf_obj_load(path, dev, ino, &o) ? NULL : o;
}

struct elf_obj *elf_obj_from_image(const char *name, void *image,
				   size_t size)
{
	struct elf_obj *o = calloc(1, sizeof(*o));

	if (!o) {
		free(image);
		return NULL;
	}
	o->image = image;
	o->size = size;
	o->path = strdup(name);
	if (!o->path || load(o) < 0) {
		elf_obj_free(o);
		return NULL;
	}
	return o;
}

void elf_obj_free(struct elf_obj *o)
{
	if (!o)
		return;
	if (o->mapped)
		munmap((void *)o->image, o->size);
	else
		free((void *)o->image);
	free(o->syms);
	free(o->synth);
	free(o->path);
	free(o);
}

const struct elf_sym *elf_obj_symbol(const struct elf_obj *o, uint64_t vaddr)
{
	size_t lo = 0, hi = o->nsyms, mid;
	const struct elf_sym *s;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (o->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	s = &o->syms[lo - 1];
	/* A sized symbol must hold vaddr; an unsized one is taken. */
	return !s->size || vaddr < s->addr + s->size ? s : NULL;
}

int elf_obj_bias(const struct elf_obj *o, uint64_t start, uint64_t off,
		 uint64_t *bias)
{
	const struct elf_seg *s;
	uint64_t page = 4096;

	for (s = o->segs; s < o->segs + o->nsegs; s++) {
		if ((s->off & ~(page - 1)) != off)
			continue;
		*bias = start - ((s->vaddr & ~(page - 1)));
		return 0;
	}
	return -1;
}

int elf_obj_read(const struct elf_obj *o, uint64_t vaddr, uint64_t *val)
{
	const struct elf_seg *s;
	const void *p = elf_obj_bytes(o, vaddr, 8, &s);

	if (!p || s->writable)
		return -1;
	memcpy(val, p, 8);
	return 0;
}
