// SPDX-License-Identifier: MIT
/*
 * Runs a libFuzzer target's entry point over every file of its seed
 * corpus, without libFuzzer or clang: built with the project's compiler
 * and linked with one tests/fuzz/fuzz-NAME.c, it is a unit test of
 * `make check` (TAP), so the seeds stay valid inputs and every former
 * crasher kept there stays fixed.  The corpus is FIXTURES/fuzz/NAME
 * (FUZZ_NAME at build time), or the directory given as argument.
 */
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole file, NULL when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		*len = (size_t)n;
	fclose(f);
	return buf;
}

static int replay(const char *dir, const char *name)
{
	char *path, *buf;
	size_t len = 0;

	if (asprintf(&path, "%s/%s", dir, name) < 0)
		return -1;
	buf = slurp(path, &len);
	free(path);
	if (!buf)
		return -1;
	LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	const char *fixtures = getenv("FIXTURES");
	char given[4096], dir[PATH_MAX] = "";
	struct dirent **names;
	int i, n;

	snprintf(given, sizeof(given), "%s/fuzz/%s",
		 fixtures ? fixtures : "tests/fixtures", FUZZ_NAME);
	/* Absolute: a target may change directory (fuzz-args.c does). */
	if (!realpath(argc > 1 ? argv[1] : given, dir))
		snprintf(dir, sizeof(dir), "%s", argc > 1 ? argv[1] : given);
	n = scandir(dir, &names, NULL, alphasort);
	ok(n > 2, "seeds in %s", dir);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			ok(replay(dir, names[i]->d_name) == 0,
			   "%s: no crash", names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return done_testing();
}
