#!/bin/sh
# SPDX-License-Identifier: MIT
# -k: call sites.  The callsites helper writes 300 times from emit_byte,
# 7 from flush_log, 30 and 12 through put_shared from report_a and
# report_b, and reads 5 times from load_input; the Call sites section
# names each with its exact count, in a thread, after execve, in
# children, after dlopen, under a 40 KiB frame, statically linked and
# stripped (object+offset);
# the folded stacks sum to the table's calls; a saved run prints them
# again and diff compares them; a corrupt frame gives a truncated stack;
# go tool pprof reads the pprof profile's counts.
. "$(dirname "$0")/lib.sh"

# Calls of the site of syscall $1 printed as $2 in the Call sites section.
site_calls() {
	awk -v sc="$1" -v want="$2" '
	/^Call sites/ { on = 1; next }
	on && NF == 0 { on = 0 }
	on && /^[^ ]/ { cur = $1; next }
	on && cur == sc && /^  / {
		text = $0
		sub(/^ *[0-9.]+% *~? *[0-9,]+ calls? +[0-9.]+ s  /, "", text)
		if (text == want) { gsub(/,/, "", $2); print $2 }
	}' report
}

# Calls of syscall $1 over the folded stacks in file $2.
folded_sum() {
	awk -v sc="$1" '{ n = split($1, f, ";"); if (f[n] == sc) s += $2 }
		END { print s + 0 }' "$2"
}

check_sites() {
	test "$(site_calls write "emit_byte (callsites)")" = 300 &&
	test "$(site_calls write "put_shared <- report_a (callsites)")" = 30 &&
	test "$(site_calls write "put_shared <- report_b (callsites)")" = 12 &&
	test "$(site_calls write "flush_log (callsites)")" = 7 &&
	test "$(site_calls read "load_input (callsites)")" = 5
}

test_expect_success PTRACE 'each call site with its exact count' '
	"$IOTRACE" -k --top-sites 5 -e trace=write,read -o report \
		-- "$HELPERS/callsites" &&
	check_sites &&
	grep -q "^write  349 calls, [0-9.]* s$" report &&
	grep -q "^   86\.0%  *300 calls" report
'

# The execve that starts the command is made by iotrace's own code: it
# has no call site, rather than iotrace's stack under the program's name.
test_expect_success PTRACE 'no call site of iotrace itself' '
	"$IOTRACE" -k --folded folded -o report -- "$HELPERS/callsites" &&
	test "$(table_calls execve report)" = 1 &&
	test "$(folded_sum write folded)" = 349 &&
	! grep -e "spawn_start" -e "execve [0-9]*$" folded &&
	! grep "(iotrace)" report
'

test_expect_success PTRACE 'folded stacks sum to the table per syscall' '
	"$IOTRACE" -k -e trace=write,read --folded folded -o report \
		-- "$HELPERS/callsites" &&
	test "$(folded_sum write folded)" = "$(table_calls write report)" &&
	test "$(folded_sum read folded)" = "$(table_calls read report)" &&
	grep -q "^_start;__libc_start_main;.*;main;work;emit_byte;write;write 300$" \
		folded &&
	"$IOTRACE" -k -e trace=write --folded time --folded-weight=time \
		-o /dev/null -- "$HELPERS/callsites" &&
	test "$(folded_sum write time)" -gt 0
'

test_expect_success PTRACE 'threads, execve and children' '
	"$IOTRACE" -k --top-sites 5 -e trace=write,read -o report \
		-- "$HELPERS/callsites" threads &&
	check_sites &&
	"$IOTRACE" -k --top-sites 5 -e trace=write,read -o report \
		-- "$HELPERS/callsites" exec threads &&
	check_sites &&
	"$IOTRACE" -k --top-sites 5 -e trace=write -o report -- sh -c \
		"\"$HELPERS/callsites\"; \"$HELPERS/callsites\" threads" &&
	test "$(site_calls write "emit_byte (callsites)")" = 600
'

test_expect_success PTRACE 'a 40 KiB frame between main and the calls' '
	"$IOTRACE" -k --top-sites 5 -e trace=write,read -o report \
		-- "$HELPERS/callsites" deep &&
	check_sites &&
	! grep -q "\[truncated\]" report
'

test_expect_success PTRACE 'code loaded by dlopen after the start' '
	"$IOTRACE" -k --top-sites 9 -e trace=write -o report \
		-- "$HELPERS/callsites" dlopen &&
	grep -q "^    2\.5%  *9 calls .*  libz\.so[.0-9]*+0x[0-9a-f]* <- gzflush (libz\.so[.0-9]*)\$" \
		report &&
	test "$(site_calls write "emit_byte <- work (callsites)")" = 300
'

test_expect_success PTRACE 'a static build, from .eh_frame' '
	"$IOTRACE" -k --top-sites 5 -e trace=write,read -o report \
		-- "$HELPERS/callsites-static" &&
	grep -q "^ *86\.0%  *300 calls .* <- emit_byte (callsites-static)$" \
		report &&
	grep -q "^ *3\.4%  *12 calls .* <- put_shared <- report_b (callsites-static)$" \
		report
'

test_expect_success PTRACE 'a stripped build: object+offset' '
	"$IOTRACE" -k -e trace=write -o report \
		-- "$HELPERS/callsites-stripped" &&
	grep -q "^ *86\.0%  *300 calls .*  callsites-stripped+0x[0-9a-f]* <- " \
		report &&
	! grep -q "emit_byte" report
'

test_expect_success PTRACE 'a corrupt frame: a truncated stack, the run goes on' '
	"$IOTRACE" -k --top-sites 9 -e trace=write -o report \
		-- "$HELPERS/callsites" corrupt &&
	test "$(site_calls write "corrupt_write (callsites) <- [unknown] [truncated]")" = 1 &&
	test "$(site_calls write "emit_byte (callsites)")" = 300
'

test_expect_success PTRACE 'a saved run: report prints the sites, diff compares' '
	"$IOTRACE" -k -e trace=write,read --top-sites 5 --save a.json \
		-o report -- "$HELPERS/callsites" &&
	sed -n "/^Call sites/,/^\$/p" report >expect &&
	"$IOTRACE" report --top-sites 5 a.json >again &&
	sed -n "/^Call sites/,/^\$/p" again >actual &&
	test_cmp expect actual &&
	"$IOTRACE" report --folded f.txt a.json >/dev/null &&
	test "$(folded_sum write f.txt)" = 349 &&
	"$IOTRACE" -k -e trace=write,read --save b.json -o /dev/null \
		-- "$HELPERS/callsites" dlopen &&
	"$IOTRACE" diff a.json b.json >d &&
	grep -q "^ *- *9 *+9 .* callsite .* <- gzflush+0x[0-9a-f]* (libz\.so[.0-9]*) <- main+0x[0-9a-f]* (callsites) <- .* (only NEW)\$" d
'

test_expect_success PTRACE '--stack-sample: 1 call in N, counts scaled' '
	"$IOTRACE" -k --stack-sample 10 -e trace=write -o report \
		-- "$HELPERS/callsites" &&
	grep -q "^write  349 calls, [0-9.]* s (stacks of 1 call in 10, scaled: ~\(; time shared by calls\)\{0,1\})$" \
		report &&
	grep -q "^   86\.0% ~       300 calls .*  emit_byte (callsites)$" report
'

test_expect_success PTRACE 'the tiny-writes finding names the call site' '
	"$IOTRACE" -k -o report -- dd if=/dev/zero of=/dev/null bs=1 \
		count=3000 2>/dev/null &&
	grep -q "^- write: 3,003 calls averaging 1 byte.*, 99\.9% from dd+0x[0-9a-f]* <- .*(dd)" \
		report
'

# The finding's share of a site is the section's (scaled by the sampling,
# of the syscall's calls), not the share of the calls sampled.  Only
# write traced: the section lists the five syscalls with most time, and
# 3,003 writes to /dev/null need not be among them.
test_expect_success PTRACE 'the finding quotes the share the section shows' '
	"$IOTRACE" -k --stack-sample 7 -e trace=write -o report \
		-- dd if=/dev/zero of=/dev/null bs=1 count=3000 2>/dev/null &&
	shown=$(awk "/^write  3,003 calls/ { getline; print \$1; exit }" report) &&
	test -n "$shown" &&
	grep "^- write: 3,003 calls averaging 1 byte.*, ~$shown from dd+0x" report
'

test_expect_success PTRACE 'without -k: no section, no call sites saved' '
	"$IOTRACE" -e trace=write --save c.json -o report \
		-- "$HELPERS/callsites" &&
	! grep -q "^Call sites" report &&
	grep -q "\"callsite\": {" c.json &&
	! grep -q "\"frames\"" c.json
'

test_expect_success PTRACE '--format=pprof: gzipped, one sample per site' '
	"$IOTRACE" -k -e trace=write,read --format=pprof -o p.pb.gz \
		-- "$HELPERS/callsites" &&
	gzip -t p.pb.gz &&
	"$IOTRACE" report --format=pprof -o p2.pb.gz a.json &&
	gzip -t p2.pb.gz
'

test_expect_success PTRACE,GO 'go tool pprof -top reads the same counts' '
	HOME=$PWD go tool pprof -top p.pb.gz >top 2>&1 &&
	grep -q "^ *349 .*  syscall:write\$" top &&
	grep -q "^ *6 .*  syscall:read\$" top &&
	grep -q "^ *0  *0%  *[0-9.]*%  *300 .*  emit_byte\$" top &&
	grep -q "^ *0  *0%  *[0-9.]*%  *42 .*  put_shared\$" top &&
	HOME=$PWD go tool pprof -top -sample_index=time p.pb.gz >time 2>&1 &&
	grep -q "^Type: time\$" time
'

# usage ARGS...: iotrace ARGS exits 2 (a usage error) before running.
usage() {
	"$IOTRACE" "$@" -- touch ran >/dev/null 2>&1
	test $? = 2 && ! test -e ran
}

test_expect_success 'bad -k options are usage errors' '
	usage --stack-depth 0 -k &&
	usage --stack-depth 33 -k &&
	usage --top-sites x -k &&
	usage --folded-weight=bytes -k &&
	usage --stack-sample 0 -k &&
	usage --format=pprof -k
'

# folded_refused ARGS...: iotrace --folded f ARGS exits 2 with one line
# naming --folded and f, before anything runs: no f, no output, no ran.
folded_refused() {
	rm -f f ran err out
	( "$IOTRACE" --folded f "$@" >out 2>err ); rc=$?
	test $rc = 2 || { echo "exit $rc"; cat err; return 1; }
	test "$(wc -l <err)" = 1 &&
	grep -q "^iotrace: --folded 'f': .*-k" err &&
	! test -e f && ! test -s out && ! test -e ran || { cat err; return 1; }
}

# A traced run has call sites only with -k: --folded alone would write
# an empty file (and exit 0); a sweep's traced runs write none.
test_expect_success '--folded without -k is refused' '
	folded_refused -- touch ran &&
	folded_refused -o report -- touch ran &&
	folded_refused run dd of=ran count=1
'
test_expect_success '--folded without -k is refused with -p' '
	sleep 10 &
	pid=$!
	folded_refused -p $pid --duration 1; st=$?
	kill $pid && test $st = 0
'
test_expect_success '--folded with sweep is refused, -k or not' '
	folded_refused -k sweep n=1,2 -- touch ran{} &&
	folded_refused sweep n=1,2 -- touch ran{}
'

# Calls that wait are another task's pace: listed after the work, however
# long they waited (sh's wait4 spans the writer and its sleep).
test_expect_success PTRACE '-k: calls that wait come after the work' '
	"$IOTRACE" -k -e trace=write,wait4 -o r -- \
		sh -c "$HELPERS/writeloop /dev/null 300 1; sleep 0.1" &&
	awk "\$NF == \"wait4\" { w = \$2 } \$NF == \"write\" { x = \$2 }
	     END { exit !(w > x) }" r &&
	sed -n "/^Call sites/{n;p;}" r | grep -q "^write  300 calls, " &&
	grep -q "^wait4  " r
'

test_done
