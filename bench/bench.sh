#!/bin/sh
# SPDX-License-Identifier: MIT
# make bench: iotrace against strace, perf trace, bpftrace and the
# untraced run, measured side by side in one run (A B C A B C ..., REPS
# rounds, medians), so only ratios are compared: absolute times drift
# between runs on shared machines, ratios measured together do not.
#
# Part 1, overhead: wall time of each workload untraced, under the other
# tracers and under iotrace's modes, then issue 21's table, and its
# targets from 4 x REPS rounds of their own, untraced and iotrace alone
# (the fast path: iotrace within 1.3x of untraced, 1.5x on /dev/null,
# and at or below a bpftrace counter).  Part 2, accuracy: the write
# latency each tracer reports against the program's own untraced
# measurement (ground truth).  Part 3 (bench/estimate.sh): the header's
# untraced estimate against the untraced runs of --baseline.  Prints the
# tables, checks the targets, writes bench/results/latest.json.
set -eu
. "$(dirname "$0")/lib.sh"
: "${IOTRACE:?}" "${HELPERS:?}"
REPS=${REPS:-5}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/results
start=$(now_ns)
work=$(mktemp -d "${TMPDIR:-/tmp}/iotrace-bench.XXXXXX")
# The tmpfs workloads' files; on a machine without /dev/shm, in $work.
shm=$(mktemp -d /dev/shm/iotrace-bench.XXXXXX 2>/dev/null) || shm=$work
trap 'rm -rf "$work" "$shm"' EXIT
mkdir -p "$out"
cd "$work"

# Workloads: name and command, run as is (no shell in between: a shell
# would be one more process, and change what is measured); a pipeline is
# a script of its own.  Commands by absolute path: bpftrace -c wants one
# (it refuses dd and sh, found in both /bin and /usr/bin), and splits its
# command at spaces, so no quoting in them.
path_of() { # the program $1 on PATH (command -v names builtins)
	(IFS=:; for d in $PATH; do [ -x "$d/$1" ] && echo "$d/$1" && exit; done; exit 1)
}
SH=$(path_of sh)
DD=$(path_of dd)
TRUE=$(path_of true)
echo 'tar cf - /usr/include 2>/dev/null | cat >/dev/null' >"$work/tarpipe.sh"
head -c 268435456 /dev/zero >"$shm/big"
echo "cat $shm/big | cat >/dev/null" >"$work/catpipe.sh"
# A shell script's many short commands (a build's, a configure's): 200
# execs of true, each a process that makes a handful of hot calls.
echo "i=0; while [ \$i -lt 200 ]; do $TRUE; i=\$((i + 1)); done" >"$work/execs.sh"
# A tree walk: each file's stat, xattrs and link, each directory's
# getdents (the metadata hot calls), and its openat and close (stops).
LS=$(path_of ls)
workloads="dd|$DD if=/dev/zero of=$work/dd.out bs=1024 count=20480
bufwrite1|$HELPERS/writeloop $work/bw.out 100000 1
tarpipe|$SH $work/tarpipe.sh
walk|$LS -lR /usr/include
threads|$HELPERS/writeloop $work/mt.out 25000 1 4
shm1m|$HELPERS/writeloop $shm/w.out 1000000 1
null1m|$HELPERS/writeloop /dev/null 1000000 1
catpipe|$SH $work/catpipe.sh
execs|$SH $work/execs.sh
startup|$TRUE"

# Modes: name and the prefix that traces a command.  Each tool's report
# goes to tmpfs: replacing a file on ext4 just after a command wrote 20 MB
# waits for the journal (iotrace's -o replaces its file atomically),
# which would be the file system's time, not the tool's.  iotrace is the
# default engine (auto: the ptrace engine, with its seccomp filter and
# its fast path).  Of the modes after these, those whose tool cannot run
# here are dropped, each with a line saying why.
modes="untraced|
strace|strace -f -c -o $shm/s.txt
strace-bpf-write|strace -f -c --seccomp-bpf -e trace=write -o $shm/s.txt
iotrace|$IOTRACE -o $shm/i.txt --
iotrace-at-exec|$IOTRACE --rewrite-after=0 -o $shm/i.txt --
iotrace-no-seccomp|$IOTRACE --no-seccomp -o $shm/i.txt --
iotrace-count-only|$IOTRACE --engine=ptrace --count-only -o $shm/i.txt --
iotrace-write|$IOTRACE -e trace=write -o $shm/i.txt --
iotrace-openat|$IOTRACE -e trace=openat -o $shm/i.txt --"
dropped=
drop() { # mode why
	why=$(printf '%s' "$2" | tr '\t' ' ')
	echo "mode $1 dropped: $why"
	why=$(printf '%s' "$why" | sed 's/[\\"]/\\&/g')
	dropped="$dropped${dropped:+,}{\"mode\":\"$1\",\"why\":\"$why\"}"
}
# The first line of a tool's complaint in file $1 (bpftrace 0.17 warns
# of RLIMIT_MEMLOCK and works: kernels since 5.11 do not use it).
first_error() { grep -v -e RLIMIT_MEMLOCK -e '^$' "$1" | head -n 1 | grep . || echo "no message"; }

# The fast path turned off (issue 21's option); where it does not exist yet,
# no such mode.
if "$IOTRACE" --no-rewrite -- true >/dev/null 2>err; then
	modes="$modes
iotrace-no-rewrite|$IOTRACE --no-rewrite -o $shm/i.txt --"
else
	drop iotrace-no-rewrite "'iotrace --no-rewrite -- true' exits non-zero: $(first_error err)"
fi
if ! command -v perf >/dev/null 2>&1; then
	drop perf-trace "no perf (scripts/install-bench-deps installs linux-perf)"
elif ! perf trace -s -- true >err 2>&1; then
	drop perf-trace "'perf trace -s -- true' fails: $(first_error err)"
else
	modes="$modes
perf-trace|perf trace -s -o $shm/p.txt --"
fi
# A counter of the command's calls on raw_syscalls, its children
# included: a task forked by a counted process is counted (pid is the
# process, so its threads are too).  bpftrace -c takes the command as one
# argument, hence the script (its exec: one more execve).
{
	echo 'tracepoint:sched:sched_process_fork /pid == cpid || @t[pid]/ { @t[args->child_pid] = 1; }'
	echo 'tracepoint:raw_syscalls:sys_enter /pid == cpid || @t[pid]/ { @calls[args->id] = count(); }'
	echo 'END { clear(@t); }'
} >"$work/count.bt"
printf 'exec bpftrace -o %s %s -c "$*"\n' "$shm/b.txt" "$work/count.bt" >"$work/bpftrace.sh"
if ! command -v bpftrace >/dev/null 2>&1; then
	drop bpftrace "no bpftrace (scripts/install-bench-deps installs it)"
elif [ "$(id -u)" != 0 ]; then
	drop bpftrace "not root (bpftrace loads BPF programs)"
elif ! timeout 120 "$SH" "$work/bpftrace.sh" "$TRUE" >/dev/null 2>err ||
	! grep -q '^@calls' "$shm/b.txt"; then
	drop bpftrace "'bpftrace -c true' fails or counts nothing: $(first_error err)"
else
	modes="$modes
bpftrace|$SH $work/bpftrace.sh"
fi

# The million-call loops run only under the modes issue 21 compares:
# each other mode would add seconds a round.
runs() { # workload mode: is the pair measured?
	case $1 in shm1m | null1m) ;; *) return 0 ;; esac
	case $2 in
	untraced | iotrace | iotrace-at-exec | iotrace-no-rewrite | strace | perf-trace | bpftrace) return 0 ;;
	esac
	return 1
}
has_mode() { echo "$modes" | grep -q "^$1|"; }

echo "iotrace bench: $REPS interleaved rounds on $(nproc) CPUs, $(uname -r)"
echo "part 1: wall time, median of $REPS (ratios are what to compare)"
echo "$workloads" | sed 's/|/: /'
interleave "$workloads" "$modes" runs

printf '%-10s %-20s %10s %12s %12s\n' workload mode "wall s" "/untraced" "/strace -c"
: >part1.json
echo "$workloads" | while IFS='|' read -r wname wcmd; do
	base=$(wall_of "$wname" untraced)
	st=$(wall_of "$wname" strace)
	echo "$modes" | while IFS='|' read -r mname mprefix; do
		runs "$wname" "$mname" || continue
		w=$(wall_of "$wname" "$mname")
		printf '%-10s %-20s %10.3f %12s %12s\n' "$wname" "$mname" \
			"$(awk -v n="$w" 'BEGIN { print n / 1e9 }')" \
			"$(ratio "$w" "$base")" "$(ratio "$w" "$st")"
		printf '{"workload":"%s","mode":"%s","wall_ns":%s,"vs_untraced":%s,"vs_strace":%s},\n' \
			"$wname" "$mname" "$w" "$(ratio "$w" "$base")" "$(ratio "$w" "$st")" >>part1.json
	done
done

# Part 2: write latency, ns per call.  Ground truth is the built-in
# workload's own untraced measurement (iotrace --truth runs it untraced,
# self-timed, then traced, and prints both); strace -c -w runs the same
# loop as an ordinary program (GNU dd, or writeloop for bufwrite).
truth_line() { # table file -> "truth_ns traced_ns" for write
	awk '/^ground truth/ { g = 1 } g && $1 == "write" && NF == 6 {
		printf "%d %d\n", $3 * 1000, $6 * 1000; exit }' "$1"
}
write_ns_per_call() { # strace table -> ns per write call (seconds / calls)
	awk '$NF == "write" && $4 ~ /^[0-9]+$/ { printf "%d", $2 * 1e9 / $4; exit }' "$1"
}

# Each --truth run pairs an untraced run and a traced one a moment
# apart; the rounds' pairs drift together with the machine (a disk's
# writeback, a host's phase), so the verdict is the median of the
# rounds' differences, 4 x REPS of them (the runs are short), each
# iotrace figure against the truth of its own run; strace -w, slow,
# runs REPS times.
t2_reps=$((4 * REPS))
echo
echo "part 2: write latency per call against ground truth, median of $t2_reps paired rounds (strace: of $REPS)"
printf '%-42s %9s %9s %10s %17s  %s\n' case "truth ns" "iotrace" "strace -w" "iotrace err" "target"
: >part2.json
for spec in "dd bs=1024 count=20000|run dd bs=1024 count=20000 of=$work/lat.out|dd if=/dev/zero of=$work/lat.out bs=1024 count=20000" \
	    "dd bs=64K count=2000|run dd bs=64K count=2000 of=$work/lat.out|dd if=/dev/zero of=$work/lat.out bs=64K count=2000" \
	    "bufwrite buf=0 total=100000 unit=1|run bufwrite buf=0 total=100000 unit=1 of=$work/lat.out|$HELPERS/writeloop $work/lat.out 100000 1"; do
	name=${spec%%|*}
	rest=${spec#*|}
	iot_cmd=${rest%%|*}
	str_cmd=${rest#*|}
	: >truth; : >iot; : >diff; : >str
	round=1
	while [ $round -le "$t2_reps" ]; do
		# shellcheck disable=SC2086
		"$IOTRACE" --engine=ptrace -o t.txt --truth $iot_cmd >/dev/null 2>&1
		set -- $(truth_line t.txt)
		echo "${1:-0}" >>truth; echo "${2:-0}" >>iot
		echo "$((${2:-0} - ${1:-0}))" >>diff
		if [ $round -le "$REPS" ]; then
			# shellcheck disable=SC2086
			strace -f -c -w -o s.txt $str_cmd >/dev/null 2>&1
			write_ns_per_call s.txt >>str; echo >>str
		fi
		round=$((round + 1))
	done
	t=$(median <truth); i=$(median <iot); s=$(median <str); d=$(median <diff)
	drange=$(range <diff)
	verdict=$(awk -v t="$t" -v d="$d" 'BEGIN {
		if (d < 0) d = -d
		lim = 0.1 * t; if (lim < 100) lim = 100
		print (d <= lim) ? "met" : "MISSED" }')
	printf '%-42s %9s %9s %10s %+6d [%s]  %s\n' "write, $name" "$t" "$i" "$s" \
		"$d" "$drange" "$verdict (within max(10%, 0.1 us): issue 21)"
	printf '{"case":"write, %s","truth_ns":%s,"iotrace_ns":%s,"strace_w_ns":%s,"paired_diff_ns":%s,"paired_diff_range":"%s","rounds":%s,"target":"%s"},\n' \
		"$name" "$t" "$i" "$s" "$d" "$drange" "$t2_reps" "$verdict" >>part2.json
done

# Targets of issue 5, as ratios measured in this run.
check() { # label value limit
	v=$1; shift
	lim=$1; shift
	ok=$(awk -v v="$v" -v l="$lim" 'BEGIN { print (v <= l) ? "met" : "MISSED" }')
	printf '%-62s %6s <= %-5s %s\n' "$*" "$v" "$lim" "$ok"
	printf '{"target":"%s","ratio":%s,"limit":%s,"result":"%s"},\n' "$*" "$v" "$lim" "$ok" >>targets.json
}
echo
echo "targets (ratios from part 1):"
: >targets.json
check "$(ratio "$(wall_of dd iotrace)" "$(wall_of dd strace)")" 0.8 \
	"dd, all timed: iotrace (default engine, ptrace) / strace -f -c"
check "$(ratio "$(wall_of dd iotrace-count-only)" "$(wall_of dd strace)")" 0.6 \
	"dd, count-only: iotrace --count-only / strace -f -c"
check "$(ratio "$(wall_of dd iotrace-write)" "$(wall_of dd strace-bpf-write)")" 0.9 \
	"dd, -e trace=write: iotrace / strace --seccomp-bpf"

# Issue 21 (the fast path): its workloads' walls as ratios to untraced,
# under each tool it is compared with, and its targets.  The start-up
# row is each tool's fixed cost (in ms: /bin/true), which the ratios of
# the short workloads include.
i21_modes="iotrace iotrace-at-exec iotrace-no-rewrite strace perf-trace bpftrace"
echo
echo "issue 21: wall / untraced, median of $REPS (start-up: wall ms of $TRUE)"
printf '%-10s %9s' workload "untraced"
for m in $i21_modes; do has_mode "$m" && printf ' %10.10s' "$m"; done
echo
for w in dd shm1m null1m catpipe tarpipe walk execs startup; do
	base=$(wall_of "$w" untraced)
	if [ $w = startup ]; then
		printf '%-10s %9.1f' "$w" "$(awk -v n="$base" 'BEGIN { print n / 1e6 }')"
	else
		printf '%-10s %9.3f' "$w" "$(awk -v n="$base" 'BEGIN { print n / 1e9 }')"
	fi
	for m in $i21_modes; do
		has_mode "$m" || continue
		v=$(wall_of "$w" "$m")
		if [ $w = startup ]; then
			printf ' %10.1f' "$(awk -v n="$v" 'BEGIN { print n / 1e6 }')"
		else
			printf ' %10s' "$(ratio "$v" "$base")"
		fi
	done
	echo
done

# The rounds' ratios of mode $2 to untraced on workload $1 in walls file
# $3, each round's runs against each other (the k-th of each), sorted.
round_ratios() {
	awk -v w="$1" -v m="$2" '$1 == w && $2 == "untraced" { u[++nu] = $3 }
		$1 == w && $2 == m { t[++nt] = $3 }
		END { for (k = 1; k <= nu && k <= nt; k++) if (u[k] > 0)
			printf "%.4f\n", t[k] / u[k] }' "$3" | sort -g
}
# Their lowest-highest, or with $4 = median their median.
round_ratio() {
	round_ratios "$1" "$2" "$3" | awk -v want="${4:-}" '{ v[NR] = $1 }
		END { if (want == "median") printf "%.2f", v[int((NR + 1) / 2)]
		      else printf "%.2f-%.2f", v[1], v[NR] }'
}
round_range() { round_ratio "$1" "$2" walls; }
echo
echo "issue 21: the same, each round's runs against each other (lowest-highest of $REPS)"
printf '%-10s' workload
for m in $i21_modes; do has_mode "$m" && printf ' %12.12s' "$m"; done
echo
for w in dd shm1m null1m catpipe tarpipe walk execs; do
	printf '%-10s' "$w"
	for m in $i21_modes; do
		has_mode "$m" && printf ' %12s' "$(round_range "$w" "$m")"
	done
	echo
done

target() { # value limit label: a PASS or MISS line (the run goes on)
	res=$(awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "PASS" : "MISS" }')
	printf '%s  %-68s %6s <= %s\n' "$res" "$3" "$1" "$2"
	printf '{"target":"%s","ratio":%s,"limit":%s,"result":"%s"},\n' "$3" "$1" "$2" "$res" >>targets.json
}
# The targets' own rounds.  The rounds of part 1 differ 2-4x on these
# VMs, and 3 to 5 of them meet or miss a 1.3x target by chance: untraced
# and iotrace alone, interleaved, 4 x REPS rounds of the four workloads
# (~2 s a round).  A target is the median of the rounds' ratios, each
# iotrace run against the untraced run just before it.  Issue 5's
# untraced-calls target (-e trace=openat on dd) is measured here too:
# from part 1's 3 rounds it met or missed 1.3x by chance (0.85 to 1.57
# over five runs, the default engine as slow or as fast beside it).
t21_reps=$((4 * REPS))
echo
echo "issue 21's targets: untraced and iotrace alone, $t21_reps interleaved rounds"
mv walls walls.part1
reps_part1=$REPS
REPS=$t21_reps
interleave "$(echo "$workloads" | grep -E '^(dd|shm1m|null1m|catpipe)[|]')" \
	"untraced|
iotrace|$IOTRACE -o $shm/i.txt --
iotrace-openat|$IOTRACE -e trace=openat -o $shm/i.txt --"
REPS=$reps_part1
mv walls walls.t21
mv walls.part1 walls
for w in dd shm1m null1m catpipe; do
	printf '%-10s iotrace / untraced %s [%s]\n' "$w" \
		"$(round_ratio "$w" iotrace walls.t21 median)" \
		"$(round_ratio "$w" iotrace walls.t21)"
done
check "$(round_ratio dd iotrace-openat walls.t21 median)" 1.3 \
	"dd, untraced syscalls (-e trace=openat): iotrace / untraced"

echo
echo "targets of issue 21 (iotrace: the $t21_reps rounds above; bpftrace: part 1; a MISS does not fail the run):"
for spec in "dd|1.3|dd bs=1024 count=20480 to a file" \
	"shm1m|1.3|1M one-byte writes to tmpfs" \
	"null1m|1.5|1M one-byte writes to /dev/null" \
	"catpipe|1.3|cat of 256 MiB on tmpfs to a pipe"; do
	w=${spec%%|*}
	rest=${spec#*|}
	lim=${rest%%|*}
	label=${rest#*|}
	v=$(round_ratio "$w" iotrace walls.t21 median)
	target "$v" "$lim" "$label: iotrace / untraced"
	if has_mode bpftrace; then
		target "$v" "$(ratio "$(wall_of "$w" bpftrace)" "$(wall_of "$w" untraced)")" \
			"$label: iotrace vs bpftrace (/ untraced)"
	else
		echo "SKIP  $label: iotrace against bpftrace (no bpftrace mode)"
	fi
done

echo
echo "part 3: the untraced estimate of the header against --baseline=$REPS (wall in s)"
IOTRACE=$IOTRACE HELPERS=$HELPERS REPS=$REPS sh "$here/estimate.sh"

secs=$(awk -v n="$(($(now_ns) - start))" 'BEGIN { printf "%.0f", n / 1e9 }')
# no_rewrite says whether this iotrace has --no-rewrite (the fast path's
# switch): false, its figures are those of the ptrace engine alone.
{
	printf '{"schema":"iotrace-bench/1","date":"%s","kernel":"%s","cpus":%s,"reps":%s,"seconds":%s,\n' \
		"$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(uname -r)" "$(nproc)" "$REPS" "$secs"
	printf '"no_rewrite":%s,"dropped":[%s],\n' \
		"$(has_mode iotrace-no-rewrite && echo true || echo false)" "$dropped"
	printf '"walls":[%s],\n' "$(sed '$ s/,$//' part1.json | tr -d '\n')"
	printf '"latency":[%s],\n' "$(sed '$ s/,$//' part2.json | tr -d '\n')"
	printf '"estimate":[%s],\n' "$(sed '$ s/,$//' part3.json | tr -d '\n')"
	printf '"targets":[%s]}\n' "$(sed '$ s/,$//' targets.json | tr -d '\n')"
} >"$out/latest.json.tmp"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$out/latest.json.tmp"
mv "$out/latest.json.tmp" "$out/latest.json"
echo
echo "written: bench/results/latest.json (bench.sh: $secs s)"
