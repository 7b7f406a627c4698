/* SPDX-License-Identifier: MIT */
/*
 * Shared between the files of profile/ only; everything outside
 * uses profile.h.
 */
#ifndef IOTRACE_PROFILE_INT_H
#define IOTRACE_PROFILE_INT_H

#include <jansson.h>
#include "profile/profile.h"

/* The JSON document of a profile (schema "iotrace/1"); NULL: no memory. */
json_t *profile_to_json(const struct profile *p);

/* Fills e and returns -1; for the loaders. */
int load_fail(struct load_error *e, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
