# SPDX-License-Identifier: MIT
# iotrace build.  `make` builds ./iotrace, `make check` runs every test,
# `make bench` compares iotrace with strace, perf trace, bpftrace and the
# untraced run.
# Missing build dependencies are installed by scripts/install-deps (as
# root) or named with the exact apt-get line (otherwise).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=
CC ?= cc
PKG_CONFIG ?= pkg-config
PROVE ?= prove
VERSION := 0.1.0

PKGS := libseccomp jansson libunwind-generic libprotobuf-c zlib

# Flags from pkg-config live in build/config.mk, made by scripts/configure
# (which installs what is missing first).  Make re-reads the file once it
# exists, so the first `make` on a fresh machine does the set-up.
ifeq ($(filter clean help style,$(MAKECMDGOALS)),)
-include build/config.mk
endif

# The project's flags first, the user's CFLAGS/CPPFLAGS/LDFLAGS/LDLIBS after,
# so overriding them cannot drop an include path or a library.
CFLAGS ?= -O2 -g
ALL_CPPFLAGS := -I. -Ibuild/gen -D_GNU_SOURCE -DIOTRACE_VERSION='"$(VERSION)"' $(DEP_CFLAGS) $(CPPFLAGS)
ALL_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -MMD -MP $(CFLAGS)
ALL_LDLIBS := $(DEP_LIBS) -lm $(LDLIBS)
# ./iotrace itself links the archives where configure found they link
# (BIN_LIBS; the tests' programs keep the shared objects).
BIN_LDLIBS := $(or $(BIN_LIBS),$(DEP_LIBS)) -lm $(LDLIBS)

ifeq ($(V),1)
Q :=
QCC :=
else
Q := @
QCC = @echo '  CC      $@';
endif

LIB_SRCS := $(wildcard syscalls/*.c tracer/*.c tracer/*/*.c unwind/*.c elf/*.c \
	procfd/*.c profile/*.c render/*.c compare/*.c session/*.c \
	workloads/*.c)
# Machine code written as assembly: the fast path's trampoline template
# (tracer/rewrite/tramp-tmpl.S), data iotrace copies, never runs.
LIB_ASMS := $(wildcard tracer/rewrite/*.S)
CLI_SRCS := $(wildcard cli/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=build/%.o) $(LIB_ASMS:%.S=build/%.o) build/gen/pprof.pb-c.o
CLI_OBJS := $(CLI_SRCS:%.c=build/%.o)
UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=build/tests/%)
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(HELPER_SRCS:tests/helpers/%.c=build/helpers/%)
# The same helpers as i386 programs (gcc -m32, from gcc-multilib), for the
# tests of 32-bit tracees; none where the compiler cannot build them.
ifeq ($(HAVE_M32),yes)
HELPER32_BINS := $(HELPER_SRCS:tests/helpers/%.c=build/helpers32/%)
endif

all: iotrace

iotrace: $(CLI_OBJS) build/libiotrace.a build/config.mk
	@echo '  LINK    $@'
	$(Q)$(CC) $(ALL_CFLAGS) $(BIN_LDFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJS) build/libiotrace.a $(BIN_LDLIBS)

build/libiotrace.a: $(LIB_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

build/%.o: %.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

build/%.o: %.S | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

build/tests/%: tests/unit/%.c build/libiotrace.a
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< build/libiotrace.a $(ALL_LDLIBS)

# Helpers are tracees: plain programs with no project code in them.
build/helpers/%: tests/helpers/%.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE $(LDFLAGS) -o $@ $< -pthread

# The fast path's site finder reads a shared object of known truth
# (tests/unit/test-rewrite-sites.c): assembly, so every byte is known;
# linked at 0x10000, so that its segments' vaddrs are not their offsets
# (a flag of this file's, hence the prerequisite).
HELPER_BINS += build/helpers/rwsites.so
build/helpers/rwsites.so: tests/helpers/rwsites.S Makefile | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -shared -nostdlib -Wl,-z,noexecstack \
		-Wl,-Ttext-segment=0x10000 $(LDFLAGS) -o $@ $<
build/tests/test-rewrite-sites: | build/helpers/rwsites.so

# The fast path in a static program: its libc is in it (t0955).
HELPER_BINS += build/helpers/fdcases-static
build/helpers/fdcases-static: tests/helpers/fdcases.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -static -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE $(LDFLAGS) -o $@ $<

# pthread_cancel's tracee with cleanups only unwinding runs, as C++
# destructors are (tests/t0950-fastpath.sh).
HELPER_BINS += build/helpers/cancelread-eh
build/helpers/cancelread-eh: tests/helpers/cancelread.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -O1 -g -fexceptions -Wall -Wextra -Werror -D_GNU_SOURCE $(LDFLAGS) -o $@ $< -pthread

# -k's tracee also linked statically and stripped (tests/t0900-callsites.sh).
HELPER_BINS += build/helpers/callsites-static build/helpers/callsites-stripped
build/helpers/callsites-static: tests/helpers/callsites.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -O1 -g -static -Wall -Wextra -Werror -D_GNU_SOURCE $(LDFLAGS) -o $@ $< -pthread
build/helpers/callsites-stripped: build/helpers/callsites
	$(Q)strip -o $@ $<

# The shared object tests/helpers/dlwrite.c dlopens (tests/t0950-fastpath.sh),
# a native one and, where the i386 helpers are built, an i386 one.
HELPER_BINS += build/helpers/libhotwrite.so
build/helpers/libhotwrite.so: tests/helpers/lib/hotwrite.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -O1 -g -Wall -Wextra -Werror -shared -fPIC $(LDFLAGS) -o $@ $<
ifeq ($(HAVE_M32),yes)
HELPER32_BINS += build/helpers32/libhotwrite.so
endif
build/helpers32/libhotwrite.so: tests/helpers/lib/hotwrite.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -m32 -O1 -g -Wall -Wextra -Werror -shared -fPIC -o $@ $<

# LD_PRELOAD shims for fault tests (tests/helpers/preload/NAME.c).
PRELOAD_SRCS := $(wildcard tests/helpers/preload/*.c)
PRELOAD_LIBS := $(PRELOAD_SRCS:tests/helpers/preload/%.c=build/helpers/%.so)
build/helpers/%.so: tests/helpers/preload/%.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -shared -fPIC \
		$(LDFLAGS) -o $@ $< -ldl

# Everything the shell tests run but iotrace itself: one list, so that
# `make check` and `make check-sanitize` build the same programs, each
# on its own (tests/t0002-make.sh checks every target's).
TEST_PROGS = $(HELPER_BINS) $(HELPER32_BINS) $(PRELOAD_LIBS)

build/helpers32/%: tests/helpers/%.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) -m32 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -o $@ $< -pthread

# The syscall tables' names and numbers, dumped from libseccomp at build
# time (scripts/gen-systab.c, syscalls/syscalls.h): start-up resolves none.
build/gen-systab: scripts/gen-systab.c syscalls/systab.c syscalls/syscalls.h | build/config.mk
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(filter-out -MMD -MP,$(ALL_CFLAGS)) $(LDFLAGS) -o $@ \
		scripts/gen-systab.c syscalls/systab.c $(ALL_LDLIBS)

build/gen/systab.h: build/gen-systab
	@mkdir -p $(dir $@)
	$(Q)build/gen-systab >$@.tmp && mv $@.tmp $@

build/syscalls/syscalls.o: build/gen/systab.h

# --format=pprof's messages: pprof's profile.proto (the part written),
# compiled by protoc-c at build time into build/gen/pprof.pb-c.[ch].
build/gen/pprof.pb-c.c build/gen/pprof.pb-c.h: render/pprof.proto
	@mkdir -p build/gen
	$(Q)protoc-c --c_out=build/gen --proto_path=render $<
build/gen/pprof.pb-c.o: build/gen/pprof.pb-c.c | build/config.mk
	$(QCC)$(CC) $(ALL_CPPFLAGS) -std=gnu11 $(CFLAGS) -c -o $@ $<
build/render/pprof.o: build/gen/pprof.pb-c.h

build/config.mk: scripts/configure Makefile
	@mkdir -p build
	$(Q)PKG_CONFIG='$(PKG_CONFIG)' CC='$(CC)' sh scripts/configure $(PKGS) > $@.tmp && mv $@.tmp $@

demo: iotrace
	./iotrace -- dd if=/dev/zero of=build/demo.out bs=1024 count=20480

# The tests' answers kept between runs (tracer/cache.c) stay in build/,
# out of the user's ~/.cache (tests/lib.sh says the same to the scripts).
TEST_CACHE = XDG_CACHE_HOME=$(CURDIR)/build/test-cache
# What each failing test printed, gathered in one file (tests/lib.sh):
# prove shows only which failed; .ci/run prints the file after a failure.
TEST_FAILURES_LOG = build/test-failures.log
TEST_FAILURES = IOTRACE_TEST_FAILURES=$(CURDIR)/$(TEST_FAILURES_LOG)
check: iotrace $(UNIT_BINS) $(TEST_PROGS) test-deps
	$(Q)rm -f $(TEST_FAILURES_LOG)
	$(Q)IOTRACE=$(CURDIR)/iotrace HELPERS=$(CURDIR)/build/helpers \
		HELPERS32=$(CURDIR)/build/helpers32 $(TEST_CACHE) $(TEST_FAILURES) \
		$(PROVE) --exec '' $(UNIT_BINS) tests/t*.sh

# What only the tests need (go, for pprof), installed once; where it
# cannot be (not root), the tests that need it are skipped, saying why.
test-deps:
	@command -v go >/dev/null 2>&1 || sh scripts/install-deps --tests || true
.PHONY: test-deps

bench: iotrace $(HELPER_BINS) bench-deps
	$(Q)IOTRACE=$(CURDIR)/iotrace HELPERS=$(CURDIR)/build/helpers sh bench/bench.sh
	$(Q)IOTRACE=$(CURDIR)/iotrace HELPERS=$(CURDIR)/build/helpers sh bench/stacks.sh

# What only make bench compares with (bpftrace, perf), installed once;
# where it cannot be (not root), bench.sh drops those modes, saying why.
bench-deps:
	@command -v bpftrace >/dev/null 2>&1 && command -v perf >/dev/null 2>&1 || \
		sh scripts/install-bench-deps || true
.PHONY: bench-deps

bench-sweep: iotrace
	$(Q)IOTRACE=$(CURDIR)/iotrace sh bench/sweep-dd.sh

install: iotrace
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 iotrace $(DESTDIR)$(BINDIR)/iotrace
	install -m 644 iotrace.1 $(DESTDIR)$(MANDIR)/man1/iotrace.1

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/iotrace $(DESTDIR)$(MANDIR)/man1/iotrace.1

style:
	clang-format -i $(LIB_SRCS) $(CLI_SRCS) $(UNIT_SRCS) $(HELPER_SRCS) */*.h tracer/*/*.h

lint: | build/config.mk
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability -I. -D_GNU_SOURCE \
		--suppress='preprocessorErrorDirective:build/gen/pprof.pb-c.h' syscalls tracer unwind elf procfd profile render compare session workloads cli

clean:
	rm -rf build iotrace

help:
	@echo 'make            build ./iotrace (installs missing build dependencies)'
	@echo 'make demo       build and trace dd writing 20 MiB'
	@echo 'make check      build and run every test (prove)'
	@echo 'make check-sanitize  the same against an ASan + UBSan build'
	@echo 'make fuzz       libFuzzer (clang), FUZZ_TIME seconds a target'
	@echo 'make bench      compare iotrace with strace, perf, bpftrace, untraced'
	@echo 'make bench-sweep  a dd sweep against GNU dd run untraced'
	@echo 'make install    install to $$(DESTDIR)$$(PREFIX) (default /usr/local)'
	@echo 'make lint       cppcheck;  make style  clang-format'
	@echo 'V=1             show full commands'

.PHONY: all demo check bench bench-sweep install uninstall style lint clean help

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d)

# `make fuzz`: libFuzzer (clang) on the JSON loader, the strace table
# reader, diff and --fail-if on loaded pairs (diff) and the command-line
# value parsers (args: KEY=VALUE, sizes, -p, --duration), FUZZ_TIME
# seconds each.  Seeds and kept crashers are in tests/fixtures/fuzz/NAME;
# new finds land in build/fuzz/.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_CFLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# No ptrace code, no /proc: the profile and its renderers use only the
# syscall names (scripts/cycles checks it).
FUZZ_SRCS := $(filter-out tracer/% unwind/% elf/% syscalls/% procfd/% session/%,$(LIB_SRCS)) \
	syscalls/syscalls.c syscalls/systab.c build/gen/pprof.pb-c.c

FUZZ_TARGETS := json strace diff args

build/fuzz/fuzz-json build/fuzz/fuzz-strace: tests/fuzz/fuzz-load.c
build/fuzz/fuzz-diff: tests/fuzz/fuzz-diff.c
build/fuzz/fuzz-args: tests/fuzz/fuzz-args.c cli/attach.c
$(FUZZ_TARGETS:%=build/fuzz/fuzz-%): $(FUZZ_SRCS) build/gen/systab.h build/gen/pprof.pb-c.h | build/config.mk
	@mkdir -p build/fuzz
	@command -v $(FUZZ_CC) >/dev/null || sh scripts/install-fuzz-deps
	$(QCC)$(FUZZ_CC) $(ALL_CPPFLAGS) $(FUZZ_CFLAGS) $(if $(findstring json,$@),-DFUZZ_JSON) -o $@ $(filter %.c,$^) $(ALL_LDLIBS)

fuzz: $(FUZZ_TARGETS:%=build/fuzz/fuzz-%)
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus-$$t && \
		build/fuzz/fuzz-$$t -max_total_time=$(FUZZ_TIME) -max_len=16384 \
			-artifact_prefix=build/fuzz/$$t- \
			build/fuzz/corpus-$$t tests/fixtures/fuzz/$$t || exit 1; \
	done

.PHONY: fuzz

# `make check` replays the seeds of diff and args through the same entry
# points, built with $(CC) and no libFuzzer (tests/fuzz/replay.c), so
# the corpora stay valid and kept crashers stay fixed without clang.
REPLAY_TARGETS := diff args
REPLAY_BINS := $(REPLAY_TARGETS:%=build/tests/fuzz-%-replay)
UNIT_BINS += $(REPLAY_BINS)
check: $(REPLAY_BINS)
build/tests/fuzz-args-replay: build/cli/attach.o
build/tests/fuzz-%-replay: tests/fuzz/replay.c tests/fuzz/fuzz-%.c build/libiotrace.a
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -DFUZZ_NAME='"$*"' $(LDFLAGS) -o $@ $(filter-out %.a,$^) build/libiotrace.a $(ALL_LDLIBS)

# `make check-sanitize`: iotrace, libiotrace.a and the unit tests built
# with AddressSanitizer (LeakSanitizer included) and
# UndefinedBehaviorSanitizer in build/san/ (the plain build/ is left
# alone; tracees, the helpers and the LD_PRELOAD shims, stay plain), then
# the whole suite against them, the seed replays too.  Any error stops
# the program (-fno-sanitize-recover=all, abort_on_error).  Reports go
# to build/san/logs/, not stderr, so no test's expected output changes,
# and any file there fails the target even where a test accepts a
# failing exit.  disable_coredump=0: ASan would otherwise set
# RLIMIT_CORE to 0, which every traced command inherits.
# verify_asan_link_order=0: fault tests LD_PRELOAD shims into iotrace.
# Leak checks: tests/sanitize/options.c.  Tests asserting the exact
# calls of a process running iotrace's code (built-in workloads) have
# the UNSANITIZED prerequisite (tests/lib.sh).  Cost: README.md, Testing.
SAN_DIR := build/san
SAN_CFLAGS := -O1 -g -fno-omit-frame-pointer \
	-fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all
# The trampoline template is data: its plain object, nothing to instrument.
SAN_LIB_OBJS := $(LIB_SRCS:%.c=$(SAN_DIR)/%.o) $(LIB_ASMS:%.S=build/%.o) \
	build/gen/pprof.pb-c.o
SAN_CLI_OBJS := $(CLI_SRCS:%.c=$(SAN_DIR)/%.o)
SAN_UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(SAN_DIR)/tests/%) \
	$(REPLAY_TARGETS:%=$(SAN_DIR)/tests/fuzz-%-replay)
SAN_LOGS := $(CURDIR)/$(SAN_DIR)/logs
SAN_ENV := IOTRACE_SANITIZED=1 \
	ASAN_OPTIONS=abort_on_error=1:disable_coredump=0:verify_asan_link_order=0:log_path=$(SAN_LOGS)/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SAN_LOGS)/ubsan

$(SAN_DIR)/%.o: %.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(SAN_CFLAGS) -c -o $@ $<

# Runs as the sanitizers start: not instrumented itself.
$(SAN_DIR)/options.o: tests/sanitize/options.c | build/config.mk
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(SAN_DIR)/syscalls/syscalls.o: build/gen/systab.h
$(SAN_DIR)/render/pprof.o: build/gen/pprof.pb-c.h

$(SAN_DIR)/libiotrace.a: $(SAN_LIB_OBJS)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(SAN_DIR)/iotrace: $(SAN_CLI_OBJS) $(SAN_DIR)/options.o $(SAN_DIR)/libiotrace.a
	@echo '  LINK    $@'
	$(Q)$(CC) $(ALL_CFLAGS) $(SAN_CFLAGS) $(LDFLAGS) -o $@ $^ $(ALL_LDLIBS)

$(SAN_DIR)/tests/%: tests/unit/%.c $(SAN_DIR)/options.o $(SAN_DIR)/libiotrace.a
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(SAN_CFLAGS) $(LDFLAGS) -o $@ $^ $(ALL_LDLIBS)

$(SAN_DIR)/tests/test-rewrite-sites: | build/helpers/rwsites.so
$(SAN_DIR)/tests/fuzz-args-replay: $(SAN_DIR)/cli/attach.o
$(SAN_DIR)/tests/fuzz-%-replay: tests/fuzz/replay.c tests/fuzz/fuzz-%.c $(SAN_DIR)/options.o $(SAN_DIR)/libiotrace.a
	@mkdir -p $(dir $@)
	$(QCC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(SAN_CFLAGS) -DFUZZ_NAME='"$*"' $(LDFLAGS) -o $@ $(filter-out %.a,$^) $(SAN_DIR)/libiotrace.a $(ALL_LDLIBS)

check-sanitize: $(SAN_DIR)/iotrace $(SAN_UNIT_BINS) $(TEST_PROGS) test-deps
	$(Q)rm -rf $(SAN_LOGS) $(TEST_FAILURES_LOG) && mkdir -p $(SAN_LOGS)
	$(Q)$(SAN_ENV) IOTRACE=$(CURDIR)/$(SAN_DIR)/iotrace \
		HELPERS=$(CURDIR)/build/helpers HELPERS32=$(CURDIR)/build/helpers32 \
		$(TEST_CACHE) $(TEST_FAILURES) \
		$(PROVE) --exec '' $(SAN_UNIT_BINS) tests/t*.sh; status=$$?; \
	for f in $(SAN_LOGS)/*; do \
		[ -f "$$f" ] || continue; echo "== $$f"; cat "$$f"; status=1; \
	done; \
	[ $$status = 0 ] || echo 'check-sanitize: FAILED (reports above)' >&2; \
	exit $$status

.PHONY: check-sanitize
-include $(SAN_LIB_OBJS:.o=.d) $(SAN_CLI_OBJS:.o=.d)
