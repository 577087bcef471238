/* Workload parameters: their descriptions (name, kind, default, range, help), which the command
 * line, --help, validation and the results' `params` all come from, and a set of values. */
#ifndef CLGAUGE_PARAMS_H
#define CLGAUGE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>

#include "clgauge/error.h"

typedef enum cg_param_kind {
  CG_PARAM_INT,  /* a whole number within [min, max] */
  CG_PARAM_REAL, /* a finite number within [min, max] */
  CG_PARAM_FLAG  /* 0 or 1; on the command line a flag without a value */
} cg_param_kind;

typedef struct cg_param_desc {
  const char *name;        /* the key in the results' params; the option is --name with '_' as
                              '-' (print_every: --print-every) */
  cg_param_kind kind;
  double dflt, min, max;
  const char *metavar;     /* "N" in "--n N"; unused for flags */
  const char *help;
  const char *const *sets; /* other parameters this one sets to its value too (NULL-terminated),
                              e.g. matmul's n sets m and k; NULL for none */
} cg_param_desc;

/* A parameter name and a value: presets and sweep defaults. */
typedef struct cg_param_value {
  const char *name;
  double value;
} cg_param_value;

enum { CG_MAX_PARAMS = 16 };

/* The values of a workload's parameters, indexed as its descriptions. */
typedef struct cg_params {
  const cg_param_desc *desc;
  int count;
  double v[CG_MAX_PARAMS];
  bool given[CG_MAX_PARAMS]; /* set explicitly (by a user, a preset or a sweep), not defaulted */
  bool own[CG_MAX_PARAMS];   /* set by its own name: another parameter's `sets` leaves it, so that
                                --m 777 --k 1333 --n 555 is 777 x 1333 x 555 in any order */
} cg_params;

/* "--name" of a parameter, with '-' for '_', into buf. */
const char *cg_param_option(const cg_param_desc *d, char *buf, size_t size);

/* Every parameter at its default. */
void cg_params_init(cg_params *p, const cg_param_desc *desc, int count);
/* Index of a parameter by name, or -1. */
int cg_params_index(const cg_params *p, const char *name);
/* Set a parameter (and those it sets) after checking its kind and range; CG_BAD_INPUT names the
 * option and the value: "--n 0: out of range (1..1048576)". */
cg_rc cg_params_set(cg_params *p, const char *name, double value, cg_error *err);
/* Check every value against its kind and range (values set directly into v). */
cg_rc cg_params_check(const cg_params *p, cg_error *err);
/* The value of a parameter by name; NAN when there is none of that name. */
double cg_params_get(const cg_params *p, const char *name);

#endif
