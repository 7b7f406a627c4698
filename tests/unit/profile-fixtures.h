/* SPDX-License-Identifier: MIT */
/*
 * Building blocks for unit tests that hand-build profiles: written once
 * here instead of in every test file.
 */
#ifndef IOTRACE_PROFILE_FIXTURES_H
#define IOTRACE_PROFILE_FIXTURES_H

#include <stdio.h>
#include "reports/render/render.h"

/* The index of a file row of p, added as profile_file_get() adds it. */
static inline uint32_t file(struct profile *p, const char *path,
			    unsigned kind, unsigned flags, uint32_t blksize,
			    uint32_t lbs)
{
	struct profile_file f = { .kind = kind, .flags = flags,
				  .blksize = blksize, .lbs = lbs };

	snprintf(f.path, sizeof(f.path), "%s", path);
	return (uint32_t)profile_file_get(p, &f);
}

#endif
