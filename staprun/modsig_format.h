/* modsig_format.h - the kernel's appended module signature, as
 * Documentation/admin-guide/module-signing.rst describes it:
 *
 *     [module ELF] [PKCS#7 signature, DER] [struct modsig_info] "~Module signature appended~\n"
 *
 * stap --sign-key writes it (translator/build/modsign.c), staprun checks it
 * (staprun/modsig.c), and the kernel checks it too when it enforces
 * signatures. Used by both programs: definitions only, no state.
 */
#ifndef CSTAP_MODSIG_FORMAT_H
#define CSTAP_MODSIG_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MODSIG_MAGIC "~Module signature appended~\n"
#define MODSIG_MAGIC_LEN (sizeof(MODSIG_MAGIC) - 1)
#define MODSIG_ID_PKCS7 2	/* the kernel's PKEY_ID_PKCS7 */

/* The kernel's struct module_signature: for PKCS#7 every field but
 * id_type and sig_len is zero (the signer is named inside the PKCS#7). */
struct modsig_info {
	uint8_t algo, hash, id_type, signer_len, key_id_len, pad[3];
	uint8_t sig_len_be[4];	/* big-endian */
};

/* Where an image's signature is: 1 with *content_len (the signed bytes,
 * from 0), *sig and *sig_len set; 0 when the image ends without the magic
 * (unsigned); -1 when it has the magic but not a well-formed PKCS#7
 * appendix. Never reads outside img[0..len). */
static inline int modsig_split(const unsigned char *img, size_t len, size_t *content_len,
			       const unsigned char **sig, size_t *sig_len)
{
	const struct modsig_info *info;
	size_t tail = sizeof(*info) + MODSIG_MAGIC_LEN, n;

	if (len < MODSIG_MAGIC_LEN || memcmp(img + len - MODSIG_MAGIC_LEN, MODSIG_MAGIC, MODSIG_MAGIC_LEN))
		return 0;
	if (len < tail)
		return -1;
	info = (const void *)(img + len - tail);
	n = (size_t)info->sig_len_be[0] << 24 | (size_t)info->sig_len_be[1] << 16 |
	    (size_t)info->sig_len_be[2] << 8 | info->sig_len_be[3];
	if (info->id_type != MODSIG_ID_PKCS7 || info->algo || info->hash || info->signer_len ||
	    info->key_id_len || n == 0 || n > len - tail)
		return -1;
	*sig = img + len - tail - n;
	*sig_len = n;
	*content_len = len - tail - n;
	return 1;
}

#endif /* CSTAP_MODSIG_FORMAT_H */
