/* bpf_bundle.h - a BPF bundle (NAME.bo, doc/bpf-bundle.md) read into
 * memory: its maps, printf formats and programs, checked well enough that
 * the loader and the interpreter can trust the numbers in it (map IDs of
 * map references, jump targets, argument types of formats). */
#ifndef BPF_BUNDLE_H
#define BPF_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

#include "bpf_proto.h"
/* a string field's bytes: the bundle's "strsz N" (-D MAXSTRINGLEN), else
 * BPF_STRSZ (63 bytes and a NUL); one bundle a process */
extern size_t bundle_strsz;

enum bundle_map_kind {
	BM_HASH,
	BM_ARRAY,
	BM_PERCPU_HASH,
	BM_PERCPU_ARRAY,
	BM_RINGBUF,
	BM_LRU_HASH,
	BM_RODATA,			/* an array of one entry programs only read */
};

struct bundle_map {
	int id;
	enum bundle_map_kind kind;
	char *keyspec, *valspec;	/* field letters; "" for '-' */
	uint32_t key_size, val_size;
	uint32_t max_entries;		/* ringbuf: its size in bytes */
	char *name;			/* g_count, @ring, @globals, @config, @scratch */
	char *init;			/* rodata: its value (a `rodata` line), NULL if none */
	size_t init_len;
};

struct bundle_fmt {
	bool defined;
	char *argtypes;			/* 'l'/'s' per argument; "" for '-' */
	char *text;			/* unescaped; printf ends at a NUL in it */
	size_t len;
	size_t args_size;		/* bytes of arguments a record carries */
};

struct bundle_line {
	uint32_t index;			/* first instruction at pos */
	char *pos;			/* FILE:LINE:COL */
};

struct bundle_prog {
	int id;
	struct bpf_attach at;		/* where it attaches (bpf_proto.h: the
					   translator's own struct; the strings
					   are the bundle's, allocated) */
	char *section;			/* "SECTION ARGS" as written, for messages */
	struct bpf_insn *insns;
	size_t ninsns;
	struct bundle_line *lines;	/* sorted by index */
	size_t nlines;
	int file_line;			/* the "prog" line in the bundle */
	char *pp;			/* the probe point, for messages ("pp" line), or NULL */
	int from;			/* "from N TEXT": the script's probe N it is one */
	char *written;			/* of, written TEXT; -1 and NULL without one */
};

struct bundle_timing {		/* "timing INDEX TEXT" (stap -t) */
	int index;			/* the probe's, and its @timing entry */
	char *head;			/* "PP, (FILE:LINE:COL)" */
	char *from;			/* the report's "from:" */
};

struct bundle {
	char *path;
	char *module;
	char *kaslr_sym;		/* "kaslr SYMBOL ADDR": the kernel's load offset is */
	uint64_t kaslr_addr;		/* SYMBOL's address in /proc/kallsyms - ADDR */
	int64_t maxskipped;		/* "maxskipped N" (-D MAXSKIPPED), else -1 */
	struct bundle_map *maps;
	size_t nmaps;
	struct bundle_fmt *fmts;	/* indexed by fmt ID */
	size_t nfmts;
	struct bundle_prog *progs;	/* sorted by ID */
	size_t nprogs;
	struct bundle_timing *timing;	/* -t: the probes the report names */
	size_t ntiming;
};

/* Read and check path; -1 (after a "stapbpf: FILE:LINE: ..." line on
 * stderr) if it cannot be read or is malformed. */
int bundle_parse(const char *path, struct bundle *b);
void bundle_free(struct bundle *b);

/* The script position the instruction at index came from, or NULL. */
const char *bundle_pos_of(const struct bundle_prog *p, size_t index);

/* True for the programs stapbpf runs itself (begin, end, error). */
bool bundle_prog_is_user(const struct bundle_prog *p);

/* The map named name ("@config"), or NULL. */
const struct bundle_map *bundle_find_map(const struct bundle *b, const char *name);

/* The format of ID id, or NULL when there is none. */
const struct bundle_fmt *bundle_fmt_of(const struct bundle *b, uint64_t id);

#endif /* BPF_BUNDLE_H */
