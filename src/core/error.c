/* Failure recording: status codes and messages with the source location. */
#include "clgauge/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

cg_rc cg_fail(cg_error *err, cg_rc rc, const char *file, int line, const char *fmt, ...) {
  if (!err) return rc;
  err->rc = rc;
  err->code = 0;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  /* Input errors speak to the user; only internal failures carry the source location. */
  if (rc != CG_BAD_INPUT && n >= 0 && (size_t)n < sizeof err->msg)
    snprintf(err->msg + n, sizeof err->msg - (size_t)n, " (%s:%d)", file, line);
  return rc;
}

void cg_error_append(cg_error *err, const char *text) {
  if (!err || !text) return;
  size_t used = strlen(err->msg);
  if (used + 1 < sizeof err->msg) snprintf(err->msg + used, sizeof err->msg - used, "%s", text);
}

void cg_error_clear(cg_error *err) {
  if (!err) return;
  err->rc = CG_OK;
  err->code = 0;
  err->msg[0] = '\0';
}
