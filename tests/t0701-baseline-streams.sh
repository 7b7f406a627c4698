#!/bin/sh
# SPDX-License-Identifier: MIT
# --baseline's untraced runs read /dev/null and write to /dev/null (the
# command's output is never shown twice); the traced run has iotrace's
# own streams.  When those differ (stdout a pipe or a file, stdin a pipe),
# the header says so in one line, and the JSON names both; when they are
# alike it says nothing.
. "$(dirname "$0")/lib.sh"

line="^iotrace: the untraced runs wrote to /dev/null, the traced run wrote to a pipe: their walls may differ$"

test_expect_success PTRACE 'stdout a pipe: the header says the untraced runs wrote to /dev/null' '
	"$IOTRACE" --baseline=2 -o r.txt -- seq 3 </dev/null | cat >out &&
	printf "1\n2\n3\n" >expect && test_cmp expect out &&
	test $(grep -c "their walls may differ" r.txt) = 1 &&
	grep -E "$line" r.txt &&
	sed -n 3p r.txt | grep -E "$line"
'

test_expect_success PTRACE 'stdout /dev/null, stdin /dev/null: no such line' '
	"$IOTRACE" --baseline=2 -o r.txt -- seq 3 </dev/null >/dev/null &&
	grep "(--baseline, median of 2 runs)" r.txt &&
	! grep "their walls may differ" r.txt
'

test_expect_success PTRACE 'stdin a pipe, stdout a file: both said' '
	echo typed | "$IOTRACE" --baseline=2 -o r.txt -- cat >out &&
	echo typed >expect && test_cmp expect out &&
	grep -E "^iotrace: the untraced runs read /dev/null and wrote to /dev/null, the traced run read a pipe and wrote to a file: their walls may differ$" r.txt
'

test_expect_success PTRACE 'JSON: what the untraced runs and the traced run had; report says the same' '
	"$IOTRACE" --baseline=2 -o r.txt --save b.json -- seq 3 </dev/null | cat >/dev/null &&
	grep -E "^    \"stdin\": \"/dev/null\",$" b.json &&
	grep -E "^    \"stdout\": \"/dev/null\",$" b.json &&
	grep -E "^    \"traced_stdin\": \"/dev/null\",$" b.json &&
	grep -E "^    \"traced_stdout\": \"a pipe\"$" b.json &&
	"$IOTRACE" report b.json >again.txt &&
	grep -E "$line" again.txt
'

test_expect_success PTRACE 'a profile saved without the streams loads, and says nothing of them' '
	"$IOTRACE" --baseline=2 -o r.txt --save b.json -- seq 3 </dev/null | cat >/dev/null &&
	grep -v "\"stdin\"\|\"stdout\"\|\"traced_stdin\"\|\"traced_stdout\"" b.json |
		sed "s/\"sys_ns\": \([0-9]*\),$/\"sys_ns\": \1/" >old.json &&
	"$IOTRACE" report old.json >again.txt &&
	grep "(--baseline, median of 2 runs)" again.txt &&
	! grep "their walls may differ" again.txt
'

test_done
