/* Kernel configuration: the build-time parameters a hand-written kernel ran with, where each came
 * from (the default choice, a fallback to the device's limits, a command-line override, a tuning
 * file), and the overrides given on the command line. Every record carries its configuration. */
#ifndef CLGAUGE_KERNEL_CONFIG_H
#define CLGAUGE_KERNEL_CONFIG_H

#include "clgauge/error.h"

typedef enum cg_origin {
  CG_ORIGIN_DEFAULT,  /* the implementation's own choice for this device and shape */
  CG_ORIGIN_FALLBACK, /* the default did not fit the device (work-group or local memory limits) */
  CG_ORIGIN_OVERRIDE, /* set through --kernel-param */
  CG_ORIGIN_TUNED     /* from a tuning file */
} cg_origin;
const char *cg_origin_name(cg_origin origin);

/* CG_KERNEL_PARAM_MAX: the largest magnitude --kernel-param takes (each parameter then checks
 * its own range) */
enum { CG_MAX_KERNEL_PARAMS = 40, CG_MAX_OVERRIDES = 24, CG_KERNEL_PARAM_MAX = 1000000 };

typedef struct cg_kernel_param {
  const char *name; /* static string: the -D macro of the kernel source, e.g. "TS" */
  int value;
  cg_origin origin;
} cg_kernel_param;

typedef struct cg_kernel_config {
  char build_options[512]; /* of the main program; empty where nothing was built */
  cg_kernel_param params[CG_MAX_KERNEL_PARAMS];
  int nparams;
  /* Which of an implementation's execution paths ran and why, where it has several (a
   * persistent kernel or launches); empty where it has one. */
  char path[256];
} cg_kernel_config;

/* Record a parameter (replacing one of the same name). */
void cg_kernel_config_set(cg_kernel_config *c, const char *name, int value, cg_origin origin);

/* Kernel parameters set from outside the implementation: on the command line (--kernel-param
 * TS=8,R=4, origin OVERRIDE) or from a tuning file (origin TUNED). */
typedef struct cg_kernel_overrides {
  int count;
  struct {
    char name[16];
    int value;
    cg_origin origin; /* OVERRIDE or TUNED */
  } items[CG_MAX_OVERRIDES];
} cg_kernel_overrides;

/* Parse "NAME=VALUE[,NAME=VALUE...]" into o (added to what it holds); CG_BAD_INPUT names the bad
 * item. */
cg_rc cg_kernel_overrides_parse(cg_kernel_overrides *o, const char *text, cg_error *err);
/* Set name=value with that origin (replacing one of the same name); CG_BAD_INPUT when o is full or
 * the name too long. */
cg_rc cg_kernel_overrides_add(cg_kernel_overrides *o, const char *name, int value,
                              cg_origin origin, cg_error *err);
/* The index of `name` in o's items, or -1 (o may be NULL). */
int cg_kernel_overrides_index(const cg_kernel_overrides *o, const char *name);
/* The overridden value of `name` when o has one (and its origin: OVERRIDE or TUNED), else dflt
 * (origin as given). o may be NULL. An implementation refuses an OVERRIDE that does not fit the
 * device, and treats a TUNED value like its own choice (a fallback where it does not fit). */
int cg_kernel_override(const cg_kernel_overrides *o, const char *name, int dflt,
                       cg_origin *origin);
/* cg_kernel_override for a switch or a count with a range: *out the value and *origin its
 * origin (DEFAULT unless overridden); a value outside lo..hi is refused with CG_BAD_INPUT,
 * "--kernel-param NAME=VALUE: " and `what` (what it may be). */
cg_rc cg_kernel_override_in(const cg_kernel_overrides *o, const char *name, int dflt, int lo,
                            int hi, const char *what, int *out, cg_origin *origin,
                            cg_error *err);

#endif
