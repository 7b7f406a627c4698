// SPDX-License-Identifier: MIT
/*
 * The sites of an object kept between runs (fast-int.h): decoding
 * libc's text takes longer than a short command runs, and
 * every run would pay it again for the same file.  The answer for one
 * file (device, inode, size, mtime) and one set of hot calls is kept in
 * the tracer's cache (tracer/cache.c); an answer that does not match its
 * key, or any read that fails, is decoded again.
 */
#include <stdlib.h>
#include <string.h>
#include "tracer/rewrite/fast-int.h"

#define CACHE_MAGIC 0x31746973746f69ull	/* "iotsit1": the format */

struct cache_key {
	uint64_t magic;
	struct tracer_file_id file;
	uint8_t hot[128];
	uint64_t site_size;	/* sizeof(struct rw_site) */
};

/* What follows the key: the answer's counts, then its sites. */
struct cache_head {
	uint64_t n, syscalls;
	uint64_t refused[RW_REFUSE_N];
};

static bool key_of(const char *path, const uint8_t hot[128],
		   struct cache_key *k)
{
	memset(k, 0, sizeof(*k));
	if (!tracer_file_id(path, &k->file))
		return false;
	k->magic = CACHE_MAGIC;
	memcpy(k->hot, hot, sizeof(k->hot));
	k->site_size = sizeof(struct rw_site);
	return true;
}

static bool cache_read(const struct cache_key *k, struct rw_sites *out)
{
	struct cache_head h;
	size_t len, bytes;
	uint8_t *data = tracer_cache_read("sites", k, sizeof(*k), &len);

	if (!data)
		return false;
	if (len < sizeof(h))
		goto miss;
	memcpy(&h, data, sizeof(h));
	bytes = (size_t)h.n * sizeof(*out->site);
	if (h.n > (1u << 20) || len != sizeof(h) + bytes)
		goto miss;
	memset(out, 0, sizeof(*out));
	out->site = malloc(bytes ? bytes : 1);
	if (!out->site)
		goto miss;
	memcpy(out->site, data + sizeof(h), bytes);
	out->n = (size_t)h.n;
	out->syscalls = (size_t)h.syscalls;
	for (int i = 0; i < RW_REFUSE_N; i++)
		out->refused[i] = (size_t)h.refused[i];
	free(data);
	return true;
miss:
	free(data);
	return false;
}

static void cache_write(const struct cache_key *k, const struct rw_sites *s)
{
	struct cache_head h;
	size_t bytes = s->n * sizeof(*s->site);
	uint8_t *data = malloc(sizeof(h) + bytes);

	if (!data)
		return;
	memset(&h, 0, sizeof(h));
	h.n = s->n;
	h.syscalls = s->syscalls;
	for (int i = 0; i < RW_REFUSE_N; i++)
		h.refused[i] = s->refused[i];
	memcpy(data, &h, sizeof(h));
	if (bytes)	/* no sites: s->site may be NULL */
		memcpy(data + sizeof(h), s->site, bytes);
	tracer_cache_write("sites", k, sizeof(*k), data, sizeof(h) + bytes);
	free(data);
}

int fast_sites_of(const char *path, const uint8_t hot[128],
		  struct rw_sites *out)
{
	struct cache_key k;
	bool cached = key_of(path, hot, &k);
	int err;

	if (cached && cache_read(&k, out))
		return 0;
	err = rw_sites_find(path, hot, out);
	if (!err && cached)
		cache_write(&k, out);
	return err;
}
