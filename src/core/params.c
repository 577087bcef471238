/* Workload parameter values, checked against their descriptions. */
#include "clgauge/params.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cg_params_init(cg_params *p, const cg_param_desc *desc, int count) {
  memset(p, 0, sizeof *p);
  p->desc = desc;
  p->count = count < CG_MAX_PARAMS ? count : CG_MAX_PARAMS;
  for (int i = 0; i < p->count; ++i) p->v[i] = desc[i].dflt;
}

int cg_params_index(const cg_params *p, const char *name) {
  for (int i = 0; i < p->count; ++i)
    if (strcmp(p->desc[i].name, name) == 0) return i;
  return -1;
}

const char *cg_param_option(const cg_param_desc *d, char *buf, size_t size) {
  snprintf(buf, size, "--%s", d->name);
  for (char *c = buf; *c; ++c)
    if (*c == '_') *c = '-';
  return buf;
}

static cg_rc check_value(const cg_param_desc *d, double value, cg_error *err) {
  cg_rc rc = CG_OK;
  char opt[64];
  cg_param_option(d, opt, sizeof opt);
  CG_CHECK(isfinite(value), CG_BAD_INPUT, "%s %g: not a finite number", opt, value);
  if (d->kind == CG_PARAM_INT) {
    CG_CHECK(value == floor(value), CG_BAD_INPUT, "%s %g: not a whole number", opt, value);
    CG_CHECK(value >= d->min && value <= d->max, CG_BAD_INPUT, "%s %.0f: out of range (%.0f..%.0f)",
             opt, value, d->min, d->max);
  } else if (d->kind == CG_PARAM_FLAG) {
    CG_CHECK(value == 0 || value == 1, CG_BAD_INPUT, "%s %g: a flag is 0 or 1", opt, value);
  } else {
    CG_CHECK(value >= d->min && value <= d->max, CG_BAD_INPUT, "%s %g: out of range (%g..%g)",
             opt, value, d->min, d->max);
  }
cleanup:
  return rc;
}

cg_rc cg_params_set(cg_params *p, const char *name, double value, cg_error *err) {
  cg_rc rc = CG_OK;
  const int i = cg_params_index(p, name);
  CG_CHECK(i >= 0, CG_BAD_INPUT, "no parameter '%s'", name);
  CG_TRY(check_value(&p->desc[i], value, err));
  p->v[i] = value;
  p->given[i] = true;
  p->own[i] = true;
  for (int s = 0; p->desc[i].sets && p->desc[i].sets[s]; ++s) {
    const int j = cg_params_index(p, p->desc[i].sets[s]);
    if (j < 0 || p->own[j]) continue;
    p->v[j] = value;
    p->given[j] = true;
  }
cleanup:
  return rc;
}

cg_rc cg_params_check(const cg_params *p, cg_error *err) {
  cg_rc rc = CG_OK;
  for (int i = 0; i < p->count; ++i) CG_TRY(check_value(&p->desc[i], p->v[i], err));
cleanup:
  return rc;
}

double cg_params_get(const cg_params *p, const char *name) {
  const int i = cg_params_index(p, name);
  return i >= 0 ? p->v[i] : NAN;
}
