/* clgauge: the command-line front end. Parses options, selects the device, runs workloads,
 * prints the report and writes results files. The only place that prints for people or exits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clgauge/backend.h"
#include "clgauge/device.h"
#include "clgauge/files.h"
#include "clgauge/matmul.h"
#include "clgauge/mlp.h"
#include "clgauge/linear.h"
#include "clgauge/report.h"
#include "clgauge/clock.h"
#include "clgauge/events.h"
#include "clgauge/stats.h"

enum { EXIT_USAGE = 2, EXIT_RECORD_ERROR = 3 };

/* Options every workload command takes. */
typedef struct common_opts {
  const char *device;
  const char *kernel_dir;
  const char *binary_cache;
  bool cold_compile;
  const char *json;
  const char *csv;
  char **backends;
  char **variants;
  uint64_t seed;
  bool quiet;
} common_opts;

static const char common_help[] =
    "  --device SEL       device: index from 'clgauge list' (3, or 0:1 as platform:device),\n"
    "                     type (gpu, cpu, accelerator), or vendor/name substring (nvidia, pocl);\n"
    "                     default $CLGAUGE_DEVICE, else the first GPU, else the first device\n"
    "  --backend LIST     comma-separated backends: cpu, clblast, cl (default: all)\n"
    "  --variant LIST     comma-separated variants of the backends (default: all)\n"
    "  --kernel-dir DIR   read the OpenCL kernels from DIR instead of the embedded copies\n"
    "  --binary-cache DIR keep built OpenCL programs in DIR (created if missing) and load them\n"
    "                     on later runs: the compile phase then shows the cached cost\n"
    "  --cold-compile     switch off the drivers' own kernel caches (NVIDIA, PoCL, Mesa) so that\n"
    "                     the compile phase shows a cold build\n"
    "  --seed N           seed of the input generator (default 42)\n"
    "  --json FILE        write the results as JSON (schema " CG_REPORT_SCHEMA ")\n"
    "  --csv FILE         write the results as CSV\n"
    "  --quiet            no progress lines on stderr\n"
    "  --help             this text\n";

static const char exit_help[] =
    "Exit status: 0 when every record is ok, unsupported or skipped; 3 when a record is 'error'\n"
    "(the others still run and the files are still written); 2 for bad usage; 1 otherwise.\n";

/* 1: consumed, 0: not a common option, -1: bad. */
static int parse_common(int argc, char **argv, int *i, common_opts *o) {
  const char *v = NULL;
  bool bad = false;
  if (cli_option(argc, argv, i, "--device", &v, &bad)) {
    if (bad) return -1;
    o->device = v;
  } else if (cli_option(argc, argv, i, "--kernel-dir", &v, &bad)) {
    if (bad) return -1;
    o->kernel_dir = v;
  } else if (cli_option(argc, argv, i, "--binary-cache", &v, &bad)) {
    if (bad) return -1;
    o->binary_cache = v;
  } else if (cli_flag(argv[*i], "--cold-compile")) {
    o->cold_compile = true;
  } else if (cli_option(argc, argv, i, "--json", &v, &bad)) {
    if (bad) return -1;
    o->json = v;
  } else if (cli_option(argc, argv, i, "--csv", &v, &bad)) {
    if (bad) return -1;
    o->csv = v;
  } else if (cli_option(argc, argv, i, "--backend", &v, &bad)) {
    cli_list_free(o->backends);
    o->backends = NULL;
    if (bad || !cli_list("--backend", v, 8, &o->backends)) return -1;
  } else if (cli_option(argc, argv, i, "--variant", &v, &bad)) {
    cli_list_free(o->variants);
    o->variants = NULL;
    if (bad || !cli_list("--variant", v, 16, &o->variants)) return -1;
  } else if (cli_option(argc, argv, i, "--seed", &v, &bad)) {
    if (bad || !cli_u64("--seed", v, &o->seed)) return -1;
  } else if (cli_flag(argv[*i], "--quiet")) {
    o->quiet = true;
  } else {
    return 0;
  }
  return 1;
}

static void free_common(common_opts *o) {
  cli_list_free(o->backends);
  cli_list_free(o->variants);
}

static void print_size(FILE *out, uint64_t bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  fprintf(out, "%.4g %s", v, units[u]);
}

/* ---- clgauge list ---- */

static int cmd_list(int argc, char **argv) {
  cli_set_command("clgauge list");
  for (int i = 1; i < argc; ++i) {
    if (cli_flag(argv[i], "--help")) {
      printf("usage: clgauge list\n\nEvery OpenCL platform and device, with the index that "
             "--device takes.\n");
      return 0;
    }
    cli_error("unknown argument '%s' (see 'clgauge list --help')", argv[i]);
    return EXIT_USAGE;
  }
  cg_device_list list;
  cg_error err = {0};
  if (cg_device_list_query(&list, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  if (list.count == 0) {
    printf("No OpenCL platform with a device was found (%d platform%s).\n"
           "Install a driver: a GPU vendor's OpenCL driver, or PoCL for the CPU "
           "(apt-get install pocl-opencl-icd).\n",
           list.platforms, list.platforms == 1 ? "" : "s");
    cg_device_list_free(&list);
    return 0;
  }
  int selected = -1;
  cg_device_select(&list, NULL, &selected, &err);
  for (int i = 0; i < list.count; ++i) {
    const cg_device_info *d = &list.items[i];
    printf("%s%d  (%d:%d)  %s  %s%s\n", i ? "\n" : "", d->index, d->platform_index,
           d->device_index, cg_device_type_name(d->type), d->name,
           i == selected ? "  [default]" : "");
    printf("    platform        %s (%s)\n", d->platform, d->platform_version);
    printf("    vendor          %s\n", d->vendor);
    printf("    driver          %s\n", d->driver_version);
    printf("    OpenCL          %s; %s\n", d->version, d->c_version);
    printf("    compute units   %u at %u MHz\n", d->compute_units, d->clock_mhz);
    printf("    global memory   ");
    print_size(stdout, d->global_mem);
    printf(", max allocation ");
    print_size(stdout, d->max_alloc);
    printf("\n    local memory    ");
    print_size(stdout, d->local_mem);
    printf(", max work-group %zu, profiling %s\n", d->max_work_group,
           d->profiling ? "yes" : "no");
  }
  cg_device_list_free(&list);
  return 0;
}

/* ---- shared run plumbing ---- */

typedef struct session {
  cg_device_list list;
  const cg_device_info *device; /* NULL when no OpenCL device exists */
  cg_report report;
} session;

/* Enumerate and select the device. An explicit selector that matches nothing is an error; with
 * no selector and no device at all, the OpenCL records are marked skipped. */
static int open_session(session *s, const common_opts *o, int argc, char **argv) {
  cg_error err = {0};
  memset(s, 0, sizeof *s);
  cg_report_init(&s->report, argc, argv);
  if (o->cold_compile) cg_driver_caches_disable(); /* before the drivers are loaded */
  if (cg_device_list_query(&s->list, &err) != CG_OK) {
    cli_error("%s", err.msg);
    return EXIT_FAILURE;
  }
  s->report.discovery_ms = s->list.query_ms;
  const char *sel = o->device;
  const char *source = "--device";
  if (!sel || !*sel) {
    sel = getenv("CLGAUGE_DEVICE");
    source = "CLGAUGE_DEVICE";
  }
  if (s->list.count == 0) {
    if (sel && *sel) {
      cli_error("%s '%s': no OpenCL device found (%d platforms)", source, sel,
                s->list.platforms);
      return EXIT_USAGE;
    }
    if (!o->quiet)
      fprintf(stderr, "clgauge: no OpenCL device found; OpenCL backends are skipped\n");
    return 0;
  }
  int index = -1;
  if (cg_device_select(&s->list, sel, &index, &err) != CG_OK) {
    cli_error("%s%s", strcmp(source, "--device") == 0 ? "" : "CLGAUGE_DEVICE: ", err.msg);
    return EXIT_USAGE;
  }
  s->device = &s->list.items[index];
  return 0;
}

static void close_session(session *s) {
  cg_report_free(&s->report);
  cg_device_list_free(&s->list);
}

static int check_outputs(const common_opts *o) {
  cg_error err = {0};
  const char *paths[] = {o->json, o->csv};
  const char *opts[] = {"--json", "--csv"};
  for (int i = 0; i < 2; ++i)
    if (paths[i] && cg_report_check_path(paths[i], &err) != CG_OK) {
      cli_error("%s %s", opts[i], err.msg);
      return EXIT_USAGE;
    }
  if (o->binary_cache && cg_dir_ensure(o->binary_cache, &err) != CG_OK) {
    cli_error("--binary-cache %s", err.msg);
    return EXIT_USAGE;
  }
  return 0;
}

/* A line when a record starts, then one every few seconds while its runs go on. */
static void print_progress(void *ctx, int index, int total, const cg_record *rec) {
  static uint64_t started, last;
  const common_opts *o = ctx;
  if (o->quiet) return;
  uint64_t now = cg_now_ns();
  if (rec->nruns == 0) {
    started = last = now;
    fprintf(stderr, "[%d/%d] %s %s/%s%s%s on %s\n", index + 1, total, rec->workload, rec->backend,
            rec->variant, rec->transfer[0] ? "/" : "", rec->transfer,
            rec->device[0] ? rec->device : "no device");
  } else if (now - last > 5000000000u && rec->nruns < rec->planned_runs) {
    last = now;
    fprintf(stderr, "      run %d of %d done, %.0f s\n", rec->nruns, rec->planned_runs,
            (double)(now - started) / 1e9);
  }
}

static void print_header(const session *s) {
  if (s->device)
    printf("device %d (%d:%d): %s, %s, driver %s, %s\n", s->device->index,
           s->device->platform_index, s->device->device_index, s->device->name,
           s->device->platform, s->device->driver_version, s->device->version);
  else
    printf("device: none (no OpenCL device found)\n");
}

/* Print, write the files, and choose the exit status. */
static int finish_session(session *s, const common_opts *o) {
  int status = 0;
  cg_report_print_table(&s->report, stdout);
  cg_error err = {0};
  if (o->json) {
    if (cg_report_write_json(&s->report, o->json, &err) != CG_OK) {
      cli_error("--json: %s", err.msg);
      status = EXIT_FAILURE;
    } else if (!o->quiet) {
      fprintf(stderr, "wrote %s\n", o->json);
    }
  }
  if (o->csv) {
    if (cg_report_write_csv(&s->report, o->csv, &err) != CG_OK) {
      cli_error("--csv: %s", err.msg);
      status = EXIT_FAILURE;
    } else if (!o->quiet) {
      fprintf(stderr, "wrote %s\n", o->csv);
    }
  }
  for (int i = 0; i < s->report.count && status == 0; ++i)
    if (s->report.records[i].status == CG_STATUS_ERROR) status = EXIT_RECORD_ERROR;
  return status;
}

/* ---- clgauge matmul ---- */

static void matmul_help(void) {
  printf("usage: clgauge matmul [options]\n\n"
         "C = A*B in fp32 on every backend, phase by phase: init (context), compile, upload,\n"
         "first run (run 0), steady runs, download, and the error against OpenBLAS. Defaults\n"
         "reproduce the TensorFlow eager report: n=1000, 10 products per run, 10 runs.\n\n"
         "  --n N              square size: m = n = k = N (default 1000)\n"
         "  --m M, --k K       rectangular sizes: A is MxK, B is KxN (set after --n)\n"
         "  --loops L          products per run (default 10)\n"
         "  --runs R           timed runs; run 0 is 'first', runs 1.. are 'steady' (default 10)\n"
         "  --warmup W         untimed runs between run 0 and the steady runs (default 0)\n"
         "%s\n%s",
         common_help, exit_help);
}

/* Parse the matmul options into cfg; returns -1 on a bad option, 1 for --help, 0 otherwise. */
static int parse_matmul(int argc, char **argv, cg_matmul_config *cfg, common_opts *o) {
  const cli_int_opt ints[] = {{"--m", &cfg->m, 1, CG_MATMUL_MAX_DIM},
                              {"--k", &cfg->k, 1, CG_MATMUL_MAX_DIM},
                              {"--loops", &cfg->loops, 1, 1000000},
                              {"--runs", &cfg->runs, 1, 1000000},
                              {"--warmup", &cfg->warmup, 0, 1000000}};
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    int c = parse_common(argc, argv, &i, o);
    if (c == 0) c = cli_int_options(argc, argv, &i, ints, sizeof ints / sizeof ints[0]);
    if (c < 0) return -1;
    if (c > 0) continue;
    if (cli_flag(argv[i], "--help")) return 1;
    if (cli_option(argc, argv, &i, "--n", &v, &bad)) {
      if (bad || !cli_int("--n", v, 1, CG_MATMUL_MAX_DIM, &cfg->n)) return -1;
      cfg->m = cfg->k = cfg->n;
      continue;
    }
    cli_error("unknown option '%s' (see 'clgauge matmul --help')", argv[i]);
    return -1;
  }
  return 0;
}

/* What the front end needs of a workload to run it. */
typedef struct workload_fns {
  cg_rc (*validate)(const void *cfg, const cg_device_info *device, cg_error *err);
  cg_rc (*run)(const void *cfg, const cg_device_info *device, cg_report *report,
               cg_progress_fn progress, void *ctx, cg_error *err);
} workload_fns;

static cg_rc matmul_validate(const void *cfg, const cg_device_info *device, cg_error *err) {
  return cg_matmul_validate(cfg, device, err);
}
static cg_rc matmul_run(const void *cfg, const cg_device_info *device, cg_report *report,
                        cg_progress_fn progress, void *ctx, cg_error *err) {
  return cg_matmul_run(cfg, device, report, progress, ctx, err);
}
static cg_rc mlp_validate(const void *cfg, const cg_device_info *device, cg_error *err) {
  return cg_mlp_validate(cfg, device, err);
}
static cg_rc mlp_run(const void *cfg, const cg_device_info *device, cg_report *report,
                     cg_progress_fn progress, void *ctx, cg_error *err) {
  return cg_mlp_run(cfg, device, report, progress, ctx, err);
}
static const workload_fns matmul_fns = {matmul_validate, matmul_run};
static cg_rc linear_validate(const void *cfg, const cg_device_info *device, cg_error *err) {
  return cg_linear_validate(cfg, device, err);
}
static cg_rc linear_run(const void *cfg, const cg_device_info *device, cg_report *report,
                        cg_progress_fn progress, void *ctx, cg_error *err) {
  return cg_linear_run(cfg, device, report, progress, ctx, err);
}
static const workload_fns mlp_fns = {mlp_validate, mlp_run};
static const workload_fns linear_fns = {linear_validate, linear_run};

static void print_crossovers(const cg_report *report);

/* Validate every job first (nothing runs on bad input), then run them all into one report. */
static int run_jobs(const workload_fns *const *fns, const void *const *cfgs, int njobs,
                    common_opts *o, int argc, char **argv) {
  session s;
  int status = open_session(&s, o, argc, argv);
  cg_error err = {0};
  for (int j = 0; j < njobs && status == 0; ++j)
    if (fns[j]->validate(cfgs[j], s.device, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_USAGE;
    }
  if (status == 0) status = check_outputs(o);
  if (status == 0) {
    print_header(&s);
    fflush(stdout);
    for (int j = 0; j < njobs && status == 0; ++j)
      if (fns[j]->run(cfgs[j], s.device, &s.report, print_progress, o, &err) != CG_OK) {
        cli_error("%s", err.msg);
        status = EXIT_FAILURE;
      }
    if (status == 0) {
      status = finish_session(&s, o);
      print_crossovers(&s.report);
    }
  }
  close_session(&s);
  return status;
}

/* The options every workload config shares. */
#define APPLY_COMMON(cfg, o)                                                                       \
  do {                                                                                             \
    (cfg)->backends = (const char *const *)(o)->backends;                                          \
    (cfg)->variants = (const char *const *)(o)->variants;                                          \
    (cfg)->programs.kernel_dir = (o)->kernel_dir;                                                  \
    (cfg)->programs.binary_cache = (o)->binary_cache;                                              \
    (cfg)->seed = (o)->seed;                                                                       \
  } while (0)

static int cmd_matmul(int argc, char **argv) {
  cli_set_command("clgauge matmul");
  cg_matmul_config cfg;
  cg_matmul_defaults(&cfg);
  common_opts o = {.seed = cfg.seed};
  int p = parse_matmul(argc, argv, &cfg, &o);
  int status = p < 0 ? EXIT_USAGE : 0;
  if (p > 0) matmul_help();
  if (p == 0) {
    APPLY_COMMON(&cfg, &o);
    const workload_fns *fns[] = {&matmul_fns};
    const void *cfgs[] = {&cfg};
    status = run_jobs(fns, cfgs, 1, &o, argc, argv);
  }
  free_common(&o);
  return status;
}

/* ---- clgauge mlp ---- */

static void mlp_help(void) {
  printf("usage: clgauge mlp [options]\n\n"
         "The small training loop of the PyTorch report: y = relu(relu(x w1) w2) w3, loss =\n"
         "sum((y - t)^2), SGD on w1 and w2 (w3's gradient accumulates, w3 stays), the loss read\n"
         "back every --print-every iterations. Each read-back closes one run: run 0 is 'first',\n"
         "the others 'steady'. Every backend is verified against the host reference: the loss at\n"
         "every printed iteration and the final w1, w2, w3 and w3's gradient.\n\n"
         "  --preset NAME      seed (64 x 1024 x 128 x 8, the default) or big (64 x 5000 x 5000 x 8)\n"
         "  --batch N, --din D, --hidden H, --dout O   sizes (they override the preset)\n"
         "  --iters I          training iterations (default 10000)\n"
         "  --lr LR            learning rate (default 1e-9)\n"
         "  --update-w3        update w3 too, and zero its gradient after each update\n"
         "  --print-every P    read the loss back every P iterations (default 1000)\n"
         "  --sweep-hidden LIST  run at each size of LIST with din = hidden = size and report the\n"
         "                     size from which each OpenCL backend beats cpu; in a sweep --iters\n"
         "                     defaults to 1000 and --print-every to 100\n"
         "%s\n%s",
         common_help, exit_help);
}

enum { MAX_SWEEP = 32 };

typedef struct mlp_opts {
  cg_mlp_config cfg;
  int sweep[MAX_SWEEP];
  int nsweep;
} mlp_opts;

static int parse_mlp(int argc, char **argv, mlp_opts *m, common_opts *o) {
  cg_mlp_config *cfg = &m->cfg;
  int iters = 0, print_every = 0; /* 0: not given */
  /* --preset first wherever it stands, so that explicit sizes override it */
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (cli_option(argc, argv, &i, "--preset", &v, &bad)) {
      cg_error err = {0};
      if (bad) return -1;
      if (cg_mlp_preset(cfg, v, &err) != CG_OK) {
        cli_error("%s", err.msg);
        return -1;
      }
    }
  }
  const cli_int_opt ints[] = {{"--batch", &cfg->shape.batch, 1, CG_MLP_MAX_DIM},
                              {"--din", &cfg->shape.din, 1, CG_MLP_MAX_DIM},
                              {"--hidden", &cfg->shape.hidden, 1, CG_MLP_MAX_DIM},
                              {"--dout", &cfg->shape.dout, 1, CG_MLP_MAX_DIM},
                              {"--iters", &iters, 1, 100000000},
                              {"--print-every", &print_every, 1, 100000000}};
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    int c = parse_common(argc, argv, &i, o);
    if (c == 0) c = cli_int_options(argc, argv, &i, ints, sizeof ints / sizeof ints[0]);
    if (c < 0) return -1;
    if (c > 0) continue;
    if (cli_flag(argv[i], "--help")) return 1;
    if (cli_flag(argv[i], "--update-w3")) {
      cfg->update_w3 = true;
    } else if (cli_option(argc, argv, &i, "--preset", &v, &bad)) {
      if (bad) return -1; /* applied above */
    } else if (cli_option(argc, argv, &i, "--lr", &v, &bad)) {
      if (bad || !cli_double("--lr", v, 0, 1e6, &cfg->lr)) return -1;
    } else if (cli_option(argc, argv, &i, "--sweep-hidden", &v, &bad)) {
      char **list = NULL;
      if (bad || !cli_list("--sweep-hidden", v, MAX_SWEEP, &list)) return -1;
      m->nsweep = 0;
      bool ok = true;
      for (int k = 0; list[k] && ok; ++k)
        ok = cli_int("--sweep-hidden", list[k], 1, CG_MLP_MAX_DIM, &m->sweep[m->nsweep++]);
      cli_list_free(list);
      if (!ok) return -1;
    } else {
      cli_error("unknown option '%s' (see 'clgauge mlp --help')", argv[i]);
      return -1;
    }
  }
  const bool sweep = m->nsweep > 0;
  cfg->iters = iters ? iters : sweep ? 1000 : cfg->iters;
  cfg->print_every = print_every ? print_every : sweep ? 100 : cfg->print_every;
  return 0;
}

static void print_crossovers(const cg_report *report) {
  cg_mlp_crossover x[16];
  int n = cg_mlp_crossovers(report, x, 16);
  int sizes = 0;
  for (int i = 0; i < report->count; ++i)
    sizes += strcmp(report->records[i].workload, "mlp") == 0 && report->records[i].host_backend;
  if (n == 0 || sizes < 2) return;
  printf("\ncrossover (din = hidden): the size from which each OpenCL backend beats cpu\n");
  for (int i = 0; i < n; ++i) {
    char loop[32] = "never", total[32] = "never";
    if (x[i].loop_size) snprintf(loop, sizeof loop, "%d", x[i].loop_size);
    if (x[i].total_size) snprintf(total, sizeof total, "%d", x[i].total_size);
    printf("  %s/%s: counting the loop alone from %s; counting init, compile and upload too "
           "from %s\n",
           x[i].backend, x[i].variant, loop, total);
  }
}

static int cmd_mlp(int argc, char **argv) {
  cli_set_command("clgauge mlp");
  mlp_opts m = {0};
  cg_mlp_defaults(&m.cfg);
  common_opts o = {.seed = m.cfg.seed};
  int p = parse_mlp(argc, argv, &m, &o);
  int status = p < 0 ? EXIT_USAGE : 0;
  if (p > 0) mlp_help();
  if (p == 0) {
    APPLY_COMMON(&m.cfg, &o);
    const int njobs = m.nsweep > 0 ? m.nsweep : 1;
    cg_mlp_config cfgs[MAX_SWEEP];
    const workload_fns *fns[MAX_SWEEP];
    const void *ptrs[MAX_SWEEP];
    for (int j = 0; j < njobs; ++j) {
      cfgs[j] = m.cfg;
      if (m.nsweep > 0) cfgs[j].shape.din = cfgs[j].shape.hidden = m.sweep[j];
      fns[j] = &mlp_fns;
      ptrs[j] = &cfgs[j];
    }
    status = run_jobs(fns, ptrs, njobs, &o, argc, argv);
  }
  free_common(&o);
  return status;
}

/* ---- clgauge linear ---- */

static void linear_help(void) {
  printf("usage: clgauge linear [options]\n\n"
         "Per-batch training of a linear classifier (softmax cross-entropy, SGD), as in the\n"
         "PyTorch DataLoader report, with the epoch order reshuffled each epoch (the same for\n"
         "every backend) and the epoch's summed loss read back each epoch. Each epoch is one\n"
         "run: epoch 0 is 'first', the others 'steady'. Verified against the host reference:\n"
         "every epoch's loss and the final weights and bias.\n\n"
         "  --samples S        dataset rows (default 10000)\n"
         "  --features F       features per row (default 1000)\n"
         "  --classes C        classes (default 10)\n"
         "  --batch B          batch size; the last batch holds the remainder (default 32)\n"
         "  --epochs E         epochs (default 10)\n"
         "  --lr LR            learning rate (default 0.01)\n"
         "  --transfer MODE    pageable (default): each batch gathered on the host and written\n"
         "                     from ordinary memory; pinned: pinned staging buffers, double-\n"
         "                     buffered, uploads overlapping compute; resident: the dataset\n"
         "                     uploaded once, batches gathered on the device; all: each of them\n"
         "%s\n%s",
         common_help, exit_help);
}

static int parse_linear(int argc, char **argv, cg_linear_config *cfg, common_opts *o) {
  const cli_int_opt ints[] = {{"--samples", &cfg->shape.samples, 1, CG_LINEAR_MAX_DIM},
                              {"--features", &cfg->shape.features, 1, CG_LINEAR_MAX_DIM},
                              {"--classes", &cfg->shape.classes, 1, 1 << 16},
                              {"--batch", &cfg->shape.batch, 1, CG_LINEAR_MAX_DIM},
                              {"--epochs", &cfg->epochs, 1, 1000000}};
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    int c = parse_common(argc, argv, &i, o);
    if (c == 0) c = cli_int_options(argc, argv, &i, ints, sizeof ints / sizeof ints[0]);
    if (c < 0) return -1;
    if (c > 0) continue;
    if (cli_flag(argv[i], "--help")) return 1;
    if (cli_option(argc, argv, &i, "--lr", &v, &bad)) {
      if (bad || !cli_double("--lr", v, 0, 1e6, &cfg->lr)) return -1;
    } else if (cli_option(argc, argv, &i, "--transfer", &v, &bad)) {
      cg_error err = {0};
      if (bad) return -1;
      if (cg_linear_parse_transfer(cfg, v, &err) != CG_OK) {
        cli_error("%s", err.msg);
        return -1;
      }
    } else {
      cli_error("unknown option '%s' (see 'clgauge linear --help')", argv[i]);
      return -1;
    }
  }
  return 0;
}

static int cmd_linear(int argc, char **argv) {
  cli_set_command("clgauge linear");
  cg_linear_config cfg;
  cg_linear_defaults(&cfg);
  common_opts o = {.seed = cfg.seed};
  int p = parse_linear(argc, argv, &cfg, &o);
  int status = p < 0 ? EXIT_USAGE : 0;
  if (p > 0) linear_help();
  if (p == 0) {
    APPLY_COMMON(&cfg, &o);
    const workload_fns *fns[] = {&linear_fns};
    const void *cfgs[] = {&cfg};
    status = run_jobs(fns, cfgs, 1, &o, argc, argv);
  }
  free_common(&o);
  return status;
}

/* ---- clgauge suite ---- */

static int cmd_suite(int argc, char **argv) {
  cli_set_command("clgauge suite");
  cg_matmul_config mm;
  cg_matmul_defaults(&mm);
  cg_mlp_config mlp;
  cg_mlp_defaults(&mlp);
  cg_linear_config lin;
  cg_linear_defaults(&lin);
  common_opts o = {.seed = mm.seed};
  int status = 0;
  for (int i = 1; i < argc && status == 0; ++i) {
    int c = parse_common(argc, argv, &i, &o);
    if (c > 0) continue;
    if (c == 0 && cli_flag(argv[i], "--help")) {
      printf("usage: clgauge suite [options]\n\n"
             "The default suite: every workload with its defaults (matmul, mlp, linear) on every\n"
             "backend.\n\n%s\n%s",
             common_help, exit_help);
      free_common(&o);
      return 0;
    }
    if (c == 0) cli_error("unknown option '%s' (see 'clgauge suite --help')", argv[i]);
    status = EXIT_USAGE;
  }
  if (status == 0) {
    APPLY_COMMON(&mm, &o);
    APPLY_COMMON(&mlp, &o);
    APPLY_COMMON(&lin, &o);
    const workload_fns *fns[] = {&matmul_fns, &mlp_fns, &linear_fns};
    const void *cfgs[] = {&mm, &mlp, &lin};
    status = run_jobs(fns, cfgs, 3, &o, argc, argv);
  }
  free_common(&o);
  return status;
}

static void main_help(void) {
  printf("usage: clgauge COMMAND [options]\n\n"
         "Why is my GPU slower than my CPU, and when is it not? clgauge runs small workloads on\n"
         "an OpenCL device (hand-written kernels and CLBlast) next to an OpenBLAS CPU reference,\n"
         "and splits every run into phases: context, compile, upload, first run, steady runs,\n"
         "download, verification.\n\n"
         "commands:\n"
         "  list      every OpenCL platform and device, with the indexes --device takes\n"
         "  matmul    C = A*B (default n=1000, 10 products per run, 10 runs)\n"
         "  mlp       the small training loop (default 64x1024x128x8, 10000 iterations)\n"
         "  linear    per-batch training of a linear classifier, with transfer strategies\n"
         "  suite     the default suite: every workload with its defaults\n\n"
         "'clgauge COMMAND --help' describes each. --version prints the version.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    main_help();
    return EXIT_USAGE;
  }
  const char *cmd = argv[1];
  if (cli_flag(cmd, "--help") || cli_flag(cmd, "-h") || cli_flag(cmd, "help")) {
    main_help();
    return 0;
  }
  if (cli_flag(cmd, "--version")) {
    printf("clgauge %s\n", CLGAUGE_VERSION);
    return 0;
  }
  if (strcmp(cmd, "list") == 0) return cmd_list(argc - 1, argv + 1);
  if (strcmp(cmd, "matmul") == 0) return cmd_matmul(argc - 1, argv + 1);
  if (strcmp(cmd, "mlp") == 0) return cmd_mlp(argc - 1, argv + 1);
  if (strcmp(cmd, "linear") == 0) return cmd_linear(argc - 1, argv + 1);
  if (strcmp(cmd, "suite") == 0) return cmd_suite(argc - 1, argv + 1);
  cli_error("unknown command '%s' (commands: list, matmul, mlp, linear, suite; see 'clgauge --help')", cmd);
  return EXIT_USAGE;
}
