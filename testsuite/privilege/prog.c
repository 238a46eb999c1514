/* privilege-table.sh's user program: process probes with $vars of the
 * user's own process (built with -g in the work directory) */
#include <stdio.h>
int work(int n, const char *s) { return printf("%s %d\n", s, n); }
int main(int argc, char **argv) { return work(argc, argv[0]) < 0; }
