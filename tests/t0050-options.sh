#!/bin/sh
# SPDX-License-Identifier: MIT
# Options: -e trace= (names, classes, '!'), -o FILE, -S, the strace habits
# -c -C -w -f, --help and --version; bad options and values give one line
# naming the bad word and exit 2 before anything runs.
. "$(dirname "$0")/lib.sh"

names() {
	table_counts "$1" | awk '{ print $1 }'
}

# bad_usage WORD ARGS...: iotrace ARGS -- touch marker fails with exit 2,
# one line on stderr that quotes WORD, and runs nothing.
bad_usage() {
	word=$1
	shift
	rm -f marker err
	( "$IOTRACE" "$@" -- touch marker 2>err >out ); rc=$?
	test $rc = 2 || { echo "exit $rc"; return 1; }
	test "$(wc -l <err)" = 1 || { cat err; return 1; }
	grep -q "^iotrace: .*'$word'" err || { cat err; return 1; }
	! test -e marker && ! test -s out
}

test_expect_success 'unknown long option' 'bad_usage --bogus --bogus'
test_expect_success 'unknown short option' 'bad_usage -x -x'
test_expect_success 'unknown sort key' 'bad_usage bogus -S bogus'
test_expect_success 'sort key in the wrong case' 'bad_usage Time -S Time'
test_expect_success 'unknown syscall' 'bad_usage nosuch -e trace=nosuch'
test_expect_success 'unknown syscall in a list' '
	bad_usage nosuch -e trace=read,nosuch,write
'
test_expect_success 'unknown class' 'bad_usage %nosuch -e trace=%nosuch'
test_expect_success 'unknown -e qualifier' 'bad_usage bogus -e bogus=read'
test_expect_success 'unknown format' 'bad_usage xml --format=xml'
test_expect_success 'unknown engine' 'bad_usage bogus --engine=bogus'
# The agent engine is gone: its name is as unknown as any other, and the
# usage error names the engines that exist.
test_expect_success '--engine=agent: unknown, the engines that exist named' '
	bad_usage agent --engine=agent &&
	want="expected ptrace or auto, got '\''agent'\''" &&
	test "$(cat err)" = "iotrace: --engine: $want (see iotrace --help)"
'
test_expect_success 'option without its value' '
	rm -f err && ( "$IOTRACE" -S 2>err ); test $? = 2 &&
	grep -q "'\''-S'\''" err && test "$(wc -l <err)" = 1
'
test_expect_success 'no command' '
	( "$IOTRACE" 2>err ); test $? = 2 && test "$(wc -l <err)" = 1 &&
	( "$IOTRACE" -- 2>err ); test $? = 2 && test "$(wc -l <err)" = 1
'
test_expect_success 'unwritable -o: error, nothing run' '
	rm -f marker &&
	( "$IOTRACE" -o /nonexistent/dir/t -- touch marker 2>err )
	test $? = 1 &&
	grep -q "^iotrace: cannot write '\''/nonexistent/dir/t'\''" err &&
	! test -e marker
'

test_expect_success '--help and -h print usage, exit 0' '
	"$IOTRACE" --help >h1 && "$IOTRACE" -h >h2 && test_cmp h1 h2 &&
	grep -q "^usage: iotrace" h1 && grep -q "%file" h1
'

test_expect_success '--version and -V' '
	"$IOTRACE" --version >v1 && "$IOTRACE" -V >v2 && test_cmp v1 v2 &&
	grep -q "^iotrace [0-9]" v1
'

test_expect_success PTRACE '-e trace=NAMES counts only those' '
	"$IOTRACE" -e trace=write,openat -o t -- cat /etc/passwd \
		/nonexistent >/dev/null 2>&1;
	names t >got && printf "openat\nwrite\n" >want && test_cmp want got &&
	table_counts t | grep -q "^openat [0-9]* [1-9][0-9]*$"
'

# The header says the count is of the traced calls only, and so does a
# saved run reported again; a run without -e trace= says nothing.
test_expect_success PTRACE '-e trace=: the header names what was traced' '
	"$IOTRACE" -e trace=write,fsync --save s.json -o t -- \
		sh -c "echo a; echo b" >/dev/null &&
	grep -q "^iotrace: sh exited 0 after [0-9.]* m\?s traced; 2 syscalls of -e trace=write,fsync$" t &&
	grep -q "\"trace\": \"write,fsync\"" s.json &&
	"$IOTRACE" report s.json >r &&
	grep -q "; 2 syscalls of -e trace=write,fsync$" r &&
	"$IOTRACE" --save all.json -o t -- true &&
	! grep -q "of -e trace=" t &&
	! grep -q "\"trace\"" all.json
'

test_expect_success PTRACE '-e NAMES without trace= (strace style)' '
	"$IOTRACE" -e write -o t -- sh -c "echo a; echo b" >/dev/null &&
	table_counts t >got && echo "write 2 0" >want && test_cmp want got
'

test_expect_success PTRACE '-e trace=%class' '
	"$IOTRACE" -e trace=%file -o t -- cat /etc/passwd >/dev/null &&
	names t >got &&
	grep -q "^openat$" got && grep -q "^execve$" got &&
	! grep -q "^read$" got && ! grep -q "^mmap$" got
'

test_expect_success PTRACE '-e trace=!NAMES excludes, keeps the rest' '
	"$IOTRACE" -o all -- cat /etc/passwd >/dev/null &&
	"$IOTRACE" -e "trace=!read,write" -o t -- cat /etc/passwd >/dev/null &&
	names all | grep -v "^read$" | grep -v "^write$" >want &&
	names t >got && test_cmp want got
'

test_expect_success PTRACE,STRACE '-e trace= counts equal strace' '
	strace -f -c -e trace=%desc,%process -o s sh -c "ls / >/dev/null" &&
	"$IOTRACE" -e trace=%desc,%process -o t -- sh -c "ls / >/dev/null" &&
	table_counts s >want && table_counts t >got && test_cmp want got
'

test_expect_success PTRACE '-o FILE: table in the file, stderr untouched' '
	"$IOTRACE" -o t -- sh -c "echo out; echo err >&2" >out 2>err &&
	echo out >want && test_cmp want out &&
	echo err >want && test_cmp want err &&
	grep -q "^100\.00 .* total$" t
'

test_expect_success PTRACE 'without -o the table goes to stderr' '
	"$IOTRACE" -- sh -c "echo out" >out 2>err &&
	echo out >want && test_cmp want out &&
	grep -q "^iotrace: sh exited 0 " err && grep -q " total$" err
'

test_expect_success PTRACE 'iotrace -- cmd | grep x: stdout untouched' '
	"$IOTRACE" -- sh -c "echo a; echo xyz; echo b" 2>err | grep x >got &&
	echo xyz >want && test_cmp want got && grep -q " total$" err
'

test_expect_success PTRACE '-S calls sorts by calls' '
	"$IOTRACE" -S calls -o t -- sh -c "echo a; echo b; echo c" >/dev/null &&
	awk "/^-/ { r++; next } r == 1 { print \$4 }" t >got &&
	sort -rn got >want && test_cmp want got
'

test_expect_success PTRACE '-S name sorts by name' '
	"$IOTRACE" -S syscall_name -o t -- true &&
	awk "/^-/ { r++; next } r == 1 { print \$NF }" t >got &&
	sort got >want && test_cmp want got
'

test_expect_success PTRACE '-c -C -w -f accepted' '
	"$IOTRACE" -c -C -w -f -o t -- true && grep -q " total$" t
'

test_expect_success PTRACE 'options after -- belong to the command' '
	"$IOTRACE" -o t -- sh -c "echo \$1" sh -o >got &&
	echo -o >want && test_cmp want got
'

# Set-user-ID or set-group-ID, iotrace would trace what its user may
# not: refused with one line, exit 1, before anything runs.
for mode in 4755:u 2755:g; do
	test_expect_success ROOT "set-${mode#*:}id iotrace refuses to run" "
		cp \"\$IOTRACE\" ./suid && chown 65534:65534 suid &&
		chmod ${mode%:*} suid &&
		{ ./suid -o suid.txt -- touch suid-ran 2>err; test \$? = 1; } &&
		! test -e suid-ran && ! test -e suid.txt &&
		test \$(wc -l <err) = 1 &&
		grep -q '^iotrace: refusing to run set-user-ID or set-group-ID' err
	"
done

test_done
