// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim that makes a device fail mid-run: once IOTRACE_EIO_AFTER
 * bytes have been written through write(2) to descriptors 3 and up, the
 * write that would cross the limit is cut short at it and every later one
 * fails with EIO, without reaching the kernel.  Lower descriptors (the
 * terminal, iotrace's report) are left alone.  Counting is per process:
 * a forked child (the workload) starts from zero, whatever its parent
 * (iotrace, which writes its seccomp filter to a memfd) wrote before.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static unsigned long long passed;

static void reset_in_child(void)
{
	passed = 0;
}

/* An atfork handler, not getpid(): the shim adds no syscall of its own. */
__attribute__((constructor)) static void setup(void)
{
	pthread_atfork(NULL, NULL, reset_in_child);
}

ssize_t write(int fd, const void *buf, size_t len)
{
	const char *env = getenv("IOTRACE_EIO_AFTER");
	unsigned long long limit;
	ssize_t n;

	if (!real_write)
		real_write = (ssize_t (*)(int, const void *, size_t))
			dlsym(RTLD_NEXT, "write");
	if (!env || fd < 3)
		return real_write(fd, buf, len);
	limit = strtoull(env, NULL, 10);
	if (passed >= limit) {
		errno = EIO;
		return -1;
	}
	if (len > limit - passed)
		len = (size_t)(limit - passed);
	n = real_write(fd, buf, len);
	if (n > 0)
		passed += (unsigned long long)n;
	return n;
}
