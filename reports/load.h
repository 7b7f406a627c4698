/* SPDX-License-Identifier: MIT */
/*
 * Reading saved runs back into a struct profile: iotrace's own JSON
 * (schema "iotrace/1", reports/json.c writes it) and the text table of
 * `strace -c`, found at the end of a longer log if need be.  Input is
 * untrusted: every loader either fills the whole profile or returns -1
 * with the line and a one-phrase reason in struct load_error, leaving the
 * profile empty.  Only cli/ prints the message.
 */
#ifndef IOTRACE_LOAD_H
#define IOTRACE_LOAD_H

#include <stddef.h>
#include <stdio.h>
#include <jansson.h>
#include "reports/profile.h"

/* Largest JSON profile read: real ones are a few hundred KiB at most. */
#define LOAD_JSON_MAX (16u << 20)
/* Longest line of an strace table; longer lines of a log are skipped. */
#define LOAD_LINE_MAX 4096

struct load_error {
	unsigned long line;	/* 1-based line of the problem */
	char msg[200];		/* lowercase, no full stop */
};

/* The JSON document of a profile (schema "iotrace/1"); NULL: no memory. */
json_t *profile_to_json(const struct profile *p);

/*
 * Fills an initialized, empty profile from text of len bytes.  0, or -1
 * with e filled and p released (empty again).
 */
int profile_from_json(struct profile *p, const char *text, size_t len,
		      struct load_error *e);
/* Reads f to its end; first_line is the line number f is at. */
int profile_from_strace_at(struct profile *p, FILE *f, unsigned long first_line,
			   struct load_error *e);
int profile_from_strace_text(struct profile *p, const char *text,
			     size_t len, struct load_error *e);

/*
 * Reads path, telling JSON (first non-blank byte '{') from an strace
 * table.  Initializes p.  0, or -1 with e filled (line 0: the file
 * itself could not be read; msg says why).
 */
int profile_load(struct profile *p, const char *path, struct load_error *e);

/* Fills e and returns -1; for the loaders. */
int load_fail(struct load_error *e, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
