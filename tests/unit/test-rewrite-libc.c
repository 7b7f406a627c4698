// SPDX-License-Identifier: MIT
/*
 * The fast path's pieces together, on the C library this test runs
 * with: the sites rw_sites_find() gives for write and read in
 * libc.so.6's file (read's of the xor shape) are patched in this
 * process's own libc (islands mapped within reach of it, trampolines in
 * a pool), and write(2) and read(2) called through libc then run in a
 * trampoline: the cell of its fd counts each call, its bytes, the bytes
 * asked for and its errors, the errno row each errno, and the data and
 * errno arrive as without it.  No tracer and no filter:
 * what the engine adds (the pool's filter test, patching another
 * process through /proc/PID/mem) is tested apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tap.h"
#include "tracer/rewrite/rewrite.h"

struct libc { char path[4096]; uint64_t bias; };

static int find_libc(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct libc *l = arg;

	(void)size;
	if (!strstr(info->dlpi_name, "/libc.so.6"))
		return 0;
	snprintf(l->path, sizeof(l->path), "%s", info->dlpi_name);
	l->bias = info->dlpi_addr;
	return 1;
}

/* Anonymous memory within rel32 reach of near, or MAP_FAILED. */
static void *map_near(uint64_t near, size_t len)
{
	uint64_t at;
	void *p;

	for (at = (near - (64u << 20)) & ~0xfffull; at > near - (1u << 30);
	     at -= 1u << 20) {
		p = mmap((void *)at, len, PROT_READ | PROT_WRITE | PROT_EXEC,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1,
			 0);
		if (p != MAP_FAILED)
			return p;
	}
	return MAP_FAILED;
}

static bool patch(uint64_t site, const uint8_t *bytes, size_t n)
{
	uint64_t page = site & ~0xfffull;
	size_t len = (site + n - page + 0xfff) & ~0xfffull;

	if (mprotect((void *)page, len, PROT_READ | PROT_WRITE | PROT_EXEC))
		return false;
	memcpy((void *)site, bytes, n);
	return mprotect((void *)page, len, PROT_READ | PROT_EXEC) == 0;
}

/* Whether the bytes at a (the mapping) are st's shape's, up to its
 * resume. */
static bool site_in_memory(const struct rw_site *st, const uint8_t *a)
{
	uint8_t mov[7] = { 0xb8, 0, 0, 0, 0, 0x0f, 0x05 };

	if (st->post_len)
		return !memcmp(a, "\x31\xc0\x0f\x05", 4) &&
		       !memcmp(a + 4, st->post, st->post_len);
	memcpy(mov + 1, &st->nr, 4);
	return !memcmp(a, mov, sizeof(mov));
}

/*
 * Patches every site of s (slot 0 for write, 1 for read), trampolines
 * in pool, islands from island on; the sites patched, or -1 if one's
 * bytes in memory are not its shape's.
 */
static long patch_all(const struct libc *l, const struct rw_sites *s,
		      uint8_t *pool, uint8_t *island, struct rw_counters *c,
		      const struct rw_tsc *tsc)
{
	uint8_t jmp[RW_SITE_MAX];
	long patched = 0;
	size_t i;

	for (i = 0; i < s->n && (i + 1) * RW_TRAMP_MAX <= RW_POOL_CODE; i++) {
		const struct rw_site *st = &s->site[i];
		uint64_t isl = (uint64_t)(island + i * RW_ISLAND_LEN);
		struct rw_tramp_spec sp = {
			.at = (uint64_t)(pool + i * RW_TRAMP_MAX),
			.site = l->bias + st->vaddr,
			.stub = isl + RW_ISLAND_STUB, .resume = st->resume,
			.post_len = st->post_len, .nr = st->nr,
			.slot = st->nr == SYS_read, .fd_reg = RW_RDI,
			.moves_data = true, .size_reg = RW_RDX,
			.counters = (uint64_t)c, .mult = tsc->mult,
			.shift = tsc->shift,
		};

		memcpy(sp.post, st->post, st->post_len);
		if (!site_in_memory(st, (const uint8_t *)sp.site))
			return -1;	/* the file and the mapping differ */
		if (rw_tramp_emit((uint8_t *)sp.at, &sp) &&
		    rw_island_emit((uint8_t *)isl, isl, &sp) &&
		    rw_site_patch(jmp, sp.site, st->len, isl) &&
		    patch(sp.site, jmp, st->len))
			patched++;
	}
	return patched;
}

/* Reads through libc from another thread: with one, libc is no longer
 * single-threaded and read takes its cancellable path, another site. */
static void *reader(void *arg)
{
	char buf[16];
	int i, n = 0;

	for (i = 0; i < 10; i++)
		n += read(*(int *)arg, buf, sizeof(buf)) == sizeof(buf);
	return (void *)(long)n;
}

static void test_writes(struct rw_counters *c)
{
	struct rw_cell *cell;
	char got[16];
	int fds[2], i, n = 0;

	if (pipe(fds) < 0)
		return;
	for (i = 0; i < 10; i++)
		n += write(fds[1], "hello", 5) == 5;
	is_int(n, 10, "ten writes through libc");
	is_int(read(fds[0], got, sizeof(got)), 16, "their bytes arrive");
	ok(!memcmp(got, "hellohellohello", 15), "as written");
	ok(c->cell[1][fds[0]].calls == 1 && c->cell[1][fds[0]].bytes == 16,
	   "the read counted in read's slot: 16 bytes");
	cell = &c->cell[0][fds[1]];
	is_int(cell->calls, 10, "the pipe's cell counts ten calls");
	is_int(cell->bytes, 50, "fifty bytes");
	is_int(cell->req, 50, "fifty asked for");
	ok(cell->size_max == 5 && cell->size_max_calls == 10,
	   "the largest asked 5, by all ten");
	is_int(cell->shorts, 0, "none short");
	is_int(cell->errors, 0, "no error");
	ok(c->max_ns[0] >= ~c->nmin_ns[0] && c->nmin_ns[0],
	   "the slot's extremes: %llu to %llu ns",
	   (unsigned long long)~c->nmin_ns[0],
	   (unsigned long long)c->max_ns[0]);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	errno = 0;
	is_int(write(fds[1], "x", 1), -1, "a write to a closed pipe fails");
	is_int(errno, EPIPE, "with EPIPE, as without the fast path");
	is_int(cell->errors, 1, "its error counted");
	is_int(c->err[0][EPIPE], 1, "as EPIPE");
	ok(cell->calls == 11 && cell->req == 51 && cell->bytes == 50,
	   "a call, a byte asked, none moved");
	close(fds[1]);
}

static void test_reads(struct rw_counters *c)
{
	int fd = open("/dev/zero", O_RDONLY), i, n = 0;
	struct rw_cell *cell;
	pthread_t t;
	void *got;
	char buf[16];

	if (fd < 0)
		return;
	memset(c->cell[1], 0, sizeof(c->cell[1]));	/* the pipe's read */
	cell = &c->cell[1][fd];
	for (i = 0; i < 10; i++)
		n += read(fd, buf, sizeof(buf)) == sizeof(buf);
	is_int(n, 10, "ten reads of /dev/zero through libc's xor sites");
	ok(cell->calls == 10 && cell->bytes == 160 && cell->req == 160 &&
	   cell->errors == 0, "counted: ten calls, 160 bytes of 160");
	ok(!pthread_create(&t, NULL, reader, &fd) && !pthread_join(t, &got) &&
	   (long)got == 10, "ten more from a thread (read's cancellable "
	   "path)");
	ok(cell->calls == 20 && cell->bytes == 320, "counted too: 20 calls, "
	   "320 bytes");
	errno = 0;
	close(200);
	ok(read(200, buf, sizeof(buf)) == -1 && errno == EBADF,
	   "a read of a closed fd: -1, EBADF (the cmp's flags kept)");
	ok(c->cell[1][200].errors == 1 && c->err[1][EBADF] == 1,
	   "its error counted as EBADF");
	ok(read(fd, buf, 0) == 0 && cell->calls == 21,
	   "a read of 0: 0 (no error), counted");
	close(fd);
}

int main(void)
{
	uint8_t hot[128] = { 0 };
	struct libc l = { "", 0 };
	struct rw_sites s = { 0 };
	struct rw_counters *c;
	uint8_t *pool, *island;
	struct rw_tsc tsc;
	size_t reads = 0, i;
	long patched;

	hot[SYS_write / 8] |= 1 << (SYS_write % 8);
	hot[SYS_read / 8] |= 1 << (SYS_read % 8);
	if (!dl_iterate_phdr(find_libc, &l)) {
		printf("1..0 # skip: no libc.so.6 in this process\n");
		return 0;
	}
	is_int(rw_sites_find(l.path, hot, &s), 0, "libc's sites found");
	for (i = 0; i < s.n; i++)
		reads += s.site[i].nr == SYS_read;
	ok(s.n > reads && reads > 0, "%zu write and %zu read sites in %s",
	   s.n - reads, reads, l.path);
	rw_tsc_scale(1, 1, &tsc);
	pool = mmap(NULL, RW_POOL_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	island = s.n ? map_near(l.bias + s.site[0].vaddr, 1u << 16)
		     : MAP_FAILED;
	ok(pool != MAP_FAILED && island != MAP_FAILED,
	   "a pool, and islands within reach of libc");
	if (pool == MAP_FAILED || island == MAP_FAILED)
		return done_testing();
	c = (struct rw_counters *)(pool + RW_POOL_COUNTERS);
	patched = patch_all(&l, &s, pool, island, c, &tsc);
	ok(patched >= 0, "every site's bytes in memory are its shape's");
	is_int(patched, s.n, "every site patched");
	test_writes(c);
	test_reads(c);
	rw_sites_free(&s);
	return done_testing();
}
