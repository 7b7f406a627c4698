// SPDX-License-Identifier: MIT
/*
 * The process and thread dimensions (-P, --per-thread): which process,
 * which thread made each call, so a pipeline's two sides and a program's
 * threads are rows apart.  A key (struct profile_task) is a tgid or a
 * tid; its comm, command word and a process's storage accounting
 * describe it, so they may change after the key is made: a process is
 * first seen at a call (its comm then, from /proc) and renamed at its
 * exit, after any execve.  The fast path's aggregates are per process
 * (tracer_aggregate.tgid) and go to the process dimension only:
 * --per-thread turns the fast path off.  Aggregation and bounds are
 * breakdown.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "profile/jload.h"

#define OTHER_PROCESSES "(other processes)"
#define OTHER_THREADS "(other threads)"
#define COMM_MAX 15	/* TASK_COMM_LEN - 1: longer names are cut */

/* --- the key type: one for both dimensions, compared by id --- */

static int task_cmp(const void *a, const void *b)
{
	const struct profile_task *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static uint64_t task_hash(const void *key)
{
	const struct profile_task *t = key;

	return profile_hash_bytes(0, &t->id, sizeof(t->id));
}

static void process_other(void *key)
{
	struct profile_task *t = key;

	snprintf(t->comm, sizeof(t->comm), "%s", "");
	t->id = 0;
}

/*
 * The name people know a process by: its comm, or the command word when
 * the comm is that word cut to COMM_MAX bytes.
 */
static const char *task_name(const struct profile_task *t)
{
	if (strlen(t->comm) == COMM_MAX && !strncmp(t->cmd, t->comm, COMM_MAX))
		return t->cmd;
	return t->comm;
}

/* "writer[1234]", with the command word when it says something more. */
static void process_label(char *buf, size_t size, const void *key)
{
	const struct profile_task *t = key;
	const char *name = task_name(t);

	if (!t->id)
		snprintf(buf, size, "%s", OTHER_PROCESSES);
	else if (t->cmd[0] && strcmp(t->cmd, name))
		snprintf(buf, size, "%s[%d] (%s)", name, (int)t->id, t->cmd);
	else
		snprintf(buf, size, "%s[%d]", name, (int)t->id);
}

/* "worker[1236] of 1234" for a thread that is not its process's first. */
static void thread_label(char *buf, size_t size, const void *key)
{
	const struct profile_task *t = key;

	if (!t->id)
		snprintf(buf, size, "%s", OTHER_THREADS);
	else if (t->tgid && t->tgid != t->id)
		snprintf(buf, size, "%s[%d] of %d", t->comm, (int)t->id,
			 (int)t->tgid);
	else
		snprintf(buf, size, "%s[%d]", t->comm, (int)t->id);
}

/* The storage counters, as data: JSON keys both ways. */
#define IOC(field) { #field, offsetof(struct profile_task, field) }
static const struct {
	const char *name;
	size_t offset;
} io_counters[] = {
	IOC(rchar), IOC(wchar), IOC(read_bytes), IOC(write_bytes),
	{ "cancelled_write_bytes", offsetof(struct profile_task, cancelled) },
};
#define NIO (sizeof(io_counters) / sizeof(io_counters[0]))

static uint64_t *io_field(struct profile_task *t, size_t i)
{
	return (uint64_t *)((char *)t + io_counters[i].offset);
}

/* "io": what the threads that exited said; absent when none did. */
static json_t *io_save(const struct profile_task *t)
{
	json_t *o = json_object();
	int err = 0;
	size_t i;

	if (!o)
		return NULL;
	err |= json_object_set_new(o, "threads_exited",
				   json_integer(t->threads_exited));
	err |= json_object_set_new(o, "threads_read",
				   json_integer(t->threads_io));
	for (i = 0; i < NIO; i++)
		err |= json_object_set_new(o, io_counters[i].name, json_integer(
			(json_int_t)*io_field((struct profile_task *)t, i)));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *task_save(const void *key)
{
	const struct profile_task *t = key;
	json_t *o = json_object();
	int err = 0;

	if (!o)
		return NULL;
	err |= json_object_set_new(o, "id", json_integer(t->id));
	err |= json_object_set_new(o, "tgid", json_integer(t->tgid));
	err |= json_object_set_new(o, "comm", json_string(t->comm));
	if (t->cmd[0])
		err |= json_object_set_new(o, "cmd", json_string(t->cmd));
	if (t->threads_exited)
		err |= json_object_set_new(o, "io", io_save(t));
	if (err) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int id_of(struct jload *j, json_t *o, const char *key, int32_t *out)
{
	uint64_t v;

	if (jload_u64(j, o, key, &v) < 0)
		return -1;
	if (v > INT32_MAX) {
		jload_push_key(j, key);
		return jfail(j, "must be 0 to %d", INT32_MAX);
	}
	*out = (int32_t)v;
	return 0;
}

static int count_of(struct jload *j, json_t *o, const char *key,
		    uint32_t *out)
{
	int32_t v = 0;

	if (id_of(j, o, key, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int io_load(struct jload *j, json_t *o, struct profile_task *t)
{
	json_t *io;
	size_t i;

	if (!json_object_get(o, "io"))
		return 0;
	io = jload_member(j, o, "io", JSON_OBJECT);
	if (!io || count_of(j, io, "threads_exited", &t->threads_exited) < 0 ||
	    count_of(j, io, "threads_read", &t->threads_io) < 0)
		return -1;
	for (i = 0; i < NIO; i++)
		if (jload_u64(j, io, io_counters[i].name, io_field(t, i)) < 0)
			return -1;
	jload_pop(j);
	return 0;
}

/* Names are printed: controls made '?', as the tracer's are. */
static int task_load(struct jload *j, json_t *o, void *key)
{
	struct profile_task *t = key;

	if (id_of(j, o, "id", &t->id) < 0 || id_of(j, o, "tgid", &t->tgid) < 0 ||
	    jload_string(j, o, "comm", t->comm, sizeof(t->comm)) < 0)
		return -1;
	if (json_object_get(o, "cmd") &&
	    jload_string(j, o, "cmd", t->cmd, sizeof(t->cmd)) < 0)
		return -1;
	profile_clean_text(t->comm, true);
	profile_clean_text(t->cmd, true);
	return io_load(j, o, t);
}

/* The two rows differ in their words and labels only: one key, a task. */
#define TASK_DIM(nm, pl, id, lbl)					\
	{								\
		.name = nm, .plural = pl, .identity = id,		\
		.key_size = sizeof(struct profile_task),		\
		.max_keys = PROFILE_TASKS_MAX,				\
		.max_subs = PROFILE_TASK_SUBS,				\
		.cmp = task_cmp, .hash = task_hash,			\
		.other = process_other, .label = lbl,			\
		.save = task_save, .load = task_load,			\
	}

const struct profile_dim profile_dim_process =
	TASK_DIM("process", "processes", "process id", process_label);
const struct profile_dim profile_dim_thread =
	TASK_DIM("thread", "threads", "thread id", thread_label);

/* --- events to keys --- */

/*
 * The key of task id (of process tgid), made when first seen with the
 * comm /proc shows now (p->task_comm, the sink's); -ENOMEM.
 */
static int task_key(const struct profile *p, struct profile_breakdown *b,
		    int32_t id, int32_t tgid)
{
	struct profile_task t;
	int i;

	memset(&t, 0, sizeof(t));
	t.id = id;
	i = profile_key_find(b, &t);
	if (i >= 0)
		return i;
	t.tgid = tgid;
	if (p->task_comm)
		p->task_comm(tgid, id, t.comm, sizeof(t.comm));
	profile_clean_text(t.comm, true);
	return profile_key_get(b, &t);
}

static int add_event(struct profile *p, const struct profile_dim *dim,
		     int32_t id, const struct tracer_event *ev)
{
	struct profile_breakdown *b = profile_breakdown_rw(p, dim);
	struct profile_row *r;
	int key;

	if ((ev->flags & EVF_HIDDEN) || !b || id <= 0)
		return 0;
	r = profile_event_row(p, ev);
	key = r ? task_key(p, b, id, ev->tgid) : -ENOMEM;
	if (key < 0)
		return -ENOMEM;
	return profile_sub_add(p, b, (uint32_t)(r - p->rows), (uint32_t)key,
			       PROFILE_KEY_NONE, ev);
}

int profile_add_process(struct profile *p, const struct tracer_event *ev)
{
	return add_event(p, &profile_dim_process, ev->tgid, ev);
}

int profile_add_thread(struct profile *p, const struct tracer_event *ev)
{
	return add_event(p, &profile_dim_thread, ev->tid, ev);
}

int profile_add_process_aggregate(struct profile *p,
				  const struct tracer_aggregate *a)
{
	struct profile_breakdown *b =
		profile_breakdown_rw(p, &profile_dim_process);
	struct tracer_event ev;
	struct profile_sub *s;
	struct profile_row *r;
	int key;

	if (!b || a->file || a->tgid <= 0)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.arch = a->arch;
	ev.nr = a->nr;
	r = profile_event_row(p, &ev);
	key = r ? task_key(p, b, a->tgid, a->tgid) : -ENOMEM;
	if (key < 0)
		return -ENOMEM;
	s = profile_sub_get(b, (uint32_t)key, PROFILE_KEY_NONE,
			    (uint32_t)(r - p->rows));
	if (!s)
		return -ENOMEM;
	profile_sub_add_share(s, a);
	return 0;
}

/* The key of id in dim, to describe further; NULL when it has none. */
static struct profile_task *task_rw(struct profile *p,
				    const struct profile_dim *dim, int32_t id,
				    int32_t tgid)
{
	struct profile_breakdown *b = profile_breakdown_rw(p, dim);
	int i;

	if (!b || id <= 0)
		return NULL;
	i = task_key(p, b, id, tgid);
	if (i < 0)
		return NULL;
	return (struct profile_task *)(b->keys + (size_t)i * dim->key_size);
}

static void add_io(struct profile_task *t, const struct tracer_task_exit *x)
{
	t->threads_exited++;
	if (!x->io_known)
		return;
	t->threads_io++;
	t->rchar += x->rchar;
	t->wchar += x->wchar;
	t->read_bytes += x->read_bytes;
	t->write_bytes += x->write_bytes;
	t->cancelled += x->cancelled_write_bytes;
}

/* Names at exit are the final ones (after execve): they replace. */
static void rename_task(struct profile_task *t, const char *comm,
			const char *cmd)
{
	if (comm[0]) {
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
		profile_clean_text(t->comm, true);
	}
	if (cmd && cmd[0]) {
		snprintf(t->cmd, sizeof(t->cmd), "%s", cmd);
		profile_clean_text(t->cmd, true);
	}
}

void profile_process_exit(struct profile *p, const struct tracer_task_exit *x)
{
	struct profile_task *t = task_rw(p, &profile_dim_process, x->tgid,
					 x->tgid);

	/* Past the bound: the other key has no one process's io. */
	if (!t || !t->id)
		return;
	add_io(t, x);
	if (x->tid == x->tgid)
		rename_task(t, x->comm, x->cmd);
}

void profile_thread_exit(struct profile *p, const struct tracer_task_exit *x)
{
	struct profile_task *t = task_rw(p, &profile_dim_thread, x->tid,
					 x->tgid);

	if (!t || !t->id)
		return;
	add_io(t, x);
	rename_task(t, x->comm, NULL);
}
