#!/bin/sh
# SPDX-License-Identifier: MIT
# The files' dependencies, read from the objects the build made
# (scripts/cycles): no two files use each other but through a registry's
# table, and the profile (profile/, render/, compare/) uses nothing of
# the engines, /proc or the unwinder, so it links, and unit tests reach
# it, without them.
. "$(dirname "$0")/lib.sh"
SRC=$TESTS_DIR/..
# The objects of the iotrace under test (make check-sanitize's are apart).
BUILD=$SRC/build
test -z "$IOTRACE_SANITIZED" || BUILD=$SRC/build/san

tools() {
	command -v python3 && command -v nm && command -v objdump
} >/dev/null 2>&1

if tools && [ -f "$BUILD/cli/main.o" ]; then
	test_expect_success 'no two-file cycles but registries; the profile pure' '
		python3 "$SRC/scripts/cycles" "$BUILD"
	'
else
	test_count=$((test_count + 1))
	echo "ok $test_count # skip no python3, nm, objdump or objects in $BUILD"
fi

test_done
