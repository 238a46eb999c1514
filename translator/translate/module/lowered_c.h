/* lowered_c.h - the module backend's C for the lowered form (lowered.h). */
#ifndef CSTAP_LOWERED_C_H
#define CSTAP_LOWERED_C_H

#include "lowered.h"

/* x as an int64_t C expression over runtime/deref.h's reads; ptr and idx
 * are the C of the operands (LX_PTR, LX_INDEX). */
char *lx_to_c(const struct lx *x, const char *ptr, char *const *idx, int nidx);
/* The statements appending the text of pretty-printed items v to the
 * string str (a char *), with operands as lx_to_c's. */
void lp_to_c(struct strbuf *out, const lpvec *v, const char *str, const char *ptr, char *const *idx, int nidx);

#endif
