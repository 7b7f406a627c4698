// SPDX-License-Identifier: MIT
/*
 * An executable object's hot sites rewritten where a process maps it
 * (fast-int.h), at the exit of that mmap: no thread can be running code
 * the call has only just mapped, so the 5 bytes go in with nothing to
 * stop.  The sites come from the file (sites.c), once per file a run
 * meets (dev, inode, mtime: fork-exec loops map one libc thousands of
 * times); each is checked against the process's bytes before it is
 * touched.  A site's trampoline and island are written first (through
 * iotrace's own mapping of the pool), the jump to them last, through
 * /proc/PID/mem: copy-on-write, so the file on disk never changes.  A
 * site that cannot be had whole (no room, out of reach, bytes not as the
 * file says, a write refused) is left as it was, on ptrace stops.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracer/rewrite/fast-int.h"

#define ISLAND_STEP RW_ISLAND_LEN

void fast_objects_free(struct fast_run *f)
{
	size_t i;

	for (i = 0; i < f->nobj; i++)
		rw_sites_free(&f->obj[i].sites);
	free(f->obj);
	f->obj = NULL;
	f->nobj = f->capobj = 0;
}

/* --debug's name of an object: its file, not the /proc/PID/fd/N an
 * mmap's exit knows it by. */
static const char *debug_name(const char *file, char *real, size_t size)
{
	ssize_t n = -1;

	if (!strncmp(file, "/proc/", 6))
		n = readlink(file, real, size - 1);
	if (n <= 0)
		return file;
	real[n] = '\0';
	return real;
}

/* The sites of the file at path, found once per file of the run. */
static const struct fast_object *object_of(struct fast_run *f,
					   const char *path)
{
	struct fast_object *o;
	struct stat st;
	size_t i;

	if (stat(path, &st) < 0)
		return NULL;
	for (i = 0; i < f->nobj; i++) {
		o = &f->obj[i];
		if (o->dev == st.st_dev && o->ino == st.st_ino &&
		    o->mtime.tv_sec == st.st_mtim.tv_sec &&
		    o->mtime.tv_nsec == st.st_mtim.tv_nsec)
			return o;
	}
	if (f->nobj == f->capobj) {
		size_t cap = f->capobj ? 2 * f->capobj : 8;

		o = realloc(f->obj, cap * sizeof(*o));
		if (!o)
			return NULL;
		f->obj = o;
		f->capobj = cap;
	}
	o = &f->obj[f->nobj++];
	memset(o, 0, sizeof(*o));
	o->dev = st.st_dev;
	o->ino = st.st_ino;
	o->mtime = st.st_mtim;
	o->err = fast_sites_of(path, f->hot, &o->sites);
	if (!o->err)
		for (i = 0; i < RW_REFUSE_N; i++)
			f->use->sites_refused += o->sites.refused[i];
	if (tracer_debug_on) {
		char real[4096];

		tracer_debugf("%s: %zu hot sites%s%s",
			      debug_name(path, real, sizeof(real)),
			      o->err ? 0 : o->sites.n,
			      o->err ? ", not read: " : "",
			      o->err ? strerror(-o->err) : "");
	}
	return o;
}

static int tramp_cmp(const void *a, const void *b)
{
	const struct fast_tramp *x = a, *y = b;

	return x->spec.at < y->spec.at ? -1 : x->spec.at > y->spec.at;
}

const struct fast_tramp *fast_tramp_at(const struct fast_code *c,
				       uint64_t ip)
{
	size_t lo = 0, hi = c->ntramp;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fast_tramp *t = &c->tramp[mid];

		if (ip < t->spec.at)
			hi = mid;
		else if (ip >= t->spec.at + t->len)
			lo = mid + 1;
		else
			return t;
	}
	return NULL;
}

/* Room for two more trampolines (a site's pair). */
static struct fast_tramp *tramp_new(struct fast_code *c)
{
	if (c->ntramp + 2 > c->captramp) {
		size_t cap = c->captramp ? 2 * c->captramp : 32;
		struct fast_tramp *t = realloc(c->tramp, cap * sizeof(*t));

		if (!t)
			return NULL;
		c->tramp = t;
		c->captramp = cap;
	}
	return &c->tramp[c->ntramp];
}

/*
 * Whether the process has at a the bytes the file has at the site (the
 * rewritten ones and up to where execution resumes), as the sites were
 * read from it (the file's id is the cache's key): a process that
 * changed its text, or a mapping not of this file, is left alone.
 */
static bool site_as_filed(int mem, uint64_t a, const struct rw_site *s)
{
	uint8_t here[RW_FILED_MAX];
	size_t n = s->len > s->resume ? s->len : s->resume;

	if (n > s->filed_len)
		return false;
	return pread(mem, here, n, (off_t)a) == (ssize_t)n &&
	       !memcmp(here, s->filed, n);
}

/* The island's target: the .quad after its jmp *0(%rip). */
static uint8_t *island_target(struct fast_code *c, uint64_t island)
{
	return c->mem + RW_POOL_CODE + (island - c->islands) + 6;
}

const struct fast_tramp *fast_tramp_of_stub(const struct fast_code *c,
					    uint64_t ip)
{
	size_t i;

	/* Most stops are nowhere near an island: no search for them. */
	if (!c || ip < 2 || ip - 2 < c->islands ||
	    ip - 2 >= c->islands + c->isl_used)
		return NULL;
	for (i = 0; i < c->ntramp; i++)
		if (c->tramp[i].island + RW_ISLAND_STUB == ip - 2)
			return &c->tramp[i];
	return NULL;
}

void fast_code_threaded(struct fast_code *c)
{
	size_t i;

	if (!c || c->threaded)
		return;
	c->threaded = true;
	/* An 8-byte store within one cache line: a fork child sharing this
	   code and jumping through the island meanwhile reads one target
	   or the other, never a mix. */
	for (i = 0; i < c->ntramp; i++)
		if (c->tramp[i].unlocked)
			__atomic_store_n((uint64_t *)(void *)
					 island_target(c, c->tramp[i].island),
					 c->tramp[i].twin, __ATOMIC_RELEASE);
}

/*
 * One site at a in the process: its trampolines (locked, and the
 * unlocked twin a process of one thread jumps to), island, jump.
 */
static bool patch_site(struct fast_run *f, struct fast_code *c, int mem,
		       uint64_t a, const struct rw_site *s)
{
	int nr = s->nr, slot = f->slot_of[nr];
	struct fast_tramp *t, *u;
	uint8_t jmp[RW_SITE_MAX];
	uint64_t at, isl;
	size_t step;

	if (!c->islands || c->isl_used + ISLAND_STEP > FAST_ISLANDS ||
	    c->used + 2 * RW_TRAMP_MAX > RW_POOL_CODE || !(t = tramp_new(c)))
		return false;
	at = f->pool + c->used;
	isl = c->islands + c->isl_used;
	if (s->len > sizeof(jmp) || !rw_site_patch(jmp, a, s->len, isl) ||
	    !site_as_filed(mem, a, s))
		return false;
	memset(t, 0, 2 * sizeof(*t));
	u = t + 1;
	t->spec.at = at;
	t->spec.site = a;
	t->spec.stub = isl + RW_ISLAND_STUB;
	t->spec.resume = s->resume;
	t->spec.post_len = s->post_len;
	memcpy(t->spec.post, s->post, sizeof(t->spec.post));
	t->spec.pre_len = s->pre_len;
	memcpy(t->spec.pre, s->pre, sizeof(t->spec.pre));
	t->spec.nr = nr;
	t->spec.slot = slot;
	t->spec.fd_reg = f->how[slot].fd;
	t->spec.two_fd = f->how[slot].two_fd;
	t->spec.fd2_reg = f->how[slot].fd2;
	t->spec.moves_data = f->how[slot].moves;
	t->spec.size_reg = f->how[slot].size;
	t->spec.fdop = f->how[slot].fdop;
	t->spec.counters = f->pool + RW_POOL_COUNTERS;
	t->spec.mult = f->tsc.mult;
	t->spec.shift = f->tsc.shift;
	t->spec.sample = f->sample;
	t->island = isl;
	t->len = (uint32_t)rw_tramp_emit(c->mem + c->used, &t->spec);
	if (!t->len)
		return false;
	step = (t->len + 15) & ~15u;
	*u = *t;
	u->spec.at = at + step;
	u->unlocked = true;
	u->twin = at;
	u->len = (uint32_t)rw_tramp_emit(c->mem + c->used + step, &u->spec);
	u->unlocked = u->len &&
		      rw_tramp_unlock(c->mem + c->used + step, u->len, &u->spec);
	if (!rw_island_emit(c->mem + RW_POOL_CODE + c->isl_used, isl,
			    u->unlocked && !c->threaded ? &u->spec : &t->spec))
		return false;
	/* Trampolines and island are in place before anything jumps. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (pwrite(mem, jmp, s->len, (off_t)a) != (ssize_t)s->len)
		return false;
	c->used += step + (u->unlocked ? step : 0);
	c->isl_used += ISLAND_STEP;
	c->ntramp += u->unlocked ? 2 : 1;
	/* Kept sorted for fast_tramp_at(): sites come in address order per
	   object, objects in any. */
	if (c->ntramp > 2 && c->tramp[c->ntramp - (u->unlocked ? 3 : 2)].spec.at > at)
		qsort(c->tramp, c->ntramp, sizeof(*c->tramp), tramp_cmp);
	return true;
}

/* A mapping's sites patched through mem, the process's /proc/PID/mem. */
static void patch_mapping(struct loop *l, struct task *t, struct fast_proc *p,
			  int mem, uint64_t addr, uint64_t len, uint64_t off,
			  const char *file, uint64_t *ip)
{
	struct fast_run *f = l->fast;
	const struct fast_object *o;
	const struct rw_site *s;
	uint64_t done, failed, a;
	size_t i;

	if (!p->code || !p->cnt || !fast_clock(f))
		return;
	o = object_of(f, file);
	if (!o || o->err)
		return;
	done = f->use->sites;
	failed = f->use->sites_unpatched;
	for (i = 0; i < o->sites.n; i++) {
		s = &o->sites.site[i];
		if (s->offset < off || s->offset + RW_SITE_MAX > off + len ||
		    f->slot_of[s->nr] < 0)
			continue;
		a = addr + (s->offset - off);
		if (patch_site(f, p->code, mem, a, s)) {
			f->use->sites++;
			/* t, stopped at this site's syscall, makes its call
			   again through the jmp, its trampoline's way */
			if (ip && *ip == a + s->resume - s->post_len - 2)
				*ip = a;
		} else {
			f->use->sites_unpatched++;
		}
	}
	if (tracer_debug_on) {
		char real[4096];

		tracer_debugf("pid %d: %s at %#llx: %llu sites patched, "
			      "%llu not", (int)t->tid,
			      debug_name(file, real, sizeof(real)),
			      (unsigned long long)addr,
			      (unsigned long long)(f->use->sites - done),
			      (unsigned long long)(f->use->sites_unpatched -
						   failed));
	}
}

static int open_mem(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)tid);
	return open(path, O_RDWR | O_CLOEXEC);
}

void fast_patch_mapping(struct loop *l, struct task *t, struct fast_proc *p,
			uint64_t addr, uint64_t len, uint64_t off,
			const char *file, uint64_t *ip)
{
	int mem = open_mem(t->tid);

	if (mem < 0)
		return;
	patch_mapping(l, t, p, mem, addr, len, off, file, ip);
	close(mem);
}

/*
 * At exec, what the kernel mapped: the program and its interpreter, the
 * executable mappings of /proc/PID/maps with a file (a static program
 * has its libc in it); later (a process rewritten at its hot calls),
 * every object it has mapped by then.
 */
struct image_walk {
	struct loop *l;
	struct task *t;
	struct fast_proc *p;
	int mem;
	uint64_t *ip;
};

static int image_mapping(void *ctx, const struct proc_map *m)
{
	struct image_walk *w = ctx;

	if (m->perms[2] == 'x' && m->path[0] == '/')
		patch_mapping(w->l, w->t, w->p, w->mem, m->start,
			      m->end - m->start, m->off, m->path, w->ip);
	return 0;
}

void fast_patch_image(struct loop *l, struct task *t, struct fast_proc *p,
		      uint64_t *ip)
{
	struct image_walk w = { l, t, p, open_mem(t->tid), ip };

	if (w.mem < 0)
		return;
	proc_maps_each(t->tid, image_mapping, &w);
	close(w.mem);
}
