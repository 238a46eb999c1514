/* bpf_bundle.c - reading a BPF bundle (doc/bpf-bundle.md). Every mistake
 * is reported as "stapbpf: FILE:LINE: what", and the parse stops at the
 * first one: a bundle is written by the translator, so one error means the
 * two disagree and the rest would not say more. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_bundle.h"
#include "bpf_printf.h"

#define MAX_FMT_ID (1 << 20)	/* fmt IDs index an array */

struct parser {
	const char *path;
	int line;
	struct bundle *b;
	struct bundle_prog *cur;	/* the program whose insn/line lines follow */
	size_t maps_cap, progs_cap, insns_cap, at_cap, lines_cap;
	int **insn_lines;		/* per program, per instruction: its bundle line */
	bool seen_module, seen_end;
};

/* One message for every malformed item, with where it is. */
static int perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stapbpf: %s:%d: ", ps->path, ps->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Room for one more element of an array that grows by doubling. */
static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : 16;
	p = realloc(p, *cap * size);
	if (!p) {
		fprintf(stderr, "stapbpf: out of memory\n");
		exit(1);
	}
	return p;
}

/* strdup for a bundle's names: no memory is fatal. */
static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		fprintf(stderr, "stapbpf: out of memory\n");
		exit(1);
	}
	return d;
}

/* The next space-separated field of *s (NULL when none is left); *s then
 * points just after the one space that ended it, so the rest of a line
 * (a format's text) keeps its own spaces. */
static char *next_field(char **s)
{
	char *p = *s, *start;

	while (*p == ' ')
		p++;
	if (!*p) {
		*s = p;
		return NULL;
	}
	start = p;
	while (*p && *p != ' ')
		p++;
	if (*p)
		*p++ = '\0';
	*s = p;
	return start;
}

/* A decimal number in [lo, hi] named what in messages. */
static int number(struct parser *ps, const char *field, const char *what,
		  int64_t lo, int64_t hi, int64_t *out)
{
	char *end;
	long long v;

	if (!field)
		return perr(ps, "%s is missing", what);
	errno = 0;
	v = strtoll(field, &end, 10);
	if (end == field || *end || errno)
		return perr(ps, "%s '%s' is not a decimal number", what, field);
	if (v < lo || v > hi)
		return perr(ps, "%s %lld is out of range (%" PRId64 " to %" PRId64 ")", what, v, lo, hi);
	*out = v;
	return 0;
}

/* Nothing may follow the last field of an item. */
static int no_more(struct parser *ps, char **rest, const char *item)
{
	char *extra = next_field(rest);

	return extra ? perr(ps, "unexpected '%s' after the fields of '%s'", extra, item) : 0;
}

/* A hex digit's value, or -1. */
static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A format's TEXT with its C escapes undone. */
static int unescape(struct parser *ps, const char *s, char **out, size_t *outlen)
{
	char *d = malloc(strlen(s) + 1);
	size_t n = 0;

	if (!d)
		return perr(ps, "out of memory");
	while (*s) {
		int v;

		if (*s != '\\') {
			d[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': d[n++] = '\n'; s++; break;
		case 't': d[n++] = '\t'; s++; break;
		case 'r': d[n++] = '\r'; s++; break;
		case 'a': d[n++] = '\a'; s++; break;
		case 'b': d[n++] = '\b'; s++; break;
		case 'f': d[n++] = '\f'; s++; break;
		case 'v': d[n++] = '\v'; s++; break;
		case '\\': case '"': case '\'': case '?': d[n++] = *s++; break;
		case 'x':
			s++;
			if (hexval(*s) < 0) {
				free(d);
				return perr(ps, "'\\x' without hex digits in a format");
			}
			v = hexval(*s++);
			if (hexval(*s) >= 0)
				v = v * 16 + hexval(*s++);
			d[n++] = (char)v;
			break;
		case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7':
			v = 0;
			for (int k = 0; k < 3 && *s >= '0' && *s <= '7'; k++)
				v = v * 8 + (*s++ - '0');
			d[n++] = (char)v;
			break;
		case '\0':
			free(d);
			return perr(ps, "a format ends with a lone backslash");
		default:
			free(d);
			return perr(ps, "unknown escape '\\%c' in a format", *s);
		}
	}
	d[n] = '\0';
	*out = d;
	*outlen = n;
	return 0;
}

/* A KEYSPEC/VALSPEC: its letters (l s S, and i for an array's key) and size. */
static int field_spec(struct parser *ps, const char *spec, bool key, char **out, uint32_t *size)
{
	uint64_t n = 0;

	if (!spec)
		return perr(ps, "%s is missing", key ? "KEYSPEC" : "VALSPEC");
	if (!strcmp(spec, "-")) {
		*out = xstrdup("");
		*size = 0;
		return 0;
	}
	for (const char *c = spec; *c; c++) {
		switch (*c) {
		case 'l': n += 8; break;
		case 's': n += bundle_strsz; break;
		case 'c': n += 16; break;   /* a narrow string key (a task's comm) */
		case 'S': n += 32; break;
		case 'V': n += 64; break;
		case 'i':
			if (key && !strcmp(spec, "i")) {
				n += 4;
				break;
			}
			/* fall through */
		default:
			return perr(ps, "bad %s '%s': fields are l, s and S%s", key ? "KEYSPEC" : "VALSPEC",
				    spec, key ? " (or an array's i)" : "");
		}
	}
	*out = xstrdup(spec);
	*size = (uint32_t)n;
	return 0;
}

/* map ID KIND KEYSPEC VALSPEC MAXENTRIES NAME */
static int parse_map(struct parser *ps, char *rest)
{
	static const char *const kinds[] = {
		[BM_HASH] = "hash", [BM_ARRAY] = "array", [BM_PERCPU_HASH] = "percpu_hash",
		[BM_PERCPU_ARRAY] = "percpu_array", [BM_RINGBUF] = "ringbuf", [BM_LRU_HASH] = "lru_hash",
		[BM_RODATA] = "rodata",
	};
	struct bundle *b = ps->b;
	struct bundle_map m = { 0 };
	char *kind, *name;
	int64_t v;
	size_t k;

	if (number(ps, next_field(&rest), "map ID", 0, INT_MAX, &v) < 0)
		return -1;
	if ((size_t)v != b->nmaps)
		return perr(ps, "map ID %" PRId64 " out of order (expected %zu: maps are numbered 0, 1, 2 ...)",
			    v, b->nmaps);
	m.id = (int)v;
	kind = next_field(&rest);
	if (!kind)
		return perr(ps, "map KIND is missing");
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (!strcmp(kind, kinds[k]))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return perr(ps, "unknown map kind '%s' (hash, array, percpu_hash, percpu_array, ringbuf, lru_hash, rodata)", kind);
	m.kind = (enum bundle_map_kind)k;
	if (field_spec(ps, next_field(&rest), true, &m.keyspec, &m.key_size) < 0)
		return -1;
	if (field_spec(ps, next_field(&rest), false, &m.valspec, &m.val_size) < 0)
		goto fail;
	if (number(ps, next_field(&rest), "map MAXENTRIES", 1, UINT32_MAX, &v) < 0)
		goto fail;
	m.max_entries = (uint32_t)v;
	name = next_field(&rest);
	if (!name) {
		perr(ps, "map NAME is missing");
		goto fail;
	}
	if (no_more(ps, &rest, "map") < 0)
		goto fail;
	if (m.kind == BM_RINGBUF) {
		if (m.id != 0) {
			perr(ps, "map %d: only map 0 may be the ring buffer", m.id);
			goto fail;
		}
		if (m.key_size || m.val_size) {
			perr(ps, "the ring buffer's KEYSPEC and VALSPEC must be '-'");
			goto fail;
		}
		if (m.max_entries < 4096 || (m.max_entries & (m.max_entries - 1))) {
			perr(ps, "the ring buffer's size %u is not a power of two of at least 4096",
			     m.max_entries);
			goto fail;
		}
	} else {
		if (m.id == 0) {
			perr(ps, "map 0 must be the ring buffer (ringbuf)");
			goto fail;
		}
		if (m.kind == BM_RODATA && m.max_entries != 1) {
			perr(ps, "map %d: a rodata map has one entry", m.id);
			goto fail;
		}
		if ((m.kind == BM_ARRAY || m.kind == BM_PERCPU_ARRAY || m.kind == BM_RODATA) !=
		    !strcmp(m.keyspec, "i")) {
			perr(ps, "map %d: KEYSPEC 'i' is for arrays, and arrays have no other", m.id);
			goto fail;
		}
		if (!m.key_size || !m.val_size) {
			perr(ps, "map %d: a %s needs a KEYSPEC and a VALSPEC", m.id, kinds[m.kind]);
			goto fail;
		}
	}
	m.name = xstrdup(name);
	b->maps = grow(b->maps, &ps->maps_cap, b->nmaps, sizeof(*b->maps));
	b->maps[b->nmaps++] = m;
	return 0;
fail:
	free(m.keyspec);
	free(m.valspec);
	return -1;
}

/* fmt ID ARGTYPES TEXT */
static int parse_fmt(struct parser *ps, char *rest)
{
	struct bundle *b = ps->b;
	struct bundle_fmt *f;
	char *types, why[160];
	int64_t id;

	if (number(ps, next_field(&rest), "fmt ID", 0, MAX_FMT_ID - 1, &id) < 0)
		return -1;
	types = next_field(&rest);
	if (!types)
		return perr(ps, "fmt ARGTYPES is missing");
	if (strcmp(types, "-") && strspn(types, "ls") != strlen(types))
		return perr(ps, "bad ARGTYPES '%s' (one l or s per argument, or -)", types);
	if ((size_t)id >= b->nfmts) {
		size_t n = (size_t)id + 1;

		b->fmts = realloc(b->fmts, n * sizeof(*b->fmts));
		if (!b->fmts)
			return perr(ps, "out of memory");
		memset(b->fmts + b->nfmts, 0, (n - b->nfmts) * sizeof(*b->fmts));
		b->nfmts = n;
	}
	f = &b->fmts[id];
	if (f->defined)
		return perr(ps, "fmt %" PRId64 " is defined twice", id);
	if (unescape(ps, rest, &f->text, &f->len) < 0)
		return -1;
	f->argtypes = xstrdup(strcmp(types, "-") ? types : "");
	f->defined = true;
	for (const char *t = f->argtypes; *t; t++)
		f->args_size += *t == 's' ? bundle_strsz : 8;
	if (bpf_fmt_check(f->text, f->len, f->argtypes, why, sizeof(why)) < 0)
		return perr(ps, "fmt %" PRId64 ": %s", id, why);
	return 0;
}

/* rodata MAPID TEXT: the value of a rodata map, C-escaped */
static int parse_rodata(struct parser *ps, char *rest)
{
	struct bundle_map *m;
	int64_t id;
	char *text;
	size_t len;

	if (number(ps, next_field(&rest), "rodata MAPID", 0, INT_MAX, &id) < 0)
		return -1;
	if ((size_t)id >= ps->b->nmaps || ps->b->maps[id].kind != BM_RODATA)
		return perr(ps, "rodata names map %" PRId64 ", which is not a rodata map", id);
	m = &ps->b->maps[id];
	if (m->init)
		return perr(ps, "map %" PRId64 " has a second rodata line", id);
	if (unescape(ps, rest, &text, &len) < 0)
		return -1;
	if (len > m->val_size) {
		free(text);
		return perr(ps, "rodata of %zu bytes for map %" PRId64 ", whose value has %u", len, id,
			    m->val_size);
	}
	m->init = text;
	m->init_len = len;
	return 0;
}

/* timing INDEX TEXT: a probe -t reports on, TEXT its head, a NUL, its "from:" */
static int parse_timing(struct parser *ps, char *rest)
{
	struct bundle *b = ps->b;
	struct bundle_timing *t;
	int64_t index;
	char *text;
	size_t len, head;

	if (number(ps, next_field(&rest), "timing INDEX", 0, INT_MAX, &index) < 0)
		return -1;
	if (unescape(ps, rest, &text, &len) < 0)
		return -1;
	head = strlen(text);
	if (head == len) {
		free(text);
		return perr(ps, "timing %" PRId64 ": no NUL between the probe and its \"from:\"", index);
	}
	b->timing = realloc(b->timing, (b->ntiming + 1) * sizeof(*b->timing));
	if (!b->timing) {
		free(text);
		return perr(ps, "out of memory");
	}
	t = &b->timing[b->ntiming++];
	t->index = (int)index;
	t->head = text;
	t->from = xstrdup(text + head + 1);
	return 0;
}

/* The checks a program needs once all its lines are read: instructions,
 * 64-bit loads in two halves, jumps that land inside, map references to
 * maps that exist, a line table that points at instructions. */
static int finish_prog(struct parser *ps)
{
	struct bundle_prog *p = ps->cur;
	const int *at;
	int saved = ps->line;

	if (!p)
		return 0;
	at = ps->insn_lines[p - ps->b->progs];
	ps->cur = NULL;
	if (!p->ninsns) {
		ps->line = p->file_line;
		return perr(ps, "program %d has no instructions", p->id);
	}
	for (size_t i = 0; i < p->ninsns; i++) {
		const struct bpf_insn *x = &p->insns[i];
		int cls = BPF_CLASS(x->code), op = BPF_OP(x->code);

		ps->line = at[i];
		if (x->code == (BPF_LD | BPF_IMM | BPF_DW)) {
			const struct bpf_insn *y = x + 1;

			if (i + 1 == p->ninsns || y->code || y->dst_reg || y->src_reg || y->off)
				return perr(ps, "a 64-bit immediate load (code 24) needs its second half: "
					    "an insn 0 0 0 0 IMM right after it");
			if (x->src_reg == BPF_PSEUDO_MAP_FD && (x->imm < 0 || (size_t)x->imm >= ps->b->nmaps))
				return perr(ps, "a map reference to map %d, which the bundle has not", x->imm);
			if (x->src_reg == BPF_PSEUDO_FUNC &&
			    ((int64_t)i + 1 + x->imm < 0 || (int64_t)i + 1 + x->imm >= (int64_t)p->ninsns))
				return perr(ps, "a callback at instruction %" PRId64 ", outside program %d",
					    (int64_t)i + 1 + x->imm, p->id);
			if (x->src_reg > BPF_PSEUDO_MAP_FD && x->src_reg != BPF_PSEUDO_FUNC)
				return perr(ps, "a 64-bit immediate load with SRC %d (only 0, 1 for a map, "
					    "or 4 for a callback)", x->src_reg);
			i++;
			continue;
		}
		if (x->code == 0)
			return perr(ps, "instruction code 0 outside a 64-bit immediate load");
		if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_EXIT &&
		    (op != BPF_CALL || x->src_reg == BPF_PSEUDO_CALL)) {
			int64_t d = (cls == BPF_JMP32 && op == BPF_JA) || op == BPF_CALL ? x->imm : x->off;
			int64_t to = (int64_t)i + 1 + d;

			if (to < 0 || to >= (int64_t)p->ninsns)
				return perr(ps, "a jump to instruction %" PRId64 ", outside program %d "
					    "(%zu instructions)", to, p->id, p->ninsns);
			if (p->insns[to].code == 0)	/* only a second half has code 0 */
				return perr(ps, "a jump to instruction %" PRId64 ", the middle of a 64-bit "
					    "immediate load", to);
		}
	}
	ps->line = p->file_line;
	for (size_t i = 0; i < p->nlines; i++)
		if (p->lines[i].index > p->ninsns)
			return perr(ps, "program %d: a line entry for instruction %u, past its %zu instructions",
				    p->id, p->lines[i].index, p->ninsns);
	/* stable (insertion) sort: the translator writes them in order already */
	for (size_t i = 1; i < p->nlines; i++) {
		struct bundle_line l = p->lines[i];
		size_t j = i;

		for (; j > 0 && p->lines[j - 1].index > l.index; j--)
			p->lines[j] = p->lines[j - 1];
		p->lines[j] = l;
	}
	ps->line = saved;
	return 0;
}

/* A section's one-word field (a copy), or NULL after saying it is missing. */
static char *word_field(struct parser *ps, char **rest, const char *sec, const char *what)
{
	char *a = next_field(rest);

	if (!a) {
		perr(ps, "%s wants %s", sec, what);
		return NULL;
	}
	return xstrdup(a);
}

/* prog ID SECTION [ARGS...]: the section's arguments checked here. */
static int parse_prog(struct parser *ps, char *rest)
{
	struct bundle *b = ps->b;
	struct bundle_prog p = { .file_line = ps->line, .from = -1 };
	char *sec, *a;
	int64_t v;
	size_t k;

	if (finish_prog(ps) < 0)
		return -1;
	if (number(ps, next_field(&rest), "prog ID", 0, INT_MAX, &v) < 0)
		return -1;
	p.id = (int)v;
	for (size_t i = 0; i < b->nprogs; i++)
		if (b->progs[i].id == p.id)
			return perr(ps, "prog ID %d is used twice", p.id);
	while (*rest == ' ')
		rest++;
	p.section = xstrdup(rest);
	sec = next_field(&rest);
	if (!sec) {
		free(p.section);
		return perr(ps, "prog SECTION is missing");
	}
	for (k = 0; k < BA_NKINDS; k++)   /* the translator writes the same words */
		if (!strcmp(sec, bpf_attach_word((int)k)))
			break;
	if (k == BA_NKINDS) {
		free(p.section);
		return perr(ps, "unknown program section '%s'", sec);
	}
	p.at.kind = (enum bpf_attach_kind)k;
	switch (p.at.kind) {
	case BA_KPROBE:
	case BA_KRETPROBE:
	case BA_TRACEPOINT:
		a = next_field(&rest);
		if (!a)
			goto missing;
		p.at.symbol = xstrdup(a);
		a = p.at.kind == BA_TRACEPOINT ? NULL : next_field(&rest);
		if (p.at.kind == BA_KPROBE || a) {	/* a kretprobe's is optional */
			if (number(ps, a, "the probe's OFFSET", 0, INT64_MAX, &v) < 0)
				goto fail;
			p.at.offset = v;
			if (p.at.kind == BA_KRETPROBE && (a = next_field(&rest))) {
				if (number(ps, a, "the kretprobe's MAXACTIVE", 1, 4096, &v) < 0)
					goto fail;
				p.at.maxactive = (int)v;
			}
		} else if (p.at.kind == BA_TRACEPOINT) {
			a = next_field(&rest);
			if (!a)
				goto missing;
			p.at.event = xstrdup(a);
		}
		break;
	case BA_UPROBE:
	case BA_URETPROBE:   /* FILE OFFSET [REFCTR [PID]] */
		a = next_field(&rest);
		if (!a)
			goto missing;
		p.at.symbol = xstrdup(a);
		if (number(ps, next_field(&rest), "the probe's OFFSET", 0, INT64_MAX, &v) < 0)
			goto fail;
		p.at.offset = v;
		if ((a = next_field(&rest))) {
			if (number(ps, a, "the probe's REFCTR", 0, INT64_MAX, &v) < 0)
				goto fail;
			p.at.ref_ctr = v;
		}
		if ((a = next_field(&rest))) {
			if (number(ps, a, "the probe's PID", 0, INT32_MAX, &v) < 0)
				goto fail;
			p.at.pid = v;
		}
		break;
	case BA_RAW_TRACEPOINT:
		if (!(p.at.event = word_field(ps, &rest, sec, "NAME")))
			goto fail;
		break;
	case BA_FENTRY:
	case BA_FEXIT:
		if (!(p.at.symbol = word_field(ps, &rest, sec, "FUNCTION")))
			goto fail;
		break;
	case BA_TIMER:
	case BA_UTIMER:
		if (number(ps, next_field(&rest), "the timer's NS", 1, INT64_MAX, &v) < 0)
			goto fail;
		p.at.period = v;
		/* a utimer's randomize: an offset in [-RAND, RAND] each period */
		if (p.at.kind == BA_UTIMER && (a = next_field(&rest))) {
			if (number(ps, a, "the timer's RAND", 0, p.at.period, &v) < 0)
				goto fail;
			p.at.randomize = v;
		}
		break;
	case BA_PERF:
		if (number(ps, next_field(&rest), "the perf event's TYPE", 0, UINT32_MAX, &v) < 0)
			goto fail;
		p.at.perf_type = (uint32_t)v;
		if (number(ps, next_field(&rest), "the perf event's CONFIG", INT64_MIN, INT64_MAX, &v) < 0)
			goto fail;
		p.at.perf_config = (uint64_t)v;
		if (number(ps, next_field(&rest), "the perf event's PERIOD", INT64_MIN + 1, INT64_MAX, &v) < 0)
			goto fail;
		if (v == 0) {
			perr(ps, "the perf event's PERIOD is 0 (events, or -Hz)");
			goto fail;
		}
		p.at.period = v;
		break;
	case BA_PROFILE:
		p.at.period = 4000000;
		break;
	case BA_HWBKPT:   /* ADDR LEN RW LINKED */
		if (number(ps, next_field(&rest), "the watchpoint's ADDR", INT64_MIN, INT64_MAX, &v) < 0)
			goto fail;
		p.at.bp_addr = (uint64_t)v;
		if (number(ps, next_field(&rest), "the watchpoint's LEN", 1, 8, &v) < 0)
			goto fail;
		p.at.bp_len = (int)v;
		if (number(ps, next_field(&rest), "the watchpoint's RW", 0, 1, &v) < 0)
			goto fail;
		p.at.bp_rw = v;
		if (number(ps, next_field(&rest), "the watchpoint's LINKED", 0, 1, &v) < 0)
			goto fail;
		p.at.bp_linked = v;
		break;
	case BA_PROCFS_READ:
	case BA_PROCFS_WRITE:   /* MODE MAXSIZE PATH */
		if (number(ps, next_field(&rest), "the procfs file's MODE", 0, 0777, &v) < 0)
			goto fail;
		p.at.offset = v;
		if (number(ps, next_field(&rest), "the procfs file's MAXSIZE", 0, 1 << 24, &v) < 0)
			goto fail;
		p.at.period = v;
		a = next_field(&rest);
		if (!a || a[0] == '/' || strstr(a, "..")) {
			perr(ps, "%s wants MODE MAXSIZE PATH (a relative path)", sec);
			goto fail;
		}
		p.at.symbol = xstrdup(a);
		break;
	default:
		break;
	}
	if (no_more(ps, &rest, sec) < 0)
		goto fail;
	b->progs = grow(b->progs, &ps->progs_cap, b->nprogs, sizeof(*b->progs));
	ps->insn_lines = realloc(ps->insn_lines, ps->progs_cap * sizeof(*ps->insn_lines));
	if (!ps->insn_lines)
		goto fail;
	ps->insn_lines[b->nprogs] = NULL;
	b->progs[b->nprogs] = p;
	ps->cur = &b->progs[b->nprogs++];
	ps->insns_cap = ps->at_cap = ps->lines_cap = 0;
	return 0;
missing:
	perr(ps, "%s wants %s", sec, p.at.kind == BA_TRACEPOINT ? "SYSTEM NAME" :
	     p.at.kind == BA_KPROBE ? "SYMBOL OFFSET" : p.at.kind == BA_KRETPROBE ? "SYMBOL [OFFSET]" :
	     "FILE OFFSET [REFCTR [PID]]");
fail:
	free(p.section);
	free((char *)p.at.symbol);
	free((char *)p.at.event);
	return -1;
}

/* insn CODE DST SRC OFF IMM */
static int parse_insn(struct parser *ps, char *rest)
{
	struct bundle_prog *p = ps->cur;
	size_t idx;
	struct bpf_insn x;
	int64_t code, dst, src, off, imm;

	if (!p)
		return perr(ps, "an instruction before any 'prog'");
	if (number(ps, next_field(&rest), "CODE", 0, 255, &code) < 0 ||
	    number(ps, next_field(&rest), "DST", 0, 10, &dst) < 0 ||
	    number(ps, next_field(&rest), "SRC", 0, 10, &src) < 0 ||
	    number(ps, next_field(&rest), "OFF", INT16_MIN, INT16_MAX, &off) < 0 ||
	    number(ps, next_field(&rest), "IMM", INT32_MIN, UINT32_MAX, &imm) < 0 ||
	    no_more(ps, &rest, "insn") < 0)
		return -1;
	memset(&x, 0, sizeof(x));
	x.code = (uint8_t)code;
	x.dst_reg = (uint8_t)dst;
	x.src_reg = (uint8_t)src;
	x.off = (int16_t)off;
	x.imm = (int32_t)(uint32_t)imm;
	idx = p - ps->b->progs;
	p->insns = grow(p->insns, &ps->insns_cap, p->ninsns, sizeof(*p->insns));
	ps->insn_lines[idx] = grow(ps->insn_lines[idx], &ps->at_cap, p->ninsns, sizeof(int));
	ps->insn_lines[idx][p->ninsns] = ps->line;
	p->insns[p->ninsns++] = x;
	return 0;
}

/* The rest of a line, its leading spaces skipped, or NULL after saying
 * what is missing. */
static char *text_field(struct parser *ps, char *rest, const char *what)
{
	while (*rest == ' ')
		rest++;
	if (!*rest) {
		perr(ps, "%s is missing", what);
		return NULL;
	}
	return rest;
}

/* line INDEX FILE:LINE:COL */
static int parse_line(struct parser *ps, char *rest)
{
	struct bundle_prog *p = ps->cur;
	int64_t index;

	if (!p)
		return perr(ps, "a line entry before any 'prog'");
	if (number(ps, next_field(&rest), "line INDEX", 0, UINT32_MAX, &index) < 0 ||
	    !(rest = text_field(ps, rest, "line POS (FILE:LINE:COL)")))
		return -1;
	p->lines = grow(p->lines, &ps->lines_cap, p->nlines, sizeof(*p->lines));
	p->lines[p->nlines].index = (uint32_t)index;
	p->lines[p->nlines++].pos = xstrdup(rest);
	return 0;
}

/* pp TEXT: the program's probe point; optional: it may fail to attach;
 * from N TEXT: the script's probe it comes from */
static int parse_prog_note(struct parser *ps, const char *kw, char *rest)
{
	struct bundle_prog *p = ps->cur;
	int64_t n;

	if (!p)
		return perr(ps, "'%s' before any 'prog'", kw);
	if (!strcmp(kw, "optional")) {
		p->at.optional = true;
		return no_more(ps, &rest, "optional");
	}
	if (!strcmp(kw, "from")) {
		if (number(ps, next_field(&rest), "from N", 0, INT32_MAX, &n) < 0 ||
		    !(rest = text_field(ps, rest, "from TEXT")))
			return -1;
		p->from = (int)n;
		free(p->written);
		p->written = xstrdup(rest);
		return 0;
	}
	if (!(rest = text_field(ps, rest, "pp TEXT")))
		return -1;
	free(p->pp);
	p->pp = xstrdup(rest);
	return 0;
}

/* One line of the bundle (its newline removed). */
static int parse_item(struct parser *ps, char *text)
{
	char *rest = text, *kw;

	if (ps->line == 1)
		return strcmp(text, "cstap-bpf 1") ?
			perr(ps, "not a BPF bundle: the first line is not 'cstap-bpf 1'") : 0;
	kw = next_field(&rest);
	if (!kw || kw[0] == '#')
		return 0;
	if (ps->seen_end)
		return perr(ps, "'%s' after 'end'", kw);
	if (!strcmp(kw, "insn"))
		return parse_insn(ps, rest);
	if (!strcmp(kw, "line"))
		return parse_line(ps, rest);
	if (!strcmp(kw, "pp") || !strcmp(kw, "optional") || !strcmp(kw, "from"))
		return parse_prog_note(ps, kw, rest);
	if (!strcmp(kw, "map"))
		return parse_map(ps, rest);
	if (!strcmp(kw, "fmt"))
		return parse_fmt(ps, rest);
	if (!strcmp(kw, "rodata"))
		return parse_rodata(ps, rest);
	if (!strcmp(kw, "timing"))
		return parse_timing(ps, rest);
	if (!strcmp(kw, "prog"))
		return parse_prog(ps, rest);
	if (!strcmp(kw, "module")) {
		char *name = next_field(&rest);

		if (ps->seen_module)
			return perr(ps, "a second 'module' line");
		if (!name)
			return perr(ps, "module NAME is missing");
		if (no_more(ps, &rest, "module") < 0)
			return -1;
		ps->seen_module = true;
		free(ps->b->module);
		ps->b->module = xstrdup(name);
		return 0;
	}
	if (!strcmp(kw, "kaslr")) {   /* kaslr SYMBOL ADDR */
		char *sym = next_field(&rest), *addr = next_field(&rest), *end;

		if (!sym || !addr)
			return perr(ps, "kaslr wants SYMBOL ADDR");
		errno = 0;
		ps->b->kaslr_addr = strtoull(addr, &end, 0);
		if (errno || *end)
			return perr(ps, "kaslr's ADDR '%s' is not a number", addr);
		if (no_more(ps, &rest, "kaslr") < 0)
			return -1;
		free(ps->b->kaslr_sym);
		ps->b->kaslr_sym = xstrdup(sym);
		return 0;
	}
	if (!strcmp(kw, "strsz")) {   /* strsz N: before the maps and formats it sizes */
		int64_t v;

		if (number(ps, next_field(&rest), "strsz's N", BPF_STRSZ, BPF_STRSZ_MAX, &v) < 0 ||
		    no_more(ps, &rest, "strsz") < 0)
			return -1;
		if (v & (v - 1))
			return perr(ps, "strsz %" PRId64 " is not a power of 2", v);
		if (ps->b->nmaps || ps->b->nfmts)
			return perr(ps, "strsz after a map or fmt line");
		bundle_strsz = (size_t)v;
		return 0;
	}
	if (!strcmp(kw, "maxskipped")) {   /* maxskipped N */
		int64_t v;

		if (number(ps, next_field(&rest), "maxskipped's N", 0, INT64_MAX, &v) < 0 ||
		    no_more(ps, &rest, "maxskipped") < 0)
			return -1;
		ps->b->maxskipped = v;
		return 0;
	}
	if (!strcmp(kw, "end")) {
		if (no_more(ps, &rest, "end") < 0 || finish_prog(ps) < 0)
			return -1;
		ps->seen_end = true;
		return 0;
	}
	return perr(ps, "unknown item '%s' (map, fmt, rodata, timing, prog, insn, line, module, kaslr, strsz, maxskipped or end)", kw);
}

size_t bundle_strsz = BPF_STRSZ;

/* qsort: programs by ID, the order the interpreted ones run in. */
static int cmp_prog_id(const void *a, const void *b)
{
	const struct bundle_prog *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The module name when the bundle has no "module" line: the file's name
 * without its directory and ".bo". */
static char *default_module(const char *path)
{
	const char *base = strrchr(path, '/');
	char *m = xstrdup(base ? base + 1 : path);
	size_t n = strlen(m);

	if (n > 3 && !strcmp(m + n - 3, ".bo"))
		m[n - 3] = '\0';
	return m;
}

/* The bundle line by line; the first mistake ends the parse. */
int bundle_parse(const char *path, struct bundle *b)
{
	struct parser ps = { .path = path, .b = b };
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	int rc = 0;

	memset(b, 0, sizeof(*b));
	b->maxskipped = -1;
	bundle_strsz = BPF_STRSZ;
	if (!f) {
		fprintf(stderr, "stapbpf: cannot open %s: %s\n", path, strerror(errno));
		return -1;
	}
	b->path = xstrdup(path);
	while (rc == 0 && (n = getline(&text, &cap, f)) >= 0) {
		ps.line++;
		if (n > 0 && text[n - 1] == '\n')
			text[--n] = '\0';
		if (memchr(text, '\0', n)) {
			rc = perr(&ps, "a NUL byte in the line");
			break;
		}
		rc = parse_item(&ps, text);
	}
	if (rc == 0 && ferror(f))
		rc = perr(&ps, "read error: %s", strerror(errno));
	if (rc == 0 && ps.line == 0) {
		ps.line = 1;
		rc = perr(&ps, "the file is empty, not a BPF bundle");
	}
	if (rc == 0 && !ps.seen_end)
		rc = perr(&ps, "no 'end' line: the bundle is cut short");
	free(text);
	fclose(f);
	for (size_t i = 0; i < b->nprogs; i++)
		free(ps.insn_lines ? ps.insn_lines[i] : NULL);
	free(ps.insn_lines);
	if (rc < 0) {
		bundle_free(b);
		return -1;
	}
	if (!b->module)
		b->module = default_module(path);
	qsort(b->progs, b->nprogs, sizeof(*b->progs), cmp_prog_id);
	return 0;
}

/* Everything bundle_parse allocated. */
void bundle_free(struct bundle *b)
{
	free(b->kaslr_sym);
	for (size_t i = 0; i < b->ntiming; i++) {
		free(b->timing[i].head);
		free(b->timing[i].from);
	}
	free(b->timing);
	b->kaslr_sym = NULL;
	for (size_t i = 0; i < b->nmaps; i++) {
		free(b->maps[i].keyspec);
		free(b->maps[i].valspec);
		free(b->maps[i].init);
		free(b->maps[i].name);
	}
	for (size_t i = 0; i < b->nfmts; i++) {
		free(b->fmts[i].argtypes);
		free(b->fmts[i].text);
	}
	for (size_t i = 0; i < b->nprogs; i++) {
		struct bundle_prog *p = &b->progs[i];

		free(p->section);
		free(p->pp);
		free(p->written);
		free((char *)p->at.symbol);
		free((char *)p->at.event);
		free(p->insns);
		for (size_t j = 0; j < p->nlines; j++)
			free(p->lines[j].pos);
		free(p->lines);
	}
	free(b->maps);
	free(b->fmts);
	free(b->progs);
	free(b->module);
	free(b->path);
	memset(b, 0, sizeof(*b));
}

/* The last line entry at or before index: the one covering it. */
const char *bundle_pos_of(const struct bundle_prog *p, size_t index)
{
	size_t lo = 0, hi = p->nlines;

	while (lo < hi) {	/* first entry past index */
		size_t mid = lo + (hi - lo) / 2;

		if (p->lines[mid].index <= index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? p->lines[lo - 1].pos : NULL;
}

/* begin, end, error and utimer programs run in stapbpf, the others in the
 * kernel. */
bool bundle_prog_is_user(const struct bundle_prog *p)
{
	return p->at.kind == BA_BEGIN || p->at.kind == BA_END || p->at.kind == BA_ERROR || p->at.kind == BA_UTIMER ||
	       p->at.kind == BA_PROCFS_READ || p->at.kind == BA_PROCFS_WRITE;
}

/* A map by its NAME field (@config ...). */
const struct bundle_map *bundle_find_map(const struct bundle *b, const char *name)
{
	for (size_t i = 0; i < b->nmaps; i++)
		if (!strcmp(b->maps[i].name, name))
			return &b->maps[i];
	return NULL;
}

/* A record's format: its ID may be anything, the kernel wrote it. */
const struct bundle_fmt *bundle_fmt_of(const struct bundle *b, uint64_t id)
{
	return id < b->nfmts && b->fmts[id].defined ? &b->fmts[id] : NULL;
}
