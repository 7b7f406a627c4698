// SPDX-License-Identifier: MIT
/*
 * The few string functions the agent uses (and the compiler may call
 * for a struct copy).  The agent links no libc: the tracer maps it into
 * a program before the dynamic loader runs (tracer/agent-inject.c), with
 * no loader to bind it to one, and a libc of the program's could make
 * syscalls of its own from the handler.  Hidden, so a program's own
 * definitions are never bound to these (dlopen into iotrace).
 */
#include <stddef.h>

#define AGENT_LIBC \
	__attribute__((visibility("hidden"), \
		       optimize("no-tree-loop-distribute-patterns")))

AGENT_LIBC void *memcpy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

AGENT_LIBC void *memmove(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

AGENT_LIBC void *memset(void *dst, int c, size_t n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

AGENT_LIBC int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

AGENT_LIBC size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return (size_t)(p - s);
}
