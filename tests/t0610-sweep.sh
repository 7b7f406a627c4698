#!/bin/sh
# SPDX-License-Identifier: MIT
# iotrace sweep: per value, --repeat untraced runs (wall, MB/s) and one
# traced run (calls, times); exact call counts per point, the findings
# that differ, a well-formed SVG chart; the command's output hidden, a
# failing point marked and not repeated.
. "$(dirname "$0")/lib.sh"

# The "calls" column of a sweep table, value by value.
sweep_rows() {
	awk 'NR > 3 && /^(\* best|best|~ tie):/ { exit }
	     NR > 3 { sub(/^[*~]/, " "); print }' "$1"
}
sweep_calls() {
	sweep_rows "$1" | awk '{ print $1, $6 }'
}

test_expect_success PTRACE 'sweep -- CMD with {}: one row per value, exact calls' '
	"$IOTRACE" sweep --repeat 1 bs=1,10,100 -- \
		dd if=/dev/zero of=out bs={} count=50 >t.txt 2>/dev/null &&
	grep "iotrace sweep of bs: 3 points, each 1 untraced run (median) and 1 traced run" t.txt &&
	grep -E "^ +untraced \(median of 1\) -+ traced \(1 run\) -+$" t.txt &&
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
	grep "each 2 untraced runs (median)" t.txt &&
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

# Findings that differ between points, each whole on its line, ending
# with its full stop: one longer than 512 bytes (two 150-byte paths),
# which a point once kept cut, and the page cache's block-size one,
# which has a "; " where a point's findings were once split.
test_expect_success PTRACE 'sweep: a point'"'"'s findings whole, never cut or split' '
	long=$(printf "%0150d" 0) &&
	head -c 1100000 /dev/zero >"$long.in" &&
	"$IOTRACE" sweep --repeat 1 bs=1130,4096 -- \
		dd if="$long.in" of="$long.{}" bs={} >t.txt 2>/dev/null &&
	sed "1,/^Findings that differ between points:$/d" t.txt >f.txt &&
	test -s f.txt && ! grep -v -x "  bs=[^:]*: .*\." f.txt &&
	grep -F -x "  bs=4096: read+write pairs copied 1.1 MB through user space from $PWD/$long.in to $PWD/$long.4096: copy_file_range would skip the copy." f.txt &&
	grep "^  bs=1130: write to $PWD/$long.1130: 973 of 974 calls asked 1,130 bytes, which neither fills nor divides its block size 4096: " f.txt
'

# Tiny writes at bs=1 and bs=2, not at 4096: one finding, said once for
# both points (with bs=1's figures), not once a point.
test_expect_success PTRACE 'sweep: a finding said once for the points it holds at' '
	"$IOTRACE" sweep --repeat 1 bs=1,2,4096 -- \
		dd if=/dev/zero of=out bs={} count=2000 >t.txt 2>/dev/null &&
	sed "1,/^Findings that differ between points:$/d" t.txt >f.txt &&
	test $(grep -c "^  bs=[^:]*: write: " f.txt) = 1 &&
	grep "^  bs=1,2 (figures at bs=1): write: 2,003 calls averaging 1 byte.* A 64 KiB buffer would make ~1 call\.$" f.txt
'

test_expect_success PTRACE 'sweep --svg writes a well-formed SVG' '
	"$IOTRACE" sweep --repeat 1 --svg chart.svg bs=512,4K -- \
		dd if=/dev/zero of=out bs={} count=10 >/dev/null 2>&1 &&
	xmllint --noout chart.svg &&
	test $(grep -c "<circle class=\"point\"" chart.svg) = 2 &&
	test $(grep -c "<rect class=\"point\"" chart.svg) = 2
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

# Each point's first untraced run finds no marker and is quick, the
# next two sleep 0.3 s: both points are named as not run alike.
test_expect_success PTRACE 'sweep: untraced runs 2x apart or more are named' '
	rm -f seen1 seen2 &&
	"$IOTRACE" sweep --repeat 3 n=1,2 -- \
		sh -c "test -e seen{} && sleep 0.3; : >seen{}" >t.txt 2>/dev/null &&
	grep -E "^untraced runs 2x apart or more, which did not run alike .*: n=1 \([0-9.]+x\), n=2 \([0-9.]+x\)$" t.txt
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

# The column of a row: sweep_col VALUE N FILE.
sweep_col() {
	sweep_rows "$3" | awk -v v="$1" -v n="$2" '$1 == v { print $n }'
}

test_expect_success PTRACE 'sweep: --repeat N untraced runs and one traced run per point' '
	"$IOTRACE" sweep --repeat 3 n=1,2 -- sh -c "echo {} >>runs" \
		>t.txt 2>/dev/null &&
	test $(grep -c "^1$" runs) = 4 && test $(grep -c "^2$" runs) = 4 &&
	test "$(sweep_col 1 2 t.txt)" != "-" &&
	sweep_col 1 2 t.txt | grep -E "^[0-9]+\.[0-9]{3}$"
'

test_expect_success PTRACE 'sweep: the table never lands in the command'"'"'s stdout' '
	"$IOTRACE" sweep --repeat 2 n=1,2 -- \
		sh -c "echo OUT{}; echo ERR{} >&2" >table.out 2>err &&
	grep "iotrace sweep of n" table.out && ! grep OUT table.out &&
	! grep -E "OUT|ERR" err
'

test_expect_success PTRACE 'sweep --show-output: the command'"'"'s output on stderr' '
	"$IOTRACE" sweep --show-output --repeat 2 n=7 -- \
		sh -c "echo OUT{}; echo ERR{} >&2" >table.out 2>err &&
	! grep OUT table.out && test $(grep -c OUT7 err) = 3 &&
	test $(grep -c ERR7 err) = 3
'

test_expect_success PTRACE 'sweep: stdin of every run is /dev/null' '
	echo typed | "$IOTRACE" sweep --repeat 2 n=1 -- \
		sh -c "cat >>got; echo end{} >>got" >t.txt 2>/dev/null &&
	printf "end1\nend1\nend1\n" >expect && test_cmp expect got
'

test_expect_success PTRACE 'sweep: a failing point reads failed, is not repeated, its stderr shown once' '
	"$IOTRACE" sweep --repeat 3 n=0,3 -- \
		sh -c "echo run{} >>fruns; echo oops{} >&2; exit {}" >t.txt 2>err &&
	test $(grep -c "^run0$" fruns) = 4 && test $(grep -c "^run3$" fruns) = 2 &&
	test "$(sweep_col 3 4 t.txt)" = failed &&
	test "$(sweep_col 3 2 t.txt)" = - &&
	test "$(sweep_rows t.txt | awk "\$1 == 3 { print \$NF }")" = 3 &&
	sweep_rows t.txt | grep -E "^ +0 " && ! grep "^\* +3 " t.txt &&
	test $(grep -c oops3 err) = 1 && ! grep oops0 err &&
	grep "iotrace: sweep n=3: untraced run 1 exited 3: the point failed" err
'

test_expect_success PTRACE 'sweep: a point killed by a signal says so' '
	"$IOTRACE" sweep --repeat 2 n=1 -- \
		sh -c "kill -SEGV \$\$ # {}" >t.txt 2>err &&
	grep "untraced run 1 killed by SIGSEGV" err &&
	test "$(sweep_col 1 4 t.txt)" = failed
'

test_expect_success PTRACE 'sweep --count-only: "-" where nothing was timed, never 0.0' '
	"$IOTRACE" --count-only sweep --repeat 1 buf=0,64 \
		run bufwrite total=1000 unit=1 of=out >t.txt 2>/dev/null &&
	sweep_rows t.txt | awk "{ print \$1, \$4, \$7, \$8, \$9 }" >actual &&
	printf "0 - - - -\n64 - - - -\n" >expect &&
	test_cmp expect actual
'

test_expect_success PTRACE 'sweep --save-dir: a point keeps its untraced runs as its baseline' '
	"$IOTRACE" sweep --repeat 1 --save-dir pts mode=splice \
		run splice size=1M of=out >t.txt 2>/dev/null &&
	"$IOTRACE" --format=json report pts/mode=splice.json >p.json &&
	test "$(sweep_col splice 5 t.txt)" = splice &&
	grep "\"baseline\": {" p.json && grep "\"runs\": 1," p.json
'

test_expect_success PTRACE 'sweep: a later repeat that cannot start fails the point, no crash' '
	printf "#!/bin/sh\nrm -f \"\$0\"\n" >gone-1 && chmod +x gone-1 &&
	"$IOTRACE" sweep --repeat 3 n=1 -- ./gone-{} >t.txt 2>err &&
	grep "sweep n=1: untraced run 2 exited 127: the point failed" err &&
	test "$(sweep_col 1 4 t.txt)" = failed &&
	grep "^\* best: none, every point failed$" t.txt
'

# iflag=,direct once dropped the empty value ("1 points"): an empty value
# is a point of its own, the command without its NAME={} word.
test_expect_success PTRACE 'sweep: an empty value leaves the NAME={} word out' '
	"$IOTRACE" sweep --repeat 1 --save-dir pe n=,5 -- \
		sh -c "echo \$# >>args" sh extra={} >t.txt 2>/dev/null &&
	grep "iotrace sweep of n: 2 points" t.txt &&
	test "$(sweep_rows t.txt | awk "{ print \$1 }" | tr "\n" " ")" = "(none) 5 " &&
	printf "0\n0\n1\n1\n" >expect && test_cmp expect args &&
	test -f "pe/n=.json" && test -f pe/n=5.json
'

test_expect_success PTRACE 'sweep run: an empty value is the workload default' '
	"$IOTRACE" --count-only sweep --repeat 1 buf=,64 \
		run bufwrite total=1000 unit=1 of=out >t.txt 2>/dev/null &&
	sweep_calls t.txt >actual &&
	printf "%s\n" "(none) 1" "64 16" >expect &&
	test_cmp expect actual
'

test_expect_success 'sweep: an empty value with no NAME={} to drop is refused in one line' '
	"$IOTRACE" sweep n=,1 -- sh -c "touch ran{}" 2>err;
	test $? = 2 && ! test -e ran && ! test -e ran1 &&
	test $(wc -l <err) = 1 && grep "no word of the command is NAME={}" err
'

test_expect_success 'sweep: a value given twice is refused' '
	"$IOTRACE" sweep n=1,,1 -- touch ran{} 2>err;
	test $? = 2 && ! test -e ran1 && test $(wc -l <err) = 1 &&
	grep "value .1. given twice" err
'

# On a terminal, each point leaves a line with its result as it ends.
test_expect_success PTRACE 'sweep: a progress line per point on a terminal' '
	command -v script >/dev/null || exit 0
	script -qec "\"$IOTRACE\" sweep --repeat 2 n=1,2 -- sh -c \": {}\" >t.txt" \
		/dev/null >tty.out 2>&1 &&
	tr "\r" "\n" <tty.out | grep -a "^iotrace: sweep n=" | grep -a "(median of 2 untraced runs, " >lines &&
	test $(wc -l <lines) = 2 &&
	grep -a "^iotrace: sweep n=1 (1/2): .*[0-9] s.* (median of 2 untraced runs, [0-9.]*-[0-9.]* s)$" lines &&
	grep -a "^iotrace: sweep n=2 (2/2): " lines &&
	"$IOTRACE" sweep --repeat 1 n=1 -- sh -c ": {}" >t.txt 2>err &&
	! test -s err
'

test_done
