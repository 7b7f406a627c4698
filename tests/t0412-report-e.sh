#!/bin/sh
# SPDX-License-Identifier: MIT
# report -e trace=SET and diff -e trace=SET: the rows of SET kept of a
# saved run (an strace -c table from strace 6.1, a JSON profile), as
# iotrace -e takes a set (names, %classes, !negation); the total line is
# the rows kept added up, as strace's own table over -e trace= is; -e
# before the subcommand word is the same; a bad set is one line and exit
# 2 before any file is read.
. "$(dirname "$0")/lib.sh"

S=$FIXTURES/strace

# The "calls errors seconds" of the total line of a table in $1.
total_of() {
	awk '/ total$/ { print $4, ($6 == "total" ? $5 : 0), $2 }' "$1"
}

# The rows' calls, errors and seconds added up, as the total should be.
rows_sum() {
	awk '/^------ / { n++; next }
	     n == 1 && NF >= 5 {
		c += $4; e += (NF == 6 ? $5 : 0); s += int($2 * 1000000 + 0.5)
	     }
	     END { printf "%d %d %d.%06d\n", c, e, s / 1000000, s % 1000000 }' "$1"
}

test_expect_success 'an strace table: !write leaves write out, totals recomputed' '
	"$IOTRACE" report -e "trace=!write" "$S/dd-bs1.txt" >r &&
	! grep -q " write$" r &&
	test "$(table_calls read r)" = 1003 &&
	test "$(total_of r)" = "1122 17 0.002160" &&
	test "$(rows_sum r)" = "$(total_of r)" &&
	head -1 r | grep -q "^strace: 1122 syscalls of -e trace=!write took"
'

test_expect_success 'an strace table: a class and a name' '
	"$IOTRACE" report -e trace=%process,write "$S/sh-f.txt" >r &&
	table_counts r >got &&
	printf "execve 2 0\nvfork 1 0\nwait4 2 1\nwrite 4 0\n" >want &&
	test_cmp want got &&
	test "$(total_of r)" = "9 1 0.000000"
'

test_expect_success 'a bare set, and -e before the word, are the same' '
	"$IOTRACE" report -e "trace=read,write" "$S/dd-bs1.txt" >a &&
	"$IOTRACE" report -e read,write "$S/dd-bs1.txt" >b &&
	"$IOTRACE" -e trace=read,write report "$S/dd-bs1.txt" >c &&
	test_cmp a b && test_cmp a c &&
	test "$(total_of a)" = "2006 0 0.004933"
'

test_expect_success PTRACE 'a saved run: only write, its I/O row, its total' '
	"$IOTRACE" -o /dev/null --save a.json -- \
		dd if=/dev/zero of=x bs=100 count=300 status=none &&
	"$IOTRACE" report -e trace=write a.json >r &&
	table_counts r >got && echo "write 300 0" >want && test_cmp want got &&
	test "$(total_of r | cut -d" " -f1,2)" = "300 0" &&
	test "$(rows_sum r)" = "$(total_of r)" &&
	grep -Eq "^write +300 +30000 +100 .*/x " r &&
	! grep -Eq "^read " r &&
	head -1 r | grep -q "; 300 syscalls of -e trace=write$"
'

test_expect_success PTRACE 'kept rows saved as JSON print the same again' '
	"$IOTRACE" report -e trace=write --format=json a.json >w.json &&
	"$IOTRACE" report w.json >again &&
	test_cmp r again
'

test_expect_success PTRACE 'diff -e: the rows of the set in both runs' '
	"$IOTRACE" -o /dev/null --save b.json -- \
		dd if=/dev/zero of=x bs=100 count=30 status=none &&
	"$IOTRACE" diff -e trace=write a.json b.json >d &&
	grep -q "write calls 300 -> 30" d &&
	awk "/^-----/ { n++; next } n == 1 && !/   file /" d >rows &&
	test "$(wc -l <rows)" = 1 && grep -q " write$" rows
'

test_expect_success 'diff -e of two strace tables' '
	"$IOTRACE" diff -e "trace=!write" "$S/dd-bs1.txt" "$S/dd-bs1000.txt" >d &&
	! grep -q " write$" d &&
	grep -q "read calls 1,003 -> " d
'

test_expect_success 'a bad set: one line, exit 2, before the file is read' '
	for sub in report diff; do
		args=nosuch.json
		test $sub = report || args="nosuch.json nosuch2.json"
		"$IOTRACE" $sub -e trace=nosuchcall $args >out 2>err
		test $? = 2 && test ! -s out && test "$(wc -l <err)" = 1 &&
		grep -q "unknown syscall or class .nosuchcall." err &&
		! grep -q nosuch.json err || return 1
	done
'

test_expect_success '-e count= is for traced runs: exit 2' '
	"$IOTRACE" report -e count=write "$S/dd-bs1.txt" >out 2>err
	test $? = 2 && grep -q "count= applies to a traced run" err &&
	"$IOTRACE" -e count=write diff "$S/dd-bs1.txt" "$S/dd-bs1.txt" \
		>out 2>err
	test $? = 2 && grep -q "count= applies to a traced run" err
'

test_done
