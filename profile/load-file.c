// SPDX-License-Identifier: MIT
/*
 * Opening a saved run: the file decides its own kind (a JSON profile
 * starts with '{' after blanks, anything else is read as a log ending in
 * an strace -c table), and its size is bounded before jansson sees it, so
 * a 100 MB string costs at most LOAD_JSON_MAX of memory.  Load errors are
 * formatted in jload.c (load_fail()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "profile/profile-int.h"

/* Refuses a file past LOAD_JSON_MAX, naming the line the limit fell on. */
static int too_large(char *buf, size_t n, struct load_error *e)
{
	unsigned long line = 1;
	size_t i;

	for (i = 0; i < n && i < LOAD_JSON_MAX; i++)
		line += buf[i] == '\n';
	free(buf);
	return load_fail(e, line, "larger than %u MiB: not an iotrace "
			 "profile", LOAD_JSON_MAX >> 20);
}

/* Reads all of f into a malloc'd buffer of at most LOAD_JSON_MAX bytes. */
static int read_all(FILE *f, char **text, size_t *len, struct load_error *e)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap), *grown;

	if (!buf)
		return load_fail(e, 1, "out of memory");
	for (;;) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap || ferror(f))	/* end of file, or an error */
			break;
		if (cap > LOAD_JSON_MAX)
			return too_large(buf, n, e);
		grown = realloc(buf, cap * 2);
		if (!grown) {
			free(buf);
			return load_fail(e, 1, "out of memory");
		}
		buf = grown;
		cap *= 2;
	}
	if (ferror(f)) {
		free(buf);
		return load_fail(e, 1, "read error");
	}
	if (n > LOAD_JSON_MAX)
		return too_large(buf, n, e);
	*text = buf;
	*len = n;
	return 0;
}

int profile_load(struct profile *p, const char *path, struct load_error *e)
{
	unsigned long line = 1;
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	size_t blanks = 0;
	int c, err;
	FILE *f;

	profile_init(p);
	f = fopen(path, "r");
	if (!f)
		return load_fail(e, 0, "%s", strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return load_fail(e, 0, "%s", strerror(EISDIR));
	}
	/* Bounded: past LOAD_JSON_MAX blanks, the text loader's bound. */
	while ((c = getc(f)) != EOF && c && strchr(" \t\r\n", c) &&
	       blanks++ < LOAD_JSON_MAX)
		line += c == '\n';
	if (c != '{') {
		if (c != EOF)
			ungetc(c, f);
		err = profile_from_strace_at(p, f, line, e);
		fclose(f);
		return err;
	}
	ungetc(c, f);
	err = read_all(f, &text, &len, e);
	fclose(f);
	if (err < 0)
		return -1;
	/* Blank lines before the '{' were read: they still count. */
	err = profile_from_json(p, text, len, e);
	if (err < 0 && e->line)
		e->line += line - 1;
	free(text);
	return err;
}
