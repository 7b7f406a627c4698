// SPDX-License-Identifier: MIT
/*
 * The I/O table against golden text (tests/fixtures/io-table.txt), and
 * profile_add_io()'s arithmetic: bytes, short calls, sizes, EINVAL,
 * two-fd pairs and the bounded "(other files)" row.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "render/render.h"
#include "tap.h"
#include "profile-fixtures.h"

static uint32_t row_of(struct profile *p, const char *name)
{
	return (uint32_t)(profile_row_get(p, name) - p->rows);
}

/* n calls of one syscall, each asking `ask`, returning ret, taking ns. */
static void add(struct profile *p, const char *name, uint32_t f, uint32_t f2,
		int n, uint64_t ask, int64_t ret, uint64_t ns)
{
	struct tracer_event ev = { .ret = ret, .exit_ns = ns };
	uint32_t r = row_of(p, name);

	if (p->rows[r].io_arg >= 0 && p->rows[r].io_arg < 6)
		ev.args[p->rows[r].io_arg] = ask;
	while (n--)
		profile_add_io(p, r, f, f2, &ev);
}

static char *slurp(const char *path)
{
	char *buf = calloc(1, 65536);
	FILE *f = fopen(path, "r");

	if (f && buf)
		buf[fread(buf, 1, 65535, f)] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void build(struct profile *p)
{
	uint32_t out, zero, in, pipe;

	profile_init(p);
	out = file(p, "/tmp/test1", FD_REG, PF_DIRECT, 4096, 512);
	zero = file(p, "/dev/zero", FD_CHR, 0, 4096, 0);
	in = file(p, "/data/in", FD_REG, PF_APPEND | PF_DSYNC, 4096, 0);
	pipe = file(p, "pipe:[42]", FD_PIPE, 0, 4096, 0);
	/* 18560 writes of 1130 in 0.52 s; 12 extra short reads. */
	add(p, "write", out, PROFILE_FILE_NONE, 18560, 1130, 1130, 28017);
	add(p, "read", zero, PROFILE_FILE_NONE, 18560, 1130, 1130, 3114);
	add(p, "read", zero, PROFILE_FILE_NONE, 12, 1130, 0, 3000);
	add(p, "splice", in, pipe, 10, 65536, 65536, 10000);
	add(p, "splice", in, pipe, 1, 65536, 0, 10000);
	add(p, "writev", pipe, PROFILE_FILE_NONE, 3, 0, 100, 1000);
	add(p, "write", out, PROFILE_FILE_NONE, 1, 1130, -EINVAL, 1000);
}

static void test_golden(void)
{
	const char *dir = getenv("FIXTURES");
	struct report_opts o = { 0 };
	char path[4096], *text = NULL, *want;
	size_t len = 0;
	struct profile p;
	FILE *m;

	build(&p);
	m = open_memstream(&text, &len);
	ok(io_render(m, &p, &o) == 0, "io_render succeeds");
	fclose(m);
	snprintf(path, sizeof(path), "%s/io-table.txt",
		 dir ? dir : "tests/fixtures");
	want = slurp(path);
	is_str(text, want, "the I/O table matches %s", path);
	free(text);
	free(want);
	profile_release(&p);
}

static void test_sums(void)
{
	const struct profile_breakdown *b;
	const struct profile_sub *w, *r, *s;
	struct profile p;

	build(&p);
	b = profile_files(&p);
	is_int(b->nsubs, 4, "four (file, syscall) rows");
	w = &b->subs[0];
	is_int(w->calls, 18561, "write calls, the failed one included");
	is_int(w->bytes_done, 18560 * 1130, "write bytes");
	is_int(w->errors, 1, "write errors");
	is_int(w->einval, 1, "EINVAL counted");
	is_int(w->size_max, 1130, "size asked");
	is_int(w->size_max_calls, 18561, "every call asked it");
	is_int(w->short_calls, 0, "no short write");
	r = &b->subs[1];
	is_int(r->short_calls, 12, "EOF reads are short");
	is_int(r->bytes_req, 18572 * 1130, "bytes asked");
	s = &b->subs[2];
	is_int(s->key2, 3, "splice row has its destination");
	is_int(s->bytes_done, 10 * 65536, "splice bytes counted once");
	profile_release(&p);
}

static void test_bounded(void)
{
	const struct profile_breakdown *b;
	struct profile p;
	char name[32];
	uint32_t f = 0;
	int i;

	profile_init(&p);
	for (i = 0; i < PROFILE_FILES_MAX + 50; i++) {
		snprintf(name, sizeof(name), "socket:[%d]", i);
		f = file(&p, name, FD_SOCK, 0, 4096, 0);
		add(&p, "sendto", f, PROFILE_FILE_NONE, 1, 10, 10, 100);
	}
	b = profile_files(&p);
	is_int(b->nkeys, PROFILE_FILES_MAX, "files capped");
	is_str(profile_file_at(b, f)->path, "(other files)",
	       "the rest share a row");
	is_int(b->subs[b->nsubs - 1].calls, 51, "its row has their calls");
	profile_release(&p);
}

int main(void)
{
	test_golden();
	test_sums();
	test_bounded();
	return done_testing();
}
