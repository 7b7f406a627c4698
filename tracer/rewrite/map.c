// SPDX-License-Identifier: MIT
/*
 * The pool and the counters mapped into a process (fast-int.h), by the
 * process's own calls made at a stop (remote.c), each a round trip of
 * stops.  One memfd an image: its code (trampolines at P read-execute,
 * islands near its objects) and, after them, its counters (at P +
 * RW_POOL_COUNTERS, read-write); the process makes it, iotrace opens it
 * through /proc/PID/fd and maps it read-write itself, so trampolines and
 * islands are written here with no call of the program's, and the
 * counters read with none.  The fd is closed before the program runs
 * on: its descriptor table is as untraced.  A fork child's counters are
 * a memfd of their own.
 *
 * At execve's exit (fast_map_exec) there is no `syscall` instruction to
 * borrow yet: the word at the entry point becomes one, and is put
 * back.  A fork child (fast_map_fork) has its
 * parent's pool already, with the stub at P.  Every mapping is
 * MAP_FIXED_NOREPLACE (an address in use fails, and the process goes on
 * under ptrace alone) except the fork child's counters, which replace
 * the shared page it inherited.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "tracer/rewrite/fast-int.h"

#define PAGE 4096ull
#define COUNTERS_LEN ((sizeof(struct rw_counters) + PAGE - 1) & ~(PAGE - 1))
#define SYSCALL_INSN 0x050full	/* 0f 05 */

_Static_assert(RW_POOL_SIZE == RW_POOL_COUNTERS + COUNTERS_LEN,
	       "the pool is the code, then the counters");

/* The memfd the task made as fd, opened and mapped here (size bytes). */
static void *map_here(pid_t tid, int64_t fd, size_t size)
{
	char path[64];
	void *mem;
	int here;

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)tid, (int)fd);
	here = open(path, O_RDWR | O_CLOEXEC);
	if (here < 0)
		return NULL;
	if (ftruncate(here, (off_t)size) < 0) {
		close(here);
		return NULL;
	}
	mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, here, 0);
	close(here);
	return mem == MAP_FAILED ? NULL : mem;
}

static int64_t remote_mmap(struct remote *r, uint64_t at, uint64_t len,
			   int prot, int flags, int64_t fd, uint64_t off)
{
	int64_t got = remote_call(r, SYS_mmap, at, len, (uint64_t)prot,
				  (uint64_t)flags, (uint64_t)fd, off);

	if (got >= 0 && (uint64_t)got != at) {	/* a kernel without
						   FIXED_NOREPLACE */
		remote_call(r, SYS_munmap, (uint64_t)got, len, 0, 0, 0, 0);
		return -EEXIST;
	}
	return got < 0 ? got : 0;
}

/* AT_BASE (the interpreter) or else AT_PHDR of tid, from its auxv. */
static uint64_t image_base(pid_t tid)
{
	uint64_t base = task_auxv(tid, AT_BASE);

	return base ? base : task_auxv(tid, AT_PHDR);
}

/*
 * The islands, within rel32 reach of where the loader maps libraries:
 * the kernel places them top-down below the interpreter, so 1 GiB below
 * it reaches them all until they take a GiB; tried lower on a clash.  A
 * program linked low (a static one at 0x400000) gets them halfway below
 * it, where nothing grows (its heap grows up, after it).
 */
static int map_islands(struct remote *r, struct fast_code *c, int64_t fd,
		       uint64_t base)
{
	uint64_t at;
	int k, err = -ENOMEM;

	if (!base)
		return -ENOENT;
	for (k = 0; k < 8; k++) {
		if (base < (3ull << 30))
			at = (base / 2 & ~(PAGE - 1)) -
			     (uint64_t)k * FAST_ISLANDS;
		else
			at = ((base & ~(PAGE - 1)) - (1ull << 30)) -
			     (uint64_t)k * (64ull << 20);
		if (at < (1ull << 20))
			break;
		err = remote_mmap(r, at, FAST_ISLANDS, PROT_READ | PROT_EXEC,
				  MAP_SHARED | MAP_FIXED_NOREPLACE, fd,
				  RW_POOL_CODE);
		if (!err) {
			c->islands = at;
			return 0;
		}
		if (err != -EEXIST)
			break;
	}
	return err;
}

static struct fast_counters *counters_new(void *mem)
{
	struct fast_counters *c = calloc(1, sizeof(*c));

	if (c) {
		c->folded = calloc(1, sizeof(*c->folded));
		if (!c->folded) {
			free(c);
			return NULL;
		}
		c->refs = 1;
		c->mem = mem;
	}
	return c;
}

/* The stub remote calls run from in children, and the memfds' name. */
static void put_stub(uint8_t *code)
{
	static const uint8_t stub[] = { 0x0f, 0x05, 0xcc };

	memcpy(code + FAST_STUB, stub, sizeof(stub));
	memcpy(code + FAST_NAME, "iotrace", 8);
}

/* The memfd's layout: code, islands, counters. */
#define CODE_LEN (RW_POOL_CODE + FAST_ISLANDS)
#define IMAGE_LEN (CODE_LEN + COUNTERS_LEN)

/* The mappings of exec: code, counters, islands; the fd closed. */
static int map_all(struct loop *l, struct remote *r, struct fast_proc *p,
		   uint64_t name)
{
	const uint64_t pool = l->fast->pool;
	int64_t fd;
	uint8_t *mem;
	void *cmem = NULL, *nmem = NULL;
	int err, mapped = 0;

	fd = remote_call(r, SYS_memfd_create, name, MFD_CLOEXEC, 0, 0, 0, 0);
	if (fd < 0)
		return (int)fd;
	mem = map_here(r->tid, fd, IMAGE_LEN);
	err = mem ? 0 : -ENOMEM;
	if (mem) {	/* unmapped apart, as their owners let go */
		cmem = mem;
		nmem = mem + CODE_LEN;
	}
	if (!err)
		err = remote_mmap(r, pool, RW_POOL_CODE, PROT_READ | PROT_EXEC,
				  MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	mapped += !err;
	if (!err)
		err = remote_mmap(r, pool + RW_POOL_COUNTERS, COUNTERS_LEN,
				  PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_FIXED_NOREPLACE, fd,
				  CODE_LEN);
	mapped += !err;
	if (!err) {
		p->code = calloc(1, sizeof(*p->code));
		p->cnt = counters_new(nmem);
		err = p->code && p->cnt ? 0 : -ENOMEM;
	}
	if (!err) {
		p->code->refs = 1;
		p->code->mem = cmem;
		p->code->used = FAST_TRAMPS;
		put_stub(cmem);
		err = map_islands(r, p->code, fd, image_base(r->tid));
		if (err)
			p->code->islands = 0;	/* no site within reach */
		err = 0;
		cmem = nmem = NULL;	/* theirs now */
	}
	if (err && mapped > 1)
		remote_call(r, SYS_munmap, pool + RW_POOL_COUNTERS,
			    COUNTERS_LEN, 0, 0, 0, 0);
	if (err && mapped > 0)
		remote_call(r, SYS_munmap, pool, RW_POOL_CODE, 0, 0, 0, 0);
	remote_call(r, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0);
	if (cmem)
		munmap(cmem, CODE_LEN);
	if (nmem)
		munmap(nmem, COUNTERS_LEN);
	if (err) {
		fast_code_put(p->code);
		fast_counters_put(p->cnt);
		p->code = NULL;
		p->cnt = NULL;
	}
	return err;
}

/*
 * map_all() from the stop r was begun at, "iotrace" (the memfds' name)
 * put below the stack past the red zone meanwhile, then as it was.
 */
static int map_named(struct loop *l, struct remote *r, struct fast_proc *p)
{
	uint64_t name_at = (r->regs.rsp - 512) & ~7ull, name_was;
	int err;

	errno = 0;
	name_was = (uint64_t)ptrace(PTRACE_PEEKDATA, r->tid, (void *)name_at,
				    0L);
	if (errno)
		return -errno;
	if (ptrace(PTRACE_POKEDATA, r->tid, (void *)name_at,
		   (void *)0x0065636172746f69ull /* "iotrace" */) < 0)
		return -errno;
	err = map_all(l, r, p, name_at);
	ptrace(PTRACE_POKEDATA, r->tid, (void *)name_at, (void *)name_was);
	return err;
}

/* The task's calls ended (r): a death meanwhile is the loop's to see. */
static int map_end(struct loop *l, struct remote *r, int err)
{
	if (remote_end(r) < 0 && !err)
		err = -ESRCH;
	if (r->gone) {
		l->deferred_tid = r->tid;
		l->deferred_status = r->gone_status;
	}
	return err;
}

/*
 * The mappings made from a stop of t: at execve's exit the word at the
 * entry point becomes a `syscall` (poke); at a built-in workload's
 * first stop, its SIGSTOP, the kill's own `syscall` just before rip is
 * used as it is.
 */
static int map_from_stop(struct loop *l, struct task *t, struct fast_proc *p,
			 bool poke)
{
	struct remote r;
	uint64_t word;
	int err;

	err = remote_begin(&r, t->tid, 0);
	if (err)
		goto out;
	r.insn = poke ? r.regs.rip : r.regs.rip - 2;
	errno = 0;
	word = (uint64_t)ptrace(PTRACE_PEEKTEXT, t->tid, (void *)r.insn, 0L);
	if (errno) {
		err = -errno;
		goto out;
	}
	if (!poke && (word & 0xffff) != SYSCALL_INSN) {
		err = -ENOEXEC;
		goto out;
	}
	if (poke && ptrace(PTRACE_POKETEXT, t->tid, (void *)r.insn,
			   (void *)((word & ~0xffffull) | SYSCALL_INSN)) < 0) {
		err = -errno;
		goto out;
	}
	err = map_named(l, &r, p);
	if (poke)
		ptrace(PTRACE_POKETEXT, t->tid, (void *)r.insn, (void *)word);
out:
	return map_end(l, &r, err);
}

int fast_map_entry(struct loop *l, struct task *t, struct fast_proc *p,
		   bool *skipped, uint64_t *insn)
{
	struct remote r;
	int err = remote_begin_entry(&r, t->tid);

	if (!err)
		err = map_named(l, &r, p);
	*skipped = r.skipped;
	*insn = r.insn;
	return map_end(l, &r, err);
}

int fast_map_exec(struct loop *l, struct task *t, struct fast_proc *p)
{
	return map_from_stop(l, t, p, true);
}

int fast_map_stopped(struct loop *l, struct task *t, struct fast_proc *p)
{
	return map_from_stop(l, t, p, false);
}

int fast_map_fork(struct loop *l, pid_t tid, struct fast_proc *child)
{
	const uint64_t pool = l->fast->pool;
	struct remote r;
	int64_t fd;
	void *mem = NULL;
	int err;

	err = remote_begin(&r, tid, pool + FAST_STUB);
	if (err)
		goto out;
	fd = remote_call(&r, SYS_memfd_create, pool + FAST_NAME, MFD_CLOEXEC,
			 0, 0, 0, 0);
	err = fd < 0 ? (int)fd : 0;
	if (!err && !(mem = map_here(tid, fd, COUNTERS_LEN)))
		err = -ENOMEM;
	if (!err) {
		int64_t got = remote_call(&r, SYS_mmap, pool + RW_POOL_COUNTERS,
					  COUNTERS_LEN, PROT_READ | PROT_WRITE,
					  MAP_SHARED | MAP_FIXED, (uint64_t)fd,
					  0);

		err = got < 0 ? (int)got : 0;
	}
	if (!err && !(child->cnt = counters_new(mem)))
		err = -ENOMEM;
	if (!err)
		mem = NULL;
	if (fd >= 0)
		remote_call(&r, SYS_close, (uint64_t)fd, 0, 0, 0, 0, 0);
	if (mem)
		munmap(mem, COUNTERS_LEN);
	if (remote_end(&r) < 0 && !err)
		err = -ESRCH;
out:
	if (r.gone) {
		l->deferred_tid = tid;
		l->deferred_status = r.gone_status;
	}
	return err;
}
