/* A program whose stack runs through two shared libraries: main ->
 * prog_call -> mid_entry (libustk_mid.so) -> mid_helper -> leaf_work
 * (libustk_leaf.so) -> leaf_deep -> puts (libc), for user backtraces. */
#include <stdio.h>

int mid_entry(int x);

static int prog_call(int x)
{
	return mid_entry(x) - 1;
}

int main(void)
{
	printf("ustack: %d\n", prog_call(1));
	return 0;
}
