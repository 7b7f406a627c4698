// SPDX-License-Identifier: MIT
/*
 * A tracee that reuses one fd number for two files: writes 4 bytes to
 * argv[1], closes it, opens argv[2] (which gets the same number), writes
 * 6 bytes.  Per-file accounting must keep the two apart.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int a, b;

	if (argc != 3)
		return 2;
	a = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (a < 0 || write(a, "aaaa", 4) != 4 || close(a))
		return 1;
	b = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
	if (b != a) {
		fprintf(stderr, "fd %d was not reused (%d)\n", a, b);
		return 1;
	}
	if (write(b, "bbbbbb", 6) != 6 || close(b))
		return 1;
	return 0;
}
