// SPDX-License-Identifier: MIT
/*
 * Atomic output files: write a temporary file next to the target, rename
 * it over the target.  A crash, Ctrl-C or kill -9 of iotrace leaves either
 * the old file or the complete new one, never half of one.  No fsync: it
 * cost ~10 ms per run here (a fifth of a short traced command), and the
 * guarantee is against iotrace dying, not the machine losing power.  Only regular
 * files are replaced that way: a device, FIFO or terminal (-o /dev/null,
 * -o /dev/stdout) is written in place, and a symlink's target is replaced,
 * not the link.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/cli.h"

/* Writes straight into an existing non-regular file (a device, a FIFO). */
static int open_in_place(struct outfile *out, const char *path)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0 || !(out->f = fdopen(fd, "w"))) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return error("cannot write '%s': %s", path, strerror(err));
	}
	return 0;
}

/* A new temporary file next to out->path, mode as open(2) would give. */
static int make_temp(struct outfile *out)
{
	size_t len = strlen(out->path);
	mode_t mask;
	int fd;

	out->tmp = malloc(len + sizeof(".XXXXXX"));
	if (!out->tmp)
		return -ENOMEM;
	memcpy(out->tmp, out->path, len);
	memcpy(out->tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
	/* O_CLOEXEC: the traced command must not inherit it. */
	fd = mkostemp(out->tmp, O_CLOEXEC);
	if (fd < 0) {
		free(out->tmp);
		out->tmp = NULL;
		return -errno;
	}
	mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	out->f = fdopen(fd, "w");
	if (!out->f) {
		close(fd);
		return -errno;
	}
	return 0;
}

int outfile_open(struct outfile *out, const char *path)
{
	struct stat st;
	char *real;
	int err;

	memset(out, 0, sizeof(*out));
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return open_in_place(out, path);
	/* Through a symlink: replace the file it points to, not the link. */
	real = realpath(path, NULL);
	out->path = real ? real : strdup(path);
	if (!out->path)
		return error("out of memory");
	err = make_temp(out);
	if (err < 0) {
		outfile_abort(out);
		return error("cannot write '%s': %s", path, strerror(-err));
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

	if (!out->tmp) {	/* written in place */
		err = fflush(out->f) || ferror(out->f) ? errno : 0;
		fclose(out->f);
		out->f = NULL;
		if (err)
			return error("cannot write output: %s", strerror(err));
		return 0;
	}
	if (fflush(out->f) || ferror(out->f))
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
