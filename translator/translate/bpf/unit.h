/* unit.h - a script lowered to BPF: the maps, the printf formats and, per
 * program, its instructions and where it attaches. Pass 2 makes it
 * (bpf_lower, bpf.h): what BPF cannot do is refused while lowering, so
 * "can BPF run this?" is answered in pass 2. Pass 3 writes it as the
 * bundle's text stapbpf loads (bundle.c, doc/bpf-bundle.md). Nothing in it
 * is text the writer parses: it is what the bundle says, unescaped. */
#ifndef CSTAP_BPF_UNIT_H
#define CSTAP_BPF_UNIT_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "util.h"
#include "translate/bpf/insn.h"

struct bpf_map {
	const char *kind;       /* hash, array, percpu_hash, percpu_array, ringbuf */
	char *keyspec, *valspec;   /* a letter a field: l long, s string, i int ... */
	int64_t max;
	char *name;             /* the script's global, or @NAME of the runtime's own */
};

struct bpf_fmt {                /* a format's id is its index */
	char *types;            /* a letter a value (l, s ...), "" for none */
	char *text;
	size_t len;
};

struct bpf_line {               /* insn and those after it come from pos */
	int insn;
	struct srcpos pos;
};

struct bpf_prog {
	struct bpf_attach at;
	char *pp;               /* its probe point, or NULL (the global initialisers) */
	int from;               /* the script's probe it is one of (its index), or -1 */
	char *written;          /* ... that probe's points as the script writes them */
	struct binsn *insn;
	int n;
	VEC(struct bpf_line) lines;
};

struct bpf_bytes {              /* text with NULs in it */
	int id;                 /* rodata: its map; timing: its derived probe */
	const char *buf;
	size_t len;
};

struct bpf_unit {
	const char *module;
	bool kaslr;             /* stapbpf puts the kernel's load offset in @config, */
	uint64_t kfree;         /* found by this symbol's link-time address */
	int64_t maxskipped;     /* -D MAXSKIPPED, else -1 */
	int strsz;              /* a string value's bytes (-D MAXSTRINGLEN), 0: BPF_STRSZ */
	VEC(struct bpf_map *) maps;
	VEC(struct bpf_fmt) fmts;
	VEC(struct bpf_bytes) rodata;   /* read-only maps' contents (ksym.c's formats) */
	VEC(struct bpf_bytes) timing;   /* -t: a probe's "PP, (POS)" NUL "from" */
	VEC(struct bpf_prog) progs;
};

/* Pass 3: the unit as the bundle's text, appended to out. */
void bpf_bundle_write(const struct bpf_unit *u, struct strbuf *out);

#endif
