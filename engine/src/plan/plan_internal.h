/* What the plan builder (plan.c) and the plan checker (plan_check.c) share:
 * the analysis of a loop's input, which both derive independently of a plan. */
#ifndef UM_PLAN_INTERNAL_H
#define UM_PLAN_INTERNAL_H

#include <stddef.h>
#include "plan.h"

/* The loop's inds and conflict groups, derived from the input alone. */
typedef struct {
  int ninds;
  int arg_ind[UM_PLAN_MAX_ARGS];
  int ind_arg_off[UM_PLAN_MAX_ARGS + 1]; /* args of ind i:                         */
  int ind_arg[UM_PLAN_MAX_ARGS];         /*   ind_arg[ind_arg_off[i] .. off[i+1])   */
  int ind_first[UM_PLAN_MAX_ARGS];       /* first arg of ind i                      */
  int ind_inc[UM_PLAN_MAX_ARGS];         /* all args INC                            */
  int ind_allconf[UM_PLAN_MAX_ARGS];     /* all args conflicting                    */
  int ind_group[UM_PLAN_MAX_ARGS];       /* conflict group, -1 if none of its args writes */
  /* conflict groups: one per dat_id among conflicting indirect args */
  int ngroups;
  int group_multi[UM_PLAN_MAX_ARGS]; /* written through more than one ind */
  int group_ind[UM_PLAN_MAX_ARGS];   /* the ind, when not multi            */
  int group_to_size[UM_PLAN_MAX_ARGS];
  int group_dat[UM_PLAN_MAX_ARGS];
  int nconf; /* conflicting args */
  int conf_arg[UM_PLAN_MAX_ARGS];
  int conf_group[UM_PLAN_MAX_ARGS];
} loop_info;

/* INC, RW and WRITE indirect args conflict (may write one target concurrently). */
static inline int um__plan_conflicting(um_access a) { return a == UM_INC || a == UM_RW || a == UM_WRITE; }

/* Check the input (sizes, given blocks, args, map values in range) and derive
 * its inds and conflict groups into *li. UM_ERR_ARG with a message if invalid. */
int um__plan_analyse(const um_plan_input *in, loop_info *li, char *err, size_t errlen);

#endif
