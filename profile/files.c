// SPDX-License-Identifier: MIT
/*
 * The file dimension: which file each data syscall's bytes went to.
 * Its key (struct profile_file) is a path as /proc showed it with the
 * open flags that change I/O; kind, sizes and whether a block device is
 * behind it describe it.  This file is
 * the key type (compare, hash, save, load, print: profile_dim_file) and
 * how events are counted to their files, which the sink names (through
 * procfd/'s fd cache, so /proc is read only the first time a (task, fd)
 * is seen: session/sink.c); the profile reads no /proc.  A call with two
 * fds (sendfile, splice, tee, copy_file_range) gets one sub-row per
 * (source, destination) pair.  Aggregation and bounds are breakdown.c's:
 * past PROFILE_FILES_MAX files, new files share "(other files)".
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "profile/jload.h"

#define OTHER_FILES "(other files)"
#define UNRESOLVED "(unresolved fd)"

/* enum fd_kind <-> word, both ways. */
static const char *const kind_words[] = {
	[FD_UNKNOWN] = "unknown", [FD_REG] = "file",   [FD_BLK] = "block",
	[FD_CHR] = "char",	  [FD_PIPE] = "pipe",  [FD_SOCK] = "socket",
	[FD_ANON] = "anon_inode", [FD_DIR] = "dir",    [FD_OTHER] = "other",
};
#define NKINDS (sizeof(kind_words) / sizeof(kind_words[0]))

/* --- the key type --- */

/* A file is its path and flags; kind, sizes and backing describe it. */
static int file_cmp(const void *a, const void *b)
{
	const struct profile_file *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return x->flags < y->flags ? -1 : x->flags > y->flags;
}

static uint64_t file_hash(const void *key)
{
	const struct profile_file *f = key;
	uint64_t h = profile_hash_bytes(0, f->path, strlen(f->path));

	return profile_hash_bytes(h, &f->flags, sizeof(f->flags));
}

static void file_other(void *key)
{
	struct profile_file *f = key;

	f->kind = FD_OTHER;
	snprintf(f->path, sizeof(f->path), "%s", OTHER_FILES);
}

/* The path, and its notes in parentheses when it has some. */
static void file_label(char *buf, size_t size, const void *key)
{
	const struct profile_file *f = key;
	char notes[128];

	profile_file_notes(f, notes, sizeof(notes));
	if (notes[0])
		snprintf(buf, size, "%s (%s)", f->path, notes);
	else
		snprintf(buf, size, "%s", f->path);
}

static json_t *flags_array(unsigned flags)
{
	const struct profile_file_flag *fl;
	json_t *a = json_array();

	for (fl = profile_file_flags; a && fl->name; fl++) {
		if (!(flags & fl->flag))
			continue;
		if (json_array_append_new(a, json_string(fl->name)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Kinds and flags are words, so a script can read them. */
static json_t *file_save(const void *key)
{
	const struct profile_file *f = key;
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= json_object_set_new(o, "path", json_string(f->path));
	err |= json_object_set_new(o, "kind", json_string(
		f->kind < NKINDS ? kind_words[f->kind] : "unknown"));
	err |= json_object_set_new(o, "flags", flags_array(f->flags));
	err |= json_object_set_new(o, "blksize", json_integer(f->blksize));
	err |= json_object_set_new(o, "lbs", json_integer(f->lbs));
	/* Not known (a run saved before, an strace table): left out. */
	if (f->backing != FD_BACKING_UNKNOWN)
		err |= json_object_set_new(o, "device", json_boolean(
			f->backing == FD_BACKING_DEVICE));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int u32_of(struct jload *j, json_t *o, const char *key, uint32_t *out)
{
	uint64_t v;

	if (jload_u64(j, o, key, &v) < 0)
		return -1;
	if (v > UINT32_MAX) {
		jload_push_key(j, key);
		return jfail(j, "must be 0 to %u, got %llu", UINT32_MAX,
			     (unsigned long long)v);
	}
	*out = (uint32_t)v;
	return 0;
}

static int kind_of(struct jload *j, json_t *o, unsigned *kind)
{
	char word[16];
	unsigned k;

	if (jload_string(j, o, "kind", word, sizeof(word)) < 0)
		return -1;
	for (k = 0; k < NKINDS; k++) {
		if (!strcmp(word, kind_words[k])) {
			*kind = k;
			return 0;
		}
	}
	jload_push_key(j, "kind");
	return jfail(j, "unknown kind '%s'", word);
}

/* One word of "flags": its PF_* bit, which must not be set yet. */
static int flag_of(struct jload *j, json_t *v, unsigned *flags)
{
	const struct profile_file_flag *fl;

	if (!json_is_string(v))
		return jfail(j, "expected a string, got %s",
			     json_is_true(v) ? "true" :
			     jload_type_word(json_typeof(v)));
	for (fl = profile_file_flags; fl->name; fl++) {
		if (strcmp(json_string_value(v), fl->name))
			continue;
		if (*flags & fl->flag)
			return jfail(j, "'%s' given twice", fl->name);
		*flags |= fl->flag;
		return 0;
	}
	return jfail(j, "unknown flag '%s'", json_string_value(v));
}

static int flags_of(struct jload *j, json_t *o, unsigned *flags)
{
	json_t *a = jload_member(j, o, "flags", JSON_ARRAY), *v;
	size_t i;

	if (!a)
		return -1;
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		if (flag_of(j, v, flags) < 0)
			return -1;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

/* Paths end up in tables: no control characters (set_path cleans them). */
static int path_of(struct jload *j, json_t *o, struct profile_file *f)
{
	const char *c;

	if (jload_string(j, o, "path", f->path, sizeof(f->path)) < 0)
		return -1;
	for (c = f->path; *c; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			jload_push_key(j, "path");
			return jfail(j, "control character in a path");
		}
	}
	if (!f->path[0]) {
		jload_push_key(j, "path");
		return jfail(j, "empty path");
	}
	return 0;
}

/*
 * "device", optional: a run saved before it was kept has none, and a
 * logical block size then came from /sys only for a block device.
 */
static int backing_of(struct jload *j, json_t *o, struct profile_file *f)
{
	bool device;

	if (!json_object_get(o, "device")) {
		f->backing = f->lbs ? FD_BACKING_DEVICE : FD_BACKING_UNKNOWN;
		return 0;
	}
	if (jload_bool(j, o, "device", &device) < 0)
		return -1;
	f->backing = device ? FD_BACKING_DEVICE : FD_BACKING_NONE;
	return 0;
}

static int file_load(struct jload *j, json_t *o, void *key)
{
	struct profile_file *f = key;

	if (path_of(j, o, f) < 0 || kind_of(j, o, &f->kind) < 0 ||
	    flags_of(j, o, &f->flags) < 0 ||
	    u32_of(j, o, "blksize", &f->blksize) < 0 ||
	    u32_of(j, o, "lbs", &f->lbs) < 0 || backing_of(j, o, f) < 0)
		return -1;
	return 0;
}

const struct profile_dim profile_dim_file = {
	.name = "file",
	.plural = "files",
	.identity = "path and flags",
	.key_size = sizeof(struct profile_file),
	.max_keys = PROFILE_FILES_MAX,
	.max_subs = PROFILE_IOS_MAX,
	.cmp = file_cmp,
	.hash = file_hash,
	.other = file_other,
	.label = file_label,
	.save = file_save,
	.load = file_load,
	/* Saved before breakdowns were generic: keep the keys it had. */
	.json_keys = "files",
	.json_subs = "ios",
	.json_ref = "file",
	.json_ref2 = "file2",
};

/* --- the file breakdown of a profile, by files --- */

static struct profile_breakdown *file_breakdown(struct profile *p)
{
	return profile_breakdown_rw(p, &profile_dim_file);
}

int profile_file_get(struct profile *p, const struct profile_file *f)
{
	struct profile_breakdown *b = file_breakdown(p);
	struct profile_file key;

	if (!b)
		return -ENOENT;
	/* Only what the key type reads, in zeroed memory. */
	memset(&key, 0, sizeof(key));
	snprintf(key.path, sizeof(key.path), "%s", f->path);
	key.kind = f->kind;
	key.flags = f->flags;
	key.blksize = f->blksize;
	key.lbs = f->lbs;
	key.backing = f->backing;
	return profile_key_get(b, &key);
}

struct profile_sub *profile_io_get(struct profile *p, uint32_t file,
				   uint32_t file2, uint32_t row)
{
	struct profile_breakdown *b = file_breakdown(p);

	return b ? profile_sub_get(b, file, file2, row) : NULL;
}

int profile_add_io(struct profile *p, uint32_t row, uint32_t file,
		   uint32_t file2, const struct tracer_event *ev)
{
	struct profile_breakdown *b = file_breakdown(p);

	return b ? profile_sub_add(p, b, row, file, file2, ev) : -ENOENT;
}

/* --- from events: fds to files --- */

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

/* The index of a file that is no file: UNRESOLVED. */
static int file_named(struct profile *p, const char *what)
{
	struct profile_file f;

	memset(&f, 0, sizeof(f));
	snprintf(f.path, sizeof(f.path), "%s", what);
	return profile_file_get(p, &f);
}

int profile_file_desc(struct profile *p, const struct fd_desc *d)
{
	struct profile_file f;

	memset(&f, 0, sizeof(f));
	set_path(&f, d->path, d->truncated);
	f.kind = d->kind;
	f.flags = pf_flags(d->open_flags);
	f.blksize = d->blksize;
	f.lbs = d->lbs;
	f.backing = d->backing;
	return profile_file_get(p, &f);
}

int profile_file_from(struct profile *p, const struct tracer_file *tf)
{
	if (tf->state == TRACER_FILE_DESC)
		return profile_file_desc(p, &tf->desc);
	return profile_file_unresolved(p);
}

int profile_file_unresolved(struct profile *p)
{
	return file_named(p, UNRESOLVED);
}

int profile_add_files(struct profile *p, const struct tracer_event *ev,
		      profile_file_of_fn *file_of, void *ctx)
{
	uint32_t file2 = PROFILE_FILE_NONE;
	struct profile_breakdown *b;
	struct profile_row *r;
	int f1, f2 = 0;

	b = file_breakdown(p);
	if ((ev->flags & EVF_HIDDEN) || !b)
		return 0;
	r = profile_event_row(p, ev);
	if (!r)
		return -ENOMEM;
	/* The cache knows every personality's calls (syscalls/systab.c). */
	if (r->fd_arg < 0)
		return 0;
	f1 = file_of(ctx, p, ev->tid, (int)ev->args[r->fd_arg]);
	if (f1 >= 0 && r->fd_arg2 >= 0) {
		f2 = file_of(ctx, p, ev->tid, (int)ev->args[r->fd_arg2]);
		file2 = (uint32_t)f2;
	}
	if (f1 < 0 || f2 < 0)
		return -ENOMEM;
	return profile_sub_add(p, b, (uint32_t)(r - p->rows), (uint32_t)f1,
			       file2, ev);
}

/* The I/O table's notes and the JSON "flags" (file_save) use these. */
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
