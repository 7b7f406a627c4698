// SPDX-License-Identifier: MIT
/*
 * Atomic output files: write a temporary file next to the target, fsync
 * it, rename it over the target.  A crash, Ctrl-C or kill -9 leaves either
 * the old file or the complete new one, never half of one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"

int outfile_open(struct outfile *out, const char *path)
{
	size_t len = strlen(path);
	mode_t mask;
	int fd;

	memset(out, 0, sizeof(*out));
	out->path = strdup(path);
	out->tmp = malloc(len + sizeof(".XXXXXX"));
	if (!out->path || !out->tmp) {
		outfile_abort(out);
		return error("out of memory");
	}
	memcpy(out->tmp, path, len);
	memcpy(out->tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
	/* O_CLOEXEC: the traced command must not inherit it. */
	fd = mkostemp(out->tmp, O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		free(out->tmp);
		out->tmp = NULL;
		outfile_abort(out);
		return error("cannot write '%s': %s", path, strerror(err));
	}
	/* mkostemp makes 0600; give the file what open(2) would. */
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	out->f = fdopen(fd, "w");
	if (!out->f) {
		close(fd);
		outfile_abort(out);
		return error("cannot write '%s': %s", path, strerror(errno));
	}
	return 0;
}

void outfile_abort(struct outfile *out)
{
	if (out->f)
		fclose(out->f);
	if (out->tmp)
		unlink(out->tmp);
	free(out->tmp);
	free(out->path);
	memset(out, 0, sizeof(*out));
}

int outfile_commit(struct outfile *out)
{
	int err = 0;

	if (fflush(out->f) || ferror(out->f) || fsync(fileno(out->f)))
		err = errno ? errno : EIO;
	if (fclose(out->f) && !err)
		err = errno;
	out->f = NULL;
	if (!err && rename(out->tmp, out->path))
		err = errno;
	if (err) {
		error("cannot write '%s': %s", out->path, strerror(err));
		outfile_abort(out);
		return -1;
	}
	free(out->tmp);
	out->tmp = NULL;
	outfile_abort(out);
	return 0;
}
