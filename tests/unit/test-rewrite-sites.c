// SPDX-License-Identifier: MIT
/*
 * Unit tests of the fast path's site finder (tracer/rewrite/sites.c):
 * on the system's libc, every site it gives is b8 <nr> 0f 05, or read's
 * xor; syscall; cmp $-4096,%rax, in the file, with a hot number, in
 * ascending order, and it counts the syscall instructions objdump -d
 * shows; on tests/helpers/rwsites.S, a shared object with one function
 * per rule and shape, each rule refuses exactly
 * the sites it exists for and the rest are found where their symbols
 * say.  Every syscall gets one verdict: the sites and the refusals add
 * up to the syscalls.  Each site's file offset is where its vaddr's
 * PT_LOAD segment puts it (rwsites.so is linked at a base other than 0,
 * so that the two differ) and holds its bytes.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "elf/elfobj.h"
#include "tracer/rewrite/rewrite.h"
#include "tests/unit/tap.h"

#define LIBC "/lib/x86_64-linux-gnu/libc.so.6"

static void hot_add(uint8_t hot[128], int nr)
{
	hot[nr / 8] |= (uint8_t)(1u << nr % 8);
}

static bool is_hot(const uint8_t hot[128], int nr)
{
	return nr >= 0 && nr < 1024 && (hot[nr / 8] & (1u << nr % 8));
}

static size_t verdicts(const struct rw_sites *s)
{
	size_t n = s->n;

	for (int r = 0; r < RW_REFUSE_N; r++)
		n += s->refused[r];
	return n;
}

/*
 * The file offset of the n bytes at vaddr of the ELF file at path, read
 * through its program headers here rather than the code under test;
 * *shift: the PT_LOAD segment's p_vaddr - p_offset.  0, or -1.
 */
static int file_offset(const char *path, uint64_t vaddr, size_t n,
		       uint64_t *off, int64_t *shift)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY), ret = -1;

	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh))
		goto out_close;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff +
		    i * sizeof(ph))) != sizeof(ph))
			goto out_close;
		if (ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr + n > ph.p_vaddr + ph.p_filesz)
			continue;
		*off = ph.p_offset + vaddr - ph.p_vaddr;
		*shift = (int64_t)(ph.p_vaddr - ph.p_offset);
		ret = 0;
		break;
	}
out_close:
	close(fd);
	return ret;
}

static int file_read(const char *path, uint64_t off, void *buf, size_t n)
{
	int fd = open(path, O_RDONLY);
	ssize_t got = fd < 0 ? -1 : pread(fd, buf, n, (off_t)off);

	if (fd >= 0)
		close(fd);
	return got == (ssize_t)n ? 0 : -1;
}

/*
 * The bytes a site of s's shape has in the file, from its first up to
 * its resume: b8 <nr> 0f 05 (len 5, resume 7, no post), b8 <nr> <its
 * pre> 0f 05 (resume 7 + pre_len, loads rw_pre_ok() takes) or 31 c0 0f
 * 05 48 3d 00 f0 ff ff (len 10, resume 10, the cmp its post, nr 0);
 * their count, or 0 for a site of none.
 */
static size_t shape_bytes(const struct rw_site *s, unsigned char want[20])
{
	static const unsigned char xor[10] = { 0x31, 0xc0, 0x0f, 0x05, 0x48,
		0x3d, 0x00, 0xf0, 0xff, 0xff };
	uint32_t nr = (uint32_t)s->nr;

	if (s->len == 5 && s->resume == 7 + s->pre_len && s->post_len == 0 &&
	    rw_pre_ok(s->pre, s->pre_len)) {
		want[0] = 0xb8;
		memcpy(want + 1, &nr, 4);
		memcpy(want + 5, s->pre, s->pre_len);
		want[5 + s->pre_len] = 0x0f;
		want[6 + s->pre_len] = 0x05;
		return 7u + s->pre_len;
	}
	if (s->len == 10 && s->resume == 10 && s->post_len == 6 &&
	    s->nr == 0 && !memcmp(s->post, xor + 4, 6)) {
		memcpy(want, xor, 10);
		return 10;
	}
	return 0;
}

/*
 * Sites that are neither shape's bytes in the file, at the offset their
 * vaddr's segment gives, or not hot, or whose offset is another.
 * *shifted: sites whose segment's vaddr and offset differ; *xors: sites
 * of the xor shape.
 */
static size_t bad_sites(const char *path, const struct rw_sites *s,
			const uint8_t hot[128], size_t *shifted, size_t *xors,
			size_t *loads)
{
	unsigned char got[20], want[20];
	size_t bad = 0, n;
	uint64_t off;
	int64_t shift = 0;

	*shifted = *xors = *loads = 0;
	for (size_t i = 0; i < s->n; i++) {
		n = shape_bytes(&s->site[i], want);
		if (!n || file_offset(path, s->site[i].vaddr, n, &off,
				      &shift) ||
		    off != s->site[i].offset ||
		    file_read(path, s->site[i].offset, got, n) ||
		    memcmp(got, want, n) || !is_hot(hot, s->site[i].nr)) {
			printf("# bad site at %#llx (offset %#llx)\n",
			       (unsigned long long)s->site[i].vaddr,
			       (unsigned long long)s->site[i].offset);
			bad++;
		}
		*shifted += shift != 0;
		*xors += s->site[i].len == 10;
		*loads += s->site[i].pre_len != 0;
	}
	return bad;
}

static bool ascending(const struct rw_sites *s)
{
	for (size_t i = 1; i < s->n; i++)
		if (s->site[i - 1].vaddr >= s->site[i].vaddr)
			return false;
	return true;
}

/* The syscall instructions objdump -d shows in path; -1: no objdump. */
static long objdump_syscalls(const char *path)
{
	char cmd[512], line[512], *t;
	long n = 0;
	FILE *p;

	if (system("command -v objdump >/dev/null 2>&1"))
		return -1;
	snprintf(cmd, sizeof(cmd), "objdump -d '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	/* "  2a3b4:\t0f 05                \tsyscall" */
	while (fgets(line, sizeof(line), p))
		if ((t = strchr(line, '\t')) && (t = strchr(t + 1, '\t')) &&
		    !strncmp(t + 1, "syscall", 7))
			n++;
	return pclose(p) ? -1 : n;
}

static void test_libc(void)
{
	static const int calls[] = { SYS_read, SYS_write, SYS_pread64,
		SYS_pwrite64, SYS_readv, SYS_writev, SYS_lseek, SYS_fsync,
		SYS_fdatasync, SYS_splice, SYS_copy_file_range };
	uint8_t hot[128] = { 0 };
	struct rw_sites s;
	size_t shifted, xors, loads;
	long want;

	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		hot_add(hot, calls[i]);
	is_int(rw_sites_find(LIBC, hot, &s), 0, "libc: read");
	printf("# libc: %zu syscalls, %zu sites; refused: shape %zu, "
	       "not hot %zu, undecoded %zu, target %zu\n", s.syscalls, s.n,
	       s.refused[RW_REFUSE_SHAPE], s.refused[RW_REFUSE_NOT_HOT],
	       s.refused[RW_REFUSE_UNDECODED], s.refused[RW_REFUSE_TARGET]);
	ok(s.n > 0, "libc: sites of the hot calls found");
	is_int(bad_sites(LIBC, &s, hot, &shifted, &xors, &loads), 0,
	       "libc: each site is b8 <hot nr> 0f 05, with loads between or "
	       "not, or read's xor shape in the file, at its offset");
	printf("# libc: %zu of the xor shape, %zu of the loads shape\n", xors,
	       loads);
	ok(xors > 0, "libc: read's xor sites among them (%zu)", xors);
	ok(ascending(&s), "libc: sites by ascending vaddr");
	is_int(verdicts(&s), s.syscalls, "libc: one verdict a syscall");
	want = objdump_syscalls(LIBC);
	if (want < 0)
		ok(1, "# SKIP libc: no objdump");
	else
		is_int(s.syscalls, want, "libc: syscalls as objdump -d counts");
	rw_sites_free(&s);
	ok(!s.site && !s.n, "libc: freed");
}

/* The vaddr of the function name in the object at path; 0: none. */
static uint64_t symbol(const char *path, const char *name)
{
	struct elf_obj *o;
	uint64_t addr = 0;

	if (elf_obj_load(path, 0, 0, &o))
		return 0;
	for (size_t i = 0; i < o->nsyms; i++)
		if (!strcmp(o->syms[i].name, name))
			addr = o->syms[i].addr;
	elf_obj_free(o);
	return addr;
}

static void test_truth(const char *so)
{
	uint8_t hot[128] = { 0 };
	struct rw_sites s;
	size_t shifted, xors, loads;

	hot_add(hot, SYS_read);
	hot_add(hot, SYS_write);
	hot_add(hot, SYS_pread64);
	hot_add(hot, SYS_pwrite64);
	is_int(rw_sites_find(so, hot, &s), 0, "rwsites.so: read");
	/* rw_imm's 0f 05 is inside movabs: no syscall */
	is_int(s.syscalls, 17, "17 syscalls: rw_imm's bytes are none");
	is_int(s.refused[RW_REFUSE_SHAPE], 5, "SHAPE: mov to %%rax, xor with "
	       "no cmp, loads into %%rax, from %%rip, with an index");
	is_int(s.refused[RW_REFUSE_NOT_HOT], 1, "NOT_HOT: getpid");
	is_int(s.refused[RW_REFUSE_UNDECODED], 2,
	       "UNDECODED: the tail of mov $1,%%r8d, data in no function");
	is_int(s.refused[RW_REFUSE_TARGET], 3, "TARGET: a jmp into the mov, "
	       "to the xor shape's syscall, to its cmp's last byte");
	is_int(s.n, 6, "6 sites");
	if (s.n == 6) {
		is_int(s.site[3].vaddr, symbol(so, "rw_xorcmp"), "rw_xorcmp: "
		       "branches to its first byte and past it are none");
		ok(s.site[3].nr == SYS_read && s.site[3].len == 10 &&
		   s.site[3].resume == 10 && s.site[3].post_len == 6,
		   "rw_xorcmp: read, 10 bytes rewritten, the cmp after");
		is_int(s.site[4].vaddr, symbol(so, "rw_both") + 5, "rw_both: "
		       "the xor the decode steps on, not the b8 before it");
		is_int(s.site[5].vaddr, symbol(so, "rw_loads"), "rw_loads");
		ok(s.site[5].nr == SYS_pwrite64 && s.site[5].len == 5 &&
		   s.site[5].pre_len == 9 && s.site[5].resume == 16 &&
		   s.site[5].post_len == 0,
		   "rw_loads: pwrite64, the mov rewritten, its 9 bytes of "
		   "loads run first, back after the syscall");
	}
	if (s.n >= 3) {
		is_int(s.site[0].vaddr, symbol(so, "rw_plain"), "rw_plain");
		is_int(s.site[0].nr, SYS_read, "rw_plain: read");
		is_int(s.site[1].vaddr, symbol(so, "rw_shared"),
		       "rw_shared: a jmp to its syscall is no refusal");
		is_int(s.site[1].nr, SYS_write, "rw_shared: write");
		is_int(s.site[2].vaddr, symbol(so, "rw_fde"),
		       "rw_fde: found through its FDE alone");
		is_int(s.site[2].nr, SYS_pread64, "rw_fde: pread64");
	}
	is_int(bad_sites(so, &s, hot, &shifted, &xors, &loads), 0,
	       "each site is its shape's bytes at its file offset");
	is_int(xors, 2, "2 of the xor shape");
	is_int(loads, 1, "1 of the loads shape");
	is_int(shifted, s.n, "the segment's vaddr is not its offset");
	rw_sites_free(&s);
}

/* Shape is judged first: with nothing hot, every mov is NOT_HOT. */
static void test_nothing_hot(const char *so)
{
	uint8_t hot[128] = { 0 };
	struct rw_sites s;

	is_int(rw_sites_find(so, hot, &s), 0, "nothing hot: read");
	is_int(s.n, 0, "nothing hot: no site");
	is_int(s.refused[RW_REFUSE_SHAPE], 5, "nothing hot: SHAPE 5");
	is_int(s.refused[RW_REFUSE_NOT_HOT], 12, "nothing hot: NOT_HOT 12");
	is_int(verdicts(&s), s.syscalls, "nothing hot: one verdict each");
	rw_sites_free(&s);
}

static void test_errors(void)
{
	char path[] = "/tmp/iotrace-rwsites-XXXXXX";
	uint8_t hot[128] = { 0 };
	struct rw_sites s;
	int fd = mkstemp(path);

	is_int(rw_sites_find("/nonexistent/libc.so.6", hot, &s), -ENOENT,
	       "no file: -ENOENT");
	ok(fd >= 0 && write(fd, "not ELF\n", 8) == 8, "a text file");
	is_int(rw_sites_find(path, hot, &s), -ENOEXEC, "not ELF: -ENOEXEC");
	ok(!s.site && !s.n && !s.syscalls, "a failure leaves nothing");
	close(fd);
	unlink(path);
}

int main(void)
{
	const char *dir = getenv("HELPERS");
	char so[4096];

	snprintf(so, sizeof(so), "%s/rwsites.so", dir ? dir : "build/helpers");
	test_libc();
	test_truth(so);
	test_nothing_hot(so);
	test_errors();
	return done_testing();
}
