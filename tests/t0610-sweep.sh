#!/bin/sh
# SPDX-License-Identifier: MIT
# iotrace sweep: one traced run (or --repeat) per value, exact call
# counts per point, the findings that differ, a well-formed SVG chart.
. "$(dirname "$0")/lib.sh"

# The "calls" column of a sweep table, value by value.
sweep_rows() {
	awk 'NR > 2 && /^\* best:/ { exit } NR > 2 { sub(/^\*/, " "); print }' "$1"
}
sweep_calls() {
	sweep_rows "$1" | awk '{ print $1, $6 }'
}

test_expect_success PTRACE 'sweep -- CMD with {}: one row per value, exact calls' '
	"$IOTRACE" sweep --repeat 1 bs=1,10,100 -- \
		dd if=/dev/zero of=out bs={} count=50 >t.txt 2>/dev/null &&
	grep "iotrace sweep of bs: 3 points, median of 1 run each" t.txt &&
	sweep_calls t.txt >actual &&
	printf "1 53\n10 53\n100 53\n" >expect &&
	test_cmp expect actual
'

# Seed experiment 2: 1,000,000 one-byte writes through a buffer of each
# size.  --count-only: one stop per call keeps the million-call points short.
test_expect_success PTRACE 'sweep run bufwrite: the seed call-count column, exactly' '
	"$IOTRACE" --count-only sweep --repeat 1 buf=0,1,64,512,8192,65536 \
		run bufwrite total=1000000 unit=1 of=out >t.txt 2>/dev/null &&
	sweep_calls t.txt >actual &&
	printf "%s\n" "0 1000000" "1 1000000" "64 15625" "512 1954" \
		"8192 123" "65536 16" >expect &&
	test_cmp expect actual &&
	test $(wc -c <out) = 1000000
'

test_expect_success PTRACE 'sweep run: bad workload arguments stop before any run' '
	"$IOTRACE" sweep buf=64,0x run bufwrite total=1000 of=fresh >t.txt 2>err;
	test $? = 2 && ! test -e fresh && test $(wc -l <err) = 1 &&
	grep "buf" err
'

test_expect_success PTRACE 'sweep: {} replaced in every word; repeats counted' '
	"$IOTRACE" sweep --repeat 2 n=3,7 -- sh -c "head -c {} /dev/zero | cat >/dev/null" >t.txt 2>/dev/null &&
	grep "median of 2 runs each" t.txt &&
	test $(sweep_rows t.txt | wc -l) = 2
'

test_expect_success PTRACE 'sweep: a misaligned O_DIRECT point has the EINVAL finding' '
	probe=$(dd if=/dev/zero of=probe bs=1130 count=1 oflag=direct 2>&1) && exit 0
	echo "$probe" | grep -q "Invalid argument" || exit 0
	"$IOTRACE" sweep --repeat 1 bs=512,1130,4096 -- \
		dd if=/dev/zero of=out bs={} count=20 oflag=direct >t.txt 2>/dev/null &&
	grep "Findings that differ between points:" t.txt &&
	grep "bs=1130: write to .*out failed 1 time with EINVAL: O_DIRECT needs sizes that are multiples of 512" t.txt &&
	! grep "bs=512: .*EINVAL" t.txt
'

test_expect_success PTRACE 'sweep run dd: the misaligned O_DIRECT point, and only it, has EINVAL' '
	probe=$(dd if=/dev/zero of=probe bs=1130 count=1 oflag=direct 2>&1) && exit 0
	echo "$probe" | grep -q "Invalid argument" || exit 0
	"$IOTRACE" sweep --repeat 1 bs=512,1130,4096 run dd size=64K \
		of=direct.out oflag=direct >t.txt 2>/dev/null &&
	sweep_calls t.txt >actual &&
	printf "%s\n" "512 129" "1130 4" "4096 17" >expect &&
	test_cmp expect actual &&
	grep "bs=1130: write to .*direct.out failed 1 time with EINVAL: O_DIRECT needs sizes that are multiples of 512 (each call asked 1,130 bytes)" t.txt &&
	test $(grep -c "EINVAL" t.txt) = 1
'

test_expect_success PTRACE 'sweep --svg writes a well-formed SVG' '
	"$IOTRACE" sweep --repeat 1 --svg chart.svg bs=512,4K -- \
		dd if=/dev/zero of=out bs={} count=10 >/dev/null 2>&1 &&
	xmllint --noout chart.svg &&
	grep -c "<circle" chart.svg >n && test "$(cat n)" = 4
'

test_expect_success PTRACE 'sweep --save-dir keeps each point for diff' '
	"$IOTRACE" sweep --repeat 1 --save-dir pts buf=0,1000 \
		run bufwrite total=1000 unit=1 of=out >/dev/null 2>&1 &&
	test -f pts/buf=0.json && test -f pts/buf=1000.json &&
	"$IOTRACE" report pts/buf=0.json >r.txt &&
	grep -E " 1000 +write$" r.txt &&
	"$IOTRACE" diff pts/buf=0.json pts/buf=1000.json >d.txt &&
	grep "write calls 1,000 -> 1$" d.txt
'

test_expect_success PTRACE 'sweep -o FILE writes the table there' '
	"$IOTRACE" -o table.txt sweep --repeat 1 bs=1,2 -- \
		dd if=/dev/zero of=out bs={} count=5 >stdout 2>/dev/null &&
	grep "iotrace sweep of bs" table.txt &&
	! grep "iotrace sweep" stdout
'

test_expect_failure_code 2 'sweep: a command without {} is refused' '
	"$IOTRACE" sweep bs=1,2 -- dd if=/dev/zero of=out count=1
'

test_expect_failure_code 2 'sweep: KEY=V1,V2 missing' '
	"$IOTRACE" sweep -- dd bs={}
'

test_expect_failure_code 2 'sweep: --repeat 0 is refused' '
	"$IOTRACE" sweep --repeat 0 bs=1 -- dd bs={}
'

test_expect_success 'sweep: bad input runs nothing' '
	"$IOTRACE" sweep --repeat x bs=1 -- touch marker{} 2>err;
	test $? = 2 && ! test -e marker1 &&
	test $(wc -l <err) = 1 && grep "repeat" err
'

test_done
