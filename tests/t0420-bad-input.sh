#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile and broken saved runs, through the command line: each gives
# exit 2, nothing on stdout (never a partial table) and exactly one line
# on stderr, "iotrace: FILE: line L: what is wrong".
. "$(dirname "$0")/lib.sh"

# expect_bad FILE LINE TEXT: report and diff both refuse FILE so.
expect_bad() {
	for cmd in "report $1" "diff $1 $FIXTURES/strace/dd-bs1.txt"; do
		"$IOTRACE" $cmd >out 2>err
		rc=$?
		test $rc = 2 || { echo "exit $rc, want 2"; return 1; }
		test ! -s out || { echo "stdout:"; cat out; return 1; }
		test "$(wc -l <err)" = 1 || { cat err; return 1; }
		grep -q "^iotrace: $1: line $2: .*$3" err || { cat err; return 1; }
	done
}

test_expect_success 'set up a good profile to break' '
	cp "$FIXTURES/fuzz/json/seed-true.json" good.json &&
	"$IOTRACE" report good.json >/dev/null
'

test_expect_success 'truncated JSON' '
	head -c 1000 good.json >trunc.json &&
	expect_bad trunc.json "$(wc -l <trunc.json | awk "{print \$1 + 1}")" "invalid JSON"
'

test_expect_success 'not JSON at all (binary)' '
	printf "\177ELF\001\002\003" >bin.json &&
	expect_bad bin.json 1 "no strace -c table found"
'

test_expect_success 'empty file' '
	: >empty.json && expect_bad empty.json 1 "no strace -c table found"
'

test_expect_success 'wrong schema' '
	sed "s|\"iotrace/1\"|\"iotrace/9\"|" good.json >schema.json &&
	expect_bad schema.json 2 "unsupported schema .iotrace/9."
'

test_expect_success 'not a profile: other JSON' '
	printf "{\"name\": \"x\"}\n" >other.json &&
	expect_bad other.json 1 "not an iotrace profile"
'

test_expect_success 'wrong type' '
	sed "0,/^      \"calls\": [0-9]*/s//      \"calls\": \"many\"/" \
		good.json >type.json &&
	line=$(grep -n "\"calls\": \"many\"" type.json | cut -d: -f1) &&
	expect_bad type.json "$line" "syscalls\[0\].calls: expected an integer, got a string"
'

test_expect_success 'number beyond 64 bits' '
	sed "s/\"wall_ns\": [0-9]*/\"wall_ns\": 99999999999999999999999/" good.json >huge.json &&
	line=$(grep -n "\"wall_ns\"" huge.json | cut -d: -f1) &&
	expect_bad huge.json "$line" "too big integer"
'

test_expect_success 'negative number' '
	sed "s/\"stops\": [0-9]*/\"stops\": -5/" good.json >neg.json &&
	line=$(grep -n "\"stops\"" neg.json | cut -d: -f1) &&
	expect_bad neg.json "$line" "stops: must not be negative, got -5"
'

test_expect_success 'deep nesting' '
	{ printf "{\"schema\":\n"; head -c 100000 /dev/zero | tr "\\0" "["; } >deep.json &&
	expect_bad deep.json 2 "maximum parsing depth reached"
'

test_expect_success 'a 100 MB string' '
	{ printf "{\"schema\": \"iotrace/1\",\n\"x\": \""
	  head -c 100000000 /dev/zero | tr "\\0" a; printf "\"}\n"; } >big.json &&
	expect_bad big.json 2 "larger than 16 MiB" &&
	rm big.json
'

test_expect_success 'NUL bytes' '
	sed "s/\"kernel\": \"/&\\x00/" good.json >nul.json &&
	line=$(grep -an "\"kernel\"" nul.json | cut -d: -f1) &&
	expect_bad nul.json "$line" "control character 0x0"
'

test_expect_success 'a broken strace table' '
	head -n 10 "$FIXTURES/strace/dd-bs1.txt" >cut.txt &&
	expect_bad cut.txt 10 "the table ends before its total line"
'

# Values each in range whose sums pass 2^63-1 (issue 20: a total of 26
# calls, a share of 2e16%, diff's verdict turned around and --fail-if
# passing where time grew): refused where the sum passed it.
test_expect_success 'calls and times adding up past 2^63-1 (JSON)' '
	cp "$FIXTURES/fuzz/json/overflow-calls-time.json" sums.json &&
	line=$(grep -n "\"calls\"" sums.json | sed -n 2p | cut -d: -f1) &&
	expect_bad sums.json "$line" "syscalls\[1\]\.calls: the calls of all syscalls add up to more than 2^63-1"
'

test_expect_success 'calls adding up past 2^63-1 (strace table)' '
	cp "$FIXTURES/fuzz/strace/overflow-calls-time.txt" sums.txt &&
	expect_bad sums.txt 4 "the calls of all syscalls add up to more than 2^63-1"
'

test_expect_success 'diff --fail-if: a NEW whose sums overflow is refused' '
	( "$IOTRACE" diff --fail-if "time>+10%" good.json sums.json \
		>out 2>err ); test $? = 2 && test ! -s out &&
	test "$(wc -l <err)" = 1 && grep -q "^iotrace: sums.json: line" err
'

test_expect_success 'a missing file or a directory: one line, exit 2' '
	"$IOTRACE" report nosuch.json 2>err; test $? = 2 &&
	grep -q "^iotrace: cannot read .nosuch.json.: No such file or directory$" err &&
	"$IOTRACE" report . 2>err; test $? = 2 &&
	grep -q "^iotrace: cannot read .\..: Is a directory$" err
'

# ESC and other controls in a loaded command never reach the terminal.
test_expect_success 'controls in a loaded command: report and diff print ?' '
	sed "s/^    \"true\"$/    \"tr\\\\u001b[31mue\", \"a\\\\nb\\\\u0007\"/" \
		good.json >esc.json &&
	grep -q "u001b" esc.json &&
	"$IOTRACE" report esc.json >out 2>err &&
	"$IOTRACE" diff esc.json esc.json >>out 2>>err &&
	"$IOTRACE" diff --format=json esc.json good.json >>out 2>>err &&
	! LC_ALL=C grep -q "[[:cntrl:]]" err &&
	! tr -d "\n" <out | LC_ALL=C grep -q "[[:cntrl:]]" &&
	grep -q "^BASE esc.json: tr?\[31mue a?b?$" out
'

test_expect_success PTRACE 'controls in the name of a live command: ?' '
	cp /bin/true "$(printf "x\033y\nz")" &&
	"$IOTRACE" -- "./$(printf "x\033y\nz")" 2>err &&
	! tr -d "\n" <err | LC_ALL=C grep -q "[[:cntrl:]]" &&
	grep -q "^iotrace: x?y?z exited 0 after" err
'

# Before the bound, these never returned: timeout turns that into a failure.
test_expect_success 'an endless input (/dev/zero): one line, exit 2' '
	timeout 120 "$IOTRACE" report /dev/zero >out 2>err; test $? = 2 &&
	test ! -s out && test "$(wc -l <err)" = 1 &&
	grep -q "^iotrace: /dev/zero: line 1: larger than 256 MiB: not an strace log$" err
'

test_expect_success 'endless blank lines from a pipe: one line, exit 2' '
	yes "" | timeout 120 "$IOTRACE" report /dev/stdin >out 2>err
	test $? = 2 && test ! -s out && test "$(wc -l <err)" = 1 &&
	grep -q "^iotrace: /dev/stdin: line [0-9]*: larger than 256 MiB" err
'

test_done
