#!/bin/sh
# SPDX-License-Identifier: MIT
# The low-overhead engine: the seccomp-bpf path and the PTRACE_SYSCALL path
# count the same; count-only rows are marked, never invented; calibration
# never makes a time negative; pinning is invisible to the program.
# These are the ptrace engine's paths: its runs say --engine=ptrace (the
# default, auto, is the same engine).
. "$(dirname "$0")/lib.sh"

# Runs one command line on both paths of the ptrace engine; its own exit
# status may be anything, the tables must agree.
paths_agree() {
	"$IOTRACE" -v --engine=ptrace -o seccomp.txt "$@" >/dev/null 2>&1
	"$IOTRACE" -v --engine=ptrace -o ptrace.txt --no-seccomp "$@" \
		>/dev/null 2>&1
	grep -q "engine seccomp-bpf" seccomp.txt &&
	grep -q "engine ptrace" ptrace.txt &&
	table_counts seccomp.txt >a &&
	table_counts ptrace.txt >b &&
	test -s a &&
	test_cmp a b
}

test_expect_success PTRACE 'dd: both engines count the same' '
	paths_agree -- dd if=/dev/zero of=out bs=512 count=3000
'

test_expect_success PTRACE 'sh spawning children: both engines count the same' '
	paths_agree -- sh -c "for i in 1 2 3 4 5; do cat /etc/hostname; done >/dev/null"
'

test_expect_success PTRACE 'tar: both engines count the same' '
	mkdir -p tree/sub && echo a >tree/a && echo b >tree/sub/b &&
	paths_agree -- tar cf t.tar tree
'

test_expect_success PTRACE '-e trace=write: both engines, write only' '
	paths_agree -e trace=write -- dd if=/dev/zero of=out bs=100 count=321 &&
	echo "write 324 0" >expect &&  # 321 blocks and 3 closing lines of dd
	test_cmp expect a
'

test_expect_success PTRACE '-e trace=%file: both engines count the same' '
	paths_agree -e trace=%file -- ls /nonexistent /etc/hostname
'

test_expect_success PTRACE '--count-only: same counts, no invented times' '
	"$IOTRACE" -v -o timed.txt -- dd if=/dev/zero of=out bs=1k count=500 2>/dev/null &&
	"$IOTRACE" -v -o counted.txt --count-only -- dd if=/dev/zero of=out bs=1k count=500 2>/dev/null &&
	table_counts timed.txt | cut -d" " -f1,2 >a &&
	table_counts counted.txt | cut -d" " -f1,2 >b &&
	test_cmp a b &&
	grep -E "^ +- +- +- +503 +- write$" counted.txt &&
	grep "counted only, without an exit stop" counted.txt &&
	grep "counted only (not timed)" counted.txt
'

test_expect_success PTRACE '--count-only agrees on both engines' '
	paths_agree --count-only -- dd if=/dev/zero of=out bs=1k count=200
'

test_expect_success PTRACE '-e count=read: read counted only, write timed' '
	"$IOTRACE" -v -o t.txt -e count=read -- dd if=/dev/zero of=out bs=1k count=300 2>/dev/null &&
	grep -E "^ +- +- +- +303 +- read$" t.txt &&
	grep -E "^ *[0-9.]+ +[0-9.]+ +[0-9]+ +303 +write$" t.txt &&
	grep "(303 counted only)" t.txt
'

test_expect_success PTRACE 'calibrated times are never negative; raw >= corrected' '
	"$IOTRACE" -v --engine=ptrace -o c.txt -- \
		dd if=/dev/zero of=out bs=1 count=2000 2>/dev/null &&
	"$IOTRACE" -v --engine=ptrace -o r.txt --raw-time -- \
		dd if=/dev/zero of=out bs=1 count=2000 2>/dev/null &&
	grep -E "timing: [0-9.]+ us/call of stop overhead subtracted" c.txt &&
	grep "raw times" r.txt &&
	awk "/^-/ {r++; next} r == 1 && \$2 !~ /^[0-9]+\\.[0-9]+\$/ {bad=1} END {exit bad}" c.txt
'

test_expect_success PTRACE '--no-follow falls back to the ptrace engine' '
	"$IOTRACE" -v -o t.txt --no-follow -- sh -c "true; true" &&
	grep "engine ptrace" t.txt
'

test_expect_success PTRACE 'a tracee with its own seccomp filter is counted exactly' '
	"$IOTRACE" -v --engine=ptrace -o s.txt -e trace=write -- \
		"$HELPERS/seccomp-self" 77 &&
	"$IOTRACE" -v --engine=ptrace -o p.txt --no-seccomp -e trace=write -- \
		"$HELPERS/seccomp-self" 77 &&
	echo "write 77 0" >expect &&
	table_counts s.txt >a && test_cmp expect a &&
	table_counts p.txt >b && test_cmp expect b
'

# Inside a sandbox that refuses seccomp(2) (as some containers do) the
# filter cannot be loaded: the ptrace path counts it all, and one line
# says why (it used to exit 126 with "0 syscalls").
test_expect_success PTRACE 'filter refused by a sandbox: the ptrace path, said once' '
	"$HELPERS/noseccomp" "$IOTRACE" -v -o s.txt -- \
		"$HELPERS/writeloop" out 33 10 2>err &&
	test "$(stat -c %s out)" = 330 &&
	grep -q "engine ptrace" s.txt &&
	"$IOTRACE" -v --engine=ptrace -o p.txt --no-seccomp -- \
		"$HELPERS/writeloop" out 33 10 &&
	table_counts s.txt >a && table_counts p.txt >b && test_cmp b a &&
	grep "^write 33 0$" a &&
	grep "seccomp" err >lines && test "$(wc -l <lines)" = 1 &&
	grep -q "^iotrace: .*ptrace" lines
'

test_expect_success PTRACE 'exec of a set-user-ID binary is counted exactly' '
	test "$(id -u)" = 0 || exit 0
	chmod 711 . && : >out && chmod 666 out &&
	cp "$HELPERS/writeloop" suid && chown nobody suid && chmod 4755 suid &&
	"$IOTRACE" -v -o s.txt -e trace=write -- ./suid out 55 1 &&
	"$IOTRACE" -v --engine=ptrace -o p.txt --no-seccomp -e trace=write -- \
		./suid out 55 1 &&
	echo "write 55 0" >expect &&
	table_counts s.txt >a && test_cmp expect a &&
	table_counts p.txt >b && test_cmp expect b
'

# Pinning: the program sees its original CPU mask, whatever iotrace does
# (the ptrace engine pinned or not, on either path, and the default:
# same_view, lib.sh).

test_expect_success PTRACE 'nproc sees every CPU it was given' '
	same_view nproc
'

test_expect_success PTRACE 'sched_getaffinity and one thread per CPU' '
	same_view "$HELPERS/affinity" threads &&
	grep "starting $(nproc) threads" expect
'

test_expect_success PTRACE 'a mask set by the caller (taskset) is kept' '
	command -v taskset >/dev/null || exit 0
	same_view taskset -c 0 "$HELPERS/affinity" threads &&
	grep "main: cpus 0 (count 1)" expect
'

test_expect_success PTRACE 'sort sees the same CPUs (threads it may start)' '
	seq 1 20000 | sort -r >expect &&
	seq 1 20000 | "$IOTRACE" -v -o /dev/null -- sort -r >actual &&
	test_cmp expect actual
'

# auto, the default, is the ptrace engine (the only one), filtered where
# the kernel allows: a command, a dynamic or static one, an i386 one, a
# built-in workload, -k's runs and a sweep's points.
test_expect_success PTRACE 'the default is the ptrace engine, for commands and workloads' '
	"$IOTRACE" -v -o d.txt -- true &&
	grep -q "^iotrace: engine seccomp-bpf" d.txt &&
	"$IOTRACE" -v --engine=auto -o auto.txt -- true &&
	grep -q "^iotrace: engine seccomp-bpf" auto.txt &&
	"$IOTRACE" -v --no-seccomp -o n.txt -- true &&
	grep -q "^iotrace: engine ptrace" n.txt &&
	"$IOTRACE" -v -o run.txt run bufwrite buf=0 total=100 of=/dev/null &&
	grep -q "^iotrace: engine seccomp-bpf" run.txt &&
	"$IOTRACE" -v -k -o run.txt run bufwrite buf=0 total=100 of=/dev/null &&
	grep -q "^iotrace: engine seccomp-bpf" run.txt &&
	grep -q "^  100\.0%  *100 calls " run.txt &&
	mkdir -p sw &&
	"$IOTRACE" -v -o sweep.txt sweep --repeat 1 --save-dir sw bs=1k run dd \
		size=8k of=/dev/null &&
	grep -q "\"engine\": \"seccomp-bpf\"" sw/bs=1k.json &&
	"$IOTRACE" -v -o st.txt -- "$HELPERS/callsites-static" >/dev/null &&
	grep -q "^iotrace: engine seccomp-bpf" st.txt
'

test_expect_success PTRACE,M32 '--engine=auto: an i386 command, filtered' '
	"$IOTRACE" -v --engine=auto -o auto.txt -- "$HELPERS32/compat" 2 &&
	grep -q "engine seccomp-bpf" auto.txt
'

# The stop calibration is made by the command's own first task before
# the command runs (getppid with a first argument of iotrace's): those
# calls are iotrace's and never counted; the program's getppid, even
# with that argument, all are, as strace counts them, on every path.
test_expect_success PTRACE,STRACE 'the calibration'"'"'s calls: none counted, the program'"'"'s all' '
	strace -f -c -o s.txt "$HELPERS/getppids" 5 7 >/dev/null &&
	test "$(table_calls getppid s.txt)" = 12 &&
	for engine in "" --no-rewrite "--engine=ptrace --no-seccomp" \
		      "-k --stack-sample=2"; do
		"$IOTRACE" $engine -o t.txt -- "$HELPERS/getppids" 5 7 >out &&
		echo same=7 >expect && test_cmp expect out &&
		test "$(table_calls getppid t.txt)" = 12 || return 1
	done
'

# Outside -e trace=, the program's getppid keeps the plan's action:
# the filter stops getppid(iotrace's argument), the loop counts nothing.
test_expect_success PTRACE '-e trace=: the program'"'"'s getppid as the plan says' '
	for engine in "" "--engine=ptrace --no-seccomp"; do
		"$IOTRACE" $engine -e trace=write -o t.txt -- \
			"$HELPERS/getppids" 5 7 >out &&
		echo same=7 >expect && test_cmp expect out &&
		test "$(table_calls getppid t.txt)" = 0 &&
		test "$(table_calls write t.txt)" = 1 &&
		"$IOTRACE" $engine -e trace=!getppid -o t.txt -- \
			"$HELPERS/getppids" 5 7 >out &&
		test "$(table_calls getppid t.txt)" = 0 &&
		test "$(table_calls write t.txt)" = 1 &&
		"$IOTRACE" $engine -e trace=getppid -o t.txt -- \
			"$HELPERS/getppids" 5 7 >out &&
		test "$(table_calls getppid t.txt)" = 12 || return 1
	done
'

# iotrace starts one process for a command, the command: the seccomp
# probe asks the kernel, the stop calibration runs in the command's
# first task (a fork costs a good share of a short run's start).
test_expect_success PTRACE,STRACE 'iotrace -- true starts one process' '
	strace -o st.txt -e trace=clone,clone3,fork,vfork \
		"$IOTRACE" -o r.txt -- true &&
	grep -E "^(clone|clone3|fork|vfork)\(" st.txt |
		grep -v -c CLONE_THREAD >n &&
	echo 1 >expect &&
	test_cmp expect n
'

# The plan's filter is kept between runs (tracer/cache.c): the same plan
# from the cache is the same filter and counts the same; another plan
# is another file; a damaged file is built again.
test_expect_success PTRACE 'the plan'"'"'s filter is cached; a damaged one is built again' '
	dd_run() { # NAME: a run of dd into rNAME, its --debug lines in dNAME
		XDG_CACHE_HOME=$PWD/pc "$IOTRACE" --debug -o r$1 -- \
			dd if=/dev/zero of=out bs=512 count=300 2>d$1
	}
	dd_run 1 && ! grep -q "plan from the cache" d1 &&
	ls pc/iotrace/plan-* >files && test "$(wc -l <files)" = 1 &&
	dd_run 2 && grep -q "plan from the cache" d2 &&
	sed -n "s/.* ms \(plan: .*\)/\1/p" d1 >p1 &&
	sed -n "s/.* ms \(plan: .*\)/\1/p" d2 >p2 &&
	test -s p1 && test_cmp p1 p2 &&
	table_counts r1 >a && table_counts r2 >b && test_cmp a b &&
	for f in $(cat files); do printf garbage >"$f" || return 1; done &&
	dd_run 3 && ! grep -q "plan from the cache" d3 &&
	table_counts r3 >c && test_cmp a c &&
	dd_run 4 && grep -q "plan from the cache" d4 &&
	XDG_CACHE_HOME=$PWD/pc "$IOTRACE" -e trace=write -o r5 -- \
		dd if=/dev/zero of=out bs=512 count=300 2>/dev/null &&
	test "$(ls pc/iotrace/plan-* | wc -l)" = 2
'

# --debug's lines: "iotrace: debug: MS.US ms WHAT" on stderr.
debug_lines() {
	grep "^iotrace: debug: *[0-9]*\.[0-9][0-9][0-9] ms " "$1"
}

test_expect_success PTRACE '--debug: the plan, the calibrations, the sites patched' '
	"$IOTRACE" --debug -o r.txt -- "$HELPERS/writeloop" /dev/null 100 1 \
		2>dbg.txt &&
	debug_lines dbg.txt >lines.txt &&
	grep -q " ms plan: [0-9]* native calls stop" lines.txt &&
	grep -q " ms stops calibrated: [0-9]* ns added per timed call" lines.txt &&
	grep -q " ms fast path on: [0-9]* hot calls, pool at 0x" lines.txt &&
	grep -q " ms pid [0-9]*: execve returned: rewritten at hot call 64$" lines.txt &&
	grep -q " ms pid [0-9]*: its hot call: the pool goes in$" lines.txt &&
	grep -q " ms pid [0-9]*: /.*/libc\.so\.6 at 0x[0-9a-f]*: [1-9][0-9]* sites patched" lines.txt &&
	! grep -v "^iotrace: debug: " dbg.txt &&
	! grep -q "debug" r.txt
'

test_expect_success PTRACE '--debug: the fast path calibrates beside the stop calibration, once' '
	"$IOTRACE" --debug -o r.txt -- "$HELPERS/writeloop" /dev/null 100 1 \
		2>dbg.txt &&
	debug_lines dbg.txt | sed -n "s/.* ms //p" >what.txt &&
	sed -n "/^fast path.s calibration started$/,\$p" what.txt |
		grep -q "^stops calibrated: " &&
	test "$(grep -c "^fast path.s calibration started$" what.txt)" = 1 &&
	grep -q "^fast path.s clock calibrated: a call adds [0-9]*-[0-9]* ns" what.txt &&
	"$IOTRACE" --debug -e trace=mprotect -o r.txt -- true 2>dbg.txt &&
	! grep -q "calibration started" dbg.txt
'

test_expect_success PTRACE 'IOTRACE_DEBUG=1 is --debug; without either, no line' '
	IOTRACE_DEBUG=1 "$IOTRACE" -o r.txt --no-rewrite -- true 2>dbg.txt &&
	debug_lines dbg.txt | grep -q " ms fast path off: --no-rewrite$" &&
	IOTRACE_DEBUG=0 "$IOTRACE" -o r.txt -- true 2>dbg.txt &&
	! test -s dbg.txt &&
	"$IOTRACE" -o r.txt -- true 2>dbg.txt &&
	! test -s dbg.txt
'

test_done
