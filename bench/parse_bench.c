/* parse_bench.c - time pass 1 (preprocess + parse) over a set of files.
 *
 * usage: parse_bench [-r REPS] [-I DIR]... FILE...
 * Every FILE is read into memory first, then parsed REPS times (default 10),
 * each time with a fresh session (so the .stpm macros of the -I DIRs are
 * loaded again, as in one stap run). Files ending in .stp under a -I DIR
 * count as tapsets (embedded C allowed); the others as user scripts.
 * Prints the fastest and the median run in ms, wall clock and CPU time (the
 * CPU figure is the steadier one on a loaded machine), and the files, bytes
 * and lines parsed.
 * Exit 1 if a file failed to parse (diagnostics are on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ast.h"
#include "session.h"

struct input {
	const char *path;
	char *text;
	size_t len;
	bool tapset;
};

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One stap-like pass 1 over every input; returns the number of failures. */
static int parse_all(struct input *in, int n, strvec *dirs)
{
	struct session *s = xcalloc(1, sizeof(*s));
	int failed = 0;

	s->last_pass = 1;
	for (int i = 0; i < dirs->len; i++)
		vec_push(&s->include_dirs, dirs->items[i]);
	for (int i = 0; i < n; i++) {
		/* the parser keeps the text: give each run its own copy */
		struct srcfile *f = srcfile_new(in[i].path, xstrndup(in[i].text, in[i].len), in[i].len);

		f->is_tapset = in[i].tapset;
		s->errors = 0;
		if (!parse_script(s, f) || s->errors)
			failed++;
	}
	return failed;
}

int main(int argc, char **argv)
{
	strvec dirs = { 0 };
	struct input *in = xcalloc((size_t)argc, sizeof(*in));
	int n = 0, reps = 10, failed = 0;
	size_t bytes = 0, lines = 0;
	double *t, *c;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-I") && i + 1 < argc) {
			vec_push(&dirs, argv[++i]);
		} else {
			in[n].path = argv[i];
			in[n].text = read_file(argv[i], &in[n].len);
			if (!in[n].text) {
				perror(argv[i]);
				return 2;
			}
			for (int d = 0; d < dirs.len; d++) {
				size_t l = strlen(dirs.items[d]);
				if (!strncmp(argv[i], dirs.items[d], l) && argv[i][l] == '/')
					in[n].tapset = true;
			}
			bytes += in[n].len;
			for (size_t k = 0; k < in[n].len; k++)
				lines += in[n].text[k] == '\n';
			n++;
		}
	}
	if (reps < 1)
		reps = 1;
	t = xcalloc((size_t)reps, sizeof(*t));
	c = xcalloc((size_t)reps, sizeof(*c));
	for (int r = 0; r < reps; r++) {
		double t0 = now_ms(), c0 = cpu_ms();

		failed = parse_all(in, n, &dirs);
		t[r] = now_ms() - t0;
		c[r] = cpu_ms() - c0;
		if (r == 0 && failed)
			freopen("/dev/null", "w", stderr); /* report once */
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_double);
	qsort(c, (size_t)reps, sizeof(*c), cmp_double);
	printf("%d files, %zu lines, %zu bytes (%d runs):\n"
	       "  wall: best %.1f ms, median %.1f ms\n  cpu:  best %.1f ms, median %.1f ms\n",
	       n, lines, bytes, reps, t[0], t[reps / 2], c[0], c[reps / 2]);
	if (failed)
		printf("%d of them failed to parse\n", failed);
	return failed ? 1 : 0;
}
