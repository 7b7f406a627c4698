// SPDX-License-Identifier: MIT
/*
 * Tracee: the hot calls that are not read and write, made through libc
 * ROUNDS times in DIR, so a tracer must count each exactly.  Usage:
 * metawalk DIR ROUNDS.  A round, in the order of the list below:
 *   stat, lstat, fstat, fstatat of files there: newfstatat x4, and a
 *     stat of a name that is not there: newfstatat, ENOENT;
 *   statx x1; access x2 (the second ENOENT); faccessat(AT_EACCESS):
 *     faccessat2 x1;
 *   a directory read: openat, newfstatat (opendir's fstat), getdents64
 *     x2 (an empty directory's . and .., then the end), close;
 *   readlink x1, readlinkat x1;
 *   getxattr, lgetxattr, fgetxattr of a name no file has: x1 each,
 *     ENODATA; listxattr, llistxattr, flistxattr: x1 each;
 *   posix_fadvise: fadvise64; readahead; ftruncate; fallocate;
 *     sync_file_range; statfs; fstatfs: x1 each;
 *   on a datagram socketpair, 64 bytes a datagram: send and sendto:
 *     sendto x2, then recv and recvfrom: recvfrom x2; sendmsg, recvmsg.
 * It prints what it saw: "rounds=N bytes=B" and its exit status is 0, or
 * it names the call that went wrong and exits 1.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#define FAIL(what) do { fprintf(stderr, "%s: %s\n", what, strerror(errno)); \
			exit(1); } while (0)
#define MUST(call, what) do { if ((call) < 0) FAIL(what); } while (0)
/* a call that must fail with err */
#define FAILS(call, err, what) do { if ((call) >= 0 || errno != (err)) \
					FAIL(what); } while (0)

static char file[4096], link_[4096], sub[4096], missing[4096];

static long socket_round(const int sv[2])
{
	char buf[64], in[64];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	long got = 0;

	memset(buf, 'x', sizeof(buf));
	MUST(send(sv[0], buf, sizeof(buf), 0), "send");
	MUST(sendto(sv[0], buf, sizeof(buf), 0, NULL, 0), "sendto");
	got += recv(sv[1], in, sizeof(in), 0);
	got += recvfrom(sv[1], in, sizeof(in), 0, NULL, NULL);
	MUST(sendmsg(sv[0], &m, 0), "sendmsg");
	iov.iov_base = in;
	got += recvmsg(sv[1], &m, 0);
	return got;
}

static void walk_round(int dir, int fd)
{
	struct stat st;
	struct statx sx;
	struct statfs sf;
	struct dirent *e;
	char buf[4096];
	DIR *d;

	MUST(stat(file, &st), "stat");
	MUST(lstat(link_, &st), "lstat");
	MUST(fstat(fd, &st), "fstat");
	MUST(fstatat(dir, "file", &st, 0), "fstatat");
	FAILS(stat(missing, &st), ENOENT, "stat of a missing name");
	MUST(statx(AT_FDCWD, file, 0, STATX_BASIC_STATS, &sx), "statx");
	MUST(access(file, R_OK), "access");
	FAILS(access(missing, R_OK), ENOENT, "access of a missing name");
	MUST(faccessat(AT_FDCWD, file, R_OK, AT_EACCESS), "faccessat");
	d = opendir(sub);
	if (!d)
		FAIL("opendir");
	errno = 0;
	while ((e = readdir(d)))
		;
	if (errno)
		FAIL("readdir");
	closedir(d);
	MUST(readlink(link_, buf, sizeof(buf)), "readlink");
	MUST(readlinkat(dir, "link", buf, sizeof(buf)), "readlinkat");
	FAILS(getxattr(file, "user.none", buf, sizeof(buf)), ENODATA,
	      "getxattr");
	FAILS(lgetxattr(file, "user.none", buf, sizeof(buf)), ENODATA,
	      "lgetxattr");
	FAILS(fgetxattr(fd, "user.none", buf, sizeof(buf)), ENODATA,
	      "fgetxattr");
	MUST(listxattr(file, buf, sizeof(buf)), "listxattr");
	MUST(llistxattr(file, buf, sizeof(buf)), "llistxattr");
	MUST(flistxattr(fd, buf, sizeof(buf)), "flistxattr");
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (errno)
		FAIL("posix_fadvise");
	MUST(readahead(fd, 0, 4096), "readahead");
	MUST(ftruncate(fd, 4096), "ftruncate");
	MUST(fallocate(fd, 0, 0, 8192), "fallocate");
	MUST(sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE),
	     "sync_file_range");
	MUST(statfs(file, &sf), "statfs");
	MUST(fstatfs(fd, &sf), "fstatfs");
}

int main(int argc, char **argv)
{
	int dir, fd, sv[2], i, rounds;
	long bytes = 0;

	if (argc != 3)
		return 2;
	rounds = atoi(argv[2]);
	snprintf(file, sizeof(file), "%s/file", argv[1]);
	snprintf(link_, sizeof(link_), "%s/link", argv[1]);
	snprintf(sub, sizeof(sub), "%s/sub", argv[1]);
	snprintf(missing, sizeof(missing), "%s/missing", argv[1]);
	dir = open(argv[1], O_RDONLY | O_DIRECTORY);
	fd = open(file, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (dir < 0 || fd < 0 || (mkdir(sub, 0755) < 0 && errno != EEXIST) ||
	    (symlink("file", link_) < 0 && errno != EEXIST) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0)
		FAIL("setup");
	for (i = 0; i < rounds; i++) {
		walk_round(dir, fd);
		bytes += socket_round(sv);
	}
	printf("rounds=%d bytes=%ld\n", rounds, bytes);
	return 0;
}
