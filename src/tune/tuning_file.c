/* The tuning file (JSON, cJSON): read with its schema and every entry checked, written whole or
 * not at all. */
#include "clgauge/tuning.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "clgauge/files.h"

enum { MAX_TUNING_BYTES = 4 << 20 };

int cg_size_class(double flops_per_iter) {
  if (!(flops_per_iter >= 1.0)) return 0;
  return (int)floor(log2(flops_per_iter) / 2.0);
}

void cg_tuning_free(cg_tuning *t) {
  free(t->entries);
  memset(t, 0, sizeof *t);
}

static bool same_key(const cg_tuning_entry *a, const cg_tuning_entry *b) {
  return strcmp(a->device, b->device) == 0 && strcmp(a->platform, b->platform) == 0 &&
         strcmp(a->driver, b->driver) == 0 && strcmp(a->workload, b->workload) == 0 &&
         strcmp(a->backend, b->backend) == 0 && strcmp(a->variant, b->variant) == 0 &&
         a->size_class == b->size_class;
}

bool cg_tuning_replaces_agree(const cg_kernel_overrides *replaces,
                              const cg_kernel_overrides *own, char *differs, size_t size) {
  size_t len = 0;
  bool agree = true;
  if (differs && size) differs[0] = '\0';
  for (int i = 0; i < replaces->count; ++i) {
    const int k = cg_kernel_overrides_index(own, replaces->items[i].name);
    if (k < 0 || own->items[k].value == replaces->items[i].value) continue;
    const int here = own->items[k].value;
    agree = false;
    if (differs && len < size) {
      const int w = snprintf(differs + len, size - len, "%s%s=%d (here %d)", len ? ", " : "",
                             replaces->items[i].name, replaces->items[i].value, here);
      len += w > 0 ? (size_t)w : 0;
    }
  }
  return agree;
}

/* The same parameters and values, in any order. */
static bool same_replaces(const cg_kernel_overrides *a, const cg_kernel_overrides *b) {
  for (int i = 0; i < a->count; ++i) {
    const int k = cg_kernel_overrides_index(b, a->items[i].name);
    if (k < 0 || b->items[k].value != a->items[i].value) return false;
  }
  return a->count == b->count;
}

const cg_tuning_entry *cg_tuning_find(const cg_tuning *t, const cg_device_info *device,
                                      const char *workload, const char *backend,
                                      const char *variant, int size_class,
                                      const cg_kernel_overrides *own) {
  if (!t || !device) return NULL;
  cg_tuning_entry key = {.size_class = size_class};
  snprintf(key.device, sizeof key.device, "%s", device->name);
  snprintf(key.platform, sizeof key.platform, "%s", device->platform);
  snprintf(key.driver, sizeof key.driver, "%s", device->driver_version);
  snprintf(key.workload, sizeof key.workload, "%s", workload);
  snprintf(key.backend, sizeof key.backend, "%s", backend);
  snprintf(key.variant, sizeof key.variant, "%s", variant);
  for (int i = 0; i < t->count; ++i)
    if (same_key(&t->entries[i], &key) &&
        (!own || cg_tuning_replaces_agree(&t->entries[i].replaces, own, NULL, 0)))
      return &t->entries[i];
  return NULL;
}

cg_rc cg_tuning_put(cg_tuning *t, const cg_tuning_entry *e, cg_error *err) {
  cg_rc rc = CG_OK;
  for (int i = 0; i < t->count; ++i)
    if (same_key(&t->entries[i], e) && (t->entries[i].replaces.count == 0 ||
                                        same_replaces(&t->entries[i].replaces, &e->replaces))) {
      t->entries[i] = *e;
      return CG_OK;
    }
  if (t->count == t->capacity) {
    const int cap = t->capacity ? 2 * t->capacity : 8;
    cg_tuning_entry *grown = realloc(t->entries, (size_t)cap * sizeof *grown);
    CG_CHECK(grown, CG_ERROR, "out of memory");
    t->entries = grown;
    t->capacity = cap;
  }
  t->entries[t->count++] = *e;
cleanup:
  return rc;
}

/* A string member into dst; false when it is missing, not a string or too long. */
static bool get_string(const cJSON *obj, const char *key, char *dst, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!cJSON_IsString(v) || strlen(v->valuestring) >= size) return false;
  memcpy(dst, v->valuestring, strlen(v->valuestring) + 1);
  return true;
}

/* A number member, or NAN when null; false when missing or another type. */
static bool get_number(const cJSON *obj, const char *key, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (cJSON_IsNull(v)) {
    *out = NAN;
    return true;
  }
  if (!cJSON_IsNumber(v)) return false;
  *out = v->valuedouble;
  return true;
}

static bool whole(double v, double lo, double hi) {
  return isfinite(v) && v == floor(v) && v >= lo && v <= hi;
}

/* The whole numbers of object `key` of entry o into out (origins TUNED); a missing object is
 * refused unless `optional`. */
static cg_rc read_params(const cJSON *o, const char *key, bool optional, int index,
                         const char *path, cg_kernel_overrides *out, cg_error *err) {
  cg_rc rc = CG_OK;
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!params && optional) return CG_OK;
  CG_CHECK(cJSON_IsObject(params), CG_BAD_INPUT, "%s: entry %d: \"%s\" is not an object", path,
           index, key);
  const cJSON *p = NULL;
  cJSON_ArrayForEach(p, params) {
    CG_CHECK(cJSON_IsNumber(p) && whole(p->valuedouble, -1000000, 1000000), CG_BAD_INPUT,
             "%s: entry %d: \"%s\": parameter \"%s\" is not a whole number", path, index, key,
             p->string);
    cg_error inner = {0};
    CG_CHECK(cg_kernel_overrides_add(out, p->string, (int)p->valuedouble, CG_ORIGIN_TUNED,
                                     &inner) == CG_OK,
             CG_BAD_INPUT, "%s: entry %d: \"%s\": %s", path, index, key, inner.msg);
  }
cleanup:
  return rc;
}

static cg_rc read_entry(const cJSON *o, int index, const char *path, cg_tuning_entry *e,
                        cg_error *err) {
  cg_rc rc = CG_OK;
  memset(e, 0, sizeof *e);
  static const struct {
    const char *key;
    size_t offset, size;
  } strings[] = {
      {"device", offsetof(cg_tuning_entry, device), sizeof e->device},
      {"platform", offsetof(cg_tuning_entry, platform), sizeof e->platform},
      {"driver", offsetof(cg_tuning_entry, driver), sizeof e->driver},
      {"workload", offsetof(cg_tuning_entry, workload), sizeof e->workload},
      {"backend", offsetof(cg_tuning_entry, backend), sizeof e->backend},
      {"variant", offsetof(cg_tuning_entry, variant), sizeof e->variant},
      {"shape", offsetof(cg_tuning_entry, shape), sizeof e->shape},
      {"date", offsetof(cg_tuning_entry, date), sizeof e->date},
  };
  CG_CHECK(cJSON_IsObject(o), CG_BAD_INPUT, "%s: entry %d is not an object", path, index);
  for (size_t k = 0; k < sizeof strings / sizeof strings[0]; ++k)
    CG_CHECK(get_string(o, strings[k].key, (char *)e + strings[k].offset, strings[k].size),
             CG_BAD_INPUT, "%s: entry %d: \"%s\" missing, not a string, or too long", path,
             index, strings[k].key);
  double cls = NAN, cands = NAN;
  CG_CHECK(get_number(o, "size_class", &cls) && whole(cls, 0, 64), CG_BAD_INPUT,
           "%s: entry %d: \"size_class\" is not a whole number 0..64", path, index);
  CG_CHECK(get_number(o, "candidates", &cands) && whole(cands, 1, 1e9), CG_BAD_INPUT,
           "%s: entry %d: \"candidates\" is not a whole number from 1", path, index);
  CG_CHECK(get_number(o, "best_ms", &e->best_ms) && get_number(o, "default_ms", &e->default_ms),
           CG_BAD_INPUT, "%s: entry %d: \"best_ms\" or \"default_ms\" is not a number", path,
           index);
  e->size_class = (int)cls;
  e->candidates = (int)cands;
  CG_TRY(read_params(o, "params", false, index, path, &e->params, err));
  CG_TRY(read_params(o, "replaces", true, index, path, &e->replaces, err));
cleanup:
  return rc;
}

cg_rc cg_tuning_load(const char *path, cg_tuning *t, cg_error *err) {
  cg_rc rc = CG_OK;
  char *text = NULL;
  size_t size = 0;
  cJSON *root = NULL;
  memset(t, 0, sizeof *t);
  struct stat st;
  if (stat(path, &st) != 0) return CG_OK; /* nothing tuned yet */
  CG_CHECK(S_ISREG(st.st_mode), CG_BAD_INPUT, "tuning file '%s' is not a regular file", path);
  CG_CHECK(st.st_size <= MAX_TUNING_BYTES, CG_BAD_INPUT,
           "tuning file '%s': %lld bytes, more than a tuning file holds (%d)", path,
           (long long)st.st_size, (int)MAX_TUNING_BYTES);
  CG_TRY(cg_file_read(path, &text, &size, err));
  root = cJSON_ParseWithLength(text, size);
  CG_CHECK(root, CG_BAD_INPUT, "tuning file '%s' is not valid JSON", path);
  char schema[64] = "";
  CG_CHECK(cJSON_IsObject(root) && get_string(root, "schema", schema, sizeof schema),
           CG_BAD_INPUT, "tuning file '%s' has no \"schema\"", path);
  CG_CHECK(strcmp(schema, CG_TUNING_SCHEMA) == 0, CG_BAD_INPUT,
           "tuning file '%s' has schema '%s', this clgauge reads '%s'", path, schema,
           CG_TUNING_SCHEMA);
  const cJSON *entries = cJSON_GetObjectItemCaseSensitive(root, "entries");
  CG_CHECK(cJSON_IsArray(entries), CG_BAD_INPUT, "tuning file '%s': \"entries\" is not a list",
           path);
  int index = 0;
  const cJSON *o = NULL;
  cJSON_ArrayForEach(o, entries) {
    cg_tuning_entry e;
    CG_TRY(read_entry(o, index, path, &e, err));
    CG_TRY(cg_tuning_put(t, &e, err));
    ++index;
  }
cleanup:
  cJSON_Delete(root);
  free(text);
  if (rc != CG_OK) cg_tuning_free(t);
  return rc;
}

static void add_number(cJSON *o, const char *key, double v) {
  if (isfinite(v))
    cJSON_AddNumberToObject(o, key, v);
  else
    cJSON_AddNullToObject(o, key);
}

static bool add_params(cJSON *o, const char *key, const cg_kernel_overrides *params) {
  cJSON *p = cJSON_AddObjectToObject(o, key);
  for (int k = 0; p && k < params->count; ++k)
    if (!cJSON_AddNumberToObject(p, params->items[k].name, params->items[k].value)) return false;
  return p != NULL;
}

cg_rc cg_tuning_save(const char *path, const cg_tuning *t, cg_error *err) {
  cg_rc rc = CG_OK;
  char *text = NULL;
  cg_file_writer w = {0};
  cJSON *root = cJSON_CreateObject();
  CG_CHECK(root, CG_ERROR, "out of memory");
  cJSON_AddStringToObject(root, "schema", CG_TUNING_SCHEMA);
  cJSON *list = cJSON_AddArrayToObject(root, "entries");
  CG_CHECK(list, CG_ERROR, "out of memory");
  for (int i = 0; i < t->count; ++i) {
    const cg_tuning_entry *e = &t->entries[i];
    cJSON *o = cJSON_CreateObject();
    CG_CHECK(o && cJSON_AddItemToArray(list, o), CG_ERROR, "out of memory");
    cJSON_AddStringToObject(o, "device", e->device);
    cJSON_AddStringToObject(o, "platform", e->platform);
    cJSON_AddStringToObject(o, "driver", e->driver);
    cJSON_AddStringToObject(o, "workload", e->workload);
    cJSON_AddStringToObject(o, "backend", e->backend);
    cJSON_AddStringToObject(o, "variant", e->variant);
    cJSON_AddNumberToObject(o, "size_class", e->size_class);
    cJSON_AddStringToObject(o, "shape", e->shape);
    CG_CHECK(add_params(o, "params", &e->params), CG_ERROR, "out of memory");
    if (e->replaces.count > 0)
      CG_CHECK(add_params(o, "replaces", &e->replaces), CG_ERROR, "out of memory");
    add_number(o, "best_ms", e->best_ms);
    add_number(o, "default_ms", e->default_ms);
    cJSON_AddNumberToObject(o, "candidates", e->candidates);
    cJSON_AddStringToObject(o, "date", e->date);
  }
  text = cJSON_Print(root);
  CG_CHECK(text, CG_ERROR, "out of memory");
  CG_TRY(cg_file_begin(path, &w, err));
  CG_CHECK(fputs(text, w.out) >= 0 && fputc('\n', w.out) != EOF, CG_ERROR,
           "cannot write the tuning file '%s'", path);
  CG_TRY(cg_file_commit(&w, err));
cleanup:
  if (rc != CG_OK) cg_file_abandon(&w);
  free(text);
  cJSON_Delete(root);
  return rc;
}
