/* Results files read back (cJSON): size, nesting and schema checked before anything is trusted,
 * every field's type checked as it is read, each failure one message naming the file. */
#include "clgauge/results.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const phase_names[CG_PHASE_COUNT] = {
    "init", "compile", "upload", "first", "steady", "device", "enqueue", "download"};

const char *cg_phase_name(cg_phase phase) {
  return phase >= 0 && phase < CG_PHASE_COUNT ? phase_names[phase] : "?";
}

const char *cg_phase_unit(cg_phase phase) {
  return phase == CG_PHASE_STEADY || phase == CG_PHASE_DEVICE || phase == CG_PHASE_ENQUEUE
             ? "ms/it"
             : "ms";
}

int cg_phase_find(const char *name) {
  for (int p = 0; p < CG_PHASE_COUNT; ++p)
    if (strcmp(name, phase_names[p]) == 0) return p;
  return -1;
}

/* ---- the file's bytes ---- */

static cg_rc read_bytes(const char *path, char **data, size_t *size, cg_error *err) {
  cg_rc rc = CG_OK;
  char *buf = NULL;
  int fd = open(path, O_RDONLY);
  CG_CHECK(fd >= 0, CG_BAD_INPUT, "'%s': cannot read: %s", path, strerror(errno));
  struct stat st;
  CG_CHECK(fstat(fd, &st) == 0, CG_BAD_INPUT, "'%s': cannot read: %s", path, strerror(errno));
  CG_CHECK(!S_ISDIR(st.st_mode), CG_BAD_INPUT, "'%s': is a directory, not a results file", path);
  CG_CHECK(!S_ISREG(st.st_mode) || (size_t)st.st_size <= CG_RESULTS_MAX_BYTES, CG_BAD_INPUT,
           "'%s': %.1f MiB, larger than the %zu MiB a results file may be", path,
           (double)st.st_size / (1 << 20), CG_RESULTS_MAX_BYTES >> 20);
  /* Pipes and devices have no size to check first: read one byte past the limit to tell. */
  size_t cap = CG_RESULTS_MAX_BYTES + 1, used = 0;
  buf = malloc(S_ISREG(st.st_mode) ? (size_t)st.st_size + 2 : cap + 1);
  CG_CHECK(buf, CG_ERROR, "out of memory reading '%s'", path);
  size_t want = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : cap;
  while (used < want) {
    ssize_t n = read(fd, buf + used, want - used);
    if (n < 0 && errno == EINTR) continue;
    CG_CHECK(n >= 0, CG_BAD_INPUT, "'%s': cannot read: %s", path, strerror(errno));
    if (n == 0) break;
    used += (size_t)n;
  }
  CG_CHECK(used <= CG_RESULTS_MAX_BYTES, CG_BAD_INPUT,
           "'%s': larger than the %zu MiB a results file may be", path,
           CG_RESULTS_MAX_BYTES >> 20);
  buf[used] = '\0';
  *data = buf;
  *size = used;
  buf = NULL;
cleanup:
  if (fd >= 0) close(fd);
  free(buf);
  return rc;
}

/* Line and column (from 1) of a byte offset, for messages. */
static void position(const char *text, size_t offset, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n')
      ++*line, *col = 1;
    else
      ++*col;
  }
}

/* Before cJSON sees the text (it recurses per level): no NUL byte, brackets that pair up, no
 * deeper nesting and no more values than the limits. Brackets inside strings do not count. *open
 * says whether the text ends inside a string or an unclosed bracket: a file cut short. */
static cg_rc prescan(const char *text, size_t size, const char *name, bool *open,
                     cg_error *err) {
  cg_rc rc = CG_OK;
  char stack[CG_RESULTS_MAX_DEPTH];
  int depth = 0, line, col;
  size_t values = 1;
  bool in_string = false;
  for (size_t i = 0; i < size; ++i) {
    char c = text[i];
    if (c == '\0') {
      position(text, i, &line, &col);
      CG_CHECK(false, CG_BAD_INPUT, "'%s': not a text file (a NUL byte at line %d, column %d)",
               name, line, col);
    }
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (depth == CG_RESULTS_MAX_DEPTH) {
        position(text, i, &line, &col);
        CG_CHECK(false, CG_BAD_INPUT,
                 "'%s': nested deeper than %d levels (line %d, column %d): not a results file",
                 name, CG_RESULTS_MAX_DEPTH, line, col);
      }
      stack[depth++] = c;
    } else if (c == '}' || c == ']') {
      if (depth == 0 || stack[depth - 1] != (c == '}' ? '{' : '[')) {
        position(text, i, &line, &col);
        CG_CHECK(false, CG_BAD_INPUT, "'%s': not valid JSON at line %d, column %d: '%c' %s", name,
                 line, col, c, depth ? (c == '}' ? "closes a '['" : "closes a '{'")
                                     : "closes nothing");
      }
      --depth;
    } else if (c == ',') {
      CG_CHECK(++values <= CG_RESULTS_MAX_VALUES, CG_BAD_INPUT,
               "'%s': more than %d JSON values, more than a results file may hold", name,
               CG_RESULTS_MAX_VALUES);
    }
  }
  *open = in_string || depth > 0;
cleanup:
  return rc;
}

/* ---- fields, each type-checked: null and absent read as absent ---- */

typedef struct reader {
  const char *name; /* the file, for messages */
  int record;       /* index of the record being read, -1 at the top level */
  cg_error *err;
} reader;

/* "'file': record 3: <what>", or "'file': <what>" at the top level. */
__attribute__((format(printf, 2, 3))) static cg_rc fail(const reader *rd, const char *fmt, ...) {
  char where[32] = "", what[512];
  if (rd->record >= 0) snprintf(where, sizeof where, "record %d: ", rd->record + 1);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return CG_FAIL(rd->err, CG_BAD_INPUT, "'%s': %s%s", rd->name, where, what);
}

/* The member at a dotted path ("phases.steady.complete_ms"); NULL when it, or an object on the
 * way, is absent or null. */
static const cJSON *member(const cJSON *obj, const char *path) {
  char part[64];
  while (obj && *path) {
    const char *dot = strchr(path, '.');
    size_t n = dot ? (size_t)(dot - path) : strlen(path);
    if (n >= sizeof part) return NULL;
    memcpy(part, path, n);
    part[n] = '\0';
    if (!cJSON_IsObject(obj)) return NULL;
    obj = cJSON_GetObjectItemCaseSensitive(obj, part);
    path += n + (dot ? 1 : 0);
  }
  return obj && !cJSON_IsNull(obj) ? obj : NULL;
}

/* Every object on the way to path, if present, must be an object. */
static cg_rc check_parents(const reader *rd, const cJSON *obj, const char *path) {
  char prefix[128];
  for (const char *dot = strchr(path, '.'); dot; dot = strchr(dot + 1, '.')) {
    snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - path), path);
    const cJSON *m = member(obj, prefix);
    if (m && !cJSON_IsObject(m)) return fail(rd, "\"%s\" is not an object", prefix);
  }
  return CG_OK;
}

static cg_rc get_string(const reader *rd, const cJSON *obj, const char *path, bool required,
                        char *out, size_t size) {
  cg_rc rc = check_parents(rd, obj, path);
  if (rc != CG_OK) return rc;
  const cJSON *m = member(obj, path);
  out[0] = '\0';
  if (!m) return required ? fail(rd, "\"%s\" is missing", path) : CG_OK;
  if (!cJSON_IsString(m) || !m->valuestring) return fail(rd, "\"%s\" is not a string", path);
  snprintf(out, size, "%s", m->valuestring);
  /* Names end up in table cells and on one line: control characters become spaces. Only a
   * reason keeps its lines (a build log). */
  if (strcmp(path, "reason") != 0)
    for (char *p = out; *p; ++p)
      if ((unsigned char)*p < 0x20) *p = ' ';
  return CG_OK;
}

static cg_rc get_number(const reader *rd, const cJSON *obj, const char *path, double *out) {
  cg_rc rc = check_parents(rd, obj, path);
  if (rc != CG_OK) return rc;
  const cJSON *m = member(obj, path);
  *out = NAN;
  if (!m) return CG_OK;
  if (!cJSON_IsNumber(m)) return fail(rd, "\"%s\" is not a number", path);
  if (!isfinite(m->valuedouble)) return fail(rd, "\"%s\" is not a finite number", path);
  *out = m->valuedouble;
  return CG_OK;
}

/* A time or rate: a finite number not below zero. */
static cg_rc get_figure(const reader *rd, const cJSON *obj, const char *path, double *out) {
  cg_rc rc = get_number(rd, obj, path, out);
  if (rc == CG_OK && *out < 0) return fail(rd, "\"%s\" is negative", path);
  return rc;
}

/* ---- a record ---- */

/* The statuses of schema 3 and before, and "interrupted" from 4 on. */
static cg_rc parse_status(const reader *rd, const cJSON *rec, int schema, cg_status *status) {
  char text[32];
  cg_rc rc = get_string(rd, rec, "status", true, text, sizeof text);
  if (rc != CG_OK) return rc;
  const cg_status all[] = {CG_STATUS_OK, CG_STATUS_UNSUPPORTED, CG_STATUS_SKIPPED,
                           CG_STATUS_ERROR, CG_STATUS_INTERRUPTED};
  const size_t known = schema >= 4 ? 5 : 4;
  for (size_t i = 0; i < known; ++i)
    if (strcmp(text, cg_status_name(all[i])) == 0) {
      *status = all[i];
      return CG_OK;
    }
  return fail(rd, "\"status\" '%.40s' is none of ok, unsupported, skipped, error%s", text,
              schema >= 4 ? ", interrupted" : "");
}

static cg_rc parse_params(const reader *rd, const cJSON *rec, cg_result *r) {
  cg_rc rc = check_parents(rd, rec, "params.x");
  if (rc != CG_OK) return rc;
  const cJSON *params = member(rec, "params");
  if (!params) return CG_OK;
  const cJSON *p;
  cJSON_ArrayForEach(p, params) {
    if (r->nparams == CG_RESULT_MAX_PARAMS)
      return fail(rd, "more than %d parameters", CG_RESULT_MAX_PARAMS);
    if (!cJSON_IsNumber(p) || !isfinite(p->valuedouble))
      return fail(rd, "parameter \"%s\" is not a finite number", p->string ? p->string : "?");
    cg_result_param *q = &r->params[r->nparams++];
    snprintf(q->name, sizeof q->name, "%s", p->string ? p->string : "");
    q->value = p->valuedouble;
  }
  return CG_OK;
}

/* The steady phases per iteration: the file's own figure where it has one, else the median over
 * the runs divided by the iterations per run. */
static cg_rc steady_per_iter(const reader *rd, const cJSON *rec, const char *median_path,
                             const char *per_iter_path, int iters, double *out) {
  cg_rc rc = CG_OK;
  if (per_iter_path) {
    rc = get_figure(rd, rec, per_iter_path, out);
    if (rc != CG_OK || isfinite(*out)) return rc;
  }
  double median;
  rc = get_figure(rd, rec, median_path, &median);
  *out = rc == CG_OK && iters > 0 ? median / iters : NAN;
  return rc;
}

static cg_rc parse_record(const reader *rd, const cJSON *rec, int schema, cg_result *r) {
  cg_rc rc = CG_OK;
  memset(r, 0, sizeof *r);
  r->reference = -1;
  for (int p = 0; p < CG_PHASE_COUNT; ++p) r->phase[p] = NAN;
  if (!cJSON_IsObject(rec)) return fail(rd, "not an object");
  CG_TRY(get_string(rd, rec, "workload", true, r->workload, sizeof r->workload));
  CG_TRY(get_string(rd, rec, "backend", true, r->backend, sizeof r->backend));
  CG_TRY(get_string(rd, rec, "variant", true, r->variant, sizeof r->variant));
  CG_TRY(get_string(rd, rec, "transfer", false, r->transfer, sizeof r->transfer));
  CG_TRY(parse_status(rd, rec, schema, &r->status));
  CG_TRY(get_string(rd, rec, "reason", false, r->reason, sizeof r->reason));
  /* from schema 4 on, optional: files of runs without a probe may lack it */
  CG_TRY(get_string(rd, rec, "implausible", false, r->implausible, sizeof r->implausible));
  if (schema >= 3) {
    CG_TRY(get_string(rd, rec, "group", false, r->group, sizeof r->group));
    const cJSON *ref = member(rec, "reference");
    if (ref) {
      if (!cJSON_IsBool(ref)) return fail(rd, "\"reference\" is not true or false");
      r->reference = cJSON_IsTrue(ref) ? 1 : 0;
    }
  }
  CG_TRY(check_parents(rd, rec, "device.x"));
  if (!member(rec, "device")) return fail(rd, "\"device\" is missing");
  CG_TRY(get_string(rd, rec, "device.name", true, r->device, sizeof r->device));
  CG_TRY(get_string(rd, rec, "device.vendor", false, r->vendor, sizeof r->vendor));
  CG_TRY(get_string(rd, rec, "device.platform", false, r->platform, sizeof r->platform));
  CG_TRY(get_string(rd, rec, "device.driver_version", false, r->driver, sizeof r->driver));
  CG_TRY(get_string(rd, rec, "device.opencl_version", false, r->cl_version,
                    sizeof r->cl_version));
  CG_TRY(get_string(rd, rec, "device.type", false, r->device_type, sizeof r->device_type));
  CG_TRY(parse_params(rd, rec, r));

  double iters;
  CG_TRY(get_number(rd, rec, "work.iters_per_run", &iters));
  if (isfinite(iters) && !(iters >= 0 && iters <= INT_MAX && iters == floor(iters)))
    return fail(rd, "\"work.iters_per_run\" is not a whole number");
  r->iters_per_run = isfinite(iters) ? (int)iters : 0;
  CG_TRY(get_figure(rd, rec, "work.flops_per_iter", &r->flops_per_iter));
  CG_TRY(get_figure(rd, rec, "work.bytes_per_iter", &r->bytes_per_iter));

  CG_TRY(get_figure(rd, rec, "phases.init.ms", &r->phase[CG_PHASE_INIT]));
  CG_TRY(get_figure(rd, rec, "phases.compile.ms", &r->phase[CG_PHASE_COMPILE]));
  CG_TRY(get_string(rd, rec, "phases.compile.kind", false, r->compile_kind,
                    sizeof r->compile_kind));
  CG_TRY(get_figure(rd, rec, "phases.upload.ms", &r->phase[CG_PHASE_UPLOAD]));
  CG_TRY(get_figure(rd, rec, "phases.first.complete_ms", &r->phase[CG_PHASE_FIRST]));
  CG_TRY(steady_per_iter(rd, rec, "phases.steady.complete_ms.median",
                         "phases.steady.complete_ms_per_iter", r->iters_per_run,
                         &r->phase[CG_PHASE_STEADY]));
  CG_TRY(steady_per_iter(rd, rec, "phases.steady.device_ms.median", NULL, r->iters_per_run,
                         &r->phase[CG_PHASE_DEVICE]));
  CG_TRY(steady_per_iter(rd, rec, "phases.steady.enqueue_ms.median", NULL, r->iters_per_run,
                         &r->phase[CG_PHASE_ENQUEUE]));
  CG_TRY(get_figure(rd, rec, "phases.download.ms", &r->phase[CG_PHASE_DOWNLOAD]));
  CG_TRY(get_figure(rd, rec, "phases.steady.gflops", &r->gflops));
  CG_TRY(get_figure(rd, rec, "phases.steady.gbytes_per_s", &r->gbytes_per_s));
cleanup:
  return rc;
}

/* ---- the file ---- */

/* "clgauge.results/5" -> 5; 0 when the text is not of that form. */
static int schema_version(const char *schema) {
  const char prefix[] = "clgauge.results/";
  if (strncmp(schema, prefix, sizeof prefix - 1) != 0) return 0;
  const char *digits = schema + sizeof prefix - 1;
  char *end = NULL;
  long v = strtol(digits, &end, 10);
  return end != digits && *end == '\0' && v > 0 && v < 1000000 ? (int)v : 0;
}

cg_rc cg_results_parse(const char *text, size_t size, const char *name, cg_results *out,
                       cg_error *err) {
  cg_rc rc = CG_OK;
  cJSON *root = NULL;
  char *copy = NULL;
  memset(out, 0, sizeof *out);
  reader rd = {name, -1, err};

  CG_CHECK(size <= CG_RESULTS_MAX_BYTES, CG_BAD_INPUT,
           "'%s': larger than the %zu MiB a results file may be", name,
           CG_RESULTS_MAX_BYTES >> 20);
  size_t start = 0;
  while (start < size && text[start] && strchr(" \t\r\n", text[start])) ++start;
  CG_CHECK(start < size, CG_BAD_INPUT, "'%s': empty, not a results file", name);
  bool open = false;
  CG_TRY(prescan(text, size, name, &open, err));
  /* cJSON wants the NUL inside the length it is given to accept a complete document. */
  copy = malloc(size + 1);
  CG_CHECK(copy, CG_ERROR, "out of memory reading '%s'", name);
  memcpy(copy, text, size);
  copy[size] = '\0';
  const char *end = NULL;
  root = cJSON_ParseWithLengthOpts(copy, size + 1, &end, 1);
  if (!root) {
    int line, col;
    position(copy, size, &line, &col);
    CG_CHECK(!open, CG_BAD_INPUT,
             "'%s': truncated: the JSON ends at line %d, column %d before it is complete", name,
             line, col);
    size_t at = end && end >= copy && end <= copy + size ? (size_t)(end - copy) : size;
    position(copy, at, &line, &col);
    CG_CHECK(false, CG_BAD_INPUT, "'%s': not valid JSON at line %d, column %d", name, line, col);
  }
  CG_CHECK(cJSON_IsObject(root), CG_BAD_INPUT,
           "'%s': not a clgauge results file (the JSON is not an object)", name);
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
  CG_CHECK(schema, CG_BAD_INPUT, "'%s': not a clgauge results file (no \"schema\")", name);
  CG_CHECK(cJSON_IsString(schema) && schema->valuestring, CG_BAD_INPUT,
           "'%s': not a clgauge results file (\"schema\" is not a string)", name);
  int version = schema_version(schema->valuestring);
  CG_CHECK(version, CG_BAD_INPUT, "'%s': not a clgauge results file (schema '%.64s')", name,
           schema->valuestring);
  CG_CHECK(version >= CG_RESULTS_SCHEMA_MIN && version <= CG_RESULTS_SCHEMA_MAX, CG_BAD_INPUT,
           "'%s': schema clgauge.results/%d, which this clgauge (%s) does not read: it reads "
           "clgauge.results/%d to /%d%s",
           name, version, CLGAUGE_VERSION, CG_RESULTS_SCHEMA_MIN, CG_RESULTS_SCHEMA_MAX,
           version > CG_RESULTS_SCHEMA_MAX ? "; a newer clgauge wrote it"
                                           : "; rerun the benchmark to write a current file");
  out->schema = version;
  CG_TRY(get_string(&rd, root, "clgauge_version", false, out->clgauge_version,
                    sizeof out->clgauge_version));
  CG_TRY(get_string(&rd, root, "created", false, out->created, sizeof out->created));
  CG_TRY(get_string(&rd, root, "command", false, out->command, sizeof out->command));

  const cJSON *records = cJSON_GetObjectItemCaseSensitive(root, "records");
  CG_CHECK(records, CG_BAD_INPUT, "'%s': \"records\" is missing", name);
  CG_CHECK(cJSON_IsArray(records), CG_BAD_INPUT, "'%s': \"records\" is not an array", name);
  int n = cJSON_GetArraySize(records);
  CG_CHECK(n <= CG_RESULTS_MAX_RECORDS, CG_BAD_INPUT,
           "'%s': %d records, more than the %d a results file may hold", name, n,
           CG_RESULTS_MAX_RECORDS);
  if (n > 0) {
    out->records = calloc((size_t)n, sizeof *out->records);
    CG_CHECK(out->records, CG_ERROR, "out of memory reading '%s'", name);
  }
  const cJSON *rec;
  cJSON_ArrayForEach(rec, records) {
    rd.record = out->count;
    CG_TRY(parse_record(&rd, rec, version, &out->records[out->count]));
    ++out->count;
  }
cleanup:
  cJSON_Delete(root);
  free(copy);
  if (rc != CG_OK) {
    cg_results_free(out);
    /* one line, whatever the file's strings hold */
    for (char *p = err ? err->msg : NULL; p && *p; ++p)
      if ((unsigned char)*p < 0x20) *p = ' ';
  }
  return rc;
}

cg_rc cg_results_read(const char *path, cg_results *out, cg_error *err) {
  char *text = NULL;
  size_t size = 0;
  memset(out, 0, sizeof *out);
  cg_rc rc = read_bytes(path, &text, &size, err);
  if (rc == CG_OK) rc = cg_results_parse(text, size, path, out, err);
  free(text);
  return rc;
}

void cg_results_free(cg_results *results) {
  free(results->records);
  memset(results, 0, sizeof *results);
}

double cg_result_param_value(const cg_result *r, const char *name) {
  for (int i = 0; i < r->nparams; ++i)
    if (strcmp(r->params[i].name, name) == 0) return r->params[i].value;
  return NAN;
}

bool cg_result_same_params(const cg_result *a, const cg_result *b) {
  if (a->nparams != b->nparams) return false;
  for (int i = 0; i < a->nparams; ++i) {
    double v = cg_result_param_value(b, a->params[i].name);
    if (!(v == a->params[i].value)) return false;
  }
  return true;
}

bool cg_result_same_device(const cg_result *a, const cg_result *b) {
  return strcmp(a->device, b->device) == 0 && strcmp(a->platform, b->platform) == 0;
}
