// SPDX-License-Identifier: MIT
/*
 * The sites of an object kept between runs (fast-int.h): decoding
 * libc's text takes longer than a short command runs, and
 * every run would pay it again for the same file.  The answer for one
 * file (device, inode, size, mtime) and one set of hot calls is saved in
 * $XDG_CACHE_HOME/iotrace (~/.cache/iotrace), written to a temporary
 * file and renamed, so a reader sees a whole answer or none; a file that
 * does not match its key, or any read that fails, is decoded again.
 * Where nothing can be written the run decodes as before.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracer/rewrite/fast-int.h"

#define CACHE_MAGIC 0x31746973746f69ull	/* "iotsit1": the format */

struct cache_key {
	uint64_t magic;
	uint64_t dev, ino, size, mtime_s, mtime_ns;
	uint8_t hot[128];
	uint64_t site_size;	/* sizeof(struct rw_site) */
};

struct cache_head {
	struct cache_key key;
	uint64_t n, syscalls;
	uint64_t refused[RW_REFUSE_N];
};

static uint64_t fnv(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/* The cache's folder, made if need be; false when there is none. */
static bool cache_dir(char *buf, size_t size)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char parent[4096];
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(parent, sizeof(parent), "%s", xdg);
	else if (home && home[0] == '/')
		n = snprintf(parent, sizeof(parent), "%s/.cache", home);
	else
		return false;
	if (n < 0 || (size_t)n >= sizeof(parent) ||
	    (mkdir(parent, 0700) < 0 && errno != EEXIST))
		return false;
	n = snprintf(buf, size, "%s/iotrace", parent);
	return n > 0 && (size_t)n < size &&
	       (mkdir(buf, 0700) == 0 || errno == EEXIST);
}

static bool key_of(const char *path, const uint8_t hot[128],
		   struct cache_key *k)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	memset(k, 0, sizeof(*k));
	k->magic = CACHE_MAGIC;
	k->dev = st.st_dev;
	k->ino = st.st_ino;
	k->size = (uint64_t)st.st_size;
	k->mtime_s = (uint64_t)st.st_mtim.tv_sec;
	k->mtime_ns = (uint64_t)st.st_mtim.tv_nsec;
	memcpy(k->hot, hot, sizeof(k->hot));
	k->site_size = sizeof(struct rw_site);
	return true;
}

static bool cache_read(const char *file, const struct cache_key *k,
		       struct rw_sites *out)
{
	struct cache_head h;
	size_t bytes;
	bool ok = false;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (read(fd, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
	    memcmp(&h.key, k, sizeof(*k)) || h.n > (1u << 20))
		goto out;
	memset(out, 0, sizeof(*out));
	bytes = (size_t)h.n * sizeof(*out->site);
	out->site = malloc(bytes ? bytes : 1);
	if (!out->site)
		goto out;
	if (read(fd, out->site, bytes) != (ssize_t)bytes) {
		free(out->site);
		out->site = NULL;
		goto out;
	}
	out->n = (size_t)h.n;
	out->syscalls = (size_t)h.syscalls;
	for (int i = 0; i < RW_REFUSE_N; i++)
		out->refused[i] = (size_t)h.refused[i];
	ok = true;
out:
	close(fd);
	return ok;
}

static void cache_write(const char *file, const struct cache_key *k,
			const struct rw_sites *s)
{
	struct cache_head h;
	char tmp[4200];
	size_t bytes = s->n * sizeof(*s->site);
	bool ok;
	int fd;

	memset(&h, 0, sizeof(h));
	h.key = *k;
	h.n = s->n;
	h.syscalls = s->syscalls;
	for (int i = 0; i < RW_REFUSE_N; i++)
		h.refused[i] = s->refused[i];
	snprintf(tmp, sizeof(tmp), "%s.%d", file, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	ok = write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     write(fd, s->site, bytes) == (ssize_t)bytes;
	if (close(fd) < 0 || !ok || rename(tmp, file) < 0)
		unlink(tmp);
}

int fast_sites_of(const char *path, const uint8_t hot[128],
		  struct rw_sites *out)
{
	struct cache_key k;
	char dir[4096], file[4160];
	bool cached;
	int err;

	cached = key_of(path, hot, &k) && cache_dir(dir, sizeof(dir));
	if (cached) {
		snprintf(file, sizeof(file), "%s/sites-%016llx", dir,
			 (unsigned long long)fnv(&k, sizeof(k)));
		if (cache_read(file, &k, out)) {
			TRACER_DEBUG("sites from the cache: %s", file);
			return 0;
		}
	}
	err = rw_sites_find(path, hot, out);
	if (!err && cached)
		cache_write(file, &k, out);
	return err;
}
