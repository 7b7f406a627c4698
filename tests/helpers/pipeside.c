// SPDX-License-Identifier: MIT
/*
 * pipeside write N SIZE: N write(2) calls of SIZE bytes to stdout.
 * pipeside read SIZE: read(2) calls of SIZE bytes from stdin until end
 * of file, then "pipeside: R reads" on stderr.  A pipeline of the two
 * sides has known counts per process: with SIZE at most PIPE_BUF each
 * write is atomic, so every read but the last returns SIZE bytes and
 * the reader makes exactly N + 1 reads (plus what the loader reads).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char buf[4096];

static int writes(long n, long size)
{
	long i;

	for (i = 0; i < n; i++)
		if (write(1, buf, size) != size) {
			perror("write");
			return 1;
		}
	return 0;
}

static int reads(long size)
{
	long n = 0;
	ssize_t r;

	do {
		r = read(0, buf, size);
		n++;
	} while (r > 0);
	if (r < 0) {
		perror("read");
		return 1;
	}
	fprintf(stderr, "pipeside: %ld reads\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	long size;

	if (argc == 4 && !strcmp(argv[1], "write")) {
		size = atol(argv[3]);
		if (size < 1 || size > (long)sizeof(buf))
			return 2;
		return writes(atol(argv[2]), size);
	}
	if (argc == 3 && !strcmp(argv[1], "read")) {
		size = atol(argv[2]);
		if (size < 1 || size > (long)sizeof(buf))
			return 2;
		return reads(size);
	}
	fprintf(stderr, "usage: pipeside write N SIZE | read SIZE\n");
	return 2;
}
