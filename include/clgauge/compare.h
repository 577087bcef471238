/* Results compared: the records of several results files (or the devices of one file) matched by
 * workload, backend, variant, transfer mode, parameters and device, each phase's figure beside
 * the baseline's with its ratio; records found in some columns only are kept and marked. Output
 * as an aligned table for people, Markdown, or CSV. */
#ifndef CLGAUGE_COMPARE_H
#define CLGAUGE_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "clgauge/error.h"
#include "clgauge/results.h"

enum { CG_COMPARE_MAX_COLUMNS = 16 };

typedef enum cg_compare_format {
  CG_COMPARE_TABLE,
  CG_COMPARE_MD,
  CG_COMPARE_CSV
} cg_compare_format;

/* A column: one file, or (one file alone) one of its devices. */
typedef struct cg_compare_column {
  char label[512];          /* the file's path, or the device's name (with its platform where
                               two devices share a name) */
  const cg_results *file;
  const cg_result *device;  /* device columns: a record on that device; NULL for file columns */
} cg_compare_column;

/* One record matched across the columns. */
typedef struct cg_compare_row {
  const cg_result *cell[CG_COMPARE_MAX_COLUMNS]; /* NULL where the column lacks the record */
  int present;                                   /* columns that hold it */
  unsigned regressed; /* bit c: column c's steady time per iteration is worse than the
                         baseline's by more than the threshold, or the record is no longer ok */
} cg_compare_row;

typedef struct cg_comparison {
  bool by_device;
  char source[512]; /* by device: the file's label */
  int ncolumns, baseline;
  cg_compare_column columns[CG_COMPARE_MAX_COLUMNS];
  cg_compare_row *rows; /* free with cg_comparison_free */
  int nrows;
  double threshold_pct; /* NAN when none was set */
  int regressions;      /* (row, column) pairs over the threshold */
  int partial;          /* rows missing from at least one column */
} cg_comparison;

/* Several files side by side: column i is files[i], labelled labels[i]; baseline is a column
 * index; threshold_pct NAN for none. CG_BAD_INPUT for a bad count or baseline. */
cg_rc cg_compare_files(const cg_results *files, const char *const *labels, int nfiles,
                       int baseline, double threshold_pct, cg_comparison *out, cg_error *err);
/* One file's devices side by side, in the order they first appear, the host (the records of
 * host backends, which name no platform) last; label names the file. */
cg_rc cg_compare_devices(const cg_results *file, const char *label, int baseline,
                         double threshold_pct, cg_comparison *out, cg_error *err);
void cg_comparison_free(cg_comparison *c);

/* The figure of a phase in a column (NAN when absent, not measured or not ok), and its ratio to
 * the baseline's (NAN when either is missing or the baseline's is zero). */
double cg_compare_value(const cg_compare_row *row, int column, cg_phase phase);
double cg_compare_ratio(const cg_comparison *c, const cg_compare_row *row, int column,
                        cg_phase phase);

/* The first row whose record has these names (transfer "" for none; device NULL for any). */
const cg_compare_row *cg_compare_find(const cg_comparison *c, const char *workload,
                                      const char *backend, const char *variant,
                                      const char *transfer, const char *device);

/* The comparison for people or programs. phases: a bit per cg_phase to show (0: all); a phase
 * no record has a figure for is left out. With a threshold, the table and Markdown end with the
 * records over it. */
void cg_compare_print(const cg_comparison *c, cg_compare_format format, unsigned phases,
                      FILE *out);

#endif
