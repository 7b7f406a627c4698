// SPDX-License-Identifier: MIT
/*
 * copypairs IN OUT1 OUT2 OUT3: copies with the two-fd calls, each pair of
 * files a known number of times (IN must hold at least 96 KiB):
 *   sendfile IN -> OUT1  8 calls of 4 KiB, interleaved with
 *   sendfile IN -> OUT2  8 calls of 4 KiB (one source, two destinations);
 *   then OUT1 closed and OUT3 opened at its fd number:
 *   sendfile IN -> OUT3  4 calls of 4 KiB (the same fds, another file);
 *   copy_file_range IN -> OUT3  4 calls of 4 KiB;
 *   splice IN -> pipe -> OUT2  2 calls of 4 KiB each way.
 * Exits 1 on any short or failed call.
 */
#include <fcntl.h>
#include <sys/sendfile.h>
#include <unistd.h>

#define CHUNK 4096

static int sendn(int out, int in, off_t *off)
{
	return sendfile(out, in, off, CHUNK) == CHUNK ? 0 : -1;
}

int main(int argc, char **argv)
{
	int in, o1, o2, o3, p[2], i, bad = 0;
	off_t off = 0;
	loff_t coff = 0;

	if (argc != 5)
		return 2;
	in = open(argv[1], O_RDONLY);
	o1 = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	o2 = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || o1 < 0 || o2 < 0 || pipe(p))
		return 1;
	for (i = 0; i < 8; i++)
		bad |= sendn(o1, in, &off) | sendn(o2, in, &off);
	close(o1);
	o3 = open(argv[4], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o3 != o1)
		return 1;	/* the lowest free fd: OUT1's */
	for (i = 0; i < 4; i++)
		bad |= sendn(o3, in, &off);
	for (i = 0; i < 4; i++)
		bad |= copy_file_range(in, &coff, o3, NULL, CHUNK, 0) != CHUNK;
	for (i = 0; i < 2; i++)
		bad |= splice(in, NULL, p[1], NULL, CHUNK, 0) != CHUNK ||
		       splice(p[0], NULL, o2, NULL, CHUNK, 0) != CHUNK;
	return bad ? 1 : 0;
}
