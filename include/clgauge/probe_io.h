/* Probes in results files and for people: a probe's figures as a table, as CSV, and read back
 * from the "probes" of a results file (written by clgauge probe, or by a run that probed). */
#ifndef CLGAUGE_PROBE_IO_H
#define CLGAUGE_PROBE_IO_H

#include <stdio.h>

#include "clgauge/error.h"
#include "clgauge/probe.h"
#include "clgauge/report.h"

/* Append the probes of the results file at path to report->probes. CG_BAD_INPUT naming the
 * file when it cannot be read, is not a results file, holds no probe or a malformed one. */
cg_rc cg_probes_read(const char *path, cg_report *report, cg_error *err);
/* The same from text in memory; name is what messages call it. */
cg_rc cg_probes_parse(const char *text, size_t size, const char *name, cg_report *report,
                      cg_error *err);

/* The report's probes as CSV, one line per figure, whole or not at all. */
cg_rc cg_probe_write_csv(const cg_report *report, const char *path, cg_error *err);

/* A probe for people: its ceilings, then every figure with median, min and max. */
void cg_probe_print(const cg_probe *p, FILE *out);

#endif
