// SPDX-License-Identifier: MIT
/*
 * noseccomp COMMAND [ARGS...]: runs COMMAND under a seccomp filter that
 * refuses seccomp(2) and prctl(PR_SET_SECCOMP) with EPERM and allows the
 * rest, as a container's own policy may: a program inside cannot load a
 * filter of its own.  Calls of another architecture than the helper's are
 * allowed.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define MY_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define MY_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define MY_ARCH AUDIT_ARCH_AARCH64
#else
#error "noseccomp: no AUDIT_ARCH for this architecture"
#endif

#define DATA(field) offsetof(struct seccomp_data, field)
#define DENY (SECCOMP_RET_ERRNO | EPERM)

int main(int argc, char **argv)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MY_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, DENY),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, DATA(args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, DENY),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };

	if (argc < 2)
		return 2;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) < 0) {
		perror("noseccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
