/* bpf_ksym.c - kernel addresses named for stapbpf's interpreter: the
 * symbols of /proc/kallsyms, read on the first use and sorted by address.
 * A symbol holds the addresses up to the next one, the size the kernel's
 * %pS prints; past the last one, an address has no symbol. */
#include "bpf_ksym.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ksym {
	uint64_t addr;
	char *name;
	char *mod;		/* NULL: the kernel itself */
};

static struct ksym *syms;
static size_t nsyms;
static bool loaded;

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* One line of /proc/kallsyms: its address, name and module ("" for the
 * kernel); false for a line without a symbol or whose address reads 0
 * (kptr_restrict). */
static bool parse_line(const char *line, unsigned long long *addr, char name[256], char mod[128])
{
	char type;
	int k;

	mod[0] = '\0';
	k = sscanf(line, "%llx %c %255s [%127[^]]]", addr, &type, name, mod);
	return k >= 3 && *addr;
}

/* /proc/kallsyms into syms; none when it cannot be read or shows the
 * addresses as 0 (kptr_restrict), so that addresses print in hex. */
static void load(void)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512], name[256], mod[128];
	unsigned long long addr;
	size_t cap = 0;

	loaded = true;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!parse_line(line, &addr, name, mod))
			continue;
		if (nsyms == cap) {
			struct ksym *p = realloc(syms, (cap = cap ? 2 * cap : 65536) * sizeof(*syms));

			if (!p)
				break;
			syms = p;
		}
		syms[nsyms].addr = addr;
		syms[nsyms].name = strdup(name);
		syms[nsyms].mod = mod[0] ? strdup(mod) : NULL;
		if (!syms[nsyms].name)
			break;
		nsyms++;
	}
	fclose(f);
	qsort(syms, nsyms, sizeof(*syms), by_addr);
}

/* The last symbol at or below addr, when one above it follows (its end). */
static const struct ksym *holder(uint64_t addr)
{
	size_t lo = 0, hi = nsyms;

	while (lo < hi) {	/* the first symbol above addr: hi */
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (hi == 0 || hi == nsyms)
		return NULL;
	return &syms[hi - 1];
}

void bpf_ksym_name(char *out, size_t n, uint64_t addr, bool data)
{
	const struct ksym *k;

	if (!loaded)
		load();
	k = holder(addr);
	if (!k) {
		snprintf(out, n, "0x%llx", (unsigned long long)addr);
		return;
	}
	if (!data) {
		snprintf(out, n, "%s", k->name);
		return;
	}
	snprintf(out, n, "%s+0x%llx/0x%llx [%s]", k->name, (unsigned long long)(addr - k->addr),
		 (unsigned long long)(k[1].addr - k->addr), k->mod ? k->mod : "kernel");
}

uint64_t bpf_ksym_addr(const char *name)
{
	char line[512], sym[256], mod[128];
	unsigned long long addr;
	FILE *f;

	if (loaded) {
		for (size_t i = 0; i < nsyms; i++)
			if (!syms[i].mod && !strcmp(syms[i].name, name))
				return syms[i].addr;
		return 0;
	}
	f = fopen("/proc/kallsyms", "re");   /* one symbol: no table (a loader's KASLR offset) */
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (parse_line(line, &addr, sym, mod) && !mod[0] && !strcmp(sym, name)) {
			fclose(f);
			return addr;
		}
	fclose(f);
	return 0;
}
