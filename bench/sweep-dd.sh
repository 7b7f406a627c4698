#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench-sweep: is a sweep's throughput the program's own?  A sweep
# of the built-in dd over block sizes (16 MiB to a file) against GNU dd
# run untraced at the same block size, in the same run, interleaved
# (sweep point, GNU dd, next block size ...), REPS rounds, medians.  Only
# ratios measured together are compared: absolute times drift between
# runs on a shared machine, ratios measured side by side do not.
#
# Part 1: each point's MB/s (a sweep with --repeat 1 per round and block
# size, between two GNU dd runs at that block size: A B A) over GNU dd's
# MB/s (the mean of the two): the ratio of the medians, and the range of
# the per-round ratios; the two GNU dd runs against each other show the
# noise of the machine.  Target: within 25%.  Writing 16 MiB to the page cache costs
# what the writeback of the run before it leaves to do, so each side
# starts after a sync (outside the times): the sweep's untraced run
# comes right after one, and so does GNU dd; without it GNU dd always
# ran right behind the sweep's traced run and its dirty pages.
# Part 2: one whole sweep (--repeat REPS) between REPS rounds of GNU dd
# before and REPS after (no sync: as a user would run them): its best
# marker must sit on the block size GNU dd is fastest at (medians).
# GNU dd is timed from the shell (date before and after), so its figures
# include starting a program (fork, exec, the loader: a small share of
# a 16 MiB copy) that the built-in, forked from iotrace, does
# not pay.  Part 1 measures that start-up (GNU dd copying nothing to
# /dev/null) in every round and gives the ratio both ways.
set -eu
. "$(dirname "$0")/lib.sh"
: "${IOTRACE:?}"
REPS=${REPS:-3}
SIZES=${SIZES:-"512 4K 64K 256K"}
BYTES=16777216
work=$(mktemp -d "${TMPDIR:-/tmp}/iotrace-sweep-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"

bytes_of() { case $1 in *K) echo $((${1%K} * 1024)) ;; *) echo "$1" ;; esac; }

# The rows of a sweep table, the best marker turned into a field; the
# notes start at "best:" ("* best:" where a point is marked).
rows() { awk 'NR > 3 && /^(\* )?best:/ { exit }
	NR > 3 { best = sub(/^\*/, " "); print $1, $4, best }' "$1"; }

gnu_ns() { # bs [sync] -> ns of one untraced GNU dd
	n=$(($BYTES / $(bytes_of "$1")))
	[ -z "${2:-}" ] || sync
	t0=$(now_ns)
	dd if=/dev/zero of="$work/gnu.out" bs="$1" count="$n" 2>/dev/null
	t1=$(now_ns)
	echo $((t1 - t0))
}
start_ns() { # -> ns of GNU dd copying nothing: starting a program
	t0=$(now_ns)
	dd if=/dev/zero of=/dev/null count=0 2>/dev/null
	t1=$(now_ns)
	echo $((t1 - t0))
}
mbps() { awk -v ns="$1" -v b=$BYTES 'BEGIN { printf "%.1f\n", b * 1e3 / ns }'; }
gnu_dd() { mbps "$(gnu_ns "$@")"; }

echo "iotrace sweep vs GNU dd: $REPS interleaved rounds, 16 MiB to a file" \
	"in ${TMPDIR:-/tmp}, $(nproc) CPUs, $(uname -r)"
# Per round and block size: GNU dd, the sweep point, GNU dd again (A B A),
# each after a sync; then GNU dd's start-up alone.
: >rounds
round=1
while [ $round -le "$REPS" ]; do
	for bs in $SIZES; do
		g1=$(gnu_ns "$bs" sync)
		sync
		"$IOTRACE" sweep --repeat 1 bs="$bs" run dd size=16M \
			of="$work/sweep.out" >t.txt 2>/dev/null
		s=$(rows t.txt | awk '{ print $2 }')
		g2=$(gnu_ns "$bs" sync)
		echo "$bs $s $g1 $g2 $(start_ns)" >>rounds
	done
	round=$((round + 1))
done
# bs, sweep MB/s, GNU dd MB/s (mean of the two), the same less start-up,
# and the two GNU dd runs against each other (the noise floor).
awk -v b=$BYTES '{ g = ($3 + $4) / 2
	printf "%s %s %.1f %.1f %.3f\n", $1, $2, b * 1e3 / g,
		b * 1e3 / (g - $5), $3 / $4 }' rounds >pairs

echo
echo "part 1: MB/s per block size, median of $REPS (per-round ratios in brackets)"
printf '%6s %10s %11s %6s %13s %11s %6s %13s %13s  %s\n' bs "sweep MB/s" \
	"GNU dd MB/s" ratio "per round" "GNU dd -st" ratio "per round" \
	"GNU/GNU" target
col() { awk -v b="$1" -v c="$2" '$1 == b { print $c }' pairs; }
for bs in $SIZES; do
	s=$(col "$bs" 2 | median)
	g=$(col "$bs" 3 | median)
	c=$(col "$bs" 4 | median)
	r=$(awk -v s="$s" -v g="$g" 'BEGIN { printf "%.2f", s / g }')
	rc=$(awk -v s="$s" -v g="$c" 'BEGIN { printf "%.2f", s / g }')
	rr=$(awk -v b="$bs" '$1 == b { printf "%.2f\n", $2 / $3 }' pairs | range)
	rrc=$(awk -v b="$bs" '$1 == b { printf "%.2f\n", $2 / $4 }' pairs | range)
	aa=$(col "$bs" 5 | range)
	ok=$(awk -v r="$r" -v c="$rc" 'BEGIN { m = r >= 0.75 && r <= 1.25 &&
		c >= 0.75 && c <= 1.25; print m ? "met" : "MISSED" }')
	printf '%6s %10s %11s %6s %13s %11s %6s %13s %13s  %s\n' "$bs" "$s" \
		"$g" "$r" "[$rr]" "$c" "$rc" "[$rrc]" "[$aa]" "$ok (25%)"
done
echo "start-up of GNU dd (copying nothing to /dev/null): median" \
	"$(awk '{ print $5 / 1e6 }' rounds | median) ms," \
	"range $(awk '{ print $5 / 1e6 }' rounds | range) ms"
echo "GNU/GNU: the two GNU dd runs of a round against each other: the noise"

echo
echo "part 2: the best marker of one sweep (--repeat $REPS) against GNU dd's best"
list=$(echo "$SIZES" | tr ' ' ',')
: >gnu2
gnu_rounds() {
	r=1
	while [ $r -le "$REPS" ]; do
		for bs in $SIZES; do echo "$bs $(gnu_dd "$bs")" >>gnu2; done
		r=$((r + 1))
	done
}
gnu_rounds
"$IOTRACE" sweep --repeat "$REPS" bs="$list" run dd size=16M \
	of="$work/sweep.out" >whole.txt 2>/dev/null
gnu_rounds
sed -n '1,3p' whole.txt
rows whole.txt | while read -r v mbps best; do
	printf '%c %10s %9s MB/s   GNU dd %s MB/s\n' "$([ "$best" = 1 ] && echo '*' || echo ' ')" \
		"$v" "$mbps" "$(awk -v b="$v" '$1 == b { print $2 }' gnu2 | median)"
done
sweep_best=$(rows whole.txt | awk '$3 == 1 { print $1 }')
sweep_best=${sweep_best:-none (not told from noise)}
gnu_best=$(for bs in $SIZES; do
	echo "$bs $(awk -v b="$bs" '$1 == b { print $2 }' gnu2 | median)"
done | sort -k2 -g | tail -1 | cut -d' ' -f1)
echo "sweep best: $sweep_best; GNU dd best (median of $((2 * REPS)) runs around the sweep): $gnu_best:" \
	"$([ "$sweep_best" = "$gnu_best" ] && echo met || echo MISSED)"
