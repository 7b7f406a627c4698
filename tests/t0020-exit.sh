#!/bin/sh
# SPDX-License-Identifier: MIT
# iotrace ends with the command's status: its exit code, 128+N when a
# signal killed it (and the header names the signal), 127 and 126 when it
# cannot be run.  A crashing command is reported, not fatal: the table is
# still printed.
. "$(dirname "$0")/lib.sh"

# has_table FILE: a complete table, total row included.
has_table() {
	head="% time     seconds  usecs/call     calls    errors syscall"
	grep -q "^$head$" "$1" &&
	grep -q "^100\.00 .* total$" "$1"
}

for code in 0 3 255; do
	test_expect_success PTRACE "exit status $code passes through" "
		( \"\$IOTRACE\" -o t -- sh -c 'exit $code' )
		test \$? = $code &&
		grep -q '^iotrace: sh exited $code after ' t && has_table t
	"
done

test_expect_success PTRACE 'death by SIGUSR1: 138, signal named' '
	( "$IOTRACE" -o t -- sh -c "kill -USR1 \$\$" ); test $? = 138 &&
	grep -q "^iotrace: sh killed by SIGUSR1 after " t && has_table t
'

test_expect_success PTRACE 'segfaulting command: 139, table printed' '
	( "$IOTRACE" -o t -- "$HELPERS/crash" segv >out ); test $? = 139 &&
	grep -q "^iotrace: crash killed by SIGSEGV" t && has_table t &&
	table_counts t | grep -q "^write 1 0$" &&
	test "$(cat out)" = crashing
'

test_expect_success PTRACE 'aborting command: 134, table printed' '
	( "$IOTRACE" -o t -- "$HELPERS/crash" abort >out ); test $? = 134 &&
	grep -q "^iotrace: crash killed by SIGABRT" t && has_table t &&
	table_counts t | grep -q "^write 1 0$"
'

test_expect_success PTRACE 'segfaulting child: parent status, child counted' '
	( "$IOTRACE" -o t -- sh -c "\"\$HELPERS/crash\" segv; echo \$? >st" \
		>out 2>/dev/null ); test $? = 0 &&
	test "$(cat st)" = 139 &&
	grep -q "^iotrace: sh exited 0 " t && has_table t &&
	table_counts t >c &&
	grep -q "^execve 2 0$" c &&
	grep -q "^write 3 0$" c	# crash, echo, and sh reporting the crash
'

# Only where a core file lands in the working directory can the test know
# one is dumped; elsewhere it is skipped (an unknown prerequisite).
core_prereq=PTRACE
if test "$(cat /proc/sys/kernel/core_pattern 2>/dev/null)" != core ||
   ! (ulimit -c unlimited) 2>/dev/null; then
	core_prereq=PTRACE,COREDUMP_TO_CWD
fi
test_expect_success $core_prereq 'a core dump is named in the header' '
	( ulimit -c unlimited &&
	  "$IOTRACE" -o t -- "$HELPERS/crash" abort >out ); test $? = 134 &&
	grep -q "^iotrace: crash killed by SIGABRT (core dumped) after " t
'

test_expect_success 'missing command: 127, one line' '
	( "$IOTRACE" -- no-such-command-xyz 2>err ); test $? = 127 &&
	echo "iotrace: no-such-command-xyz: No such file or directory" >want &&
	test_cmp want err
'

test_expect_success 'missing path: 127' '
	( "$IOTRACE" -- ./no-such-file 2>err ); test $? = 127 &&
	echo "iotrace: ./no-such-file: No such file or directory" >want &&
	test_cmp want err
'

test_expect_success 'non-executable file: 126' '
	echo "touch marker" >script && chmod 644 script &&
	( "$IOTRACE" -- ./script 2>err ); test $? = 126 &&
	echo "iotrace: ./script: Permission denied" >want &&
	test_cmp want err && ! test -e marker
'

test_expect_success 'non-executable file found in PATH: 126' '
	mkdir -p bin && echo "touch marker" >bin/noexec &&
	chmod 644 bin/noexec &&
	( PATH=$PWD/bin:$PATH "$IOTRACE" -- noexec 2>err ); test $? = 126 &&
	grep -q "^iotrace: noexec: Permission denied$" err &&
	! test -e marker
'

test_expect_success 'a directory: 126' '
	mkdir -p adir &&
	( "$IOTRACE" -- ./adir 2>err ); test $? = 126 &&
	test $(wc -l <err) = 1
'

test_expect_success PTRACE 'command found through PATH runs' '
	mkdir -p bin && printf "#!/bin/sh\nexit 42\n" >bin/mine &&
	chmod 755 bin/mine &&
	( PATH=$PWD/bin:$PATH "$IOTRACE" -o t -- mine ); test $? = 42
'

test_expect_success PTRACE 'a script without #! runs through /bin/sh, as execvp does' '
	printf "echo from-sh\nexit 7\n" >plain.sh && chmod +x plain.sh &&
	{ "$IOTRACE" -o t -- ./plain.sh >out; test $? = 7; } &&
	echo from-sh >expect && test_cmp expect out &&
	grep -E " 2 +1 execve$" t
'

test_done
