/* Volna's formulas (Init events: Eta, U, V, Bathymetry, BathyRelative) read
 * at run time: C expressions of x, y, t (and g, the gravity of the deck).
 *
 * A formula is parsed once into a tree and compiled into a small stack
 * program that the host backends interpret per cell (vl_expr_eval); the
 * same tree prints as a C expression (vl_expr_to_c) from which the app
 * generates a kernel that JIT backends (NVRTC) compile, so the formula runs
 * where the data is.
 *
 * Arithmetic is single precision throughout, as upstream Volna compiles a
 * formula (it appends `f` to every literal and evaluates in float): numbers
 * are float, a comparison or a logical operator gives 0 or 1, and the
 * functions are the float ones (expf, sqrtf, ...); exp is um_expf (um/kernel.h: expf, and in reproducible
 * mode a portable exponential with the same bits on the host and the GPU).
 *
 * Grammar (C's precedence; upstream writes `return <expr>;`):
 *   formula := ['return'] expr [';']
 *   expr    := or ['?' expr ':' expr]
 *   or      := and {'||' and}     and := eq {'&&' eq}
 *   eq      := rel {('=='|'!=') rel}
 *   rel     := add {('<'|'<='|'>'|'>=') add}
 *   add     := mul {('+'|'-') mul}   mul := unary {('*'|'/') unary}
 *   unary   := ('-'|'+'|'!') unary | primary
 *   primary := number | x | y | t | g | M_PI | pi | fn '(' expr [',' expr] ')' | '(' expr ')'
 *   fn      := exp log log10 sqrt sin cos tan asin acos atan sinh cosh tanh fabs abs floor ceil
 *              (one argument) | pow atan2 fmin fmax fmod (two)
 */
#ifndef VOLNA_EXPR_H
#define VOLNA_EXPR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vl_expr vl_expr;

/* Parses `text`, which starts in `file` at `line`, column `col` (vl_expr_parse: column 1). Errors name
 * file:line:column of the offending token, what was found and what was expected; *out is NULL then. */
int vl_expr_parse(const char *text, const char *file, int line, vl_expr **out, char *err, size_t errlen);
int vl_expr_parse_at(const char *text, const char *file, int line, int col, vl_expr **out, char *err, size_t errlen);
void vl_expr_free(vl_expr *e);
/* The value of `g` in the formula (default 9.81; the deck's PhysicalParams). */
void vl_expr_set_g(vl_expr *e, float g);
/* 1 if the formula reads t (it then changes from step to step). */
int vl_expr_uses_t(const vl_expr *e);
/* The formula at one point, in float as upstream computes it. */
float vl_expr_eval(const vl_expr *e, float x, float y, float t);
/* The same for up to VL_EXPR_BLOCK points (x[k], y[k]) at time t, into out[k], with a workspace of
 * vl_expr_workspace(e) floats: the interpreter's dispatch is paid once per block. */
#define VL_EXPR_BLOCK 64
size_t vl_expr_workspace(const vl_expr *e);
void vl_expr_eval_block(const vl_expr *e, int n, const float *x, const float *y, float t, float *ws, float *out);
/* The formula as one C expression of the float variables x, y, t (literals
 * as exact float constants, float functions), for generated kernels.
 * Returns the number of characters needed (like snprintf). */
size_t vl_expr_to_c(const vl_expr *e, char *buf, size_t len);
/* Instructions of the compiled program (for tests). */
int vl_expr_size(const vl_expr *e);

#ifdef __cplusplus
}
#endif
#endif
