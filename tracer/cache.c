// SPDX-License-Identifier: MIT
/*
 * Answers kept between runs (tracer.h): what a run computes the same way
 * from the same inputs, and would otherwise compute again at every start
 * (the sites of libc's text, the plan's filter).  Each answer is a file
 * KIND-HASH in $XDG_CACHE_HOME/iotrace (~/.cache/iotrace) holding its
 * whole key, then the data: a key that does not match, a short read or
 * anything unreadable is a miss, and the caller computes the answer
 * again.  Written to a temporary file and renamed, so a reader sees a
 * whole answer or none; where nothing can be written, nothing is.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tracer/tracer.h"

#define MAX_DATA (64u << 20)	/* more is no answer of ours */

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

/* The file of kind and key; false when there is no cache folder. */
static bool cache_file(char *buf, size_t size, const char *kind,
		       const void *key, size_t klen)
{
	char dir[4096];
	int n;

	if (!cache_dir(dir, sizeof(dir)))
		return false;
	n = snprintf(buf, size, "%s/%s-%016llx", dir, kind,
		     (unsigned long long)fnv(key, klen));
	return n > 0 && (size_t)n < size;
}

static bool read_all(int fd, void *buf, size_t n)
{
	return read(fd, buf, n) == (ssize_t)n;
}

bool tracer_file_id(const char *path, struct tracer_file_id *id)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	id->size = (uint64_t)st.st_size;
	id->mtime_s = (uint64_t)st.st_mtim.tv_sec;
	id->mtime_ns = (uint64_t)st.st_mtim.tv_nsec;
	return true;
}

void *tracer_cache_read(const char *kind, const void *key, size_t klen,
			size_t *len)
{
	char file[4200];
	struct stat st;
	void *have = NULL, *data = NULL;
	int fd;

	if (!cache_file(file, sizeof(file), kind, key, klen))
		return NULL;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || (uint64_t)st.st_size < klen ||
	    (uint64_t)st.st_size - klen > MAX_DATA)
		goto out;
	*len = (size_t)st.st_size - klen;
	have = malloc(klen);
	data = malloc(*len ? *len : 1);
	if (!have || !data || !read_all(fd, have, klen) ||
	    memcmp(have, key, klen) || !read_all(fd, data, *len)) {
		free(data);
		data = NULL;
		goto out;
	}
	TRACER_DEBUG("%s from the cache: %s", kind, file);
out:
	free(have);
	close(fd);
	return data;
}

void tracer_cache_write(const char *kind, const void *key, size_t klen,
			const void *data, size_t len)
{
	char file[4200], tmp[4260];
	bool ok;
	int fd;

	if (!cache_file(file, sizeof(file), kind, key, klen))
		return;
	snprintf(tmp, sizeof(tmp), "%s.%d", file, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	ok = write(fd, key, klen) == (ssize_t)klen &&
	     write(fd, data, len) == (ssize_t)len;
	if (close(fd) < 0 || !ok || rename(tmp, file) < 0)
		unlink(tmp);
}
