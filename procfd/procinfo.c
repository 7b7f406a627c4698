// SPDX-License-Identifier: MIT
/*
 * What /proc says of a task at its exit and of the page cache around a
 * run: a thread's own I/O accounting (/proc/TGID/task/TID/io, so a
 * process's threads add up to it and the children it reaped are not in
 * it, as they are in /proc/TGID/io), its comm, its process's command
 * word, and the machine's dirty and writeback memory (/proc/meminfo).
 * Read at exit stops and twice a run, never at an ordinary stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "procfd/procfd.h"
#include "tracer/tracer.h"

/* The whole of a small /proc file into buf, NUL-ended; its length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* "key: N" of a /proc file's text; false when absent. */
static bool field_u64(const char *text, const char *key, uint64_t *v)
{
	size_t len = strlen(key);
	const char *at = text;

	while ((at = strstr(at, key))) {
		if ((at == text || at[-1] == '\n') && at[len] == ':') {
			*v = strtoull(at + len + 1, NULL, 10);
			return true;
		}
		at += len;
	}
	return false;
}

static bool read_io(pid_t tgid, pid_t tid, struct tracer_task_exit *x)
{
	char path[64], text[512];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/io", (int)tgid,
		 (int)tid);
	if (read_small(path, text, sizeof(text)) <= 0)
		return false;
	return field_u64(text, "rchar", &x->rchar) &&
	       field_u64(text, "wchar", &x->wchar) &&
	       field_u64(text, "read_bytes", &x->read_bytes) &&
	       field_u64(text, "write_bytes", &x->write_bytes) &&
	       field_u64(text, "cancelled_write_bytes",
			 &x->cancelled_write_bytes);
}

void tracer_task_comm(pid_t tgid, pid_t tid, char *buf, size_t size)
{
	char path[64], text[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)tgid,
		 (int)tid);
	n = read_small(path, text, sizeof(text));
	if (n > 0 && text[n - 1] == '\n')
		text[n - 1] = '\0';
	snprintf(buf, size, "%s", n > 0 ? text : "");
}

/* argv[0]'s last path component: "java" for /usr/bin/java. */
static void read_cmd(pid_t tgid, char *buf, size_t size)
{
	char path[64], text[256];
	const char *slash;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)tgid);
	if (read_small(path, text, sizeof(text)) <= 0)
		return;
	slash = strrchr(text, '/');
	slash = slash && slash[1] ? slash + 1 : text;
	/* Cut to fit: it is a name to show. */
	memcpy(buf, slash, strnlen(slash, size - 1));
	buf[strnlen(slash, size - 1)] = '\0';
}

/* schedstat's first field: the task's time on a CPU, in ns. */
static bool read_cpu(pid_t tgid, pid_t tid, uint64_t *ns)
{
	char path[64], text[128], *end;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)tgid,
		 (int)tid);
	if (read_small(path, text, sizeof(text)) <= 0)
		return false;
	*ns = strtoull(text, &end, 10);
	return end != text;
}

/* stat's utime (field 14, after the name in parentheses), in ns. */
static bool read_user(pid_t tgid, pid_t tid, struct tracer_task_exit *x)
{
	char path[64], text[1024];
	unsigned long long utime;
	long hz = sysconf(_SC_CLK_TCK);
	const char *at;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid,
		 (int)tid);
	if (hz <= 0 || read_small(path, text, sizeof(text)) <= 0)
		return false;
	at = strrchr(text, ')');
	/* state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
	   cmajflt utime */
	if (!at || sscanf(at + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
			  "%*u %llu", &utime) != 1)
		return false;
	x->tick_ns = 1000000000ull / (uint64_t)hz;
	x->user_ns = utime * x->tick_ns;
	return true;
}

void tracer_task_exit_read(pid_t tgid, pid_t tid, struct tracer_task_exit *x)
{
	memset(x, 0, sizeof(*x));
	x->tid = tid;
	x->tgid = tgid;
	x->io_known = read_io(tgid, tid, x);
	x->cpu_known = read_cpu(tgid, tid, &x->cpu_ns);
	x->user_known = read_user(tgid, tid, x);
	tracer_task_comm(tgid, tid, x->comm, sizeof(x->comm));
	if (tid == tgid)
		read_cmd(tgid, x->cmd, sizeof(x->cmd));
}

int tracer_meminfo_read(struct tracer_meminfo *m)
{
	char text[8192];
	uint64_t dirty, wb;

	memset(m, 0, sizeof(*m));
	if (read_small("/proc/meminfo", text, sizeof(text)) <= 0)
		return -EIO;
	if (!field_u64(text, "Dirty", &dirty) ||
	    !field_u64(text, "Writeback", &wb))
		return -ENOENT;
	/* In kB, as the file says. */
	m->dirty = dirty * 1024;
	m->writeback = wb * 1024;
	m->known = true;
	return 0;
}
