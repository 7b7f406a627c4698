# SPDX-License-Identifier: MIT
# git-style test library for iotrace's integration tests, emitting TAP.
#
#   . "$(dirname "$0")/lib.sh"
#   test_expect_success 'title' '
#           step1 &&
#           step2
#   '
#   test_done
#
# Each script runs in its own scratch directory (removed at the end).
# $IOTRACE is the binary under test, $HELPERS the built test programs,
# $HELPERS32 the same built as i386 programs (gcc -m32), $FIXTURES
# tests/fixtures.  Prerequisites: test_have_prereq PTRACE, STRACE, M32,
# UNSANITIZED (not under make check-sanitize), ROOT, PIDNS,
# PYTHON3, GDB;
# test_expect_success PREREQ 'title' 'body' skips without it.

TESTS_DIR=$(cd "$(dirname "$0")" && pwd)
FIXTURES=$TESTS_DIR/fixtures
: "${IOTRACE:=$TESTS_DIR/../iotrace}"
: "${HELPERS:=$TESTS_DIR/../build/helpers}"
: "${HELPERS32:=$TESTS_DIR/../build/helpers32}"
export IOTRACE HELPERS HELPERS32 FIXTURES
# The fast path's cache of decoded objects (tracer/rewrite/cache.c): one
# for the suite, in the build tree, not the user's.
: "${XDG_CACHE_HOME:=$TESTS_DIR/../build/test-cache}"
export XDG_CACHE_HOME

# wait_for 'CONDITION': polls until CONDITION holds, for up to 20 s; the
# sleeps only pace the polling, no assertion depends on time.
wait_for() {
	n=0
	until eval "$1"; do
		n=$((n + 1))
		test $n -lt 400 || { echo "timed out: $1"; return 1; }
		sleep 0.05
	done
}

test_count=0
test_failed=0
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/iotrace-test.XXXXXX")
trap 'rm -rf "$TRASH"' EXIT
cd "$TRASH" || exit 1

# Probed lazily, once: can this machine ptrace a child at all?
test_have_prereq() {
	for p in $(echo "$1" | tr ',' ' '); do
		case $p in
		PTRACE)
			if [ -z "$have_ptrace" ]; then
				if "$IOTRACE" -o /dev/null -- true >/dev/null 2>&1; then
					have_ptrace=yes
				else
					have_ptrace=no
				fi
			fi
			[ "$have_ptrace" = yes ] || return 1 ;;
		STRACE)
			command -v strace >/dev/null 2>&1 &&
				strace -o /dev/null true 2>/dev/null || return 1 ;;
		ROOT)
			# may make set-user-ID files of other users
			test "$(id -u)" = 0 || return 1 ;;
		PYTHON3)
			# a Python parser of strace -c tables
			command -v python3 >/dev/null 2>&1 || return 1 ;;
		GO)
			# go tool pprof (golang-go): reads --format=pprof
			command -v go >/dev/null 2>&1 || return 1 ;;
		GDB)
			command -v gdb >/dev/null 2>&1 || return 1 ;;
		CPUS2)
			# two CPUs or more in this process's mask
			test "$(nproc)" -ge 2 || return 1 ;;
		UNSANITIZED)
			# exact calls of a process running iotrace's own
			# code (a built-in workload): under make
			# check-sanitize the sanitizers' runtime makes calls
			# of its own there
			test -z "$IOTRACE_SANITIZED" || return 1 ;;
		PIDNS)
			# a pid namespace of the test's own (unshare, root):
			# pids taken by nothing else, ns_last_pid writable
			unshare --pid --fork --mount-proc true \
				>/dev/null 2>&1 || return 1 ;;
		M32)
			# i386 helpers built (gcc -m32) and runnable here
			"$HELPERS32/oddcalls" >/dev/null 2>&1 || return 1 ;;
		*)
			return 1 ;;
		esac
	done
	return 0
}

test_expect_success() {
	if [ $# = 3 ]; then
		prereq=$1
		shift
	else
		prereq=
	fi
	test_count=$((test_count + 1))
	if [ -n "$prereq" ] && ! test_have_prereq "$prereq"; then
		echo "ok $test_count # skip $1 (missing $prereq)"
		return 0
	fi
	if (eval "$2") >"$TRASH/.out" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed -e 's/^/#   /' "$TRASH/.out"
		test -z "$IOTRACE_TEST_FAILURES" || {
			echo "== $(basename "$0") not ok $test_count - $1"
			cat "$TRASH/.out"
		} >>"$IOTRACE_TEST_FAILURES"
	fi
}

test_expect_failure_code() {
	# test_expect_failure_code CODE 'title' 'command': exits with CODE
	code=$1
	shift
	test_expect_success "$1" "( $2 ); test \$? = $code"
}

# Shows the difference between expected and actual files on failure.
test_cmp() {
	diff -u "$1" "$2"
}

# Prints the "calls errors name" triples of an strace -c style table
# (ours or strace's), sorted by name: the comparable part of a table.
# strace's tables for other personalities ("System call usage summary
# for 32 bit mode:") name their rows as iotrace's one table does:
# "write/i386", "getpid/x32".
table_counts() {
	awk '
	/^System call usage summary for 32 bit mode:/ { sfx = "/i386"; next }
	/^System call usage summary for x32 mode:/ { sfx = "/x32"; next }
	/^System call usage summary for / { sfx = ""; next }
	/^% time / { rules = 0; next }
	/^-+ / { rules++; next }
	rules == 1 && NF >= 4 {
		name = $NF sfx; calls = $4
		errors = (NF >= 6) ? $5 : 0
		print name, calls, errors
	}' "$1" | sort
}

# made_counts FILE: table_counts of FILE without what timing decides
# between two runs of a command that forks, strace's or iotrace's.
# rt_sigreturn counts the shell's SIGCHLD handlers (two children's
# signals may merge into one) and its "errors" are the register it
# restores; strace's own runs differ there, so the row is left out.  A
# fork that a signal interrupts (a child's SIGCHLD, which a traced
# process does not ignore even at SIG_DFL) fails with ERESTARTNOINTR and
# is made again: one more call and one more error, as timing decides
# (strace's run: clone 3 1 in 1 run of 15 under load, iotrace's clone 2
# 0; 200 processes of 10 forks: clone 2208 8 to 2220 20); the forks that
# succeeded are compared.
made_counts() {
	table_counts "$1" | grep -v "^rt_sigreturn " |
	awk '$1 ~ /^(clone|clone3|fork)$/ { print $1, $2 - $3, 0; next }
	     { print }'
}

# untouched REF CMD...: CMD under iotrace's default engine (its table in
# t) prints what it prints in the reference run, stdout and stderr (want,
# got), and exits alike; and each syscall's calls and errors, as
# made_counts gives them, equal strace -f -c's for CMD (s): rule 1 and
# rule 2.  REF is "untraced", or "strace" for a command that no tracer
# can leave alike (one that traces: PTRACE_TRACEME fails with EPERM
# under any tracer).  $unsteady: rows left out ("futex|munmap"), those
# whose counts timing decides; made_counts leaves out rt_sigreturn and
# forks made again after a signal.  $run_as: a command the three runs
# are made through ("setpriv --reuid=..."): iotrace and strace run as
# another user.  Every run is bounded by timeout, so a hang fails (exit
# 124) instead of hanging the suite.
untouched() {
	ref=$1
	shift
	rm -f s t
	if test "$ref" = strace; then
		timeout 120 $run_as strace -f -c -o s "$@" >want 2>&1 </dev/null
		echo "exit $?" >>want
	else
		timeout 120 $run_as "$@" >want 2>&1 </dev/null
		echo "exit $?" >>want
		timeout 120 $run_as strace -f -c -o s "$@" >s.out 2>&1 \
			</dev/null
	fi
	timeout 120 $run_as "$IOTRACE" -v -o t -- "$@" >got 2>&1 </dev/null
	echo "exit $?" >>got
	test_cmp want got &&
	made_counts s | grep -v -E "^(${unsteady:-rt_sigreturn}) " >s.counts &&
	made_counts t | grep -v -E "^(${unsteady:-rt_sigreturn}) " >t.counts &&
	test -s s.counts &&
	test_cmp s.counts t.counts
}

# table_calls NAME FILE: the calls of one syscall in a table, 0 if absent.
table_calls() {
	table_counts "$2" |
		awk -v n="$1" '$1 == n { c = $2 } END { print c + 0 }'
}

test_done() {
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
}

# same_view CMD...: CMD prints the same (its CPU mask, say) untraced,
# under the default engine, and under the ptrace engine pinned,
# unpinned and without its filter.
same_view() {
	"$@" >expect 2>&1 &&
	"$IOTRACE" -o /dev/null -- "$@" >default 2>&1 &&
	"$IOTRACE" --engine=ptrace -o /dev/null -- "$@" >pinned 2>&1 &&
	"$IOTRACE" --engine=ptrace -o /dev/null --no-pin -- "$@" \
		>unpinned 2>&1 &&
	"$IOTRACE" --engine=ptrace -o /dev/null --no-seccomp -- "$@" \
		>ptrace 2>&1 &&
	test_cmp expect default &&
	test_cmp expect pinned &&
	test_cmp expect unpinned &&
	test_cmp expect ptrace
}
