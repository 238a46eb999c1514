/* ftrace_sites.c - the kernel's __mcount_loc table (see ftrace_sites.h). */
#include "ftrace_sites.h"

#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The values of __start_mcount_loc..__stop_mcount_loc, the link-time
 * addresses of every __fentry__ call, sorted. The table lives in
 * .init.data, which the -dbg vmlinux keeps. */
static void read_sites(struct dw_image *img)
{
	int fd;
	Elf *e = elf_file_open(img->path, &fd);
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh;
	uint64_t start = 0, stop = 0;

	img->ftrace_sites_read = true;
	while (e && (scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			symscn = scn;
	if (symscn && gelf_getshdr(symscn, &sh)) {
		Elf_Data *d = elf_getdata(symscn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < n && (!start || !stop); i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym) ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)))
				continue;
			if (!strcmp(name, "__start_mcount_loc"))
				start = sym.st_value;
			else if (!strcmp(name, "__stop_mcount_loc"))
				stop = sym.st_value;
		}
	}
	scn = NULL;
	while (start && stop > start && (scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    start < sh.sh_addr || stop > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = (size_t)(stop - start) / 8;
		if (!d || !d->d_buf || d->d_size < stop - sh.sh_addr)
			break;
		img->ftrace_sites = xmalloc(n * sizeof(uint64_t));
		memcpy(img->ftrace_sites, (char *)d->d_buf + (start - sh.sh_addr), n * 8);
		qsort(img->ftrace_sites, n, sizeof(uint64_t), cmp_u64);
		img->n_ftrace_sites = n;
		break;
	}
	elf_file_close(e, fd);
}

bool ftrace_site_of(struct dw_image *img, uint64_t addr, uint64_t *site)
{
	size_t lo = 0, hi;

	if (img->module || img->user)
		return false;
	if (!img->ftrace_sites_read)
		read_sites(img);
	hi = img->n_ftrace_sites;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (img->ftrace_sites[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == img->n_ftrace_sites)
		return false;
	/* x86: the call is the first instruction, or follows endbr64 */
	if (img->ftrace_sites[lo] != addr && img->ftrace_sites[lo] != addr + 4)
		return false;
	*site = img->ftrace_sites[lo];
	return true;
}
