// SPDX-License-Identifier: MIT
/*
 * Atomic output files.  The content is written to an unnamed file
 * (O_TMPFILE) in the target's directory, opened before anything runs so
 * an unwritable path fails first, and given a name only when complete:
 * linked straight to the target when there is none, else linked to a
 * temporary name and renamed over it.  A crash, Ctrl-C or kill -9 of
 * iotrace during the run leaves either the old file or the complete new
 * one and no temporary file; only a kill between that link and the
 * rename (two system calls) can leave FILE.XXXXXX.  A filesystem without
 * O_TMPFILE gets a named temporary file from the start, as before.  No
 * fsync: it would cost a noticeable share of a short traced command,
 * and the guarantee is against iotrace dying, not the machine losing
 * power.  An existing target keeps its mode and, where iotrace may set
 * it, its owner and group.  Only regular files are replaced: a device,
 * FIFO or terminal (-o /dev/null, -o /dev/stdout) is written in place,
 * and a symlink's target is replaced, not the link (a dangling link is
 * refused, as cp(1) does).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
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

/* out->path with the last component cut off: "." when it has none. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, slash - path);
}

/* An unnamed file in the target's directory, mode as open(2) would give. */
static int make_unnamed(struct outfile *out)
{
	char *dir = dir_of(out->path);
	int fd;

	if (!dir)
		return -ENOMEM;
	/* O_CLOEXEC: the traced command must not inherit it. */
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	free(dir);
	if (fd < 0)
		return -errno;
	out->f = fdopen(fd, "w");
	if (!out->f) {
		close(fd);
		return -errno;
	}
	return 0;
}

/* Where O_TMPFILE is not supported: a named temporary file next to it. */
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

/* EOPNOTSUPP, or EISDIR/EINVAL from kernels and libcs before O_TMPFILE. */
static int no_tmpfile(int err)
{
	return err == -EOPNOTSUPP || err == -EISDIR || err == -EINVAL;
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
	if (!real && errno == ENOENT && lstat(path, &st) == 0 &&
	    S_ISLNK(st.st_mode))
		return error("cannot write '%s': dangling symlink", path);
	out->path = real ? real : strdup(path);
	if (!out->path)
		return error("out of memory");
	err = make_unnamed(out);
	if (no_tmpfile(err))
		err = make_temp(out);
	if (err < 0) {
		outfile_abort(out);
		return error("cannot write '%s': %s", path, strerror(-err));
	}
	out->unnamed = !out->tmp;
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

/* Gives the new file an existing target's owner, group and mode. */
static void keep_attrs(int fd, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return;
	/* Not allowed (not root, not a member of the group): left as is. */
	if (fchown(fd, st.st_uid, st.st_gid) < 0 &&
	    fchown(fd, -1, st.st_gid) < 0)
		errno = 0;
	/* After fchown, which clears set-user-ID and set-group-ID. */
	fchmod(fd, st.st_mode & 07777);
}

/* Names the unnamed file fd: through /proc, else AT_EMPTY_PATH (root). */
static int link_fd(int fd, const char *name)
{
	char proc[40];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != ENOENT || access("/proc/self/fd", F_OK) == 0)
		return -errno;
	return linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) ? -errno : 0;
}

/* Links the unnamed file fd to a fresh path.XXXXXX, stored in out->tmp. */
static int link_temp(struct outfile *out, int fd)
{
	static const char chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(out->path);
	unsigned char rnd[6];
	int tries, err = -EEXIST;

	out->tmp = malloc(len + sizeof(".XXXXXX"));
	if (!out->tmp)
		return -ENOMEM;
	memcpy(out->tmp, out->path, len);
	out->tmp[len] = '.';
	out->tmp[len + 7] = '\0';
	for (tries = 0; tries < 100 && err == -EEXIST; tries++) {
		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -EIO;
		for (int i = 0; i < 6; i++)
			out->tmp[len + 1 + i] = chars[rnd[i] % 36];
		err = link_fd(fd, out->tmp);
	}
	if (err < 0) {
		free(out->tmp);
		out->tmp = NULL;
	}
	return err;
}

/* Gives the complete unnamed file the target's name, replacing it. */
static int link_unnamed(struct outfile *out, int fd)
{
	int err = link_fd(fd, out->path);

	if (err != -EEXIST)
		return err;
	err = link_temp(out, fd);
	if (err < 0)
		return err;
	return rename(out->tmp, out->path) ? -errno : 0;
}

/* Flushes out->f and gives it the target's name; 0 or -errno. */
static int finish(struct outfile *out)
{
	int fd = fileno(out->f), err = 0;

	if (fflush(out->f) || ferror(out->f))
		return errno ? -errno : -EIO;
	keep_attrs(fd, out->path);
	if (out->unnamed)
		err = link_unnamed(out, fd);
	else if (rename(out->tmp, out->path))
		err = -errno;
	if (err < 0)
		return err;
	free(out->tmp);	/* renamed: nothing to unlink */
	out->tmp = NULL;
	return 0;
}

int outfile_commit(struct outfile *out)
{
	int err = 0;

	if (!out->path) {	/* written in place */
		err = fflush(out->f) || ferror(out->f) ? errno : 0;
		fclose(out->f);
		out->f = NULL;
		if (err)
			return error("cannot write output: %s", strerror(err));
		return 0;
	}
	err = finish(out);
	if (err < 0) {
		error("cannot write '%s': %s", out->path, strerror(-err));
		outfile_abort(out);
		return -1;
	}
	outfile_abort(out);	/* closes and frees; nothing left to unlink */
	return 0;
}
