// SPDX-License-Identifier: MIT
/*
 * Prints what a program learns about its CPUs: the sched_getaffinity mask,
 * its count, and (with "threads") the same seen from one thread per CPU.
 * Its output must be the same with and without iotrace.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static void print_mask(const char *who)
{
	cpu_set_t set;
	int cpu, n = 0;

	if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_getaffinity");
		return;
	}
	printf("%s: cpus", who);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set)) {
			printf(" %d", cpu);
			n++;
		}
	printf(" (count %d)\n", n);
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *thread_main(void *arg)
{
	char who[32];

	snprintf(who, sizeof(who), "thread %ld", (long)arg);
	pthread_mutex_lock(&lock);
	print_mask(who);
	fflush(stdout);
	pthread_mutex_unlock(&lock);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t tids[CPU_SETSIZE];
	cpu_set_t set;
	long i, n;

	print_mask("main");
	if (argc < 2 || strcmp(argv[1], "threads"))
		return 0;
	sched_getaffinity(0, sizeof(set), &set);
	n = CPU_COUNT(&set);
	printf("starting %ld threads\n", n);
	fflush(stdout);
	/* One at a time, so the output order is fixed. */
	for (i = 0; i < n; i++) {
		pthread_create(&tids[i], NULL, thread_main, (void *)i);
		pthread_join(tids[i], NULL);
	}
	print_mask("main after threads");
	return 0;
}
