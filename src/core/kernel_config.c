/* Kernel configurations and command-line overrides of kernel parameters. */
#include "clgauge/kernel_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *cg_origin_name(cg_origin origin) {
  switch (origin) {
  case CG_ORIGIN_DEFAULT: return "default";
  case CG_ORIGIN_FALLBACK: return "fallback";
  case CG_ORIGIN_OVERRIDE: return "override";
  case CG_ORIGIN_TUNED: return "tuned";
  }
  return "?";
}

void cg_kernel_config_set(cg_kernel_config *c, const char *name, int value, cg_origin origin) {
  for (int i = 0; i < c->nparams; ++i)
    if (strcmp(c->params[i].name, name) == 0) {
      c->params[i] = (cg_kernel_param){name, value, origin};
      return;
    }
  if (c->nparams < CG_MAX_KERNEL_PARAMS)
    c->params[c->nparams++] = (cg_kernel_param){name, value, origin};
}

cg_rc cg_kernel_overrides_parse(cg_kernel_overrides *o, const char *text, cg_error *err) {
  cg_rc rc = CG_OK;
  const char *p = text;
  CG_CHECK(*p, CG_BAD_INPUT, "--kernel-param '': expected NAME=VALUE[,NAME=VALUE...]");
  for (;;) {
    const char *comma = strchr(p, ',');
    const size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    const size_t name_len = eq ? (size_t)(eq - p) : 0;
    CG_CHECK(eq && name_len > 0 && name_len < sizeof o->items[0].name, CG_BAD_INPUT,
             "--kernel-param '%.*s': expected NAME=VALUE", (int)len, p);
    char value[32];
    const size_t value_len = len - name_len - 1;
    CG_CHECK(value_len > 0 && value_len < sizeof value, CG_BAD_INPUT,
             "--kernel-param '%.*s': expected a whole number after '='", (int)len, p);
    memcpy(value, eq + 1, value_len);
    value[value_len] = '\0';
    char *end = NULL;
    errno = 0;
    const long v = strtol(value, &end, 10);
    CG_CHECK(*end == '\0' && end != value, CG_BAD_INPUT,
             "--kernel-param '%.*s': expected a whole number after '='", (int)len, p);
    CG_CHECK(errno == 0 && v >= -CG_KERNEL_PARAM_MAX && v <= CG_KERNEL_PARAM_MAX, CG_BAD_INPUT,
             "--kernel-param '%.*s': out of range (-%d..%d)", (int)len, p, CG_KERNEL_PARAM_MAX,
             CG_KERNEL_PARAM_MAX);
    for (size_t k = 0; k < name_len; ++k)
      CG_CHECK((p[k] >= 'A' && p[k] <= 'Z') || (p[k] >= '0' && p[k] <= '9') || p[k] == '_',
               CG_BAD_INPUT, "--kernel-param '%.*s': names are upper case (TS, TX, R, ...)",
               (int)len, p);
    int slot = o->count;
    for (int i = 0; i < o->count; ++i)
      if (strlen(o->items[i].name) == name_len && strncmp(o->items[i].name, p, name_len) == 0)
        slot = i;
    CG_CHECK(slot < CG_MAX_OVERRIDES, CG_BAD_INPUT, "--kernel-param: more than %d parameters",
             (int)CG_MAX_OVERRIDES);
    memcpy(o->items[slot].name, p, name_len);
    o->items[slot].name[name_len] = '\0';
    o->items[slot].value = (int)v;
    o->items[slot].origin = CG_ORIGIN_OVERRIDE;
    if (slot == o->count) o->count++;
    if (!comma) break;
    p = comma + 1;
  }
cleanup:
  return rc;
}

int cg_kernel_overrides_index(const cg_kernel_overrides *o, const char *name) {
  for (int i = 0; o && i < o->count; ++i)
    if (strcmp(o->items[i].name, name) == 0) return i;
  return -1;
}

cg_rc cg_kernel_overrides_add(cg_kernel_overrides *o, const char *name, int value,
                              cg_origin origin, cg_error *err) {
  cg_rc rc = CG_OK;
  const size_t len = strlen(name);
  CG_CHECK(len > 0 && len < sizeof o->items[0].name, CG_BAD_INPUT,
           "kernel parameter '%s': names have 1..%d characters", name,
           (int)sizeof o->items[0].name - 1);
  const int found = cg_kernel_overrides_index(o, name), slot = found >= 0 ? found : o->count;
  CG_CHECK(slot < CG_MAX_OVERRIDES, CG_BAD_INPUT, "more than %d kernel parameters",
           (int)CG_MAX_OVERRIDES);
  memcpy(o->items[slot].name, name, len + 1);
  o->items[slot].value = value;
  o->items[slot].origin = origin;
  if (slot == o->count) o->count++;
cleanup:
  return rc;
}

int cg_kernel_override(const cg_kernel_overrides *o, const char *name, int dflt,
                       cg_origin *origin) {
  const int i = cg_kernel_overrides_index(o, name);
  if (i < 0) return dflt;
  if (origin) *origin = o->items[i].origin;
  return o->items[i].value;
}

cg_rc cg_kernel_override_in(const cg_kernel_overrides *o, const char *name, int dflt, int lo,
                            int hi, const char *what, int *out, cg_origin *origin,
                            cg_error *err) {
  cg_rc rc = CG_OK;
  *origin = CG_ORIGIN_DEFAULT;
  *out = cg_kernel_override(o, name, dflt, origin);
  CG_CHECK(*out >= lo && *out <= hi, CG_BAD_INPUT, "--kernel-param %s=%d: %s", name, *out, what);
cleanup:
  return rc;
}
