// SPDX-License-Identifier: MIT
/*
 * Finding the line of a value in JSON text, for error messages only.
 * jansson keeps no positions once a document is parsed, yet a message
 * about a wrong type must name a line.  This walks text jansson has
 * already accepted (so it is well formed) down a path of keys and array
 * indexes, and stops at the deepest step it can find.  It reads no
 * values: the data always comes from jansson.
 */
#include <string.h>
#include "profile/json-locate.h"

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && *p && strchr(" \t\r\n", *p))
		p++;
	return p;
}

/* p at the opening quote; returns past the closing one. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p < end ? p + 1 : end;
}

/*
 * Skips one value without recursion (depth is a counter) and returns the
 * ',' or closing bracket after it.
 */
static const char *skip_value(const char *p, const char *end)
{
	long depth = 0;

	for (; p < end; p++) {
		if (*p == '"') {
			p = skip_string(p, end) - 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if (*p == '}' || *p == ']') {
			if (!depth)
				return p;
			depth--;
		} else if (*p == ',' && !depth) {
			return p;
		}
	}
	return end;
}

/* p at '{': the start of key's value, or NULL. */
static const char *find_member(const char *p, const char *end,
			       const char *key)
{
	size_t klen = strlen(key);

	for (p = skip_ws(p + 1, end); p < end && *p == '"';) {
		const char *k = p + 1, *kend = skip_string(p, end);
		bool match = (size_t)(kend - 1 - k) == klen &&
			     !memcmp(k, key, klen);

		p = skip_ws(kend, end);
		if (p >= end || *p != ':')
			return NULL;
		p = skip_ws(p + 1, end);
		if (match)
			return p;
		p = skip_value(p, end);
		if (p >= end || *p != ',')
			return NULL;
		p = skip_ws(p + 1, end);
	}
	return NULL;
}

/* p at '[': the start of element index, or NULL. */
static const char *find_element(const char *p, const char *end, size_t index)
{
	size_t i;

	p = skip_ws(p + 1, end);
	for (i = 0; i < index; i++) {
		p = skip_value(p, end);
		if (p >= end || *p != ',')
			return NULL;
		p = skip_ws(p + 1, end);
	}
	return p < end && *p != ']' ? p : NULL;
}

unsigned long json_locate_line(const char *text, size_t len,
			       const struct json_step *path, size_t depth)
{
	const char *end = text + len, *p = skip_ws(text, end), *next;
	unsigned long line = 1;
	size_t i;

	for (i = 0; i < depth && p < end; i++, p = next) {
		if (path[i].key && *p == '{')
			next = find_member(p, end, path[i].key);
		else if (!path[i].key && *p == '[')
			next = find_element(p, end, path[i].index);
		else
			next = NULL;
		if (!next)
			break;
	}
	for (; text < p; text++)
		line += *text == '\n';
	return line;
}
