#!/bin/sh
# SPDX-License-Identifier: MIT
# iotrace diff: two runs with known call counts, two real strace -c
# tables, a run against a table, --format=json, -S, and --fail-if's exit
# codes (0 whatever the difference, 1 tripped, 2 malformed).
. "$(dirname "$0")/lib.sh"

S=$FIXTURES/strace

test_expect_success PTRACE 'two runs: write calls 1000 -> 1, exactly' '
	"$IOTRACE" -o a.txt --save a.json -- \
		dd if=/dev/zero of=x bs=1 count=1000 status=none &&
	"$IOTRACE" -o b.txt --save b.json -- \
		dd if=/dev/zero of=x bs=1000 count=1 status=none &&
	"$IOTRACE" diff a.json b.json >d.txt &&
	head -1 d.txt >headline &&
	# Which syscall changed most in time, and whether the change is
	# beyond the stop-cost resolution, is timing: the shape is not.
	grep -Eq "^NEW (spends .* time in|and BASE differ in time in) syscalls \(.* -> .*\)" headline &&
	grep -E " write$" d.txt >w &&
	set -- $(cat w) && test "$1 $2 $3" = "1000 1 -999"
'

test_expect_success PTRACE 'the sides are named and the total adds up' '
	grep -q "^BASE a.json: dd if=/dev/zero of=x bs=1 count=1000" d.txt &&
	grep -q "^NEW  b.json: dd if=/dev/zero of=x bs=1000 count=1" d.txt &&
	tail -1 d.txt >total &&
	set -- $(cat total) && test "$9" = total &&
	test "$3" = "$(($2 - $1))"
'

test_expect_success 'two strace -c tables from strace 6.1' '
	"$IOTRACE" diff "$S/dd-bs1.txt" "$S/dd-bs1000.txt" >d.txt &&
	grep -q "write calls 1,003 -> 4$" d.txt &&
	grep -E " write$" d.txt >w && set -- $(cat w) &&
	test "$1 $2 $3" = "1003 4 -999" &&
	grep -q "^BASE .*dd-bs1.txt: (strace -c table)$" d.txt
'

test_expect_success 'rows in one run only are marked' '
	"$IOTRACE" diff "$S/dd-bs1.txt" "$S/sh-f.txt" >d.txt &&
	grep -E " wait4 \(only NEW\)$" d.txt >w &&
	set -- $(cat w) && test "$1 $2" = "- 2" &&
	grep -E " dup2 \(only BASE\)$" d.txt >w &&
	set -- $(cat w) && test "$1 $2" = "2 -"
'

test_expect_success PTRACE 'a run against an strace table' '
	"$IOTRACE" diff "$S/dd-bs1.txt" a.json >d.txt &&
	grep -E " write$" d.txt >w && set -- $(cat w) &&
	test "$1 $2" = "1003 1000"
'

test_expect_success '-S calls orders by the change in calls' '
	"$IOTRACE" diff -S calls "$S/dd-bs1.txt" "$S/sh-f.txt" >d.txt &&
	sed -n 7,8p d.txt | awk "{print \$NF}" >got &&
	printf "write\nread\n" >want && test_cmp want got &&
	"$IOTRACE" diff -S name "$S/dd-bs1.txt" "$S/sh-f.txt" | sed -n 7p >n &&
	grep -q " access$" n
'

test_expect_failure_code 2 '-S with a key diff cannot use' '
	"$IOTRACE" diff -S max-time "$S/dd-bs1.txt" "$S/sh-f.txt"
'

test_expect_success '--format=json gives the rows and the headline' '
	"$IOTRACE" diff --format=json "$S/dd-bs1.txt" "$S/dd-bs1000.txt" >d.json &&
	grep -q "\"schema\": \"iotrace-diff/1\"" d.json &&
	grep -q "\"headline\": \"NEW spends .*write calls 1,003 -> 4\"" d.json &&
	grep -A12 "\"name\": \"write\"" d.json | tr -d " \n" >w &&
	grep -q "\"base\":{\"calls\":1003,\"errors\":0,\"timed\":1003,\"time_ns\":2794000},\"new\":{\"calls\":4," w
'

test_expect_success 'exit 0 whatever the difference' '
	"$IOTRACE" diff "$S/dd-bs1000.txt" "$S/dd-bs1.txt" >/dev/null
'

test_expect_failure_code 1 '--fail-if trips: exit 1 and a line saying why' '
	"$IOTRACE" diff --fail-if "calls>+5%" "$S/dd-bs1000.txt" \
		"$S/dd-bs1.txt" >/dev/null 2>err; rc=$?
	grep -q "^iotrace: --fail-if .calls>+5%. tripped: calls +1573.2% (127 -> 2125)$" err &&
	exit $rc
'

test_expect_success '--fail-if not tripped: exit 0' '
	"$IOTRACE" diff --fail-if "calls>+5%" --fail-if "write.calls>0" \
		"$S/dd-bs1.txt" "$S/dd-bs1000.txt" >/dev/null 2>err &&
	test ! -s err
'

test_expect_failure_code 2 '--fail-if malformed: exit 2' '
	"$IOTRACE" diff --fail-if "time>10" "$S/dd-bs1.txt" "$S/dd-bs1000.txt"
'

test_expect_failure_code 2 '--fail-if on wall time of strace tables: exit 2' '
	"$IOTRACE" diff --fail-if "wall>1%" "$S/dd-bs1.txt" "$S/dd-bs1000.txt"
'

test_expect_failure_code 2 'diff needs two files' '
	"$IOTRACE" diff "$S/dd-bs1.txt"
'

test_expect_success PTRACE,UNSANITIZED 'diff of a count-only run: "-" for time, never 0.0' '
	"$IOTRACE" --count-only -o /dev/null --save co.json \
		run bufwrite total=1000 unit=1 buf=0 of=out &&
	"$IOTRACE" -o /dev/null --save timed.json \
		run bufwrite total=1000 unit=1 buf=100 of=out &&
	"$IOTRACE" diff co.json timed.json >d.txt &&
	head -1 d.txt >actual &&
	echo "NEW makes 83.5x fewer syscalls (1,002 -> 12): write calls 1,000 -> 10; time in syscalls: - (BASE was counted only, not timed)" >expect &&
	test_cmp expect actual &&
	"$IOTRACE" diff co.json co.json | head -1 >actual &&
	echo "NEW makes as many syscalls (1,002 -> 1,002); time in syscalls: - (both runs were counted only, not timed)" >expect &&
	test_cmp expect actual
'

# Saved points with untraced runs (tests/fixtures/sweep): the walls are
# compared, and a change inside the runs' spreads is within noise.
W=$FIXTURES/sweep

test_expect_success 'both with baselines, spreads overlapping: within noise' '
	"$IOTRACE" diff "$W/tie/bs=1024.json" "$W/tie/bs=1130.json" >d.txt &&
	sed -n 1p d.txt | grep "^NEW and BASE differ in time in syscalls (0.041 s -> 0.037 s) by no more than their untraced runs. spread (23.7%): within noise: write calls 20,480 -> 18,559$" &&
	sed -n 2p d.txt | grep -x "untraced wall: 0.050 s -> 0.056 s (medians of 3 and 3 runs): within noise, the spreads overlap (spreads 0.048-0.059 s and 0.052-0.062 s)" &&
	! grep "spends" d.txt
'

test_expect_success 'both with baselines, spreads apart: the walls compared' '
	"$IOTRACE" diff "$W/clear/bs=512.json" "$W/clear/bs=4K.json" >d.txt &&
	sed -n 1p d.txt | grep "^NEW spends 8.0x less time in syscalls (0.082 s -> 0.010 s): write calls 40,960 -> 5,120$" &&
	sed -n 2p d.txt | grep -x "untraced wall: 0.280 s -> 0.030 s (medians of 3 and 3 runs): NEW 9.33x shorter (spreads 0.270-0.290 s and 0.029-0.031 s)" &&
	"$IOTRACE" diff --format=json "$W/clear/bs=512.json" "$W/clear/bs=4K.json" >d.json &&
	grep -q "\"verdict\": \"apart\"" d.json &&
	grep -A3 "\"baseline\": {" d.json | grep -q "\"runs\": 3"
'

test_expect_success 'one run each: the diff says it cannot tell noise' '
	"$IOTRACE" diff "$W/one/bs=512.json" "$W/one/bs=4K.json" >d.txt &&
	sed -n 1p d.txt | grep "^NEW spends 8.0x less time in syscalls (0.082 s -> 0.010 s, one run each): " &&
	sed -n 2p d.txt | grep -x "untraced wall: 0.280 s -> 0.030 s, one run each: no spread tells a change from noise (--baseline 3 on both runs gives one)" &&
	"$IOTRACE" diff "$W/one/bs=512.json" "$W/clear/bs=4K.json" >d.txt &&
	sed -n 2p d.txt | grep "one run of BASE: no spread"
'

test_expect_success 'strace tables have no wall: no wall line' '
	"$IOTRACE" diff "$S/dd-bs1.txt" "$S/dd-bs1000.txt" >d.txt &&
	sed -n 2p d.txt | grep -q "^BASE " && ! grep wall d.txt
'

test_done
