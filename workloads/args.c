// SPDX-License-Identifier: MIT
/*
 * KEY=VALUE parsing shared by every workload: dd's size suffixes, flag
 * lists and choices, driven by each workload's key table, and the checks
 * on input and output files that must not create or truncate anything
 * (they run before the workload, and a bad key must leave no trace).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "workloads/workload.h"

/* dd's multipliers (coreutils dd(1)); B after a prefix means 1000-based. */
static const struct {
	const char *suffix;
	uint64_t mult;
} size_suffixes[] = {
	{ "", 1 },		{ "c", 1 },		{ "w", 2 },
	{ "b", 512 },		{ "k", 1ull << 10 },	{ "K", 1ull << 10 },
	{ "KiB", 1ull << 10 },	{ "kB", 1000 },		{ "KB", 1000 },
	{ "M", 1ull << 20 },	{ "MiB", 1ull << 20 },	{ "MB", 1000000 },
	{ "G", 1ull << 30 },	{ "GiB", 1ull << 30 },	{ "GB", 1000000000 },
	{ "T", 1ull << 40 },	{ "TiB", 1ull << 40 },
	{ "TB", 1000000000000ull },
};

int wl_parse_size(const char *s, uint64_t *out)
{
	uint64_t n = 0;
	size_t i;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*s - '0');
	}
	for (i = 0; i < sizeof(size_suffixes) / sizeof(size_suffixes[0]); i++) {
		if (strcmp(s, size_suffixes[i].suffix))
			continue;
		if (n && size_suffixes[i].mult > UINT64_MAX / n)
			return -ERANGE;
		*out = n * size_suffixes[i].mult;
		return 0;
	}
	return -EINVAL;
}

int wl_bad(struct workload_args *a, const char *key, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(a->err, sizeof(a->err), "key '%s': ", key);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(a->err))
		vsnprintf(a->err + n, sizeof(a->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int word_value(const struct wl_word *w, const char *s, size_t len)
{
	for (; w->word; w++)
		if (strlen(w->word) == len && !strncmp(w->word, s, len))
			return w->value;
	return -1;
}

static int set_size(struct workload_args *a, const struct wl_key *k,
		    const char *v)
{
	uint64_t n;
	int err = wl_parse_size(v, &n);

	if (err == -ERANGE)
		return wl_bad(a, k->name, "'%s' is too large", v);
	if (err < 0 && *v == '-')
		return wl_bad(a, k->name, "'%s' must not be negative", v);
	if (err < 0)
		return wl_bad(a, k->name, "'%s' is not a size (digits, then "
			      "c w b K M G or KB MB GB)", v);
	if (!n && k->type == WK_SIZE)
		return wl_bad(a, k->name, "must be more than 0");
	if (k->max && n > k->max)
		return wl_bad(a, k->name, "'%s' is larger than %llu bytes", v,
			      (unsigned long long)k->max);
	*(uint64_t *)((char *)a + k->offset) = n;
	return 0;
}

static int set_path(struct workload_args *a, const struct wl_key *k,
		    const char *v)
{
	size_t len = strlen(v);

	if (!len)
		return wl_bad(a, k->name, "empty file name");
	if (len >= WL_PATH_MAX)
		return wl_bad(a, k->name, "file name too long");
	memcpy((char *)a + k->offset, v, len + 1);
	return 0;
}

static int set_words(struct workload_args *a, const struct wl_key *k,
		     const char *v)
{
	const char *p = v, *end;
	int value, all = 0;

	do {
		end = strchrnul(p, ',');
		value = word_value(k->words, p, (size_t)(end - p));
		if (value < 0)
			return wl_bad(a, k->name, "unknown word '%.*s'",
				      (int)(end - p), p);
		all |= value;
		p = end + 1;
	} while (*end && k->type == WK_FLAGS);
	if (*end)
		return wl_bad(a, k->name, "takes one word, not '%s'", v);
	*(int *)((char *)a + k->offset) = all;
	return 0;
}

static int set_key(struct workload_args *a, const struct wl_key *k,
		   const char *v)
{
	switch (k->type) {
	case WK_SIZE:
	case WK_SIZE0:
		return set_size(a, k, v);
	case WK_PATH:
		return set_path(a, k, v);
	case WK_FLAGS:
	case WK_CHOICE:
		return set_words(a, k, v);
	}
	return -EINVAL;
}

int wl_parse_keys(struct workload_args *a, int argc, char **argv)
{
	const struct wl_key *k;
	const char *eq;
	int i, err;

	for (i = 0; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i]) {
			snprintf(a->err, sizeof(a->err),
				 "'%s' is not KEY=VALUE", argv[i]);
			return -EINVAL;
		}
		for (k = a->wl->keys; k->name; k++)
			if (strlen(k->name) == (size_t)(eq - argv[i]) &&
			    !strncmp(k->name, argv[i], (size_t)(eq - argv[i])))
				break;
		if (!k->name) {
			snprintf(a->err, sizeof(a->err), "unknown key '%.*s'",
				 (int)(eq - argv[i]), argv[i]);
			return -EINVAL;
		}
		err = set_key(a, k, eq + 1);
		if (err < 0)
			return err;
		a->given |= 1ull << (k - a->wl->keys);
	}
	return 0;
}

bool wl_given(const struct workload_args *a, const char *key)
{
	const struct wl_key *k;

	for (k = a->wl->keys; k->name; k++)
		if (!strcmp(k->name, key))
			return a->given & (1ull << (k - a->wl->keys));
	return false;
}

/*
 * Opening for reading changes nothing; O_NONBLOCK keeps a FIFO from
 * blocking the check.  flags carries O_DIRECT so a filesystem without it
 * fails here rather than mid-run.
 */
int wl_check_readable(struct workload_args *a, const char *key,
		      const char *path, int flags)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	if (fd < 0 && errno == EINVAL && (flags & O_DIRECT))
		return wl_bad(a, key, "'%s' does not support O_DIRECT", path);
	if (fd < 0)
		return wl_bad(a, key, "cannot read '%s': %s", path,
			      strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return wl_bad(a, key, "'%s' is a directory", path);
	}
	close(fd);
	return 0;
}

/* A missing file is writable when its directory is. */
int wl_check_writable(struct workload_args *a, const char *key,
		      const char *path)
{
	char dir[WL_PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return wl_bad(a, key, "'%s' is a directory", path);
		if (access(path, W_OK) < 0)
			return wl_bad(a, key, "cannot write '%s': %s", path,
				      strerror(errno));
		return 0;
	}
	if (errno != ENOENT)
		return wl_bad(a, key, "cannot write '%s': %s", path,
			      strerror(errno));
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s",
			 slash == path ? 1 : (int)(slash - path), path);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return wl_bad(a, key, "cannot create '%s': no directory '%s'",
			      path, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return wl_bad(a, key, "cannot create '%s': %s", path,
			      strerror(errno));
	return 0;
}

/* The logical block size of a device, from sysfs; 0 when unknown. */
static size_t sysfs_block_size(dev_t dev)
{
	static const char *const fmts[] = {
		"/sys/dev/block/%u:%u/queue/logical_block_size",
		"/sys/dev/block/%u:%u/../queue/logical_block_size",
	};
	char path[128];
	unsigned long n;
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++) {
		snprintf(path, sizeof(path), fmts[i], major(dev), minor(dev));
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fscanf(f, "%lu", &n) != 1)
			n = 0;
		fclose(f);
		if (n)
			return n;
	}
	return 0;
}

/*
 * What O_DIRECT needs: statx's DIOALIGN for an existing file (the
 * filesystem's own answer), else the logical block size of the device
 * the file (or its directory) lives on, else 512, the common case.
 */
size_t wl_direct_align(const char *path)
{
	char dir[WL_PATH_MAX];
	const char *slash;
	struct statx sx;
	struct stat st;
	size_t n;

	if (statx(AT_FDCWD, path, 0, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align)
		return sx.stx_dio_offset_align;
	slash = strrchr(path, '/');
	snprintf(dir, sizeof(dir), "%.*s", !slash ? 1 : slash == path ? 1 :
		 (int)(slash - path), slash ? path : ".");
	if (stat(path, &st) < 0 && stat(dir, &st) < 0)
		return 512;
	n = sysfs_block_size(st.st_dev);
	return n ? n : 512;
}
