/* modsign.c - see modsign.h. The signature is a detached CMS SignedData
 * (PKCS#7 on the wire) with SHA-256, the signer named by issuer and serial
 * number, no certificates and no signed attributes: the form the kernel's
 * module loader parses. It is written by libcrypto, not by kbuild's
 * sign-file, so signing needs no kernel build tree. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "modsig_format.h"
#include "modsign.h"
#include "util.h"

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* -1 with the reason (and libcrypto's last error, if any) in err[] */
static int fail(char *err, size_t size, const char *fmt, ...)
{
	unsigned long e = ERR_peek_last_error();
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(err, size, fmt, ap);
	va_end(ap);
	if (e && n >= 0 && (size_t)n < size)
		snprintf(err + n, size - n, " (%s)", ERR_reason_error_string(e) ? ERR_reason_error_string(e) : "libcrypto");
	ERR_clear_error();
	return -1;
}

/* A private key from a PEM or DER file, or NULL. */
static EVP_PKEY *read_key(const char *path)
{
	BIO *b = BIO_new_file(path, "rb");
	EVP_PKEY *k;

	if (!b)
		return NULL;
	k = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	if (!k && BIO_reset(b) == 0)
		k = d2i_PrivateKey_bio(b, NULL);
	BIO_free(b);
	return k;
}

/* A certificate from a PEM or DER file, or NULL. */
static X509 *read_cert(const char *path)
{
	BIO *b = BIO_new_file(path, "rb");
	X509 *x;

	if (!b)
		return NULL;
	x = PEM_read_bio_X509(b, NULL, NULL, NULL);
	if (!x && BIO_reset(b) == 0)
		x = d2i_X509_bio(b, NULL);
	BIO_free(b);
	return x;
}

/* The DER signature of data[0..len) into *der (OPENSSL_malloc'd); its length, or -1. */
static int sign_bytes(const unsigned char *data, size_t len, EVP_PKEY *key, X509 *cert, unsigned char **der)
{
	const int flags = CMS_NOCERTS | CMS_BINARY | CMS_DETACHED | CMS_PARTIAL;
	BIO *in = BIO_new_mem_buf(data, (int)len);
	CMS_ContentInfo *cms = CMS_sign(NULL, NULL, NULL, NULL, flags);
	int n = -1;

	if (in && cms &&
	    CMS_add1_signer(cms, cert, key, EVP_sha256(), CMS_NOCERTS | CMS_BINARY | CMS_NOSMIMECAP | CMS_NOATTR) &&
	    CMS_final(cms, in, NULL, flags))
		n = i2d_CMS_ContentInfo(cms, der);
	CMS_ContentInfo_free(cms);
	BIO_free(in);
	return n;
}

/* img[0..len) with the signature appended, written to out through a
 * temporary file renamed into place. */
static int write_signed(const char *out, const unsigned char *img, size_t len, const unsigned char *sig,
			int sig_len)
{
	struct modsig_info info = { .id_type = MODSIG_ID_PKCS7 };
	char *tmp = xasprintf("%s.signXXXXXX", out);
	int fd = mkstemp(tmp), ok;
	mode_t mask = umask(0);
	FILE *f;

	umask(mask);
	if (fd >= 0)   /* as any file written: mkstemp's 0600 is for the name's sake */
		fchmod(fd, 0666 & ~mask);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;

	info.sig_len_be[0] = (unsigned)sig_len >> 24;
	info.sig_len_be[1] = (unsigned)sig_len >> 16;
	info.sig_len_be[2] = (unsigned)sig_len >> 8;
	info.sig_len_be[3] = (unsigned)sig_len;
	ok = f && fwrite(img, 1, len, f) == len && fwrite(sig, 1, sig_len, f) == (size_t)sig_len &&
	     fwrite(&info, 1, sizeof(info), f) == sizeof(info) &&
	     fwrite(MODSIG_MAGIC, 1, MODSIG_MAGIC_LEN, f) == MODSIG_MAGIC_LEN;
	if (f)
		ok = (fclose(f) == 0) && ok;
	else if (fd >= 0)
		close(fd);
	ok = ok && fd >= 0 && rename(tmp, out) == 0;
	if (!ok && fd >= 0)
		unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

int module_sign(const char *in, const char *out, const char *key_path, const char *cert_path, char *err,
		size_t errsize)
{
	size_t len, content_len, old_len;
	const unsigned char *old_sig;
	unsigned char *img = (unsigned char *)read_file(in, &len), *der = NULL;
	EVP_PKEY *key = NULL;
	X509 *cert = NULL;
	int n, rc = -1;

	if (!img)
		return fail(err, errsize, "cannot read %s: %s", in, strerror(errno));
	if (modsig_split(img, len, &content_len, &old_sig, &old_len) == 1)
		len = content_len;	/* signed again: the old signature goes */
	if (!(key = read_key(key_path)))
		fail(err, errsize, "cannot read the private key %s", key_path);
	else if (!(cert = read_cert(cert_path)))
		fail(err, errsize, "cannot read the certificate %s", cert_path);
	else if (X509_check_private_key(cert, key) != 1)
		fail(err, errsize, "the key %s is not the certificate %s's", key_path, cert_path);
	else if (len > 0x7fffffff || (n = sign_bytes(img, len, key, cert, &der)) <= 0)
		fail(err, errsize, "cannot sign %s", in);
	else if (write_signed(out, img, len, der, n) < 0)
		fail(err, errsize, "cannot write %s: %s", out, strerror(errno));
	else
		rc = 0;
	OPENSSL_free(der);
	X509_free(cert);
	EVP_PKEY_free(key);
	free(img);
	return rc;
}
