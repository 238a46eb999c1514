/* modsign.h - pass 4's last step with --sign-key/--sign-cert: the module
 * gets the kernel's own appended signature (staprun/modsig_format.h), which
 * staprun checks for unprivileged users and a kernel that enforces module
 * signatures checks against the keys it trusts. */
#ifndef CSTAP_MODSIGN_H
#define CSTAP_MODSIGN_H

#include <stddef.h>

/* Write `out`: module `in` (without the signature it may have) signed with
 * the private key and certificate files (PEM or DER). 0, or -1 with the
 * reason in err[]. */
int module_sign(const char *in, const char *out, const char *key_path, const char *cert_path, char *err,
		size_t errsize);

#endif /* CSTAP_MODSIGN_H */
