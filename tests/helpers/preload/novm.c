// SPDX-License-Identifier: MIT
/*
 * LD_PRELOAD shim for iotrace itself: process_vm_readv and
 * process_vm_writev fail with EPERM, as under a container's seccomp
 * profile that refuses them, so iotrace must reach a program's memory
 * with ptrace alone.  Programs that get the shim too (it is in their
 * environment) never make these calls.
 */
#include <errno.h>
#include <sys/uio.h>

static ssize_t refused(void)
{
	errno = EPERM;
	return -1;
}

ssize_t process_vm_readv(pid_t pid, const struct iovec *local,
			 unsigned long nlocal, const struct iovec *remote,
			 unsigned long nremote, unsigned long flags)
{
	(void)pid, (void)local, (void)nlocal, (void)remote, (void)nremote;
	(void)flags;
	return refused();
}

ssize_t process_vm_writev(pid_t pid, const struct iovec *local,
			  unsigned long nlocal, const struct iovec *remote,
			  unsigned long nremote, unsigned long flags)
{
	(void)pid, (void)local, (void)nlocal, (void)remote, (void)nremote;
	(void)flags;
	return refused();
}
