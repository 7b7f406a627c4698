// SPDX-License-Identifier: MIT
/*
 * Unit tests of the tid table (tracer/ptrace/tasks.c): thousands of tasks come
 * and go in random order, every survivor stays findable after the
 * backward-shift deletions, and the table shrinks back when they are gone
 * so its memory follows live tasks only.
 */
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>
#include "tracer/ptrace/ptrace-int.h"
#include "tests/unit/tap.h"

#define NTIDS 5000

/* Every tid in [0, n) that is live must be found, every other not. */
static int check_all(struct task_table *tt, const pid_t *tids,
		     const char *live, size_t n)
{
	struct task *t;
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++) {
		t = task_find(tt, tids[i]);
		if (live[i] ? !t || t->tid != tids[i] || t->nr != (int)i : !!t)
			bad++;
	}
	return bad;
}

static void shuffle(size_t *v, size_t n)
{
	size_t i, j, tmp;

	for (i = n - 1; i > 0; i--) {
		j = (size_t)random() % (i + 1);
		tmp = v[i];
		v[i] = v[j];
		v[j] = tmp;
	}
}

static void test_insert_delete(void)
{
	static pid_t tids[NTIDS];
	static char live[NTIDS];
	static size_t order[NTIDS];
	struct task_table tt;
	struct task *t;
	size_t i, peak;
	int bad = 0;

	task_table_init(&tt);
	for (i = 0; i < NTIDS; i++) {
		/* Clustered tids, like a forking shell's, plus outliers. */
		tids[i] = (pid_t)(i % 7 ? 1000 + i : 4000000 - i * 131);
		t = task_get(&tt, tids[i]);
		if (!t || t->tid != tids[i] || t->in_syscall) {
			bad++;
			continue;
		}
		t->nr = (int)i;
		live[i] = 1;
		order[i] = i;
	}
	is_int(bad, 0, "%d tasks inserted, fresh", NTIDS);
	is_int(tt.count, NTIDS, "count after inserts");
	ok(tt.count * 2 <= tt.cap, "at most half full (%zu of %zu)", tt.count,
	   tt.cap);
	is_int(check_all(&tt, tids, live, NTIDS), 0, "all found");
	t = task_get(&tt, tids[17]);
	ok(t && t->nr == 17, "task_get of a known tid keeps its state");
	is_int(tt.count, NTIDS, "no duplicate on task_get");
	peak = tt.cap;

	srandom(42);
	shuffle(order, NTIDS);
	for (i = 0; i < NTIDS; i++) {
		task_del(&tt, tids[order[i]]);
		live[order[i]] = 0;
		/* Check everything now and then: shifts must keep runs. */
		if (i % 500 == 0 || i > NTIDS - 40)
			bad += check_all(&tt, tids, live, NTIDS);
	}
	is_int(bad, 0, "survivors found after each batch of deletions");
	is_int(tt.count, 0, "empty after deleting all");
	ok(tt.cap < peak && tt.cap <= 32, "capacity shrank back (%zu -> %zu)",
	   peak, tt.cap);
	task_del(&tt, 12345);
	is_int(tt.count, 0, "deleting an absent tid changes nothing");
	task_table_release(&tt);
	ok(task_find(&tt, 1) == NULL, "find in a released table");
}

/*
 * Tids that collide on one home slot form a run; deleting from its
 * middle must shift the rest back, not cut the run.
 */
static void test_collisions(void)
{
	struct task_table tt;
	pid_t tids[12];
	char live[12];
	size_t i;

	task_table_init(&tt);
	for (i = 0; i < 12; i++) {
		/* Multiples of 2^16 share a home slot in small tables. */
		tids[i] = (pid_t)((i + 1) << 16);
		task_get(&tt, tids[i])->nr = (int)i;
		live[i] = 1;
	}
	is_int(check_all(&tt, tids, live, 12), 0, "colliding tids found");
	for (i = 1; i < 12; i += 3) {
		task_del(&tt, tids[i]);
		live[i] = 0;
	}
	is_int(check_all(&tt, tids, live, 12), 0,
	       "found after deleting from the middle of a run");
	is_int(tt.count, 8, "count after deletions");
	task_table_release(&tt);
}

/* task_auxv(): the values the kernel gave this process, from /proc. */
static void test_auxv(void)
{
	ok(task_auxv(getpid(), AT_PAGESZ) == getauxval(AT_PAGESZ) &&
	   task_auxv(getpid(), AT_SYSINFO_EHDR) == getauxval(AT_SYSINFO_EHDR) &&
	   task_auxv(getpid(), AT_PHDR) == getauxval(AT_PHDR),
	   "task_auxv reads what getauxval has: page size, vDSO, phdrs");
	ok(task_auxv(getpid(), 0xdead) == 0 && task_auxv(-1, AT_PAGESZ) == 0,
	   "an absent type, or no such task: 0");
}

int main(void)
{
	test_insert_delete();
	test_collisions();
	test_auxv();
	return done_testing();
}
