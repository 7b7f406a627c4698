#!/bin/sh
# SPDX-License-Identifier: MIT
# Every make target builds what it runs: each program the scripts a
# target runs name ($HELPERS/NAME, $HELPERS32/NAME) is a prerequisite
# of that target in make's own database (make
# -pq), so that no target works only after another one built its
# programs (make check-sanitize alone in a fresh clone lacked -k's static
# and stripped helpers, which only make check built).
. "$(dirname "$0")/lib.sh"
SRC=$TESTS_DIR/..

# make's prerequisites of target $1, one a line (in prereqs.$1).
prereqs() {
	( unset MAKEFLAGS MFLAGS MAKELEVEL; make -C "$SRC" -pq "$1" ) \
		2>/dev/null | sed -n "s/^$1: *//p" | tr ' ' '\n' |
		grep -v '^|\?$' | sort -u >"prereqs.$1"
}

# What scripts $@ run (comments aside), as make builds it: build/helpers/NAME,
# build/helpers32/NAME (where make builds i386 helpers at all: M32).
programs() {
	sed -e '/^[[:space:]]*#/d' "$@" |
		grep -oE '\$\{?HELPERS(32)?\}?/[A-Za-z0-9_.-]+' |
		sed -e 's|^\$[{]*HELPERS32[}]*/|build/helpers32/|' \
		    -e 's|^\$[{]*HELPERS[}]*/|build/helpers/|' |
		{ if grep -q '^build/helpers32/' prereqs.check; then cat
		  else grep -v '^build/helpers32/'; fi; }
}

# builds TARGET SCRIPT...: each program of the scripts a prerequisite.
builds() {
	target=$1
	shift
	prereqs "$target" &&
	programs "$@" | sort -u >"runs.$target" &&
	comm -23 "runs.$target" "prereqs.$target" >"missing.$target" &&
	{ test_cmp /dev/null "missing.$target" ||
	  { echo "make $target runs but does not build the above"; false; }; }
}

test_expect_success 'make -pq reads the database' '
	prereqs check && grep -q "^iotrace$" prereqs.check
'
test_expect_success 'make check builds what the tests run' '
	builds check "$TESTS_DIR"/t*.sh "$TESTS_DIR"/lib.sh
'
test_expect_success 'make check-sanitize builds what the tests run' '
	builds check-sanitize "$TESTS_DIR"/t*.sh "$TESTS_DIR"/lib.sh &&
	grep -q "^build/san/iotrace$" prereqs.check-sanitize
'
test_expect_success 'make bench builds what bench.sh, stacks.sh, estimate.sh run' '
	builds bench "$SRC"/bench/bench.sh "$SRC"/bench/stacks.sh \
		"$SRC"/bench/estimate.sh "$SRC"/bench/lib.sh
'
test_expect_success 'make bench-sweep builds what sweep-dd.sh runs' '
	builds bench-sweep "$SRC"/bench/sweep-dd.sh
'
test_expect_success 'each target builds iotrace; fuzz its targets' '
	for t in check bench bench-sweep demo; do
		prereqs $t && grep -q "^iotrace$" prereqs.$t ||
		{ echo "make $t: no iotrace"; exit 1; }
	done &&
	prereqs fuzz &&
	for t in json strace diff args; do
		grep -q "^build/fuzz/fuzz-$t$" prereqs.fuzz ||
		{ echo "make fuzz: no fuzz-$t"; exit 1; }
	done
'

test_done
