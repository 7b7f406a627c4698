// SPDX-License-Identifier: MIT
/*
 * Tracee: compares its own libc's code with the file it came from.  It
 * finds libc.so.6 among its objects (dl_iterate_phdr) and the segment
 * that is code (PT_LOAD with PF_X), maps the file from disk (read-only,
 * private) and compares the segment's bytes in memory with the file's.
 * Prints "libc=PATH" and "text=identical" or "text=differs bytes=M" (M
 * bytes differ).  The truth, untraced: identical (libc's text has no
 * relocations).  A tracer that rewrites libc's call sites in the
 * process makes them differ, but must never change the file.
 */
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *path;
static const unsigned char *text;
static size_t offset, size;

static int find_libc(struct dl_phdr_info *info, size_t len, void *arg)
{
	const char *slash = strrchr(info->dlpi_name, '/');
	int i;

	(void)len;
	(void)arg;
	if (!slash || strcmp(slash, "/libc.so.6"))
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			path = info->dlpi_name;
			text = (const unsigned char *)(info->dlpi_addr +
						       ph->p_vaddr);
			offset = ph->p_offset;
			size = ph->p_filesz;
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	const unsigned char *file;
	size_t i, differ = 0;
	struct stat st;
	int fd;

	if (!dl_iterate_phdr(find_libc, NULL))
		return 1;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size < offset + size)
		return 1;
	file = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (file == MAP_FAILED)
		return 1;
	for (i = 0; i < size; i++)
		differ += text[i] != file[offset + i];
	printf("libc=%s\n", path);
	if (differ)
		printf("text=differs bytes=%zu\n", differ);
	else
		printf("text=identical\n");
	return 0;
}
