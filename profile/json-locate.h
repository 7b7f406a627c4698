/* SPDX-License-Identifier: MIT */
/*
 * The line of a value in JSON text, given its path: for error messages
 * about documents jansson parsed (it keeps no positions).
 */
#ifndef IOTRACE_JSON_LOCATE_H
#define IOTRACE_JSON_LOCATE_H

#include <stdbool.h>
#include <stddef.h>

/* One step down: an object member (key) or an array element (index). */
struct json_step {
	const char *key;	/* NULL: index */
	size_t index;
};

/* 1-based line of the deepest step of path found in text. */
unsigned long json_locate_line(const char *text, size_t len,
			       const struct json_step *path, size_t depth);

#endif
