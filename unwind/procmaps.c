// SPDX-License-Identifier: MIT
/*
 * The unwinder's map caches (-k): per process, its executable mappings
 * and the ELF object mapped in each (elf/elfobj.c), with the load bias,
 * read from /proc/PID/maps when the process is first unwound and again
 * only when its mappings changed (unwinder_maps_changed: execve, an
 * executable mmap or mprotect; or once for an address in no known
 * mapping).  Objects are shared by every process that maps the same
 * file (device, inode, path) and read once; the vDSO once, from the
 * first process's memory.  Bounded: PROCS_MAX processes (the least
 * recently unwound goes), MAPS_MAX mappings each, ELF_OBJS_MAX objects.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "procfd/procfd.h"
#include "unwind/unwind-int.h"

static struct elf_obj *obj_find(struct unwinder *u, const char *path,
				dev_t dev, ino_t ino)
{
	unsigned i;

	for (i = 0; i < u->nobjs; i++)
		if (u->objs[i]->dev == dev && u->objs[i]->ino == ino &&
		    !strcmp(u->objs[i]->path, path))
			return u->objs[i];
	return NULL;
}

static struct elf_obj *obj_add(struct unwinder *u, struct elf_obj *o)
{
	if (!o)
		return NULL;
	if (u->nobjs == ELF_OBJS_MAX) {
		elf_obj_free(o);
		return NULL;
	}
	o->id = u->nobjs;
	u->objs[u->nobjs++] = o;
	return o;
}

/* The vDSO, read from the process once: every process has the same. */
static struct elf_obj *vdso_obj(struct unwinder *u, pid_t pid,
				uint64_t start, uint64_t end)
{
	struct elf_obj *o = obj_find(u, "[vdso]", 0, 0);
	size_t size = (size_t)(end - start);
	struct iovec local, remote = { (void *)start, size };
	void *image;

	if (o || size > (1u << 20) || !(image = malloc(size)))
		return o;
	local = (struct iovec){ image, size };
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)size) {
		free(image);
		return NULL;
	}
	return obj_add(u, elf_obj_from_image("[vdso]", image, size));
}

static struct elf_obj *file_obj(struct unwinder *u, const char *path,
				dev_t dev, ino_t ino)
{
	struct elf_obj *o = obj_find(u, path, dev, ino);

	return o ? o : obj_add(u, elf_obj_open(path, dev, ino));
}

/* A mapping of /proc/PID/maps: an executable one into p->maps. */
struct maps_walk {
	struct unwinder *u;
	struct uproc *p;
};

static int map_line(void *ctx, const struct proc_map *m)
{
	struct maps_walk *w = ctx;
	struct uproc *p = w->p;
	struct elf_obj *o;
	uint64_t bias;
	size_t i;

	if (!strchr(m->perms, 'x') || p->nmaps == MAPS_MAX)
		return 0;
	if (!strncmp(m->path, "[vdso]", 6))
		o = vdso_obj(w->u, p->tgid, m->start, m->end);
	else if (m->path[0] == '/')
		o = file_obj(w->u, m->path, m->dev, m->ino);
	else
		return 0;
	if (!o || elf_obj_bias(o, m->start, m->off, &bias) < 0)
		return 0;
	for (i = 0; i < p->nmaps; i++)
		if (p->maps[i].obj == o && p->maps[i].bias == bias)
			return 0;
	p->maps[p->nmaps++] = (struct umap){ bias + o->lo, bias + o->hi,
					     bias, o };
	return 0;
}

static int cmp_map(const void *a, const void *b)
{
	const struct umap *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Whether p's maps are the n in m, so cached stacks still hold. */
static bool same_maps(const struct uproc *p, const struct umap *m, size_t n)
{
	return p->nmaps == n && !memcmp(p->maps, m, n * sizeof(*m));
}

void unwind_maps_read(struct unwinder *u, struct uproc *p)
{
	struct maps_walk w = { u, p };
	struct umap *old = p->maps;
	size_t nold = p->nmaps;

	p->dirty = false;
	p->maps = malloc(MAPS_MAX * sizeof(*p->maps));
	p->nmaps = 0;
	if (p->maps)
		proc_maps_each(p->tgid, map_line, &w);
	if (p->maps)
		qsort(p->maps, p->nmaps, sizeof(*p->maps), cmp_map);
	if (!p->maps || !old || !same_maps(p, old, nold)) {
		p->gen = ++u->gens;
		unw_flush_cache(p->as, 0, 0);
	}
	free(old);
}

const struct umap *unwind_map_of(const struct uproc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmaps, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < p->maps[lo - 1].end ? &p->maps[lo - 1] : NULL;
}

void unwind_proc_release(struct uproc *p)
{
	free(p->maps);
	if (p->as)
		unw_destroy_addr_space(p->as);
	memset(p, 0, sizeof(*p));
}

struct uproc *unwind_proc_get(struct unwinder *u, pid_t tgid)
{
	struct uproc *p, *victim = &u->procs[0];

	for (p = u->procs; p < u->procs + PROCS_MAX; p++) {
		if (p->tgid == tgid)
			return p;
		if (p->used < victim->used)
			victim = p;
	}
	unwind_proc_release(victim);
	victim->as = unw_create_addr_space(&u->acc, 0);
	if (!victim->as)
		return NULL;
	/*
	 * The space's own cache of register rules per IP (with NONE, -k
	 * costs several times as much per call).  libunwind locks it with
	 * signals blocked: a dozen sigprocmask calls per call on a short
	 * stack; its PER_THREAD policy did not avoid them with Debian's build.
	 */
	unw_set_caching_policy(victim->as, UNW_CACHE_GLOBAL);
	victim->tgid = tgid;
	victim->dirty = true;
	return victim;
}

static struct uproc *proc_find(struct unwinder *u, pid_t tgid)
{
	struct uproc *p;

	for (p = u->procs; p < u->procs + PROCS_MAX; p++)
		if (p->tgid == tgid)
			return p;
	return NULL;
}

void unwinder_maps_changed(struct unwinder *u, pid_t tgid)
{
	struct uproc *p = u ? proc_find(u, tgid) : NULL;

	if (p) {
		p->dirty = true;
		p->missed = false;
	}
}

void unwinder_forget(struct unwinder *u, pid_t tgid)
{
	struct uproc *p = u ? proc_find(u, tgid) : NULL;

	if (p)
		unwind_proc_release(p);
}
