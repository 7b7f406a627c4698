// SPDX-License-Identifier: MIT
/*
 * A tracee whose calls come from known call sites, for -k: 300 writes
 * from emit_byte, 7 from flush_log, 42 through a shared helper
 * (put_shared) from two callers (30 from report_a, 12 from report_b),
 * and 5 reads from load_input.  Each function is noinline, so its frame
 * is on the stack.  Arguments: "threads" runs the writes in a thread;
 * "exec" re-executes itself first (the counts are the new image's);
 * "corrupt" makes one more write with its stack pointer on garbage,
 * a frame no unwinder can get past (x86_64 only); "dlopen" makes 9
 * more from gzflush in libz, loaded with dlopen after the start;
 * "deep" makes them all from under a frame of 40 KiB (deep_frame).
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static int out_fd;

NOINLINE static void emit_byte(void)
{
	if (write(out_fd, "x", 1) != 1)
		_exit(1);
	__asm__ volatile("" ::: "memory");
}

NOINLINE static void flush_log(void)
{
	if (write(out_fd, "log\n", 4) != 4)
		_exit(1);
	__asm__ volatile("" ::: "memory");
}

NOINLINE static void put_shared(const char *s)
{
	if (write(out_fd, s, strlen(s)) < 0)
		_exit(1);
	__asm__ volatile("" ::: "memory");
}

NOINLINE static void report_a(void)
{
	put_shared("a");
	__asm__ volatile("" ::: "memory");
}

NOINLINE static void report_b(void)
{
	put_shared("b");
	__asm__ volatile("" ::: "memory");
}

NOINLINE static void load_input(void)
{
	char buf[16];
	int fd = open("/dev/zero", O_RDONLY);
	int i;

	for (i = 0; i < 5; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			_exit(1);
	close(fd);
}

/* One write(1 byte) made with rsp pointing into a buffer of garbage. */
NOINLINE static void corrupt_write(void)
{
#if defined(__x86_64__)
	static unsigned long junk[64];
	long ret;
	int i;

	for (i = 0; i < 64; i++)
		junk[i] = 0xdeadbeef0000ul + (unsigned long)i;
	__asm__ volatile("mov %%rsp, %%r12\n\t"
			 "lea %[top], %%rsp\n\t"
			 "syscall\n\t"
			 "mov %%r12, %%rsp"
			 : "=a"(ret)
			 : "a"((long)SYS_write), "D"((long)out_fd), "S"("c"),
			   "d"(1L), [top] "m"(junk[32])
			 : "rcx", "r11", "r12", "memory");
	if (ret != 1)
		_exit(1);
#endif
}

/* 9 writes from libz's gzflush, libz loaded now; 1 if it cannot be. */
static int zlib_writes(void)
{
	void *z = dlopen("libz.so.1", RTLD_NOW);
	void *(*gzdopen)(int, const char *);
	int (*gzflush)(void *, int);
	int (*gzwrite)(void *, const void *, unsigned);
	void *f;
	int i;

	if (!z)
		return 1;
	*(void **)&gzdopen = dlsym(z, "gzdopen");
	*(void **)&gzflush = dlsym(z, "gzflush");
	*(void **)&gzwrite = dlsym(z, "gzwrite");
	f = gzdopen && gzflush && gzwrite ? gzdopen(dup(out_fd), "wb") : NULL;
	if (!f)
		return 1;
	for (i = 0; i < 9; i++)
		if (gzwrite(f, "z", 1) != 1 || gzflush(f, 2 /* Z_SYNC_FLUSH */))
			return 1;
	return 0;	/* f stays open: gzclose would write again */
}

static void *work(void *arg);

/* work() under 40 KiB of stack of its own. */
NOINLINE static void deep_frame(void)
{
	volatile char pad[40 * 1024];

	pad[0] = pad[sizeof(pad) - 1] = 1;
	work(NULL);
	__asm__ volatile("" ::: "memory");
}

static void *work(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < 300; i++)
		emit_byte();
	for (i = 0; i < 7; i++)
		flush_log();
	for (i = 0; i < 30; i++)
		report_a();
	for (i = 0; i < 12; i++)
		report_b();
	load_input();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc > 1 && !strcmp(argv[1], "exec")) {
		execl("/proc/self/exe", argv[0], argc > 2 ? argv[2] : "plain",
		      (char *)NULL);
		return 127;
	}
	out_fd = open("/dev/null", O_WRONLY);
	if (out_fd < 0)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "corrupt"))
		corrupt_write();
	if (argc > 1 && !strcmp(argv[1], "dlopen") && zlib_writes())
		return 1;
	if (argc > 1 && !strcmp(argv[1], "threads")) {
		if (pthread_create(&t, NULL, work, NULL) ||
		    pthread_join(t, NULL))
			return 1;
	} else if (argc > 1 && !strcmp(argv[1], "deep")) {
		deep_frame();
	} else {
		work(NULL);
	}
	return 0;
}
