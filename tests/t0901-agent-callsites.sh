#!/bin/sh
# SPDX-License-Identifier: MIT
# -k under the agent engine: every call-site test of t0900 again, with
# the stacks the agent copies and iotrace unwinds as it goes (the same
# sites, the same exact counts).  But the corrupt frame: a call made
# with its stack pointer in a 512-byte buffer gets its SIGSYS frame
# written below it, so that test is ptrace's alone.
# Then what is the agent's own: its stacks are the ptrace engine's, an
# execve's too (its stack left before it is made, the call timed by
# iotrace at its exec event or by the agent after a failure); and
# the calls of a process killed before iotrace unwound them are counted
# in the header, so that call sites and that count add up to the table.
ENGINE=--engine=agent PREREQ=AGENT CORRUPT=PTRACE_ONLY TEST_NO_DONE=1
. "$(dirname "$0")/t0900-callsites.sh"

# The folded stacks of FILE, sorted (threads may interleave).
sorted() {
	sort "$1"
}

test_expect_success AGENT 'the same stacks as the ptrace engine, execve too' '
	for e in ptrace agent; do
		"$IOTRACE" --engine=$e -k -e trace=execve,write,read,openat \
			--folded $e.folded -o /dev/null -- sh -c \
			"\"$HELPERS/callsites\" exec threads; no-such-cmd; \
			\"$HELPERS/callsites\" deep" 2>/dev/null || return 1
	done &&
	sorted ptrace.folded >expect &&
	sorted agent.folded >actual &&
	test_cmp expect actual &&
	test "$(grep -c ";execve;execve 1$" actual)" = 3
'

# Every counted call is at a call site or in the header's count, but the
# command's own execve (made by iotrace's code, no call site).
test_expect_success AGENT 'a killed process: its calls without a stack are counted' '
	for i in 1 2 3; do
		"$IOTRACE" --engine=agent -k --folded f -o r -- sh -c \
			"dd if=/dev/zero of=/dev/null bs=1k count=100000000 & \
			sleep 0.2; kill -9 \$!" || return 1
		missed=$(sed -n "s/^iotrace: -k: \([0-9]*\) calls\{0,1\} the agent counted.*/\1/p" r)
		sites=$(awk "{ s += \$NF } END { print s }" f)
		total=$(awk "\$NF == \"total\" { print \$4 }" r)
		test $((sites + ${missed:-0} + 1)) = "$total" || return 1
	done
'

test_done
