/* translate.h - pass 3 internals shared with providers. */
#ifndef CSTAP_TRANSLATE_H
#define CSTAP_TRANSLATE_H

#include "session.h"

/* Write the module source for the elaborated session into out. */
int translate(struct session *s, struct strbuf *out);
/* C name of a global variable. */
char *global_cname(const struct sym *v);

#endif
