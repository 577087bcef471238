/* Results files read back: the records of a clgauge.results/5, /4, /3 or /2 file with the
 * figures that comparisons and plots need. Anything else (another schema, not JSON, truncated, malformed, too
 * deep or too large) is one CG_BAD_INPUT error naming the file and what is wrong. */
#ifndef CLGAUGE_RESULTS_H
#define CLGAUGE_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "clgauge/error.h"
#include "clgauge/report.h"

/* What a results file may hold: clgauge's own are at most a few hundred KiB, a few thousand JSON
 * values and six levels deep, so these limits leave room while keeping a hostile file from
 * costing much memory (a parsed value takes some 80 bytes) or stack. */
#define CG_RESULTS_MAX_BYTES ((size_t)16 << 20)
enum {
  CG_RESULTS_MAX_DEPTH = 32,       /* nested objects and arrays */
  CG_RESULTS_MAX_VALUES = 1000000, /* JSON values in the whole file */
  CG_RESULTS_MAX_RECORDS = 10000,
  CG_RESULT_MAX_PARAMS = 32
};

/* The oldest and the newest schema version read; 2 lacks each record's kernel, reference and
 * group, which read as absent; 4 adds the status "interrupted"; 5 the run's devices, each
 * record's device index and budget, and a sweep's crossovers, which a comparison needs not
 * (records of several devices are told apart by device name and platform, as before). */
enum { CG_RESULTS_SCHEMA_MIN = 2, CG_RESULTS_SCHEMA_MAX = 5 };

/* The phases a record's figures are compared by: one-shot phases in ms, the steady ones (wall
 * time, device time, enqueue time) in ms per iteration, each the median over the steady runs. */
typedef enum cg_phase {
  CG_PHASE_INIT,
  CG_PHASE_COMPILE,
  CG_PHASE_UPLOAD,
  CG_PHASE_FIRST,
  CG_PHASE_STEADY,
  CG_PHASE_DEVICE,
  CG_PHASE_ENQUEUE,
  CG_PHASE_DOWNLOAD,
  CG_PHASE_COUNT
} cg_phase;
const char *cg_phase_name(cg_phase phase); /* "init", "compile", ..., "download" */
const char *cg_phase_unit(cg_phase phase); /* "ms" or "ms/it" */
/* The phase of that name, or -1. */
int cg_phase_find(const char *name);

typedef struct cg_result_param {
  char name[32];
  double value;
} cg_result_param;

/* One record as read: strings are truncated to their buffers, absent ones are empty. */
typedef struct cg_result {
  char workload[32], backend[32], variant[32];
  char transfer[32];  /* the workload's mode ("transfer" in the JSON); empty when null */
  char group[64];     /* a sweep point's label; empty when null or absent */
  int reference;      /* 1 or 0; -1 when absent (schema 2) */
  cg_status status;
  char reason[512];
  char device[256], vendor[128], platform[128], driver[128], cl_version[128], device_type[32];
  cg_result_param params[CG_RESULT_MAX_PARAMS];
  int nparams;
  int iters_per_run;  /* 0 when absent */
  double flops_per_iter, bytes_per_iter; /* NAN when absent */
  char compile_kind[16];
  double phase[CG_PHASE_COUNT]; /* NAN where absent or null */
  double gflops, gbytes_per_s;  /* of the steady median; NAN where absent */
  char implausible[512];        /* why its figures cannot be right; empty when absent or null */
} cg_result;

typedef struct cg_results {
  int schema; /* the version: 2 to 5 */
  char clgauge_version[32], created[32], command[1024];
  cg_result *records; /* free with cg_results_free */
  int count;
} cg_results;

/* Read and check the results file at path. On failure *out is left empty and err says which
 * file and what is wrong with it. */
cg_rc cg_results_read(const char *path, cg_results *out, cg_error *err);
/* The same from text in memory (size bytes, no NUL needed); name is what messages call it. */
cg_rc cg_results_parse(const char *text, size_t size, const char *name, cg_results *out,
                       cg_error *err);
void cg_results_free(cg_results *results);

/* A parameter of the record, or NAN when it has none of that name. */
double cg_result_param_value(const cg_result *r, const char *name);
/* Whether two records have the same parameters (names and values, in any order). */
bool cg_result_same_params(const cg_result *a, const cg_result *b);
/* Whether the records ran on the same device: the same device name on the same platform. */
bool cg_result_same_device(const cg_result *a, const cg_result *b);

#endif
