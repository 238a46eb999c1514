/* parse_fuzz.c - fuzz target for pass 1: lexer, preprocessor, parser and the
 * unparser of whatever parsed.
 *
 * Built two ways (see run-fuzz.sh and regress.sh):
 *   -fsanitize=fuzzer,address,undefined   libFuzzer drives LLVMFuzzerTestOneInput
 *   -DPARSE_FUZZ_MAIN -fsanitize=address,undefined
 *                                         a plain program: parse_fuzz FILE...
 *                                         runs each file once (regressions)
 *
 * One input is one script file. If its first line is "#! stap ... -g..." (as
 * in SystemTap's testsuite) it is parsed in guru mode, so the seeds keep
 * their meaning. Script arguments $1..$3 are fixed.
 *
 * The parser never frees its tree (stap is short-lived), which would make a
 * long fuzzing run grow without bound. Under ASan the harness therefore
 * records, through the sanitizer's malloc/free hooks, every block allocated
 * by this thread during one input and frees what is left afterwards.
 * Long-lived state (the session, the library macros, the kernel config) is
 * created by a warm-up parse before recording starts.
 *
 * CSTAP_FUZZ_ROUNDTRIP=1 also re-parses the unparsed text and aborts if its
 * unparse differs (the -p1 round trip, under the fuzzer).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ast.h"
#include "diag.h"
#include "session.h"

#ifndef TAPSET_DIR
#define TAPSET_DIR ""
#endif

/* ---- per-input allocation tracking (ASan only) --------------------------- */

int __sanitizer_install_malloc_and_free_hooks(void (*m)(const volatile void *, size_t),
					      void (*f)(const volatile void *)) __attribute__((weak));

#define SET_BITS 24
#define SET_SIZE ((size_t)1 << SET_BITS)
#define LOG_SIZE ((size_t)1 << 24)

static uintptr_t *live;         /* open-addressing set of live blocks */
static uintptr_t *alloc_log;    /* every block recorded, in order */
static size_t nlog;
static __thread int recording;  /* only the fuzzing thread, only inside one input */
static int overflowed;

static size_t slot_of(uintptr_t p)
{
	return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> (64 - SET_BITS));
}

static void set_add(uintptr_t p)
{
	size_t i = slot_of(p);

	while (live[i] && live[i] != p)
		i = (i + 1) & (SET_SIZE - 1);
	live[i] = p;
}

/* Linear probing with backward-shift deletion, so no tombstones build up. */
static int set_remove(uintptr_t p)
{
	size_t i = slot_of(p), j;

	while (live[i] != p) {
		if (!live[i])
			return 0;
		i = (i + 1) & (SET_SIZE - 1);
	}
	live[i] = 0;
	j = i;
	for (;;) {
		size_t home;

		j = (j + 1) & (SET_SIZE - 1);
		if (!live[j])
			return 1;
		home = slot_of(live[j]);
		/* move live[j] back to i unless its home lies cyclically in (i, j] */
		if ((i <= j) ? (home <= i || home > j) : (home <= i && home > j)) {
			live[i] = live[j];
			live[j] = 0;
			i = j;
		}
	}
}

/* Called by the sanitizer allocator: must not allocate. */
static void on_malloc(const volatile void *ptr, size_t size)
{
	(void)size;
	if (!recording || !ptr)
		return;
	if (nlog == LOG_SIZE || nlog > SET_SIZE / 2) {
		overflowed = 1; /* give up on this input: it leaks, nothing breaks */
		return;
	}
	alloc_log[nlog++] = (uintptr_t)ptr;
	set_add((uintptr_t)ptr);
}

static void on_free(const volatile void *ptr)
{
	if (recording && ptr)
		set_remove((uintptr_t)ptr);
}

static void tracking_init(void)
{
	if (!__sanitizer_install_malloc_and_free_hooks)
		return;
	live = mmap(NULL, SET_SIZE * sizeof(*live), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	alloc_log = mmap(NULL, LOG_SIZE * sizeof(*alloc_log), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (live == MAP_FAILED || alloc_log == MAP_FAILED) {
		live = alloc_log = NULL;
		return;
	}
	__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}

static void tracking_start(void)
{
	if (live) {
		nlog = 0;
		overflowed = 0;
		recording = 1;
	}
}

/* Free every block of this input that is still live and empty the set. */
static void tracking_release(void)
{
	if (!live)
		return;
	recording = 0;
	for (size_t i = 0; i < nlog; i++)
		if (set_remove(alloc_log[i]))
			free((void *)alloc_log[i]);
	nlog = 0;
}

/* ---- the target ----------------------------------------------------------- */

static struct session *sess;

/* "#! stap -gp1" and the like: guru mode, as the testsuite runs it. */
static bool wants_guru(const char *text)
{
	size_t n = strcspn(text, "\n");
	bool in_opt = false;

	if (strncmp(text, "#!", 2) != 0)
		return false;
	for (size_t i = 2; i < n; i++) {
		if (text[i] == ' ')
			in_opt = false;
		else if (text[i] == '-' && text[i - 1] == ' ')
			in_opt = true;
		else if (in_opt && text[i] == 'g')
			return true;
	}
	return false;
}

static struct script *parse_text(const char *name, const char *text, size_t len)
{
	struct srcfile *f = srcfile_new(name, xstrndup(text, len), len);

	sess->errors = 0;
	sess->warnings = 0;
	return parse_script(sess, f);
}

/* Parse one input; unparse what parsed (and with CSTAP_FUZZ_ROUNDTRIP, check
 * that the unparsed text parses again to the same text). */
static void run_one(const uint8_t *data, size_t size)
{
	struct strbuf out = STRBUF_INIT, again = STRBUF_INIT;
	struct script *sc;
	char *text;

	if (memchr(data, 0, size))
		return; /* stap refuses files with NUL bytes before parsing */
	text = xstrndup((const char *)data, size);
	sess->guru = wants_guru(text);
	sc = parse_text("<fuzz>", text, size);
	if (sc && !sess->errors) {
		unparse_script(&out, sc);
		if (getenv("CSTAP_FUZZ_ROUNDTRIP")) {
			struct script *sc2 = parse_text("<unparsed>", out.buf, out.len);

			if (sc2)
				unparse_script(&again, sc2);
			if (!sc2 || strcmp(out.buf, again.buf) != 0) {
				fprintf(stderr, "round trip failed; first unparse:\n%s\nsecond:\n%s\n",
					out.buf, again.buf);
				abort();
			}
		}
	}
	strbuf_release(&out);
	strbuf_release(&again);
	free(text);
}

/* One session for the whole run, and a warm-up that makes the preprocessor
 * load the library macros and the kernel config outside any recording. */
static void setup(void)
{
	static const char warm[] =
		"%( CONFIG_SMP == \"y\" && kernel_v >= \"2.6\" && arch == \"x86_64\" %?"
		" probe begin { println($1, @2) } %: probe end { } %)\n"
		"probe begin { printf(\"%d\\n\", 1 ; }\n";

	if (sess)
		return;
	sess = xcalloc(1, sizeof(*sess));
	sess->last_pass = 1;
	sess->arch = NULL;
	if (TAPSET_DIR[0])
		vec_push(&sess->include_dirs, xstrdup(TAPSET_DIR));
	vec_push(&sess->args, xstrdup("42"));
	vec_push(&sess->args, xstrdup("hello"));
	vec_push(&sess->args, xstrdup("x + 1"));
	run_one((const uint8_t *)warm, sizeof(warm) - 1);
	tracking_init();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	tracking_start();
	run_one(data, size);
	tracking_release();
	return 0;
}

#ifdef PARSE_FUZZ_MAIN
/* parse_fuzz FILE...: run each file through the target once. Exit 0 unless a
 * file cannot be read; crashes and sanitizer reports end the process. */
int main(int argc, char **argv)
{
	int rc = 0;

	for (int i = 1; i < argc; i++) {
		size_t len;
		char *text = read_file(argv[i], &len);

		if (!text) {
			perror(argv[i]);
			rc = 2;
			continue;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)text, len);
		free(text);
	}
	return rc;
}
#endif
