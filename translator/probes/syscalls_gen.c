/* syscalls_gen.c - the syscall.* tapset, generated for the target kernel.
 *
 * Instead of a hand-written alias per system call, pass 2 reads the
 * kernel's own syscall metadata (struct syscall_metadata __syscall_meta__NAME:
 * the argument names and C types SYSCALL_DEFINEn wrote down) from its
 * image and writes, as SystemTap source parsed like any tapset file:
 *
 *   probe syscall.NAME = kernel.function("__x64_sys_NAME") {
 *           name = "NAME"; ARG = ...; argstr = sprintf(...) }
 *   probe syscall.NAME.return = kernel.function("__x64_sys_NAME").return {
 *           name = "NAME"; retval = $return; retstr = ... }
 *
 * Arguments come from the saved user registers (`$regs`, the x86-64
 * syscall convention: rdi rsi rdx r10 r8 r9), cut to their C type's size;
 * `const char __user *` arguments are also given as quoted user strings
 * (`filename`), as SystemTap's tapset gives them. argstr is generic (numbers,
 * pointers in hex, strings quoted) where SystemTap decodes flags by hand.
 */
#include <gelf.h>
#include <string.h>

#include "dwarf_debuginfo.h"
#include "ksyms.h"
#include "tvars.h"

#define META "__syscall_meta__"

static bool img_read(Elf *elf, uint64_t addr, void *buf, size_t n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr + n > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr + n > d->d_size)
			return false;
		memcpy(buf, (char *)d->d_buf + (addr - sh.sh_addr), n);
		return true;
	}
	return false;
}

/* A NUL-terminated string of the image at a pointer stored at addr. */
static char *img_str_at(Elf *elf, uint64_t ptr_addr)
{
	uint64_t p;
	char buf[128];

	if (!img_read(elf, ptr_addr, &p, 8))
		return NULL;
	for (size_t i = 0; i < sizeof(buf); i++) {
		if (!img_read(elf, p + i, &buf[i], 1))
			return NULL;
		if (!buf[i])
			return xstrdup(buf);
	}
	return NULL;
}

static const char *const arg_regs[] = { "di", "si", "dx", "r10", "r8", "r9" };

/* Is the C type a user-space string? (Every pointer a system call takes is
 * a user pointer; the metadata drops the __user marks.) */
static bool is_user_string(const char *type)
{
	const char *star = strchr(type, '*');

	return strstr(type, "char") && star && !strchr(star + 1, '*');
}

/* The argument's value from its register, cut to the type's size. */
static char *arg_value(const char *type, int i)
{
	char *reg = xasprintf("$regs->%s", arg_regs[i]);

	if (strchr(type, '*') || strstr(type, "long") || strstr(type, "size_t") || strstr(type, "loff_t") ||
	    strstr(type, "u64") || strstr(type, "s64") || strstr(type, "off_t") || strstr(type, "time_t"))
		return reg;
	if (!strncmp(type, "unsigned", 8) || strstr(type, "u32") || strstr(type, "uid_t") ||
	    strstr(type, "gid_t") || strstr(type, "umode_t") || strstr(type, "mode_t") ||
	    strstr(type, "fmode_t"))
		return xasprintf("(%s & 0xffffffff)", reg);
	/* int, pid_t, and the other 32-bit signed types */
	return xasprintf("((%s << 32) >> 32)", reg);
}

/* An argument name usable as a script variable: the alias's own
 * variables and the language's reserved words get "_arg" appended. */
static char *var_name(const char *arg)
{
	static const char *const taken[] = { "name", "argstr", "retstr", "retval", "probe", "global",
		"function", "if", "else", "for", "foreach", "in", "limit", "return", "delete", "while",
		"break", "continue", "next", "string", "long", "try", "catch", "private", NULL };

	for (int i = 0; taken[i]; i++)
		if (!strcmp(arg, taken[i]))
			return xasprintf("%s_arg", arg);
	return xstrdup(arg);
}

static void gen_one(struct strbuf *o, const char *name, int nargs, char **types, char **args)
{
	const char *fn = nargs ? "kernel.function(\"__x64_sys_%s\")" : "kprobe.function(\"__x64_sys_%s\")";
	struct strbuf fmt = STRBUF_INIT, vals = STRBUF_INIT;

	strbuf_addf(o, "probe syscall.%s = ", name);
	strbuf_addf(o, fn, name);
	strbuf_addf(o, " ?\n{\n\tname = \"%s\"\n", name);
	for (int i = 0; i < nargs; i++) {
		char *v = arg_value(types[i], i);
		if (is_user_string(types[i])) {
			strbuf_addf(o, "\t%s_uaddr = %s\n\t%s = user_string_quoted(%s)\n", args[i], v, args[i], v);
			strbuf_addf(&fmt, "%s%%s", i ? ", " : "");
			strbuf_addf(&vals, ", %s", args[i]);
		} else {
			strbuf_addf(o, "\t%s = %s\n", args[i], v);
			strbuf_addf(&fmt, "%s%s", i ? ", " : "", strchr(types[i], '*') ? "%p" : "%d");
			strbuf_addf(&vals, ", %s", args[i]);
		}
		free(v);
	}
	strbuf_addf(o, "\targstr = sprintf(\"%s\"%s)\n}\n", fmt.buf ? fmt.buf : "", vals.buf ? vals.buf : "");
	strbuf_addf(o, "probe syscall.%s.return = ", name);
	strbuf_addf(o, fn, name);
	strbuf_addf(o, ".return ?\n{\n\tname = \"%s\"\n\tretval = $return\n"
		    "\tretstr = retval < 0 ? sprintf(\"%%d (%%s)\", retval, errno_str(-retval)) : sprintf(\"%%d\", retval)\n}\n",
		    name);
	strbuf_release(&fmt);
	strbuf_release(&vals);
}

char *syscalls_tapset(struct session *s, const char **why)
{
	struct dw_image *img = dw_kernel(s, why);
	const struct ksymtab *syms = img ? ksyms_kernel(s, why) : NULL;
	Elf *elf = img ? dwarf_getelf(img->dbg) : NULL;
	long o_name, o_nb, o_types, o_args;
	struct strbuf out = STRBUF_INIT;
	int n = 0;

	if (!elf || !syms)
		return NULL;
	o_name = dw_member_offset(img, "struct syscall_metadata", "name");
	o_nb = dw_member_offset(img, "struct syscall_metadata", "nb_args");
	o_types = dw_member_offset(img, "struct syscall_metadata", "types");
	o_args = dw_member_offset(img, "struct syscall_metadata", "args");
	if (o_name < 0 || o_nb < 0 || o_types < 0 || o_args < 0) {
		*why = "the kernel has no syscall metadata (CONFIG_FTRACE_SYSCALLS)";
		return NULL;
	}
	strbuf_addstr(&out, "// generated by cstap from the kernel's syscall metadata\n");
	for (size_t i = 0; i < syms->n; i++) {
		const struct ksym *k = &syms->syms[i];
		int32_t nb;
		uint64_t tp, ap;
		char *types[6], *args[6];
		if (strncmp(k->name, META, strlen(META)))
			continue;
		const char *name = k->name + strlen(META);
		if (!img_read(elf, k->addr + o_nb, &nb, 4) || nb < 0 || nb > 6 ||
		    !img_read(elf, k->addr + o_types, &tp, 8) || !img_read(elf, k->addr + o_args, &ap, 8))
			continue;
		bool ok = true;
		for (int a = 0; a < nb && ok; a++) {
			types[a] = img_str_at(elf, tp + 8 * a);
			args[a] = img_str_at(elf, ap + 8 * a);
			ok = types[a] && args[a];
		}
		if (!ok)
			continue;
		for (int a = 0; a < nb; a++)
			args[a] = var_name(args[a]);
		gen_one(&out, name, nb, types, args);
		n++;
	}
	if (!n) {
		strbuf_release(&out);
		*why = "no syscall metadata found in the kernel image";
		return NULL;
	}
	return strbuf_detach(&out);
}
