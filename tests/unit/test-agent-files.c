// SPDX-License-Identifier: MIT
/*
 * The agent engine's per-file counts, iotrace's side
 * (tracer/agent-files.c) without a run: agent_files_fill() gives the
 * agent the facts of tracer/systab.c per number (a column for every call
 * that moves data through an fd, the fd arguments, what a call does to
 * fds); agent_files_deliver() turns hand-filled cells of the shared
 * memory into aggregates that profile_add_aggregate() adds to the file
 * breakdown under the keys the ptrace engine's sink would use: path and
 * flags, kind from the stat, a long path's end, "(unresolved fd)",
 * "(unattributed)" (counted in the engine's use), two-fd pairs; the
 * syscall rows are left alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "reports/profile/profile.h"
#include "tracer/agent-int.h"
#include "tests/unit/tap.h"

static void test_fill(void)
{
	struct agent_files *af = calloc(1, sizeof(*af));
	const struct syscall_fact *f;
	unsigned seen[AGENT_IO_COLS + 1] = { 0 };
	int nr, cols = 0, dup = 0, missing = 0;

	if (!af)
		abort();
	is_int(agent_files_fill(af), 0, "every data call has a column");
	for (nr = 0; nr < AGENT_NR_MAX; nr++) {
		f = syscall_fact(0, nr);
		if (f && f->fd && !af->nr[nr].col)
			missing++;
		if (!af->nr[nr].col)
			continue;
		cols++;
		dup += seen[af->nr[nr].col]++ != 0;
	}
	ok(cols >= 10 && !missing && !dup, "one column per call with an fd "
	   "(%d), none twice", cols);
	is_int(af->nr[SYS_read].fd_arg, 0, "read: fd in arg 0");
	is_int(af->nr[SYS_read].fd2_arg, -1, "read: one fd");
	is_int(af->nr[SYS_sendfile].fd_arg, 1, "sendfile: source in arg 1");
	is_int(af->nr[SYS_sendfile].fd2_arg, 0, "and destination in arg 0");
	is_int(af->nr[SYS_getpid].col, 0, "getpid: no column");
	is_int(af->nr[SYS_openat].fx, AGENT_FX_RET, "openat returns an fd");
	is_int(af->nr[SYS_close].fx, AGENT_FX_ARG0, "close: arg 0");
	is_int(af->nr[SYS_dup2].fx, AGENT_FX_ARG1, "dup2: arg 1");
	is_int(af->nr[SYS_close_range].fx, AGENT_FX_RANGE, "close_range");
	is_int(af->nr[SYS_fcntl].fx, AGENT_FX_FCNTL, "fcntl");
	is_int(af->nr[SYS_execve].fx, AGENT_FX_NONE,
	       "execve: the next agent starts afresh");
	free(af);
}

static void on_aggregate(void *ctx, const struct tracer_aggregate *a)
{
	profile_add_aggregate(ctx, a);
}

static void set_file(struct agent_files *af, unsigned i, const char *path,
		     uint32_t mode, uint32_t flags)
{
	struct agent_file_id *id = &af->file[i].id;
	size_t n = strlen(path);

	if (n >= AGENT_PATH_MAX) {
		path += n - (AGENT_PATH_MAX - 1);
		n = AGENT_PATH_MAX - 1;
		id->cut = 1;
	}
	memcpy(id->path, path, n);
	id->len = (uint16_t)n;
	id->mode = mode;
	id->flags = flags;
	id->blksize = 4096;
	id->stat_ok = 1;
	af->file[i].ready = 1;
}

static struct agent_io *cell(struct agent_files *af, unsigned i, int nr)
{
	return &af->file[i].io[af->nr[nr].col - 1];
}

/* Slot 2 /tmp/out (O_APPEND), 3 a pipe, 4 a long path; 0 and 1. */
static void fill_cells(struct agent_files *af, char *longpath)
{
	struct agent_io *io;
	uint32_t key;

	set_file(af, 2, "/tmp/out", S_IFREG | 0644, O_WRONLY | O_APPEND);
	af->file[2].id.fstype = TMPFS_MAGIC;	/* anonymous st_dev 0 */
	set_file(af, 3, "pipe:[77]", S_IFIFO | 0600, O_RDONLY);
	memset(longpath, 'd', 400);
	memcpy(longpath, "/x/", 3);
	memcpy(longpath + 400, "/tail.dat", 10);
	set_file(af, 4, longpath, S_IFREG | 0644, O_RDONLY);
	af->nfiles = 3;
	io = cell(af, 2, SYS_write);
	*io = (struct agent_io){ .calls = 5, .timed = 4, .errors = 1,
				 .einval = 1, .time_ns = 400,
				 .raw_time_ns = 900, .bytes_req = 300,
				 .bytes_done = 250, .short_calls = 1,
				 .size_max = 100, .size_max_calls = 3 };
	cell(af, 4, SYS_read)->calls = 2;
	cell(af, AGENT_FILE_UNRESOLVED, SYS_write)->calls = 1;
	cell(af, AGENT_FILE_UNATTRIBUTED, SYS_read)->calls = 6;
	key = 3 | 2u << 10 | (uint32_t)(af->nr[SYS_splice].col - 1) << 20;
	af->pairs[9].key = key + 1;
	af->pairs[9].io.calls = 8;
}

static const struct profile_sub *sub_of(const struct profile *p,
					const char *path, const char *path2,
					int nr)
{
	const struct profile_breakdown *b = profile_files(p);
	const struct profile_file *f;
	size_t i;

	for (i = 0; i < b->nsubs; i++) {
		f = profile_file_at(b, b->subs[i].key);
		if (strcmp(f->path, path) ||
		    p->rows[b->subs[i].row].nr != nr)
			continue;
		if (!path2 && b->subs[i].key2 == PROFILE_FILE_NONE)
			return &b->subs[i];
		if (path2 && b->subs[i].key2 != PROFILE_FILE_NONE &&
		    !strcmp(profile_file_at(b, b->subs[i].key2)->path, path2))
			return &b->subs[i];
	}
	return NULL;
}

static void check_subs(const struct profile *p, const char *longpath)
{
	const struct profile_sub *s = sub_of(p, "/tmp/out", NULL, SYS_write);
	const struct profile_file *f;
	char tail[PROFILE_PATH_MAX];

	ok(s && s->calls == 5 && s->timed == 4 && s->errors == 1 &&
	   s->einval == 1 && s->time_ns == 400 && s->raw_time_ns == 900 &&
	   s->bytes_req == 300 && s->bytes_done == 250 &&
	   s->short_calls == 1 && s->size_max == 100 &&
	   s->size_max_calls == 3, "write on /tmp/out: every counter");
	f = s ? profile_file_at(profile_files(p), s->key) : NULL;
	ok(f && f->kind == FD_REG && f->flags == PF_APPEND &&
	   f->blksize == 4096, "a file, O_APPEND, its blksize");
	ok(f && f->backing == FD_BACKING_NONE,
	   "on tmpfs (the agent's statfs type): no device behind it");
	snprintf(tail, sizeof(tail), "...%s",
		 longpath + strlen(longpath) - (PROFILE_PATH_MAX - 4));
	s = sub_of(p, tail, NULL, SYS_read);
	ok(s && s->calls == 2, "a long path keeps its end, as set_path");
	s = sub_of(p, "(unresolved fd)", NULL, SYS_write);
	ok(s && s->calls == 1, "unresolved fd");
	s = sub_of(p, "(unattributed)", NULL, SYS_read);
	ok(s && s->calls == 6, "unattributed");
	s = sub_of(p, "pipe:[77]", "/tmp/out", SYS_splice);
	ok(s && s->calls == 8, "splice: the (source -> destination) pair");
	f = s ? profile_file_at(profile_files(p), s->key) : NULL;
	ok(f && f->kind == FD_PIPE, "a pipe, from its mode");
}

static void test_deliver(void)
{
	struct agent_shm *shm = calloc(1, sizeof(*shm));
	struct tracer_engine_use use;
	struct profile p;
	struct tracer_sink sink = { NULL, &p, on_aggregate };
	struct agent_run ar = { .shm = shm, .use = &use, .sink = &sink };
	char longpath[410];
	size_t i;

	if (!shm)
		abort();
	memset(&use, 0, sizeof(use));
	profile_init(&p);
	agent_files_fill(&shm->files);
	fill_cells(&shm->files, longpath);
	agent_files_deliver(&ar);
	check_subs(&p, longpath);
	is_int(use.unattributed, 6, "unattributed calls counted");
	ok(use.files, "the run says it gave files");
	for (i = 0; i < p.nrows; i++)
		if (p.rows[i].calls)
			break;
	ok(i == p.nrows, "no row counted again");
	profile_release(&p);
	free(shm);
}

int main(void)
{
	test_fill();
	test_deliver();
	return done_testing();
}
