#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-agent: the agent engine (issue 13) against the ptrace engine
# and the untraced run, measured side by side in one run (A B C A B C ...,
# REPS rounds, medians), so only ratios are compared.
#
# Part 1, overhead: wall time of GNU dd bs=1024 count=20480 to a file and
# of `iotrace run bufwrite buf=0 total=1000000` (untraced: the same
# million 1-byte writes by the writeloop helper), each untraced, under
# --engine=ptrace and under --engine=agent; wall from fork to reap, so
# iotrace's start-up and calibration are in it.  Part 2, accuracy: the
# per-call write time each engine reports against the workload's own
# untraced self-timed mean (--truth), for 1-byte, 1 KiB and 64 KiB
# writes.  Prints both tables and checks the issue's targets.
set -eu
: "${IOTRACE:?}" "${HELPERS:?}"
REPS=${REPS:-5}
work=$(mktemp -d "${TMPDIR:-/tmp}/iotrace-bench-agent.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

now_ns() { date +%s%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

run_one() { # command... -> wall ns
	t0=$(now_ns)
	"$@" >/dev/null 2>&1 || true
	echo $(($(now_ns) - t0))
}

DD="dd if=/dev/zero of=$work/dd.out bs=1024 count=20480"
BW="run bufwrite buf=0 total=1000000 of=$work/bw.out"

echo "iotrace agent bench: $REPS interleaved rounds on $(nproc) CPUs, $(uname -r)"
echo "part 1: wall time, median of $REPS"
: >walls
round=1
while [ "$round" -le "$REPS" ]; do
	# shellcheck disable=SC2086
	{
		echo "dd untraced $(run_one $DD)"
		echo "dd ptrace $(run_one "$IOTRACE" -o /dev/null -- $DD)"
		echo "dd agent $(run_one "$IOTRACE" --engine=agent -o /dev/null -- $DD)"
		echo "bufwrite untraced $(run_one "$HELPERS/writeloop" "$work/bw.out" 1000000 1)"
		echo "bufwrite ptrace $(run_one "$IOTRACE" -o /dev/null $BW)"
		echo "bufwrite agent $(run_one "$IOTRACE" --engine=agent -o /dev/null $BW)"
	} >>walls
	round=$((round + 1))
done
wall_of() { awk -v w="$1" -v m="$2" '$1 == w && $2 == m { print $3 }' walls | median; }

printf '%-10s %-10s %10s %11s %11s\n' workload engine "wall s" "/untraced" "/ptrace"
for w in dd bufwrite; do
	for m in untraced ptrace agent; do
		v=$(wall_of $w $m)
		printf '%-10s %-10s %10.3f %11s %11s\n' $w $m \
			"$(awk -v n="$v" 'BEGIN { print n / 1e9 }')" \
			"$(ratio "$v" "$(wall_of $w untraced)")" \
			"$(ratio "$v" "$(wall_of $w ptrace)")"
	done
done

# Part 2: the ground truth table of --truth gives, for write, the
# untraced mean and the traced usecs/call (6 columns).
truth_line() { # file -> "truth_mean_ns traced_ns"
	awk '/^ground truth/ { g = 1 } g && $1 == "write" && NF == 6 {
		printf "%d %d\n", $3 * 1000, $6 * 1000; exit }' "$1"
}
echo
echo "part 2: write per call against the untraced self-timed mean (ns), median of $REPS"
printf '%-22s %9s %9s %9s  %s\n' case truth ptrace agent "agent target"
for spec in "1 200000" "1024 100000" "65536 5000"; do
	unit=${spec% *}
	total=$((unit * ${spec#* }))
	: >truth; : >pt; : >ag
	round=1
	while [ "$round" -le "$REPS" ]; do
		for e in ptrace agent; do
			"$IOTRACE" --engine=$e -o t.txt --truth run bufwrite buf=0 \
				unit=$unit total=$total of="$work/lat.out" \
				>/dev/null 2>&1 || true
			set -- $(truth_line t.txt)
			echo "${1:-0}" >>truth
			if [ $e = ptrace ]; then echo "${2:-0}" >>pt; else echo "${2:-0}" >>ag; fi
		done
		round=$((round + 1))
	done
	t=$(median <truth); p=$(median <pt); a=$(median <ag)
	verdict=$(awk -v t="$t" -v a="$a" 'BEGIN { d = a - t; if (d < 0) d = -d
		lim = 0.1 * t; if (lim < 300) lim = 300
		print (d <= lim) ? "met" : "MISSED" }')
	printf '%-22s %9s %9s %9s  %s\n' "write, unit=$unit" "$t" "$p" "$a" \
		"$verdict (within max(10%, 0.3 us))"
done

echo
echo "targets (ratios from part 1):"
check() { # value limit label
	printf '%-52s %6s <= %-5s %s\n' "$3" "$1" "$2" \
		"$(awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "met" : "MISSED" }')"
}
check "$(ratio "$(wall_of dd agent)" "$(wall_of dd ptrace)")" 0.5 "dd: agent / ptrace"
check "$(ratio "$(wall_of dd agent)" "$(wall_of dd untraced)")" 4 "dd: agent / untraced"
check "$(ratio "$(wall_of bufwrite agent)" "$(wall_of bufwrite ptrace)")" 0.4 "bufwrite: agent / ptrace"
