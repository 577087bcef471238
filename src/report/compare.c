/* Results compared: records matched across files or devices, their figures and ratios to the
 * baseline, the threshold, and the output as an aligned table, Markdown or CSV. */
#include "clgauge/compare.h"
#include "report/write.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- matching ---- */

static bool is_host(const cg_result *r) { return r->platform[0] == '\0'; }

static bool same_key(const cg_result *a, const cg_result *b, bool by_device) {
  return strcmp(a->workload, b->workload) == 0 && strcmp(a->backend, b->backend) == 0 &&
         strcmp(a->variant, b->variant) == 0 && strcmp(a->transfer, b->transfer) == 0 &&
         cg_result_same_params(a, b) && (by_device || cg_result_same_device(a, b));
}

/* Whether record r of the column's file belongs to the column. */
static bool in_column(const cg_compare_column *col, const cg_result *r) {
  return !col->device || cg_result_same_device(col->device, r);
}

double cg_compare_value(const cg_compare_row *row, int column, cg_phase phase) {
  if (column < 0 || column >= CG_COMPARE_MAX_COLUMNS || phase < 0 || phase >= CG_PHASE_COUNT)
    return NAN;
  const cg_result *r = row->cell[column];
  return r && r->status == CG_STATUS_OK ? r->phase[phase] : NAN;
}

double cg_compare_ratio(const cg_comparison *c, const cg_compare_row *row, int column,
                        cg_phase phase) {
  double base = cg_compare_value(row, c->baseline, phase);
  double v = cg_compare_value(row, column, phase);
  return isfinite(base) && isfinite(v) && base > 0 ? v / base : NAN;
}

/* The cell of the baseline, else the first present: what names the row. */
static const cg_result *row_record(const cg_comparison *c, const cg_compare_row *row) {
  if (row->cell[c->baseline]) return row->cell[c->baseline];
  for (int col = 0; col < c->ncolumns; ++col)
    if (row->cell[col]) return row->cell[col];
  return NULL;
}

static void mark_regressions(cg_comparison *c) {
  if (!isfinite(c->threshold_pct)) return;
  for (int i = 0; i < c->nrows; ++i) {
    cg_compare_row *row = &c->rows[i];
    const cg_result *base = row->cell[c->baseline];
    if (!base || base->status != CG_STATUS_OK) continue;
    for (int col = 0; col < c->ncolumns; ++col) {
      const cg_result *r = row->cell[col];
      if (col == c->baseline || !r) continue;
      double ratio = cg_compare_ratio(c, row, col, CG_PHASE_STEADY);
      if (r->status != CG_STATUS_OK || (isfinite(ratio) && ratio > 1 + c->threshold_pct / 100)) {
        row->regressed |= 1u << col;
        ++c->regressions;
      }
    }
  }
}

/* The rows of one workload together, workloads in the order they first appear, each one's rows
 * in the order found: a record the baseline lacks stands beside its workload's others. */
static void group_by_workload(cg_comparison *c) {
  cg_compare_row *sorted = malloc((size_t)c->nrows * sizeof *sorted);
  bool *taken = calloc((size_t)c->nrows + 1, sizeof *taken);
  if (sorted && taken) {
    int n = 0;
    for (int i = 0; i < c->nrows; ++i) {
      if (taken[i]) continue;
      const char *w = row_record(c, &c->rows[i])->workload;
      for (int j = i; j < c->nrows; ++j)
        if (!taken[j] && strcmp(row_record(c, &c->rows[j])->workload, w) == 0) {
          sorted[n++] = c->rows[j];
          taken[j] = true;
        }
    }
    memcpy(c->rows, sorted, (size_t)c->nrows * sizeof *sorted);
  }
  free(sorted);
  free(taken);
}

/* Rows in the baseline's order, then the records the baseline lacks in the other columns'
 * order, grouped by workload. A key found k times in a column matches the k-th occurrence in
 * each other column. */
static cg_rc match(cg_comparison *c, cg_error *err) {
  cg_rc rc = CG_OK;
  bool *used[CG_COMPARE_MAX_COLUMNS] = {0};
  size_t total = 0;
  for (int col = 0; col < c->ncolumns; ++col) {
    const cg_results *f = c->columns[col].file;
    used[col] = calloc((size_t)f->count + 1, sizeof *used[col]);
    CG_CHECK(used[col], CG_ERROR, "out of memory comparing results");
    total += (size_t)f->count;
  }
  c->rows = calloc(total + 1, sizeof *c->rows);
  CG_CHECK(c->rows, CG_ERROR, "out of memory comparing results");
  for (int k = 0; k < c->ncolumns; ++k) {
    int col = k == 0 ? c->baseline : (k <= c->baseline ? k - 1 : k);
    const cg_results *f = c->columns[col].file;
    for (int i = 0; i < f->count; ++i) {
      const cg_result *r = &f->records[i];
      if (used[col][i] || !in_column(&c->columns[col], r)) continue;
      cg_compare_row *row = &c->rows[c->nrows++];
      row->cell[col] = r;
      used[col][i] = true;
      row->present = 1;
      for (int other = 0; other < c->ncolumns; ++other) {
        if (other == col) continue;
        const cg_results *g = c->columns[other].file;
        for (int j = 0; j < g->count; ++j) {
          const cg_result *s = &g->records[j];
          if (used[other][j] || !in_column(&c->columns[other], s) ||
              !same_key(r, s, c->by_device))
            continue;
          row->cell[other] = s;
          used[other][j] = true;
          ++row->present;
          break;
        }
      }
      if (row->present < c->ncolumns) ++c->partial;
    }
  }
  group_by_workload(c);
  mark_regressions(c);
cleanup:
  for (int col = 0; col < c->ncolumns; ++col) free(used[col]);
  return rc;
}

static cg_rc start(cg_comparison *c, int ncolumns, int baseline, double threshold_pct,
                   cg_error *err) {
  cg_rc rc = CG_OK;
  CG_CHECK(baseline >= 0 && baseline < ncolumns, CG_BAD_INPUT,
           "baseline %d: out of range (1..%d)", baseline + 1, ncolumns);
  CG_CHECK(isnan(threshold_pct) || (isfinite(threshold_pct) && threshold_pct >= 0),
           CG_BAD_INPUT, "threshold %g: not a percentage of zero or more", threshold_pct);
  c->ncolumns = ncolumns;
  c->baseline = baseline;
  c->threshold_pct = threshold_pct;
cleanup:
  return rc;
}

cg_rc cg_compare_files(const cg_results *files, const char *const *labels, int nfiles,
                       int baseline, double threshold_pct, cg_comparison *out, cg_error *err) {
  cg_rc rc = CG_OK;
  memset(out, 0, sizeof *out);
  CG_CHECK(nfiles >= 1 && nfiles <= CG_COMPARE_MAX_COLUMNS, CG_BAD_INPUT,
           "%d files: compare takes 1 to %d", nfiles, CG_COMPARE_MAX_COLUMNS);
  CG_TRY(start(out, nfiles, baseline, threshold_pct, err));
  for (int i = 0; i < nfiles; ++i) {
    out->columns[i].file = &files[i];
    snprintf(out->columns[i].label, sizeof out->columns[i].label, "%s", labels[i]);
  }
  CG_TRY(match(out, err));
cleanup:
  if (rc != CG_OK) cg_comparison_free(out);
  return rc;
}

cg_rc cg_compare_devices(const cg_results *file, const char *label, int baseline,
                         double threshold_pct, cg_comparison *out, cg_error *err) {
  cg_rc rc = CG_OK;
  memset(out, 0, sizeof *out);
  out->by_device = true;
  snprintf(out->source, sizeof out->source, "%s", label);
  const cg_result *devices[CG_COMPARE_MAX_COLUMNS];
  int n = 0;
  /* OpenCL devices first, in order of appearance, then the host. */
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < file->count; ++i) {
      const cg_result *r = &file->records[i];
      if (is_host(r) != (pass == 1)) continue;
      bool seen = false;
      for (int d = 0; d < n && !seen; ++d) seen = cg_result_same_device(devices[d], r);
      if (seen) continue;
      CG_CHECK(n < CG_COMPARE_MAX_COLUMNS, CG_BAD_INPUT,
               "more than %d devices in one file: compare takes at most %d",
               CG_COMPARE_MAX_COLUMNS, CG_COMPARE_MAX_COLUMNS);
      devices[n++] = r;
    }
  }
  CG_CHECK(n > 0, CG_BAD_INPUT, "no records to compare");
  CG_TRY(start(out, n, baseline, threshold_pct, err));
  for (int d = 0; d < n; ++d) {
    cg_compare_column *col = &out->columns[d];
    col->file = file;
    col->device = devices[d];
    bool shared = false;
    for (int e = 0; e < n; ++e)
      shared |= e != d && strcmp(devices[e]->device, devices[d]->device) == 0;
    const char *name = devices[d]->device[0] ? devices[d]->device : "(no device)";
    if (shared)
      snprintf(col->label, sizeof col->label, "%s (%s)", name, devices[d]->platform);
    else
      snprintf(col->label, sizeof col->label, "%s", name);
  }
  CG_TRY(match(out, err));
cleanup:
  if (rc != CG_OK) cg_comparison_free(out);
  return rc;
}

void cg_comparison_free(cg_comparison *c) {
  free(c->rows);
  memset(c, 0, sizeof *c);
}

const cg_compare_row *cg_compare_find(const cg_comparison *c, const char *workload,
                                      const char *backend, const char *variant,
                                      const char *transfer, const char *device) {
  for (int i = 0; i < c->nrows; ++i) {
    const cg_result *r = row_record(c, &c->rows[i]);
    if (strcmp(r->workload, workload) == 0 && strcmp(r->backend, backend) == 0 &&
        strcmp(r->variant, variant) == 0 && strcmp(r->transfer, transfer ? transfer : "") == 0 &&
        (!device || strcmp(r->device, device) == 0))
      return &c->rows[i];
  }
  return NULL;
}

/* ---- the parameters that tell a workload's records apart ---- */

enum { MAX_KNOWN = 256 };

typedef struct param_seen {
  const char *workload, *name;
  double value;
  int rows;
  bool varies;
} param_seen;

typedef struct param_census {
  param_seen seen[MAX_KNOWN];
  int n;
  bool overflow; /* too many names to track: every parameter is shown */
} param_census;

static int workload_rows(const cg_comparison *c, const char *workload) {
  int n = 0;
  for (int i = 0; i < c->nrows; ++i)
    n += strcmp(row_record(c, &c->rows[i])->workload, workload) == 0;
  return n;
}

/* Rows are made from a record each (cg_compare), so row_record always finds a cell; GCC 12's
 * analyzer follows its NULL return all the same and reports the dereferences below: false
 * positives. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-null-dereference"
static void census(const cg_comparison *c, param_census *pc) {
  memset(pc, 0, sizeof *pc);
  for (int i = 0; i < c->nrows; ++i) {
    const cg_result *r = row_record(c, &c->rows[i]);
    for (int p = 0; p < r->nparams; ++p) {
      param_seen *s = NULL;
      for (int k = 0; k < pc->n && !s; ++k)
        if (strcmp(pc->seen[k].workload, r->workload) == 0 &&
            strcmp(pc->seen[k].name, r->params[p].name) == 0)
          s = &pc->seen[k];
      if (!s) {
        if (pc->n == MAX_KNOWN) {
          pc->overflow = true;
          continue;
        }
        s = &pc->seen[pc->n++];
        *s = (param_seen){r->workload, r->params[p].name, r->params[p].value, 0, false};
      }
      ++s->rows;
      s->varies |= !(s->value == r->params[p].value);
    }
  }
  /* A parameter some records lack tells them apart too. */
  for (int k = 0; k < pc->n; ++k)
    if (pc->seen[k].rows != workload_rows(c, pc->seen[k].workload)) pc->seen[k].varies = true;
}
#pragma GCC diagnostic pop

static bool param_varies(const param_census *pc, const char *workload, const char *name) {
  if (pc->overflow) return true;
  for (int k = 0; k < pc->n; ++k)
    if (strcmp(pc->seen[k].workload, workload) == 0 && strcmp(pc->seen[k].name, name) == 0)
      return pc->seen[k].varies;
  return true;
}

/* r comes from row_record, never NULL (see census): the analyzer's NULL is a false positive. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-null-dereference"
/* "hidden=64 din=64" (only those that vary, pc NULL: all, separated by sep). */
static void params_text(const cg_result *r, const param_census *pc, const char *sep, char *buf,
                        size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int p = 0; p < r->nparams && used < size; ++p) {
    if (pc && !param_varies(pc, r->workload, r->params[p].name)) continue;
    int n = snprintf(buf + used, size - used, "%s%s=%.10g", used ? sep : "", r->params[p].name,
                     r->params[p].value);
    if (n < 0) break;
    used += (size_t)n;
  }
}
#pragma GCC diagnostic pop

/* ---- cells ---- */

enum { CELL = 192, MAX_COLS = 6 + 2 * CG_COMPARE_MAX_COLUMNS };

static void fmt_ms(char *buf, size_t size, double v) {
  if (v >= 10000)
    snprintf(buf, size, "%.0f", v);
  else
    snprintf(buf, size, "%.4g", v);
}

static void fmt_ratio(char *buf, size_t size, double v) {
  if (!isfinite(v))
    snprintf(buf, size, "%s", "");
  else if (v >= 1000)
    snprintf(buf, size, "%.0f", v);
  else
    snprintf(buf, size, "%.3g", v);
}

static void record_name(const cg_result *r, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s%s%s", r->backend, r->variant, r->transfer[0] ? "/" : "",
           r->transfer);
}

/* The phases a row shows: those in the mask that any of its ok cells measured; a row with none
 * shows its steady line, where the statuses stand. */
static unsigned row_phases(const cg_comparison *c, const cg_compare_row *row, unsigned mask) {
  unsigned shown = 0;
  for (int p = 0; p < CG_PHASE_COUNT; ++p) {
    if (!(mask & (1u << p))) continue;
    for (int col = 0; col < c->ncolumns; ++col)
      if (isfinite(cg_compare_value(row, col, (cg_phase)p))) shown |= 1u << p;
  }
  return shown ? shown : 1u << CG_PHASE_STEADY;
}

static void value_cell(const cg_compare_row *row, int col, cg_phase p, char *buf, size_t size) {
  const cg_result *r = row->cell[col];
  if (!r)
    snprintf(buf, size, "missing");
  else if (r->status != CG_STATUS_OK)
    snprintf(buf, size, "%s", cg_status_name(r->status));
  else if (!isfinite(r->phase[p]))
    snprintf(buf, size, "-");
  else {
    fmt_ms(buf, size, r->phase[p]);
    /* a figure its own run flagged keeps its value, marked (the notes say why) */
    if (r->implausible[0]) {
      size_t n = strlen(buf);
      if (n + 1 < size) snprintf(buf + n, size - n, "*");
    }
  }
}

/* "only in #2", "missing in #1,#3", or "" */
static void presence_note(const cg_comparison *c, const cg_compare_row *row, char *buf,
                          size_t size) {
  buf[0] = '\0';
  if (row->present == c->ncolumns) return;
  bool only = row->present == 1;
  size_t used = (size_t)snprintf(buf, size, only ? "only in" : "missing in");
  const char *sep = " ";
  for (int col = 0; col < c->ncolumns && used < size; ++col) {
    if ((row->cell[col] != NULL) != only) continue;
    used += (size_t)snprintf(buf + used, size - used, "%s#%d", sep, col + 1);
    sep = ",";
  }
}

/* ---- the table and Markdown: a grid of cells ---- */

/* Lines of ncols cells, each kept as its own string: a comparison of thousands of records
 * costs what its text does, not lines of fixed-size cells. */
typedef struct grid {
  int ncols;
  bool right[MAX_COLS];
  char **cells; /* nlines * ncols */
  int nlines, cap;
} grid;

static const char *cell(const grid *g, int line, int col) {
  return g->cells[(size_t)line * (size_t)g->ncols + (size_t)col];
}

/* Append a line (false when out of memory: the grid then ends there). */
static bool grid_add(grid *g, char line[][CELL]) {
  if (g->nlines == g->cap) {
    int cap = g->cap ? 2 * g->cap : 64;
    void *grown = realloc(g->cells, (size_t)cap * (size_t)g->ncols * sizeof *g->cells);
    if (!grown) return false;
    g->cells = grown;
    g->cap = cap;
  }
  char **out = g->cells + (size_t)g->nlines * (size_t)g->ncols;
  for (int i = 0; i < g->ncols; ++i) {
    out[i] = strdup(line[i]);
    if (!out[i]) {
      while (i--) free(out[i]);
      return false;
    }
  }
  ++g->nlines;
  return true;
}

static void grid_free(grid *g) {
  for (size_t i = 0; i < (size_t)g->nlines * (size_t)g->ncols; ++i) free(g->cells[i]);
  free(g->cells);
}

/* Which optional columns the grid has. */
typedef struct layout {
  bool params, device;
  int first_value; /* index of the first value column */
} layout;

static void fill_grid(const cg_comparison *c, unsigned mask, const param_census *pc,
                      const layout *lay, grid *g) {
  int k = 0;
  g->ncols = lay->first_value;
  for (int col = 0; col < c->ncolumns; ++col) g->ncols += col == c->baseline ? 1 : 2;
  bool notes = c->partial > 0;
  g->ncols += notes;
  for (int i = 0; i < g->ncols; ++i)
    g->right[i] = i >= lay->first_value && (!notes || i < g->ncols - 1);
  char head[MAX_COLS][CELL] = {{0}}, line[MAX_COLS][CELL];
  snprintf(head[k++], CELL, "workload");
  snprintf(head[k++], CELL, "backend/variant");
  if (lay->params) snprintf(head[k++], CELL, "params");
  if (lay->device) snprintf(head[k++], CELL, "device");
  snprintf(head[k++], CELL, "phase");
  for (int col = 0; col < c->ncolumns; ++col) {
    if (col == c->baseline) {
      snprintf(head[k++], CELL, "#%d (base)", col + 1);
    } else {
      snprintf(head[k++], CELL, "#%d", col + 1);
      snprintf(head[k++], CELL, "#%d/#%d", col + 1, c->baseline + 1);
    }
  }
  if (notes) snprintf(head[k], CELL, "note");
  if (!grid_add(g, head)) return;

  for (int i = 0; i < c->nrows; ++i) {
    const cg_compare_row *row = &c->rows[i];
    const cg_result *r = row_record(c, row);
    unsigned shown = row_phases(c, row, mask);
    bool first = true;
    for (int p = 0; p < CG_PHASE_COUNT; ++p) {
      if (!(shown & (1u << p))) continue;
      memset(line, 0, sizeof line);
      k = 0;
      if (first) {
        snprintf(line[k], CELL, "%s", r->workload);
        record_name(r, line[k + 1], CELL);
      }
      k += 2;
      if (lay->params) {
        if (first) params_text(r, pc, " ", line[k], CELL);
        ++k;
      }
      if (lay->device) {
        if (first) snprintf(line[k], CELL, "%.160s", r->device[0] ? r->device : "(no device)");
        ++k;
      }
      snprintf(line[k++], CELL, "%s %s", cg_phase_name((cg_phase)p), cg_phase_unit((cg_phase)p));
      for (int col = 0; col < c->ncolumns; ++col) {
        value_cell(row, col, (cg_phase)p, line[k++], CELL);
        if (col != c->baseline) fmt_ratio(line[k++], CELL, cg_compare_ratio(c, row, col, p));
      }
      if (first && notes) presence_note(c, row, line[k], CELL);
      first = false;
      if (!grid_add(g, line)) return;
    }
  }
}

static void print_text_grid(const grid *g, FILE *out) {
  int width[MAX_COLS] = {0};
  for (int l = 0; l < g->nlines; ++l)
    for (int i = 0; i < g->ncols; ++i) {
      int w = (int)strlen(cell(g, l, i));
      if (w > width[i]) width[i] = w;
    }
  for (int l = 0; l < g->nlines; ++l) {
    int last = g->ncols - 1;
    while (last > 0 && !cell(g, l, last)[0]) --last; /* no trailing blanks */
    for (int i = 0; i <= last; ++i) {
      const char *sep = i ? "  " : "";
      if (g->right[i])
        fprintf(out, "%s%*s", sep, width[i], cell(g, l, i));
      else
        fprintf(out, "%s%-*s", sep, i == last ? 0 : width[i], cell(g, l, i));
    }
    fputc('\n', out);
  }
}

static void md_text(FILE *out, const char *s) {
  for (; *s; ++s) {
    if (*s == '|') fputc('\\', out);
    fputc(*s == '\n' ? ' ' : *s, out);
  }
}

static void print_md_grid(const grid *g, FILE *out) {
  for (int l = 0; l < g->nlines; ++l) {
    fputc('|', out);
    for (int i = 0; i < g->ncols; ++i) {
      fputc(' ', out);
      md_text(out, cell(g, l, i));
      fputs(" |", out);
    }
    fputc('\n', out);
    if (l == 0) {
      fputc('|', out);
      for (int i = 0; i < g->ncols; ++i) fputs(g->right[i] ? " ---: |" : " --- |", out);
      fputc('\n', out);
    }
  }
}

/* ---- around the table: the columns, the notes and the threshold ---- */

static void print_legend(const cg_comparison *c, bool md, FILE *out) {
  if (c->by_device)
    fprintf(out, "The devices of %s side by side; baseline #%d.\n", c->source,
            c->baseline + 1);
  else
    fprintf(out, "%d results files side by side; baseline #%d.\n", c->ncolumns,
            c->baseline + 1);
  fprintf(out, "Ratio: the figure over the baseline's (above 1: slower).\n%s", md ? "\n" : "");
  for (int col = 0; col < c->ncolumns; ++col) {
    const cg_compare_column *k = &c->columns[col];
    fprintf(out, "%s#%d  ", md ? "- " : "  ", col + 1);
    if (md)
      md_text(out, k->label);
    else
      fputs(k->label, out);
    if (k->device) {
      const cg_result *d = k->device;
      const char *parts[] = {d->platform, d->driver, d->cl_version};
      const char *sep = "  (";
      for (int i = 0; i < 3; ++i) {
        if (!parts[i][0]) continue;
        fprintf(out, "%s%s%s", sep, i == 1 ? "driver " : "", parts[i]);
        sep = ", ";
      }
      if (sep[0] == ',') fputc(')', out);
    } else {
      const cg_results *f = k->file;
      fprintf(out, "  (schema %d", f->schema);
      if (f->clgauge_version[0]) fprintf(out, ", clgauge %s", f->clgauge_version);
      if (f->created[0]) fprintf(out, ", %s", f->created);
      if (f->command[0]) {
        fputs(": ", out);
        if (md)
          md_text(out, f->command);
        else
          fputs(f->command, out);
      }
      fputc(')', out);
    }
    fputc('\n', out);
  }
  fputc('\n', out);
}

/* The first line of a reason, shortened. */
static void short_reason(const char *reason, char *buf, size_t size) {
  size_t n = strcspn(reason, "\n");
  if (n > 200) n = 200;
  snprintf(buf, size, "%.*s%s", (int)n, reason, reason[n] ? " ..." : "");
}

/* A row's title: its workload, record name (128), device (256) and parameters (256) in full */
enum { ROW_TITLE_SIZE = 704 };
static void row_title(const cg_comparison *c, const cg_compare_row *row, char *buf,
                      size_t size) {
  const cg_result *r = row_record(c, row);
  char name[128], params[256];
  record_name(r, name, sizeof name);
  params_text(r, NULL, " ", params, sizeof params);
  if (c->by_device)
    snprintf(buf, size, "%s %s (%s)", r->workload, name, params);
  else
    snprintf(buf, size, "%s %s on %s (%s)", r->workload, name,
             r->device[0] ? r->device : "(no device)", params);
}

static void print_notes(const cg_comparison *c, bool md, FILE *out) {
  fprintf(out, "\n%d record%s: %d in every column, %d in some only.\n", c->nrows,
          c->nrows == 1 ? "" : "s", c->nrows - c->partial, c->partial);
  bool heading = false;
  for (int i = 0; i < c->nrows; ++i) {
    const cg_compare_row *row = &c->rows[i];
    for (int col = 0; col < c->ncolumns; ++col) {
      const cg_result *r = row->cell[col];
      if (!r || r->status == CG_STATUS_OK) continue;
      if (!heading) fprintf(out, "\nRecords not ok:\n");
      heading = true;
      char title[ROW_TITLE_SIZE], reason[256];
      row_title(c, row, title, sizeof title);
      short_reason(r->reason, reason, sizeof reason);
      fprintf(out, "%s#%d %s: %s%s%s\n", md ? "- " : "  ", col + 1, title,
              cg_status_name(r->status), reason[0] ? ": " : "", reason);
    }
  }
  heading = false;
  for (int i = 0; i < c->nrows; ++i) {
    const cg_compare_row *row = &c->rows[i];
    for (int col = 0; col < c->ncolumns; ++col) {
      const cg_result *r = row->cell[col];
      if (!r || r->status != CG_STATUS_OK || !r->implausible[0]) continue;
      if (!heading) fprintf(out, "\nImplausible figures (*), as their runs flagged them:\n");
      heading = true;
      char title[ROW_TITLE_SIZE], reason[256];
      row_title(c, row, title, sizeof title);
      short_reason(r->implausible, reason, sizeof reason);
      fprintf(out, "%s#%d %s: %s\n", md ? "- " : "  ", col + 1, title, reason);
    }
  }
  if (!isfinite(c->threshold_pct)) return;
  if (c->regressions == 0) {
    fprintf(out, "\nNo record's steady time per iteration is more than %g%% worse than #%d's.\n",
            c->threshold_pct, c->baseline + 1);
    return;
  }
  fprintf(out, "\n%d record%s worse than #%d by more than %g%% (steady time per iteration):\n",
          c->regressions, c->regressions == 1 ? "" : "s", c->baseline + 1, c->threshold_pct);
  for (int i = 0; i < c->nrows; ++i) {
    const cg_compare_row *row = &c->rows[i];
    for (int col = 0; col < c->ncolumns; ++col) {
      if (!(row->regressed & (1u << col))) continue;
      char title[ROW_TITLE_SIZE], a[32], b[32];
      row_title(c, row, title, sizeof title);
      const cg_result *r = row->cell[col];
      if (r->status != CG_STATUS_OK) {
        fprintf(out, "%s#%d %s: %s, ok in #%d\n", md ? "- " : "  ", col + 1, title,
                cg_status_name(r->status), c->baseline + 1);
        continue;
      }
      fmt_ms(a, sizeof a, cg_compare_value(row, c->baseline, CG_PHASE_STEADY));
      fmt_ms(b, sizeof b, cg_compare_value(row, col, CG_PHASE_STEADY));
      fprintf(out, "%s#%d %s: %s ms/it against %s (%+.1f%%)\n", md ? "- " : "  ", col + 1, title,
              b, a, 100 * (cg_compare_ratio(c, row, col, CG_PHASE_STEADY) - 1));
    }
  }
}

/* ---- CSV: one line per record and phase, every figure at full precision ---- */

static void print_csv(const cg_comparison *c, unsigned mask, FILE *out) {
  fputs("workload,backend,variant,transfer,params,device,phase,unit", out);
  for (int col = 0; col < c->ncolumns; ++col) {
    char h[600];
    cg_csv_str(out, c->columns[col].label, false);
    snprintf(h, sizeof h, "status %s", c->columns[col].label);
    cg_csv_str(out, h, false);
    if (col != c->baseline) {
      snprintf(h, sizeof h, "ratio %s", c->columns[col].label);
      cg_csv_str(out, h, false);
    }
  }
  fputs(",regressed\n", out);
  for (int i = 0; i < c->nrows; ++i) {
    const cg_compare_row *row = &c->rows[i];
    const cg_result *r = row_record(c, row);
    unsigned shown = row_phases(c, row, mask);
    char params[1024];
    params_text(r, NULL, ";", params, sizeof params);
    for (int p = 0; p < CG_PHASE_COUNT; ++p) {
      if (!(shown & (1u << p))) continue;
      cg_csv_str(out, r->workload, true);
      cg_csv_str(out, r->backend, false);
      cg_csv_str(out, r->variant, false);
      cg_csv_str(out, r->transfer, false);
      cg_csv_str(out, params, false);
      cg_csv_str(out, c->by_device ? "" : r->device, false);
      cg_csv_str(out, cg_phase_name((cg_phase)p), false);
      cg_csv_str(out, cg_phase_unit((cg_phase)p), false);
      for (int col = 0; col < c->ncolumns; ++col) {
        cg_csv_num(out, cg_compare_value(row, col, (cg_phase)p), 9);
        cg_csv_str(out, row->cell[col] ? cg_status_name(row->cell[col]->status) : "missing", false);
        if (col != c->baseline) cg_csv_num(out, cg_compare_ratio(c, row, col, (cg_phase)p), 9);
      }
      bool regressed = p == CG_PHASE_STEADY && row->regressed;
      fputs(regressed ? ",yes\n" : ",\n", out);
    }
  }
}

void cg_compare_print(const cg_comparison *c, cg_compare_format format, unsigned phases,
                      FILE *out) {
  unsigned mask = phases ? phases : (1u << CG_PHASE_COUNT) - 1;
  if (format == CG_COMPARE_CSV) {
    print_csv(c, mask, out);
    return;
  }
  param_census *pc = malloc(sizeof *pc);
  if (!pc) return;
  census(c, pc);
  layout lay = {false, !c->by_device, 0};
  for (int i = 0; i < c->nrows && !lay.params; ++i) {
    char text[CELL];
    params_text(row_record(c, &c->rows[i]), pc, " ", text, sizeof text);
    lay.params = text[0] != '\0';
  }
  lay.first_value = 3 + lay.params + lay.device;
  grid g = {0};
  fill_grid(c, mask, pc, &lay, &g);
  bool md = format == CG_COMPARE_MD;
  print_legend(c, md, out);
  if (md)
    print_md_grid(&g, out);
  else
    print_text_grid(&g, out);
  print_notes(c, md, out);
  grid_free(&g);
  free(pc);
}
