#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench, part 4: what -k costs per call against strace -f -k, on
# syscall-bound loops (writeloop: one-byte writes, as bufwrite buf=0
# makes them; GNU dd bs=1024), measured in one run, interleaved
# (untraced, iotrace, iotrace -k, strace -f -k; REPS rounds, medians).
# The cost of a mode is (its wall - the untraced wall) / calls; the
# target is iotrace -k under 1/5 of strace -f -k.  Then iotrace -k's peak
# RSS on a long run (RSS_CALLS one-byte writes, /usr/bin/time): the
# caches are bounded, so it must not grow with the calls.
set -eu
. "$(dirname "$0")/lib.sh"
: "${IOTRACE:?}" "${HELPERS:?}"
REPS=${REPS:-5}
CALLS=${CALLS:-3000}
RSS_CALLS=${RSS_CALLS:-1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/iotrace-stacks.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

# Calls each workload makes: what iotrace's table counts of writes and
# reads is not needed; the loops' own counts are (dd: reads + writes).
workloads="bufwrite|$CALLS|$HELPERS/writeloop $work/bw.out $CALLS 1
dd|$((2 * CALLS))|dd if=/dev/zero of=$work/dd.out bs=1024 count=$CALLS"
modes="untraced|
iotrace|$IOTRACE -o $work/i.txt --
iotrace-k|$IOTRACE -k -o $work/i.txt --
strace-k|strace -f -k -o $work/s.txt"

interleave "$workloads" "$modes"

echo "part 4: -k per call against strace -f -k, $CALLS-call loops, median of $REPS"
printf '%-10s %-10s %10s %14s\n' workload mode "wall s" "us/call added"
fail=0
: >part4.json
echo "$workloads" | {
while IFS='|' read -r wname calls wcmd; do
	base=$(wall_of "$wname" untraced)
	for m in iotrace iotrace-k strace-k; do
		w=$(wall_of "$wname" "$m")
		awk -v w="$w" -v b="$base" -v n="$calls" -v wn="$wname" \
			-v m="$m" 'BEGIN { printf "%-10s %-10s %10.3f %14.2f\n",
				wn, m, w / 1e9, (w - b) / n / 1e3 }'
	done
	k=$(wall_of "$wname" iotrace-k)
	s=$(wall_of "$wname" strace-k)
	r=$(awk -v k="$k" -v s="$s" -v b="$base" \
		'BEGIN { printf "%.3f", (s > b) ? (k - b) / (s - b) : 0 }')
	echo "$wname: iotrace -k costs $r of strace -f -k per call (target < 0.2)"
	awk -v r="$r" 'BEGIN { exit !(r < 0.2) }' || fail=1
done
exit $fail
} || fail=1

if [ -x /usr/bin/time ]; then
	/usr/bin/time -f %M -o rss "$IOTRACE" -k -o i.txt -- \
		"$HELPERS/writeloop" "$work/rss.out" "$RSS_CALLS" 1 \
		>/dev/null 2>&1 || true
	echo "iotrace -k peak RSS over $RSS_CALLS calls: $(cat rss) KiB"
fi
[ "$fail" = 0 ] || echo "part 4: target missed"
exit 0
