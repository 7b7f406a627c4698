#!/bin/sh
# SPDX-License-Identifier: MIT
# Source hygiene: what banned.h does in git, as a test.  Functions that
# overflow or keep hidden state have safe replacements used everywhere.
. "$(dirname "$0")/lib.sh"
SRC=$TESTS_DIR/..

project_sources() {
	ls "$SRC"/syscalls/*.[ch] "$SRC"/tracer/*.[ch] "$SRC"/tracer/*/*.[ch] \
		"$SRC"/unwind/*.[ch] "$SRC"/elf/*.[ch] "$SRC"/procfd/*.[ch] \
		"$SRC"/profile/*.[ch] "$SRC"/render/*.[ch] \
		"$SRC"/compare/*.[ch] "$SRC"/session/*.[ch] "$SRC"/cli/*.[ch] \
		"$SRC"/workloads/*.[ch] 2>/dev/null
}

test_expect_success 'no strcpy, strcat, sprintf, vsprintf, gets, strtok' '
	! grep -nE "\<(strcpy|strcat|sprintf|vsprintf|gets|strtok)\(" \
		$(project_sources)
'

test_expect_success 'every source file starts with an SPDX line' '
	for f in $(project_sources); do
		head -n 1 "$f" | grep -q "SPDX-License-Identifier" ||
		{ echo "$f: no SPDX line"; exit 1; }
	done
'

test_expect_success 'no exit() outside cli/' '
	! grep -nE "(^|[^_])\<exit\(" $(project_sources | grep -v /cli/)
'

test_done
