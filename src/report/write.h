/* Private to src/report: a results file written whole or not at all, and the field writers
 * its formats share. */
#ifndef CLGAUGE_REPORT_WRITE_H
#define CLGAUGE_REPORT_WRITE_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>

#include "clgauge/probe.h"
#include "clgauge/report.h"
#include "clgauge/stats.h"

typedef void (*write_fn)(const cg_report *report, FILE *out, void *ctx);
/* Write through fn to a temporary file beside path, renamed over it once complete. */
cg_rc cg_report_write_whole(const cg_report *report, const char *path, write_fn fn, void *ctx,
                            cg_error *err);

/* fields.c. A number, or null where NAN (not measured, not applicable): never a NaN. */
void cg_json_num(cJSON *obj, const char *key, double v);
/* n, median, min, max, mean and stddev as members of obj. */
void cg_json_stats(cJSON *obj, const cg_stats *s);
/* A CSV field quoted as RFC 4180 asks (inner quotes doubled, newlines as spaces), after a comma
 * unless first. */
void cg_csv_str(FILE *out, const char *s, bool first);
/* ",%g" at `digits` significant digits; a bare comma where NAN. */
void cg_csv_num(FILE *out, double v, int digits);

/* A probe as the JSON object of a results file's "probes" (probe_json.c). */
cJSON *cg_probe_json(const cg_probe *p);

#endif
