// SPDX-License-Identifier: MIT
/*
 * proc_maps_each() (procfd/maps.c): one call per line of a process's
 * /proc/PID/maps; on this process's own, in address order; the mapping of this
 * function is executable and names this program's file, with its device
 * and inode; the stack is "[stack]", an anonymous mapping has no path;
 * a callback's positive return stops the walk with 0, a negative one is
 * returned; a process that does not exist is -ENOENT.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "procfd/procfd.h"
#include "tests/unit/tap.h"

struct seen {
	size_t n;
	uint64_t last_start;
	bool ordered, parsed;
	uint64_t code;		/* an address of this program's text */
	uint64_t anon;		/* the start of an anonymous mapping */
	bool code_found, code_x, stack, anon_found, anon_nameless;
	char code_path[4096];
	dev_t code_dev;
	ino_t code_ino;
	int stop_at;		/* fn's return at that call (0: never) */
	int stop_ret;
};

static int each(void *ctx, const struct proc_map *m)
{
	struct seen *s = ctx;

	s->n++;
	if (s->n > 1 && m->start < s->last_start)
		s->ordered = false;
	s->last_start = m->start;
	if (m->end <= m->start || strlen(m->perms) != 4)
		s->parsed = false;
	if (m->start <= s->code && s->code < m->end) {
		s->code_found = true;
		s->code_x = m->perms[2] == 'x';
		snprintf(s->code_path, sizeof(s->code_path), "%s", m->path);
		s->code_dev = m->dev;
		s->code_ino = m->ino;
	}
	if (m->start == s->anon) {
		s->anon_found = true;
		s->anon_nameless = m->path[0] == '\0' && m->ino == 0;
	}
	if (!strcmp(m->path, "[stack]"))
		s->stack = true;
	return s->stop_at && (int)s->n == s->stop_at ? s->stop_ret : 0;
}

static size_t lines_of_maps(pid_t pid)
{
	char path[32];
	FILE *f;
	size_t n = 0;
	int c;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

/*
 * One call per line of a process's maps: a child that waits, whose
 * mappings do not change while both are read (this process's own do:
 * stdio and a sanitizer's runtime map memory between two reads).
 */
static void test_lines(void)
{
	struct seen s;
	int go[2];
	pid_t pid;
	char c;

	if (pipe(go) < 0 || (pid = fork()) < 0) {
		ok(0, "a child to read the maps of");
		return;
	}
	if (pid == 0) {
		close(go[0]);
		if (write(go[1], "", 1) == 1)
			pause();
		_exit(0);
	}
	close(go[1]);
	if (read(go[0], &c, 1) != 1)
		c = 1;
	memset(&s, 0, sizeof(s));
	s.ordered = s.parsed = true;
	is_int(proc_maps_each(pid, each, &s), 0, "a waiting child's maps read");
	is_int(s.n, lines_of_maps(pid),
	       "one call per line of its /proc/PID/maps (%zu)", s.n);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go[0]);
}

int main(void)
{
	struct seen s;
	struct stat st;
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	/* The middle of three pages, read-only between two of no access:
	   a mapping of its own, which no neighbour of the allocator's
	   (ASan's read-write regions and PROT_NONE reserves) can merge. */
	char *anon = mmap(NULL, 3 * 4096, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) + 4096;

	mprotect(anon, 4096, PROT_READ);
	exe[len > 0 ? len : 0] = '\0';
	stat(exe, &st);
	memset(&s, 0, sizeof(s));
	s.ordered = s.parsed = true;
	s.code = (uint64_t)(uintptr_t)&each;
	s.anon = (uint64_t)(uintptr_t)anon;
	is_int(proc_maps_each(getpid(), each, &s), 0, "this process's maps read");
	ok(s.ordered && s.parsed, "in address order, each with start < end "
	   "and four permission letters");
	ok(s.code_found && s.code_x, "this function's mapping found, executable");
	ok(!strcmp(s.code_path, exe),
	   "its path is this program's file (%s)", s.code_path);
	ok(s.code_dev == st.st_dev && s.code_ino == st.st_ino,
	   "with its device and inode");
	ok(s.stack, "the stack is [stack]");
	ok(s.anon_found && s.anon_nameless,
	   "an anonymous mapping: no path, inode 0");

	test_lines();

	memset(&s, 0, sizeof(s));
	s.stop_at = 3;
	s.stop_ret = 1;
	is_int(proc_maps_each(getpid(), each, &s), 0,
	       "a positive return stops the walk: 0");
	is_int(s.n, 3, "after the third mapping");
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	s.stop_ret = -EINTR;
	is_int(proc_maps_each(getpid(), each, &s), -EINTR,
	       "a negative return is returned");
	is_int(s.n, 2, "after the second mapping");
	is_int(proc_maps_each(0x7ffffff0, each, &s), -ENOENT,
	       "a process that does not exist: -ENOENT");
	done_testing();
}
