// SPDX-License-Identifier: MIT
/*
 * The loaders' shared parts (jload.h): the one place load errors are
 * formatted (load_fail(), for the JSON and strace -c loaders alike) and
 * the JSON loader's walk state and checked getters, which load.c and
 * every section's loader (json-breakdown.c, storage.c, json-fast.c...)
 * use.  A leaf: it calls none of them, so load.c, which calls the
 * sections' loaders, and the sections do not use each other.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "profile/jload.h"

#define MAX_DEPTH JLOAD_MAX_DEPTH

int load_fail(struct load_error *e, unsigned long line, const char *fmt, ...)
{
	va_list ap;
	char *c;

	e->line = line;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	/* The message quotes input: keep the terminal's controls out. */
	for (c = e->msg; *c; c++)
		if (iscntrl((unsigned char)*c))
			*c = '?';
	return -1;
}

void jload_push_key(struct jload *j, const char *key)
{
	if (j->depth < MAX_DEPTH)
		j->path[j->depth] = (struct json_step){ key, 0 };
	j->depth++;
}

void jload_push_index(struct jload *j, size_t index)
{
	if (j->depth < MAX_DEPTH)
		j->path[j->depth] = (struct json_step){ NULL, index };
	j->depth++;
}

void jload_pop(struct jload *j)
{
	j->depth--;
}

/* "syscalls[2].calls: <message>" at the line of that value. */
int jfail(struct jload *j, const char *fmt, ...)
{
	size_t depth = j->depth < MAX_DEPTH ? j->depth : MAX_DEPTH, i;
	char where[96] = "", what[120];
	unsigned long line;
	size_t n = 0;
	va_list ap;

	for (i = 0; i < depth && n < sizeof(where); i++) {
		if (j->path[i].key)
			n += (size_t)snprintf(where + n, sizeof(where) - n,
					      "%s%s", i ? "." : "",
					      j->path[i].key);
		else
			n += (size_t)snprintf(where + n, sizeof(where) - n,
					      "[%zu]", j->path[i].index);
	}
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	line = json_locate_line(j->text, j->len, j->path, depth);
	return load_fail(j->e, line, "%s%s%s", where, depth ? ": " : "", what);
}

const char *jload_type_word(json_type t)
{
	static const char *const names[] = {
		[JSON_OBJECT] = "an object",
		[JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string",
		[JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a real number",
		[JSON_TRUE] = "true or false",
		[JSON_FALSE] = "false",
		[JSON_NULL] = "null",
	};

	return names[t];
}

/* Booleans are asked for as JSON_TRUE and match false as well. */
static bool has_type(const json_t *v, json_type type)
{
	return json_typeof(v) == type ||
	       (type == JSON_TRUE && json_is_boolean(v));
}

/* obj[key] of the given type, with the path pushed; NULL: failed. */
json_t *jload_member(struct jload *j, json_t *obj, const char *key,
		     json_type type)
{
	json_t *v = json_object_get(obj, key);

	jload_push_key(j, key);
	if (!v) {
		jfail(j, "missing");
		return NULL;
	}
	if (!has_type(v, type)) {
		jfail(j, "expected %s, got %s", jload_type_word(type),
		      json_is_true(v) ? "true"
				      : jload_type_word(json_typeof(v)));
		return NULL;
	}
	return v;
}

/* A count, ns or bytes: an integer, not negative (jansson caps at 2^63). */
int jload_u64_value(struct jload *j, const json_t *v, uint64_t *out)
{
	if (!json_is_integer(v))
		return jfail(j, "expected an integer, got %s",
			     json_is_true(v) ? "true" :
			     jload_type_word(json_typeof(v)));
	if (json_integer_value(v) < 0)
		return jfail(j, "must not be negative, got %lld",
			     (long long)json_integer_value(v));
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

int jload_u64(struct jload *j, json_t *obj, const char *key, uint64_t *out)
{
	json_t *v = jload_member(j, obj, key, JSON_INTEGER);

	if (!v || jload_u64_value(j, v, out) < 0)
		return -1;
	jload_pop(j);
	return 0;
}

int jload_bool(struct jload *j, json_t *obj, const char *key, bool *out)
{
	json_t *v = jload_member(j, obj, key, JSON_TRUE);

	if (!v)
		return -1;
	*out = json_is_true(v);
	jload_pop(j);
	return 0;
}

/* Into buf, which must hold it with its NUL. */
int jload_string(struct jload *j, json_t *obj, const char *key, char *buf,
		 size_t size)
{
	json_t *v = jload_member(j, obj, key, JSON_STRING);

	if (!v)
		return -1;
	if (json_string_length(v) >= size)
		return jfail(j, "longer than %zu bytes", size - 1);
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	jload_pop(j);
	return 0;
}

/*
 * The optional "personality" of a row: its index, or -1 when absent (an
 * older file: the name alone says it, native first) or not one of this
 * build's (a file from another architecture: the same).
 */
int load_personality(struct jload *j, json_t *obj, int *pers)
{
	char word[16];

	*pers = -1;
	if (!json_object_get(obj, "personality"))
		return 0;
	if (jload_string(j, obj, "personality", word, sizeof(word)) < 0)
		return -1;
	*pers = syscall_pers_find(word);
	return 0;
}
