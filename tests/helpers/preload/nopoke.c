// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim for iotrace itself: it cannot write a program's memory
 * at all (process_vm_writev and PTRACE_POKEDATA fail with EPERM), so
 * mapping the agent into a program fails after its mmap, and iotrace
 * must take that mapping away again.  Other ptrace requests go through.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

ssize_t process_vm_writev(pid_t pid, const struct iovec *local,
			  unsigned long nlocal, const struct iovec *remote,
			  unsigned long nremote, unsigned long flags)
{
	(void)pid, (void)local, (void)nlocal, (void)remote, (void)nremote;
	(void)flags;
	errno = EPERM;
	return -1;
}

long ptrace(enum __ptrace_request req, ...)
{
	static long (*real)(enum __ptrace_request, pid_t, void *, void *);
	va_list ap;
	pid_t pid;
	void *addr, *data;

	va_start(ap, req);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (req == PTRACE_POKEDATA) {
		errno = EPERM;
		return -1;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "ptrace");
	return real(req, pid, addr, data);
}
