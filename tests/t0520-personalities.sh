#!/bin/sh
# SPDX-License-Identifier: MIT
# Every personality is traced alike: an i386 program (gcc -m32) is counted
# the same by both engines and as strace -f -c counts it, i386-only calls
# (fstat64, _llseek, mmap2 ...) and classes included, its rows apart from
# x86_64's ("fstat64/i386"); its CPU mask is its own; calls outside the
# syscall tables obey -e trace= on both engines; x32 calls are counted on
# both engines.  This kernel may lack x32 (CONFIG_X86_X32_ABI): then the
# x32 calls come from a 64-bit program, which the kernel answers ENOSYS.
. "$(dirname "$0")/lib.sh"

# both_engines ARGS...: seccomp-bpf and ptrace tables agree (in a, b):
# the ptrace engine's two paths (the default is auto).
both_engines() {
	"$IOTRACE" -v --engine=ptrace -o seccomp.txt "$@" >/dev/null 2>&1
	"$IOTRACE" -v --engine=ptrace -o ptrace.txt --no-seccomp "$@" \
		>/dev/null 2>&1
	grep -q "engine seccomp-bpf" seccomp.txt &&
	grep -q "engine ptrace" ptrace.txt &&
	table_counts seccomp.txt >a &&
	table_counts ptrace.txt >b &&
	test_cmp a b
}

# like_strace ARGS... -- CMD: both engines, and strace -f -c, agree on
# every call strace names (it leaves numbers without a name out).
like_strace() {
	opts=
	while [ "$1" != -- ]; do
		opts="$opts $1"
		shift
	done
	shift
	both_engines $opts -- "$@" &&
	strace -f -c -o s.txt $opts "$@" >/dev/null 2>&1 &&
	table_counts s.txt >want &&
	grep -v "^syscall_" a >got &&
	test_cmp want got
}

test_expect_success PTRACE,STRACE,M32 'i386 program: both engines count as strace does' '
	like_strace -- "$HELPERS32/compat" 3 &&
	grep "^fstat64/i386 3 0$" a &&
	grep "^_llseek/i386 3 0$" a &&
	grep "^mmap2/i386 " a &&
	grep "^sendfile64/i386 3 0$" a &&
	grep "^waitpid/i386 3 3$" a &&
	grep "^execve 1 0$" a
'

test_expect_success PTRACE,STRACE,M32 '-e trace=fstat64: the same on both engines' '
	like_strace -e trace=fstat64 -- "$HELPERS32/compat" 4 &&
	echo "fstat64/i386 4 0" >expect &&
	test_cmp expect a
'

for class in %stat %desc %network %memory %file %process %%stat %fstat
do
	test_expect_success PTRACE,STRACE,M32 "-e trace=$class holds i386 calls as strace's does" '
		like_strace -e trace=$class -- "$HELPERS32/compat" 2 &&
		test -s a
	'
done

test_expect_success PTRACE,M32 'the classes hold the i386-only calls' '
	"$IOTRACE" -v -o t.txt -e trace=%stat -- "$HELPERS32/compat" 2 &&
	table_counts t.txt >a &&
	echo "stat64/i386 2 0" >expect && test_cmp expect a &&
	"$IOTRACE" -v -o t.txt -e trace=%desc -- "$HELPERS32/compat" 2 &&
	table_counts t.txt >a &&
	grep "^fstat64/i386 2 0$" a && grep "^_llseek/i386 2 0$" a &&
	grep "^fcntl64/i386 2 0$" a && grep "^_newselect/i386 2 0$" a &&
	"$IOTRACE" -v -o t.txt -e trace=%network -- "$HELPERS32/compat" 2 &&
	table_counts t.txt >a &&
	grep "^socket/i386 2 0$" a && grep "^sendfile64/i386 2 0$" a &&
	"$IOTRACE" -v -o t.txt -e trace=%memory -- "$HELPERS32/compat" 2 &&
	table_counts t.txt >a &&
	grep "^mmap2/i386 " a
'

test_expect_success PTRACE,M32 'i386 data calls are accounted per file' '
	"$IOTRACE" -v -o t.txt -- "$HELPERS32/compat" 2 &&
	grep -E "^read/i386 +2 +32 .* /etc/passwd" t.txt &&
	grep -E "^sendfile64/i386 +2 +16 .* /etc/passwd .*-> /dev/null" t.txt
'

# The program sees its CPU mask as it was, alone (pinned) or not, under
# the default engine and on both paths of the ptrace engine (same_view,
# lib.sh).

test_expect_success PTRACE,M32 'a lone i386 program sees its whole CPU mask' '
	same_view "$HELPERS32/affinity" &&
	grep "main: cpus .* (count $(nproc))" expect
'

test_expect_success PTRACE,M32 'an i386 program with threads sees every CPU' '
	same_view "$HELPERS32/affinity" threads &&
	grep "starting $(nproc) threads" expect
'

# Calls outside the tables: syscall(5000), syscall(-1), syscall(1024);
# under the default engine and both paths of the ptrace engine.
for engine in "" --engine=ptrace "--engine=ptrace --no-seccomp" --no-follow
do
	test_expect_success PTRACE "-e trace=write leaves out-of-table calls out ($engine)" '
		"$IOTRACE" -v -o t.txt $engine -e trace=write -- \
			"$HELPERS/oddcalls" >/dev/null &&
		table_counts t.txt | grep -v /x32 >a &&
		echo "write 1 0" >expect &&
		test_cmp expect a
	'

	test_expect_success PTRACE "trace=all counts them, named syscall_N ($engine)" '
		"$IOTRACE" -v -o t.txt $engine -- "$HELPERS/oddcalls" >/dev/null &&
		table_counts t.txt >a &&
		grep "^syscall_5000 1 1$" a &&
		grep "^syscall_-1 1 1$" a &&
		grep "^syscall_1024 1 1$" a
	'

	test_expect_success PTRACE "-e trace=!write keeps them ($engine)" '
		"$IOTRACE" -v -o t.txt $engine -e trace=!write -- \
			"$HELPERS/oddcalls" >/dev/null &&
		table_counts t.txt >a &&
		grep "^syscall_5000 1 1$" a &&
		! grep "^write " a
	'
done

test_expect_success PTRACE,M32 'out-of-table calls of an i386 program obey -e trace=' '
	both_engines -e trace=write -- "$HELPERS32/oddcalls" &&
	echo "write/i386 1 0" >expect &&
	test_cmp expect a &&
	both_engines -- "$HELPERS32/oddcalls" &&
	grep "^syscall_5000/i386 1 1$" a &&
	grep "^syscall_1024/i386 1 1$" a
'

test_expect_success PTRACE,STRACE 'x32 calls: counted on both engines, as strace does' '
	test "$(uname -m)" = x86_64 || exit 0
	like_strace -- "$HELPERS/oddcalls" &&
	grep "^getpid/x32 1 1$" a &&
	grep "^write/x32 1 1$" a &&
	like_strace -e trace=getpid,write -- "$HELPERS/oddcalls" &&
	printf "%s\n" "getpid/x32 1 1" "write 1 0" "write/x32 1 1" >expect &&
	test_cmp expect a
'

test_done
