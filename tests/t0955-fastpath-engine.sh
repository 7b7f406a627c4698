#!/bin/sh
# SPDX-License-Identifier: MIT
# The fast path in the ptrace engine (docs/fastpath.md): hot calls made
# at libc's rewritten sites are counted without a stop, as many as
# strace counts, on the file the fd named when each was made (the
# counters are per fd: dup2, close and reopen, fork, vfork, close-on-exec
# and an exit without close each fold them at the right stop, and a
# close made without a stop leaves no stale name behind), in dynamic and
# static programs; the header says how many took it, or why
# it is off; the decoded sites are cached between runs, and a damaged
# cache is decoded again.  t0950 holds the behaviour guards.
. "$(dirname "$0")/lib.sh"

# fast_calls REPORT: the count on the fast path's header line, or 0.
fast_calls() {
	sed -n 's/^iotrace: fast path: \([0-9,]*\) of .*/\1/p' "$1" | tr -d , |
		grep . || echo 0
}

# The hot calls (syscalls/systab.c's SF_HOT), as --debug names them.
hot_names=$("$IOTRACE" --debug -o /dev/null -- true 2>&1 |
	    sed -n 's/.* ms hot calls: //p')

# hot_calls REPORT: the calls of the table's hot rows, the ones a
# process's rewrite waits for.
hot_calls() {
	n=0
	for c in $hot_names; do
		n=$((n + $(table_calls $c "$1")))
	done
	echo $n
}

test_expect_success PTRACE 'the hot calls: the data calls, the I/O steering, a tree walk'"'"'s opens and metadata, a buffer'"'"'s mmap' '
	for c in read write pread64 pwritev2 lseek fsync fdatasync splice \
		 sendfile copy_file_range sendto recvmsg newfstatat statx \
		 getdents64 faccessat lgetxattr readlinkat fadvise64 openat dup \
		 close fcntl mmap munmap; do
		echo " $hot_names " | grep -q " $c " || { echo "not hot: $c"; return 1; }
	done &&
	for c in dup2 dup3 close_range mprotect mremap execve poll futex; do
		echo " $hot_names " | grep -q " $c " && { echo "hot: $c"; return 1; }
		:
	done
'

json_num() { # FILE KEY: the first integer value of KEY in FILE
	sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" "$1" | head -n 1
}

# rows_of REPORT DIR: "calls file" of the writes to DIR's files.
rows_of() {
	awk -v d="$2/" '$1 == "write" && index($7, d) == 1 {
		n = split($7, p, "/"); print $2, p[n] }' "$1" | sort -k2
}

# By default a process is rewritten at its 64th hot call: the 63 before
# it stop, the 64th is made again through its rewritten site, and every
# later one takes the fast path.  The close of the fd written there
# stops once, at its seccomp stop, so that its writes are folded on its
# file, and is made again through its trampoline, counted there: no
# exit stop.
test_expect_success PTRACE,STRACE '1,000 writes: the first 63 hot calls stop, the rest on the fast path, as strace counts' '
	"$IOTRACE" -v -o r -- "$HELPERS/writeloop" /dev/null 1000 1 &&
	strace -f -c -o s "$HELPERS/writeloop" /dev/null 1000 1 &&
	test "$(table_calls write r)" = "$(table_calls write s)" &&
	test "$(table_calls close r)" = "$(table_calls close s)" &&
	test "$(fast_calls r)" = $(($(hot_calls r) - 63)) &&
	grep -q "^iotrace: fast path: .* calls counted without a stop, at [0-9]* rewritten sites in 1 process$" r
'

# The metadata of a tree walk, the I/O's steering and a socket's
# datagrams (metawalk.c's rounds): each call as strace counts it, errors
# too, 300 rounds' worth past what the program makes with none (libc's
# and the loader's own: ld.so.preload's access, stdout's fstat), and all
# but the first 63 hot calls on the fast path, less opendir's openat:
# glibc 2.36's __open_nocancel moves registers between its mov and its
# syscall, a shape left on stops.
test_expect_success PTRACE,STRACE 'stat, getdents, xattrs, fadvise, sendmsg...: as strace counts, on the fast path' '
	mkdir walk &&
	strace -f -c -o s0 "$HELPERS/metawalk" walk 0 >/dev/null &&
	untouched untraced "$HELPERS/metawalk" walk 300 &&
	echo "rounds=300 bytes=57600" >expect && echo "exit 0" >>expect &&
	test_cmp expect got &&
	made_counts s0 >s0.counts &&
	for row in "newfstatat 1800 300" "statx 300 0" "access 600 300" \
		   "faccessat2 300 0" "getdents64 600 0" "readlink 300 0" \
		   "readlinkat 300 0" "getxattr 300 300" "lgetxattr 300 300" \
		   "fgetxattr 300 300" "listxattr 300 0" "llistxattr 300 0" \
		   "flistxattr 300 0" "fadvise64 300 0" "readahead 300 0" \
		   "ftruncate 300 0" "fallocate 300 0" "sync_file_range 300 0" \
		   "statfs 300 0" "fstatfs 300 0" "sendto 600 0" \
		   "recvfrom 600 0" "sendmsg 300 0" "recvmsg 300 0"; do
		set -- $row &&
		set -- "$@" $(grep "^$1 " t.counts) $(grep "^$1 " s0.counts) &&
		test "$2 $3" = "$(($5 - ${8:-0})) $(($6 - ${9:-0}))" ||
			{ echo "not $row: $*"; return 1; }
	done &&
	test "$(fast_calls t)" -ge $(($(hot_calls t) - 63 - 300))
'

test_expect_success PTRACE,STRACE '--rewrite-after=0: rewritten at exec, all 1,000 on the fast path' '
	"$IOTRACE" -v --rewrite-after=0 -o r -- "$HELPERS/writeloop" /dev/null 1000 1 &&
	strace -f -c -o s "$HELPERS/writeloop" /dev/null 1000 1 &&
	test "$(table_calls write r)" = "$(table_calls write s)" &&
	test "$(fast_calls r)" -ge 1000
'

test_expect_success PTRACE,STRACE '--rewrite-after=N: the Nth hot call, a write, made again through its site' '
	"$IOTRACE" -v --rewrite-after=200 -o r -- "$HELPERS/writeloop" /dev/null 1000 1 &&
	test "$(table_calls write r)" = 1000 &&
	test "$(fast_calls r)" = $(($(hot_calls r) - 199))
'

# A process of one task makes its calls one after the other, all within
# the run's wall: the wall, whose start is the calibration's last call,
# holds the time in them.  A built-in workload makes no stop between its
# calibration and its 64th hot call; the wall used to start at that stop
# (dd of 40,005 calls: 3.5 ms of wall, 50 ms in its calls).
json_u64() { # key file: the first "key": N
	sed -n "s/^ *\"$1\": \([0-9]*\),\{0,1\}$/\1/p" "$2" | head -n 1
}
test_expect_success PTRACE 'a built-in workload on the fast path: its calls within its wall' '
	for after in 64 0; do
		"$IOTRACE" -v --rewrite-after=$after --save j.json -o r \
			run dd bs=1024 count=20000 of=out 2>/dev/null &&
		test "$(fast_calls r)" -ge 39000 &&
		wall=$(json_u64 wall_ns j.json) && raw=$(json_u64 raw_time_ns j.json) &&
		test "$raw" -gt 0 && test "$wall" -ge "$raw" || return 1
	done
'

# A process that ends before its 64th hot call keeps its text as it was:
# no pool, no rewrite, every call a stop, and the header says why.
test_expect_success PTRACE,STRACE 'fewer than 64 hot calls: not rewritten, counted as strace' '
	"$IOTRACE" -v -o r -- "$HELPERS/writeloop" /dev/null 20 1 &&
	strace -f -c -o s "$HELPERS/writeloop" /dev/null 20 1 &&
	test "$(table_calls write r)" = "$(table_calls write s)" &&
	test "$(fast_calls r)" = 0 &&
	grep -q "^iotrace: fast path: 0 of .* in 0 processes; 1 process made fewer than 64 hot calls, its text left as it was$" r
'

# Threads started before any hot call: the process is rewritten at the
# clone of its second task, before that task runs, so its threads all
# take the (locked) fast path.
test_expect_success PTRACE,STRACE 'threads before any hot call: rewritten at the first clone' '
	"$IOTRACE" -v -o r --save t.json -- "$HELPERS/threads" 4 500 &&
	strace -f -c -o s "$HELPERS/threads" 4 500 &&
	test "$(table_calls write r)" = "$(table_calls write s)" &&
	test "$(fast_calls r)" -ge 2000 &&
	test "$(json_num t.json calls_locked)" -ge 2000
'

# A handler's 100 writes (its 64th hot call among them), made while the
# read it interrupted waits at its site to be made again (SA_RESTART):
# glibc's read is the xor shape, whose 10 bytes the jmp takes, so a
# rewrite then would send the sigreturn into the middle of the jmp (the
# program crashed).  No rewrite until the handler returns; then the
# restarted read rewrites the process, and the counts stay strace's.
test_expect_success PTRACE,STRACE 'a handler'"'"'s hot calls: no rewrite under the read it interrupted' '
	unsteady="pread64|sched_yield|rt_sigreturn" untouched untraced \
		"$HELPERS/readsig" restart 3 100 &&
	printf "restart: signals=3 read=1\nexit 0\n" >expect &&
	test_cmp expect got &&
	test "$(fast_calls t)" -gt 0
'

# Where a rewrite is due but not safe, the process stays on stops for
# good, counted as strace counts, and the header says so: handlers left
# by siglongjmp never return (one may still be running), and a filter of
# the program's own would judge the calls that map the pool.  The
# signaller child polls as long as it takes (pread64, sched_yield): when
# a slow run (ASan) makes it poll past 64 hot calls, the child alone is
# rewritten, so the fast path holds at most its hot calls (pread64,
# readv and one write), never the parent's 300 handler writes.
test_expect_success PTRACE,STRACE 'handlers left by siglongjmp: left on stops, and said' '
	"$IOTRACE" -v -o r -- "$HELPERS/readsig" longjmp 3 100 >out &&
	strace -f -c -o s "$HELPERS/readsig" longjmp 3 100 >/dev/null &&
	test "$(table_calls write r)" = "$(table_calls write s)" &&
	test "$(table_calls read r)" = "$(table_calls read s)" &&
	child_hot=$(($(table_calls pread64 r) + $(table_calls readv r) + 1)) &&
	test "$(fast_calls r)" -le "$child_hot" &&
	grep -q "; 1 process left on stops, not safe to rewrite (threads or a signal handler running, memory shared, a seccomp filter of its own)$" r
'

test_expect_success PTRACE 'a seccomp filter of its own: left on stops, and said' '
	"$IOTRACE" -v -o r -- "$HELPERS/seccomp-own" 0 100 >out &&
	test "$(table_calls write r)" -ge 100 &&
	test "$(fast_calls r)" = 0 &&
	grep -q "; 1 process left on stops, not safe to rewrite (" r &&
	! grep -q "made fewer than" r
'

# A process with threads takes glibc's other splice, which loads two
# arguments from its frame between the number and the syscall (the loads
# shape): its mov is rewritten, the trampoline runs a copy of the loads
# first.  Before, its splices all stopped (a 2-thread program: 3 of
# 2,048 calls on the fast path).
test_expect_success PTRACE,STRACE 'splice with threads: the loads shape, on the fast path' '
	head -c 4000000 /dev/urandom >data &&
	"$IOTRACE" -v -o r -- "$HELPERS/splicecat" -t data >got &&
	cmp data got &&
	strace -f -c -o s "$HELPERS/splicecat" -t data >/dev/null &&
	test "$(table_calls splice r)" = "$(table_calls splice s)" &&
	test "$(fast_calls r)" -ge $(($(table_calls splice r) - 2))
'

# The read sites are of the other shape (xor, 10 bytes rewritten): the
# 64th read made again through its site, a pipe's data all through.
test_expect_success PTRACE 'a read loop rewritten as it runs: the data unchanged' '
	head -c 3000000 /dev/urandom >data &&
	cksum <data >want &&
	"$IOTRACE" -v -o r -- sh -c "dd if=data bs=4096 status=none | cksum" >got &&
	test_cmp want got &&
	test "$(fast_calls r)" -gt 1000
'

# A built-in workload runs in a fork of iotrace: had iotrace started a
# thread before it (the fast path's calibration did), glibc would take
# the fork for multi-threaded and call splice by its other path, whose
# site is not rewritten (before, 0 of the splices took the fast path).
test_expect_success PTRACE 'run splice: its splices on the fast path' '
	"$IOTRACE" -v -o r run splice size=1M bs=16K of=/dev/null &&
	test "$(table_calls splice r)" = 129 &&
	test "$(fast_calls r)" -ge 128
'

test_expect_success PTRACE '--no-rewrite: no fast path, the same counts' '
	"$IOTRACE" -v --no-rewrite -o r -- "$HELPERS/writeloop" /dev/null 1000 1 &&
	! grep -q "fast path" r &&
	test "$(table_calls write r)" = 1000
'

test_expect_success PTRACE '-k: off, and the header says why' '
	"$IOTRACE" -v -k -o r -- "$HELPERS/writeloop" /dev/null 100 1 &&
	grep -qx "iotrace: fast path off (-k without --stack-sample unwinds every call): every traced call stops" r &&
	test "$(table_calls write r)" = 100
'

# -k --stack-sample N: 1 call in N of a rewritten site's goes to a ptrace
# stop, unwound where the program made it; the counts stay strace's.
# callsites makes 300 writes from emit_byte, 42 through put_shared and
# 7 from flush_log, all through libc's write: with 1 in 10 sampled, the
# section scales 30 samples to emit_byte's 300, and shares the row's
# time by calls (a sample's stop is not what its calls cost).
test_expect_success PTRACE '-k --stack-sample: sampled through the fast path' '
	"$IOTRACE" -v -k --stack-sample 10 -e trace=write -o r \
		-- "$HELPERS/callsites" &&
	test "$(fast_calls r)" -ge $((349 - 63 - 35)) &&
	test "$(table_calls write r)" = 349 &&
	grep -q "^write  349 calls, [0-9.]* s (stacks of 1 call in 10, scaled: ~; time shared by calls)$" r &&
	grep -q "^   86\.0% ~       300 calls .*  emit_byte (callsites)$" r &&
	awk "/^write  349 calls/ { t = \$3 } /emit_byte/ { s = \$5 }
	     END { exit !(s > 0 && s <= t) }" r
'

test_expect_success PTRACE '-k --stack-sample 1: every call unwound, no fast path' '
	"$IOTRACE" -v -k --stack-sample 1 -e trace=write -o r \
		-- "$HELPERS/callsites" &&
	grep -q "^iotrace: fast path off (-k without --stack-sample" r &&
	grep -q "^   86\.0%         300 calls .*  emit_byte (callsites)$" r
'

# A buffer mapped and unmapped 200 times, an ioctl each time (mapcalls):
# all on the fast path past the 63rd hot call, but the one mmap of
# executable pages, which stops at its trampoline's check so that
# iotrace patches what it maps; each call as strace counts it.
test_expect_success PTRACE,STRACE 'mmap, munmap, ioctl on the fast path; an executable mmap stops' '
	"$IOTRACE" -v -o r -- "$HELPERS/mapcalls" 200 &&
	strace -f -c -o s "$HELPERS/mapcalls" 200 &&
	for c in mmap munmap ioctl; do
		test "$(table_calls $c r)" = "$(table_calls $c s)" || return 1
	done &&
	test "$(fast_calls r)" -ge $((3 * 200 - 63)) &&
	test "$(fast_calls r)" = $(($(hot_calls r) - 63 - 1))
'

# A file opened, written and closed, 16 times (fdcases many): each close
# of a written fd stops once, where its writes are folded on its file,
# and is made again through its trampoline (no exit stop), so every hot
# call past the first 63 is counted on the fast path, the closes too.
for prog in fdcases fdcases-static; do
	test_expect_success PTRACE,STRACE "$prog: 16 files written and closed: one stop a close, counted fast" "
		rm -rf d && mkdir d &&
		\"\$IOTRACE\" -v -o r -- \"\$HELPERS/$prog\" many \"\$PWD/d\" &&
		strace -f -c -o s \"\$HELPERS/$prog\" many \"\$PWD/d\" &&
		test \"\$(table_calls close r)\" = \"\$(table_calls close s)\" &&
		test \"\$(table_calls write r)\" = \"\$(table_calls write s)\" &&
		test \"\$(fast_calls r)\" = \$((\$(hot_calls r) - 63)) &&
		{ echo '100 a'; i=1; while test \$i -le 15; do
			echo \"\$i f\$i\"; i=\$((i + 1)); done; } | sort -k2 >expect &&
		rows_of r \"\$PWD/d\" >got &&
		test_cmp expect got
	"
done

# case, then "calls file" of each file DIR holds after it
fdswap_case() {
	prog=$1 c=$2
	shift 2
	rm -rf d && mkdir d &&
	"$IOTRACE" -v --rewrite-after=1 -o r -- "$prog" "$c" "$PWD/d" &&
	test "$(fast_calls r)" -gt 0 &&
	printf "%s\n" "$@" >expect &&
	rows_of r "$PWD/d" >got &&
	test_cmp expect got
}

for prog in fdcases fdcases-static; do
	test_expect_success PTRACE "$prog: dup2 onto a written fd: each file its own" "
		fdswap_case \"\$HELPERS/$prog\" dup2 '100 a' '50 b'
	"
	test_expect_success PTRACE "$prog: close, the fd reopened on another file" "
		fdswap_case \"\$HELPERS/$prog\" reopen '100 a' '70 b'
	"
	test_expect_success PTRACE "$prog: a fork child's fd 3 is another file" "
		fdswap_case \"\$HELPERS/$prog\" fork '100 a' '200 b'
	"
	test_expect_success PTRACE "$prog: a vfork child writes into its parent's counters" "
		fdswap_case \"\$HELPERS/$prog\" vfork '70 a'
	"
	test_expect_success PTRACE "$prog: a close-on-exec fd written, then exec" "
		fdswap_case \"\$HELPERS/$prog\" cloexec '100 a'
	"
	test_expect_success PTRACE "$prog: exit without close: the file still named" "
		fdswap_case \"\$HELPERS/$prog\" noclose '100 a'
	"
	test_expect_success PTRACE "$prog: another fd closed, then exit: writes kept" "
		fdswap_case \"\$HELPERS/$prog\" other '100 a'
	"
	test_expect_success PTRACE "$prog: closed and reopened without a stop: raw writes follow" "
		fdswap_case \"\$HELPERS/$prog\" raw '50 a' '60 b'
	"
done

# A fork child is a copy of its parent's memory at the fork: one forked
# before its parent is rewritten has no pool, whenever its first stop is
# seen.  A cold cache makes the parent's rewrite slow, and the child's
# first stop comes after it: the child was given counters over a pool it
# did not have, and the calls that map them looped on its faults.
test_expect_success PTRACE 'forked before its parent is rewritten: rewritten on its own' '
	rm -rf d cold && mkdir d &&
	XDG_CACHE_HOME=$PWD/cold timeout -s KILL 60 "$IOTRACE" -v \
		--rewrite-after=1 -o r -- "$HELPERS/fdcases-static" fork "$PWD/d" &&
	grep -q "^iotrace: fast path: .* in 2 processes$" r &&
	printf "100 a\n200 b\n" >expect &&
	rows_of r "$PWD/d" >got &&
	test_cmp expect got
'

# The writes that fill the pipe end with EAGAIN (non-blocking), then 5
# blocked ones are interrupted inside their trampoline: each delivered
# from the program's place, failing with EINTR, one call and one error
# as strace counts it.
test_expect_success PTRACE,STRACE 'a signal in a blocked write: EINTR, counted as strace' '
	untouched untraced "$HELPERS/writeintr" &&
	printf "eintr=5 other=0\nexit 0\n" >expect &&
	test_cmp expect got &&
	"$IOTRACE" -v --rewrite-after=1 -o r -- "$HELPERS/writeintr" >/dev/null &&
	test "$(fast_calls r)" -gt 0
'

# Its one thread on the unlocked trampolines, then 8 more on the locked
# ones (switched at the first clone, before the thread runs): every
# write counted, as strace counts them.
test_expect_success PTRACE,STRACE 'one thread, then nine: every write counted' '
	unsteady="futex|rt_sigreturn" untouched untraced \
		"$HELPERS/latethreads" out 20000 &&
	printf "180000\nexit 0\n" >expect &&
	test_cmp expect got &&
	grep -qx "write 180001 0" t.counts &&
	test "$(fast_calls t)" -ge $((180000 - 63))
'

test_expect_success PTRACE 'a static program: its own libc rewritten' '
	rm -rf d && mkdir d &&
	"$IOTRACE" -v --rewrite-after=1 -o r -- "$HELPERS/fdcases-static" noclose "$PWD/d" &&
	grep -q "^iotrace: fast path: 10[0-9] of " r
'

test_expect_success PTRACE 'the sites are cached; a damaged cache is decoded again' '
	XDG_CACHE_HOME=$PWD/cache "$IOTRACE" -v -o r1 -- "$HELPERS/writeloop" /dev/null 500 1 &&
	ls cache/iotrace/sites-* >files &&
	test -s files &&
	for f in $(cat files); do printf garbage >"$f" || return 1; done &&
	XDG_CACHE_HOME=$PWD/cache "$IOTRACE" -v -o r2 -- "$HELPERS/writeloop" /dev/null 500 1 &&
	test "$(fast_calls r1)" = "$(fast_calls r2)" &&
	test "$(fast_calls r2)" -ge $((500 - 63)) &&
	for f in $(cat files); do test "$(wc -c <"$f")" -gt 8 || return 1; done
'

test_expect_success PTRACE 'saved, the profile keeps the fast path: report prints its line' '
	"$IOTRACE" -v -o r --save p.json -- "$HELPERS/writeloop" /dev/null 300 1 &&
	"$IOTRACE" -v report p.json >again 2>&1 &&
	grep "^iotrace: fast path" r >want &&
	grep "^iotrace: fast path" again >got &&
	test_cmp want got
'

# A process of threads runs the locked trampolines, which cost more:
# its calls are counted apart, for the untraced estimate; one of one
# thread has none.  A profile saved before that loads as it was.
test_expect_success PTRACE 'threads: calls through locked trampolines apart' '
	"$IOTRACE" -v -o r --save one.json -- "$HELPERS/writeloop" /dev/null 400 1 &&
	test "$(json_num one.json calls_locked)" = 0 &&
	test "$(json_num one.json locked_call_hi_ns)" -gt 0 &&
	"$IOTRACE" -v -o r --save four.json -- "$HELPERS/writeloop" /dev/null 400 1 4 &&
	test "$(json_num four.json calls_locked)" -ge 1600 &&
	test "$(json_num four.json calls_locked)" -le "$(fast_calls r)"
'

test_expect_success PTRACE 'a profile saved without the locked figures loads' '
	grep -v -e calls_locked -e locked_call_ four.json >old.json &&
	! grep -q locked old.json &&
	"$IOTRACE" -v report old.json >again &&
	grep "^iotrace: fast path" r >want &&
	grep "^iotrace: fast path" again >got &&
	test_cmp want got
'

# pairs_of REPORT: "call calls bytes source -> destination" of each I/O
# row of a copy (sendfile, splice, copy_file_range), names without their
# directories and notes, sorted.
pairs_of() {
	sed -n '/^I\/O /,/^$/p' "$1" |
		awk '$1 == "sendfile" || $1 == "splice" || $1 == "copy_file_range"' |
		sed 's/ ([^)]*)//g; s|[^ ]*/||g; s/pipe:\[[0-9]*\]/pipe/g' |
		awk '{ print $1, $2, $3, $7, $8, $9 }' | sort
}

test_expect_success PTRACE,STRACE 'copies: each pair of files, as strace and --no-rewrite count' '
	head -c 131072 /dev/zero >in &&
	"$IOTRACE" -v --rewrite-after=1 -o r -- "$HELPERS/copypairs" in o1 o2 o3 &&
	"$IOTRACE" -v --no-rewrite -o n -- "$HELPERS/copypairs" in o1 o2 o3 &&
	strace -f -c -o s "$HELPERS/copypairs" in o1 o2 o3 &&
	for c in sendfile splice copy_file_range; do
		test "$(table_calls $c r)" = "$(table_calls $c s)" || return 1
	done &&
	cat >expect <<-\EOF &&
	copy_file_range 4 16384 in -> o3
	sendfile 4 16384 in -> o3
	sendfile 8 32768 in -> o1
	sendfile 8 32768 in -> o2
	splice 2 8192 in -> pipe
	splice 2 8192 pipe -> o2
	EOF
	pairs_of r >got && test_cmp expect got &&
	pairs_of n >got && test_cmp expect got &&
	test "$(fast_calls r)" -ge 20
'

test_expect_success PTRACE '-k --stack-sample: copies unwound from the program, stub or not' '
	"$IOTRACE" -v -k --stack-sample 3 -e trace=sendfile --rewrite-after=1 \
		-o r -- "$HELPERS/copypairs" in o1 o2 o3 &&
	test "$(fast_calls r)" -gt 0 &&
	grep -q "^sendfile  20 calls, .*(stacks of 1 call in 3, scaled" r &&
	grep -q "^  100\.0% ~        20 calls  .*  main (copypairs)$" r
'

# The fast path's calibration thread runs beside the command's start, on
# another CPU than the one iotrace and the command are pinned to: on the
# same one, the start waited for its calls (0.5-0.9 ms of the clone).
test_expect_success PTRACE,CPUS2 'the calibration thread: not on the pinned CPU' '
	"$IOTRACE" --debug -o /dev/null -- true 2>err &&
	pinned=$(sed -n "s/.* ms pinned to CPU \([0-9]*\)$/\1/p" err) &&
	thread=$(sed -n "s/.* ms fast path.s calibration thread on CPU \([0-9]*\)$/\1/p" err) &&
	test -n "$pinned" && test -n "$thread" &&
	test "$pinned" != "$thread"
'

test_done
