// SPDX-License-Identifier: MIT
/*
 * The per-file I/O part of the JSON profile, both ways: "engine" and
 * "calibrated" (what the second header line of the table prints),
 * "files" (struct profile_file) and "ios" (struct profile_io).  Kinds and
 * flags are words, through one table each way, so a script can read
 * them; an io row names its syscall, because row indexes are an accident
 * of the order the run met its syscalls.  The loader rebuilds files and
 * io rows through profile_file_get() and profile_io_get(), the functions
 * a live run uses, so first_io and next are derived exactly as they were
 * and never read from the file.
 */
#include <stddef.h>
#include <string.h>
#include "reports/profile/jload.h"

/* enum fd_kind <-> word, both ways. */
static const char *const kind_words[] = {
	[FD_UNKNOWN] = "unknown", [FD_REG] = "file",   [FD_BLK] = "block",
	[FD_CHR] = "char",	  [FD_PIPE] = "pipe",  [FD_SOCK] = "socket",
	[FD_ANON] = "anon_inode", [FD_DIR] = "dir",    [FD_OTHER] = "other",
};
#define NKINDS (sizeof(kind_words) / sizeof(kind_words[0]))

/* The engines a run can name; "" for profiles that do not say. */
static const char *const engines[] = { "seccomp-bpf", "ptrace", "" };

/* The counters of an io row, as data: key and where it goes. */
static const struct {
	const char *key;
	size_t offset;
} io_fields[] = {
	{ "calls", offsetof(struct profile_io, calls) },
	{ "errors", offsetof(struct profile_io, errors) },
	{ "einval", offsetof(struct profile_io, einval) },
	{ "timed", offsetof(struct profile_io, timed) },
	{ "time_ns", offsetof(struct profile_io, time_ns) },
	{ "raw_time_ns", offsetof(struct profile_io, raw_time_ns) },
	{ "bytes_req", offsetof(struct profile_io, bytes_req) },
	{ "bytes_done", offsetof(struct profile_io, bytes_done) },
	{ "short_calls", offsetof(struct profile_io, short_calls) },
	{ "size_max", offsetof(struct profile_io, size_max) },
	{ "size_max_calls", offsetof(struct profile_io, size_max_calls) },
};
#define NIO_FIELDS (sizeof(io_fields) / sizeof(io_fields[0]))

static uint64_t *io_field(struct profile_io *io, size_t i)
{
	return (uint64_t *)((char *)io + io_fields[i].offset);
}

static uint64_t io_value(const struct profile_io *io, size_t i)
{
	return *(const uint64_t *)((const char *)io + io_fields[i].offset);
}

/* --- writing --- */

/* As json.c: jansson integers are signed, a sum may saturate. */
static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
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

static json_t *file_object(const struct profile_file *f)
{
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
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *files_to_json(const struct profile *p)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < p->nfiles; i++) {
		if (json_array_append_new(a, file_object(&p->files[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

static json_t *io_object(const struct profile *p, const struct profile_io *io)
{
	char name[PROFILE_NAME_MAX];
	json_t *o = json_object();
	size_t i;
	int err = 0;

	if (!o)
		return NULL;
	err |= json_object_set_new(o, "file", json_integer(io->file));
	err |= json_object_set_new(o, "file2",
				   io->file2 == PROFILE_FILE_NONE ?
					   json_null() :
					   json_integer(io->file2));
	err |= json_object_set_new(o, "syscall", json_string(profile_row_name(
					   &p->rows[io->row], name,
					   sizeof(name))));
	/* Added within iotrace/1; absent for a name of no personality. */
	if (profile_row_pers(&p->rows[io->row]))
		err |= json_object_set_new(o, "personality", json_string(
				profile_row_pers(&p->rows[io->row])));
	for (i = 0; i < NIO_FIELDS; i++)
		err |= json_object_set_new(o, io_fields[i].key,
					   u64(io_value(io, i)));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *ios_to_json(const struct profile *p)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a && i < p->nios; i++) {
		if (json_array_append_new(a, io_object(p, &p->ios[i])) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* --- loading --- */

int load_engine(struct jload *j, struct profile *p, json_t *doc)
{
	char word[sizeof(p->engine)];
	size_t i;

	if (json_object_get(doc, "calibrated") &&
	    jload_bool(j, doc, "calibrated", &p->calibrated) < 0)
		return -1;
	if (!json_object_get(doc, "engine"))
		return 0;
	if (jload_string(j, doc, "engine", word, sizeof(word)) < 0)
		return -1;
	for (i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		if (!strcmp(word, engines[i])) {
			memcpy(p->engine, word, sizeof(word));
			return 0;
		}
	}
	jload_push_key(j, "engine");
	return jfail(j, "unknown engine '%s'", word);
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

/* Paths end up in tables: no control characters (files.c cleans them). */
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

static bool same_file(const struct profile_file *a,
		      const struct profile_file *b)
{
	return !strcmp(a->path, b->path) && a->kind == b->kind &&
	       a->flags == b->flags && a->blksize == b->blksize &&
	       a->lbs == b->lbs;
}

static int load_file(struct jload *j, struct profile *p, json_t *o, size_t i)
{
	struct profile_file f;
	size_t k;
	int id;

	if (!json_is_object(o))
		return jfail(j, "expected an object, got %s",
			     jload_type_word(json_typeof(o)));
	memset(&f, 0, sizeof(f));
	if (path_of(j, o, &f) < 0 || kind_of(j, o, &f.kind) < 0 ||
	    flags_of(j, o, &f.flags) < 0 ||
	    u32_of(j, o, "blksize", &f.blksize) < 0 ||
	    u32_of(j, o, "lbs", &f.lbs) < 0)
		return -1;
	for (k = 0; k < p->nfiles; k++)
		if (p->files[k].flags == f.flags &&
		    !strcmp(p->files[k].path, f.path))
			return jfail(j, "same path and flags as files[%zu]", k);
	id = profile_file_get(p, &f);
	if (id < 0)
		return jfail(j, "out of memory");
	/* Past the limit a run sends everything to "(other files)". */
	if ((size_t)id != i || !same_file(&p->files[id], &f))
		return jfail(j, "only \"(other files)\" (kind other, no flags "
			     "or sizes) can be file %d", PROFILE_FILES_MAX - 1);
	return 0;
}

int load_files(struct jload *j, struct profile *p, json_t *doc)
{
	json_t *a, *v;
	size_t i;

	if (!json_object_get(doc, "files"))
		return 0;
	a = jload_member(j, doc, "files", JSON_ARRAY);
	if (!a)
		return -1;
	if (json_array_size(a) > PROFILE_FILES_MAX)
		return jfail(j, "more than %d files", PROFILE_FILES_MAX);
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		if (load_file(j, p, v, i) < 0)
			return -1;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}

/* A file index of an io row, in range; null (nullable only): none. */
static int file_index(struct jload *j, const struct profile *p, json_t *o,
		      const char *key, bool nullable, uint32_t *out)
{
	json_t *v = json_object_get(o, key);
	uint64_t n;

	if (nullable && json_is_null(v)) {
		*out = PROFILE_FILE_NONE;
		return 0;
	}
	if (jload_u64(j, o, key, &n) < 0)
		return -1;
	if (n >= p->nfiles) {
		jload_push_key(j, key);
		return jfail(j, "no such file: %llu (%zu in files)",
			     (unsigned long long)n, p->nfiles);
	}
	*out = (uint32_t)n;
	return 0;
}

static int syscall_row(struct jload *j, const struct profile *p, json_t *o,
		       uint32_t *row)
{
	const struct profile_row *r;
	char name[PROFILE_NAME_MAX];
	int pers;

	if (jload_string(j, o, "syscall", name, sizeof(name)) < 0 ||
	    load_personality(j, o, &pers) < 0)
		return -1;
	r = profile_row_find_in(p, pers, name);
	if (!r) {
		jload_push_key(j, "syscall");
		return jfail(j, "'%s' is not in syscalls", name);
	}
	*row = (uint32_t)(r - p->rows);
	return 0;
}

/* What no real run produces, so the I/O table would lie. */
static int check_io(struct jload *j, const struct profile_io *io)
{
	if (io->errors > io->calls)
		return jfail(j, "more errors than calls");
	if (io->timed > io->calls)
		return jfail(j, "more timed calls than calls");
	if (io->einval > io->errors)
		return jfail(j, "more EINVAL errors than errors");
	if (io->short_calls > io->calls || io->size_max_calls > io->calls)
		return jfail(j, "more short or size_max calls than calls");
	return 0;
}

static int counters_of(struct jload *j, json_t *o, struct profile_io *io)
{
	size_t i;

	for (i = 0; i < NIO_FIELDS; i++)
		if (jload_u64(j, o, io_fields[i].key, io_field(io, i)) < 0)
			return -1;
	return check_io(j, io);
}

static int load_io(struct jload *j, struct profile *p, json_t *o)
{
	struct profile_io want, *io;
	size_t n = p->nios, i;

	if (!json_is_object(o))
		return jfail(j, "expected an object, got %s",
			     jload_type_word(json_typeof(o)));
	memset(&want, 0, sizeof(want));
	if (file_index(j, p, o, "file", false, &want.file) < 0 ||
	    file_index(j, p, o, "file2", true, &want.file2) < 0 ||
	    syscall_row(j, p, o, &want.row) < 0 || counters_of(j, o, &want))
		return -1;
	io = profile_io_get(p, want.file, want.file2, want.row);
	if (!io)
		return jfail(j, "out of memory");
	if (p->nios != n + 1 || io->file != want.file ||
	    io->file2 != want.file2)
		return jfail(j, n < PROFILE_IOS_MAX ?
			     "same file, file2 and syscall as an earlier row" :
			     "past the row limit, only one \"(other files)\" "
			     "row per syscall can follow");
	for (i = 0; i < NIO_FIELDS; i++)
		*io_field(io, i) = io_value(&want, i);
	return 0;
}

int load_ios(struct jload *j, struct profile *p, json_t *doc)
{
	json_t *a, *v;
	size_t i;

	if (!json_object_get(doc, "ios"))
		return 0;
	a = jload_member(j, doc, "ios", JSON_ARRAY);
	if (!a)
		return -1;
	/* A full run adds at most one "(other files)" row per syscall. */
	if (json_array_size(a) > PROFILE_IOS_MAX + p->nrows)
		return jfail(j, "more than %zu rows",
			     PROFILE_IOS_MAX + p->nrows);
	json_array_foreach(a, i, v) {
		jload_push_index(j, i);
		if (load_io(j, p, v) < 0)
			return -1;
		jload_pop(j);
	}
	jload_pop(j);
	return 0;
}
