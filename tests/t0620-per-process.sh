#!/bin/sh
# SPDX-License-Identifier: MIT
# -P and --per-thread (issue 22): rows per process and per thread, exact.
# A pipeline of a writer making exactly N writes and a reader that then
# makes N + 1 reads (tests/helpers/pipeside.c) has those counts on each
# side's row, with the fast path on (its counters are per process) and
# off; the processes' rows add up to the table's and to strace -f -c's.
# Three threads of 100 writes each have 100 on each thread's row, and
# --per-thread turns the fast path off, saying so.  Saved, the rows come
# back in report, csv-breakdown and diff.
. "$(dirname "$0")/lib.sh"

pipeline="$HELPERS/pipeside write 1000 100 | $HELPERS/pipeside read 100"

# csv-breakdown rows of dimension $1 in file $2: "syscall|key|calls"
# (a thread's key has spaces).
dim_rows() {
	awk -F, -v d="$1" -v OFS="|" '$1 == d { print $2, $3, $5 }' "$2"
}

# The calls of syscall $1 made by processes named $2 in csv file $3.
proc_calls() {
	dim_rows process "$3" |
		awk -F"|" -v s="$1" -v c="$2" '$1 == s && index($2, c "[") == 1 {
			n += $3 } END { print n + 0 }'
}

# The loader's reads of pipeside, alone: what the reader adds to N + 1.
test_expect_success PTRACE 'the reader alone: its loader reads' '
	"$IOTRACE" -P --format=csv-breakdown -o alone -- \
		"$HELPERS/pipeside" read 100 </dev/null 2>/dev/null &&
	loader=$(($(proc_calls read pipeside alone) - 1)) &&
	test "$loader" -ge 0 && echo $loader >loader
'

# Each side its row: the writer's 1000 writes and the loader's reads,
# the reader's 1001 + the loader's reads and its one line on stderr.
exact_sides() {
	l=$(cat loader) &&
	dim_rows process "$1" | awk -F"|" -v l=$l '
		$1 == "write" { w[$2] += $3 }
		$1 == "read" { r[$2] += $3 }
		END {
			for (p in w) if (w[p] == 1000 && r[p] == l) wr = p
			for (p in r) if (r[p] == 1001 + l && w[p] == 1) rd = p
			exit !(wr != "" && rd != "" && wr != rd &&
			       index(wr, "pipeside[") == 1 &&
			       index(rd, "pipeside[") == 1)
		}'
}

for how in "" --no-rewrite; do
test_expect_success PTRACE "pipeline ${how:-fast path on}: each side's rows exact" '
	"$IOTRACE" -P $how --format=csv-breakdown -o c -- sh -c "$pipeline" \
		2>err &&
	grep -q "^pipeside: 1001 reads$" err &&
	exact_sides c &&
	test "$(proc_calls write sh c)" = 0
'
done

test_expect_success PTRACE 'the text report: a line per process, then rows' '
	"$IOTRACE" -P -o t -- sh -c "$pipeline" 2>/dev/null &&
	grep -q "^process  *calls  *seconds  *bytes read  *bytes written" t &&
	grep -q "^pipeside\[[0-9]*\]  *1[0-9][0-9][0-9]  *[0-9.]*  *[0-9]*  *100000 " t &&
	grep -q "^write  *1000  *0  *[0-9.]*  *100000  *pipeside\[" t
'

# The processes' rows add up to the table's, and those to strace's.
test_expect_success PTRACE,STRACE 'the processes add up to strace -f -c' '
	strace -f -c -o s sh -c "$pipeline" 2>/dev/null &&
	"$IOTRACE" -P -o t --save a.json -- sh -c "$pipeline" 2>/dev/null &&
	"$IOTRACE" report --format=csv-breakdown a.json >c &&
	for call in read write; do
		test "$(table_calls $call s)" = "$(table_calls $call t)" &&
		test "$(dim_rows process c | awk -F"|" -v s=$call "\$1 == s {
			n += \$3 } END { print n + 0 }")" = \
			"$(table_calls $call t)" || return 1
	done
'

test_expect_success PTRACE '--per-thread: 3 threads of 100 writes, exact' '
	"$IOTRACE" -v --per-thread -o t --save th.json -- \
		"$HELPERS/writeloop" /dev/null 100 1 3 &&
	grep -q "fast path.*--per-thread" t &&
	"$IOTRACE" report --format=csv-breakdown th.json >c &&
	dim_rows thread c | awk -F"|" "\$1 == \"write\" { print \$3 }" |
		sort >got &&
	printf "100\n100\n100\n" >expect &&
	test_cmp expect got &&
	test "$(dim_rows process c | wc -l)" = 0
'

test_expect_success PTRACE 'saved: report and diff keep the rows' '
	"$IOTRACE" report a.json >r &&
	grep -q "^write  *1000  *0  *[0-9.]*  *100000  *pipeside\[" r &&
	"$IOTRACE" -P --save b.json -o /dev/null -- \
		"$HELPERS/pipeside" write 10 100 >/dev/null &&
	"$IOTRACE" diff a.json b.json >d &&
	grep -q "process" d
'

test_expect_success PTRACE 'without -P: no process section' '
	"$IOTRACE" -o t -- sh -c "$pipeline" 2>/dev/null &&
	! grep -q "^process " t
'

test_done
