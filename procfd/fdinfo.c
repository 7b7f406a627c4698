// SPDX-License-Identifier: MIT
/*
 * fd_describe(): what fd N of a stopped task is, from /proc and /sys.
 * Called once per (task, fd) through the fd cache (fds.c), at the exit
 * stop of the first data syscall on the fd, when the fd is still open,
 * and by the fast path at each fold (a close of a written fd: once a
 * file in a tar of a tree), so it is made cheap: the fd is borrowed
 * with pidfd_getfd(2) and asked through the copy (fstat, F_GETFL,
 * /proc/self/fd), about 1 us, where /proc/TID/fd/N, its fdinfo and a
 * stat through the link took 6 (three path walks through /proc).  The
 * copy is closed before the task goes on, never its last reference: the
 * program's close is the one that releases the file, as untraced.  A
 * task whose fd cannot be borrowed (a thread that is not its process's
 * leader, an old kernel, a refusal) is read from /proc as before.
 * The path is what the fd links to ("/tmp/out", "pipe:[123]",
 * "socket:[45]", "anon_inode:[eventfd]"); the flags are the open file's
 * (F_GETFL, as fdinfo's flags: O_APPEND, O_DIRECT, O_SYNC...); the
 * block sizes from stat and /sys/dev/block; whether a block device is
 * behind it from the stat's device number (major 0: an anonymous one,
 * no device's) and, for those, the filesystem's statfs type.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "procfd/procfd.h"
#include "tracer/tracer.h"

#ifndef BCACHEFS_SUPER_MAGIC
#define BCACHEFS_SUPER_MAGIC 0xca451a4e
#endif
#define ZFS_SUPER_MAGIC 0x2fc12fc1

/* Filesystems on block devices that give their files anonymous st_dev. */
static const unsigned long block_fs[] = {
	BTRFS_SUPER_MAGIC, BCACHEFS_SUPER_MAGIC, ZFS_SUPER_MAGIC,
};

/* Filesystems with no device at all: memory and the kernel's own. */
static const unsigned long memory_fs[] = {
	TMPFS_MAGIC, RAMFS_MAGIC, HUGETLBFS_MAGIC, PROC_SUPER_MAGIC,
	SYSFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC, SECURITYFS_MAGIC,
	CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC, DEVPTS_SUPER_MAGIC,
	BPF_FS_MAGIC, PSTOREFS_MAGIC, EFIVARFS_MAGIC,
};

/* "flags:\t0100002" in fdinfo is octal. */
static int read_flags(pid_t tid, int fd, unsigned *flags)
{
	char path[64], text[512], *line, *next;
	unsigned long v;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%d", (int)tid, fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	/* pos, flags, mnt_id first: one read has them */
	n = read(f, text, sizeof(text) - 1);
	close(f);
	if (n < 0)
		return -EIO;
	text[n] = '\0';
	for (line = text; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			next++;
		if (sscanf(line, "flags: %lo", &v) == 1) {
			*flags = (unsigned)v;
			return 0;
		}
	}
	return -ENOENT;
}

static uint32_t read_u32(const char *path)
{
	unsigned long v = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	if (fscanf(f, "%lu", &v) != 1)
		v = 0;
	fclose(f);
	return (uint32_t)v;
}

/*
 * The logical block size of block device dev, or 0 when dev is not a
 * block device (tmpfs, btrfs and overlayfs give anonymous devices).  A
 * partition has no queue/ of its own: its parent's applies.
 */
static uint32_t read_lbs(dev_t dev)
{
	char path[96];
	uint32_t v;

	snprintf(path, sizeof(path),
		 "/sys/dev/block/%u:%u/queue/logical_block_size", major(dev),
		 minor(dev));
	v = read_u32(path);
	if (v)
		return v;
	snprintf(path, sizeof(path),
		 "/sys/dev/block/%u:%u/../queue/logical_block_size",
		 major(dev), minor(dev));
	return read_u32(path);
}

/*
 * read_lbs()'s answer for each device, read once per iotrace (0 too: a
 * filesystem with no block device tries two paths in vain), as a
 * device's logical block size does not change: a run's files are
 * mostly on one or two.
 */
#define LBS_KNOWN 8
static struct {
	dev_t dev;
	uint32_t lbs;
} lbs_known[LBS_KNOWN];
static unsigned lbs_n, lbs_next;

uint32_t fd_logical_block_size(dev_t dev)
{
	unsigned i;
	uint32_t v;

	for (i = 0; i < lbs_n; i++)
		if (lbs_known[i].dev == dev)
			return lbs_known[i].lbs;
	v = read_lbs(dev);
	i = lbs_n < LBS_KNOWN ? lbs_n++ : lbs_next++ % LBS_KNOWN;
	lbs_known[i].dev = dev;
	lbs_known[i].lbs = v;
	return v;
}

static enum fd_kind kind_of(const struct stat *st, const char *path)
{
	if (!strncmp(path, "anon_inode:", 11))
		return FD_ANON;
	if (S_ISREG(st->st_mode))
		return FD_REG;
	if (S_ISBLK(st->st_mode))
		return FD_BLK;
	if (S_ISCHR(st->st_mode))
		return FD_CHR;
	if (S_ISFIFO(st->st_mode))
		return FD_PIPE;
	if (S_ISSOCK(st->st_mode))
		return FD_SOCK;
	if (S_ISDIR(st->st_mode))
		return FD_DIR;
	return FD_OTHER;
}

static bool fs_in(const unsigned long *list, size_t n, unsigned long fstype)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == fstype)
			return true;
	return false;
}

/*
 * A file's filesystem sits on a block device when its device number is
 * one (anonymous numbers have major 0: tmpfs, proc, overlayfs, NFS, and
 * btrfs, which block_fs[] tells apart by its type).
 */
static enum fd_backing backing_of(enum fd_kind kind, const struct stat *st,
				  unsigned long fstype)
{
	switch (kind) {
	case FD_BLK:
		return FD_BACKING_DEVICE;
	case FD_REG:
	case FD_DIR:
		if (major(st->st_dev) ||
		    fs_in(block_fs, sizeof(block_fs) / sizeof(*block_fs),
			  fstype))
			return FD_BACKING_DEVICE;
		if (fs_in(memory_fs, sizeof(memory_fs) / sizeof(*memory_fs),
			  fstype))
			return FD_BACKING_NONE;
		return FD_BACKING_UNKNOWN;
	case FD_UNKNOWN:
		return FD_BACKING_UNKNOWN;
	default:
		return FD_BACKING_NONE;
	}
}

void fd_desc_set_stat(struct fd_desc *d, const struct stat *st,
		      unsigned long fstype)
{
	if (!st) {
		/* anon inodes may refuse stat; the path still says what. */
		d->kind = strncmp(d->path, "anon_inode:", 11) ? FD_UNKNOWN
							      : FD_ANON;
		d->backing = d->kind == FD_ANON ? FD_BACKING_NONE
						: FD_BACKING_UNKNOWN;
		return;
	}
	d->kind = kind_of(st, d->path);
	d->blksize = (uint32_t)st->st_blksize;
	if (d->kind == FD_BLK)
		d->lbs = fd_logical_block_size(st->st_rdev);
	else if (d->kind == FD_REG || d->kind == FD_DIR)
		d->lbs = fd_logical_block_size(st->st_dev);
	d->backing = backing_of(d->kind, st, fstype);
}

/* The statfs type only where the device number leaves it open. */
static void describe_stat(const char *link, struct fd_desc *d)
{
	struct statfs sf;
	struct stat st;
	bool ok = stat(link, &st) == 0;

	fd_desc_set_stat(d, ok ? &st : NULL,
			 ok && !major(st.st_dev) && statfs(link, &sf) == 0 ?
			 (unsigned long)sf.f_type : 0);
}

/* The target of link (relative to dir) in d->path; 0 or -errno. */
static int read_path_at(int dir, const char *link, struct fd_desc *d)
{
	ssize_t n = readlinkat(dir, link, d->path, sizeof(d->path) - 1);

	if (n < 0)
		return -errno;
	if ((size_t)n == sizeof(d->path) - 1)
		d->truncated = true;
	d->path[n] = '\0';
	return 0;
}

/*
 * pidfds of the last processes whose fds were borrowed, the oldest
 * replaced; fd -1: pidfd_open refused (a thread's tid, no pidfds), so
 * /proc.  A pid reused by another process after its own exited is
 * caught by pidfd_getfd's ESRCH: the entry is opened again.
 */
#define PIDFDS 8
static struct {
	pid_t pid;
	int fd;
} pidfds[PIDFDS];
static unsigned pidfds_next;

static int pidfd_of(pid_t pid, bool again)
{
	unsigned i;

	for (i = 0; i < PIDFDS; i++)
		if (pidfds[i].pid == pid && pidfds[i].pid) {
			if (!again)
				return pidfds[i].fd;
			break;
		}
	if (i == PIDFDS) {
		i = pidfds_next++ % PIDFDS;
		if (pidfds[i].pid && pidfds[i].fd >= 0)
			close(pidfds[i].fd);
	} else if (pidfds[i].fd >= 0) {
		close(pidfds[i].fd);
	}
	pidfds[i].pid = pid;
	pidfds[i].fd = (int)syscall(SYS_pidfd_open, pid, 0);	/* cloexec */
	return pidfds[i].fd;
}

/* A copy of fd of pid's process in iotrace, or -errno. */
static int borrow(pid_t pid, int fd)
{
	int p = pidfd_of(pid, false), g;

	if (p < 0)
		return -ENOSYS;
	g = (int)syscall(SYS_pidfd_getfd, p, fd, 0);
	if (g < 0 && errno == ESRCH && (p = pidfd_of(pid, true)) >= 0)
		g = (int)syscall(SYS_pidfd_getfd, p, fd, 0);
	return g < 0 ? -errno : g;
}

/*
 * iotrace's own /proc/self/fd, opened once (-1: it could not be), so a
 * copy's link is read relative to it, not walked to through /proc and
 * self at each fold: about half the readlink.  Kept for the run, as the
 * pidfds are; close-on-exec, and opened again in a child of iotrace's
 * (getpid() tells).
 */
static int self_fds = -2;
static pid_t self_fds_pid;

/* The copy g's path in d, as read_path_at(); 0 or -errno. */
static int read_copy_path(int g, struct fd_desc *d)
{
	char name[16], *p = name + sizeof(name);
	unsigned v = (unsigned)g;
	pid_t me = getpid();

	/* A child iotrace forked has a table of its own: its own dir. */
	if (self_fds == -2 || self_fds_pid != me) {
		if (self_fds >= 0)
			close(self_fds);
		self_fds = open("/proc/self/fd",
				O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		self_fds_pid = me;
	}
	if (self_fds < 0) {
		char link[64];

		snprintf(link, sizeof(link), "/proc/self/fd/%d", g);
		return read_path_at(AT_FDCWD, link, d);
	}
	*--p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return read_path_at(self_fds, p, d);
}

/* d from the borrowed copy g of the fd. */
static int describe_copy(int g, struct fd_desc *d)
{
	struct statfs sf;
	struct stat st;
	int err, flags;
	bool ok;

	err = read_copy_path(g, d);
	if (err < 0)
		return err;
	flags = fcntl(g, F_GETFL);
	if (flags < 0)
		return -errno;
	d->open_flags = (unsigned)flags;
	ok = fstat(g, &st) == 0;
	fd_desc_set_stat(d, ok ? &st : NULL,
			 ok && !major(st.st_dev) && fstatfs(g, &sf) == 0 ?
			 (unsigned long)sf.f_type : 0);
	return 0;
}

int fd_describe(pid_t tid, int fd, struct fd_desc *d)
{
	char link[64];
	int err, g;

	memset(d, 0, sizeof(*d));
	g = borrow(tid, fd);
	if (g == -EBADF)
		return -ENOENT;
	if (g >= 0) {
		err = describe_copy(g, d);
		close(g);
		return err;
	}
	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, fd);
	err = read_path_at(AT_FDCWD, link, d);
	if (err < 0)
		return err;
	err = read_flags(tid, fd, &d->open_flags);
	if (err < 0)
		return err;
	describe_stat(link, d);
	return 0;
}
