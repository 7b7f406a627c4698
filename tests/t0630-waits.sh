#!/bin/sh
# SPDX-License-Identifier: MIT
# Work and waits apart (issue 22): the sleepwrite helper's 8 threads
# sleep in futex for the whole run while its main thread makes exactly K
# writes of 64 bytes to a file.  The table keeps strace's rows, futex
# first by time; the header says how long was waited and by how many
# threads, apart from work; the findings say the waits and that write
# led the work; -k's call sites list write first; diff's headline ranks
# write, never futex, and says the waits after it.  Counts are exact and
# equal strace -f -c's; the futex calls timing decides are not compared.
. "$(dirname "$0")/lib.sh"

# run NAME K [N]: N sleepers (8) and K writes, into NAME.txt, NAME.json.
run() {
	"$IOTRACE" -o "$1.txt" --save "$1.json" -- \
		"$HELPERS/sleepwrite" "${3:-8}" "$2" 64 "$1.out"
}

# The waiting threads: the 8 sleepers, and the main thread when its
# join waited (timing decides).
sleepers="(8|9)"

test_expect_success PTRACE 'the table keeps the rows: K writes exact, futex first' '
	run a 20000 &&
	test "$(table_calls write a.txt)" = 20000 &&
	grep -Eq "^write +20000 +1280000 +64 +0 .* .*/a\.out " a.txt &&
	test "$(wc -c <a.out)" = 1280000 &&
	awk "/^------/ { getline; print \$NF; exit }" a.txt >first &&
	echo futex >want && test_cmp want first
'

test_expect_success PTRACE 'the header: waited by the sleepers, apart from work' '
	sed -n 2p a.txt >second &&
	grep -Eq "; [0-9.]+ (ms|s) waited by $sleepers threads \(wait4, poll, futex\.\.\.\), apart from work$" second
'

test_expect_success PTRACE 'the findings: waits said apart, write leads the work' '
	sed -n "/^Findings:/,\$p" a.txt >findings &&
	grep -Eq "^- [0-9.]+% of syscall time was in calls that wait, not work: $sleepers threads waited [0-9.]+ s in futex [0-9.]+ s \([0-9]+ calls\); the work took [0-9.]+ s, led by write [0-9.]+ s \(20,000 calls\)\.$" findings &&
	! grep -q "^- futex" findings
'

test_expect_success PTRACE,STRACE 'counts equal strace -f -c'"'"'s' '
	strace -f -c -o s.txt "$HELPERS/sleepwrite" 8 20000 64 s.out &&
	test "$(table_calls write s.txt)" = 20000 &&
	test "$(table_calls clone3 s.txt)" = "$(table_calls clone3 a.txt)" &&
	test "$(table_calls futex s.txt)" -ge 8 &&
	test "$(table_calls futex a.txt)" -ge 8
'

test_expect_success PTRACE '-k: write first in the call sites, futex after' '
	"$IOTRACE" -k -o k.txt -- "$HELPERS/sleepwrite" 8 20000 64 k.out &&
	sed -n "/^Call sites/,/^\$/p" k.txt >sites &&
	sed -n 2p sites >top &&
	grep -Eq "^write  20,000 calls, [0-9.]+ s$" top &&
	sed -n 3p sites | grep -Eq "^ +100\.0% +20,000 calls +[0-9.]+ s  main \(sleepwrite\)$"
'

test_expect_success PTRACE 'diff: write ranked, the waits after it' '
	run b 10000 &&
	"$IOTRACE" diff a.json b.json >d &&
	head -1 d >headline &&
	grep -Eq "write calls 20,000 -> 10,000(;|$)" headline &&
	grep -Eq "; waits [0-9.]+ (s|ms|us) -> [0-9.]+ (s|ms|us) in $sleepers -> $sleepers threads$" headline &&
	sed "s/; waits .*//" headline >work &&
	! grep -q futex work &&
	grep -E " futex$" d >row && set -- $(cat row) &&
	test "$1" -ge 8 && test "$2" -ge 8
'

test_expect_success PTRACE 'diff: more sleepers change the waits, not the ranking' '
	run c 20000 16 &&
	"$IOTRACE" diff a.json c.json >d &&
	head -1 d >headline &&
	grep -Eq "; waits .* in $sleepers -> (16|17) threads$" headline &&
	sed "s/; waits .*//" headline >work &&
	! grep -q futex work
'

test_done
