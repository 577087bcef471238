/* Private to src/report: a results file written whole or not at all. */
#ifndef CLGAUGE_REPORT_WRITE_H
#define CLGAUGE_REPORT_WRITE_H

#include <cjson/cJSON.h>
#include <stdio.h>

#include "clgauge/probe.h"
#include "clgauge/report.h"

typedef void (*write_fn)(const cg_report *report, FILE *out, void *ctx);
/* Write through fn to a temporary file beside path, renamed over it once complete. */
cg_rc cg_report_write_whole(const cg_report *report, const char *path, write_fn fn, void *ctx,
                            cg_error *err);

/* A probe as the JSON object of a results file's "probes" (probe_json.c). */
cJSON *cg_probe_json(const cg_probe *p);

#endif
