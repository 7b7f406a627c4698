// SPDX-License-Identifier: MIT
/*
 * --format=pprof: the call sites (-k) as a pprof profile (profile.proto,
 * gzipped), which `go tool pprof`, Pyroscope, Parca and Grafana read.
 * One sample per (call site, syscall) with two values, calls/count and
 * time/nanoseconds (scaled by --stack-sample's N); its locations are
 * the stack's frames, innermost first, under a leaf "syscall:NAME" so
 * that a syscall's flat figures are the table's.  One location per
 * distinct frame, one function per (name, object), one mapping per
 * object, strings once: the encoding is protobuf-c's (pprof.proto,
 * compiled at build time), the compression zlib's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "build/gen/pprof.pb-c.h"
#include "render/render.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__ValueType ValueType;

/* A map of exact 64-bit keys to indexes (open addressing, never full). */
struct idmap {
	uint64_t *keys;
	uint32_t *vals;		/* index + 1; 0: empty */
	size_t cap;		/* a power of two */
};

static int idmap_init(struct idmap *m, size_t n)
{
	for (m->cap = 64; m->cap < 2 * n; m->cap *= 2)
		;
	m->keys = calloc(m->cap, sizeof(*m->keys));
	m->vals = calloc(m->cap, sizeof(*m->vals));
	return m->keys && m->vals ? 0 : -ENOMEM;
}

static void idmap_release(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
}

/* The slot of key: holding it, or empty. */
static size_t idmap_slot(const struct idmap *m, uint64_t key)
{
	size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & (m->cap - 1);

	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* Everything the profile message points at, in arrays sized once. */
struct pp {
	const struct profile *p;
	Profile msg;
	char **strings;
	struct idmap by_string;	/* string hash -> index (chained below) */
	Function *functions, **function_ptrs;
	struct idmap by_function;	/* name << 32 | file -> index */
	Location *locations, **location_ptrs;
	Line *lines, **line_ptrs;
	struct idmap by_location;	/* function << 32 | offset -> index */
	Mapping *mappings, **mapping_ptrs;
	struct idmap by_mapping;	/* file string -> index */
	Sample *samples, **sample_ptrs;
	uint64_t *location_ids;
	int64_t *values;
	ValueType types[2], *type_ptrs[2], period;
};

/* The index of s in the string table, added when absent; -1: ENOMEM. */
static int64_t string_id(struct pp *x, const char *s)
{
	uint64_t h = profile_hash_bytes(0, s, strlen(s));
	size_t i;

	for (;; h++) {	/* another string with the same hash: next key */
		i = idmap_slot(&x->by_string, h);
		if (!x->by_string.vals[i])
			break;
		if (!strcmp(x->strings[x->by_string.vals[i] - 1], s))
			return x->by_string.vals[i] - 1;
	}
	x->strings[x->msg.n_string_table] = strdup(s);
	if (!x->strings[x->msg.n_string_table])
		return -1;
	x->by_string.keys[i] = h;
	x->by_string.vals[i] = (uint32_t)++x->msg.n_string_table;
	return (int64_t)x->msg.n_string_table - 1;
}

static uint64_t mapping_id(struct pp *x, int64_t file)
{
	size_t i = idmap_slot(&x->by_mapping, (uint64_t)file);
	Mapping *m;

	if (x->by_mapping.vals[i])
		return x->by_mapping.vals[i];
	m = &x->mappings[x->msg.n_mapping];
	perftools__profiles__mapping__init(m);
	m->id = x->msg.n_mapping + 1;
	m->filename = file;
	m->has_functions = true;
	x->mapping_ptrs[x->msg.n_mapping++] = m;
	x->by_mapping.keys[i] = (uint64_t)file;
	x->by_mapping.vals[i] = (uint32_t)m->id;
	return m->id;
}

static uint64_t function_id(struct pp *x, int64_t name, int64_t file)
{
	uint64_t key = (uint64_t)name << 32 | (uint64_t)file;
	size_t i = idmap_slot(&x->by_function, key);
	Function *fn;

	if (x->by_function.vals[i])
		return x->by_function.vals[i];
	fn = &x->functions[x->msg.n_function];
	perftools__profiles__function__init(fn);
	fn->id = x->msg.n_function + 1;
	fn->name = fn->system_name = name;
	fn->filename = file;
	x->function_ptrs[x->msg.n_function++] = fn;
	x->by_function.keys[i] = key;
	x->by_function.vals[i] = (uint32_t)fn->id;
	return fn->id;
}

/* The location of a frame (name in object at offset); 0: ENOMEM. */
static uint64_t location_id(struct pp *x, const char *name,
			    const char *object, uint32_t offset)
{
	int64_t n = string_id(x, name), file = string_id(x, object);
	uint64_t fn, key;
	Location *l;
	size_t i;

	if (n < 0 || file < 0)
		return 0;
	fn = function_id(x, n, file);
	key = fn << 32 | offset;
	i = idmap_slot(&x->by_location, key);
	if (x->by_location.vals[i])
		return x->by_location.vals[i];
	l = &x->locations[x->msg.n_location];
	perftools__profiles__location__init(l);
	perftools__profiles__line__init(&x->lines[x->msg.n_location]);
	l->id = x->msg.n_location + 1;
	l->mapping_id = mapping_id(x, file);
	l->address = offset;
	x->lines[x->msg.n_location].function_id = fn;
	x->line_ptrs[x->msg.n_location] = &x->lines[x->msg.n_location];
	l->n_line = 1;
	l->line = &x->line_ptrs[x->msg.n_location];
	x->location_ptrs[x->msg.n_location++] = l;
	x->by_location.keys[i] = key;
	x->by_location.vals[i] = (uint32_t)l->id;
	return l->id;
}

/* One sample: the frames of the site's key, under its syscall. */
static int add_sample(struct pp *x, const struct profile_sub *s,
		      uint64_t *ids, int64_t *values)
{
	const struct profile_callsite *c =
		profile_key(profile_callsites(x->p), s->key);
	uint64_t scale = x->p->stack_sample > 1 ? x->p->stack_sample : 1;
	char name[PROFILE_LABEL_MAX], row[PROFILE_ROW_LABEL_MAX];
	Sample *sm = &x->samples[x->msg.n_sample];
	struct profile_frame f;
	size_t n = 0;
	unsigned i;

	perftools__profiles__sample__init(sm);
	snprintf(name, sizeof(name), "syscall:%s", profile_row_label(
		 &x->p->rows[s->row], row, sizeof(row)));
	ids[n++] = location_id(x, name, "", 0);
	for (i = 0; i < c->nframes; i++) {
		f = profile_callsite_frame(c, i);
		if (f.function)
			snprintf(name, sizeof(name), "%s", f.function);
		else if (f.object[0])
			snprintf(name, sizeof(name), "%s+0x%x",
				 profile_object_name(f.object), f.offset);
		else
			snprintf(name, sizeof(name), "[unknown]");
		ids[n++] = location_id(x, name, f.object,
				       f.function ? f.offset : 0);
	}
	for (i = 0; i < n; i++)
		if (!ids[i])
			return -ENOMEM;
	values[0] = (int64_t)(s->calls * scale);
	values[1] = (int64_t)profile_site_time(x->p, &x->p->rows[s->row],
					       s->calls, s->time_ns,
					       x->p->rows[s->row].time_ns);
	sm->n_location_id = n;
	sm->location_id = ids;
	sm->n_value = 2;
	sm->value = values;
	x->sample_ptrs[x->msg.n_sample++] = sm;
	return 0;
}

/* Sizes every array for the sub-rows of b: at most one of each per frame. */
static int pp_alloc(struct pp *x, const struct profile_breakdown *b)
{
	size_t frames = 0, i;

	for (i = 0; i < b->nsubs; i++)
		frames += ((const struct profile_callsite *)profile_key(
			b, b->subs[i].key))->nframes + 1;
	x->strings = calloc(2 * frames + 8, sizeof(*x->strings));
	x->functions = calloc(frames, sizeof(*x->functions));
	x->function_ptrs = calloc(frames, sizeof(*x->function_ptrs));
	x->locations = calloc(frames, sizeof(*x->locations));
	x->location_ptrs = calloc(frames, sizeof(*x->location_ptrs));
	x->lines = calloc(frames, sizeof(*x->lines));
	x->line_ptrs = calloc(frames, sizeof(*x->line_ptrs));
	x->mappings = calloc(frames, sizeof(*x->mappings));
	x->mapping_ptrs = calloc(frames, sizeof(*x->mapping_ptrs));
	x->samples = calloc(b->nsubs + 1, sizeof(*x->samples));
	x->sample_ptrs = calloc(b->nsubs + 1, sizeof(*x->sample_ptrs));
	x->location_ids = calloc(frames, sizeof(*x->location_ids));
	x->values = calloc(2 * b->nsubs + 2, sizeof(*x->values));
	if (!x->strings || !x->functions || !x->function_ptrs ||
	    !x->locations || !x->location_ptrs || !x->lines ||
	    !x->line_ptrs || !x->mappings || !x->mapping_ptrs ||
	    !x->samples || !x->sample_ptrs || !x->location_ids ||
	    !x->values || idmap_init(&x->by_string, 2 * frames + 8) < 0 ||
	    idmap_init(&x->by_function, frames) < 0 ||
	    idmap_init(&x->by_location, frames) < 0 ||
	    idmap_init(&x->by_mapping, frames) < 0)
		return -ENOMEM;
	return 0;
}

static void pp_release(struct pp *x)
{
	size_t i;

	for (i = 0; x->strings && i < x->msg.n_string_table; i++)
		free(x->strings[i]);
	free(x->strings);
	free(x->functions);
	free(x->function_ptrs);
	free(x->locations);
	free(x->location_ptrs);
	free(x->lines);
	free(x->line_ptrs);
	free(x->mappings);
	free(x->mapping_ptrs);
	free(x->samples);
	free(x->sample_ptrs);
	free(x->location_ids);
	free(x->values);
	idmap_release(&x->by_string);
	idmap_release(&x->by_function);
	idmap_release(&x->by_location);
	idmap_release(&x->by_mapping);
}

/* The header: sample types, period, times; strings 0 ("") first. */
static int pp_header(struct pp *x)
{
	static const char *const names[2][2] = { { "calls", "count" },
						 { "time", "nanoseconds" } };
	int64_t ids[4];
	size_t i;

	if (string_id(x, "") < 0)
		return -ENOMEM;
	for (i = 0; i < 4; i++) {
		ids[i] = string_id(x, names[i / 2][i % 2]);
		if (ids[i] < 0)
			return -ENOMEM;
	}
	for (i = 0; i < 2; i++) {
		perftools__profiles__value_type__init(&x->types[i]);
		x->types[i].type = ids[2 * i];
		x->types[i].unit = ids[2 * i + 1];
		x->type_ptrs[i] = &x->types[i];
	}
	x->period = x->types[0];
	x->msg.n_sample_type = 2;
	x->msg.sample_type = x->type_ptrs;
	x->msg.period_type = &x->period;
	x->msg.period = x->p->stack_sample > 1 ? x->p->stack_sample : 1;
	x->msg.default_sample_type = ids[0];
	x->msg.time_nanos = (int64_t)x->p->start_time * 1000000000;
	x->msg.duration_nanos = (int64_t)x->p->wall_ns;
	return 0;
}

/* The message, gzipped, to f. */
static int write_gzip(FILE *f, const uint8_t *data, size_t len)
{
	unsigned char out[16384];
	z_stream z;
	int ret;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)len;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = deflate(&z, Z_FINISH);
		if (fwrite(out, 1, sizeof(out) - z.avail_out, f) !=
		    sizeof(out) - z.avail_out)
			ret = Z_ERRNO;
	} while (ret == Z_OK);
	deflateEnd(&z);
	return ret == Z_STREAM_END ? 0 : -EIO;
}

static int pp_build(struct pp *x, const struct profile_breakdown *b)
{
	uint64_t *ids;
	size_t i;

	if (pp_alloc(x, b) < 0 || pp_header(x) < 0)
		return -ENOMEM;
	ids = x->location_ids;
	for (i = 0; i < b->nsubs; i++) {
		if (add_sample(x, &b->subs[i], ids, x->values + 2 * i) < 0)
			return -ENOMEM;
		ids += x->sample_ptrs[i]->n_location_id;
	}
	x->msg.sample = x->sample_ptrs;
	x->msg.string_table = x->strings;
	x->msg.function = x->function_ptrs;
	x->msg.location = x->location_ptrs;
	x->msg.mapping = x->mapping_ptrs;
	return 0;
}

int pprof_render(FILE *f, const struct profile *p,
		 const struct report_opts *o)
{
	struct pp x;
	uint8_t *buf = NULL;
	size_t len;
	int err;

	(void)o;
	memset(&x, 0, sizeof(x));
	x.p = p;
	perftools__profiles__profile__init(&x.msg);
	err = pp_build(&x, profile_callsites(p));
	if (!err) {
		len = perftools__profiles__profile__get_packed_size(&x.msg);
		buf = malloc(len ? len : 1);
		err = buf ? 0 : -ENOMEM;
	}
	if (!err) {
		perftools__profiles__profile__pack(&x.msg, buf);
		err = write_gzip(f, buf, len);
	}
	free(buf);
	pp_release(&x);
	return err < 0 || ferror(f) ? -1 : 0;
}
