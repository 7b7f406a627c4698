// SPDX-License-Identifier: MIT
/*
 * The profile reads no /proc (scripts/cycles checks it links without
 * procfd/): what the sink found is handed in.  A task first seen is named
 * by p->task_comm (the sink's tracer_task_comm(); here a fake), and by
 * nothing without one; an event's fds name the files the sink's
 * resolver says (profile_add_files()), one per fd argument, asked with
 * the event's task and fd.
 */
#include <stdio.h>
#include <string.h>
#include "profile/profile.h"
#include "tap.h"

static struct tracer_event event(const struct profile *p, const char *name,
				 pid_t tid, int fd)
{
	struct tracer_event ev = {
		.tid = tid, .tgid = tid, .arch = p->native_arch,
		.nr = syscall_number(name), .ret = 1, .entry_ns = 1000,
		.exit_ns = 2000,
	};

	ev.args[0] = (uint64_t)fd;
	ev.args[2] = 1;
	return ev;
}

static int comm_calls;

static void fake_comm(pid_t tgid, pid_t tid, char *buf, size_t size)
{
	comm_calls++;
	snprintf(buf, size, "fake-%d-%d", (int)tgid, (int)tid);
}

static void test_comm(void)
{
	const struct profile_breakdown *b;
	struct tracer_event ev;
	struct profile p;

	profile_init(&p);
	p.task_comm = fake_comm;
	ev = event(&p, "write", 7, 1);
	profile_add(&p, &ev);
	is_int(profile_add_process(&p, &ev), 0, "a process added");
	is_int(profile_add_process(&p, &ev), 0, "the same again");
	b = profile_breakdown(&p, &profile_dim_process);
	is_int(b->nkeys, 1, "one process");
	is_str(profile_task_at(b, 0)->comm, "fake-7-7",
	       "named by the sink's reader");
	is_int(comm_calls, 1, "asked once, when first seen");
	profile_release(&p);

	profile_init(&p);
	ev = event(&p, "write", 8, 1);
	profile_add(&p, &ev);
	profile_add_thread(&p, &ev);
	b = profile_breakdown(&p, &profile_dim_thread);
	is_int(b->nkeys, 1, "one thread without a reader");
	is_str(profile_task_at(b, 0)->comm, "", "and no name");
	profile_release(&p);
}

struct asked {
	pid_t tid[4];
	int fd[4];
	int n;
};

/* fd 3 is /tmp/data, fd 4 a pipe, any other names nothing. */
static int fake_file_of(void *ctx, struct profile *p, pid_t tid, int fd)
{
	struct asked *a = ctx;
	struct fd_desc d;

	if (a->n < 4) {
		a->tid[a->n] = tid;
		a->fd[a->n] = fd;
	}
	a->n++;
	if (fd != 3 && fd != 4)
		return profile_file_unresolved(p);
	memset(&d, 0, sizeof(d));
	snprintf(d.path, sizeof(d.path), "%s",
		 fd == 3 ? "/tmp/data" : "pipe:[12]");
	d.kind = fd == 3 ? FD_REG : FD_PIPE;
	d.blksize = 4096;
	return profile_file_desc(p, &d);
}

static void test_files(void)
{
	const struct profile_breakdown *b;
	struct asked a = { { 0 }, { 0 }, 0 };
	struct tracer_event ev;
	struct profile p;

	profile_init(&p);
	ev = event(&p, "write", 9, 3);
	profile_add(&p, &ev);
	is_int(profile_add_files(&p, &ev, fake_file_of, &a), 0, "write");
	is_int(a.n, 1, "one fd asked");
	ok(a.tid[0] == 9 && a.fd[0] == 3, "the event's task and fd");
	ev = event(&p, "read", 9, 99);
	profile_add(&p, &ev);
	profile_add_files(&p, &ev, fake_file_of, &a);
	ev = event(&p, "splice", 9, 4);
	ev.args[2] = 3;		/* splice(fd_in, off_in, fd_out, ...) */
	profile_add(&p, &ev);
	profile_add_files(&p, &ev, fake_file_of, &a);
	is_int(a.n, 4, "splice: both fds asked");
	ok(a.fd[2] == 4 && a.fd[3] == 3, "source, then destination");
	b = profile_files(&p);
	is_int(b->nkeys, 3, "three files");
	is_str(profile_file_at(b, 0)->path, "/tmp/data", "the file");
	is_str(profile_file_at(b, 1)->path, "(unresolved fd)",
	       "an fd that names nothing");
	is_str(profile_file_at(b, 2)->path, "pipe:[12]", "the pipe");
	is_int(b->nsubs, 3, "a sub-row per call and its files");
	profile_release(&p);
}

int main(void)
{
	test_comm();
	test_files();
	return done_testing();
}
