/* The results of `clgauge coldstart`: for each workload's seed case, backend and cache state, the
 * time from process start to the first verified result, split into its phases; a table for
 * people, JSON (schema clgauge.coldstart/1) and CSV for programs, files written whole. */
#ifndef CLGAUGE_COLDSTART_H
#define CLGAUGE_COLDSTART_H

#include <stdio.h>

#include "clgauge/error.h"

#define CG_COLDSTART_SCHEMA "clgauge.coldstart/1"

/* The cache states a fresh process can start in, in the order they are measured. */
typedef enum cg_cache_state {
  CG_STATE_COLD,    /* clgauge's binary cache and the driver's kernel cache both empty */
  CG_STATE_DRIVER,  /* the driver's cache warm (filled by the cold run), clgauge's empty */
  CG_STATE_WARM,    /* both warm: what a second run of the same program sees */
  CG_STATE_CLGAUGE, /* clgauge's cache warm, the driver's empty */
  CG_STATE_COUNT
} cg_cache_state;
const char *cg_cache_state_name(cg_cache_state state);

/* One fresh process. Times in ms, NAN where a phase did not happen (compile of a library that
 * compiles inside its first call) or was not reached. */
typedef struct cg_coldstart_row {
  char workload[16], backend[16], variant[24];
  cg_cache_state state;
  char device[256], driver[128];
  char status[16];    /* the record's: ok, error, ...; "error" too when the process failed */
  char reason[512];
  char compile_kind[16]; /* the record's phases.compile.kind */
  double total_ms;    /* the parent's clock before fork to the child's first verified result */
  double start_ms;    /* fork and exec, until the child's main() */
  double discovery_ms; /* loading the drivers and listing platforms and devices */
  double inputs_ms;   /* the workload's inputs generated on the host */
  double reference_ms; /* the host reference */
  double context_ms;  /* context and queue */
  double compile_ms;
  double upload_ms;
  double run_ms;      /* run 0, until complete */
  double download_ms;
  double verify_ms;
  double overlap_ms;  /* time two of the phases above ran at once (discovery and the context on
                         a thread of their own, beside the options, the inputs and the
                         reference): counted in each, so that the total is the phases' sum less
                         this, plus the front end's own work */
} cg_coldstart_row;

/* The rows as JSON text (malloc'd), or NULL when out of memory. command: the command line. */
char *cg_coldstart_json(const cg_coldstart_row *rows, int n, const char *command);
cg_rc cg_coldstart_write_json(const char *path, const cg_coldstart_row *rows, int n,
                              const char *command, cg_error *err);
/* One line per row, every phase a column, full precision. */
cg_rc cg_coldstart_write_csv(const char *path, const cg_coldstart_row *rows, int n,
                             cg_error *err);
void cg_coldstart_print_table(const cg_coldstart_row *rows, int n, FILE *out);

#endif
