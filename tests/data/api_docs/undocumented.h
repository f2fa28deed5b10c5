/** @file undocumented.h
 * A fixture for tests/check_api_docs.py (test docs.api_checker_can_fail): every
 * declaration is documented except the function um_fixture_undocumented, whose
 * plain comment does not count, so the checker must fail naming it. */
#ifndef UM_FIXTURE_UNDOCUMENTED_H
#define UM_FIXTURE_UNDOCUMENTED_H

/** A documented function. */
int um_fixture_documented(int a,
                          int b);

/* a plain comment: not a doc comment */
int um_fixture_undocumented(const char *name,
                            double value);

/** A documented struct. */
typedef struct {
  int x; /**< a field */
} um_fixture_struct;

#endif
