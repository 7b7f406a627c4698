/* SPDX-License-Identifier: MIT */
/*
 * ELF objects read from their files, private to tracer/: what an
 * executable, shared library or vDSO says about itself (elfobj.c: its
 * PT_LOAD segments, function symbols, .eh_frame_hdr's search table;
 * ehframe.c: the FDEs of .eh_frame).  Two readers share them: the
 * unwinder (-k, unwind.h), which maps a frame to a function and finds
 * its unwind info, and the fast path's site finder (rewrite/sites.c),
 * which needs the same functions' ranges and code bytes.
 */
#ifndef IOTRACE_ELFOBJ_H
#define IOTRACE_ELFOBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ELF_SEGS_MAX 16		/* PT_LOAD segments kept per object */

struct elf_seg {
	uint64_t vaddr, off, filesz, memsz;
	bool writable;		/* PF_W: the file's bytes may be stale */
	bool exec;		/* PF_X: code */
};

struct elf_sym {
	uint64_t addr, size;
	const char *name;	/* in the object's image */
};

struct elf_obj {
	char *path;		/* as /proc/PID/maps names it, "[vdso]" */
	dev_t dev;
	ino_t ino;
	const unsigned char *image;	/* the file, mapped, or a copy */
	size_t size;
	bool mapped;		/* image is an mmap of the file */
	struct elf_seg segs[ELF_SEGS_MAX];
	unsigned nsegs;
	uint64_t lo, hi;	/* vaddr extent of the segments */
	/* the .eh_frame section (size 0: none), checked to be in the file */
	uint64_t ehf_vaddr, ehf_off, ehf_size;
	/* .eh_frame_hdr's search table: vaddrs, or 0 */
	uint64_t eh_hdr, eh_table, eh_nfdes;
	/* without one, the same table built from .eh_frame */
	int32_t *synth;		/* pairs: start, FDE; relative to base */
	size_t nsynth;
	uint64_t synth_base;	/* vaddr of .eh_frame */
	struct elf_sym *syms;	/* functions, by address */
	size_t nsyms;
	unsigned id;		/* index among the unwinder's objects */
};

/*
 * Reads the ELF object at path (dev, ino as the mapping says) into *out:
 * 0, or -errno (-ENOEXEC: not an x86_64 ELF object).  elf_obj_open() is
 * the same returning the object or NULL.  elf_obj_from_image() reads an
 * image with no file ([vdso]) from size bytes at image (taken over:
 * freed with the object).
 */
int elf_obj_load(const char *path, dev_t dev, ino_t ino,
		 struct elf_obj **out);
struct elf_obj *elf_obj_open(const char *path, dev_t dev, ino_t ino);
struct elf_obj *elf_obj_from_image(const char *name, void *image,
				   size_t size);
void elf_obj_free(struct elf_obj *o);
/* The function holding vaddr, or NULL. */
const struct elf_sym *elf_obj_symbol(const struct elf_obj *o, uint64_t vaddr);
/*
 * The load bias of o mapped at start from file offset off (an
 * executable mapping): 0, or -1 when no segment is mapped there.
 */
int elf_obj_bias(const struct elf_obj *o, uint64_t start, uint64_t off,
		 uint64_t *bias);
/* 8 bytes at vaddr of a read-only segment of the file: 0, or -1. */
int elf_obj_read(const struct elf_obj *o, uint64_t vaddr, uint64_t *val);
/*
 * The n bytes at vaddr as the file holds them, when they are all in one
 * segment's file part; NULL otherwise.  *seg, if given: that segment.
 */
const unsigned char *elf_obj_bytes(const struct elf_obj *o, uint64_t vaddr,
				   uint64_t n, const struct elf_seg **seg);

/*
 * Calls fn for each FDE of o's .eh_frame that ehframe.c can read: the
 * code it covers, [start, start + len), and its offset in the section
 * (ehframe.c).  The FDEs the file holds, in its order.
 */
typedef void elf_fde_fn(void *ctx, uint64_t start, uint64_t len,
			uint64_t fde_off);
void elf_fde_walk(const struct elf_obj *o, elf_fde_fn *fn, void *ctx);
/*
 * Builds o->synth, the search table .eh_frame_hdr would hold, from its
 * .eh_frame: for objects linked without the header, static executables.
 */
void elf_synth_table(struct elf_obj *o);

#endif
