#!/bin/sh
# SPDX-License-Identifier: MIT
# --baseline[=N]: N untraced runs (stdin /dev/null, output discarded,
# same environment and directory) before the traced one, summarised in
# the header and the JSON; bad values and failing commands refused with
# one line and exit 2 before anything is traced.  --truth implies it,
# and is refused where it cannot apply.  Times are matched by shape only.
. "$(dirname "$0")/lib.sh"

n="[0-9]+\.[0-9]{3}"
u="(s|ms)"

for bad in 0 x -1 "" 101 3x; do
	test_expect_success "--baseline=$bad: one line naming it, exit 2, nothing run" '
		"$IOTRACE" --baseline="'"$bad"'" -- touch marker >out 2>err;
		test $? = 2 && ! test -e marker && test $(wc -l <err) = 1 &&
		grep -F "iotrace: --baseline: expected a number of untraced runs from 1 to 100, got '"'$bad'"'" err
	'
done

test_expect_success PTRACE '--baseline=N runs the command N times untraced, then once traced' '
	"$IOTRACE" --baseline=4 -o r.txt -- sh -c "echo x >>log" &&
	test $(wc -l <log) = 5 &&
	"$IOTRACE" --baseline -o r.txt -- sh -c "echo y >>log2" &&
	test $(wc -l <log2) = 4
'

test_expect_success PTRACE 'untraced runs: stdin /dev/null, stdout discarded' '
	echo typed | "$IOTRACE" --baseline=2 -o r.txt -- \
		sh -c "cat; echo line; echo run >>log3" >stdout 2>stderr &&
	printf "typed\nline\n" >expect && test_cmp expect stdout &&
	test $(wc -l <log3) = 3
'

test_expect_success PTRACE 'untraced runs: same environment and directory' '
	mkdir sub && (cd sub && FOO=bar "$IOTRACE" --baseline=2 -o ../r.txt -- \
		sh -c "echo \$FOO \$(pwd) >>../log4") &&
	test $(wc -l <log4) = 3 && test $(sort -u log4 | wc -l) = 1 &&
	grep "^bar .*/sub$" log4
'

test_expect_success PTRACE 'a command that fails untraced: its words, exit 2, nothing traced' '
	"$IOTRACE" --baseline -o fail.txt -- sh -c "echo oops >&2; exit 3" \
		>out 2>err;
	test $? = 2 && ! test -e fail.txt &&
	printf "%s\n" "oops" "iotrace: --baseline: '"'sh'"' exited 3 in untraced run 1 of 3: nothing traced (it must succeed to be measured)" >expect &&
	test_cmp expect err
'

test_expect_success PTRACE 'a later untraced run that fails: only its own stderr is shown' '
	"$IOTRACE" --baseline=3 -o late.txt -- sh -c \
		"if test -e flag; then echo late >&2; exit 4; fi; touch flag; echo early >&2" \
		>out 2>err;
	test $? = 2 && ! test -e late.txt &&
	printf "%s\n" "late" "iotrace: --baseline: '"'sh'"' exited 4 in untraced run 2 of 3: nothing traced (it must succeed to be measured)" >expect &&
	test_cmp expect err
'

test_expect_success PTRACE 'a command killed untraced: "killed by SIGSEGV", never a wait status' '
	"$IOTRACE" --baseline=2 -o crash.txt -- "$HELPERS/crash" segv >out 2>err;
	test $? = 2 && ! test -e crash.txt && test $(wc -l <err) = 1 &&
	grep "crash'"'"' killed by SIGSEGV\( (core dumped)\)\? in untraced run 1 of 2: nothing traced" err &&
	! grep crashing out
'

test_expect_success PTRACE 'the header: untraced wall, its share; -v: spread, user, system, waiting' '
	"$IOTRACE" -v --baseline -o r.txt -- dd if=/dev/zero of=out bs=4k count=100 2>/dev/null &&
	sed -n 2p r.txt | grep -E "^iotrace: untraced [0-9.]+ $u \(--baseline, median of 3 runs\)(, [0-9.]+% of it in syscalls|; the syscalls as traced took [0-9.]+ $u, more than that: tracing inflated their times, or tasks ran in parallel)" &&
	grep -E "^iotrace: untraced \(--baseline, median of 3 runs\): $n $u wall \($n\.\.$n\) = $n $u user \+ $n $u system( \+ $n $u waiting \([0-9]+\.[0-9]% outside user space\)| \(more CPU than wall: tasks ran in parallel\))$" r.txt &&
	grep -E "^iotrace: time in syscalls \(traced(, waits left out)?\) $n $u (= [0-9]+\.[0-9]% of the untraced wall|is more than the untraced wall \([0-9]+% of it\): .*)$" r.txt
'

# The first untraced run finds no marker and is quick; the others sleep
# 0.3 s: runs that did not run alike are said to differ.
test_expect_success PTRACE 'untraced runs 2x apart or more: the header says so' '
	rm -f seen &&
	"$IOTRACE" -v --baseline=3 -o s.txt -- \
		sh -c "test -e seen && sleep 0.3; : >seen" &&
	sed -n 2p s.txt | grep -E "; the runs took [0-9.]+ to [0-9.]+ $u: not alike, and the share as uncertain" &&
	grep -E "^iotrace: the untraced runs differ by [0-9.]+x \($n\.\.$n $u\): they did not run alike" s.txt
'

test_expect_success PTRACE 'calls that wait are left out of the share' '
	"$IOTRACE" -v --baseline=1 -o w.txt -- sh -c "sleep 0.05; true" &&
	sed -n 2p w.txt | grep -E "; [0-9.]+ $u waited by 2 threads \(wait4, poll, futex...\), apart from work$" &&
	grep -E "^iotrace: time in syscalls \(traced, waits left out\) $n $u " w.txt
'

test_expect_success PTRACE 'the baseline adds no syscall to the traced table' '
	"$IOTRACE" -o plain.txt run bufwrite total=10000 buf=64 of=out &&
	"$IOTRACE" --baseline=2 -o base.txt run bufwrite total=10000 buf=64 of=out &&
	table_counts plain.txt >expect && table_counts base.txt >actual &&
	test_cmp expect actual &&
	grep "median of 2 runs" base.txt && ! grep "(--baseline" plain.txt
'

test_expect_success PTRACE 'JSON carries the baseline; report prints the same header' '
	"$IOTRACE" --baseline=2 -o r.txt --save b.json -- \
		dd if=/dev/zero of=out bs=1k count=10 2>/dev/null &&
	grep -E "^  \"baseline\": \{$" b.json &&
	grep -E "^    \"runs\": 2,$" b.json &&
	for k in wall_ns wall_min_ns wall_max_ns user_ns sys_ns; do
		grep -E "^    \"$k\": [0-9]+,?$" b.json || return 1
	done &&
	"$IOTRACE" report b.json >again.txt &&
	grep "^iotrace:" r.txt >expect && grep "^iotrace:" again.txt >actual &&
	test_cmp expect actual &&
	grep "^iotrace: untraced .* (--baseline, median of 2 runs)" actual
'

# A key of the document's top level, the last one or not.
test_expect_success PTRACE 'without --baseline the JSON says null' '
	"$IOTRACE" -o r.txt --save n.json -- true &&
	grep -E "^  \"baseline\": null,?$" n.json
'

test_expect_success PTRACE '--truth implies a baseline' '
	"$IOTRACE" --truth -o t.txt run bufwrite total=1000 buf=64 of=out &&
	grep "^ground truth" t.txt &&
	grep "^iotrace: untraced .* (--baseline, median of 3 runs)" t.txt
'

test_expect_success '--truth with a command: one line, exit 2, nothing run' '
	"$IOTRACE" --truth -- touch marker >out 2>err;
	test $? = 2 && ! test -e marker && test $(wc -l <err) = 1 &&
	grep "iotrace: --truth: '"'touch'"' is not a built-in workload" err
'

test_expect_success '--truth and --baseline elsewhere: refused, not ignored' '
	"$IOTRACE" --truth sweep bs=1 run dd 2>err; test $? = 2 &&
	grep "truth" err &&
	"$IOTRACE" --baseline sweep bs=1 -- touch m{} 2>err; test $? = 2 &&
	! test -e m1 && grep "repeat" err &&
	"$IOTRACE" --baseline=2 report x.json 2>err; test $? = 2 &&
	grep "baseline" err
'

test_done
