// SPDX-License-Identifier: MIT
/*
 * A process's mappings (procfd.h), from /proc/PID/maps: the file read
 * whole with read(2), then each line cut into its fields in place.  The
 * fast path reads the maps of a process it rewrites and -k those of each
 * process it unwinds; through stdio and sscanf a maps of 40 lines took
 * ~45 us more than the kernel takes to write it (~15 us).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "procfd/procfd.h"

/* The whole of /proc/PID/maps, NUL-terminated, in *buf (malloc'd). */
static int read_whole(pid_t pid, char **buf, size_t *len)
{
	char path[32];
	size_t cap = 16384, n = 0;
	char *b = malloc(cap), *grown;
	ssize_t got;
	int fd, err = 0;

	if (!b)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(b);
		return -errno;
	}
	for (;;) {
		if (cap - n < 4097) {	/* seq_file gives a line whole */
			grown = realloc(b, cap * 2);
			if (!grown) {
				err = -ENOMEM;
				break;
			}
			b = grown;
			cap *= 2;
		}
		got = read(fd, b + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			err = -errno;
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* A field of hex digits at *p, then the separator sep; false: not so. */
static bool hex_field(char **p, char sep, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (end == *p || errno || *end != sep)
		return false;
	*p = end + 1;
	return true;
}

/*
 * "start-end perms offset major:minor inode   path" into m, the line
 * NUL-terminated first (its path is the rest, "" when anonymous).
 */
static bool parse_line(char *line, struct proc_map *m)
{
	uint64_t maj, min, ino;
	char *p = line, *end;

	if (!hex_field(&p, '-', &m->start) || !hex_field(&p, ' ', &m->end) ||
	    strlen(p) < 5 || p[4] != ' ')
		return false;
	memcpy(m->perms, p, 4);
	m->perms[4] = '\0';
	p += 5;
	if (!hex_field(&p, ' ', &m->off) || !hex_field(&p, ':', &maj) ||
	    !hex_field(&p, ' ', &min))
		return false;
	errno = 0;
	ino = strtoull(p, &end, 10);
	if (end == p || errno)
		return false;
	p = end + strspn(end, " ");
	m->dev = makedev((unsigned)maj, (unsigned)min);
	m->ino = (ino_t)ino;
	m->path = p;
	return true;
}

int proc_maps_each(pid_t pid, int (*fn)(void *ctx, const struct proc_map *m),
		   void *ctx)
{
	struct proc_map m;
	char *buf = NULL, *line, *nl, *next;
	size_t len = 0;
	int err = read_whole(pid, &buf, &len);

	if (err)
		return err;
	for (line = buf; *line && !err; line = next) {
		nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (parse_line(line, &m))
			err = fn(ctx, &m);
	}
	free(buf);
	return err > 0 ? 0 : err;
}
