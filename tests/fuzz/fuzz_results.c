/* libFuzzer target: the results reader behind `clgauge compare` (cg_results_parse) on any bytes.
 * Besides the sanitizers' findings, a file read must give what the header promises (a schema it
 * knows, records within the limits, every string ended inside its buffer, statuses it knows),
 * and a refusal must be one input error that names the file and leaves nothing allocated. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: said (when stderr is open: reproducing one input) and a crash for libFuzzer. */
#define check(ok) ((ok) ? (void)0 : broken(#ok, __LINE__))
static void broken(const char *what, int line) {
  fprintf(stderr, "%s:%d: broken: %s\n", __FILE__, line, what);
  abort();
}

#define ENDED(buf) check(memchr((buf), '\0', sizeof(buf)) != NULL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cg_results results;
  memset(&results, 0xA5, sizeof results); /* whatever was there before must not matter */
  cg_error err = {0};
  const cg_rc rc = cg_results_parse((const char *)data, size, "fuzz.json", &results, &err);
  if (rc != CG_OK) {
    check(rc == CG_BAD_INPUT || rc == CG_ERROR); /* CG_ERROR: out of memory only */
    check(results.records == NULL && results.count == 0);
    check(strstr(err.msg, "fuzz.json") != NULL || rc == CG_ERROR);
    return 0;
  }
  check(results.schema >= CG_RESULTS_SCHEMA_MIN && results.schema <= CG_RESULTS_SCHEMA_MAX);
  check(results.count >= 0 && results.count <= CG_RESULTS_MAX_RECORDS);
  check(results.count == 0 || results.records != NULL);
  ENDED(results.clgauge_version);
  ENDED(results.created);
  ENDED(results.command);
  for (int i = 0; i < results.count; ++i) {
    const cg_result *r = &results.records[i];
    ENDED(r->workload);
    ENDED(r->backend);
    ENDED(r->variant);
    ENDED(r->transfer);
    ENDED(r->group);
    ENDED(r->reason);
    ENDED(r->device);
    ENDED(r->platform);
    ENDED(r->compile_kind);
    check(r->status >= CG_STATUS_OK && r->status <= CG_STATUS_ERROR);
    check(r->reference >= -1 && r->reference <= 1);
    check(r->nparams >= 0 && r->nparams <= CG_RESULT_MAX_PARAMS);
    bool distinct = true;
    for (int k = 0; k < r->nparams; ++k) {
      ENDED(r->params[k].name);
      for (int j = 0; j < k; ++j)
        distinct = distinct && strcmp(r->params[j].name, r->params[k].name) != 0;
    }
    /* A record matches itself. (The reader keeps a parameter named twice as two, and then it does
     * not: such files are not refused yet.) */
    if (distinct) check(cg_result_same_params(r, r));
  }
  cg_results_free(&results);
  return 0;
}
