/* bpf_funcinfo.c - BTF for the functions of a program with callbacks (see
 * bpf_funcinfo.h). The types: int, a prototype int(void), and two static
 * functions of it, "stap_main" and "stap_callback"; the verifier checks a
 * static function's arguments by what its caller passes, not by BTF. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <bpf/btf.h>

#include "bpf_funcinfo.h"

static struct btf *btf;
static int main_id, callback_id;

/* The BTF, made and loaded once. */
static int load_btf(void)
{
	int int_id, proto;

	if (btf)
		return 0;
	btf = btf__new_empty();
	if (!btf)
		return -errno;
	int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	proto = int_id > 0 ? btf__add_func_proto(btf, int_id) : -EINVAL;
	main_id = proto > 0 ? btf__add_func(btf, "stap_main", BTF_FUNC_STATIC, proto) : -EINVAL;
	callback_id = main_id > 0 ? btf__add_func(btf, "stap_callback", BTF_FUNC_STATIC, proto) : -EINVAL;
	if (callback_id < 0 || btf__load_into_kernel(btf) < 0) {
		int err = callback_id < 0 ? callback_id : -errno;
		btf__free(btf);
		btf = NULL;
		return err;
	}
	return 0;
}

static int by_offset(const void *a, const void *b)
{
	uint32_t x = ((const struct bpf_func_info *)a)->insn_off;
	uint32_t y = ((const struct bpf_func_info *)b)->insn_off;

	return x < y ? -1 : x > y;
}

int funcinfo_make(const struct bpf_insn *insns, size_t ninsns, struct funcinfo *fi)
{
	int err;

	fi->rec = NULL;
	fi->n = 0;
	for (size_t i = 0; i + 1 < ninsns; i++) {
		if (insns[i].code != (BPF_LD | BPF_IMM | BPF_DW))
			continue;
		if (insns[i].src_reg == BPF_PSEUDO_FUNC) {
			uint32_t at = (uint32_t)((int64_t)i + 1 + insns[i].imm);
			bool seen = false;
			for (uint32_t k = 0; k < fi->n && !seen; k++)
				seen = fi->rec[k].insn_off == at;
			if (!seen) {
				struct bpf_func_info *r = realloc(fi->rec, (fi->n + 2) * sizeof(*r));
				if (!r) {
					funcinfo_free(fi);
					return -ENOMEM;
				}
				fi->rec = r;
				fi->rec[fi->n++] = (struct bpf_func_info){ at, 0 };
			}
		}
		i++;
	}
	if (!fi->n)
		return 0;
	err = load_btf();
	if (err < 0) {
		funcinfo_free(fi);
		return err;
	}
	for (uint32_t k = 0; k < fi->n; k++)
		fi->rec[k].type_id = (uint32_t)callback_id;
	fi->rec[fi->n++] = (struct bpf_func_info){ 0, (uint32_t)main_id };
	qsort(fi->rec, fi->n, sizeof(*fi->rec), by_offset);
	fi->btf_fd = btf__fd(btf);
	return 0;
}

void funcinfo_free(struct funcinfo *fi)
{
	free(fi->rec);
	fi->rec = NULL;
	fi->n = 0;
}
