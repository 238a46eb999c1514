/* A program for process probes reading its data: struct fields through
 * pointers, strings, globals (moved by the PIE load bias), a statement's
 * locals. Line numbers matter: uprobe_vars.stp names one. Probe handlers
 * cannot fault pages in (as SystemTap's), so the strings are printed first:
 * their page is then resident. */
#include <stdio.h>
#include <stdlib.h>

struct point {
	int x, y;
	const char *name;
	struct point *next;
};

int counter = 7;
static long total;

__attribute__((noinline)) long area(struct point *p, int scale)
{
	long a = (long)p->x * p->y * scale;
	total += a;
	return a;
}

__attribute__((noinline)) const char *greet(const char *who, int n)
{
	return n > 0 ? who : NULL;
}

__attribute__((noinline)) int fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

int main(int argc, char **argv)
{
	struct point b = { 5, 6, "second", NULL };
	struct point a = { 2, 3, "first", &b };

	printf("%s %s %s %s\n", a.name, b.name, "world", "nobody");
	for (int i = 1; i <= 2; i++) {
		counter++;
		area(&a, i);
		area(&b, i);
	}
	greet("world", 3);
	greet("nobody", 0);
	fact(4);
	printf("total=%ld counter=%d\n", total, counter);
	return argc > 5;
}
