/* SPDX-License-Identifier: MIT */
/*
 * What /proc says about traced tasks, for the sink and the engines: which
 * file an fd names (fds.c: the cache of an id per task and fd; fdinfo.c:
 * fd_describe(), from /proc/TID/fd, fdinfo, stat and /sys), a process's
 * mappings (maps.c), a task's own I/O and names at its exit, and the page
 * cache's dirty memory (procinfo.c).  Nothing here is called by a stop
 * loop per stop.
 * tracer.h includes it: an engine's aggregate carries a struct fd_desc.
 */
#ifndef IOTRACE_PROCFD_H
#define IOTRACE_PROCFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct tracer_event;
struct tracer_task_exit;
struct tracer_meminfo;

/*
 * --- what traced fds point at (fds.c, fdinfo.c) ---
 * Not called by the stop loop: the sink uses them, while the task that
 * made the call is still stopped at its exit, so its fds are valid.
 */
enum fd_kind {
	FD_UNKNOWN, FD_REG, FD_BLK, FD_CHR, FD_PIPE, FD_SOCK, FD_ANON,
	FD_DIR, FD_OTHER,
};

/*
 * Whether a block device is behind what an fd names: its I/O can wait
 * for one only then (O_DIRECT on tmpfs is a copy in memory).
 */
enum fd_backing {
	FD_BACKING_UNKNOWN,	/* no stat, or a filesystem not told apart
				   (overlayfs, FUSE, NFS...) */
	FD_BACKING_DEVICE,	/* a block device, or a file on one */
	FD_BACKING_NONE,	/* none: a memory or pseudo filesystem
				   (tmpfs, /dev/shm, proc...), a pipe,
				   socket or character device */
};

struct fd_desc {
	char path[4096];	/* readlink of /proc/TID/fd/N */
	bool truncated;		/* path did not fit */
	enum fd_kind kind;
	unsigned open_flags;	/* O_* from /proc/TID/fdinfo/N */
	uint32_t blksize;	/* st_blksize */
	uint32_t lbs;		/* logical block size of the device; 0: none */
	enum fd_backing backing;
};

/* Describes fd of tid from /proc.  0 or -errno (ENOENT: no such fd). */
int fd_describe(pid_t tid, int fd, struct fd_desc *d);
/*
 * What d->path names, from its stat (NULL: the stat failed) and the
 * f_type of its filesystem's statfs (0: unknown), as fd_describe() sets
 * it: kind, blksize, logical block size, backing.
 */
struct stat;
void fd_desc_set_stat(struct fd_desc *d, const struct stat *st,
		      unsigned long fstype);
/* Logical block size of a block device (or its partition's disk); 0. */
uint32_t fd_logical_block_size(dev_t dev);

/*
 * A bounded cache of an id per (task, fd), kept right by feeding it every
 * event: fds closed, replaced or reused are forgotten, whatever the
 * personality of the call (native_arch is not needed any more).  A cache
 * that does not see every syscall (-e trace= filters out the closes)
 * cannot know when an fd changes, so with sees_all false it never hits
 * and every lookup goes to /proc.
 */
struct fd_cache;
struct fd_cache *fd_cache_new(uint32_t native_arch, bool sees_all);
void fd_cache_free(struct fd_cache *c);
/* The id stored for (tid, fd), or -1. */
int fd_cache_lookup(struct fd_cache *c, pid_t tid, int fd);
void fd_cache_store(struct fd_cache *c, pid_t tid, int fd, int id);
/* Updates the cache for what a completed syscall did to fd tables. */
void fd_cache_event(struct fd_cache *c, const struct tracer_event *ev);
void fd_cache_forget_fd(struct fd_cache *c, int fd);
void fd_cache_forget_tid(struct fd_cache *c, pid_t tid);
/* Every fd of every task: described again at its next lookup. */
void fd_cache_forget_all(struct fd_cache *c);

/*
 * --- a process's mappings, from /proc/PID/maps (maps.c) ---
 * One line's fields; path is the rest of the line ("" for an anonymous
 * mapping, "[vdso]", a file's path, " (deleted)" kept), valid during the
 * call only.
 */
struct proc_map {
	uint64_t start, end, off;
	char perms[5];		/* "r-xp" */
	dev_t dev;
	ino_t ino;
	const char *path;
};
/*
 * fn for each mapping of process pid, in address order, the file read
 * whole first.  fn's non-zero stops the walk: a positive one with 0
 * returned, a negative one returned.  0, or -errno (the file unread).
 */
int proc_maps_each(pid_t pid, int (*fn)(void *ctx, const struct proc_map *m),
		   void *ctx);

/*
 * --- /proc reads for the sink and at exits (procinfo.c) ---
 * Fills x for task tid of tgid (still there: at its exit stop).  Always
 * fills the ids; io_known and the names as /proc allowed.
 */
void tracer_task_exit_read(pid_t tgid, pid_t tid, struct tracer_task_exit *x);
/* The thread's comm into buf ("" when unreadable). */
void tracer_task_comm(pid_t tgid, pid_t tid, char *buf, size_t size);
/* Dirty and Writeback of /proc/meminfo.  0, or -errno (m->known false). */
int tracer_meminfo_read(struct tracer_meminfo *m);

#endif
