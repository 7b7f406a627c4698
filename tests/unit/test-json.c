// SPDX-License-Identifier: MIT
/*
 * The JSON profile: every field survives render -> load -> render
 * byte for byte, the text table of a loaded profile is the original's
 * (I/O table, histograms and findings too, from files and io rows whose
 * links are rebuilt), an older iotrace/1 file without them still loads,
 * and each class of bad input fails with its line and reason, leaving
 * the profile empty.  Also feeds the kept fuzzing inputs to the loader.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "profile/profile.h"
#include "tap.h"
#include "profile-fixtures.h"

static void add(struct profile *p, const char *name, int64_t ret,
		uint64_t ns, uint64_t size)
{
	struct tracer_event ev = {
		.tid = 1, .arch = p->native_arch, .nr = syscall_number(name),
		.ret = ret, .entry_ns = 1000, .exit_ns = 1000 + ns,
	};

	ev.args[2] = size;
	profile_add(p, &ev);
}

/* n calls of a syscall on (f, f2): its syscalls row and its io row. */
static void add_io(struct profile *p, const char *name, uint32_t f,
		   uint32_t f2, int n, uint64_t ask, int64_t ret)
{
	struct tracer_event ev = {
		.tid = 1, .arch = p->native_arch, .nr = syscall_number(name),
		.ret = ret, .entry_ns = 1000, .exit_ns = 5000,
	};
	struct profile_row *r = profile_row_get(p, name);

	ev.args[r->io_arg] = ask;
	while (n--) {
		profile_add(p, &ev);
		profile_add_io(p, (uint32_t)(r - p->rows), f, f2, &ev);
	}
}

/*
 * Files and io rows as a run makes them: a direct file, a pipe, a
 * splice pair, an EINVAL; the file with two rows links them via next.
 */
static void sample_files(struct profile *p)
{
	uint32_t out, pipe, zero;

	snprintf(p->engine, sizeof(p->engine), "ptrace");
	p->calibrated = true;
	out = file(p, "/tmp/out \"x\"", FD_REG, PF_DIRECT | PF_DSYNC, 4096,
		   512);
	pipe = file_backed(p, "pipe:[7]", FD_PIPE, 0, 4096, 0,
			   FD_BACKING_NONE);
	zero = file(p, "/dev/zero", FD_CHR, 0, 4096, 0);
	add_io(p, "splice", out, pipe, 3, 65536, 65536);
	add_io(p, "pwrite64", out, PROFILE_FILE_NONE, 5, 1130, 1130);
	add_io(p, "pwrite64", out, PROFILE_FILE_NONE, 2, 1130, -EINVAL);
	add_io(p, "read", zero, PROFILE_FILE_NONE, 4, 4096, 100);
}

static void sample(struct profile *p)
{
	char *argv[] = { "dd", "if=/dev/zero", "of=a \"b\"\n", NULL };
	int i;

	profile_init(p);
	profile_set_command(p, 3, argv);
	p->wall_ns = 123456789;
	p->stops = 4242;
	p->overhead_ns = 0;
	for (i = 0; i < 1000; i++)
		add(p, "write", 1, 3000 + (uint64_t)i, 1);
	add(p, "write", 10, 70000, 4096);	/* short */
	add(p, "openat", -ENOENT, 5000, 0);
	add(p, "openat", -ENOENT, 6000, 0);
	add(p, "openat", -EACCES, 7000, 0);
	add(p, "openat", -512, 8000, 0);	/* ERESTARTSYS: no name */
	add(p, "openat", 3, 9000, 0);
	profile_set_exit(p, 9 /* killed by SIGKILL */, 0);
	p->truth.nrows = 1;
	p->truth.wall_ns = 99;
	p->truth.clock_ns = 37;
	snprintf(p->truth.rows[0].name, PROFILE_NAME_MAX, "write");
	p->truth.rows[0].calls = 1000;
	p->truth.rows[0].total_ns = 2000000;
	p->truth.rows[0].median_ns = 1900;
	p->baseline = (struct profile_baseline){
		.runs = 3, .wall_ns = 5000000, .wall_min_ns = 4900000,
		.wall_max_ns = 5300000, .user_ns = 1000000, .sys_ns = 3000000,
	};
	sample_files(p);
}

/* Renders p in a format into a malloc'd string. */
static char *render(const struct profile *p, enum report_format fmt)
{
	struct report_opts o = { .format = fmt };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_render(f, p, &o);
	fclose(f);
	return buf;
}

static void test_round_trip(void)
{
	struct profile p, q;
	struct load_error e = { 0, "" };
	char *j1, *j2, *t1, *t2;
	const struct profile_row *w, *o;

	sample(&p);
	j1 = render(&p, FMT_JSON);
	profile_init(&q);
	is_int(profile_from_json(&q, j1, strlen(j1), &e), 0,
	       "own JSON loads (%s)", e.msg);
	j2 = render(&q, FMT_JSON);
	is_str(j2, j1, "JSON -> load -> JSON is identical");
	t1 = render(&p, FMT_TABLE);
	t2 = render(&q, FMT_TABLE);
	is_str(t2, t1, "the loaded profile prints the same table");
	w = profile_row_find(&q, "write");
	o = profile_row_find(&q, "openat");
	ok(w && o, "rows are back");
	if (w && o) {
		is_int(w->calls, 1001, "write calls");
		is_int(w->bytes_req, 1000 + 4096, "write bytes asked");
		is_int(w->bytes_done, 1010, "write bytes moved");
		is_int(w->short_calls, 1, "short writes");
		is_int(w->min_ns, 3000, "min ns");
		is_int(w->max_ns, 70000, "max ns");
		is_int(w->hist[11], 1000, "3-4 us calls in bucket 2048");
		is_int(w->hist[16], 1, "70 us call in bucket 65536");
		is_int(o->errors, 4, "openat errors");
		is_int(o->errnos[0].err, ENOENT, "ENOENT by name");
		is_int(o->errnos[0].count, 2, "ENOENT count");
		is_int(o->errnos[2].err, 512, "an errno without a name");
	}
	ok(strstr(j1, "\"ENOENT\": 2") && strstr(j1, "\"E512\": 1"),
	   "errnos are keyed by name");
	is_int(q.exit.signal, 9, "exit signal");
	is_int(q.argc, 3, "command line");
	/* A newline is a control: '?' as in paths, so it never splits a line. */
	is_str(q.argv[2], "of=a \"b\"?", "quotes survive, a newline is ?");
	is_int(q.truth.rows[0].median_ns, 1900, "truth");
	is_int(q.truth.clock_ns, 37, "truth: its clock read's cost");
	ok(!memcmp(&q.baseline, &p.baseline, sizeof(p.baseline)),
	   "the baseline is back");
	ok(strstr(t1, "\niotrace: untraced 5.00 ms (--baseline, median of 3 "
		  "runs)"), "the table shows the baseline");
	is_str(q.kernel, p.kernel, "kernel release");
	free(j1);
	free(j2);
	free(t1);
	free(t2);
	profile_release(&p);
	profile_release(&q);
}

/* Renders the text table with every section a run can print. */
static char *render_all(const struct profile *p)
{
	struct report_opts o = { .format = FMT_TABLE, .findings = true,
				 .histogram = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_render(f, p, &o);
	fclose(f);
	return buf;
}

/* The derived links are rebuilt as the run built them. */
static bool same_links(const struct profile *p, const struct profile *q)
{
	const struct profile_breakdown *a = profile_files(p);
	const struct profile_breakdown *b = profile_files(q);
	size_t i;

	if (a->nkeys != b->nkeys || a->nsubs != b->nsubs)
		return false;
	for (i = 0; i < a->nkeys; i++)
		if (a->first[i] != b->first[i])
			return false;
	for (i = 0; i < a->nsubs; i++)
		if (a->subs[i].next != b->subs[i].next)
			return false;
	return true;
}

static void test_files_round_trip(void)
{
	const struct profile_breakdown *b;
	struct load_error e = { 0, "" };
	struct profile p, q;
	char name[PROFILE_NAME_MAX];
	char *j1, *t1, *t2;

	sample(&p);
	j1 = render(&p, FMT_JSON);
	profile_init(&q);
	is_int(profile_from_json(&q, j1, strlen(j1), &e), 0, "loads (%s)",
	       e.msg);
	t1 = render_all(&p);
	t2 = render_all(&q);
	is_str(t2, t1, "I/O table, histograms and findings print the same");
	ok(strstr(t1, "O_DIRECT, O_DSYNC, blksize 4096, logical block 512") &&
	   strstr(t1, "pipe:[7]") && strstr(t1, "EINVAL"),
	   "the table shows flags, the pair and the EINVAL finding");
	is_str(q.engine, "ptrace", "engine");
	ok(q.calibrated, "calibrated");
	b = profile_files(&q);
	is_int(b->nkeys, 3, "files");
	is_int(b->nsubs, 3, "io rows");
	ok(same_links(&p, &q), "first_io and next as the run had them");
	is_int(b->first[0], 1, "the direct file's newest row first");
	is_int(b->subs[1].next, 0, "then its splice row");
	is_str(profile_file_at(b, 0)->path, "/tmp/out \"x\"",
	       "path with quotes");
	is_int(profile_file_at(b, 0)->flags, PF_DIRECT | PF_DSYNC, "flags");
	is_int(profile_file_at(b, 2)->kind, FD_CHR, "kind");
	is_int(profile_file_at(b, 0)->lbs, 512, "logical block size");
	ok(strstr(j1, "\"lbs\": 512,\n      \"device\": true\n") &&
	   strstr(j1, "\"lbs\": 0,\n      \"device\": false\n"),
	   "\"device\": true on a block device, false on none");
	is_int(profile_file_at(b, 0)->backing, FD_BACKING_DEVICE,
	       "a block device behind the file, loaded");
	is_int(profile_file_at(b, 1)->backing, FD_BACKING_NONE,
	       "none behind the pipe");
	is_int(profile_file_at(b, 2)->backing, FD_BACKING_UNKNOWN,
	       "not known: no \"device\", and not known loaded");
	is_str(profile_row_name(&q.rows[b->subs[1].row], name, sizeof(name)),
	       "pwrite64", "io row by name");
	is_int(b->subs[0].key2, 1, "pair destination");
	is_int(b->subs[1].key2, PROFILE_FILE_NONE, "null file2");
	is_int(b->subs[1].einval, 2, "einval");
	is_int(b->subs[2].size_max_calls, 4, "size_max_calls");
	free(j1);
	free(t1);
	free(t2);
	profile_release(&p);
	profile_release(&q);
}

/* A file saved before engine, calibrated, files and ios were written. */
static void test_older_file(void)
{
	static const char *const newer[] = { "engine", "calibrated", "files",
					     "ios", "baseline" };
	struct load_error e = { 0, "" };
	struct profile p, q;
	char *j1, *old;
	json_t *doc;
	size_t i;

	sample(&p);
	j1 = render(&p, FMT_JSON);
	doc = json_loads(j1, 0, NULL);
	for (i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
		json_object_del(doc, newer[i]);
	old = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	profile_init(&q);
	is_int(profile_from_json(&q, old, strlen(old), &e), 0,
	       "an older iotrace/1 file loads (%s)", e.msg);
	ok(!q.engine[0] && !q.calibrated && !profile_files(&q)->nkeys &&
	   !profile_files(&q)->nsubs && !q.baseline.runs,
	   "without engine, calibration, files, io rows or baseline");
	is_int(q.nrows, p.nrows, "its syscalls are all there");
	json_decref(doc);
	free(old);
	free(j1);
	profile_release(&p);
	profile_release(&q);
}

static void bad(const char *title, const char *text, size_t len,
		unsigned long line, const char *want)
{
	struct load_error e = { 0, "" };
	struct profile q;
	int err;

	profile_init(&q);
	err = profile_from_json(&q, text, len, &e);
	ok(err == -1 && e.line == line && strstr(e.msg, want) &&
	   !q.nrows && !q.argc, "%s: line %lu: %s", title, e.line, e.msg);
	if (e.line != line || !strstr(e.msg, want))
		printf("#   want line %lu: ...%s...\n", line, want);
	profile_release(&q);
}

static unsigned long line_of(const char *text, const char *needle)
{
	const char *at = strstr(text, needle);
	unsigned long line = 1;

	for (; at && text < at; text++)
		line += *text == '\n';
	return line;
}

/* The sample's JSON with the first `from` replaced by `to`. */
static char *mutate(const char *json, const char *from, const char *to)
{
	const char *at = strstr(json, from);
	size_t head = (size_t)(at - json);
	char *out = malloc(strlen(json) + strlen(to) + 1);

	memcpy(out, json, head);
	strcpy(out + head, to);
	strcat(out, at + strlen(from));
	return out;
}

/*
 * A file saved before "device" was written: a file with a logical block
 * size (which /sys gives a block device only) has one behind it, the
 * others are not known.
 */
static void test_before_device(void)
{
	struct load_error e = { 0, "" };
	const struct profile_breakdown *b;
	struct profile p, q;
	char *j1, *j2, *old;

	sample(&p);
	j1 = render(&p, FMT_JSON);
	j2 = mutate(j1, ",\n      \"device\": true", "");
	old = mutate(j2, ",\n      \"device\": false", "");
	profile_init(&q);
	is_int(profile_from_json(&q, old, strlen(old), &e), 0,
	       "a file without \"device\" loads (%s)", e.msg);
	b = profile_files(&q);
	ok(!strstr(old, "device") &&
	   profile_file_at(b, 0)->backing == FD_BACKING_DEVICE &&
	   profile_file_at(b, 1)->backing == FD_BACKING_UNKNOWN,
	   "a logical block size: a device; none: not known");
	free(j1);
	free(j2);
	free(old);
	profile_release(&p);
	profile_release(&q);
}

/* at: where the error is; off: lines from there (-1: the row's '{'). */
static const struct {
	const char *title, *from, *to, *at;
	int off;
	const char *want;
} mutations[] = {
	{ "wrong schema", "\"iotrace/1\"", "\"iotrace/2\"", "\"schema\"", 0,
	  "schema: unsupported schema 'iotrace/2'" },
	{ "string for a count", "\"calls\": 1001", "\"calls\": \"1001\"",
	  "\"calls\": \"", 0, "syscalls[0].calls: expected an integer, got a "
	  "string" },
	{ "negative count", "\"calls\": 1001", "\"calls\": -1",
	  "\"calls\": -", 0, "syscalls[0].calls: must not be negative" },
	{ "real number", "\"min_ns\"", "\"min_ns\": 1.5, \"x\"",
	  "\"min_ns\"", 0, "syscalls[0].min_ns: expected an integer, got a "
	  "real number" },
	{ "missing key", "\"short_calls\"", "\"shortcalls\"",
	  "\"name\": \"write\"", -1, "syscalls[0].short_calls: missing" },
	{ "unknown errno", "\"ENOENT\"", "\"ENOFUN\"", "\"ENOFUN\"", 0,
	  "syscalls[1].errnos.ENOFUN: unknown errno name" },
	{ "bad bucket", "\"2048\"", "\"2047\"", "\"2047\"", 0,
	  "syscalls[0].hist.2047: not a bucket" },
	{ "more errors than calls", "      \"errors\": 4",
	  "      \"errors\": 7", "\"name\": \"openat\"", -1,
	  "syscalls[1]: more errors than calls" },
	{ "duplicate syscall", "\"openat\"", "\"write\"",
	  "\"name\": \"write\",\n      \"calls\": 5", -1,
	  "syscalls[1]: syscall 'write' given twice" },
	{ "long name", "\"openat\"",
	  "\"openat_openat_openat_openat_openat_openat\"", "\"openat_", 0,
	  "syscalls[1].name: longer than 39 bytes" },
	{ "control character in a name", "\"openat\"", "\"open\\u001bat\"",
	  "\"open\\u", 0, "syscalls[1].name: 'open?at' is not a syscall name" },
	{ "exit code out of range", "\"code\": 0", "\"code\": 300",
	  "\"code\": 300", 0, "exit.code: must be 0 to 255, got 300" },
	{ "command not strings", "\"dd\"", "[\"dd\"]", "[\"dd\"]", 0,
	  "command[0]: expected a string, got an array" },
	{ "unknown source", "\"source\": \"iotrace\"", "\"source\": \"perf\"",
	  "\"source\"", 0, "source: unknown source 'perf'" },
	{ "unknown engine", "\"engine\": \"ptrace\"", "\"engine\": \"perf\"",
	  "\"engine\"", 0, "engine: unknown engine 'perf'" },
	{ "calibrated not a boolean", "\"calibrated\": true",
	  "\"calibrated\": 1", "\"calibrated\"", 0,
	  "calibrated: expected true or false, got an integer" },
	{ "unknown kind", "\"kind\": \"pipe\"", "\"kind\": \"tube\"",
	  "\"kind\": \"tube\"", 0, "files[1].kind: unknown kind 'tube'" },
	{ "unknown flag", "\"O_DSYNC\"", "\"O_NOATIME\"", "\"O_NOATIME\"", 0,
	  "files[0].flags[1]: unknown flag 'O_NOATIME'" },
	{ "flag twice", "\"O_DSYNC\"", "\"O_DIRECT\"", "\"O_DIRECT\"", 1,
	  "files[0].flags[1]: 'O_DIRECT' given twice" },
	{ "flag not a string", "\"O_DSYNC\"", "4", "\"O_DIRECT\"", 1,
	  "files[0].flags[1]: expected a string, got an integer" },
	{ "flags not an array", "\"flags\": []", "\"flags\": \"\"",
	  "\"flags\": \"\"", 0, "files[1].flags: expected an array, got a "
	  "string" },
	{ "blksize past 32 bits", "\"blksize\": 4096",
	  "\"blksize\": 4294967296", "\"blksize\"", 0,
	  "files[0].blksize: must be 0 to 4294967295, got 4294967296" },
	{ "missing lbs", "\"lbs\": 0", "\"lbz\": 0", "\"path\": \"pipe", -1,
	  "files[1].lbs: missing" },
	{ "device not a boolean", "\"device\": false", "\"device\": 0",
	  "\"device\": 0", 0, "files[1].device: expected true or false, "
	  "got an integer" },
	{ "control character in a path", "\"pipe:[7]\"",
	  "\"pipe:\\u001b[7]\"", "\"pipe:", 0,
	  "files[1].path: control character in a path" },
	{ "same file twice", "\"/dev/zero\"", "\"pipe:[7]\"",
	  "\"kind\": \"char\"", -2, "files[2]: same path and flags as "
	  "files[1]" },
	{ "no such file", "\"file\": 2", "\"file\": 3", "\"file\": 3", 0,
	  "ios[2].file: no such file: 3 (3 in files)" },
	{ "negative file", "\"file\": 0", "\"file\": -1", "\"file\": -1", 0,
	  "ios[0].file: must not be negative" },
	{ "file2 a string", "\"file2\": 1", "\"file2\": \"1\"", "\"file2\"", 0,
	  "ios[0].file2: expected an integer, got a string" },
	{ "syscall not in syscalls", "\"syscall\": \"read\"",
	  "\"syscall\": \"pread64\"", "\"syscall\": \"pread64\"", 0,
	  "ios[2].syscall: 'pread64' is not in syscalls" },
	{ "more EINVAL than errors", "\"einval\": 2", "\"einval\": 3",
	  "\"syscall\": \"pwrite64\"", -3,
	  "ios[1]: more EINVAL errors than errors" },
	{ "no baseline runs", "\"runs\": 3", "\"runs\": 0", "\"runs\"", 0,
	  "baseline.runs: must be 1 to 100, got 0" },
	{ "baseline median outside its spread", "\"wall_min_ns\": 4900000",
	  "\"wall_min_ns\": 5100000", "\"runs\"", -1,
	  "baseline: wall_ns must lie between wall_min_ns and wall_max_ns" },
	{ "baseline key missing", "\"sys_ns\"", "\"sysns\"", "\"runs\"",
	  -1, "baseline.sys_ns: missing" },
	{ "io counter missing", "\"size_max_calls\": 4", "\"size_max_call\": 4",
	  "\"syscall\": \"read\"", -3, "ios[2].size_max_calls: missing" },
};

/* ios[2] made the same (file, file2, syscall) as ios[1]. */
static void test_duplicate_io(const char *json)
{
	char *m1 = mutate(json, "\"syscall\": \"read\"",
			  "\"syscall\": \"pwrite64\"");
	char *m2 = mutate(m1, "\"file\": 2", "\"file\": 0");

	bad("io row twice", m2, strlen(m2),
	    line_of(m2, "\"size_max_calls\": 7") + 2,
	    "ios[2]: same file, file2 and syscall as an earlier row");
	free(m1);
	free(m2);
}

static void test_bad_json(void)
{
	struct profile p;
	char *json, *m, deep[20001];
	size_t i;

	sample(&p);
	json = render(&p, FMT_JSON);
	for (i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		m = mutate(json, mutations[i].from, mutations[i].to);
		bad(mutations[i].title, m, strlen(m),
		    line_of(m, mutations[i].at) +
			    (unsigned long)mutations[i].off,
		    mutations[i].want);
		free(m);
	}
	test_duplicate_io(json);
	bad("empty", "", 0, 1, "invalid JSON");
	bad("not JSON", "hello\n", 6, 1, "invalid JSON");
	bad("truncated", json,
	    (size_t)(strstr(json, "\"wall_ns\"") - json) + 11,
	    line_of(json, "\"wall_ns\""), "near end of file");
	bad("top-level array", "[1]", 3, 1, "the top level is an array");
	bad("no schema", "{\n\"a\": 1}", 9, 1, "no \"schema\" key");
	bad("duplicate key", "{\"a\":1,\n\"a\":2}", 14, 2,
	    "duplicate object key");
	bad("beyond 64 bits", "{\"a\":\n18446744073709551616}", 26, 2,
	    "too big integer");
	bad("far below zero", "{\"a\":\n-18446744073709551616}", 27, 2,
	    "too big negative integer");
	bad("NUL byte", "{\"schema\":\n\"iot\0race/1\"}", 24, 2,
	    "control character 0x0");
	bad("escaped NUL", "{\"a\":\n\"\\u0000\"}", 15, 2,
	    "\\u0000 is not allowed");
	bad("invalid UTF-8", "{\"a\":\n\"\xff\"}", 10, 2,
	    "unable to decode byte 0xff");
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	bad("deep nesting", deep, sizeof(deep) - 1, 1,
	    "maximum parsing depth reached");
	free(json);
	profile_release(&p);
}

/* The line of the nth (1-based) needle after the first `after`. */
static unsigned long line_after(const char *text, const char *after,
				const char *needle, int nth)
{
	const char *at = strstr(text, after);

	while (at && nth--)
		at = strstr(at + 1, needle);
	return at ? line_of(text, at) : 0;
}

/*
 * Values each in range whose sums pass 2^63-1 (issue 20: four rows of
 * 2^63-1 calls and ns printed a total of 26 calls): refused at the
 * value where the sum passed it, whatever the counter or breakdown.
 */
static void test_sums(void)
{
	static const char *const names[] = { "write", "read", "close",
					     "openat" };
	struct profile_row *r;
	struct profile p;
	char *json;
	size_t i;

	profile_init(&p);
	for (i = 0; i < 4; i++) {
		r = profile_row_get(&p, names[i]);
		r->calls = r->timed = PROFILE_SUM_MAX;
		r->time_ns = r->raw_time_ns = PROFILE_SUM_MAX;
		r->min_ns = r->max_ns = 1;
	}
	json = render(&p, FMT_JSON);
	bad("calls adding up past 2^63-1", json, strlen(json),
	    line_after(json, "\"syscalls\"", "\"calls\"", 2),
	    "syscalls[1].calls: the calls of all syscalls add up to more than "
	    "2^63-1");
	free(json);
	for (i = 0; i < 4; i++)
		p.rows[i].calls = p.rows[i].timed = 1;
	json = render(&p, FMT_JSON);
	bad("times adding up past 2^63-1", json, strlen(json),
	    line_after(json, "\"syscalls\"", "\"time_ns\"", 2),
	    "syscalls[1].time_ns: the time_ns of all syscalls add up");
	free(json);
	profile_release(&p);
	sample(&p);
	p.rows[1].errnos[0].count = PROFILE_SUM_MAX;
	json = render(&p, FMT_JSON);
	bad("errno counts past 2^63-1", json, strlen(json),
	    line_after(json, "\"syscalls\"", "\"errnos\"", 2),
	    "syscalls[1].errnos: the errno counts of 'openat' add up");
	free(json);
	profile_release(&p);
	sample(&p);
	profile_breakdown_rw(&p, &profile_dim_file)->subs[1].bytes_done =
		PROFILE_SUM_MAX;
	json = render(&p, FMT_JSON);
	bad("a file's bytes past 2^63-1", json, strlen(json),
	    line_after(json, "\"ios\"", "\"bytes_done\"", 2),
	    "ios[1].bytes_done: the bytes_done of all file rows add up");
	free(json);
	profile_release(&p);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0;
	FILE *m = open_memstream(&buf, &cap);
	int c;

	while (f && (c = getc(f)) != EOF)
		putc(c, m);
	fclose(m);
	if (f)
		fclose(f);
	*len = cap;
	return buf;
}

static char *fixture(const char *name, size_t *len)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/saved/%s",
		 getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures",
		 name);
	return slurp(path, len);
}

/*
 * Whether doc's files have "device": true where they have a logical block
 * size and no "device" elsewhere, taken out of them for a comparison.
 */
static bool device_gained(json_t *doc)
{
	json_t *f, *dev;
	bool right = true;
	size_t i;

	json_array_foreach(json_object_get(doc, "files"), i, f) {
		dev = json_object_get(f, "device");
		if (json_integer_value(json_object_get(f, "lbs")))
			right = right && json_is_true(dev);
		else
			right = right && !dev;
		json_object_del(f, "device");
	}
	return right;
}

/*
 * A file saved before breakdowns were generic (iotrace at 0e5694a, a
 * shell running dd with a refused O_DIRECT size, cat and dd: pairs,
 * flags, findings): it loads, prints the report that iotrace printed
 * for it then (block-misfit now worded as a neutral fact through the
 * page cache; % time, usecs/call, the total and the order of rows of
 * equal seconds now from the seconds cells as printed; geteuid's call
 * clamped to 0 ns by the correction now a line of its own, not a
 * "0 -> 1" bucket; the header the one line of a run with no untraced
 * picture, its engine line under -v only; the waits finding on the
 * shell's wait4, which holds most of the syscall time), and saves as
 * it was with "breakdowns" (and a null "baseline") added, and "device"
 * on its files on a block device.
 */
static void test_saved_before_breakdowns(void)
{
	struct load_error e = { 0, "" };
	char *text, *want, *t, *j, *again;
	size_t len, wlen;
	struct profile q;
	json_t *doc;

	text = fixture("0e5694a.json", &len);
	want = fixture("0e5694a-report.txt", &wlen);
	profile_init(&q);
	is_int(profile_from_json(&q, text, len, &e), 0,
	       "a file saved at 0e5694a loads (%s)", e.msg);
	ok(profile_files(&q)->nkeys == 8 && profile_files(&q)->nsubs == 9 &&
	   profile_files(&q)->subs[6].key2 != PROFILE_FILE_NONE,
	   "its files and io rows, a copy_file_range pair among them");
	t = render_all(&q);
	is_str(t, want, "the report is the one iotrace printed then");
	j = render(&q, FMT_JSON);
	doc = json_loads(j, 0, NULL);
	ok(json_is_object(json_object_get(doc, "breakdowns")),
	   "saved again, it gains \"breakdowns\"");
	ok(!json_object_get(doc, "untraced"),
	   "but no \"untraced\": it had no stop costs");
	ok(json_is_null(json_object_get(doc, "baseline")),
	   "and \"baseline\": null");
	json_object_del(doc, "breakdowns");
	json_object_del(doc, "baseline");
	ok(device_gained(doc), "its files on a device (a logical block "
	   "size) gain \"device\": true, the others nothing");
	again = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	ok(again && len == strlen(again) + 1 &&
	   !strncmp(text, again, len - 1) && text[len - 1] == '\n',
	   "and is otherwise the same file, byte for byte");
	json_decref(doc);
	free(again);
	free(j);
	free(t);
	free(want);
	free(text);
	profile_release(&q);
}

/*
 * The inputs `make fuzz` kept (seeds and former crashers): each loads or
 * fails with a line and a reason, and a loaded one renders.
 */
static void test_fuzz_inputs(const char *kind, bool json)
{
	char dir[512], path[1024];
	struct dirent *d;
	size_t len, n = 0;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/fuzz/%s",
		 getenv("FIXTURES") ? getenv("FIXTURES") : "tests/fixtures",
		 kind);
	dp = opendir(dir);
	ok(dp, "fuzz inputs in %s", dir);
	while (dp && (d = readdir(dp))) {
		struct load_error e = { 0, "" };
		struct profile q;
		char *text, *out;
		int err;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		text = slurp(path, &len);
		profile_init(&q);
		err = json ? profile_from_json(&q, text, len, &e)
			   : profile_from_strace_text(&q, text, len, &e);
		out = err ? NULL : render(&q, FMT_TABLE);
		ok(err ? e.line > 0 && e.msg[0] : out != NULL, "%s %s: %s",
		   kind, d->d_name, err ? e.msg : "loads");
		free(out);
		free(text);
		profile_release(&q);
		n++;
	}
	if (dp)
		closedir(dp);
	ok(n >= 2, "%zu %s inputs", n, kind);
}

/* calls of number nr of arch, returning ret. */
static void add_arch(struct profile *p, uint32_t arch, int nr, int n)
{
	struct tracer_event ev = {
		.tid = 1, .arch = arch, .nr = nr, .ret = 0,
		.entry_ns = 1000, .exit_ns = 2000,
	};

	while (n--)
		profile_add(p, &ev);
}

static uint64_t calls_of(const struct profile *p, const char *name)
{
	const struct profile_row *r = profile_row_find(p, name);

	return r ? r->calls : 0;
}

/*
 * i386 rows stay apart through a save and a load, each with its
 * "personality"; rows without one (older files) are read by name, native
 * first; a name no personality knows is kept.
 */
static void test_personalities(void)
{
	struct load_error e = { 0, "" };
	struct profile p, q;
	char *j1, *j2, *old;
	json_t *doc, *row;
	size_t i;

	profile_init(&p);
	add_arch(&p, p.native_arch, syscall_number("write"), 3);
	add_arch(&p, 0x40000003u, 4, 2);	/* AUDIT_ARCH_I386: write */
	add_arch(&p, 0x40000003u, 197, 1);	/* fstat64 */
	j1 = render(&p, FMT_JSON);
	ok(strstr(j1, "\"personality\": \"i386\"") != NULL,
	   "i386 rows say so");
	profile_init(&q);
	is_int(profile_from_json(&q, j1, strlen(j1), &e), 0, "loads");
	ok(calls_of(&q, "write") == 3 && calls_of(&q, "write/i386") == 2 &&
	   calls_of(&q, "fstat64/i386") == 1 && q.nrows == 3,
	   "write and write/i386 apart, fstat64/i386");
	j2 = render(&q, FMT_JSON);
	is_str(j2, j1, "saved again byte for byte");
	free(j2);
	profile_release(&q);
	doc = json_loads(j1, 0, NULL);
	json_array_foreach(json_object_get(doc, "syscalls"), i, row) {
		json_object_del(row, "personality");
		if (i == 2)
			json_object_set_new(row, "name",
					    json_string("no_such_call"));
	}
	old = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	profile_init(&q);
	ok(profile_from_json(&q, old, strlen(old), &e) == -1 &&
	   strstr(e.msg, "'write' given twice"),
	   "without personality, two writes are one syscall twice");
	profile_release(&q);
	json_array_remove(json_object_get(doc, "syscalls"), 1);
	free(old);
	old = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	profile_init(&q);
	is_int(profile_from_json(&q, old, strlen(old), &e), 0,
	       "an older file loads (%s)", e.msg);
	ok(calls_of(&q, "write") == 3 && calls_of(&q, "no_such_call") == 1,
	   "by name: write native, an unknown name kept");
	profile_release(&q);
	json_decref(doc);
	free(old);
	free(j1);
	profile_release(&p);
}

int main(void)
{
	test_round_trip();
	test_files_round_trip();
	test_before_device();
	test_older_file();
	test_saved_before_breakdowns();
	if (syscall_npers > 1)
		test_personalities();
	test_bad_json();
	test_sums();
	test_fuzz_inputs("json", true);
	test_fuzz_inputs("strace", false);
	return done_testing();
}
