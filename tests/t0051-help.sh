#!/bin/sh
# SPDX-License-Identifier: MIT
# --help is complete: every long option in a getopt table of cli/ and
# every letter of its getopt string appears in the --help of the command
# that parses it (main.c's in iotrace --help, sweep.c's in iotrace sweep
# --help ...) and in iotrace.1; each subcommand's --help (and -h) prints
# its own usage on stdout and exits 0.
. "$(dirname "$0")/lib.sh"
SRC=$TESTS_DIR/..

# The command whose --help covers the options parsed in cli/FILE.c.
help_of() {
	case $1 in
	main) echo "" ;;
	diff|report|sweep) echo "$1" ;;
	*) return 1 ;;
	esac
}

# "--name" for each { "name", ... } of FILE's struct option tables.
long_options() {
	sed -n '/^static const struct option .*\[\] = {$/,/^};$/p' "$1" |
		sed -n 's/^	{ "\([a-z-]*\)",.*/--\1/p'
}

# "-x" for each letter of FILE's getopt_long option strings.
short_options() {
	sed -n 's/.*getopt_long(argc, argv, "\([^"]*\)".*/\1/p' "$1" |
		tr -d '+:' | fold -w 1 | sed 's/^/-/'
}

# Whether help text FILE names option OPT as a word of its own.
names_option() {
	grep -qE -- "(^|[ ,([])$2([] ,=[]|$)" "$1"
}

test_expect_success 'every cli/ file with getopt tables has a --help' '
	for f in $(grep -l "getopt_long\|struct option" "$SRC"/cli/*.c); do
		c=$(basename "$f" .c) &&
		help_of "$c" >/dev/null ||
		{ echo "$f: options but no --help known here"; exit 1; }
	done
'

test_expect_success 'each --help and -h: its own usage on stdout, exit 0' '
	for c in "" sweep diff report; do
		"$IOTRACE" $c --help >h1 2>err && test_cmp /dev/null err &&
		"$IOTRACE" $c -h >h2 2>err && test_cmp /dev/null err &&
		test_cmp h1 h2 &&
		head -n 1 h1 | grep -q "^usage: iotrace.* $c" ||
		{ echo "iotrace $c --help:"; cat h1 err; exit 1; }
	done
'

test_expect_success 'every option in the code is in its --help' '
	for f in $(grep -l "getopt_long" "$SRC"/cli/*.c); do
		c=$(help_of "$(basename "$f" .c)") &&
		"$IOTRACE" $c --help >help &&
		for o in $(long_options "$f") $(short_options "$f"); do
			names_option help "$o" ||
			{ echo "iotrace $c --help: no $o"; exit 1; }
		done
	done
'

test_expect_success 'every long option in the code is in iotrace.1' '
	sed -e "s/\\\\-/-/g" -e "s/\\\\f[BIRP]//g" "$SRC/iotrace.1" >man &&
	for f in $(grep -l "getopt_long" "$SRC"/cli/*.c); do
		for o in $(long_options "$f"); do
			grep -q -- "$o" man || { echo "iotrace.1: no $o"; exit 1; }
		done
	done
'

test_expect_success 'iotrace --help names sweep'\''s {} and diff'\''s --fail-if' '
	"$IOTRACE" --help >help &&
	grep -q "{}" help && names_option help --fail-if &&
	grep -q "SUBCOMMAND --help" help
'

test_expect_success 'a subcommand option after --help is not run' '
	"$IOTRACE" diff --help nosuch.json other.json >out &&
	grep -q "^usage: iotrace diff" out &&
	"$IOTRACE" report --help nosuch.json >out &&
	grep -q "^usage: iotrace report" out &&
	"$IOTRACE" sweep --help bs=1,2 -- true {} >out &&
	grep -q "^usage: iotrace.* sweep" out
'

test_done
