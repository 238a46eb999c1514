/* modsig.c - see modsig.h. The signature is the kernel's own appendix
 * (modsig_format.h): a detached PKCS#7/CMS SignedData over the bytes before
 * it. It is verified with libcrypto against the trusted certificates only
 * (CMS_NOINTERN: the signer must be one of them; no chain is built, the
 * administrator trusts each certificate directly). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "modsig.h"
#include "modsig_format.h"
#include "trusted_path.h"

/* Does the name end in one of the certificate suffixes? */
static int cert_name(const char *name)
{
	static const char *const suffix[] = { ".pem", ".der", ".crt" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++)
		if (n > 4 && !strcmp(name + n - 4, suffix[i]))
			return 1;
	return 0;
}

/* The certificates of one open file (PEM, possibly several, or one DER)
 * onto certs. */
static void read_certs(int fd, STACK_OF(X509) *certs)
{
	BIO *b = BIO_new_fd(fd, BIO_NOCLOSE);
	X509 *x;
	int n = 0;

	if (!b)
		return;
	while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL)) && sk_X509_push(certs, x))
		n++;
	if (!n && BIO_reset(b) == 0 && lseek(fd, 0, SEEK_SET) == 0 && (x = d2i_X509_bio(b, NULL)))
		sk_X509_push(certs, x);
	ERR_clear_error();
	BIO_free(b);
}

/* Every certificate of a trusted directory (skipped when the directory or
 * a file in it is not root's alone: an administrator's mistake there must
 * not let a user add a signer). */
static void dir_certs(const char *path, STACK_OF(X509) *certs)
{
	char why[512];
	int dfd = trusted_dir_open(path, why, sizeof(why));
	DIR *d;
	struct dirent *e;

	if (dfd < 0)
		return;
	d = fdopendir(dup(dfd));
	while (d && (e = readdir(d))) {
		struct stat st;
		int fd;

		if (e->d_name[0] == '.' || !cert_name(e->d_name))
			continue;
		fd = trusted_file_open(dfd, e->d_name, &st, why, sizeof(why));
		if (fd < 0) {
			fprintf(stderr, "WARNING: staprun: certificate %s/%s ignored: %s\n", path, e->d_name, why);
			continue;
		}
		read_certs(fd, certs);
		close(fd);
	}
	if (d)
		closedir(d);
	close(dfd);
}

/* The last libcrypto error, as words. */
static const char *crypto_error(void)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	return r ? r : "unknown error";
}

/* MODSIG_TRUSTED when the CMS verifies against certs, with the signer. */
static void verify(CMS_ContentInfo *cms, const unsigned char *img, size_t content_len,
		   STACK_OF(X509) *certs, struct modsig_result *r)
{
	BIO *content = BIO_new_mem_buf(img, (int)content_len);
	STACK_OF(X509) *signers;

	if (content && CMS_verify(cms, certs, NULL, content, NULL,
				  CMS_BINARY | CMS_NOINTERN | CMS_NO_SIGNER_CERT_VERIFY)) {
		r->verdict = MODSIG_TRUSTED;
		signers = CMS_get0_signers(cms);
		if (signers && sk_X509_num(signers) > 0)
			X509_NAME_oneline(X509_get_subject_name(sk_X509_value(signers, 0)), r->signer,
					  sizeof(r->signer));
		sk_X509_free(signers);
	} else {
		int reason = ERR_GET_REASON(ERR_peek_last_error());

		snprintf(r->why, sizeof(r->why), "%s",
			 reason == CMS_R_SIGNER_CERTIFICATE_NOT_FOUND ? "it is not signed by a trusted signer"
			 : reason == CMS_R_CONTENT_VERIFY_ERROR || reason == CMS_R_VERIFICATION_FAILURE
				 ? "its signature does not match its content (altered after signing?)"
				 : crypto_error());
	}
	BIO_free(content);
}

void modsig_check(const unsigned char *img, size_t len, struct modsig_result *r)
{
	const unsigned char *sig, *p;
	size_t sig_len, content_len;
	STACK_OF(X509) *certs;
	CMS_ContentInfo *cms;
	int split;

	memset(r, 0, sizeof(*r));
	split = modsig_split(img, len, &content_len, &sig, &sig_len);
	if (split == 0)
		return;
	r->verdict = MODSIG_REFUSED;
	if (split < 0 || content_len > 0x7fffffff) {
		snprintf(r->why, sizeof(r->why), "its signature appendix is malformed");
		return;
	}
	/* no configuration file: a setuid program reads only what root wrote */
	OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
	p = sig;
	cms = d2i_CMS_ContentInfo(NULL, &p, (long)sig_len);
	if (!cms || p != sig + sig_len) {
		snprintf(r->why, sizeof(r->why), "its signature is not a well-formed PKCS#7 message");
		CMS_ContentInfo_free(cms);
		return;
	}
	certs = sk_X509_new_null();
	if (certs) {
		dir_certs(STAPRUN_CERT_DIR, certs);
		dir_certs(STAPRUN_SYSTEMTAP_CERT_DIR, certs);
	}
	if (!certs || sk_X509_num(certs) == 0)
		snprintf(r->why, sizeof(r->why), "no trusted signer is installed (%s/*.pem)", STAPRUN_CERT_DIR);
	else
		verify(cms, img, content_len, certs, r);
	sk_X509_pop_free(certs, X509_free);
	CMS_ContentInfo_free(cms);
	ERR_clear_error();
}
