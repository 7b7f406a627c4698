// SPDX-License-Identifier: MIT
/*
 * The call-site dimension (-k) without a tracee: the tracer's stack
 * table (interning), keys built from frames (cut when full), events
 * counted per stack through the id cache, the Call sites section
 * against golden text (sites that print the same merged, the shared
 * root and the C library's wrapper left out, a stripped object as
 * object+offset, a truncated stack), folded stacks, the finding's
 * dominant site, --stack-sample's scaling, the JSON round trip, and
 * the pprof profile read back with zlib and protobuf-c.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "build/gen/pprof.pb-c.h"
#include "profile/jload.h"
#include "render/render.h"
#include "tap.h"

#define LIBC "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define APP "/opt/app/bin/app"

/* Frames innermost first: "fn@object+offset", fn "" for none. */
static size_t frames_of(struct tracer_frame *f, const char *const *spec)
{
	static char text[TRACER_STACK_MAX][128];
	char *at, *plus;
	size_t n;

	for (n = 0; spec[n]; n++) {
		snprintf(text[n], sizeof(text[n]), "%s", spec[n]);
		at = strchr(text[n], '@');
		plus = strrchr(text[n], '+');
		*at = *plus = '\0';
		f[n].function = text[n][0] ? text[n] : NULL;
		f[n].object = at + 1;
		f[n].offset = strtoull(plus + 1, NULL, 16);
	}
	return n;
}

static uint32_t stack(struct tracer_stacks *st, bool truncated,
		      const char *const *spec)
{
	struct tracer_frame f[TRACER_STACK_MAX];
	size_t n = frames_of(f, spec);

	return tracer_stacks_intern(st, f, n, truncated);
}

/* n calls of syscall name with stack id, each ns long. */
static void calls(struct profile *p, struct profile_stack_cache *c,
		  const struct tracer_stacks *st, const char *name, int n,
		  uint32_t id, uint64_t ns)
{
	struct tracer_event ev = {
		.tid = 1, .tgid = 1, .arch = p->native_arch,
		.nr = syscall_number(name), .ret = 1, .entry_ns = 1000,
		.exit_ns = 1000 + ns, .stack_id = id,
	};

	ev.args[2] = 1;
	while (n--) {
		profile_add(p, &ev);
		profile_add_callsite(p, c, tracer_stacks_get(st, id), &ev);
	}
}

static const char *const emit[] = {
	"write@" LIBC "+10", "emit_byte@" APP "+1b", "work@" APP "+b",
	"main@" APP "+6a", "__libc_start_main@" LIBC "+80", "_start@" APP "+25",
	NULL };
static const char *const flush1[] = {
	"write@" LIBC "+10", "flush_log@" APP "+1b", "work@" APP "+15",
	"main@" APP "+6a", "__libc_start_main@" LIBC "+80", "_start@" APP "+25",
	NULL };
static const char *const flush2[] = {	/* another call of flush_log */
	"write@" LIBC "+10", "flush_log@" APP "+1b", "work@" APP "+1a",
	"main@" APP "+6a", "__libc_start_main@" LIBC "+80", "_start@" APP "+25",
	NULL };
static const char *const stripped[] = {
	"write@" LIBC "+10", "@/usr/lib/libz.so.1+2840",
	"@/usr/lib/libz.so.1+1f00",
	"main@" APP "+70", "__libc_start_main@" LIBC "+80", "_start@" APP "+25",
	NULL };
static const char *const broken[] = {
	"read@" LIBC "+12", "load@" APP "+9", "@+0", NULL };

static void test_stack_table(void)
{
	struct tracer_stacks *st = tracer_stacks_new();
	uint32_t a = stack(st, false, emit), b = stack(st, false, flush1);
	const struct tracer_stack *s;

	is_int(a, 1, "the first stack is id 1");
	is_int(b, 2, "another stack, another id");
	is_int(stack(st, false, emit), 1, "the same frames, the same id");
	is_int(stack(st, true, emit), 3, "truncated is part of a stack");
	s = tracer_stacks_get(st, a);
	ok(s && s->nframes == 6 && !strcmp(s->frames[1].function, "emit_byte")
	   && s->frames[1].offset == 0x1b, "its frames are kept, copied");
	ok(!tracer_stacks_get(st, 0) && !tracer_stacks_get(st, 9),
	   "no stack for id 0 or past the last");
	is_int((int)tracer_stacks_count(st), 3, "three stacks");
	tracer_stacks_free(st);
}

static void test_key(void)
{
	struct profile_frame f[PROFILE_FRAMES_MAX] = { { 0 } };
	struct profile_callsite *c = calloc(1, sizeof(*c));
	char name[300], label[PROFILE_LABEL_MAX];
	struct profile_frame g;
	unsigned i;

	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (i = 0; i < PROFILE_FRAMES_MAX; i++)
		f[i] = (struct profile_frame){ name, APP, i };
	profile_callsite_set(c, f, PROFILE_FRAMES_MAX, false);
	ok(c->flags & PCS_CUT, "frames that do not fit are cut");
	is_int(c->nframes, 5, "as many as fit are kept, innermost first");
	g = profile_callsite_frame(c, 4);
	ok(!strcmp(g.function, name) && !strcmp(g.object, APP) &&
	   g.offset == 4, "a frame reads back as it was given");
	memset(c, 0, sizeof(*c));
	f[0] = (struct profile_frame){ "write", LIBC, 0x10 };
	f[1] = (struct profile_frame){ NULL, "/usr/lib/libz.so.1", 0x2840 };
	f[2] = (struct profile_frame){ "main", APP, 0x6a };
	profile_callsite_set(c, f, 3, true);
	profile_dim_callsite.label(label, sizeof(label), c);
	is_str(label, "write+0x10 (libc.so.6) <- libz.so.1+0x2840 (libz.so.1)"
	       " <- main+0x6a (app) [truncated]", "a label, with offsets");
	free(c);
}

/* The profile most tests read: write from four stacks, read from one. */
static void sample(struct profile *p, struct tracer_stacks *st)
{
	struct profile_stack_cache c = { NULL, 0 };

	profile_init(p);
	calls(p, &c, st, "write", 300, stack(st, false, emit), 2000);
	calls(p, &c, st, "write", 4, stack(st, false, flush1), 1000);
	calls(p, &c, st, "write", 3, stack(st, false, flush2), 1000);
	calls(p, &c, st, "write", 2, stack(st, false, stripped), 500);
	calls(p, &c, st, "write", 1, TRACER_ID_NONE, 500);
	calls(p, &c, st, "read", 5, stack(st, true, broken), 100);
	profile_stack_cache_release(&c);
}

static char *render(const struct profile *p, struct report_opts *o,
		    int (*fn)(FILE *, const struct profile *,
			      const struct report_opts *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, p, o);
	fclose(f);
	return buf;
}

static const char section[] =
	"\nCall sites (-k): the top 3 stacks of the syscalls with most time, "
	"calls that wait last\n"
	"write  310 calls, 0.000608 s\n"
	"   96.8%         300 calls  0.000600 s  emit_byte <- work (app)\n"
	"    2.3%           7 calls  0.000007 s  flush_log <- work (app)\n"
	"    0.6%           2 calls  0.000001 s  libz.so.1+0x2840 <- "
	"libz.so.1+0x1f00 (libz.so.1)\n"
	"read  5 calls, 0.000000 s\n"
	"  100.0%           5 calls  0.000000 s  load (app) <- [unknown]"
	" [truncated]\n";

static void test_section(void)
{
	struct tracer_stacks *st = tracer_stacks_new();
	struct report_opts o = { .format = FMT_TABLE };
	const struct profile_breakdown *b;
	struct profile p;
	char *text, *site;
	double share;

	sample(&p, st);
	b = profile_callsites(&p);
	is_int((int)b->nkeys, 5, "five call sites");
	is_int((int)profile_sub_find(b, 0, PROFILE_KEY_NONE,
		(uint32_t)(profile_row_find(&p, "write") - p.rows))->calls,
	       300, "300 writes from the first");
	text = render(&p, &o, callsites_render);
	is_str(text, section, "the Call sites section");
	free(text);
	o.top_sites = 1;
	text = render(&p, &o, callsites_render);
	ok(strstr(text, "emit_byte <- work (app)\n"
		  "  (2 more call sites: 9 calls)\n"),
	   "--top-sites 1: the rest summed up");
	free(text);
	share = callsites_dominant(&p, profile_row_find(&p, "write"), &o,
				   &site);
	ok(share == 300.0 / 310 && !strcmp(site, "emit_byte <- work (app)"),
	   "the dominant site, named, its share the section's 96.8%% (300 of "
	   "310 calls, not of the 309 with a stack): %.4f", share);
	free(site);
	p.stack_sample = 10;
	share = callsites_dominant(&p, profile_row_find(&p, "write"), &o,
				   &site);
	ok(share == 1.0, "sampled 1 in 10: scaled, as the section's 100.0%%");
	free(site);
	p.stack_sample = 0;
	profile_release(&p);
	tracer_stacks_free(st);
}

/* Three 199-byte function names: a site longer than any line buffer. */
static void test_long_site(void)
{
	struct tracer_stacks *st = tracer_stacks_new();
	struct profile_stack_cache c = { NULL, 0 };
	struct report_opts o = { .format = FMT_TABLE };
	struct tracer_frame f[5] = {
		{ .function = "write", .object = LIBC, .offset = 0x10 },
	};
	char name[3][200], want[700], *site = NULL, *text = NULL;
	struct profile p;
	size_t len = 0;
	FILE *m;
	int i;

	for (i = 0; i < 3; i++) {
		memset(name[i], 'a' + i, sizeof(name[i]) - 1);
		name[i][sizeof(name[i]) - 1] = '\0';
		f[1 + i] = (struct tracer_frame){ .function = name[i],
						  .object = APP, .offset = 1 };
	}
	f[4] = (struct tracer_frame){ .function = "_start", .object = APP };
	snprintf(want, sizeof(want), "%s <- %s <- %s <- _start (app)",
		 name[0], name[1], name[2]);
	profile_init(&p);
	calls(&p, &c, st, "write", 1000,
	      tracer_stacks_intern(st, f, 5, false), 1000);
	callsites_dominant(&p, profile_row_find(&p, "write"), &o, &site);
	ok(site && strlen(site) > 512 && !strcmp(site, want),
	   "a call site of %zu bytes, whole: %.40s...", strlen(want),
	   site ? site : "(none)");
	free(site);
	m = open_memstream(&text, &len);
	findings_run(m, &p, &o, "tiny-io");
	fclose(m);
	ok(strstr(text, want) && strstr(text, " (app). A 64 KiB buffer"),
	   "... and in the tiny-io finding");
	free(text);
	profile_stack_cache_release(&c);
	profile_release(&p);
	tracer_stacks_free(st);
}

static void test_folded(void)
{
	struct tracer_stacks *st = tracer_stacks_new();
	struct report_opts o = { .format = FMT_TABLE };
	struct profile p;
	char *text;

	sample(&p, st);
	text = render(&p, &o, folded_render);
	is_str(text,
	       "_start;__libc_start_main;main;work;emit_byte;write;write 300\n"
	       "_start;__libc_start_main;main;work;flush_log;write;write 4\n"
	       "_start;__libc_start_main;main;work;flush_log;write;write 3\n"
	       "_start;__libc_start_main;main;libz.so.1+0x1f00;"
	       "libz.so.1+0x2840;write;write 2\n"
	       "[truncated];[unknown];load;read;read 5\n",
	       "folded stacks, root first, the syscall last");
	free(text);
	o.folded_time = true;
	text = render(&p, &o, folded_render);
	ok(strstr(text, "emit_byte;write;write 600000\n"),
	   "--folded-weight=time: nanoseconds");
	free(text);
	p.stack_sample = 10;
	o.folded_time = false;
	text = render(&p, &o, folded_render);
	ok(strstr(text, "emit_byte;write;write 3000\n"),
	   "--stack-sample 10: calls scaled");
	free(text);
	text = render(&p, &o, callsites_render);
	ok(strstr(text, "write  310 calls, 0.000608 s (stacks of 1 call in 10, "
		  "scaled: ~)\n  100.0% ~       310 calls"),
	   "sampled: marked, and never more than the syscall's calls");
	free(text);
	profile_release(&p);
	tracer_stacks_free(st);
}

static char *json_of(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	profile_save_json(f, p);
	fclose(f);
	return buf;
}

static void test_json(void)
{
	struct tracer_stacks *st = tracer_stacks_new();
	struct report_opts o = { .format = FMT_TABLE };
	struct load_error e = { 0, "" };
	struct profile p, q;
	char *j1, *j2, *t1, *t2;

	sample(&p, st);
	p.stack_sample = 4;
	j1 = json_of(&p);
	ok(strstr(j1, "\"function\": \"emit_byte\"") &&
	   strstr(j1, "\"stack_sample\": 4"), "frames and sampling saved");
	profile_init(&q);
	is_int(profile_from_json(&q, j1, strlen(j1), &e), 0, "loaded back");
	j2 = json_of(&q);
	is_str(j2, j1, "the same document again");
	t1 = render(&p, &o, callsites_render);
	t2 = render(&q, &o, callsites_render);
	is_str(t2, t1, "the same section again");
	free(j1);
	free(j2);
	free(t1);
	free(t2);
	profile_release(&q);
	j1 = json_of(&p);
	t1 = strstr(j1, "\"offset\": 16");
	if (t1)
		memcpy(t1 + 10, "-1", 2);	/* 16 -> -1 */
	profile_init(&q);
	ok(profile_from_json(&q, j1, strlen(j1), &e) < 0 &&
	   strstr(e.msg, "offset"), "a bad frame is refused: %s", e.msg);
	free(j1);
	profile_release(&q);
	profile_release(&p);
	tracer_stacks_free(st);
}

/* The profile.proto message of a gzipped buffer; NULL if it is not one. */
static Perftools__Profiles__Profile *unpack(const char *gz, size_t len)
{
	static unsigned char raw[1 << 16];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return NULL;
	z.next_in = (unsigned char *)gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = sizeof(raw);
	ret = inflate(&z, Z_FINISH);
	inflateEnd(&z);
	if (ret != Z_STREAM_END)
		return NULL;
	return perftools__profiles__profile__unpack(NULL, z.total_out, raw);
}

/* The name of the function of location id in m. */
static const char *location_name(const Perftools__Profiles__Profile *m,
				 uint64_t id)
{
	const Perftools__Profiles__Location *l = m->location[id - 1];
	const Perftools__Profiles__Function *f =
		m->function[l->line[0]->function_id - 1];

	return m->string_table[f->name];
}

static void test_pprof(void)
{
	struct tracer_stacks *st = tracer_stacks_new();
	struct report_opts o = { .format = FMT_PPROF };
	Perftools__Profiles__Profile *m;
	const Perftools__Profiles__Sample *s;
	char *gz = NULL;
	size_t len = 0;
	struct profile p;
	FILE *f;

	sample(&p, st);
	f = open_memstream(&gz, &len);
	is_int(pprof_render(f, &p, &o), 0, "a pprof profile written");
	fclose(f);
	m = unpack(gz, len);
	ok(m && m->n_sample == 5 && m->n_sample_type == 2 &&
	   !strcmp(m->string_table[m->sample_type[0]->type], "calls") &&
	   !strcmp(m->string_table[m->sample_type[1]->unit], "nanoseconds"),
	   "gzipped profile.proto: one sample per site, calls and time");
	s = m ? m->sample[0] : NULL;
	ok(s && s->value[0] == 300 && s->value[1] == 600000 &&
	   s->n_location_id == 7 &&
	   !strcmp(location_name(m, s->location_id[0]), "syscall:write") &&
	   !strcmp(location_name(m, s->location_id[2]), "emit_byte") &&
	   !strcmp(location_name(m, s->location_id[6]), "_start"),
	   "a sample: its counts, the syscall, then the frames, leaf first");
	ok(m && m->n_mapping == 4 && m->n_location < 6 * 7,
	   "objects and frames written once");
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(gz);
	profile_release(&p);
	tracer_stacks_free(st);
}

int main(void)
{
	test_stack_table();
	test_key();
	test_section();
	test_long_site();
	test_folded();
	test_json();
	test_pprof();
	return done_testing();
}
