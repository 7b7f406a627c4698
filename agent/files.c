// SPDX-License-Identifier: MIT
/*
 * The agent's per-file counts (agent-abi.h, struct agent_files): after
 * each call the handler issued, agent_files_after() keeps the process's
 * fd map right (what the call did to the fd table, as iotrace's facts
 * say) and adds a data call to the cell of the file its fd names.  The
 * hot path, a read or write on an fd already described, is a load of
 * the fd's slot and a few atomic adds; the first call on an fd describes
 * it (readlink, stat and statfs of /proc/thread-self/fd/N, fcntl
 * F_GETFL: the agent's own calls, never counted) and finds or adds its
 * file slot through a hash index, lock-free, since threads and nested
 * handlers share everything here.
 *
 * The fd map is the process's own memory: a forked child inherits it
 * (its fds are its parent's), an execve starts the next program's agent
 * with an empty one.  A child sharing the memory but not the fds (vfork,
 * posix_spawn) must not fill it: the map's owner, a pid in a page that a
 * fork wipes (MADV_WIPEONFORK), tells the process that may; the others
 * describe their fds at every call and only forget entries, which costs
 * the owner a describe at most.  An entry carries a generation so that a
 * describe racing a close or dup2 in another thread is not kept.
 */
#include <sys/statfs.h>
#include "agent/agent-int.h"

#ifndef MADV_WIPEONFORK
#define MADV_WIPEONFORK 18
#endif

/* A map entry: generation << 16 | (1 + slot); slot part 0: unknown. */
#define SLOT_MASK 0xffffu
#define GEN_ONE 0x10000u

static uint32_t fd_map[AGENT_FD_MAX];
static int32_t *owner;		/* the pid that fills fd_map; NULL: none */

static const int argreg[6] = { REG_RDI, REG_RSI, REG_RDX, REG_R10, REG_R8,
			       REG_R9 };

static void add(uint64_t *p, uint64_t n)
{
	__atomic_fetch_add(p, n, __ATOMIC_RELAXED);
}

/*
 * The owner's page, this process's from the start (a vfork child must
 * find it taken); wiped in a forked child: 0 there, so it adopts.
 */
void agent_files_init(void)
{
	long p = agent_sys6(SYS_mmap, 0, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p < 0 && p >= -4095)
		return;
	if (agent_sys6(SYS_madvise, p, 4096, MADV_WIPEONFORK, 0, 0, 0) < 0) {
		agent_sys6(SYS_munmap, p, 4096, 0, 0, 0, 0);
		return;
	}
	owner = (int32_t *)p;
	*owner = (int32_t)sys0(SYS_getpid);
}

/* Whether this process fills fd_map (see the top). */
static bool owns_map(void)
{
	int32_t me, cur;

	if (!owner)
		return false;
	me = (int32_t)sys0(SYS_getpid);
	cur = __atomic_load_n(owner, __ATOMIC_ACQUIRE);
	if (!cur && __atomic_compare_exchange_n(owner, &cur, me, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
		return true;
	return cur == me;
}

/* fd changed: whatever it named is forgotten (a new generation). */
static void forget(long fd)
{
	uint32_t cur, next;

	if (fd < 0 || fd >= AGENT_FD_MAX)
		return;
	cur = __atomic_load_n(&fd_map[fd], __ATOMIC_RELAXED);
	do
		next = (cur + GEN_ONE) & ~SLOT_MASK;
	while (!__atomic_compare_exchange_n(&fd_map[fd], &cur, next, true,
					    __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

static void forget_range(uint64_t first, uint64_t last)
{
	uint64_t fd;

	for (fd = first; fd <= last && fd < AGENT_FD_MAX; fd++)
		forget((long)fd);
}

/* What a call did to the fd table, as tracer/fds.c reads the facts. */
static void apply_fx(int fx, const greg_t *g)
{
	long ret = g[REG_RAX];

	if (fx == AGENT_FX_ARG0) {	/* a failed close may have freed it */
		forget((int)g[REG_RDI]);
		return;
	}
	if (ret < 0)
		return;
	switch (fx) {
	case AGENT_FX_RET:
		forget(ret);
		break;
	case AGENT_FX_ARG1:
		forget((int)g[REG_RSI]);
		break;
	case AGENT_FX_RANGE:
		forget_range((uint32_t)g[REG_RDI], (uint32_t)g[REG_RSI]);
		break;
	case AGENT_FX_FCNTL:
		if (g[REG_RSI] == F_DUPFD || g[REG_RSI] == F_DUPFD_CLOEXEC)
			forget(ret);
		else if (g[REG_RSI] == F_SETFL)
			forget((int)g[REG_RDI]);
		break;
	}
}

/* "/proc/thread-self/fd/N" into buf (room for 40). */
static void fd_link(char *buf, int fd)
{
	static const char pre[] = "/proc/thread-self/fd/";
	char digits[12];
	int n = 0;

	memcpy(buf, pre, sizeof(pre) - 1);
	buf += sizeof(pre) - 1;
	do
		digits[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) && n < 11);
	while (n)
		*buf++ = digits[--n];
	*buf = '\0';
}

static uint32_t id_hash(const struct agent_file_id *id)
{
	uint64_t h = 14695981039346656037ull;
	const unsigned char *c = (const unsigned char *)id->path;
	uint16_t i;

	h = (h ^ id->dev) * 1099511628211ull;
	h = (h ^ id->ino) * 1099511628211ull;
	h = (h ^ id->flags) * 1099511628211ull;
	for (i = 0; i < id->len; i++)
		h = (h ^ c[i]) * 1099511628211ull;
	return (uint32_t)(h ^ h >> 32);
}

static bool same_id(const struct agent_file_id *a,
		    const struct agent_file_id *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->rdev == b->rdev &&
	       a->mode == b->mode && a->blksize == b->blksize &&
	       a->flags == b->flags && a->len == b->len && a->cut == b->cut &&
	       a->stat_ok == b->stat_ok &&
	       !memcmp(a->path, b->path, a->len);
}

/*
 * The slot of id: found through the index, or a new one, written before
 * it is published there.  Past the bounds, AGENT_FILE_UNATTRIBUTED.  Two
 * agents adding the same file at once may make two slots: iotrace
 * merges them by what the profile keys files on.
 */
static unsigned find_or_add(const struct agent_file_id *id)
{
	struct agent_files *fs = &shm->files;
	uint32_t h = id_hash(id), n = 0, cur, i, probes;

	for (probes = 0; probes < AGENT_FILE_INDEX; probes++) {
		i = (h + probes) & (AGENT_FILE_INDEX - 1);
		cur = __atomic_load_n(&fs->index[i], __ATOMIC_ACQUIRE);
		if (cur && same_id(&fs->file[cur - 1].id, id))
			return cur - 1;
		if (cur)
			continue;
		if (!n) {
			n = __atomic_fetch_add(&fs->nfiles, 1,
					       __ATOMIC_RELAXED) +
			    AGENT_FILE_FIRST;
			if (n >= AGENT_FILES_MAX)
				return AGENT_FILE_UNATTRIBUTED;
			fs->file[n].id = *id;
			__atomic_store_n(&fs->file[n].ready, 1,
					 __ATOMIC_RELEASE);
		}
		if (__atomic_compare_exchange_n(&fs->index[i], &cur, n + 1,
						false, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return n;
		if (same_id(&fs->file[cur - 1].id, id))
			return cur - 1;	/* ours stays unused */
	}
	return n ? n : AGENT_FILE_UNATTRIBUTED;
}

/* The path's end that fits, and whether it was cut. */
static void keep_path(struct agent_file_id *id, const char *path, long n,
		      bool truncated)
{
	long room = AGENT_PATH_MAX - 1;

	id->cut = truncated || n > room;
	if (n > room) {
		path += n - room;
		n = room;
	}
	memcpy(id->path, path, (size_t)n);
	id->path[n] = '\0';
	id->len = (uint16_t)n;
}

/*
 * What fd names, as tracer/fdinfo.c's fd_describe() finds it: the link,
 * the open flags, the stat and statfs of the link (which may fail).  Its
 * slot.
 */
static __attribute__((noinline)) unsigned describe(int fd)
{
	struct agent_file_id id;
	char link[40], path[4096];
	struct statfs sf;
	struct stat st;
	long n, flags;

	if (fd < 0)
		return AGENT_FILE_UNRESOLVED;
	fd_link(link, fd);
	n = sys3(SYS_readlink, link, path, sizeof(path) - 1);
	if (n < 0)
		return AGENT_FILE_UNRESOLVED;
	flags = sys3(SYS_fcntl, fd, F_GETFL, 0);
	if (flags < 0)
		return AGENT_FILE_UNRESOLVED;
	memset(&id, 0, sizeof(id));
	id.flags = (uint32_t)flags;
	keep_path(&id, path, n, n == sizeof(path) - 1);
	if (agent_sys6(SYS_newfstatat, AT_FDCWD, (long)link, (long)&st, 0, 0,
		       0) == 0) {
		id.dev = st.st_dev;
		id.ino = st.st_ino;
		id.rdev = st.st_rdev;
		id.mode = st.st_mode;
		id.blksize = (uint32_t)st.st_blksize;
		id.stat_ok = 1;
	}
	if (sys3(SYS_statfs, link, &sf, 0) == 0)
		id.fstype = (uint32_t)sf.f_type;
	return find_or_add(&id);
}

/*
 * The slot of the file fd names: the map's entry, or a describe, kept
 * in the map when this process owns it and no change came in between.
 */
static unsigned file_of(long reg)
{
	int fd = (int)reg;
	uint32_t cur = 0;
	unsigned slot;

	if (fd >= 0 && fd < AGENT_FD_MAX) {
		cur = __atomic_load_n(&fd_map[fd], __ATOMIC_ACQUIRE);
		if (cur & SLOT_MASK)
			return (cur & SLOT_MASK) - 1;
	}
	slot = describe(fd);
	if (fd >= 0 && fd < AGENT_FD_MAX && slot != AGENT_FILE_UNRESOLVED &&
	    owns_map())
		__atomic_compare_exchange_n(&fd_map[fd], &cur, cur | (slot + 1),
					    false, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED);
	return slot;
}

/* The cell of a two-fd call: (file, file2, column) in the pairs table. */
static struct agent_io *pair_of(unsigned f1, unsigned f2, unsigned col)
{
	struct agent_files *fs = &shm->files;
	uint32_t key = 1 + (f1 | f2 << 10 | col << 20), cur, i, probes;

	for (probes = 0; probes < AGENT_PAIRS_MAX; probes++) {
		i = (key * 2654435761u + probes) & (AGENT_PAIRS_MAX - 1);
		cur = __atomic_load_n(&fs->pairs[i].key, __ATOMIC_ACQUIRE);
		if (!cur && __atomic_compare_exchange_n(&fs->pairs[i].key, &cur,
				key, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return &fs->pairs[i].io;
		if (cur == key)
			return &fs->pairs[i].io;
	}
	return &fs->file[AGENT_FILE_UNATTRIBUTED].io[col];
}

/* The largest size asked and how many asked it (as profile_sub_add). */
static void add_size(struct agent_io *io, uint64_t asked)
{
	uint64_t cur = __atomic_load_n(&io->size_max, __ATOMIC_RELAXED);

	while (asked > cur) {
		if (__atomic_compare_exchange_n(&io->size_max, &cur, asked,
				true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			__atomic_store_n(&io->size_max_calls, 1,
					 __ATOMIC_RELAXED);
			return;
		}
	}
	if (asked == cur)
		add(&io->size_max_calls, 1);
}

/* A timed call's result in its cell, as the ptrace engine's sink adds. */
static void add_result(struct agent_io *io, int nr, uint64_t ns,
		       const greg_t *g)
{
	uint64_t corr = agent_correction(shm, nr), asked;
	int size = shm->size_arg[nr];
	long ret = g[REG_RAX];

	add(&io->timed, 1);
	add(&io->raw_time_ns, ns);
	add(&io->time_ns, ns > corr ? ns - corr : 0);
	if (ret < 0 && ret >= -4095) {
		add(&io->errors, 1);
		if (ret == -EINVAL)
			add(&io->einval, 1);
	} else if (size >= 0) {
		add(&io->bytes_done, (uint64_t)ret);
	}
	if (size < 0 || size >= 6)
		return;
	asked = (uint64_t)g[argreg[size]];
	add_size(io, asked);
	if (ret < 0)
		return;
	add(&io->bytes_req, asked);
	if ((uint64_t)ret < asked)
		add(&io->short_calls, 1);
}

void agent_files_after(int nr, int act, uint64_t ns, const greg_t *g)
{
	const struct agent_nr_files *f = &shm->files.nr[nr];
	struct agent_io *io;
	unsigned f1;

	if (f->fx)
		apply_fx(f->fx, g);
	if (!f->col || act == AGENT_ACT_SKIP)
		return;
	f1 = file_of(g[argreg[f->fd_arg]]);
	if (f->fd2_arg >= 0)
		io = pair_of(f1, file_of(g[argreg[f->fd2_arg]]), f->col - 1u);
	else
		io = &shm->files.file[f1].io[f->col - 1];
	add(&io->calls, 1);
	if (act == AGENT_ACT_TIME)
		add_result(io, nr, ns, g);
}
