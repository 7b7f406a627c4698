#!/bin/sh
# SPDX-License-Identifier: MIT
# Children are followed by default: forks, vforks and threads, with exact
# counts; --no-follow traces the first process only.
. "$(dirname "$0")/lib.sh"

# count NAME: the calls column of row NAME in table t (0 when absent).
count() {
	table_counts t | awk -v n="$1" '$1 == n { c = $2 } END { print c + 0 }'
}

# The fork of glibc is clone(2) on most arches, fork(2) on a few.
forks() {
	echo $(($(count clone) + $(count clone3) + $(count fork) + \
		$(count vfork)))
}

# made_counts (lib.sh): the tables of two runs that fork, less what
# timing decides (rt_sigreturn, forks made again after a signal).
test_expect_success PTRACE '200 children: exact fork, getppid, wait4' '
	"$IOTRACE" -o t -- "$HELPERS/forker" 200 &&
	test "$(forks)" = 200 &&
	test "$(count getppid)" = 200 &&
	test "$(count wait4)" = 200 &&
	test "$(count execve)" = 1 &&
	! table_counts t | grep -q exit
'

test_expect_success PTRACE,STRACE '200 children: counts equal strace -f -c' '
	strace -f -c -o s "$HELPERS/forker" 200 &&
	"$IOTRACE" -o t -- "$HELPERS/forker" 200 &&
	table_counts s >want && table_counts t >got &&
	test_cmp want got
'

test_expect_success PTRACE 'threads: N*K writes exactly' '
	"$IOTRACE" -o t -- "$HELPERS/threads" 8 500 &&
	test "$(count write)" = 4000 &&
	test "$(forks)" = 8
'

# futex calls depend on whether a thread still runs when it is joined,
# so only the rows the helper's code fixes are compared.
test_expect_success PTRACE,STRACE 'threads: deterministic rows equal strace' '
	strace -f -c -o s "$HELPERS/threads" 4 100 &&
	"$IOTRACE" -o t -- "$HELPERS/threads" 4 100 &&
	table_counts s | grep -v "^futex " >want &&
	table_counts t | grep -v "^futex " >got &&
	test_cmp want got
'

test_expect_success PTRACE,STRACE 'vfork children are followed like strace' '
	cmd="echo x | cat >/dev/null; env true" &&
	strace -f -c -o s sh -c "$cmd" &&
	"$IOTRACE" -o t -- sh -c "$cmd" &&
	test "$(count vfork)" = 1 &&
	made_counts s >want && made_counts t >got &&
	test_cmp want got
'

test_expect_success PTRACE,STRACE 'grandchildren are followed like strace' '
	cmd="sh -c \"sh -c \\\"$HELPERS/forker 3\\\"\"" &&
	strace -f -c -o s sh -c "$cmd" &&
	"$IOTRACE" -o t -- sh -c "$cmd" &&
	made_counts s >want && made_counts t >got &&
	test_cmp want got &&
	test "$(count getppid)" -ge 3
'

test_expect_success PTRACE '--no-follow traces the first process only' '
	"$IOTRACE" --no-follow -o t -- "$HELPERS/forker" 20 &&
	test "$(forks)" = 20 &&
	test "$(count wait4)" = 20 &&
	test "$(count getppid)" = 0
'

test_expect_success PTRACE '--no-follow: children of sh not traced' '
	"$IOTRACE" --no-follow -o t -- sh -c "/bin/true; /bin/true; true" &&
	test "$(count execve)" = 1
'

test_expect_success PTRACE '-f is accepted and follows' '
	"$IOTRACE" -f -o t -- "$HELPERS/forker" 5 &&
	test "$(count getppid)" = 5
'

# execve in a non-leader thread: the leader's tid takes over.
test_expect_success PTRACE 'exec from a thread other than the leader' '
	"$IOTRACE" -o t -- "$HELPERS/threxec" "$HELPERS/forker" 7 &&
	test "$(count getppid)" = 7 &&
	test "$(count execve)" = 2 &&
	grep -q "^iotrace: threxec exited 0 " t
'

# Whether the leader's rt_sigprocmask after its clone comes before the
# thread's execve ends it is a race untraced too.
test_expect_success PTRACE,STRACE 'exec from a thread: counts equal strace' '
	strace -f -c -o s "$HELPERS/threxec" "$HELPERS/forker" 7 &&
	"$IOTRACE" -o t -- "$HELPERS/threxec" "$HELPERS/forker" 7 &&
	table_counts s | grep -v "^futex \|^rt_sigprocmask " >want &&
	table_counts t | grep -v "^futex \|^rt_sigprocmask " >got &&
	test_cmp want got
'

test_done
