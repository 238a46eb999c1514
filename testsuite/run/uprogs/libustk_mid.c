/* The first shared library of ustack: called by the program, calls
 * into libustk_leaf. */
int leaf_work(int x);

static int mid_helper(int x)
{
	return leaf_work(x + 3) * 2;
}

int mid_entry(int x)
{
	return mid_helper(x) + 5;
}
