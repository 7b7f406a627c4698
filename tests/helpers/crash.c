// SPDX-License-Identifier: MIT
/*
 * Tracee that crashes for real: "segv" dereferences a null pointer,
 * "abort" calls abort().  Writes one line first so the table has a
 * write in it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile int *volatile null = NULL;

	if (write(1, "crashing\n", 9) != 9 || argc != 2)
		return 1;
	if (!strcmp(argv[1], "abort"))
		abort();
	if (!strcmp(argv[1], "segv"))
		return *null;
	return 1;
}
