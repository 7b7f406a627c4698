#!/bin/sh
# SPDX-License-Identifier: MIT
# -U COLUMNS (--summary-columns), strace 6's option: for the same column
# list on the same command (writeloop: 1,000 one-byte writes to
# /dev/null, no fork), iotrace's table and strace 6.1's have the same
# heading line and rules (so the same widths and order), rows of the
# same length, and the same names, calls and errors.  iotrace's own
# columns: nsecs/call (numbers where usecs/call reads 0), bytes (the
# writes' 1,000 bytes exactly; the total the rows' sum), % untraced
# (numbers over --baseline's wall, "-" and a note when the run has none).
# -U works for `-- CMD`, `run WORKLOAD` and `report FILE`, and the CSV
# takes its columns; an unknown or repeated column is one line and exit 2
# before anything runs.  No assertion is about a time.
. "$(dirname "$0")/lib.sh"

writes="$HELPERS/writeloop /dev/null 1000 1"

# table_cells FILE HEADING[,HEADING...]: the cells under those headings,
# a row per line ("|" between them), the total row last, each cut where
# the rule under the heading draws its column (the last to the end of
# the line), blanks trimmed.
cat >cells.awk <<'EOF'
function trim(s) { sub(/^ +/, "", s); sub(/ +$/, "", s); return s }
function cell(line, c) {
	return trim(c == n ? substr(line, st[c]) : substr(line, st[c], len[c]))
}
function row(line,   i, out) {
	out = ""
	for (i = 1; i <= nw; i++)
		out = out (i > 1 ? "|" : "") cell(line, w[i])
	print out
}
/^-+( -+)*$/ && state == 0 {
	pos = 1; s = $0
	while (match(s, /-+/)) {
		n++; st[n] = pos + RSTART - 1; len[n] = RLENGTH
		pos += RSTART + RLENGTH - 1; s = substr(s, RSTART + RLENGTH)
	}
	for (c = 1; c <= n; c++)
		col[cell(head, c)] = c
	nw = split(want, names, ",")
	for (i = 1; i <= nw; i++) {
		if (!(names[i] in col)) { print "no column " names[i]; exit 1 }
		w[i] = col[names[i]]
	}
	state = 1; next
}
/^-+( -+)*$/ && state == 1 { state = 2; next }
state == 0 { head = $0; next }
state >= 1 { row($0) }
state == 2 { exit }
EOF
table_cells() {
	awk -v want="$2" -f cells.awk "$1"
}

# table_frame FILE: the heading line and the rule under it.
table_frame() {
	awk '/^-+( -+)*$/ { print prev; print; exit } { prev = $0 }' "$1"
}

# row_lengths FILE: each row's length and name, the total's too, sorted.
row_lengths() {
	awk '/^-+( -+)*$/ { rules++; next }
	     rules == 1 || (rules == 2 && !done++) { print length($0) }' \
		"$1" | sort -n
}

# same_as_strace LIST: strace -c -U LIST and iotrace -U LIST on the
# writes: same frame and row lengths; the same syscall, calls and errors.
same_as_strace() {
	strace -c -U "$1" -o s.txt $writes &&
	"$IOTRACE" -U "$1" -o i.txt -- $writes &&
	table_frame s.txt >s.frame && table_frame i.txt >i.frame &&
	test_cmp s.frame i.frame &&
	row_lengths s.txt >s.len && row_lengths i.txt >i.len &&
	test_cmp s.len i.len &&
	table_cells s.txt syscall,calls,errors | sort >s.cells &&
	table_cells i.txt syscall,calls,errors | sort >i.cells &&
	grep -q "^write|1000|$" i.cells &&
	test_cmp s.cells i.cells
}

test_expect_success PTRACE,STRACE '-U: strace 6.1 default six, spelled out' '
	same_as_strace time-percent,total-time,avg-time,calls,errors,name
'

test_expect_success PTRACE,STRACE '-U: all eight, name first (strace fixture order)' '
	same_as_strace name,calls,errors,total-time,avg-time,min-time,max-time,time-percent
'

test_expect_success PTRACE,STRACE '-U: aliases, the name in the middle' '
	same_as_strace count,syscall,shortest,longest,error,time &&
	same_as_strace time_total,syscall_name,count,time_avg,time_min,time_max,error
'

test_expect_success PTRACE,STRACE '-U: no name given, added last as strace does' '
	same_as_strace errors,calls &&
	test "$(head -1 i.frame)" = "   errors     calls syscall"
'

test_expect_success PTRACE,STRACE '--summary-columns is -U' '
	strace -c --summary-columns=calls,errors -o s.txt $writes &&
	"$IOTRACE" --summary-columns=calls,errors -o i.txt -- $writes &&
	table_frame s.txt >s.frame && table_frame i.txt >i.frame &&
	test_cmp s.frame i.frame
'

test_expect_failure_code 2 'an unknown column: exit 2, nothing runs' '
	"$IOTRACE" -U calls,seconds -- touch ran 2>err
'
test_expect_success 'an unknown column: one line naming it' '
	test ! -e ran &&
	test "$(cat err)" = "iotrace: -U: unknown column '\''seconds'\'' (see iotrace --help)"
'

test_expect_failure_code 2 'a column given twice (by an alias): exit 2' '
	"$IOTRACE" -U calls,count -- touch ran 2>err
'
test_expect_success 'a column given twice: one line naming it' '
	test ! -e ran && test "$(wc -l <err)" = 1 &&
	grep -q "column '\''count'\'' given more than once" err
'

test_expect_failure_code 2 '-U does not apply to diff' '
	"$IOTRACE" -U calls diff a.json b.json
'

# The writes moved 1,000 bytes; nsecs/call is a count of nanoseconds in
# every row, total included; bytes add up to the total.
test_expect_success PTRACE 'iotrace columns: nsecs/call and bytes' '
	"$IOTRACE" -U calls,avg-ns,bytes -o i.txt -- $writes &&
	test "$(table_frame i.txt | head -1)" = \
		"    calls  nsecs/call       bytes syscall" &&
	table_cells i.txt syscall,calls,nsecs/call,bytes >cells &&
	grep -q "^write|1000|[0-9][0-9]*|1000$" cells &&
	awk -F"|" "\$3 !~ /^[0-9]+\$/ || \$4 !~ /^[0-9]+\$/ { bad = 1 }
		\$1 != \"total\" { sum += \$4 }
		\$1 == \"total\" && \$4 != sum { bad = 1 }
		END { exit bad }" cells
'

test_expect_success PTRACE '% untraced over --baseline: numbers, the total their sum' '
	"$IOTRACE" --baseline=1 -U total-time,untraced-percent -o i.txt \
		-- $writes &&
	table_cells i.txt "syscall,% untraced" >cells &&
	awk -F"|" "\$2 !~ /^[0-9]+\\.[0-9][0-9]\$/ { bad = 1 }
		\$1 != \"total\" { sum += \$2; n++ }
		\$1 == \"total\" { d = \$2 - sum; if (d < 0) d = -d
				   if (d > 0.005 * n + 0.001) bad = 1 }
		END { exit bad }" cells &&
	grep -q "^(% untraced: the seconds over the untraced wall, [0-9.]* s measured (--baseline, median); waits included)$" i.txt
'

# A saved run without a baseline whose estimate does not resolve the
# untraced wall (whether it does is the run'\''s): "-" in every cell and
# the note, or numbers and the note naming the estimate.
test_expect_success PTRACE '% untraced without a baseline: numbers or "-", and a note' '
	"$IOTRACE" -U untraced-percent -o i.txt -- $writes &&
	table_cells i.txt "% untraced" | sort -u >cells &&
	if grep -q "^(% untraced: -, this run has no untraced wall" i.txt
	then
		test "$(cat cells)" = "-"
	else
		grep -q "^(% untraced: .* estimated; waits included)$" i.txt &&
		! grep -v "^[0-9]*\\.[0-9][0-9]\$" cells
	fi
'

test_expect_success PTRACE 'report FILE: -U after report, and before it' '
	"$IOTRACE" -o plain.txt --save run.json -- $writes &&
	table_cells plain.txt syscall,calls,errors | sort >want &&
	"$IOTRACE" report -U count,errors,syscall run.json >r1.txt &&
	test "$(table_frame r1.txt | head -1)" = \
		"    calls    errors syscall" &&
	table_cells r1.txt syscall,calls,errors | sort >got &&
	test_cmp want got &&
	"$IOTRACE" -U count,errors,syscall report run.json >r2.txt &&
	test_cmp r1.txt r2.txt
'

test_expect_success PTRACE,UNSANITIZED 'run WORKLOAD: -U' '
	"$IOTRACE" -U calls,bytes -o w.txt run bufwrite total=1000 buf=0 &&
	table_cells w.txt syscall,calls,bytes >cells &&
	grep -q "^write|1000|1000$" cells
'

test_expect_success PTRACE 'CSV: the columns -U chose, then the raw ones' '
	"$IOTRACE" -U avg-ns,calls --format=csv -o c.csv -- $writes &&
	head -1 c.csv | grep -q "^avg-ns,calls,name,timed,time_ns," &&
	grep -q "^[0-9]*,1000,write," c.csv
'

test_expect_success 'the man page and --help name -U' '
	"$IOTRACE" --help | grep -q -- "-U, --summary-columns COLUMNS" &&
	"$IOTRACE" report --help | grep -q -- "-U, --summary-columns" &&
	grep -q "summary\\\\-columns" "$TESTS_DIR/../iotrace.1"
'

test_done
