/* modsig.h - is a module image signed by a signer the administrator
 * trusts? The trusted signers are the certificates (*.pem, *.der, *.crt)
 * in /etc/cstap/staprun/ and, when it exists, SystemTap's
 * /etc/systemtap/staprun/, both checked root's alone (trusted_path.h). */
#ifndef STAPRUN_MODSIG_H
#define STAPRUN_MODSIG_H

#include <stddef.h>

#ifndef STAPRUN_CERT_DIR
#define STAPRUN_CERT_DIR "/etc/cstap/staprun"
#endif
#define STAPRUN_SYSTEMTAP_CERT_DIR "/etc/systemtap/staprun"

enum modsig_verdict {
	MODSIG_UNSIGNED,	/* no signature appended */
	MODSIG_TRUSTED,		/* signed by a trusted certificate, content intact */
	MODSIG_REFUSED,		/* malformed, altered, or signed by a signer not trusted */
};

struct modsig_result {
	enum modsig_verdict verdict;
	char signer[256];	/* MODSIG_TRUSTED: the certificate's subject */
	char why[512];		/* MODSIG_REFUSED: the reason */
};

/* Check img[0..len) against the trusted certificates. */
void modsig_check(const unsigned char *img, size_t len, struct modsig_result *r);

#endif /* STAPRUN_MODSIG_H */
