// SPDX-License-Identifier: MIT
/*
 * Page cache against device over a run: every traced task's own storage
 * accounting at its exit (bytes its calls moved, rchar and wchar; bytes
 * the kernel counted as bound for storage, read_bytes and write_bytes;
 * dirty pages it truncated away, cancelled), summed, and the machine's
 * dirty and writeback memory before and after, so the findings can say
 * how much of what was written was still in memory when the run ended.
 * Also the "storage" key of the JSON profile, both ways: added within
 * "iotrace/1", optional on load (absent or null: not known).
 */
#include <string.h>
#include "profile/jload.h"

void profile_storage_exit(struct profile *p, const struct tracer_task_exit *x)
{
	struct profile_storage *s = &p->storage;

	s->tasks++;
	if (!x->io_known)
		return;
	s->tasks_io++;
	s->rchar += x->rchar;
	s->wchar += x->wchar;
	s->read_bytes += x->read_bytes;
	s->write_bytes += x->write_bytes;
	s->cancelled += x->cancelled_write_bytes;
}

void profile_storage_mem(struct profile *p, const struct tracer_meminfo *before,
			 const struct tracer_meminfo *after)
{
	struct profile_storage *s = &p->storage;

	s->mem_known = before->known && after->known;
	if (!s->mem_known)
		return;
	s->dirty_before = before->dirty;
	s->dirty_after = after->dirty;
	s->writeback_before = before->writeback;
	s->writeback_after = after->writeback;
}

bool profile_storage_known(const struct profile *p)
{
	return p->storage.tasks && p->storage.tasks_io == p->storage.tasks;
}

uint64_t profile_storage_unflushed(const struct profile_storage *s)
{
	uint64_t before = s->dirty_before + s->writeback_before;
	uint64_t after = s->dirty_after + s->writeback_after + s->cancelled;

	if (!s->mem_known || after <= before)
		return 0;
	return after - before < s->write_bytes ? after - before
					       : s->write_bytes;
}

/* --- JSON --- */

static const struct {
	const char *key;
	size_t offset;
} fields[] = {
#define F(key, field) { key, offsetof(struct profile_storage, field) }
	F("tasks", tasks),		F("tasks_io", tasks_io),
	F("rchar", rchar),		F("wchar", wchar),
	F("read_bytes", read_bytes),	F("write_bytes", write_bytes),
	F("cancelled_write_bytes", cancelled),
#undef F
}, mem_fields[] = {
#define F(key, field) { key, offsetof(struct profile_storage, field) }
	F("dirty_before", dirty_before),	F("dirty_after", dirty_after),
	F("writeback_before", writeback_before),
	F("writeback_after", writeback_after),
#undef F
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))
#define NMEM (sizeof(mem_fields) / sizeof(mem_fields[0]))

static uint64_t *at(struct profile_storage *s, size_t offset)
{
	return (uint64_t *)((char *)s + offset);
}

/* As json.c: jansson integers are signed; saturate, never wrap. */
static json_t *u64(uint64_t v)
{
	return json_integer(v > INT64_MAX ? INT64_MAX : (json_int_t)v);
}

json_t *storage_to_json(const struct profile *p)
{
	struct profile_storage s = p->storage;
	json_t *o;
	int err = 0;
	size_t i;

	if (!s.tasks && !s.mem_known)
		return json_null();
	o = json_object();
	if (!o)
		return NULL;
	for (i = 0; i < NFIELDS; i++)
		err |= json_object_set_new(o, fields[i].key,
					   u64(*at(&s, fields[i].offset)));
	for (i = 0; s.mem_known && i < NMEM; i++)
		err |= json_object_set_new(o, mem_fields[i].key,
					   u64(*at(&s, mem_fields[i].offset)));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* The memory figures come as a whole or not at all. */
static int load_mem(struct jload *j, json_t *o, struct profile_storage *s)
{
	size_t i;

	if (!json_object_get(o, mem_fields[0].key))
		return 0;
	for (i = 0; i < NMEM; i++)
		if (jload_u64(j, o, mem_fields[i].key,
			      at(s, mem_fields[i].offset)) < 0)
			return -1;
	s->mem_known = true;
	return 0;
}

int load_storage(struct jload *j, struct profile *p, json_t *doc)
{
	struct profile_storage s;
	json_t *o = json_object_get(doc, "storage");
	size_t i;

	if (!o || json_is_null(o))
		return 0;
	o = jload_member(j, doc, "storage", JSON_OBJECT);
	if (!o)
		return -1;
	memset(&s, 0, sizeof(s));
	for (i = 0; i < NFIELDS; i++)
		if (jload_u64(j, o, fields[i].key, at(&s, fields[i].offset)) < 0)
			return -1;
	if (s.tasks_io > s.tasks) {
		jload_push_key(j, "tasks_io");
		return jfail(j, "more than tasks");
	}
	if (load_mem(j, o, &s) < 0)
		return -1;
	jload_pop(j);
	p->storage = s;
	return 0;
}
