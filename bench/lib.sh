# SPDX-License-Identifier: MIT
# Shared by the bench/ scripts (sourced): clocks, medians, and the
# interleaved rounds every comparison is made of (A B C A B C ...: only
# ratios measured side by side are compared, as machines drift).

now_ns() { date +%s%N; }

# The median of the numbers on stdin, one per line.
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The lowest and highest of the numbers on stdin, as LO..HI.
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s..%s", lo, hi }'; }

# a / b to two decimals, 0 when b is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }

run_one() { # prefix command -> prints wall ns
	# The runs before wrote files: their writeback is theirs, not this
	# run's.
	sync
	t0=$(now_ns)
	# shellcheck disable=SC2086
	$1 $2 >/dev/null 2>&1 || true
	echo $(($(now_ns) - t0))
}

# interleave WORKLOADS MODES [FILTER]: REPS rounds of every workload
# under every mode into ./walls as "workload mode ns" lines.  A workload
# line is "name|...|command" (its first field names it, its last is run),
# a mode line "name|prefix".  FILTER, a command given the workload's and
# the mode's names, skips the pairs for which it fails.  Each workload's
# round starts with one untimed run: these VMs give back page cache left
# cold for about a minute, and a round of all modes takes longer, so the
# round's first mode, the untraced run, would pay reads from disk the
# others do not (bench/RESULTS.md, 2026-12-08's fourth run).
interleave() {
	: >walls
	round=1
	while [ "$round" -le "$REPS" ]; do
		echo "$1" | while IFS= read -r wline; do
			run_one "" "${wline##*|}" </dev/null >/dev/null
			echo "$2" | while IFS='|' read -r mname mprefix; do
				if [ -n "${3:-}" ] && ! $3 "${wline%%|*}" "$mname"; then
					continue
				fi
				echo "${wline%%|*} $mname $(run_one "$mprefix" \
					"${wline##*|}")" >>walls
			done
		done
		round=$((round + 1))
	done
}

# The median wall of workload $1 under mode $2, from ./walls.
wall_of() { awk -v w="$1" -v m="$2" '$1 == w && $2 == m { print $3 }' walls | median; }
