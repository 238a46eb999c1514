/* kfeatures.h - the target kernel's features, tested by compiling (see kfeatures.c). */
#ifndef CSTAP_KFEATURES_H
#define CSTAP_KFEATURES_H

#include "session.h"

/* The text of stp_kfeatures.h for s's kernel (cached after the first build
 * for that kernel), or NULL after a B_KFEATURES error. */
char *kfeatures_header(struct session *s);

#endif
