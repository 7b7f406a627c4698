// SPDX-License-Identifier: MIT
/*
 * The fast path's pieces together, on the C library this test runs
 * with: the sites rw_sites_find() gives for write in libc.so.6's file are
 * patched in this process's own libc (islands mapped within reach of it,
 * trampolines in a pool), and write(2) called through libc then runs in
 * a trampoline: the cell of its fd counts each call, its bytes, the
 * bytes asked for and its errors, the errno row each errno, and the
 * data arrive as without it.  No tracer and no filter:
 * what the engine adds (the pool's filter test, patching another
 * process through /proc/PID/mem) is tested apart.
 */
#include <errno.h>
#include <link.h>
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

static bool patch(uint64_t site, const uint8_t bytes[RW_SITE_LEN])
{
	uint64_t page = site & ~0xfffull;
	size_t len = (site + RW_SITE_LEN - page + 0xfff) & ~0xfffull;

	if (mprotect((void *)page, len, PROT_READ | PROT_WRITE | PROT_EXEC))
		return false;
	memcpy((void *)site, bytes, RW_SITE_LEN);
	return mprotect((void *)page, len, PROT_READ | PROT_EXEC) == 0;
}

int main(void)
{
	uint8_t hot[128] = { 0 }, jmp[RW_SITE_LEN];
	struct libc l = { "", 0 };
	struct rw_sites s = { 0 };
	struct rw_counters *c;
	struct rw_cell *cell;
	uint8_t *pool, *island;
	struct rw_tsc tsc;
	size_t i, n = 0, patched = 0;
	char got[16];
	int fds[2];
	bool ok_all = true;

	hot[SYS_write / 8] |= 1 << (SYS_write % 8);
	if (!dl_iterate_phdr(find_libc, &l)) {
		printf("1..0 # skip: no libc.so.6 in this process\n");
		return 0;
	}
	is_int(rw_sites_find(l.path, hot, &s), 0, "libc's write sites found");
	ok(s.n > 0, "%zu write sites in %s", s.n, l.path);
	rw_tsc_scale(1, 1, &tsc);
	pool = mmap(NULL, RW_POOL_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	island = map_near(l.bias + s.site[0].vaddr, 1u << 16);
	ok(pool != MAP_FAILED && island != MAP_FAILED,
	   "a pool, and islands within reach of libc");
	if (pool == MAP_FAILED || island == MAP_FAILED)
		return done_testing();
	c = (struct rw_counters *)(pool + RW_POOL_COUNTERS);
	for (i = 0; i < s.n && (i + 1) * RW_TRAMP_MAX <= RW_POOL_CODE; i++) {
		struct rw_tramp_spec sp = {
			.at = (uint64_t)(pool + i * RW_TRAMP_MAX),
			.site = l.bias + s.site[i].vaddr, .nr = s.site[i].nr,
			.slot = 0, .fd_reg = RW_RDI, .moves_data = true,
			.size_reg = RW_RDX, .counters = (uint64_t)c,
			.mult = tsc.mult,
			.shift = tsc.shift,
		};
		uint8_t *stub = island + i * 16;

		if (memcmp((void *)sp.site, "\xb8\x01\x00\x00\x00\x0f\x05", 7)) {
			ok_all = false;	/* the file and the mapping differ */
			continue;
		}
		if (!rw_tramp_emit((uint8_t *)sp.at, &sp))
			continue;
		rw_island_emit(stub, sp.at);
		if (rw_site_patch(jmp, sp.site, (uint64_t)stub) &&
		    patch(sp.site, jmp))
			patched++;
	}
	ok(ok_all, "every site's bytes in memory are mov $1,%%eax; syscall");
	is_int(patched, s.n, "every write site patched");

	if (pipe(fds) < 0)
		return 1;
	for (i = 0; i < 10; i++)
		n += write(fds[1], "hello", 5) == 5;
	is_int(n, 10, "ten writes through libc");
	is_int(read(fds[0], got, sizeof(got)), 16, "their bytes arrive");
	ok(!memcmp(got, "hellohellohello", 15), "as written");
	cell = &c->cell[0][fds[1]];
	is_int(cell->calls, 10, "the pipe's cell counts ten calls");
	is_int(cell->bytes, 50, "fifty bytes");
	is_int(cell->req, 50, "fifty asked for");
	is_int(cell->shorts, 0, "none short");
	is_int(cell->errors, 0, "no error");
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	errno = 0;
	is_int(write(fds[1], "x", 1), -1, "a write to a closed pipe fails");
	is_int(errno, EPIPE, "with EPIPE, as without the fast path");
	is_int(cell->errors, 1, "its error counted");
	is_int(c->err[0][EPIPE], 1, "as EPIPE");
	ok(cell->calls == 11 && cell->req == 51 && cell->bytes == 50,
	   "a call, a byte asked, none moved");
	rw_sites_free(&s);
	return done_testing();
}
