/* clgauge tune: search the hand-written kernels' parameters on one device, keep the best per
 * device, driver, kernel and size class in the tuning file; and the tuning file of every run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "front.h"
#include "clgauge/backend.h"
#include "clgauge/binary_cache.h"
#include "clgauge/clock.h"
#include "clgauge/files.h"
#include "clgauge/tune.h"

enum { TUNE_BUDGET_S = 120, TUNE_FRACTION = 4 };
static const char default_backend[] = "cl";
static const char default_tuner[] = "clblast_tuner_xgemm";

/* What each backend's tune does: the cl backend's search of the tune spaces of its
 * implementations; for clblast, CLBlast's own tuner of its GEMM, which clgauge runs on its own in
 * matmul only. */
static bool tunable(const char *backend, const cg_impl *impl) {
  if (!impl) return false;
  if (strcmp(backend, "clblast") == 0) return strcmp(impl->workload, "matmul") == 0;
  return impl->tune_spaces != NULL;
}

bool tuning_path(const common_opts *o, char *path, size_t size) {
  if (o->tuning_file) return (size_t)snprintf(path, size, "%s", o->tuning_file) < size;
  /* beside the binary cache, by the same rule */
  char dir[4096];
  cg_error err = {0};
  if (cg_binary_cache_default_dir(dir, sizeof dir, &err) != CG_OK) return false;
  const int n = snprintf(path, size, "%s/tuning.json", dir);
  return n > 0 && (size_t)n < size;
}

int tuning_for_run(const common_opts *o, cg_tuning *t) {
  memset(t, 0, sizeof *t);
  char path[4096];
  if (o->no_tuned || !tuning_path(o, path, sizeof path)) return 0;
  cg_error err = {0};
  if (cg_tuning_load(path, t, &err) == CG_OK) return 0;
  if (o->tuning_file) {
    cli_error("--tuning-file: %s", err.msg);
    return EXIT_USAGE;
  }
  cli_error("warning: %s; running the default kernel parameters", err.msg);
  return 0;
}

typedef struct tune_opts {
  common_opts common;
  char **workloads;
  char *set;   /* "NAME=VALUE,..." for the workloads' parameters, or NULL */
  double budget_s;
  const char *backend; /* cl or clblast */
  double fraction;     /* clblast: the tuner's -fraction */
  const char *tuner;   /* clblast: the tuner program */
} tune_opts;

static void tune_help(void) {
  printf("usage: clgauge tune [options]\n\n"
         "Search the build-time parameters of the hand-written kernels (backend cl: tile sizes,\n"
         "work-group sizes, fused blockings, the split of matmul's last wave) on one device:\n"
         "first the defaults, then one parameter at a time over its candidate values with the\n"
         "others at the best so far, pass after pass while a pass improves. Every candidate is a\n"
         "full run of the workload, verified against the CPU reference; one that fails, does not\n"
         "verify or does not fit the device is skipped. The best per device, driver, kernel and\n"
         "size class (the job's FLOPs per iteration in steps of 4x) goes to the tuning file,\n"
         "which later runs apply (their records say origin 'tuned'; --kernel-param still wins;\n"
         "--no-tuned runs the defaults). Matmul's pipelined kernel, whose block and split\n"
         "follow the shape, records in each entry the default it replaced, keeps one entry per\n"
         "default in a size class and applies each only at shapes whose default is that one.\n"
         "Progress goes to stderr, a table of the results to stdout.\n\n"
         "With --backend clblast, CLBlast's GEMM (matmul) is tuned by CLBlast's own tuner\n"
         "(clblast_tuner_xgemm, Debian package clblast-utils): its first stage, 1/F of its fixed\n"
         "set of configurations in random order at the job's shape rounded up to multiples of\n"
         "128, stopped when done or at the budget; its best runs beside the untuned CLBlast,\n"
         "both verified, and is kept if faster. Later runs apply it with\n"
         "CLBlastOverrideParameters (parameters XGEMM_MWG and the others, origin 'tuned').\n\n"
         "  --backend B        cl (default) or clblast\n"
         "  --fraction F       clblast: the tuner's -fraction, 1..578 (default %d: 144 of its\n"
         "                     578 configurations)\n"
         "  --clblast-tuner P  clblast: the tuner program (default %s, from PATH)\n"
         "  --workload LIST    workloads to tune (default: every one with tunable kernels:",
         (int)TUNE_FRACTION, default_tuner);
  for (const cg_workload *const *w = cg_workload_all(); *w; ++w) {
    const cg_impl *impl = cg_impl_find(cg_backend_find(default_backend), (*w)->name);
    if (tunable(default_backend, impl)) printf(" %s", (*w)->name);
  }
  printf("; with --backend clblast: matmul)\n"
         "  --variant LIST     the cl variants to tune (default: every variant with parameters)\n"
         "  --set LIST         the workloads' parameters for the tuned job, NAME=VALUE,... as\n"
         "                     their options are named (n=4096, batch=256); default: their\n"
         "                     defaults (the seed shapes)\n"
         "  --budget-s S       seconds of search per workload, shared by its variants and\n"
         "                     checked between candidates (default %d)\n"
         "  --device SEL       the device, as for every command (default $CLGAUGE_DEVICE, else\n"
         "                     the first GPU, else the first device)\n"
         "  --tuning-file FILE where the results go (default\n"
         "                     $XDG_CACHE_HOME/clgauge/tuning.json, else\n"
         "                     ~/.cache/clgauge/tuning.json); entries of other devices, kernels\n"
         "                     and size classes are kept\n"
         "  --kernel-dir DIR, --binary-cache DIR, --seed N, --quiet   as for every command\n"
         "  --help             this text\n\n"
         "Exit status: 0 when every selected kernel was tuned, 3 when one had no setting that\n"
         "ran, 2 for bad usage, 1 otherwise (such as a tuning file that cannot be written).\n",
         (int)TUNE_BUDGET_S);
}

/* 1: help printed, 0: parsed, -1: bad (reported). */
static int parse_tune(int argc, char **argv, tune_opts *t) {
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (cli_flag(argv[i], "--help")) {
      tune_help();
      return 1;
    } else if (cli_option(argc, argv, &i, "--workload", &v, &bad)) {
      cli_list_free(t->workloads);
      t->workloads = NULL;
      if (bad || !cli_list("--workload", v, &t->workloads)) return -1;
    } else if (cli_option(argc, argv, &i, "--set", &v, &bad)) {
      if (bad) return -1;
      t->set = (char *)v;
    } else if (cli_option(argc, argv, &i, "--budget-s", &v, &bad)) {
      if (bad || !cli_double("--budget-s", v, 0, 1e7, &t->budget_s)) return -1;
    } else if (cli_option(argc, argv, &i, "--fraction", &v, &bad)) {
      if (bad || !cli_double("--fraction", v, 1, 578, &t->fraction)) return -1;
    } else if (cli_option(argc, argv, &i, "--clblast-tuner", &v, &bad)) {
      if (bad) return -1;
      if (!*v) {
        cli_error("--clblast-tuner '': an empty program name");
        return -1;
      }
      t->tuner = v;
    } else {
      /* the common options that make sense here */
      static const char *const refused[] = {"--kernel-param", "--json", "--csv",
                                            "--cold-compile", "--record-timeout", "--no-tuned",
                                            NULL};
      for (const char *const *r = refused; *r; ++r)
        if (strncmp(argv[i], *r, strlen(*r)) == 0 &&
            (argv[i][strlen(*r)] == '\0' || argv[i][strlen(*r)] == '=')) {
          cli_error("%s is not an option of tune (see 'clgauge tune --help')", *r);
          return -1;
        }
      const int c = parse_common(argc, argv, &i, &t->common);
      if (c < 0) return -1;
      if (c == 0) {
        cli_error("unknown option '%s' (see 'clgauge tune --help')", argv[i]);
        return -1;
      }
    }
  }
  char **b = t->common.backends;
  if (b && (!b[0] || b[1] || (strcmp(b[0], "cl") != 0 && strcmp(b[0], "clblast") != 0))) {
    cli_error("--backend: tune takes one backend, cl or clblast");
    return -1;
  }
  t->backend = b ? b[0] : default_backend;
  return 0;
}

/* The job of one workload: its defaults, then --set's values that it has. Names no selected
 * workload has are refused by the caller. */
static int make_job(const cg_workload *w, const char *set, cg_job *job, bool *used) {
  cg_job_init(job, w);
  if (!set) return 0;
  char *copy = strdup(set);
  if (!copy) {
    cli_error("out of memory");
    return EXIT_FAILURE;
  }
  int status = 0, item = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && status == 0;
       tok = strtok_r(NULL, ",", &save), ++item) {
    char *eq = strchr(tok, '=');
    if (!eq || eq == tok || !eq[1]) {
      cli_error("--set '%s': expected NAME=VALUE", tok);
      status = EXIT_USAGE;
      break;
    }
    *eq = '\0';
    for (char *c = tok; *c; ++c)
      if (*c == '-') *c = '_';
    if (cg_params_index(&job->params, tok) < 0) continue;
    char *end = NULL;
    const double value = strtod(eq + 1, &end);
    cg_error err = {0};
    if (*end || !isfinite(value)) {
      cli_error("--set %s='%s': not a number", tok, eq + 1);
      status = EXIT_USAGE;
    } else if (cg_params_set(&job->params, tok, value, &err) != CG_OK ||
               cg_params_check(&job->params, &err) != CG_OK) {
      cli_error("--set: %s", err.msg);
      status = EXIT_USAGE;
    } else if (item < 64) {
      used[item] = true;
    }
  }
  free(copy);
  return status;
}

/* "NAME=V,NAME=V" of a setting, or `none` when it has no parameter (or there is none). */
static void format_setting(const cg_kernel_overrides *setting, const char *none, char *out,
                           size_t size) {
  size_t used = 0;
  snprintf(out, size, "%s", none);
  for (int i = 0; setting && i < setting->count && used < size; ++i)
    used += (size_t)snprintf(out + used, size - used, "%s%s=%d", i ? "," : "",
                             setting->items[i].name, setting->items[i].value);
}

typedef struct tune_what {
  const char *workload, *backend;
} tune_what;

static void on_candidate(void *ctx, const char *variant, int index, int planned,
                         const cg_kernel_overrides *setting, double ms, const char *why,
                         double best_ms) {
  const tune_what *what = ctx;
  char text[512];
  format_setting(setting, "defaults", text, sizeof text);
  if (isfinite(ms))
    fprintf(stderr, "tune %s %s/%s [%d/%d] %s: %.4g ms/it (best %.4g)\n", what->workload,
            what->backend, variant, index + 1, planned, text, ms, best_ms);
  else
    fprintf(stderr, "tune %s %s/%s [%d/%d] %s: skipped (%.200s)\n", what->workload,
            what->backend, variant, index + 1, planned, text, why && *why ? why : "failed");
}

static void print_entry(const cg_tuning_entry *e) {
  char text[512];
  format_setting(&e->params, "", text, sizeof text);
  char dflt[32] = "failed", gain[32] = "-", variant_text[48];
  snprintf(variant_text, sizeof variant_text, "%s/%s", e->backend, e->variant);
  if (isfinite(e->default_ms)) {
    snprintf(dflt, sizeof dflt, "%.4g", e->default_ms);
    snprintf(gain, sizeof gain, "%.2fx", e->default_ms / e->best_ms);
  }
  printf("%-8s %-18s %5d %12s %12.4g %8s %5d  %s\n", e->workload, variant_text, e->size_class, dflt,
         e->best_ms, gain, e->candidates, text);
}

/* Whether --variant leaves the variant in (no --variant: every one). */
static bool variant_wanted(const tune_opts *t, const char *variant) {
  if (!t->common.variants) return true;
  for (char **v = t->common.variants; *v; ++v)
    if (strcmp(*v, variant) == 0) return true;
  return false;
}

/* Keep the entry in the tuning file, written at once, and print it (the table's header first). */
static int keep_entry(cg_tuning *file, const char *path, const cg_tuning_entry *e, bool *header) {
  cg_error err = {0};
  if (cg_tuning_put(file, e, &err) != CG_OK || cg_tuning_save(path, file, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  if (!*header) {
    printf("%-8s %-18s %5s %12s %12s %8s %5s  %s\n", "workload", "variant", "class",
           "default ms", "tuned ms", "gain", "tried", "setting");
    *header = true;
  }
  print_entry(e);
  fflush(stdout);
  return 0;
}

/* CLBlast's tuner for one job, in a folder of its own under $TMPDIR, removed when it succeeds
 * (kept for its log when it fails). */
static int tune_clblast(tune_opts *t, const cg_job *job, const cg_selection *sel,
                        const cg_device_info *device, cg_tuning *file, const char *path,
                        bool *header) {
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/clgauge-xgemm-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    cli_error("cannot make a folder for CLBlast's tuner in %s: %s", tmp && *tmp ? tmp : "/tmp",
              strerror(errno));
    return EXIT_FAILURE;
  }
  const cg_xgemm_tuner_job tuner = {.program = t->tuner ? t->tuner : default_tuner,
                                    .fraction = t->fraction,
                                    .budget_s = t->budget_s,
                                    .workdir = dir};
  tune_what what = {job->workload->name, t->backend};
  cg_tuning_entry e;
  cg_error err = {0};
  const cg_rc rc = cg_tune_clblast(job, sel, device, &tuner, t->common.quiet ? NULL : on_candidate,
                                   &what, &e, &err);
  if (rc != CG_OK) {
    cli_error("%s clblast/sgemm: %s", job->workload->name, err.msg);
    return rc == CG_UNSUPPORTED ? EXIT_RECORD_ERROR : EXIT_FAILURE;
  }
  const char *const files[] = {"clblast_xgemm_1_32.json", "tuner.log", NULL};
  for (const char *const *f = files; *f; ++f) {
    char name[4200];
    snprintf(name, sizeof name, "%s/%s", dir, *f);
    unlink(name);
  }
  rmdir(dir);
  return keep_entry(file, path, &e, header);
}

static int tune_workloads(tune_opts *t, const cg_device_info *device, cg_tuning *file,
                          const char *path) {
  const cg_backend *cl = cg_backend_find(t->backend);
  const bool clblast = strcmp(t->backend, "clblast") == 0;
  int status = 0;
  bool used[64] = {false};
  const cg_selection sel = {.seed = t->common.seed,
                            .kernel_dir = t->common.kernel_dir,
                            .binary_cache = t->common.binary_cache};
  cg_job *jobs = calloc(16, sizeof *jobs);
  const cg_workload *chosen[16];
  int njobs = 0;
  if (!jobs) {
    cli_error("out of memory");
    return EXIT_FAILURE;
  }
  for (const cg_workload *const *w = cg_workload_all(); *w && status == 0 && njobs < 16; ++w) {
    const cg_impl *impl = cg_impl_find(cl, (*w)->name);
    bool wanted = !t->workloads && tunable(t->backend, impl);
    for (char **n = t->workloads; n && *n; ++n) wanted |= strcmp(*n, (*w)->name) == 0;
    if (!wanted) continue;
    if (!tunable(t->backend, impl)) {
      cli_error("--workload %s: its %s %s nothing to tune%s", (*w)->name, t->backend,
                clblast ? "backend has" : "kernels have",
                clblast ? " (CLBlast's tuner serves matmul)" : "");
      status = EXIT_USAGE;
      break;
    }
    chosen[njobs] = *w;
    status = make_job(*w, t->set, &jobs[njobs], used);
    cg_error err = {0};
    if (status == 0 && cg_engine_validate(&jobs[njobs], &sel, device, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_USAGE;
    }
    ++njobs;
  }
  for (char **n = t->workloads; n && *n && status == 0; ++n)
    if (!cg_workload_find(*n)) {
      cli_error("--workload: unknown workload '%s'", *n);
      status = EXIT_USAGE;
    }
  if (status == 0 && t->set) {
    int item = 0;
    for (const char *p = t->set; *p && status == 0; ++item) {
      const size_t len = strcspn(p, ",");
      if (item < 64 && !used[item]) {
        cli_error("--set '%.*s': no selected workload has that parameter", (int)len, p);
        status = EXIT_USAGE;
      }
      p += len + (p[len] == ',');
    }
  }
  for (char **v = t->common.variants; v && *v && status == 0; ++v) {
    bool known = false;
    for (int j = 0; j < njobs; ++j)
      known |= clblast ? strcmp(*v, "sgemm") == 0
                       : cg_impl_tune_space(cg_impl_find(cl, chosen[j]->name), *v) != NULL;
    if (!known) {
      cli_error("--variant %s: no selected workload has a %s variant of that name with "
                "parameters to tune",
                *v, t->backend);
      status = EXIT_USAGE;
    }
  }
  if (status == 0 && !t->common.quiet)
    fprintf(stderr, "clgauge tune: %s (%s, driver %s), results in %s\n", device->name,
            device->platform, device->driver_version, path);
  bool header = false;
  for (int j = 0; j < njobs && status == 0; ++j) {
    if (clblast) {
      status = tune_clblast(t, &jobs[j], &sel, device, file, path, &header);
      continue;
    }
    const cg_impl *impl = cg_impl_find(cl, chosen[j]->name);
    tune_what what = {chosen[j]->name, t->backend};
    int nvariants = 0;
    for (const cg_tune_space *s = impl->tune_spaces; s->variant; ++s) {
      nvariants += variant_wanted(t, s->variant);
    }
    double left = t->budget_s;
    for (const cg_tune_space *s = impl->tune_spaces; s->variant && status == 0; ++s) {
      if (!variant_wanted(t, s->variant)) continue;
      const double share = left / (nvariants > 0 ? nvariants : 1);
      const uint64_t t0 = cg_now_ns();
      cg_tuning_entry e;
      cg_error err = {0};
      const cg_rc rc = cg_tune_variant(&jobs[j], &sel, device, t->backend, s->variant, share,
                                       t->common.quiet ? NULL : on_candidate, &what, &e, &err);
      left -= cg_ns_to_ms(cg_now_ns() - t0) / 1000.0;
      if (left < 0) left = 0;
      --nvariants;
      if (rc != CG_OK) {
        cli_error("%s %s/%s: %s", chosen[j]->name, t->backend, s->variant, err.msg);
        status = rc == CG_UNSUPPORTED ? EXIT_RECORD_ERROR : EXIT_FAILURE;
        continue;
      }
      status = keep_entry(file, path, &e, &header);
    }
  }
  free(jobs);
  return status;
}

int cmd_tune(int argc, char **argv) {
  cli_set_command("clgauge tune");
  tune_opts t = {.common = {.seed = 42}, .budget_s = TUNE_BUDGET_S, .fraction = TUNE_FRACTION};
  const int p = parse_tune(argc, argv, &t);
  int status = p < 0 ? EXIT_USAGE : 0;
  char path[4096] = "";
  cg_tuning file = {0};
  cg_device_list list = {0};
  cg_error err = {0};
  if (p == 0 && !tuning_path(&t.common, path, sizeof path)) {
    cli_error("no place for the tuning file: HOME and XDG_CACHE_HOME are unset; give "
              "--tuning-file");
    status = EXIT_USAGE;
  }
  if (p == 0 && status == 0 && cg_tuning_load(path, &file, &err) != CG_OK) {
    cli_error("%s (not overwritten; give another --tuning-file, or remove it)", err.msg);
    status = EXIT_USAGE;
  }
  if (p == 0 && status == 0 && !t.common.tuning_file) {
    /* the default file's folder, the binary cache's, made with its parents where missing */
    char dir[4096];
    if (cg_binary_cache_default_dir(dir, sizeof dir, &err) != CG_OK ||
        cg_binary_cache_check(dir, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_FAILURE;
    }
  }
  if (p == 0 && status == 0 && cg_file_check_writable(path, &err) != CG_OK) {
    cli_error("%s", err.msg);
    status = t.common.tuning_file ? EXIT_USAGE : EXIT_FAILURE;
  }
  const cg_device_info *device = NULL;
  if (p == 0 && status == 0) {
    driver_caches_fallback();
    if (cg_device_list_query(&list, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_FAILURE;
    }
  }
  if (p == 0 && status == 0) {
    const char *sel = t.common.device ? t.common.device : getenv("CLGAUGE_DEVICE");
    int index = -1;
    if (list.count == 0) {
      cli_error("no OpenCL device found (%d platforms): nothing to tune on", list.platforms);
      status = EXIT_NOTHING_RAN;
    } else if (cg_device_select(&list, sel && *sel ? sel : NULL, &index, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_USAGE;
    } else {
      device = &list.items[index];
    }
  }
  if (p == 0 && status == 0) status = tune_workloads(&t, device, &file, path);
  cg_tuning_free(&file);
  cg_device_list_free(&list);
  cli_list_free(t.workloads);
  free_common(&t.common);
  return status;
}
