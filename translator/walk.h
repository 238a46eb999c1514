/* walk.h - one walk over the syntax tree, for the passes that look at
 * every node but do their work on a few kinds.
 *
 * A `struct walker` holds callbacks and a context pointer. walk_stmt() and
 * walk_expr() call the pre-order callback on a node, then walk each of its
 * children, each exactly once, in the order they are written in the source,
 * then call the post-order callback. NULL children are skipped; so are
 * callbacks left NULL (the node's children are still walked).
 *
 * A pre-order callback answers with one of:
 *
 *   WALK_DESCEND   walk the children, then call the post-order callback;
 *   WALK_SKIP      the callback handled this node (it may walk some children
 *                  itself, with the same walker): neither the children nor
 *                  the post-order callback;
 *   WALK_STOP      end the whole walk: every walk_*() call on the way up
 *                  returns false.
 *
 * Children of a statement, in this order (a kind leaves the fields it does
 * not use NULL or empty, so the order is the source order for every kind):
 *
 *   stmts      STMT_BLOCK's statements
 *   init       STMT_FOR's initialiser
 *   expr       the condition of if / while / for, an expression statement,
 *              return's value, delete's operand
 *   step       STMT_FOR's step
 *   value      foreach's "v =" variable
 *   keys       foreach's key variables
 *   array      foreach's array, array slice or histogram
 *   limit      foreach's limit
 *   body       if's then-branch, a loop's body, try's body
 *   catch_var  try's catch variable
 *   els        if's else-branch, try's catch handler
 *
 * Children of an expression, in this order: lhs, rhs, the args, then the
 * [index] expressions of its member chain. EXPR_IN is written `[keys] in
 * array`: its args (the keys) come before its lhs (the array).
 *
 * Function bodies reached through calls are not walked (a callback may walk
 * e->func->body). Statements never sit inside expressions: a walker without
 * expression callbacks does not descend into expressions at all.
 */
#ifndef CSTAP_WALK_H
#define CSTAP_WALK_H

#include <stdbool.h>

#include "ast.h"

enum walk_action { WALK_DESCEND, WALK_SKIP, WALK_STOP };

struct walker {
	enum walk_action (*stmt)(struct stmt *st, void *ctx);   /* before its children */
	enum walk_action (*expr)(struct expr *e, void *ctx);
	void (*stmt_post)(struct stmt *st, void *ctx);          /* after its children */
	void (*expr_post)(struct expr *e, void *ctx);
	void *ctx;
};

/* Walk a statement / an expression (either may be NULL). False if a
 * callback answered WALK_STOP. */
bool walk_stmt(const struct walker *w, struct stmt *st);
bool walk_expr(const struct walker *w, struct expr *e);

#endif
