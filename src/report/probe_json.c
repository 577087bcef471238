/* Probes in results files: written as the "probes" of the JSON, one line per figure in CSV,
 * read back for --probe-file, and printed for people. */
#include "clgauge/probe_io.h"
#include "clgauge/files.h"
#include "clgauge/results.h"
#include "report/write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

cJSON *cg_probe_json(const cg_probe *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddBoolToObject(o, "host", p->host);
  cJSON *dev = cJSON_AddObjectToObject(o, "device");
  cJSON_AddStringToObject(dev, "name", p->device);
  cJSON_AddStringToObject(dev, "vendor", p->vendor);
  cJSON_AddStringToObject(dev, "platform", p->platform);
  cJSON_AddStringToObject(dev, "driver_version", p->driver);
  cJSON_AddStringToObject(dev, "opencl_version", p->cl_version);
  cJSON_AddStringToObject(dev, "type", p->device_type);
  if (p->platform_index >= 0) {
    cJSON_AddNumberToObject(dev, "platform_index", p->platform_index);
    cJSON_AddNumberToObject(dev, "device_index", p->device_index);
  }
  cJSON_AddBoolToObject(o, "quick", p->quick);
  cJSON_AddNumberToObject(o, "runs", p->runs);
  cg_json_num(o, "wall_ms", p->wall_ms);
  cJSON *c = cJSON_AddObjectToObject(o, "ceilings");
  cg_json_num(c, "fp32_gflops", p->fp32_gflops);
  cJSON_AddStringToObject(c, "fp32_from", p->fp32_from);
  cg_json_num(c, "bandwidth_gbs", p->bandwidth_gbs);
  cJSON_AddStringToObject(c, "bandwidth_from", p->bandwidth_from);
  cg_json_num(c, "launch_us", p->launch_us);
  cg_json_num(c, "timer_resolution_ns", p->timer_ns);
  cg_json_num(c, "cache_bytes", p->cache_bytes);
  cg_json_num(c, "memory_bytes", p->memory_bytes);
  cJSON *figs = cJSON_AddArrayToObject(o, "figures");
  for (int i = 0; i < p->nfigures; ++i) {
    const cg_probe_figure *f = &p->figures[i];
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "group", f->group);
    cJSON_AddStringToObject(j, "name", f->name);
    cJSON_AddStringToObject(j, "unit", f->unit);
    if (f->width)
      cJSON_AddNumberToObject(j, "width", f->width);
    else
      cJSON_AddNullToObject(j, "width");
    cg_json_num(j, "bytes", f->bytes);
    cg_json_stats(j, &f->stats);
    cJSON_AddItemToArray(figs, j);
  }
  return o;
}

/* ---- read back ---- */

/* A string member into buf ("" when absent or null); false when present and not a string. */
static bool get_str(const cJSON *obj, const char *key, char *buf, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  buf[0] = '\0';
  if (!v || cJSON_IsNull(v)) return true;
  if (!cJSON_IsString(v) || !v->valuestring) return false;
  snprintf(buf, size, "%s", v->valuestring);
  return true;
}

/* A number member (NAN when absent or null); false when present and not a number. */
static bool get_num(const cJSON *obj, const char *key, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = NAN;
  if (!v || cJSON_IsNull(v)) return true;
  if (!cJSON_IsNumber(v)) return false;
  *out = v->valuedouble;
  return true;
}

static cg_rc parse_probe(const cJSON *o, const char *name, int index, cg_probe *p,
                         cg_error *err) {
  cg_rc rc = CG_OK;
  cg_probe_init(p);
  CG_CHECK(cJSON_IsObject(o), CG_BAD_INPUT, "'%s': probes[%d] is not an object", name, index);
  const cJSON *host = cJSON_GetObjectItemCaseSensitive(o, "host");
  p->host = cJSON_IsTrue(host);
  const cJSON *dev = cJSON_GetObjectItemCaseSensitive(o, "device");
  CG_CHECK(cJSON_IsObject(dev), CG_BAD_INPUT, "'%s': probes[%d].device is not an object", name,
           index);
  CG_CHECK(get_str(dev, "name", p->device, sizeof p->device) &&
               get_str(dev, "vendor", p->vendor, sizeof p->vendor) &&
               get_str(dev, "platform", p->platform, sizeof p->platform) &&
               get_str(dev, "driver_version", p->driver, sizeof p->driver) &&
               get_str(dev, "opencl_version", p->cl_version, sizeof p->cl_version) &&
               get_str(dev, "type", p->device_type, sizeof p->device_type),
           CG_BAD_INPUT, "'%s': probes[%d].device has a field that is not a string", name, index);
  p->quick = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "quick"));
  double runs = NAN;
  CG_CHECK(get_num(o, "runs", &runs) && get_num(o, "wall_ms", &p->wall_ms), CG_BAD_INPUT,
           "'%s': probes[%d]: runs or wall_ms is not a number", name, index);
  p->runs = isfinite(runs) && runs >= 0 && runs <= 1e6 ? (int)runs : 0;
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "ceilings");
  CG_CHECK(cJSON_IsObject(c), CG_BAD_INPUT, "'%s': probes[%d].ceilings is not an object", name,
           index);
  CG_CHECK(get_num(c, "fp32_gflops", &p->fp32_gflops) &&
               get_num(c, "bandwidth_gbs", &p->bandwidth_gbs) &&
               get_num(c, "launch_us", &p->launch_us) &&
               get_num(c, "timer_resolution_ns", &p->timer_ns) &&
               get_num(c, "cache_bytes", &p->cache_bytes) &&
               get_num(c, "memory_bytes", &p->memory_bytes) &&
               get_str(c, "fp32_from", p->fp32_from, sizeof p->fp32_from) &&
               get_str(c, "bandwidth_from", p->bandwidth_from, sizeof p->bandwidth_from),
           CG_BAD_INPUT, "'%s': probes[%d].ceilings has a field of the wrong type", name, index);
  /* a ceiling the bounds divide by must be a positive figure */
  const double ceilings[] = {p->fp32_gflops, p->bandwidth_gbs};
  for (int i = 0; i < 2; ++i)
    CG_CHECK(isnan(ceilings[i]) || ceilings[i] > 0, CG_BAD_INPUT,
             "'%s': probes[%d].ceilings: %s %g is not a positive figure", name, index,
             i ? "bandwidth_gbs" : "fp32_gflops", ceilings[i]);
  CG_CHECK(isnan(p->launch_us) || p->launch_us >= 0, CG_BAD_INPUT,
           "'%s': probes[%d].ceilings: launch_us %g is negative", name, index, p->launch_us);
  const cJSON *figs = cJSON_GetObjectItemCaseSensitive(o, "figures");
  CG_CHECK(!figs || cJSON_IsArray(figs), CG_BAD_INPUT, "'%s': probes[%d].figures is not an array",
           name, index);
  const cJSON *f;
  cJSON_ArrayForEach(f, figs) {
    if (p->nfigures == CG_PROBE_MAX_FIGURES) break;
    cg_probe_figure *g = &p->figures[p->nfigures];
    double width = NAN, n = NAN;
    CG_CHECK(cJSON_IsObject(f) && get_str(f, "group", g->group, sizeof g->group) &&
                 get_str(f, "name", g->name, sizeof g->name) &&
                 get_str(f, "unit", g->unit, sizeof g->unit) && get_num(f, "width", &width) &&
                 get_num(f, "bytes", &g->bytes) && get_num(f, "n", &n) &&
                 get_num(f, "median", &g->stats.median) && get_num(f, "min", &g->stats.min) &&
                 get_num(f, "max", &g->stats.max) && get_num(f, "mean", &g->stats.mean) &&
                 get_num(f, "stddev", &g->stats.stddev),
             CG_BAD_INPUT, "'%s': probes[%d].figures[%d] is malformed", name, index,
             p->nfigures);
    g->width = isfinite(width) && width > 0 && width <= 64 ? (int)width : 0;
    g->stats.n = isfinite(n) && n >= 0 && n <= 1e6 ? (int)n : 0;
    ++p->nfigures;
  }
cleanup:
  return rc;
}

cg_rc cg_probes_parse(const char *text, size_t size, const char *name, cg_report *report,
                      cg_error *err) {
  cg_rc rc = CG_OK;
  cg_probe *p = NULL;
  cJSON *root = cJSON_ParseWithLength(text, size);
  CG_CHECK(root, CG_BAD_INPUT, "'%s': not valid JSON", name);
  const cJSON *schema = cJSON_GetObjectItemCaseSensitive(root, "schema");
  CG_CHECK(cJSON_IsString(schema) && schema->valuestring &&
               strncmp(schema->valuestring, "clgauge.results/", 16) == 0,
           CG_BAD_INPUT, "'%s': not a clgauge results file (no clgauge.results schema)", name);
  const cJSON *probes = cJSON_GetObjectItemCaseSensitive(root, "probes");
  CG_CHECK(cJSON_IsArray(probes) && cJSON_GetArraySize(probes) > 0, CG_BAD_INPUT,
           "'%s': holds no probe (write one with 'clgauge probe --json FILE')", name);
  p = malloc(sizeof *p);
  CG_CHECK(p, CG_ERROR, "out of memory reading '%s'", name);
  int index = 0;
  const cJSON *o;
  cJSON_ArrayForEach(o, probes) {
    CG_TRY(parse_probe(o, name, index++, p, err));
    CG_CHECK(cg_report_add_probe(report, p) >= 0, CG_ERROR, "out of memory reading '%s'", name);
  }
cleanup:
  free(p);
  cJSON_Delete(root);
  return rc;
}

cg_rc cg_probes_read(const char *path, cg_report *report, cg_error *err) {
  cg_rc rc = CG_OK;
  char *text = NULL;
  size_t size = 0;
  CG_TRY(cg_file_read(path, &text, &size, err));
  CG_CHECK(size <= CG_RESULTS_MAX_BYTES, CG_BAD_INPUT,
           "'%s': larger than the %zu MiB a results file may be", path, CG_RESULTS_MAX_BYTES >> 20);
  CG_TRY(cg_probes_parse(text, size, path, report, err));
cleanup:
  free(text);
  return rc;
}

/* ---- CSV ---- */

static void put_csv(const cg_report *report, FILE *out, void *ctx) {
  fputs("device,platform,driver_version,group,name,unit,width,bytes,n,median,min,max,mean,"
        "stddev\n", out);
  for (int i = 0; i < report->nprobes; ++i) {
    const cg_probe *p = &report->probes[i];
    for (int k = 0; k < p->nfigures; ++k) {
      const cg_probe_figure *f = &p->figures[k];
      cg_csv_str(out, p->device, true);
      cg_csv_str(out, p->platform, false);
      cg_csv_str(out, p->driver, false);
      fprintf(out, ",%s,\"%s\",%s", f->group, f->name, f->unit); /* names of our own */
      if (f->width)
        fprintf(out, ",%d", f->width);
      else
        fputs(",", out);
      cg_csv_num(out, f->bytes, 6);
      fprintf(out, ",%d", f->stats.n);
      cg_csv_num(out, f->stats.median, 6);
      cg_csv_num(out, f->stats.min, 6);
      cg_csv_num(out, f->stats.max, 6);
      cg_csv_num(out, f->stats.mean, 6);
      cg_csv_num(out, f->stats.stddev, 6);
      fputc('\n', out);
    }
  }
}

cg_rc cg_probe_write_csv(const cg_report *report, const char *path, cg_error *err) {
  return cg_report_write_whole(report, path, put_csv, NULL, err);
}

/* ---- for people ---- */

static const char *size_name(double bytes, char *buf, size_t size) {
  if (bytes >= 1 << 20)
    snprintf(buf, size, "%.0f MiB", bytes / (1 << 20));
  else
    snprintf(buf, size, "%.0f KiB", bytes / 1024);
  return buf;
}

void cg_probe_print(const cg_probe *p, FILE *out) {
  if (p->host)
    fprintf(out, "\nprobe of the host CPU (the cpu backend: OpenBLAS and memcpy)%s\n",
            p->quick ? ", quick" : "");
  else
    fprintf(out, "\nprobe of %s (%s, driver %s)%s\n", p->device, p->platform, p->driver,
            p->quick ? ", quick" : "");
  fprintf(out, "  ceilings: FP32 %.4g GFLOP/s (%s), bandwidth %.4g GB/s (%s)", p->fp32_gflops,
          p->fp32_from, p->bandwidth_gbs, p->bandwidth_from);
  if (isfinite(p->launch_us)) fprintf(out, ", launch %.3g us back to back", p->launch_us);
  fprintf(out, "; %d runs of each after a warm-up, %.1f s in all\n", p->runs, p->wall_ms / 1e3);
  if (isfinite(p->memory_bytes) || isfinite(p->cache_bytes) || isfinite(p->timer_ns)) {
    fputs("  ", out);
    if (isfinite(p->memory_bytes))
      fprintf(out, "bandwidth over %.0f MiB buffers of random data", p->memory_bytes / (1 << 20));
    if (isfinite(p->cache_bytes))
      fprintf(out, "; last-level cache %.3g MiB", p->cache_bytes / (1 << 20));
    if (isfinite(p->timer_ns)) fprintf(out, "; profiling timer resolution %.0f ns", p->timer_ns);
    fputc('\n', out);
  }
  fprintf(out, "  %-9s %-24s %10s %10s %10s  %s\n", "group", "figure", "median", "min", "max",
          "unit");
  for (int i = 0; i < p->nfigures; ++i) {
    const cg_probe_figure *f = &p->figures[i];
    char name[64], size[24];
    if (isfinite(f->bytes))
      snprintf(name, sizeof name, "%s %s", f->name, size_name(f->bytes, size, sizeof size));
    else
      snprintf(name, sizeof name, "%s", f->name);
    fprintf(out, "  %-9s %-24s %10.4g %10.4g %10.4g  %s\n", f->group, name, f->stats.median,
            f->stats.min, f->stats.max, f->unit);
  }
}
