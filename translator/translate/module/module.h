/* module.h - pass 3 for the module runtime (translate/module/): the
 * module's C source. */
#ifndef CSTAP_MODULE_H
#define CSTAP_MODULE_H

#include "session.h"

/* Write the module source for the elaborated session into out. */
int translate_module(struct session *s, struct strbuf *out);
/* C name of a global variable. */
char *global_cname(const struct sym *v);

#endif
