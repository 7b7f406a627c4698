#!/bin/sh
# SPDX-License-Identifier: MIT
# A child made with CLONE_UNTRACED (clone and clone3, 64- and 32-bit)
# would inherit the filter with no tracer: every traced call ENOSYS,
# and pinned for life.  iotrace clears the flag at the call's entry, so
# the child runs as it does untraced (same output, same exit status, its
# CPU list not pinned) and is traced like any other: its writes count.
. "$(dirname "$0")/lib.sh"

# untraced_case PROGRAM MODE [OPTIONS]: output and status equal the
# untraced run, the child's two writes counted (row $row), under OPTIONS.
row=write
untraced_case() {
	prog=$1 mode=$2 && shift 2 &&
	{ "$prog" $mode >want; echo "exit $?" >>want; } &&
	{ "$IOTRACE" "$@" -o t -- "$prog" $mode >got; echo "exit $?" >>got; } &&
	test_cmp want got &&
	grep -q "^child wrote$" got &&
	test "$(table_calls $row t)" = 2
}

test_expect_success PTRACE 'clone(CLONE_UNTRACED): runs and is counted' '
	untraced_case "$HELPERS/untraced" ""
'

test_expect_success PTRACE 'clone3(CLONE_UNTRACED): runs and is counted' '
	untraced_case "$HELPERS/untraced" 3
'

test_expect_success PTRACE 'under -e trace=write,openat: the same' '
	untraced_case "$HELPERS/untraced" "" -e trace=write,openat
'

test_expect_success PTRACE 'under -e trace=openat (no I/O traced): runs' '
	"$HELPERS/untraced" >want &&
	"$IOTRACE" -e trace=openat -o t -- "$HELPERS/untraced" >got &&
	test_cmp want got && test "$(table_calls openat t)" -ge 1
'

test_expect_success PTRACE,M32 'i386: clone and clone3 alike' '
	row=write/i386 &&
	untraced_case "$HELPERS32/untraced" "" &&
	untraced_case "$HELPERS32/untraced" 3
'

test_done
