// SPDX-License-Identifier: MIT
/*
 * Tracee: prints how many bytes of anonymous memory (mappings with no
 * name in /proc/self/maps) the process has, so a test can see that
 * iotrace left none of its own behind.
 */
#include <stdio.h>

int main(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi, total = 0;
	char line[512], name[256];

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		name[0] = '\0';
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi,
			   name) >= 2 && !name[0])
			total += hi - lo;
	}
	fclose(f);
	printf("anonymous %lu\n", total);
	return 0;
}
