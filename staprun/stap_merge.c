/* stap-merge: merge the per-CPU files of stap -b (FILE_N or stpd_cpuN:
 * records of {u32 sequence, u32 length} then the bytes) into one stream in
 * sequence order, as SystemTap's stap-merge does. -v puts
 * "[CPU:N, seq=S, length=L]" before each record, N being the file's place
 * among the arguments.
 * usage: stap-merge [-v] [-o OUTFILE] FILE...
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct input {
	FILE *f;
	const char *name;
	uint32_t seq, len;	/* the record waiting to go out */
	bool more;
};

/* Read the next record's header; false at the end of the file. */
static bool next_header(struct input *in)
{
	uint32_t head[2];
	size_t n = fread(head, 1, sizeof(head), in->f);

	if (n != sizeof(head)) {
		if (n)
			fprintf(stderr, "stap-merge: %s: a truncated record header at the end\n", in->name);
		return in->more = false;
	}
	in->seq = head[0];
	in->len = head[1];
	return in->more = true;
}

static int copy_record(struct input *in, FILE *out)
{
	char buf[65536];
	uint32_t left = in->len;

	while (left) {
		size_t want = left < sizeof(buf) ? left : sizeof(buf);
		size_t n = fread(buf, 1, want, in->f);

		if (n == 0) {
			fprintf(stderr, "stap-merge: %s: a record is cut short (%u bytes missing)\n", in->name, left);
			return -1;
		}
		fwrite(buf, 1, n, out);
		left -= (uint32_t)n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *out_path = NULL;
	bool verbose = false;
	int opt, rc = 0;

	while ((opt = getopt(argc, argv, "vo:h")) != -1) {
		switch (opt) {
		case 'v': verbose = true; break;
		case 'o': out_path = optarg; break;
		default:
			fprintf(stderr, "usage: stap-merge [-v] [-o OUTFILE] FILE...\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	int n = argc - optind;
	if (n < 1) {
		fprintf(stderr, "usage: stap-merge [-v] [-o OUTFILE] FILE...\n");
		return 2;
	}
	FILE *out = out_path ? fopen(out_path, "w") : stdout;
	if (!out) {
		fprintf(stderr, "stap-merge: cannot create %s: %s\n", out_path, strerror(errno));
		return 1;
	}
	struct input *in = calloc((size_t)n, sizeof(*in));
	for (int i = 0; i < n; i++) {
		in[i].name = argv[optind + i];
		in[i].f = fopen(in[i].name, "rb");
		if (!in[i].f) {
			fprintf(stderr, "stap-merge: cannot open %s: %s\n", in[i].name, strerror(errno));
			return 1;
		}
		next_header(&in[i]);
	}
	for (;;) {   /* the lowest sequence number waiting goes next */
		int best = -1;
		for (int i = 0; i < n; i++)
			if (in[i].more && (best < 0 || in[i].seq < in[best].seq))
				best = i;
		if (best < 0)
			break;
		if (verbose)
			fprintf(out, "[CPU:%d, seq=%u, length=%u]\n", best, in[best].seq, in[best].len);
		if (copy_record(&in[best], out) < 0) {
			rc = 1;
			in[best].more = false;
			continue;
		}
		next_header(&in[best]);
	}
	for (int i = 0; i < n; i++)
		fclose(in[i].f);
	free(in);
	if (fclose(out) != 0) {
		fprintf(stderr, "stap-merge: cannot write the output: %s\n", strerror(errno));
		rc = 1;
	}
	return rc;
}
