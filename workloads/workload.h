/* SPDX-License-Identifier: MIT */
/*
 * Built-in workloads: small I/O programs iotrace runs as the traced child
 * (`iotrace run WORKLOAD KEY=VALUE...`), so the seed experiments need no
 * program of their own.  A workload is a const struct of function
 * pointers plus a table of its keys; the registry (workloads.c) lists
 * them.  The same key table drives parsing, --help and --list, so the
 * help cannot drift from what the parser accepts.
 *
 * Life of a run, all in the parent unless said otherwise:
 *	parse()    check every key; nothing is opened for writing, nothing
 *	           is created or truncated; a problem fills args->err
 *	prepare()  set-up that is not the workload's own I/O (a generated
 *	           input file), so it stays out of the table
 *	run()      in the child (traced or, for --truth, untraced)
 *	cleanup()  undo prepare()
 * Workloads return 0 or -errno and never exit; like any program they say
 * what went wrong on their own stderr, prefixed with their name.
 */
#ifndef IOTRACE_WORKLOAD_H
#define IOTRACE_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define WL_ERR_MAX 256
#define WL_PATH_MAX 4096

/* --- self-timing (--truth): selftime.c --- */

/* The I/O syscalls a workload times itself; one truth row each. */
enum st_call {
	ST_READ,
	ST_WRITE,
	ST_FSYNC,
	ST_FDATASYNC,
	ST_SPLICE,
	ST_SENDFILE,
	ST_COPY_FILE_RANGE,
	ST_NCALLS,
};

/*
 * Latency histogram, log-linear: exact below 2^ST_SUB_BITS ns, then
 * 2^ST_SUB_BITS sub-buckets per power of two, so a bucket's midpoint is
 * within 1/128 (0.8%) of any sample in it.  Up to 2^40 ns (18 min).
 */
#define ST_SUB_BITS 6
#define ST_SUBS (1u << ST_SUB_BITS)
#define ST_OCTAVES (40 - ST_SUB_BITS)
#define ST_BUCKETS (ST_SUBS + ST_OCTAVES * ST_SUBS)

struct selftime_row {
	uint64_t calls;
	uint64_t total_ns;
	uint32_t hist[ST_BUCKETS];
};

/*
 * What an untraced run measured.  Lives in a MAP_SHARED mapping made
 * before fork, so the child's numbers reach the parent without a single
 * syscall (no pipe, no file).
 */
struct selftime {
	uint64_t wall_ns;		/* fork to reap, timed by the parent */
	int status;			/* wait status of the untraced run */
	uint64_t clock_ns;		/* what one clock read adds to a sample:
					   taken off each (selftime.c) */
	struct selftime_row rows[ST_NCALLS];
};

extern const char *const st_call_names[ST_NCALLS];

/* A zeroed shared mapping; NULL with errno set.  selftime_unmap() frees. */
struct selftime *selftime_map(void);
void selftime_unmap(struct selftime *st);
void selftime_add(struct selftime *st, enum st_call c, uint64_t ns);
/* The ceil(n/2)-th smallest sample, as its bucket's midpoint. */
uint64_t selftime_median(const struct selftime_row *r);

/*
 * The workloads' I/O syscalls, timed into st when st is not NULL.  A
 * NULL st (the traced run) takes no clock reading at all.  errno is kept.
 */
ssize_t wl_read(struct selftime *st, int fd, void *buf, size_t len);
ssize_t wl_write(struct selftime *st, int fd, const void *buf, size_t len);
int wl_fsync(struct selftime *st, int fd);
int wl_fdatasync(struct selftime *st, int fd);
ssize_t wl_splice(struct selftime *st, int in, int out, size_t len);
ssize_t wl_sendfile(struct selftime *st, int out, int in, size_t len);
ssize_t wl_copy_file_range(struct selftime *st, int in, int out, size_t len);

/* --- the keys of a workload: args.c --- */

enum wl_key_type {
	WK_SIZE,	/* dd-style size, > 0 */
	WK_SIZE0,	/* dd-style size, >= 0 (counts, buf=0) */
	WK_PATH,	/* a file name */
	WK_FLAGS,	/* comma list of words -> OR of their values */
	WK_CHOICE,	/* one word -> its value */
};

struct wl_word {
	const char *word;
	int value;
};

struct wl_key {
	const char *name;
	enum wl_key_type type;
	size_t offset;			/* into struct workload_args */
	uint64_t max;			/* sizes: largest allowed; 0: none */
	const struct wl_word *words;	/* WK_FLAGS, WK_CHOICE */
	const char *help;		/* "bytes per block (default 512)" */
};

/* dd's keys that take flag words. */
enum { DDF_DIRECT = 1, DDF_SYNC = 2, DDF_DSYNC = 4, DDF_NONBLOCK = 8 };
enum { DDC_FSYNC = 1, DDC_FDATASYNC = 2, DDC_NOTRUNC = 4 };
enum { DDS_DEFAULT, DDS_NOXFER, DDS_NONE };

struct dd_args {
	char in[WL_PATH_MAX], out[WL_PATH_MAX];
	uint64_t bs, count, skip, seek, size;
	int iflag, oflag, conv, status;
	size_t in_align, out_align;	/* O_DIRECT offset alignment */
	size_t buf_align;		/* max(alignments, page size) */
};

enum { BW_FLUSH_CLOSE, BW_FLUSH_NEVER };
enum { BW_FSYNC_NONE, BW_FSYNC_END, BW_FSYNC_EVERY };

struct bufwrite_args {
	char out[WL_PATH_MAX];
	uint64_t total, unit, buf;
	int flush, fsync;
};

enum { SP_SPLICE, SP_RW, SP_SENDFILE, SP_COPY_FILE_RANGE };

struct splice_args {
	char in[WL_PATH_MAX], out[WL_PATH_MAX];
	uint64_t bs, size;
	int mode;
	char tmpdir[WL_PATH_MAX];	/* prepare(): generated input, or "" */
};

struct workload;

struct workload_args {
	const struct workload *wl;
	uint64_t given;			/* bit i: keys[i] was on the line */
	struct selftime *truth;		/* untraced self-timed run, or NULL */
	char err[WL_ERR_MAX];		/* parse(): "key 'bs': ..." */
	union {
		struct dd_args dd;
		struct bufwrite_args bufwrite;
		struct splice_args splice;
	} u;
};

/*
 * A workload.  parse, prepare and cleanup run in iotrace itself; run is
 * the body of the child.  prepare and cleanup may be NULL.
 */
struct workload {
	const char *name;		/* "dd", "bufwrite", "splice" */
	const char *summary;		/* one line for `iotrace run --list` */
	const char *usage;		/* example line for --help */
	const struct wl_key *keys;	/* NULL-name terminated */
	int (*parse)(struct workload_args *a, int argc, char **argv);
	int (*prepare)(struct workload_args *a);
	int (*run)(const struct workload_args *a);
	void (*cleanup)(struct workload_args *a);
};

/* The registry: workloads.c. */
extern const struct workload *const workloads[];	/* NULL terminated */
const struct workload *workload_find(const char *name);

/*
 * Parses a dd-style size: digits then an optional suffix (c w b, K M G T
 * 1024-based, KB MB GB TB 1000-based, KiB MiB GiB TiB).  0 or -EINVAL,
 * -ERANGE.
 */
int wl_parse_size(const char *s, uint64_t *out);

/*
 * Sets the defaults the caller put in a, then applies KEY=VALUE words
 * per a->wl->keys.  0, or -EINVAL with a->err naming the key.
 */
int wl_parse_keys(struct workload_args *a, int argc, char **argv);
bool wl_given(const struct workload_args *a, const char *key);
/* Fills a->err ("key 'K': ...") and returns -EINVAL. */
int wl_bad(struct workload_args *a, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Checks that need no file created: 0 or -EINVAL with a->err set. */
int wl_check_readable(struct workload_args *a, const char *key,
		      const char *path, int flags);
int wl_check_writable(struct workload_args *a, const char *key,
		      const char *path);
/* Offset alignment O_DIRECT needs for path (or its directory's device). */
size_t wl_direct_align(const char *path);

/* Writes all of len unless an error: bytes written, error in *err. */
size_t wl_write_all(struct selftime *st, int fd, const void *buf, size_t len,
		    int *err);

/*
 * A workload's message on stderr: formatted first, then one (timed)
 * write(2), so each message is exactly one call in the table and the
 * untraced run counts it too.
 */
void wl_say(struct selftime *st, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

extern const struct workload workload_dd;
extern const struct workload workload_bufwrite;
extern const struct workload workload_splice;

#endif
