// SPDX-License-Identifier: MIT
/*
 * Makes a fixed set of calls N times (argv[1], default 1), raw, so their
 * counts do not depend on the C library.  Built with -m32
 * (build/helpers32/compat) they are the calls only the i386 personality
 * has: fstat64, stat64, lstat64, fstatat64, _llseek, mmap2, fcntl64,
 * sendfile64, ugetrlimit, waitpid, _newselect, and socket by its own
 * number (not through socketcall); built natively, their 64-bit
 * counterparts.  Plus read and write, so %desc and %io have data calls.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef __i386__
#define NR_FSTAT SYS_fstat64
#define NR_STAT SYS_stat64
#define NR_LSTAT SYS_lstat64
#define NR_FSTATAT SYS_fstatat64
#define NR_FCNTL SYS_fcntl64
#define NR_MMAP SYS_mmap2
#define NR_SENDFILE SYS_sendfile64
#define NR_GETRLIMIT SYS_ugetrlimit
#define NR_SELECT SYS__newselect
#else
#define NR_FSTAT SYS_fstat
#define NR_STAT SYS_stat
#define NR_LSTAT SYS_lstat
#define NR_FSTATAT SYS_newfstatat
#define NR_FCNTL SYS_fcntl
#define NR_MMAP SYS_mmap
#define NR_SENDFILE SYS_sendfile
#define NR_GETRLIMIT SYS_getrlimit
#define NR_SELECT SYS_select
#endif

static char statbuf[256];	/* bigger than any struct stat */

/* i386's _llseek takes the offset in two halves; x86_64's lseek, one. */
static void seek(int fd)
{
#ifdef __i386__
	long long pos;

	syscall(SYS__llseek, fd, 0L, 5L, &pos, SEEK_SET);
#else
	syscall(SYS_lseek, fd, 5L, SEEK_SET);
#endif
}

static void round_of_calls(int fd, int null)
{
	struct rlimit rl;
	struct timeval tv = { 0, 0 };
	char buf[16];
	void *p;
	int s;

	syscall(NR_FSTAT, fd, statbuf);
	syscall(NR_STAT, "/etc/passwd", statbuf);
	syscall(NR_LSTAT, "/etc/passwd", statbuf);
	syscall(NR_FSTATAT, AT_FDCWD, "/etc/passwd", statbuf, 0);
	seek(fd);
	syscall(SYS_read, fd, buf, sizeof(buf));
	syscall(NR_FCNTL, fd, F_GETFL);
	p = (void *)syscall(NR_MMAP, NULL, 4096L, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1L, 0L);
	syscall(SYS_munmap, p, 4096L);
	syscall(NR_SENDFILE, null, fd, NULL, 8L);
	syscall(NR_GETRLIMIT, RLIMIT_NOFILE, &rl);
#ifdef __i386__
	syscall(SYS_waitpid, -1, NULL, WNOHANG);	/* no child: ECHILD */
#else
	syscall(SYS_wait4, -1, NULL, WNOHANG, NULL);
#endif
	syscall(NR_SELECT, 0, NULL, NULL, NULL, &tv);
	s = (int)syscall(SYS_socket, AF_UNIX, SOCK_DGRAM, 0);
	syscall(SYS_close, s);
	syscall(SYS_write, null, "x", 1L);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	int fd = open("/etc/passwd", O_RDONLY);
	int null = open("/dev/null", O_WRONLY);

	if (fd < 0 || null < 0) {
		perror("open");
		return 1;
	}
	while (n-- > 0)
		round_of_calls(fd, null);
	return 0;
}
