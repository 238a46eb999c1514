/* The second shared library of ustack: the deepest frames, where the
 * ustack tests probe (leaf_deep) and where libc is called (puts). */
#include <stdio.h>

int leaf_deep(int x)
{
	puts("leaf_deep");
	return x + 1;
}

int leaf_work(int x)
{
	return leaf_deep(x * 2) + 1;
}
