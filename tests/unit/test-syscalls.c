// SPDX-License-Identifier: MIT
/*
 * Unit tests of syscall names and sets (syscalls/syscalls.c): -e trace=
 * with names, %classes, '!' negation, '?name', all and none, and the bad
 * word reported back; names of known and unknown numbers; sets in every
 * personality (i386's fstat64 and %stat, x32's write) and numbers
 * outside the tables; names as people write them ("write/i386").
 */
#include <linux/audit.h>
#include <seccomp.h>
#include "tracer/tracer.h"
#include "tests/unit/tap.h"

static uint32_t native;

static bool has(const struct syscall_set *s, const char *name)
{
	return syscall_set_has(s, native, syscall_number(name));
}

static size_t count(const struct syscall_set *s)
{
	size_t n = 0;
	int nr;

	for (nr = 0; nr < SYSCALL_SET_MAX; nr++)
		n += syscall_set_has(s, native, nr);
	return n;
}

static void test_names(void)
{
	struct syscall_set s;
	char bad[64] = "";

	ok(syscall_set_parse(&s, "read,write", bad, sizeof(bad)) == 0,
	   "read,write parses");
	ok(has(&s, "read") && has(&s, "write"), "read and write in");
	is_int(count(&s), 2, "nothing else in");
	ok(native != SCMP_ARCH_X86_64 ||
	   (syscall_set_has(&s, AUDIT_ARCH_I386, 3) &&
	   syscall_set_has(&s, AUDIT_ARCH_I386, 4) &&
	    !syscall_set_has(&s, AUDIT_ARCH_I386, 5)),
	   "i386 read (3) and write (4) in, open (5) not");
	ok(!syscall_set_has(&s, native, -1) &&
	   !syscall_set_has(&s, native, SYSCALL_SET_MAX),
	   "out-of-range numbers never in");
}

static void test_classes(void)
{
	struct syscall_set s;
	char bad[64] = "";

	ok(syscall_set_parse(&s, "%file", bad, sizeof(bad)) == 0,
	   "%%file parses");
	ok(has(&s, "openat") && has(&s, "execve") && has(&s, "unlink"),
	   "%%file has openat, execve, unlink");
	ok(!has(&s, "read") && !has(&s, "close"), "%%file lacks read, close");
	ok(syscall_set_parse(&s, "%desc,%network", bad, sizeof(bad)) == 0,
	   "%%desc,%%network parses");
	ok(has(&s, "read") && has(&s, "close") && has(&s, "socket"),
	   "%%desc,%%network has read, close, socket");
	ok(!has(&s, "unlink"), "%%desc,%%network lacks unlink");
	ok(syscall_set_parse(&s, "%process,%signal,%memory", bad,
			     sizeof(bad)) == 0, "process,signal,memory");
	ok(has(&s, "clone") && has(&s, "wait4") && has(&s, "rt_sigaction") &&
	   has(&s, "mmap") && has(&s, "brk"), "their members");
	ok(!has(&s, "openat"), "and not openat");
}

static void test_negation(void)
{
	struct syscall_set s;
	char bad[64] = "";

	ok(syscall_set_parse(&s, "!read,write", bad, sizeof(bad)) == 0,
	   "!read,write parses");
	ok(!has(&s, "read") && !has(&s, "write"), "read and write out");
	ok(has(&s, "openat") && has(&s, "close"), "everything else in");
	is_int(count(&s), SYSCALL_SET_MAX - 2, "all numbers but two");
	ok(syscall_set_parse(&s, "!%file", bad, sizeof(bad)) == 0,
	   "!%%file parses");
	ok(!has(&s, "openat") && has(&s, "read"), "!%%file");
}

static void test_special(void)
{
	struct syscall_set s;
	char bad[64] = "";

	ok(syscall_set_parse(&s, "all", bad, sizeof(bad)) == 0, "all");
	is_int(count(&s), SYSCALL_SET_MAX, "all: every number");
	ok(syscall_set_parse(&s, "none", bad, sizeof(bad)) == 0, "none");
	is_int(count(&s), 0, "none: no number");
	ok(syscall_set_parse(&s, "!all", bad, sizeof(bad)) == 0, "!all");
	is_int(count(&s), 0, "!all: no number");
	ok(syscall_set_parse(&s, "!none", bad, sizeof(bad)) == 0, "!none");
	is_int(count(&s), SYSCALL_SET_MAX, "!none: every number");
	ok(syscall_set_parse(&s, "?no_such_call,read", bad, sizeof(bad)) == 0,
	   "?name of an unknown call is no error");
	ok(has(&s, "read"), "and the rest of the list counts");
	is_int(count(&s), 1, "only read");
	ok(syscall_set_parse(&s, "?write", bad, sizeof(bad)) == 0 &&
	   has(&s, "write"), "?write adds write");
}

static void check_bad(const char *spec, const char *word)
{
	struct syscall_set s;
	char bad[64] = "";

	ok(syscall_set_parse(&s, spec, bad, sizeof(bad)) < 0,
	   "'%s' rejected", spec);
	is_str(bad, word, "'%s': bad word reported", spec);
}

static void test_bad(void)
{
	check_bad("read,no_such_call,write", "no_such_call");
	check_bad("%nosuchclass", "%nosuchclass");
	check_bad("!bogus", "bogus");
	check_bad("read,,write", "");
	check_bad("read,", "");
	check_bad("", "(empty)");
	check_bad("!", "(empty)");
	check_bad("%", "%");
}

static void test_syscall_name(void)
{
	char buf[64];

	is_str(syscall_name(native, syscall_number("read"), buf, sizeof(buf)),
	       "read", "read by number");
	is_str(syscall_name(AUDIT_ARCH_X86_64, 257, buf, sizeof(buf)),
	       "openat", "x86_64 257 is openat");
	is_str(syscall_name(AUDIT_ARCH_I386, 5, buf, sizeof(buf)), "open",
	       "i386 5 is open");
	is_str(syscall_name(AUDIT_ARCH_I386, 295, buf, sizeof(buf)), "openat",
	       "i386 295 is openat");
	is_str(syscall_name(native, 999, buf, sizeof(buf)), "syscall_999",
	       "unknown 999");
	is_str(syscall_name(native, 100000, buf, sizeof(buf)),
	       "syscall_100000", "unknown 100000");
	is_str(syscall_name(native, -1, buf, sizeof(buf)), "syscall_-1",
	       "syscall(-1) is syscall_-1, not an x32 number");
	is_str(syscall_name(AUDIT_ARCH_X86_64, 0x40000000 | 1, buf,
			    sizeof(buf)), "write", "x32 write");
	is_str(syscall_name(AUDIT_ARCH_X86_64, 0x40000000 | 999, buf,
			    sizeof(buf)), "syscall_999", "unknown x32 999");
	is_int(syscall_number("no_such_call"), -1, "unknown name: -1");
	is_int(syscall_number("openat"), 257, "openat is 257 on x86_64");
}

static bool has_i386(const struct syscall_set *s, int nr)
{
	return syscall_set_has(s, AUDIT_ARCH_I386, nr);
}

/* i386: 106 stat, 108 fstat, 195 stat64, 197 fstat64; x32: the bit. */
static void test_personalities(void)
{
	struct syscall_set s;
	char bad[64] = "";

	ok(syscall_set_parse(&s, "fstat64", bad, sizeof(bad)) == 0 &&
	   has_i386(&s, 197) && count(&s) == 0,
	   "fstat64: i386's 197, no native number");
	ok(syscall_set_parse(&s, "%stat", bad, sizeof(bad)) == 0 &&
	   has_i386(&s, 195) && has_i386(&s, 106) && !has_i386(&s, 197) &&
	   has(&s, "stat") && !has(&s, "fstat") && !has(&s, "newfstatat"),
	   "%%stat as strace's: stat and stat64, not fstat64 or fstat");
	ok(syscall_set_parse(&s, "%%stat", bad, sizeof(bad)) == 0 &&
	   has_i386(&s, 197) && has_i386(&s, 300) && has(&s, "fstat") &&
	   has(&s, "statx") && has(&s, "newfstatat"),
	   "%%%%stat: every stat variant, fstatat64 (300) too");
	ok(syscall_set_parse(&s, "%desc", bad, sizeof(bad)) == 0 &&
	   has_i386(&s, 140) && has_i386(&s, 221) && has_i386(&s, 192),
	   "%%desc: i386 _llseek (140), fcntl64 (221), mmap2 (192)");
	ok(syscall_set_parse(&s, "%net", bad, sizeof(bad)) == 0 &&
	   has_i386(&s, 359) && has(&s, "socket"),
	   "%%net: socket in both");
	ok(syscall_set_parse(&s, "write", bad, sizeof(bad)) == 0 &&
	   syscall_set_has(&s, AUDIT_ARCH_X86_64, 0x40000000 | 1) &&
	   has_i386(&s, 4), "write: x32's and i386's too");
}

static void test_outside(void)
{
	struct syscall_set s;
	char bad[64] = "";

	ok(syscall_set_parse(&s, "write", bad, sizeof(bad)) == 0 &&
	   !syscall_set_has(&s, native, 5000) &&
	   !syscall_set_has(&s, AUDIT_ARCH_I386, -1),
	   "write: no number outside the tables");
	ok(syscall_set_parse(&s, "all", bad, sizeof(bad)) == 0 &&
	   syscall_set_has(&s, native, 5000) &&
	   syscall_set_has(&s, native, -1) &&
	   syscall_set_has(&s, AUDIT_ARCH_I386, 1024),
	   "all: every number outside the tables");
	ok(syscall_set_parse(&s, "!write", bad, sizeof(bad)) == 0 &&
	   syscall_set_has(&s, native, 5000) && !has(&s, "write"),
	   "!write: numbers outside the tables in");
	ok(syscall_set_parse(&s, "!all", bad, sizeof(bad)) == 0 &&
	   !syscall_set_has(&s, native, 5000), "!all: none of them");
}

static void test_lookup(void)
{
	const char *const *c;
	struct syscall_set s;
	int pers, nr, bad_classes = 0;
	char bad[64] = "";

	ok(syscall_lookup("write/i386", &pers, &nr) == 0 && pers == 1 &&
	   nr == 4, "write/i386 is i386's 4");
	ok(syscall_lookup("fstat64", &pers, &nr) == 0 && pers == 1 &&
	   nr == 197, "fstat64 alone: the personality that has it");
	ok(syscall_lookup("write", &pers, &nr) == 0 && pers == 0 && nr == 1,
	   "write alone: the native one first");
	ok(syscall_lookup("syscall_5000", &pers, &nr) == 0 && pers == 0 &&
	   nr == 5000, "syscall_5000: native 5000");
	ok(syscall_lookup("getpid/x32", &pers, &nr) == 0 && pers == 2 &&
	   nr == 39, "getpid/x32: x32's 39");
	ok(syscall_lookup("write/nosuch", &pers, &nr) < 0 &&
	   syscall_lookup("no_such_call", &pers, &nr) < 0 &&
	   syscall_lookup("fstat64/x86_64", &pers, &nr) < 0,
	   "unknown names and personalities: -1");
	for (c = syscall_class_names; *c; c++)
		bad_classes += syscall_set_parse(&s, *c, bad, sizeof(bad)) < 0;
	is_int(bad_classes, 0, "every class --help lists parses");
}

int main(void)
{
	native = seccomp_arch_native();
	test_names();
	test_classes();
	test_negation();
	test_special();
	test_bad();
	if (native == SCMP_ARCH_X86_64) {
		test_syscall_name();
		test_personalities();
		test_outside();
		test_lookup();
	} else {
		ok(1, "# skip x86_64 numbers on this arch");
	}
	return done_testing();
}
