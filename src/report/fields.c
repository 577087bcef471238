/* The field writers every results format of src/report shares: JSON numbers and statistics,
 * CSV fields and numbers. */
#include "report/write.h"

#include <math.h>

void cg_json_num(cJSON *obj, const char *key, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(obj, key, v);
  else
    cJSON_AddNullToObject(obj, key);
}

void cg_json_stats(cJSON *obj, const cg_stats *s) {
  cJSON_AddNumberToObject(obj, "n", s->n);
  cg_json_num(obj, "median", s->median);
  cg_json_num(obj, "min", s->min);
  cg_json_num(obj, "max", s->max);
  cg_json_num(obj, "mean", s->mean);
  cg_json_num(obj, "stddev", s->stddev);
}

void cg_csv_str(FILE *out, const char *s, bool first) {
  if (!first) fputc(',', out);
  fputc('"', out);
  for (; *s; ++s) {
    if (*s == '"') fputc('"', out);
    fputc(*s == '\n' ? ' ' : *s, out);
  }
  fputc('"', out);
}

void cg_csv_num(FILE *out, double v, int digits) {
  if (isfinite(v))
    fprintf(out, ",%.*g", digits, v);
  else
    fputc(',', out);
}
