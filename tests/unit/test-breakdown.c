// SPDX-License-Identifier: MIT
/*
 * Breakdowns, generically: a second, test-only dimension ("tag", a short
 * name, as how a call was counted could be: "fast", "ptrace") is a key
 * type and one row in a dimensions table, and with nothing else the
 * aggregation, the bounds and the "(other tags)" key, the JSON round
 * trip, the text report and the CSV follow it as they follow files.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/jload.h"
#include "render/render.h"
#include "tap.h"
#include "profile-fixtures.h"

/* --- the test-only dimension: all it takes --- */

struct tag {
	char name[16];
};

static int tag_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tag *)a)->name,
		      ((const struct tag *)b)->name);
}

static uint64_t tag_hash(const void *key)
{
	const struct tag *t = key;

	return profile_hash_bytes(0, t->name, strlen(t->name));
}

static void tag_other(void *key)
{
	snprintf(((struct tag *)key)->name, sizeof(struct tag), "(other tags)");
}

static void tag_label(char *buf, size_t size, const void *key)
{
	snprintf(buf, size, "%s", ((const struct tag *)key)->name);
}

static json_t *tag_save(const void *key)
{
	return json_pack("{s:s}", "name", ((const struct tag *)key)->name);
}

static int tag_load(struct jload *j, json_t *o, void *key)
{
	struct tag *t = key;

	return jload_string(j, o, "name", t->name, sizeof(t->name));
}

static const struct profile_dim dim_tag = {
	.name = "tag", .plural = "tags", .identity = "name",
	.key_size = sizeof(struct tag), .max_keys = 4, .max_subs = 6,
	.cmp = tag_cmp, .hash = tag_hash, .other = tag_other,
	.label = tag_label, .save = tag_save, .load = tag_load,
};

static const struct profile_dim *const dims[] = {
	&profile_dim_file, &dim_tag, NULL,
};

/* --- building profiles --- */

static void fresh(struct profile *p)
{
	profile_init(p);
	profile_set_dims(p, dims);
	p->overhead_ns = 100;
}

static uint32_t tag(struct profile *p, const char *name)
{
	struct tag t;

	memset(&t, 0, sizeof(t));
	snprintf(t.name, sizeof(t.name), "%s", name);
	return (uint32_t)profile_key_get(profile_breakdown_rw(p, &dim_tag),
					 &t);
}

struct call {
	const char *name;
	int n;
	uint64_t ask;
	int64_t ret;
	uint64_t ns;
	unsigned flags;
};

/* n calls, each into its syscall row, a file (file < 0: none) and a tag. */
static void add(struct profile *p, const struct call *c, int file, int file2,
		uint32_t t)
{
	struct tracer_event ev = {
		.tid = 1, .arch = p->native_arch, .nr = syscall_number(c->name),
		.ret = c->ret, .entry_ns = 1000, .exit_ns = 1000 + c->ns,
		.flags = c->flags,
	};
	struct profile_row *r = profile_row_get(p, c->name);
	uint32_t row = (uint32_t)(r - p->rows);
	int n;

	if (r->io_arg >= 0 && r->io_arg < 6)
		ev.args[r->io_arg] = c->ask;
	for (n = 0; n < c->n; n++) {
		profile_add(p, &ev);
		if (file >= 0)
			profile_add_io(p, row, (uint32_t)file,
				       file2 < 0 ? PROFILE_KEY_NONE
						 : (uint32_t)file2, &ev);
		profile_sub_add(p, profile_breakdown_rw(p, &dim_tag), row, t,
				PROFILE_KEY_NONE, &ev);
	}
}

static void sample(struct profile *p)
{
	/* Times are 100 ns over round numbers: overhead_ns is 100. */
	static const struct call writes = { "write", 4, 4096, 4096, 1000100,
					    0 };
	static const struct call bad = { "write", 1, 1000, -EINVAL, 500100,
					 0 };
	static const struct call reads = { "read", 3, 8192, 100, 2000100, 0 };
	static const struct call counted = { "read", 1, 8192, 0, 0,
					     EVF_COUNT_ONLY };
	static const struct call splices = { "splice", 2, 65536, 65536,
					     2500100, 0 };
	static const struct call getpids = { "getpid", 2, 0, 42, 100100, 0 };
	uint32_t out, in, pipe, fast, ptrace;

	fresh(p);
	out = file(p, "/tmp/out", FD_REG, PF_DIRECT, 4096, 512);
	in = file(p, "/data/in", FD_REG, 0, 4096, 0);
	pipe = file(p, "pipe:[9]", FD_PIPE, 0, 4096, 0);
	fast = tag(p, "fast");
	ptrace = tag(p, "ptrace");
	add(p, &writes, (int)out, -1, fast);
	add(p, &bad, (int)out, -1, ptrace);
	add(p, &reads, (int)in, -1, ptrace);
	add(p, &counted, (int)in, -1, ptrace);
	add(p, &splices, (int)in, (int)pipe, fast);
	add(p, &getpids, -1, -1, ptrace);
}

static const struct profile_sub *sub_of(const struct profile *p,
					const struct profile_dim *d,
					const char *syscall, uint32_t key,
					uint32_t key2)
{
	const struct profile_row *r = profile_row_find(p, syscall);

	return r ? profile_sub_find(profile_breakdown(p, d), key, key2,
				    (uint32_t)(r - p->rows)) : NULL;
}

/* --- the tests --- */

static void test_tables(void)
{
	const struct profile_dim *many[PROFILE_DIMS_MAX + 2];
	struct profile_dim big = dim_tag;
	const struct profile_dim *const one_big[] = { &big, NULL };
	struct profile p;
	size_t i;

	profile_init(&p);
	ok(profile_breakdown(&p, &profile_dim_file)->dim == &profile_dim_file,
	   "profile_init gives a profile the file dimension");
	ok(!profile_breakdown(&p, &dim_tag)->dim &&
	   !profile_breakdown_rw(&p, &dim_tag),
	   "and not a dimension outside profile_dims");
	for (i = 0; i <= PROFILE_DIMS_MAX; i++)
		many[i] = &dim_tag;
	many[PROFILE_DIMS_MAX + 1] = NULL;
	is_int(profile_set_dims(&p, many), -EINVAL, "too many dimensions");
	big.key_size = PROFILE_KEY_MAX + 1;
	is_int(profile_set_dims(&p, one_big), -EINVAL, "a key too large");
	is_int(profile_set_dims(&p, dims), 0, "a table of two");
	ok(profile_breakdown_rw(&p, &dim_tag) == &p.breakdowns[1],
	   "the second dimension in the second slot");
	profile_release(&p);
	ok(p.breakdowns[1].dim == &dim_tag && !p.breakdowns[1].nkeys,
	   "release empties the breakdowns, keeps the dimensions");
}

static void test_aggregation(void)
{
	const struct profile_breakdown *t;
	const struct profile_sub *s;
	struct profile p;

	sample(&p);
	t = profile_breakdown(&p, &dim_tag);
	is_int(t->nkeys, 2, "two tags");
	is_int(t->nsubs, 5, "(tag, syscall) rows");
	s = sub_of(&p, &dim_tag, "write", 0, PROFILE_KEY_NONE);
	ok(s && s->calls == 4 && s->bytes_done == 4 * 4096 &&
	   s->bytes_req == 4 * 4096 && s->time_ns == 4 * 1000000 &&
	   s->raw_time_ns == 4 * 1000100 && s->size_max == 4096 &&
	   s->size_max_calls == 4, "fast's writes: calls, bytes, times");
	s = sub_of(&p, &dim_tag, "write", 1, PROFILE_KEY_NONE);
	ok(s && s->calls == 1 && s->errors == 1 && s->einval == 1 &&
	   !s->bytes_done && !s->bytes_req, "ptrace's failed write");
	s = sub_of(&p, &dim_tag, "read", 1, PROFILE_KEY_NONE);
	ok(s && s->calls == 4 && s->timed == 3 && s->short_calls == 3 &&
	   s->bytes_done == 300 && s->size_max_calls == 3,
	   "reads: the count-only call counted, not timed");
	s = sub_of(&p, &dim_tag, "getpid", 1, PROFILE_KEY_NONE);
	ok(s && s->calls == 2 && s->timed == 2 && !s->bytes_done,
	   "a syscall that moves no data: its return is not bytes");
	s = sub_of(&p, &dim_tag, "splice", 0, PROFILE_KEY_NONE);
	ok(s && s->bytes_done == 2 * 65536, "splice by tag: one key");
	s = sub_of(&p, &profile_dim_file, "splice", 1, 2);
	ok(s && s->calls == 2 && s->bytes_done == 2 * 65536,
	   "splice by file: the (source, destination) pair");
	is_int(profile_files(&p)->nsubs, 3, "files have their own rows");
	profile_release(&p);
}

static void test_bounds(void)
{
	const struct profile_breakdown *t;
	static const struct call one = { "write", 1, 10, 10, 100, 0 };
	static const struct call rd = { "read", 1, 10, 10, 100, 0 };
	struct profile p;
	char name[16];
	uint32_t k = 0;
	int i;

	fresh(&p);
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "t%d", i);
		k = tag(&p, name);
		add(&p, &one, -1, -1, k);
	}
	t = profile_breakdown(&p, &dim_tag);
	is_int(t->nkeys, 4, "tags capped at max_keys");
	is_str(((const struct tag *)profile_key(t, k))->name, "(other tags)",
	       "the rest share the other key");
	is_int(k, 3, "which is the last one");
	is_int(profile_sub_find(t, 3, PROFILE_KEY_NONE,
				t->subs[0].row)->calls, 7,
	       "its row has the calls of the 7 tags past the bound");
	add(&p, &rd, -1, -1, 0);
	add(&p, &rd, -1, -1, 1);
	add(&p, &rd, -1, -1, 2);
	add(&p, &rd, -1, -1, 2);
	is_int(t->nsubs, 7, "past max_subs, one row per syscall more");
	is_int(t->subs[6].key, 3, "in the other key");
	is_int(t->subs[6].calls, 2, "with the calls that found no room");
	profile_release(&p);
}

/* Many keys: the hash index finds each after it grew. */
static void test_index(void)
{
	struct profile_dim wide = dim_tag;
	const struct profile_dim *const table[] = { &wide, NULL };
	struct profile_breakdown *b;
	struct profile p;
	struct tag t;
	int i, found = 0;

	wide.max_keys = 1000;
	profile_init(&p);
	profile_set_dims(&p, table);
	b = profile_breakdown_rw(&p, &wide);
	for (i = 0; i < 600; i++) {
		memset(&t, 0, sizeof(t));
		snprintf(t.name, sizeof(t.name), "k%d", i);
		profile_key_get(b, &t);
	}
	for (i = 0; i < 600; i++) {
		memset(&t, 0, sizeof(t));
		snprintf(t.name, sizeof(t.name), "k%d", i);
		found += profile_key_find(b, &t) == i;
	}
	is_int(found, 600, "600 keys, each found at its index");
	snprintf(t.name, sizeof(t.name), "absent");
	is_int(profile_key_find(b, &t), -1, "an absent key is not found");
	profile_release(&p);
}

static char *render(const struct profile *p, enum report_format fmt)
{
	struct report_opts o = { .format = fmt, .findings = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_render(f, p, &o);
	fclose(f);
	return buf;
}

static int load(struct profile *q, const struct profile_dim *const *table,
		const char *json, struct load_error *e)
{
	profile_init(q);
	profile_set_dims(q, table);
	return profile_from_json(q, json, strlen(json), e);
}

static void test_json(void)
{
	struct load_error e = { 0, "" };
	struct profile p, q;
	char *j1, *j2, *t1, *t2;

	sample(&p);
	j1 = render(&p, FMT_JSON);
	ok(strstr(j1, "\"breakdowns\": {\n    \"tag\": {\n      \"keys\": [") &&
	   strstr(j1, "\"key\": 1,\n          \"key2\": null,"),
	   "the tag dimension under breakdowns.tag, rows naming key, key2");
	is_int(load(&q, dims, j1, &e), 0, "loads (%s)", e.msg);
	j2 = render(&q, FMT_JSON);
	is_str(j2, j1, "save -> load -> save is identical");
	t1 = render(&p, FMT_TABLE);
	t2 = render(&q, FMT_TABLE);
	is_str(t2, t1, "and the report prints the same");
	is_int(profile_breakdown(&q, &dim_tag)->first[1], 4,
	       "links rebuilt as the run made them");
	free(j2);
	profile_release(&q);
	is_int(load(&q, NULL, j1, &e), 0,
	       "a profile without the dimension loads it too (%s)", e.msg);
	ok(profile_files(&q)->nsubs == 3 && !profile_breakdown(&q,
	   &dim_tag)->nkeys, "files kept, the unknown dimension ignored");
	free(j1);
	free(t1);
	free(t2);
	profile_release(&q);
	profile_release(&p);
}

/* The sample's JSON with the first `from` replaced by `to`. */
static char *mutate(const char *json, const char *from, const char *to)
{
	const char *at = strstr(json, from);
	size_t head = (size_t)(at - json);
	char *out = malloc(strlen(json) + strlen(to) + 1);

	memcpy(out, json, head);
	memcpy(out + head, to, strlen(to));
	memcpy(out + head + strlen(to), at + strlen(from),
	       strlen(at + strlen(from)) + 1);
	return out;
}

static const struct {
	const char *from, *to, *want;
} mutations[] = {
	{ "\"name\": \"ptrace\"", "\"name\": \"fast\"",
	  "breakdowns.tag.keys[1]: same name as keys[0]" },
	{ "\"key\": 1,", "\"key\": 2,",
	  "breakdowns.tag.rows[1].key: no such tag: 2 (2 in keys)" },
	{ "\"rows\": [", "\"rowz\": [", "breakdowns.tag.rows: missing" },
	{ "\"tag\": {", "\"tag\": [], \"x\": {",
	  "breakdowns.tag: expected an object, got an array" },
	{ "\"name\": \"fast\"", "\"nom\": \"fast\"",
	  "breakdowns.tag.keys[0].name: missing" },
	{ "\"breakdowns\": {", "\"breakdowns\": 1, \"x\": {",
	  "breakdowns: expected an object, got an integer" },
};

static void test_bad_json(void)
{
	struct load_error e;
	struct profile p, q;
	char *j, *m;
	size_t i;

	sample(&p);
	j = render(&p, FMT_JSON);
	for (i = 0; i < sizeof(mutations) / sizeof(mutations[0]); i++) {
		e = (struct load_error){ 0, "" };
		m = mutate(j, mutations[i].from, mutations[i].to);
		ok(load(&q, dims, m, &e) == -1 &&
		   strstr(e.msg, mutations[i].want) &&
		   !profile_breakdown(&q, &dim_tag)->nkeys,
		   "refused: %s", e.msg);
		profile_release(&q);
		free(m);
	}
	free(j);
	profile_release(&p);
}

static const char section[] =
	"\n"
	"syscall     calls    errors     seconds        bytes  tag\n"
	"read            4         0    0.006000          300  ptrace\n"
	"splice          2         0    0.005000       131072  fast\n"
	"write           4         0    0.004000        16384  fast\n"
	"write           1         1    0.000500            0  ptrace\n"
	"getpid          2         0    0.000200            -  ptrace\n";

static void test_report(void)
{
	struct report_opts o = { .format = FMT_TABLE };
	char *text = NULL;
	size_t len = 0;
	struct profile p;
	FILE *f;

	sample(&p);
	f = open_memstream(&text, &len);
	breakdown_render_one(f, &p, profile_breakdown(&p, &dim_tag), &o);
	fclose(f);
	is_str(text, section, "the generic section, most time first");
	free(text);
	text = render(&p, FMT_TABLE);
	ok(strstr(text, "\nI/O ") && strstr(text, section),
	   "the report has the I/O table and the tag section");
	free(text);
	profile_release(&p);
}

static char *slurp(const char *path)
{
	char *buf = calloc(1, 65536);
	FILE *f = fopen(path, "r");

	if (f && buf)
		buf[fread(buf, 1, 65535, f)] = '\0';
	if (f)
		fclose(f);
	return buf;
}

static void test_csv(void)
{
	const char *dir = getenv("FIXTURES");
	char path[4096], *text, *want;
	struct profile p;

	sample(&p);
	text = render(&p, FMT_CSV_BREAKDOWN);
	snprintf(path, sizeof(path), "%s/csv-breakdown.csv",
		 dir ? dir : "tests/fixtures");
	want = slurp(path);
	is_str(text, want, "--format=csv-breakdown matches %s", path);
	free(text);
	free(want);
	profile_release(&p);
}

int main(void)
{
	test_tables();
	test_aggregation();
	test_bounds();
	test_index();
	test_json();
	test_bad_json();
	test_report();
	test_csv();
	return done_testing();
}
