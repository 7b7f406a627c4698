#!/bin/sh
# SPDX-License-Identifier: MIT
# Saving a run: --save writes the JSON profile next to the table, -o with
# --format=json|csv writes that format, and `iotrace report` prints the
# saved run again byte for byte, in every format.
. "$(dirname "$0")/lib.sh"

test_expect_success PTRACE 'run with --save and -o' '
	"$IOTRACE" -o run.txt --save run.json -- \
		dd if=/dev/zero of=out bs=1 count=1000 status=none &&
	test -s run.txt && test -s run.json &&
	grep -q "\"schema\": \"iotrace/1\"" run.json &&
	! ls run.json.* run.txt.* 2>/dev/null
'

test_expect_success PTRACE 'the saved profile has the exact write count' '
	grep -A2 "\"name\": \"write\"" run.json >w &&
	grep -q "\"calls\": 1000," w
'

test_expect_success PTRACE 'report prints the run'"'"'s table byte for byte' '
	"$IOTRACE" report run.json >again.txt &&
	test_cmp run.txt again.txt
'

test_expect_success PTRACE 'report -S calls equals the run with -S calls' '
	"$IOTRACE" -S calls -o calls.txt --save t.json -- \
		dd if=/dev/zero of=out bs=1 count=300 status=none &&
	"$IOTRACE" report -S calls t.json >calls-again.txt &&
	test_cmp calls.txt calls-again.txt &&
	"$IOTRACE" -S calls report t.json >c.txt &&
	test_cmp calls.txt c.txt
'

test_expect_success PTRACE 'JSON -> report --format=json is the same file' '
	"$IOTRACE" report --format=json run.json >again.json &&
	test_cmp run.json again.json
'

test_expect_success PTRACE '-o FILE --format=json writes the same JSON as --save' '
	"$IOTRACE" -o direct.json --format=json --save saved.json -- true &&
	test_cmp direct.json saved.json
'

test_expect_success PTRACE '--format=csv: header, one row per syscall' '
	"$IOTRACE" -o t.csv --format=csv -- \
		dd if=/dev/zero of=out bs=1 count=1000 status=none &&
	head -1 t.csv >header &&
	echo "percent,time,avg-time,calls,errors,name,min-time,max-time,p50,p90,p99,avg-ns,bytes,untraced-percent,timed,time_ns,raw_time_ns,min_ns,max_ns,errno_other,bytes_req,bytes_done,short_calls,fast_timed,fast_raw_ns,time_uncertainty_ns,below_resolution" >want &&
	test_cmp want header &&
	# A calibrated run says how far each row can be trusted.
	awk -F, "NR == 1 { for (i = 1; i <= NF; i++) col[\$i] = i; next }
		\$col[\"time_uncertainty_ns\"] !~ /^[0-9]+\$/ ||
		\$col[\"below_resolution\"] !~ /^[01]\$/" t.csv >bad &&
	! test -s bad &&
	awk -F, "NR == 1 { for (i = 1; i <= NF; i++) col[\$i] = i; next }
		\$col[\"name\"] == \"write\" { print \$col[\"calls\"],
			\$col[\"bytes_req\"], \$col[\"bytes_done\"] }" t.csv >w &&
	echo "1000 1000 1000" >want && test_cmp want w &&
	table_counts run.txt | awk "{print \$1}" >names1 &&
	tail -n +2 t.csv | cut -d, -f6 | sort >names2 &&
	test_cmp names1 names2
'

test_expect_success PTRACE 'report --format=csv of the saved run equals the live csv' '
	"$IOTRACE" -o live.csv --format=csv --save live.json -- true &&
	"$IOTRACE" report --format=csv -o again.csv live.json &&
	test_cmp live.csv again.csv
'

test_expect_success 'report reads an strace -c table too' '
	"$IOTRACE" report "$FIXTURES/strace/dd-bs1.txt" >t.txt &&
	table_counts t.txt >got &&
	table_counts "$FIXTURES/strace/dd-bs1.txt" >want &&
	test_cmp want got
'

test_expect_success 'an strace table saved as JSON prints the same again' '
	"$IOTRACE" report "$FIXTURES/strace/sh-i386.txt" >direct.txt &&
	"$IOTRACE" report --format=json "$FIXTURES/strace/sh-i386.txt" >s.json &&
	grep -q "\"source\": \"strace\"" s.json &&
	"$IOTRACE" report s.json >via-json.txt &&
	test_cmp direct.txt via-json.txt
'

# The kernel takes up to 6 MiB of argv (a quarter of the stack limit):
# 100,000 arguments is 1.4 MiB with the pointers, and its --save loads.
# A run the agent engine saved, before it was retired (fixtures/saved):
# report prints its tables as that version did, and not the agent's own
# header lines nor the untraced estimate its "engines" object fed; saved
# again, the file has neither; diff reads it, against itself and against
# a run of the ptrace engine.
test_expect_success 'a run of the retired agent engine: report and diff' '
	f="$FIXTURES/saved/35b6680-agent.json" &&
	"$IOTRACE" -v --histogram report "$f" >r.txt &&
	sed -n "/^% time/,\$p" "$FIXTURES/saved/35b6680-agent-report.txt" \
		>expect &&
	sed -n "/^% time/,\$p" r.txt >actual &&
	test_cmp expect actual &&
	grep -q "^iotrace: sh exited 0 after 9.43 ms traced; 481 syscalls$" r.txt &&
	grep -q "^iotrace: engine agent; " r.txt &&
	! grep -q "agent counted\|agent handled\|untraced, this run" r.txt &&
	"$IOTRACE" report --format=json "$f" >again.json &&
	! grep -q "\"engines\"\|\"untraced\"" again.json &&
	"$IOTRACE" diff "$f" "$f" >d.txt &&
	grep -q "^NEW spends the same time in syscalls" d.txt &&
	"$IOTRACE" diff "$FIXTURES/saved/0e5694a.json" "$f" >d.txt &&
	grep -q "^NEW spends .* less time in syscalls" d.txt
'

test_expect_success PTRACE 'a saved command of 100,000 arguments loads' '
	"$IOTRACE" -o many.txt --save many.json -- true $(seq 100000) &&
	"$IOTRACE" report many.json >again.txt &&
	test_cmp many.txt again.txt &&
	test $(grep -c "^    \"[0-9]*\",\{0,1\}$" many.json) = 100000
'

test_done
