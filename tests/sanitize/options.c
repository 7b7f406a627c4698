// SPDX-License-Identifier: MIT
/*
 * Linked into the programs `make check-sanitize` builds (never into
 * ./iotrace): the sanitizers' options that depend on how the process was
 * started.  LeakSanitizer checks for leaks at exit by stopping the
 * process's threads with ptrace from a helper it clones, which fails
 * (a "fatal error", exit 1) in two cases: the process is already traced
 * (iotrace under strace, as tests/t0430 and t0030 run it: a thread has
 * one tracer), or it is set-user-ID or set-group-ID (not dumpable, so its
 * helper may not trace it, as tests/t0050 runs it).  Leak checking is
 * off for those runs only; everywhere else it is on.  Being a tracer
 * itself, as iotrace always is, does not stop it.  Called while the
 * sanitizer starts, before its interceptors work: raw system calls and
 * no string function.  Built without sanitizers.
 */
#include <fcntl.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Whether /proc/self/status names a tracer (TracerPid: not 0). */
static int traced_at_start(void)
{
	static const char key[] = "\nTracerPid:\t";
	char buf[4096];
	long fd, n, i, k = 0;

	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY);
	if (fd < 0)
		return 0;
	n = syscall(SYS_read, fd, buf, sizeof(buf) - 1);
	syscall(SYS_close, fd);
	if (n <= 0)
		return 0;
	for (i = 0; i < n; i++) {
		k = buf[i] == key[k] ? k + 1 : buf[i] == key[0];
		if (k == sizeof(key) - 1)
			return i + 1 < n && buf[i + 1] != '0';
	}
	return 0;
}

const char *__asan_default_options(void);

const char *__asan_default_options(void)
{
	if (getauxval(AT_SECURE) || traced_at_start())
		return "detect_leaks=0";
	return "detect_leaks=1";
}
