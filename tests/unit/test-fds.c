// SPDX-License-Identifier: MIT
/*
 * The fd cache and fd_describe().  The cache is fed hand-made events and
 * must forget exactly what close, dup2, open, fcntl, execve and fork
 * make stale, in every personality (i386, x32); fd_describe() is run on
 * this test's own fds.
 */
#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <pthread.h>
#include <signal.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tracer/tracer.h"
#include "tap.h"

static struct tracer_event event(const char *name, pid_t tid, int64_t ret,
				 uint64_t a0, uint64_t a1)
{
	struct tracer_event ev = { .tid = tid, .ret = ret };

	ev.arch = seccomp_arch_native();
	ev.nr = syscall_number(name);
	ev.args[0] = a0;
	ev.args[1] = a1;
	return ev;
}

static void feed(struct fd_cache *c, const char *name, pid_t tid,
		 int64_t ret, uint64_t a0, uint64_t a1)
{
	struct tracer_event ev = event(name, tid, ret, a0, a1);

	fd_cache_event(c, &ev);
}

static void test_cache(void)
{
	struct fd_cache *c = fd_cache_new(seccomp_arch_native(), true);
	struct tracer_event ev;

	fd_cache_store(c, 100, 3, 7);
	fd_cache_store(c, 101, 3, 8);
	fd_cache_store(c, 100, 4, 9);
	is_int(fd_cache_lookup(c, 100, 3), 7, "stored id found");
	is_int(fd_cache_lookup(c, 102, 3), -1, "other task: miss");
	feed(c, "write", 100, 10, 3, 0);
	is_int(fd_cache_lookup(c, 100, 3), 7, "a write changes nothing");
	feed(c, "close", 101, 0, 3, 0);
	is_int(fd_cache_lookup(c, 100, 3), -1, "close forgets fd 3 everywhere");
	is_int(fd_cache_lookup(c, 100, 4), 9, "but not fd 4");
	fd_cache_store(c, 100, 3, 7);
	feed(c, "dup2", 100, 3, 5, 3);
	is_int(fd_cache_lookup(c, 100, 3), -1, "dup2 onto 3 forgets 3");
	fd_cache_store(c, 100, 3, 7);
	feed(c, "openat", 100, 4, (uint64_t)AT_FDCWD, 0);
	is_int(fd_cache_lookup(c, 100, 4), -1, "openat returning 4");
	is_int(fd_cache_lookup(c, 100, 3), 7, "keeps 3");
	feed(c, "openat", 100, -2, (uint64_t)AT_FDCWD, 0);
	is_int(fd_cache_lookup(c, 100, 3), 7, "failed openat: no change");
	feed(c, "fcntl", 100, 3, 1, F_GETFL);
	is_int(fd_cache_lookup(c, 100, 3), 7, "F_GETFL changes nothing");
	feed(c, "fcntl", 100, 0, 3, F_SETFL);
	is_int(fd_cache_lookup(c, 100, 3), -1, "F_SETFL re-reads flags");
	fd_cache_store(c, 100, 3, 7);
	feed(c, "fcntl", 100, 3, 1, F_DUPFD);
	is_int(fd_cache_lookup(c, 100, 3), -1, "F_DUPFD returning 3");
	fd_cache_store(c, 100, 3, 7);
	fd_cache_store(c, 100, 2000, 1);
	feed(c, "close_range", 100, 0, 3, ~0u);
	is_int(fd_cache_lookup(c, 100, 3), -1, "close_range to the end");
	is_int(fd_cache_lookup(c, 100, 2000), -1, "even past the gens");
	fd_cache_store(c, 100, 3, 7);
	fd_cache_store(c, 200, 3, 8);
	feed(c, "execve", 100, 0, 0, 0);
	is_int(fd_cache_lookup(c, 100, 3), -1, "execve forgets the task");
	is_int(fd_cache_lookup(c, 200, 3), 8, "and only that task");
	feed(c, "clone", 1, 200, 0, 0);
	is_int(fd_cache_lookup(c, 200, 3), -1, "a new child with an old tid");
	fd_cache_free(c);

	c = fd_cache_new(seccomp_arch_native(), true);
	ev = event("close", 1, 0, 3, 0);
	ev.flags = EVF_COUNT_ONLY;
	fd_cache_store(c, 1, 3, 7);
	fd_cache_store(c, 1, 4, 8);
	fd_cache_event(c, &ev);
	is_int(fd_cache_lookup(c, 1, 3), -1, "count-only close forgets its fd");
	is_int(fd_cache_lookup(c, 1, 4), 8, "and only it");
	ev = event("openat", 1, 0, 0, 0);
	ev.flags = EVF_COUNT_ONLY;
	fd_cache_event(c, &ev);
	is_int(fd_cache_lookup(c, 1, 4), -1, "count-only openat forgets all");
	fd_cache_store(c, 1, 4, 8);
	is_int(fd_cache_lookup(c, 1, 4), 8, "and stored anew");
	fd_cache_free(c);

	c = fd_cache_new(seccomp_arch_native(), false);
	fd_cache_store(c, 100, 3, 7);
	is_int(fd_cache_lookup(c, 100, 3), -1, "a filtered cache never hits");
	fd_cache_free(c);
}

/* The same facts in every personality: i386's and x32's numbers. */
static void test_personalities(void)
{
	struct fd_cache *c = fd_cache_new(seccomp_arch_native(), true);
	struct tracer_event ev = { .tid = 100, .arch = AUDIT_ARCH_I386 };

	fd_cache_store(c, 100, 3, 7);
	ev.nr = 6;			/* i386 close */
	ev.args[0] = 3;
	fd_cache_event(c, &ev);
	is_int(fd_cache_lookup(c, 100, 3), -1, "i386 close (6) forgets 3");
	fd_cache_store(c, 100, 3, 7);
	ev.nr = 221;			/* i386 fcntl64 */
	ev.args[0] = 1;
	ev.args[1] = F_DUPFD;
	ev.ret = 3;
	fd_cache_event(c, &ev);
	is_int(fd_cache_lookup(c, 100, 3), -1, "i386 fcntl64 F_DUPFD to 3");
	fd_cache_store(c, 100, 3, 7);
	ev.nr = 5;			/* i386 open; x86_64's fstat */
	ev.ret = 4;
	fd_cache_event(c, &ev);
	is_int(fd_cache_lookup(c, 100, 3), 7, "i386 open returning 4: 3 kept");
	ev.arch = AUDIT_ARCH_X86_64;
	ev.nr = 0x40000000 | 3;		/* x32 close */
	ev.args[0] = 3;
	ev.ret = 0;
	fd_cache_event(c, &ev);
	is_int(fd_cache_lookup(c, 100, 3), -1, "x32 close forgets 3");
	fd_cache_free(c);
}

static void test_evict(void)
{
	struct fd_cache *c = fd_cache_new(seccomp_arch_native(), true);
	int fd, hits = 0;

	for (fd = 0; fd < 10000; fd++)
		fd_cache_store(c, 1, fd, fd);
	for (fd = 0; fd < 10000; fd++)
		hits += fd_cache_lookup(c, 1, fd) == fd;
	ok(hits > 0 && hits <= 4096, "bounded: %d of 10000 kept", hits);
	fd_cache_free(c);
}

static void test_describe(void)
{
	char path[] = "/tmp/iotrace-fds-XXXXXX";
	struct fd_desc d;
	int fd = mkstemp(path), fds[2];

	ok(fd >= 0, "temporary file");
	close(fd);
	fd = open(path, O_WRONLY | O_APPEND);
	is_int(fd_describe(getpid(), fd, &d), 0, "describes a file");
	is_str(d.path, path, "its path");
	is_int(d.kind, FD_REG, "a regular file");
	ok(d.open_flags & O_APPEND, "O_APPEND seen in fdinfo");
	ok(!(d.open_flags & O_DIRECT), "no O_DIRECT");
	ok(d.blksize >= 512, "st_blksize %u", d.blksize);
	close(fd);
	unlink(path);
	ok(pipe(fds) == 0, "pipe");
	is_int(fd_describe(getpid(), fds[1], &d), 0, "describes a pipe");
	ok(!strncmp(d.path, "pipe:[", 6), "pipe path %s", d.path);
	is_int(d.kind, FD_PIPE, "kind pipe");
	is_int(d.lbs, 0, "no block device");
	close(fds[0]);
	close(fds[1]);
	ok(fd_describe(getpid(), fds[1], &d) < 0, "closed fd: an error");
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	fd_describe(getpid(), fd, &d);
	is_int(d.kind, FD_SOCK, "socket %s", d.path);
	close(fd);
}

/*
 * This process's open fds; how many fd_describe() keeps (its pidfds and
 * its /proc/self/fd) in *kept.
 */
static int own_fds(int *kept)
{
	char link[300], to[64], self[64];
	struct dirent *e;
	DIR *dir = opendir("/proc/self/fd");
	ssize_t n;
	int count = 0;

	snprintf(self, sizeof(self), "/proc/%d/fd", (int)getpid());
	*kept = 0;
	while (dir && (e = readdir(dir))) {
		if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(dir))
			continue;
		count++;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, to, sizeof(to) - 1);
		to[n > 0 ? n : 0] = '\0';
		*kept += !strcmp(to, "anon_inode:[pidfd]") || !strcmp(to, self);
	}
	if (dir)
		closedir(dir);
	return count;
}

static pid_t thread_tid;
static int thread_go;

static void *idle_thread(void *arg)
{
	(void)arg;
	__atomic_store_n(&thread_tid, gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&thread_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

/*
 * Two ways to one answer: the process's leader's fd is borrowed
 * (pidfd_getfd) and asked through the copy, another thread's tid (no
 * pidfd for it) read from /proc/TID; the flags alike but O_CLOEXEC,
 * which fdinfo adds from the fd table.  The copies are closed, and the
 * pidfds kept stay a few however many processes are asked.
 */
static void test_describe_ways(void)
{
	char path[] = "/tmp/iotrace-fds-XXXXXX", gone[] = "/tmp/iotrace-fds-XXXXXX";
	int fds[6], pipefd[2], before, after, kept, i, k, status, same;
	const char *what[6] = { "O_APPEND|O_DSYNC file", "pipe", "socket",
				"/dev/null", "deleted file", "O_DIRECT file" };
	struct fd_desc a, b;
	char pipe_path[sizeof(a.path)];
	pthread_t th;
	pid_t kids[12];

	close(mkstemp(path));
	fds[0] = open(path, O_WRONLY | O_APPEND | O_DSYNC);
	ok(pipe(pipefd) == 0, "pipe");
	fds[1] = pipefd[0];
	fds[2] = socket(AF_UNIX, SOCK_DGRAM, 0);
	fds[3] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fds[4] = mkstemp(gone);
	unlink(gone);
	fds[5] = open(path, O_RDONLY | O_DIRECT);
	ok(pthread_create(&th, NULL, idle_thread, NULL) == 0, "a thread");
	while (!__atomic_load_n(&thread_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	before = own_fds(&kept);
	before -= kept;
	for (i = 0; i < 6; i++) {
		if (fds[i] < 0) {
			ok(1, "# SKIP %s: cannot open it here", what[i]);
			continue;
		}
		is_int(fd_describe(getpid(), fds[i], &a), 0, "%s: borrowed",
		       what[i]);
		is_int(fd_describe(thread_tid, fds[i], &b), 0,
		       "%s: from /proc", what[i]);
		same = !strcmp(a.path, b.path) && a.kind == b.kind &&
		       (a.open_flags & ~O_CLOEXEC) ==
		       (b.open_flags & ~O_CLOEXEC) &&
		       a.blksize == b.blksize && a.lbs == b.lbs &&
		       a.backing == b.backing && a.truncated == b.truncated;
		ok(same, "%s: the same (%s, flags %o / %o)", what[i], a.path,
		   a.open_flags, b.open_flags);
	}
	if (fds[0] >= 0)
		fd_describe(getpid(), fds[0], &a);
	ok(fds[0] < 0 || (a.open_flags & (O_APPEND | O_DSYNC)) ==
	   (O_APPEND | O_DSYNC), "O_APPEND and O_DSYNC seen");
	for (i = 0; i < 100; i++)
		fd_describe(getpid(), fds[1], &a);
	snprintf(pipe_path, sizeof(pipe_path), "%s", a.path);
	after = own_fds(&kept);
	ok(kept == 2, "the borrowed way was taken: %d kept (a pidfd and "
	   "/proc/self/fd)", kept);
	is_int(after - kept, before, "no copy left open after 106: "
	       "%d fds but those kept, as before", after - kept);
	/* Twelve children, more than the pidfds kept: at most 8. */
	for (k = 0; k < 12; k++) {
		kids[k] = fork();
		if (kids[k] == 0) {
			pause();
			_exit(0);
		}
		ok(kids[k] > 0 && fd_describe(kids[k], fds[1], &a) == 0 &&
		   !strcmp(a.path, pipe_path),
		   "child %d's inherited pipe described: %s", k, a.path);
	}
	after = own_fds(&kept);
	ok(kept <= 8 + 1, "%d kept for 13 processes: at most 8 pidfds "
	   "and /proc/self/fd", kept);
	kill(kids[0], SIGKILL);
	waitpid(kids[0], &status, 0);
	ok(fd_describe(kids[0], fds[1], &a) < 0, "a process gone: an error");
	for (k = 1; k < 12; k++) {
		kill(kids[k], SIGKILL);
		waitpid(kids[k], &status, 0);
	}
	__atomic_store_n(&thread_go, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	for (i = 0; i < 6; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	close(pipefd[1]);
	unlink(path);
}

/*
 * A child of a process that described fds before it forked describes
 * its own: the link of its borrowed copy is read in its own fd table,
 * not in the one its parent kept open (/proc/self/fd resolves to the
 * process that opened it).  The child opens a file its parent never
 * had, at an fd the parent has as something else.
 */
static void test_describe_forked(void)
{
	char path[] = "/tmp/iotrace-fds-XXXXXX";
	int fds[2], fd, status = -1, same = 0;
	struct fd_desc d;
	pid_t kid;

	close(mkstemp(path));
	ok(pipe(fds) == 0, "pipe");
	is_int(fd_describe(getpid(), fds[0], &d), 0, "the parent describes");
	kid = fork();
	if (kid == 0) {
		/* The parent's pipe fd, in the child this file; the child's
		   copy of it lands where the parent has its pipe's other end. */
		close(fds[0]);
		fd = open(path, O_RDONLY);
		if (fd != fds[0])
			_exit(3);
		_exit(fd_describe(getpid(), fd, &d) ? 2 :
		      strcmp(d.path, path) ? 1 : 0);
	}
	ok(kid > 0 && waitpid(kid, &status, 0) == kid, "the child ran");
	is_int(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0,
	       "the child described its own file (1: another path, 2: an "
	       "error, 3: no fd to test)");
	same = fd_describe(getpid(), fds[0], &d) == 0 &&
	       !strncmp(d.path, "pipe:[", 6);
	ok(same, "the parent's pipe still described: %s", d.path);
	close(fds[0]);
	close(fds[1]);
	unlink(path);
}

/* The backing a stat of mode on device dev, of filesystem fstype, gives. */
static enum fd_backing backing(mode_t mode, dev_t dev, unsigned long fstype)
{
	struct stat st = { .st_mode = mode, .st_dev = dev, .st_blksize = 4096 };
	struct fd_desc d = { .path = "/x" };

	fd_desc_set_stat(&d, &st, fstype);
	return d.backing;
}

/*
 * Whether a block device is behind a file: a device number of major 0
 * is an anonymous one, and only the filesystem's type then tells.
 */
static void test_backing(void)
{
	struct fd_desc d = { .path = "/x" };
	char path[] = "/dev/shm/iotrace-fds-XXXXXX";
	struct statfs sf;
	int fd;

	is_int(backing(S_IFREG, makedev(254, 1), 0), FD_BACKING_DEVICE,
	       "a file on a block device (ext4 on /dev/vda1)");
	is_int(backing(S_IFBLK, 0, 0), FD_BACKING_DEVICE, "a block device");
	is_int(backing(S_IFREG, makedev(0, 45), TMPFS_MAGIC), FD_BACKING_NONE,
	       "a file on tmpfs: none");
	is_int(backing(S_IFDIR, makedev(0, 22), PROC_SUPER_MAGIC),
	       FD_BACKING_NONE, "a directory of /proc: none");
	is_int(backing(S_IFREG, makedev(0, 50), BTRFS_SUPER_MAGIC),
	       FD_BACKING_DEVICE, "btrfs: anonymous numbers, on a device");
	is_int(backing(S_IFREG, makedev(0, 60), 0x794c7630),
	       FD_BACKING_UNKNOWN, "overlayfs: not known");
	is_int(backing(S_IFREG, makedev(0, 60), 0), FD_BACKING_UNKNOWN,
	       "no filesystem type: not known");
	is_int(backing(S_IFCHR, makedev(0, 5), TMPFS_MAGIC), FD_BACKING_NONE,
	       "a character device (/dev/zero): none");
	is_int(backing(S_IFIFO, makedev(0, 14), 0), FD_BACKING_NONE,
	       "a pipe: none");
	fd_desc_set_stat(&d, NULL, 0);
	is_int(d.backing, FD_BACKING_UNKNOWN, "no stat: not known");
	fd = mkstemp(path);
	if (fd < 0 || fstatfs(fd, &sf) < 0 || sf.f_type != TMPFS_MAGIC) {
		ok(1, "# SKIP /dev/shm is not tmpfs here");
	} else {
		fd_describe(getpid(), fd, &d);
		is_int(d.backing, FD_BACKING_NONE, "%s: none behind it", path);
	}
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

/* The logical block size /sys says for dev (or its disk), 0: none. */
static unsigned sys_lbs(dev_t dev)
{
	char path[96];
	unsigned v = 0;
	FILE *f;
	int up;

	for (up = 0; up < 2 && !v; up++) {
		snprintf(path, sizeof(path),
			 "/sys/dev/block/%u:%u/%squeue/logical_block_size",
			 major(dev), minor(dev), up ? "../" : "");
		f = fopen(path, "re");
		if (f && fscanf(f, "%u", &v) != 1)
			v = 0;
		if (f)
			fclose(f);
	}
	return v;
}

/* Each device's block size is read once and kept: the same answers as
 * /sys's, before and after more devices than it keeps pushed it out. */
static void test_lbs(void)
{
	struct stat st;
	unsigned want, i, none = 0;

	if (stat("/", &st) < 0) {
		ok(0, "stat /");
		return;
	}
	want = sys_lbs(st.st_dev);
	is_int(fd_logical_block_size(st.st_dev), want,
	       "/'s device: %u bytes, as /sys says", want);
	is_int(fd_logical_block_size(st.st_dev), want, "asked again: the same");
	for (i = 1; i <= 12; i++)
		none += fd_logical_block_size(makedev(0, 1000 + i)) != 0;
	is_int(none, 0, "12 anonymous devices: no block size");
	is_int(fd_logical_block_size(st.st_dev), want,
	       "/'s device after them: still %u", want);
}

int main(void)
{
	test_cache();
	if (seccomp_arch_native() == SCMP_ARCH_X86_64)
		test_personalities();
	test_evict();
	test_describe();
	test_describe_ways();
	test_describe_forked();
	test_backing();
	test_lbs();
	return done_testing();
}
