/* A program for process probes: entry, parameters and return values. */
#include <stdio.h>

int work(int x)
{
	return x * 2 + 1;
}

int main(int argc, char **argv)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += work(i);
	printf("uprobe_test: s=%d argc=%d\n", s, argc);
	return 0;
}
