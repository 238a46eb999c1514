/* bundle.c - pass 3 of --runtime=bpf: the lowered unit (unit.h) written
 * as the bundle's text, line by line as doc/bpf-bundle.md gives it. */
#include <string.h>

#include "translate/bpf/unit.h"

/* text as the bundle quotes it: C escapes, \xNN for any other byte
 * outside printable ASCII (a NUL included) */
static void escape(struct strbuf *sb, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		switch (c) {
		case '\n': strbuf_addstr(sb, "\\n"); break;
		case '\t': strbuf_addstr(sb, "\\t"); break;
		case '\\': strbuf_addstr(sb, "\\\\"); break;
		case '"': strbuf_addstr(sb, "\\\""); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				strbuf_addf(sb, "\\x%02x", c);
			else
				strbuf_addch(sb, c);
		}
	}
}

/* A SECTION (doc/bpf-bundle.md): its kind's word, then the fields that
 * kind has, in stapbpf's order. */
static void attach_text(struct strbuf *sb, const struct bpf_attach *at)
{
	strbuf_addstr(sb, bpf_attach_word(at->kind));
	switch (at->kind) {
	case BA_KPROBE:
	case BA_KRETPROBE:
		strbuf_addf(sb, " %s %llu", at->symbol, (unsigned long long)at->offset);
		if (at->maxactive)   /* a kretprobe's: stapbpf makes it through tracefs */
			strbuf_addf(sb, " %d", at->maxactive);
		break;
	case BA_UPROBE:
	case BA_URETPROBE:
		strbuf_addf(sb, " %s %llu %llu %lld", at->symbol, (unsigned long long)at->offset,
			    (unsigned long long)at->ref_ctr, at->pid);
		break;
	case BA_TIMER:
	case BA_UTIMER:
		strbuf_addf(sb, " %lld", at->period);
		if (at->randomize)
			strbuf_addf(sb, " %lld", at->randomize);
		break;
	case BA_PROCFS_READ:
	case BA_PROCFS_WRITE:
		strbuf_addf(sb, " %lld %lld %s", at->offset, at->period, at->symbol);
		break;
	case BA_RAW_TRACEPOINT:
		strbuf_addf(sb, " %s", at->event);
		break;
	case BA_FENTRY:
	case BA_FEXIT:
		strbuf_addf(sb, " %s", at->symbol);
		break;
	case BA_TRACEPOINT:
		strbuf_addf(sb, " %s %s", at->symbol, at->event);
		break;
	case BA_PERF:
		strbuf_addf(sb, " %u %lld %lld", at->perf_type, at->perf_config, at->period);
		break;
	case BA_HWBKPT:
		strbuf_addf(sb, " %lld %d %d %d", at->bp_addr, at->bp_len, at->bp_rw, at->bp_linked);
		break;
	default:   /* begin, end, error, profile: the word alone */
		break;
	}
}

/* "prog N SECTION", its probe point, its line table, its instructions */
static void prog_text(struct strbuf *sb, int index, const struct bpf_prog *p)
{
	strbuf_addf(sb, "prog %d ", index);
	attach_text(sb, &p->at);
	if (p->pp)
		strbuf_addf(sb, "\npp %s", p->pp);
	if (p->from >= 0)
		strbuf_addf(sb, "\nfrom %d %s", p->from, p->written);
	strbuf_addstr(sb, p->at.optional ? "\noptional\n" : "\n");
	for (int i = 0; i < p->lines.len; i++) {
		const struct bpf_line *l = &p->lines.items[i];
		strbuf_addf(sb, "line %d %s:%d:%d\n", l->insn, l->pos.file->name, l->pos.line, l->pos.col);
	}
	for (int i = 0; i < p->n; i++) {
		const struct binsn *x = &p->insn[i];
		strbuf_addf(sb, "insn %u %u %u %d %d\n", x->code, x->dst, x->src, x->off, x->imm);
	}
}

void bpf_bundle_write(const struct bpf_unit *u, struct strbuf *out)
{
	strbuf_addf(out, "cstap-bpf 1\nmodule %s\n", u->module);
	if (u->kaslr)
		strbuf_addf(out, "kaslr kfree 0x%llx\n", (unsigned long long)u->kfree);
	if (u->strsz && u->strsz != BPF_STRSZ)
		strbuf_addf(out, "strsz %d\n", u->strsz);
	if (u->maxskipped >= 0)
		strbuf_addf(out, "maxskipped %lld\n", (long long)u->maxskipped);
	for (int i = 0; i < u->maps.len; i++) {
		const struct bpf_map *m = u->maps.items[i];
		strbuf_addf(out, "map %d %s %s %s %lld %s\n", i, m->kind, m->keyspec, m->valspec,
			    (long long)m->max, m->name);
	}
	for (int i = 0; i < u->rodata.len; i++) {
		strbuf_addf(out, "rodata %d ", u->rodata.items[i].id);
		escape(out, u->rodata.items[i].buf, u->rodata.items[i].len);
		strbuf_addch(out, '\n');
	}
	for (int i = 0; i < u->timing.len; i++) {
		strbuf_addf(out, "timing %d ", u->timing.items[i].id);
		escape(out, u->timing.items[i].buf, u->timing.items[i].len);
		strbuf_addch(out, '\n');
	}
	for (int i = 0; i < u->fmts.len; i++) {
		const struct bpf_fmt *f = &u->fmts.items[i];
		strbuf_addf(out, "fmt %d %s ", i, *f->types ? f->types : "-");
		escape(out, f->text, f->len);
		strbuf_addch(out, '\n');
	}
	for (int i = 0; i < u->progs.len; i++)
		prog_text(out, i, &u->progs.items[i]);
	strbuf_addstr(out, "end\n");
}
