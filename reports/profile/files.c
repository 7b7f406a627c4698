// SPDX-License-Identifier: MIT
/*
 * Per-file I/O accounting: which file each data syscall's bytes went to.
 * The profile keeps one row per file (path and the open flags that change
 * I/O) and one row per (file, syscall); a call with two fds (sendfile,
 * splice, tee, copy_file_range) gets one row per (source, destination)
 * pair, so its bytes are counted once.  Files come from the tracer's fd
 * cache, so /proc is read only the first time a (task, fd) is seen.
 * Memory is bounded: past PROFILE_FILES_MAX files, new files share an
 * "(other files)" row; past PROFILE_IOS_MAX io rows, new pairs go to
 * that row too.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "reports/profile/profile.h"

#define OTHER_FILES "(other files)"
#define UNRESOLVED "(unresolved fd)"

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16;

	if (n < *cap)
		return v;
	v = realloc(v, ncap * size);
	if (v)
		*cap = ncap;
	return v;
}

static int add_file(struct profile *p, const struct profile_file *f)
{
	struct profile_file *v = grow(p->files, &p->files_cap, p->nfiles,
				      sizeof(*v));

	if (!v)
		return -ENOMEM;
	p->files = v;
	v[p->nfiles] = *f;
	v[p->nfiles].first_io = -1;
	return (int)p->nfiles++;
}

static int find_file(const struct profile *p, const char *path,
		     unsigned flags)
{
	size_t i;

	for (i = 0; i < p->nfiles; i++)
		if (p->files[i].flags == flags &&
		    !strcmp(p->files[i].path, path))
			return (int)i;
	return -1;
}

static int other_file(struct profile *p)
{
	struct profile_file f = { .kind = FD_OTHER };
	int i = find_file(p, OTHER_FILES, 0);

	if (i >= 0)
		return i;
	snprintf(f.path, sizeof(f.path), "%s", OTHER_FILES);
	return add_file(p, &f);
}

int profile_file_get(struct profile *p, const struct profile_file *f)
{
	int i = find_file(p, f->path, f->flags);

	if (i >= 0)
		return i;
	if (p->nfiles >= PROFILE_FILES_MAX - 1)
		return other_file(p);
	return add_file(p, f);
}

static struct profile_io *new_io(struct profile *p, uint32_t file,
				 uint32_t file2, uint32_t row)
{
	struct profile_io *v = grow(p->ios, &p->ios_cap, p->nios, sizeof(*v));

	if (!v)
		return NULL;
	p->ios = v;
	v += p->nios;
	memset(v, 0, sizeof(*v));
	v->file = file;
	v->file2 = file2;
	v->row = row;
	v->next = p->files[file].first_io;
	p->files[file].first_io = (int32_t)p->nios++;
	return v;
}

struct profile_io *profile_io_get(struct profile *p, uint32_t file,
				  uint32_t file2, uint32_t row)
{
	int32_t i;
	int other;

	for (i = p->files[file].first_io; i >= 0; i = p->ios[i].next)
		if (p->ios[i].row == row && p->ios[i].file2 == file2)
			return &p->ios[i];
	if (p->nios < PROFILE_IOS_MAX)
		return new_io(p, file, file2, row);
	/* Full: one row per syscall in "(other files)", a bounded few. */
	other = other_file(p);
	if (other < 0)
		return NULL;
	for (i = p->files[other].first_io; i >= 0; i = p->ios[i].next)
		if (p->ios[i].row == row &&
		    p->ios[i].file2 == PROFILE_FILE_NONE)
			return &p->ios[i];
	return new_io(p, (uint32_t)other, PROFILE_FILE_NONE, row);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static void add_size(struct profile_io *io, const struct profile_row *r,
		     const struct tracer_event *ev)
{
	uint64_t asked;

	if (r->io_arg < 0 || r->io_arg >= 6)
		return;
	asked = ev->args[r->io_arg];
	if (asked > io->size_max) {
		io->size_max = asked;
		io->size_max_calls = 0;
	}
	if (asked == io->size_max)
		io->size_max_calls++;
	if (ev->ret < 0)
		return;
	io->bytes_req = add_sat(io->bytes_req, asked);
	if ((uint64_t)ev->ret < asked)
		io->short_calls++;
}

int profile_add_io(struct profile *p, uint32_t row, uint32_t file,
		   uint32_t file2, const struct tracer_event *ev)
{
	struct profile_io *io = profile_io_get(p, file, file2, row);
	uint64_t raw;

	if (!io)
		return -ENOMEM;
	io->calls++;
	if (ev->flags & EVF_COUNT_ONLY)
		return 0;
	raw = ev->exit_ns - ev->entry_ns;
	io->timed++;
	io->raw_time_ns += raw;
	io->time_ns += raw > p->overhead_ns ? raw - p->overhead_ns : 0;
	if (ev->ret < 0 && ev->ret >= -4095) {
		io->errors++;
		io->einval += ev->ret == -EINVAL;
	} else {
		io->bytes_done += (uint64_t)ev->ret;
	}
	add_size(io, &p->rows[row], ev);
	return 0;
}

static unsigned pf_flags(unsigned o)
{
	unsigned f = 0;

	if (o & O_DIRECT)
		f |= PF_DIRECT;
	/* O_SYNC includes O_DSYNC's bit: show the stronger one only. */
	if ((o & O_SYNC) == O_SYNC)
		f |= PF_SYNC;
	else if (o & O_DSYNC)
		f |= PF_DSYNC;
	if (o & O_APPEND)
		f |= PF_APPEND;
	return f;
}

/* Long paths keep their end, where the file name is. */
static void set_path(struct profile_file *f, const char *path, bool cut)
{
	size_t len = strlen(path), room = sizeof(f->path) - 1;

	if (len <= room && !cut)
		memcpy(f->path, path, len + 1);
	else
		snprintf(f->path, sizeof(f->path), "...%s",
			 path + (len > room - 3 ? len - (room - 3) : 0));
	/*
	 * Printed in tables and saved as a JSON string: a file name must
	 * not drive the terminal or make the profile unsavable, and the
	 * table of a saved run must be the table the run printed.
	 */
	profile_clean_text(f->path, true);
}

static int file_of(struct profile *p, struct fd_cache *c, pid_t tid, int fd)
{
	struct profile_file f;
	struct fd_desc d;
	int id = fd_cache_lookup(c, tid, fd);

	if (id >= 0)
		return id;
	memset(&f, 0, sizeof(f));
	if (fd_describe(tid, fd, &d) < 0) {
		/* EBADF and the like: nothing to cache. */
		snprintf(f.path, sizeof(f.path), "%s", UNRESOLVED);
		return profile_file_get(p, &f);
	}
	set_path(&f, d.path, d.truncated);
	f.kind = d.kind;
	f.flags = pf_flags(d.open_flags);
	f.blksize = d.blksize;
	f.lbs = d.lbs;
	id = profile_file_get(p, &f);
	if (id >= 0)
		fd_cache_store(c, tid, fd, id);
	return id;
}

int profile_add_files(struct profile *p, struct fd_cache *c,
		      const struct tracer_event *ev)
{
	uint32_t file2 = PROFILE_FILE_NONE;
	struct profile_row *r;
	int f1, f2 = 0;

	if (!c)
		return 0;
	fd_cache_event(c, ev);
	if (ev->flags & EVF_HIDDEN)
		return 0;
	r = profile_event_row(p, ev);
	if (!r)
		return -ENOMEM;
	/* The cache knows every personality's calls (tracer/systab.c). */
	if (r->fd_arg < 0)
		return 0;
	f1 = file_of(p, c, ev->tid, (int)ev->args[r->fd_arg]);
	if (f1 >= 0 && r->fd_arg2 >= 0) {
		f2 = file_of(p, c, ev->tid, (int)ev->args[r->fd_arg2]);
		file2 = (uint32_t)f2;
	}
	if (f1 < 0 || f2 < 0)
		return -ENOMEM;
	return profile_add_io(p, (uint32_t)(r - p->rows), (uint32_t)f1, file2,
			      ev);
}

/* The I/O table's notes and the JSON "flags" (json-files.c) use these. */
const struct profile_file_flag profile_file_flags[] = {
	{ PF_DIRECT, "O_DIRECT" }, { PF_SYNC, "O_SYNC" },
	{ PF_DSYNC, "O_DSYNC" },   { PF_APPEND, "O_APPEND" },
	{ 0, NULL },
};

const char *profile_file_notes(const struct profile_file *f, char *buf,
			       size_t size)
{
	const struct profile_file_flag *fl;
	size_t n = 0;

	buf[0] = '\0';
	for (fl = profile_file_flags; fl->name; fl++)
		if (f->flags & fl->flag && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s%s",
					      n ? ", " : "", fl->name);
	/* Pipes and sockets have an st_blksize too; it means nothing. */
	if ((f->kind == FD_REG || f->kind == FD_BLK) && f->blksize && n < size)
		n += (size_t)snprintf(buf + n, size - n, "%sblksize %u",
				      n ? ", " : "", f->blksize);
	if (f->lbs && n < size)
		snprintf(buf + n, size - n, "%slogical block %u",
			 n ? ", " : "", f->lbs);
	return buf;
}
