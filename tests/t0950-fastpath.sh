#!/bin/sh
# SPDX-License-Identifier: MIT
# Guards for the fast path (issue 21, docs/fastpath.md): what must hold
# whichever way the default engine counts the hot calls (read, write and
# their kin, the I/O's steering, a tree walk's stat and getdents:
# syscalls/systab.c's SF_HOT), by ptrace stops or by trampolines at
# libc's call sites.
# The program behaves as untraced (output, exit status) and each
# syscall's calls and errors equal strace -f -c's (untouched, lib.sh),
# for calls libc does not make at its own sites (a raw syscall
# instruction, syscall(3), code loaded by dlopen), calls interrupted by
# signals (EINTR, pthread_cancel, its cleanups run by unwinding as C++
# destructors are), threads writing at once, children
# made by vfork and posix_spawn, exec chains, and i386 programs.  A
# program reading its own libc's text never changes the file.  Not here,
# being covered the same way elsewhere: reads left by siglongjmp and
# reads made again (SA_RESTART), t0064; fds, affinity, environment and
# signal state before any hot call, t0060 and t0062.
. "$(dirname "$0")/lib.sh"

# Each case is a function of the program(s) and the row suffix ("" for
# x86_64, /i386), run once per personality.

# 8 threads write 20000 bytes each, 1 byte a write(2), to one file
# through one fd: every write counted, no byte lost (the kernel's file
# position lock makes the size exact).  The joins' futex calls are
# timing's.
threads_case() {
	unsteady="futex$2" untouched untraced "$1" out 20000 1 8 &&
	echo "exit 0" >expect && test_cmp expect got &&
	grep -qx "write$2 160000 0" t.counts &&
	test "$(stat -c %s out)" = 160000
}

# N writes by the program's own syscall instruction, N by syscall(3).
raw_case() {
	untouched untraced "$1" 1000 &&
	printf "raw=1000 syscall=1000\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -qx "write$2 2001 0" t.counts
}

# A periodic SIGALRM, no SA_RESTART: the program sees 20 EINTRs, and
# read's errors are 20, as strace's.  rt_sigreturn (sigreturn on i386)
# is one per signal: timing's.
eintr_case() {
	unsteady="rt_sigreturn$2|sigreturn$2" untouched untraced "$1" 20 &&
	printf "eintr=20 other=0 read=1\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -q "^read$2 [0-9]* 20$" t.counts &&
	grep -qx "setitimer$2 2 0" t.counts
}

# A thread blocked in read, cancelled, 10 times: each joined with
# PTHREAD_CANCELED after its cleanup handler ran; each cancelled read
# one call and one error.  The main thread's polling and the joins are
# timing's.
cancel_case() {
	unsteady="futex$2|pread64$2|sched_yield$2" \
		untouched untraced "$1" 10 &&
	printf "cancelled=10 cleanups=10\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -q "^read$2 [0-9]* 10$" t.counts &&
	grep -qx "tgkill$2 10 0" t.counts
}

# The same with cleanups only unwinding runs (-fexceptions: as C++
# destructors), the thread in read (glibc's xor shape) or in write to a
# full pipe (the mov shape): the unwinder starts where the call was
# interrupted, so that place must be the program's code, not a stub of
# the fast path's.  The writes: the pipe filled (64 KiB, then EAGAIN),
# 10 cancelled, the line printed.
eh_case() {
	unsteady="futex$2|pread64$2|sched_yield$2" \
		untouched untraced "$1" 10 $3 &&
	printf "cancelled=10 cleanups=10\nexit 0\n" >expect &&
	test_cmp expect got &&
	if test -n "$3"; then
		grep -qx "write$2 13 11" t.counts
	else
		grep -q "^read$2 [0-9]* 10$" t.counts
	fi
}

# The execve calls in t.counts, both personalities' (iotrace's, as
# strace's, first execve of an i386 program is the 64-bit one).
execs() {
	awk '$1 ~ /^execve(\/i386)?$/ { c += $2 } END { print c + 0 }' t.counts
}

# A child that writes 500 times, made by vfork + execve, then by
# posix_spawn; and a program that execs itself 5 times, writing 100
# times each time.
spawn_case() {
	for how in vfork spawn; do
		untouched untraced "$1" $how 500 &&
		printf "wrote 500\nexit 0\n" >expect &&
		test_cmp expect got &&
		grep -qx "write$2 501 0" t.counts &&
		test "$(execs)" = 2 || return 1
	done &&
	untouched untraced "$1" chain 100 5 &&
	printf "chain %d\n" 5 4 3 2 1 0 >expect && echo "exit 0" >>expect &&
	test_cmp expect got &&
	grep -qx "write$2 606 0" t.counts &&
	test "$(execs)" = 6
}

# Two threads writing while the main thread dlopens a library and calls
# its libc write()s and its own syscall sites, 1000 each.
dlopen_case() {
	unsteady="futex$3" untouched untraced "$1" "$2" 1000 &&
	printf "libc=1000 raw=1000 threads=2000\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -qx "write$3 4001 0" t.counts
}

# What a program sees of itself after every hot call: run by sh with its
# stdout and stderr on a file of the same name in every run (o), which
# sh then prints.
view_case() {
	unsteady="futex$2|rt_sigreturn$2" untouched untraced \
		sh -c '"$1" >o 2>&1; s=$?; cat o; exit $s' sh "$1" &&
	grep -qx "calls=ok" got &&
	grep -qx "blocked: 1 12" got &&
	grep -qx "handler blocked: 1 10 12 15" got
}

# The program compares its libc's text in memory with the file: the
# file's sha256 is the same before and after the run under iotrace;
# what the program saw there is kept in libctext.ARCH (an identity is
# not asserted: rewritten call sites make them differ).
libctext_case() {
	"$1" >untraced.out &&
	lib=$(sed -n "s/^libc=//p" untraced.out) &&
	test -n "$lib" && grep -qx "text=identical" untraced.out &&
	sha256sum "$lib" >before &&
	"$IOTRACE" -o t -- "$1" >traced.out &&
	sha256sum "$lib" >after &&
	test_cmp before after &&
	grep -qx "libc=$lib" traced.out &&
	grep -qE "^text=(identical|differs bytes=[0-9]+)$" traced.out &&
	cp traced.out "$TRASH/libctext.$2"
}

# libctext_note ARCH: what the program printed under iotrace, as a TAP
# comment.
libctext_note() {
	test -f "$TRASH/libctext.$1" &&
	echo "# $1 libc text under iotrace: $(sed -n "s/^text=//p" \
		"$TRASH/libctext.$1")"
}

test_expect_success PTRACE,STRACE '8 threads x 20000 1-byte writes: exact' '
	threads_case "$HELPERS/writeloop" ""
'
test_expect_success PTRACE,STRACE 'raw syscall instruction, syscall(3): counted' '
	raw_case "$HELPERS/rawcalls" ""
'
test_expect_success PTRACE,STRACE 'EINTR without SA_RESTART: seen, counted' '
	eintr_case "$HELPERS/readintr" ""
'
test_expect_success PTRACE,STRACE 'pthread_cancel of a thread in read' '
	cancel_case "$HELPERS/cancelread" ""
'
test_expect_success PTRACE,STRACE 'vfork + exec, posix_spawn, an exec chain' '
	spawn_case "$HELPERS/children" ""
'
test_expect_success PTRACE,STRACE 'pthread_cancel in read: cleanups unwound' '
	eh_case "$HELPERS/cancelread-eh" "" ""
'
test_expect_success PTRACE,STRACE 'pthread_cancel in write: cleanups unwound' '
	eh_case "$HELPERS/cancelread-eh" "" write
'
test_expect_success PTRACE,STRACE 'dlopen after threads: libc and own sites' '
	dlopen_case "$HELPERS/dlwrite" "$HELPERS/libhotwrite.so" ""
'
test_expect_success PTRACE,STRACE 'after hot calls: fds, masks, env as untraced' '
	view_case "$HELPERS/hotview" ""
'
# A program that changed one of libc's sites before its hot calls: that
# site is not what the file has there, so it is not rewritten, and its
# calls stop and count as strace counts them.
test_expect_success PTRACE,STRACE 'a site not as in the file: left on stops, counted' '
	untouched untraced "$HELPERS/textchanged" 1000 &&
	grep -qx "changed=1 writes=1000" got &&
	grep -qx "write 1001 0" t.counts &&
	grep -q "; 1 hot site left on ptrace stops (no room, out of reach or not as in the file)" t
'
test_expect_success PTRACE 'reading its libc text: the file unchanged' '
	libctext_case "$HELPERS/libctext" x86_64
'
libctext_note x86_64

test_expect_success PTRACE,STRACE,M32 'i386: 8 threads x 20000 writes: exact' '
	threads_case "$HELPERS32/writeloop" /i386
'
test_expect_success PTRACE,STRACE,M32 'i386: int $0x80, syscall(3): counted' '
	raw_case "$HELPERS32/rawcalls" /i386
'
test_expect_success PTRACE,STRACE,M32 'i386: EINTR without SA_RESTART' '
	eintr_case "$HELPERS32/readintr" /i386
'
test_expect_success PTRACE,STRACE,M32 'i386: pthread_cancel of a thread in read' '
	cancel_case "$HELPERS32/cancelread" /i386
'
test_expect_success PTRACE,STRACE,M32 'i386: vfork, posix_spawn, exec chain' '
	spawn_case "$HELPERS32/children" /i386
'
test_expect_success PTRACE,STRACE,M32 'i386: dlopen after threads' '
	dlopen_case "$HELPERS32/dlwrite" "$HELPERS32/libhotwrite.so" /i386
'
test_expect_success PTRACE,STRACE,M32 'i386: after hot calls, as untraced' '
	view_case "$HELPERS32/hotview" /i386
'
test_expect_success PTRACE,M32 'i386: reading its libc text: file unchanged' '
	libctext_case "$HELPERS32/libctext" i386
'
libctext_note i386

test_done
