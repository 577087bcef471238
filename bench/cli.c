/* Command-line parsing helpers of the clgauge front end. */
#include "cli.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *command_name = "clgauge";

void cli_set_command(const char *command) { command_name = command; }
const char *cli_command(void) { return command_name; }

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", command_name);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

bool cli_flag(const char *arg, const char *name) { return strcmp(arg, name) == 0; }

bool cli_option(int argc, char **argv, int *i, const char *name, const char **value, bool *bad) {
  const char *arg = argv[*i];
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return true;
  }
  if (arg[n] != '\0') return false;
  if (*i + 1 >= argc) {
    cli_error("option %s needs a value", name);
    *bad = true;
    return true;
  }
  *value = argv[++*i];
  return true;
}

/* strtoll and strtod skip leading white space and take a '+': a value starts with a digit, or
 * a '-' (where negative numbers are allowed) or a '.' before one, or it is not a number. */
static bool plain_start(const char *text, bool minus, bool point) {
  if (minus && *text == '-') ++text;
  if (point && *text == '.') ++text;
  return *text >= '0' && *text <= '9';
}

bool cli_int(const char *option, const char *text, long long min, long long max, int *out) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (!plain_start(text, true, false) || *end || end == text) {
    cli_error("%s '%s': not a whole number", option, text);
    return false;
  }
  if (errno == ERANGE || v < min || v > max) {
    cli_error("%s %s: out of range (%lld..%lld)", option, text, min, max);
    return false;
  }
  *out = (int)v;
  return true;
}

bool cli_u64(const char *option, const char *text, uint64_t *out) {
  char *end = NULL;
  errno = 0;
  if (!plain_start(text, false, false)) {
    cli_error("%s '%s': not a non-negative whole number", option, text);
    return false;
  }
  unsigned long long v = strtoull(text, &end, 10);
  /* Results files keep numbers as doubles: 2^53 is the largest that survives exactly. */
  if (*end || end == text || errno == ERANGE || v > (1ull << 53)) {
    cli_error("%s '%s': not a whole number from 0 to 2^53", option, text);
    return false;
  }
  *out = v;
  return true;
}

bool cli_double(const char *option, const char *text, double min, double max, double *out) {
  char *end = NULL;
  errno = 0;
  double v = strtod(text, &end);
  const bool range = errno == ERANGE;
  if (!plain_start(text, true, true) || *end || end == text || (!range && !isfinite(v))) {
    cli_error("%s '%s': not a finite number", option, text);
    return false;
  }
  /* ERANGE: beyond a double's largest magnitude, or so close to 0 that it underflows */
  if (range && fabs(v) < 1) {
    cli_error("%s %s: out of range: too close to 0 for a double (0, or a magnitude from %g)",
              option, text, DBL_MIN);
    return false;
  }
  if (range || v < min || v > max) {
    cli_error("%s %s: out of range (%g..%g)", option, text, min, max);
    return false;
  }
  *out = v;
  return true;
}

/* GCC 12's analyzer loses the names stored at a varying index of the list (and freed through it)
 * and reports them as leaked: false positives. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
bool cli_list(const char *option, const char *text, char ***out) {
  size_t max = 1;
  for (const char *c = text; *c; ++c) max += *c == ',';
  char **list = calloc(max + 1, sizeof *list);
  if (!list) {
    cli_error("%s: out of memory", option);
    return false;
  }
  size_t n = 0;
  const char *p = text;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len == 0) {
      cli_error("%s '%s': empty name in the list", option, text);
      cli_list_free(list);
      return false;
    }
    list[n] = strndup(p, len);
    if (!list[n++]) {
      cli_error("%s: out of memory", option);
      cli_list_free(list);
      return false;
    }
    if (!comma) break;
    p = comma + 1;
  }
  *out = list;
  return true;
}

void cli_list_free(char **list) {
  for (int i = 0; list && list[i]; ++i) free(list[i]);
  free(list);
}
#pragma GCC diagnostic pop

int cli_int_options(int argc, char **argv, int *i, const cli_int_opt *opts, int n) {
  for (int k = 0; k < n; ++k) {
    const char *v = NULL;
    bool bad = false;
    if (!cli_option(argc, argv, i, opts[k].name, &v, &bad)) continue;
    if (bad) return -1;
    return cli_int(opts[k].name, v, opts[k].min, opts[k].max, opts[k].target) ? 1 : -1;
  }
  return 0;
}
