/* SPDX-License-Identifier: MIT */
/*
 * Building blocks for unit tests that hand-build profiles: written once
 * here instead of in every test file.
 */
#ifndef IOTRACE_PROFILE_FIXTURES_H
#define IOTRACE_PROFILE_FIXTURES_H

#include <stdio.h>
#include "render/render.h"

/*
 * The index of a file row of p, added as profile_file_get() adds it,
 * with backing (enum fd_backing): whether a block device is behind it.
 */
static inline uint32_t file_backed(struct profile *p, const char *path,
				   unsigned kind, unsigned flags,
				   uint32_t blksize, uint32_t lbs,
				   unsigned backing)
{
	struct profile_file f = { .kind = kind, .flags = flags,
				  .blksize = blksize, .lbs = lbs,
				  .backing = backing };

	snprintf(f.path, sizeof(f.path), "%s", path);
	return (uint32_t)profile_file_get(p, &f);
}

/* The same, a block device behind it when it has a logical block size. */
static inline uint32_t file(struct profile *p, const char *path,
			    unsigned kind, unsigned flags, uint32_t blksize,
			    uint32_t lbs)
{
	return file_backed(p, path, kind, flags, blksize, lbs,
			   lbs ? FD_BACKING_DEVICE : FD_BACKING_UNKNOWN);
}

#endif
