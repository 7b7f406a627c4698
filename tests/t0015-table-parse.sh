#!/bin/sh
# SPDX-License-Identifier: MIT
# Tables any strace -c parser reads.  In the default modes every row of
# the table is numbers (a signal handler's
# rt_sigreturn, a shell's execves, dd's reads and writes): usecs/call is
# seconds / calls as strace's count.c computes it (the quotient
# truncated to whole microseconds), over every call of the row and for
# the total row too; the total row is the sum of the rows, and % time
# adds up to 100.00 within the rounding of its cells.  Count-only modes
# (--count-only, -e count=SET) print "-" where nothing was timed; and
# `iotrace report` and `iotrace diff` read back every table iotrace
# prints, "-" too.
. "$(dirname "$0")/lib.sh"

# check_table [--dash] FILE: reads FILE's table strictly (each numeric
# cell matches its format exactly) and checks the arithmetic above;
# says what is wrong and fails.  --dash: a count-only mode, where a row
# may have "-" in its four time and error cells, together.
cat >check.pl <<'EOF'
use strict;
use warnings;

my $dash = @ARGV && $ARGV[0] eq '--dash' ? shift : 0;
my $file = shift;
my $rule = qr/^-+( -+){5}$/;

sub bad { die "$file: line $_[0]: $_[1]\n" }

# A row's cells; a blank errors cell (strace's for none) reads 0.
sub cells {
	my ($at, $text) = @_;
	my @c = split ' ', $text;
	my %r = (name => pop @c);
	splice @c, 4, 0, '0' if @c == 4 && $c[0] ne '-';
	@c == 5 or bad($at, "not 6 cells: '$text'");
	@r{qw(pct sec avg calls err)} = @c;
	$r{calls} =~ /^\d+$/ or bad($at, "calls not a count: '$text'");
	if (grep { $_ eq '-' } @c) {
		$dash or bad($at, "'-' in a default mode: '$text'");
		"@c[0, 1, 2, 4]" eq '- - - -' or
			bad($at, "'-' in some time cells only: '$text'");
		return \%r;
	}
	$r{pct} =~ /^\d+\.\d\d$/ && $r{sec} =~ /^\d+\.\d{6}$/ &&
	    $r{avg} =~ /^\d+$/ && $r{err} =~ /^\d+$/ or
		bad($at, "not numbers: '$text'");
	($r{us} = $r{sec}) =~ s/\.//;
	$r{us} += 0;
	{
		use integer;
		my $want = $r{calls} ? $r{us} / $r{calls} : 0;
		$r{avg} == $want or bad($at, "usecs/call $r{avg}, but " .
		    "$r{sec} s / $r{calls} calls is $want: '$text'");
	}
	return \%r;
}

open my $f, '<', $file or die "$file: $!\n";
my ($state, @rows, $total) = ('seek');
while (my $line = <$f>) {
	chomp $line;
	if ($state eq 'seek') {
		$state = 'rule' if $line =~
		    /^% time +seconds +usecs\/call +calls +errors +syscall$/;
	} elsif ($state eq 'rule') {
		$line =~ $rule or bad($., "no rule under the header");
		$state = 'rows';
	} elsif ($state eq 'rows') {
		if ($line =~ $rule) {
			$state = 'total';
		} else {
			push @rows, cells($., $line);
		}
	} elsif ($state eq 'total') {
		$total = cells($., $line);
		$total->{name} eq 'total' or bad($., "no total row");
		$state = 'done';
	}
}
$state eq 'done' or die "$file: no whole table\n";
@rows or die "$file: no rows\n";

my ($calls, $err, $us, $pct, $timed) = (0, 0, 0, 0, 0);
for my $r (@rows) {
	$calls += $r->{calls};
	next unless defined $r->{us};
	$timed++;
	$err += $r->{err};
	$us += $r->{us};
	$pct += $r->{pct};
}
$total->{calls} == $calls or die "$file: total calls $total->{calls}, " .
    "the rows add up to $calls\n";
if (!$timed) {
	defined $total->{us} and die "$file: a time in the total only\n";
	exit 0;
}
defined $total->{us} or die "$file: no time in the total\n";
$total->{us} == $us or die "$file: total $total->{sec} s, the rows add " .
    "up to $us us\n";
$total->{err} == $err or die "$file: total errors $total->{err}, the " .
    "rows add up to $err\n";
for my $r (@rows) {
	next unless defined $r->{us} && $us;
	abs($r->{pct} - 100 * $r->{us} / $us) <= 0.005 + 1e-9 or
	    die "$file: $r->{name}: $r->{pct}%, but $r->{sec} s of $us us\n";
}
my $want = $us ? 100 : 0;
$total->{pct} == $want or die "$file: total $total->{pct}%, not $want\n";
abs($pct - $want) <= 0.005 * $timed + 1e-9 or
    die "$file: the rows' % time add up to $pct\n";
EOF

check_table() {
	perl check.pl "$@"
}

# The last table of FILE as a Python parser reads strace -c: float() on
# every cell of every row and of the total but the name (a blank errors
# cell is strace's for none); prints how many rows it read.
py_floats() {
	python3 -c '
import sys
rows, state = [], None
for line in open(sys.argv[1]):
    c = line.split()
    rule = c and all(set(x) == {"-"} for x in c)
    if line.startswith("% time"):
        rows, state = [], "head"
    elif state == "head" and rule:
        state = "rows"
    elif state == "rows" and rule:
        state = "total"
    elif state in ("rows", "total"):
        rows.append(c)
        state = None if state == "total" else state
for c in rows:
    [float(x) for x in c[:-1]]
print(len(rows))
' "$1"
}

# traced PREFIX ARGS...: iotrace --engine=ptrace ARGS, the table in
# PREFIX-ptrace.txt.
traced() {
	prefix=$1
	shift
	"$IOTRACE" --engine=ptrace -o "$prefix-ptrace.txt" "$@" >/dev/null
}

# run CMD PREFIX OPTS...: one of the commands: sig, a
# signal handler's rt_sigreturn; shx, a shell exec'ing five programs,
# one of them missing; ddx, dd.
run() {
	cmd=$1
	prefix=$2
	shift 2
	case $cmd in
	sig)	traced "$prefix" "$@" -- "$HELPERS/sighandler" 3 ;;
	shx)	traced "$prefix" "$@" -- sh -c "\"$HELPERS/oddcalls\"; \
			/no/such/command 2>/dev/null; /bin/cat /dev/null; \
			exec /bin/ls /" ;;
	ddx)	traced "$prefix" "$@" -- dd if=/dev/zero of=/dev/null \
			bs=1k count=300 status=none ;;
	esac
}

# The default modes: any sort, raw times, a trace set, the histogram.
DEFAULT_MODES="plain:
calls:-S calls
avg:-S avg-time
raw:--raw-time
set:-e trace=!write
hist:--histogram"

default_runs() {
	echo "$DEFAULT_MODES" | while IFS=: read -r mode opts; do
		for cmd in sig shx ddx; do
			# shellcheck disable=SC2086
			run $cmd "$cmd-$mode" $opts || return 1
		done
	done
}

test_expect_success PTRACE 'default modes: every row numbers' '
	default_runs >/dev/null &&
	for f in *-ptrace.txt; do
		test -f "$f" || continue
		check_table "$f" || return 1
	done
'

test_expect_success PTRACE 'the rows iotrace used to print with "-" are there' '
	grep -q " rt_sigreturn$" sig-plain-ptrace.txt &&
	grep -q " execve$" shx-plain-ptrace.txt &&
	grep -Eq "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +3 +rt_sigreturn$" \
		sig-plain-ptrace.txt &&
	grep -Eq "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +5 +1 execve$" \
		shx-plain-ptrace.txt
'

test_expect_success PTRACE,PYTHON3 'a Python parser: float() on every cell' '
	for f in *-ptrace.txt; do
		test -f "$f" || continue
		n=$(py_floats "$f") && test "$n" -gt 3 || return 1
	done
'

# The count-only modes, and what reads every table back.
test_expect_success PTRACE 'count-only modes: "-" where nothing was timed' '
	"$IOTRACE" --engine=ptrace --count-only -o co-ptrace.txt -- \
		sh -c "/bin/cat /dev/null; exec /bin/ls /" >/dev/null &&
	"$IOTRACE" --engine=ptrace -e count=read,rt_sigreturn \
		-o ec-ptrace.txt -- "$HELPERS/sighandler" 3 >/dev/null &&
	check_table --dash co-ptrace.txt &&
	check_table --dash ec-ptrace.txt &&
	grep -q "^ *- *- *- *[0-9]* *- read$" ec-ptrace.txt &&
	grep -Eq "^ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +(1 +)?write$" \
		ec-ptrace.txt
'

# The table of FILE, from its header to its total row.
table_of() {
	sed -n "/^% time/,/ total$/p" "$1"
}

# Read back, a table prints as it was: the seconds as printed, "-" as
# counted only, rows of equal seconds in the same order.
test_expect_success PTRACE 'report reads back every table iotrace printed' '
	for f in *-ptrace.txt; do
		test -f "$f" || continue
		sort= &&
		case $f in
		*-calls-*) sort="-S calls" ;;
		*-avg-*) sort="-S avg-time" ;;
		esac &&
		"$IOTRACE" report $sort "$f" >"again-$f" &&
		table_of "$f" >expect &&
		table_of "again-$f" >actual &&
		test_cmp expect actual &&
		dash= &&
		case $f in co-*|ec-*) dash=--dash ;; esac &&
		check_table $dash "again-$f" || return 1
	done
'

test_expect_success PTRACE 'diff reads any two of them, "-" too' '
	for f in co-ptrace.txt ec-ptrace.txt shx-plain-ptrace.txt \
		 sig-raw-ptrace.txt; do
		test -f "$f" || continue
		"$IOTRACE" diff "$f" shx-plain-ptrace.txt >d.txt &&
		"$IOTRACE" diff co-ptrace.txt "$f" >d.txt &&
		grep -q "execve" d.txt || return 1
	done
'

test_done
