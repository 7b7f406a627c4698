/* SPDX-License-Identifier: MIT */
/*
 * Private to the JSON profile code (json.c, json-breakdown.c, load.c;
 * the getters are in jload.c)
 * and the key types of dimensions (files.c): the loader's walk state and
 * its checked getters, so the breakdowns (json-breakdown.c) and their
 * keys are validated the same way, with the same
 * "line L: key.path: what is wrong" messages, as the rest (load.c).
 * Every getter pushes its key, fails through jfail() (returns -1 with
 * the path still pushed) or pops it on success.
 */
#ifndef IOTRACE_JLOAD_H
#define IOTRACE_JLOAD_H

#include "profile/json-locate.h"
#include "profile/profile-int.h"

#define JLOAD_MAX_DEPTH 8

struct jload {
	const char *text;
	size_t len;
	struct load_error *e;
	struct json_step path[JLOAD_MAX_DEPTH];
	size_t depth;
};

void jload_push_key(struct jload *j, const char *key);
void jload_push_index(struct jload *j, size_t index);
void jload_pop(struct jload *j);
/* "files[2].kind: <message>" at the line of that value; -1. */
int jfail(struct jload *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "an integer", "a string" ... for messages. */
const char *jload_type_word(json_type t);
/* obj[key] of type (JSON_TRUE: a boolean), key pushed; NULL: failed. */
json_t *jload_member(struct jload *j, json_t *obj, const char *key,
		     json_type type);
int jload_u64_value(struct jload *j, const json_t *v, uint64_t *out);
int jload_u64(struct jload *j, json_t *obj, const char *key, uint64_t *out);
int jload_bool(struct jload *j, json_t *obj, const char *key, bool *out);
/* Into buf, which must hold it with its NUL. */
int jload_string(struct jload *j, json_t *obj, const char *key, char *buf,
		 size_t size);

/* A row's optional "personality": its index, -1 absent or unknown. */
int load_personality(struct jload *j, json_t *obj, int *pers);

/* --- breakdowns, engine and calibrated (json-breakdown.c) --- */
/* Sets "files", "ios" and "breakdowns" in doc.  0, or -1: no memory. */
int breakdowns_to_json(json_t *doc, const struct profile *p);
/* Optional keys (older iotrace/1 files lack them): absent is empty. */
int load_engine(struct jload *j, struct profile *p, json_t *doc);
int load_breakdowns(struct jload *j, struct profile *p, json_t *doc);
/* Pushes where sub-row i of d is: "ios[i]", "breakdowns.NAME.rows[i]". */
void jload_push_sub(struct jload *j, const struct profile_dim *d, size_t i);

/* --- the untraced estimate's ingredients (json-untraced.c) --- */
json_t *untraced_to_json(const struct profile *p);
int load_untraced(struct jload *j, struct profile *p, json_t *doc);

/* --- page cache vs device (storage.c): optional, null is none --- */
json_t *storage_to_json(const struct profile *p);
int load_storage(struct jload *j, struct profile *p, json_t *doc);

/* --- what --baseline measured untraced (json-baseline.c) --- */
json_t *baseline_to_json(const struct profile *p);
/* Optional: absent or null is no baseline. */
int load_baseline(struct jload *j, struct profile *p, json_t *doc);

/* --- what the fast path did (json-fast.c) --- */
json_t *fast_to_json(const struct profile *p);
int load_fast(struct jload *j, struct profile *p, json_t *doc);

#endif
