// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim that makes a device fail mid-run: once IOTRACE_EIO_AFTER
 * bytes have been written through write(2) to descriptors 3 and up, the
 * write that would cross the limit is cut short at it and every later one
 * fails with EIO, without reaching the kernel.  Lower descriptors (the
 * terminal, iotrace's report) are left alone.  Counting is per process,
 * so set it for a run whose parent writes nothing to such descriptors.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static ssize_t (*real_write)(int, const void *, size_t);
static unsigned long long passed;

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
