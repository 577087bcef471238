/* clgauge: the command-line front end. Its commands, options and --help come from the workload
 * descriptors; it selects the device, runs the jobs through the engine, prints the report and
 * writes results files. The only place that prints for people or exits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clgauge/backend.h"
#include "clgauge/clock.h"
#include "clgauge/device.h"
#include "clgauge/engine.h"
#include "clgauge/files.h"
#include "clgauge/program.h"
#include "clgauge/report.h"
#include "clgauge/workload.h"

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
  cg_kernel_overrides overrides;
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
    "  --kernel-param LIST  set kernel parameters of the hand-written kernels, as NAME=VALUE,...\n"
    "                     (matmul: TS; mlp fused: TX, TY, R, KC, TPG, THREE, DZ1A; see the\n"
    "                     records' kernel configuration for what each kernel takes)\n"
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
  } else if (cli_option(argc, argv, i, "--kernel-param", &v, &bad)) {
    cg_error err = {0};
    if (bad) return -1;
    if (cg_kernel_overrides_parse(&o->overrides, v, &err) != CG_OK) {
      cli_error("%s", err.msg);
      return -1;
    }
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
            rec->variant, rec->mode[0] ? "/" : "", rec->mode,
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

/* ---- the workload commands, from the descriptors ---- */

/* "  --name ARG" then the help, its continuation lines indented under it. */
static void print_option(const char *name, const char *help, const char *suffix) {
  printf("  %-18s ", name);
  if ((int)strlen(name) > 18) printf("\n%21s", "");
  for (const char *p = help; *p; ++p) {
    putchar(*p);
    if (*p == '\n' && p[1]) printf("%21s", "");
  }
  printf("%s\n", suffix);
}

static void workload_help(const cg_workload *w) {
  printf("usage: clgauge %s [options]\n\n%s\n", w->name, w->help);
  for (int i = 0; i < w->nparams; ++i) {
    const cg_param_desc *d = &w->params[i];
    char opt[64], name[96], dflt[64] = "";
    cg_param_option(d, opt, sizeof opt);
    if (d->kind == CG_PARAM_FLAG) {
      snprintf(name, sizeof name, "%s", opt);
    } else {
      snprintf(name, sizeof name, "%s %s", opt, d->metavar);
      snprintf(dflt, sizeof dflt, " (default %g)", d->dflt);
    }
    print_option(name, d->help, dflt);
  }
  if (w->presets) {
    char help[512] = "", name[64];
    for (int i = 0; w->presets[i].name; ++i)
      snprintf(help + strlen(help), sizeof help - strlen(help), "%s%s: %s",
               i ? (w->presets[i + 1].name ? "; " : "; or ") : "", w->presets[i].name,
               w->presets[i].summary);
    snprintf(name, sizeof name, "--preset NAME");
    print_option(name, help, "");
  }
  if (w->modes) {
    char name[64];
    snprintf(name, sizeof name, "--%s %s", w->modes->option, w->modes->metavar);
    print_option(name, w->modes->help, "");
  }
  if (w->sweep) {
    char name[64];
    snprintf(name, sizeof name, "--%s LIST", w->sweep->option);
    print_option(name, w->sweep->help, "");
  }
  printf("%s\n%s", common_help, exit_help);
}

enum { MAX_SWEEP = 32 };

/* A workload command's options: the base job and the sweep sizes, if any. */
typedef struct workload_opts {
  cg_job job;
  int sweep[MAX_SWEEP];
  int nsweep;
} workload_opts;

/* 1: argv[*i] was one of the workload's own options, 0: it was not, -1: bad. */
static int parse_workload_option(int argc, char **argv, int *i, workload_opts *wo) {
  const cg_workload *w = wo->job.workload;
  const char *v = NULL;
  bool bad = false;
  cg_error err = {0};
  for (int k = 0; k < w->nparams; ++k) {
    const cg_param_desc *d = &w->params[k];
    char opt[64];
    cg_param_option(d, opt, sizeof opt);
    double value = 1;
    if (d->kind == CG_PARAM_FLAG) {
      if (!cli_flag(argv[*i], opt)) continue;
    } else {
      if (!cli_option(argc, argv, i, opt, &v, &bad)) continue;
      if (bad) return -1;
      int whole = 0;
      if (d->kind == CG_PARAM_INT) {
        if (!cli_int(opt, v, (long long)d->min, (long long)d->max, &whole)) return -1;
        value = whole;
      } else if (!cli_double(opt, v, d->min, d->max, &value)) {
        return -1;
      }
    }
    if (cg_params_set(&wo->job.params, d->name, value, &err) != CG_OK) {
      cli_error("%s", err.msg);
      return -1;
    }
    return 1;
  }
  char opt[64];
  if (w->modes) {
    snprintf(opt, sizeof opt, "--%s", w->modes->option);
    if (cli_option(argc, argv, i, opt, &v, &bad)) {
      if (bad) return -1;
      if (cg_job_select_modes(&wo->job, v, &err) != CG_OK) {
        cli_error("%s", err.msg);
        return -1;
      }
      return 1;
    }
  }
  if (w->presets && cli_option(argc, argv, i, "--preset", &v, &bad))
    return bad ? -1 : 1; /* applied before the other options */
  if (w->sweep) {
    snprintf(opt, sizeof opt, "--%s", w->sweep->option);
    if (cli_option(argc, argv, i, opt, &v, &bad)) {
      char **list = NULL;
      const cg_param_desc *d = &w->params[cg_params_index(&wo->job.params, w->sweep->params[0])];
      if (bad || !cli_list(opt, v, MAX_SWEEP, &list)) return -1;
      wo->nsweep = 0;
      bool ok = true;
      for (int k = 0; list[k] && ok; ++k)
        ok = cli_int(opt, list[k], (long long)d->min, (long long)d->max, &wo->sweep[wo->nsweep++]);
      cli_list_free(list);
      return ok ? 1 : -1;
    }
  }
  return 0;
}

/* Parse a workload command into wo and o; returns -1 on a bad option, 1 for --help, 0 otherwise.
 * --preset applies first wherever it stands, so that explicit sizes override it. */
static int parse_workload(int argc, char **argv, workload_opts *wo, common_opts *o) {
  const cg_workload *w = wo->job.workload;
  for (int i = 1; i < argc && w->presets; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (cli_option(argc, argv, &i, "--preset", &v, &bad)) {
      cg_error err = {0};
      if (bad) return -1;
      if (cg_job_preset(&wo->job, v, &err) != CG_OK) {
        cli_error("%s", err.msg);
        return -1;
      }
    }
  }
  /* a preset sets sizes, but they are still the preset's, not given on the command line */
  memset(wo->job.params.given, 0, sizeof wo->job.params.given);
  for (int i = 1; i < argc; ++i) {
    int c = parse_common(argc, argv, &i, o);
    if (c == 0) c = parse_workload_option(argc, argv, &i, wo);
    if (c < 0) return -1;
    if (c > 0) continue;
    if (cli_flag(argv[i], "--help")) return 1;
    cli_error("unknown option '%s' (see 'clgauge %s --help')", argv[i], w->name);
    return -1;
  }
  return 0;
}

/* The old spelling of the fused mlp's overrides, CLGAUGE_MLP_FUSED="tx=8,r=4", read here (never
 * inside the library) as --kernel-param with the names in upper case. */
static int legacy_overrides(common_opts *o) {
  const char *spec = getenv("CLGAUGE_MLP_FUSED");
  if (!spec || !*spec) return 0;
  char upper[256];
  snprintf(upper, sizeof upper, "%s", spec);
  for (char *c = upper; *c && *c != '\0'; ++c)
    if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
  cg_error err = {0};
  if (cg_kernel_overrides_parse(&o->overrides, upper, &err) != CG_OK) {
    cli_error("CLGAUGE_MLP_FUSED: %s", err.msg);
    return EXIT_USAGE;
  }
  return 0;
}

/* Every --kernel-param must name a parameter that a selected kernel of the jobs takes. */
static int check_overrides(const common_opts *o, const cg_job *jobs, int njobs) {
  for (int k = 0; k < o->overrides.count; ++k) {
    const char *name = o->overrides.items[k].name;
    bool taken = false;
    for (const cg_impl *const *i = cg_impl_all(); *i && !taken; ++i) {
      bool listed = false;
      for (int j = 0; j < njobs; ++j) listed |= strcmp((*i)->workload, jobs[j].workload->name) == 0;
      taken = listed && cg_backend_selected((const char *const *)o->backends, (*i)->backend) &&
              cg_variant_index((*i)->kernel_params, name) >= 0;
    }
    if (!taken) {
      cli_error("--kernel-param %s: no selected kernel takes a parameter '%s'", name, name);
      return EXIT_USAGE;
    }
  }
  return 0;
}

static void print_crossovers(const cg_report *report, const cg_workload *w) {
  cg_crossover x[16];
  const int n = cg_crossovers(report, w->name, x, 16);
  if (n == 0) return;
  printf("\ncrossover (%s): the size from which each OpenCL backend beats cpu\n",
         w->sweep->option);
  for (int i = 0; i < n; ++i) {
    char loop[32] = "never", total[32] = "never";
    if (x[i].loop_size) snprintf(loop, sizeof loop, "%g", x[i].loop_size);
    if (x[i].total_size) snprintf(total, sizeof total, "%g", x[i].total_size);
    printf("  %s/%s%s%s: counting the loop alone from %s; counting init, compile and upload too "
           "from %s\n",
           x[i].backend, x[i].variant, x[i].mode[0] ? "/" : "", x[i].mode, loop, total);
  }
}

/* Validate every job first (nothing runs on bad input), then run them all into one report. */
static int run_jobs(const cg_job *jobs, int njobs, common_opts *o, int argc, char **argv) {
  session s;
  int status = open_session(&s, o, argc, argv);
  const char *scope[16];
  int nscope = 0;
  for (int j = 0; j < njobs && nscope < 15; ++j) {
    bool seen = false;
    for (int k = 0; k < nscope; ++k) seen |= strcmp(scope[k], jobs[j].workload->name) == 0;
    if (!seen) scope[nscope++] = jobs[j].workload->name;
  }
  scope[nscope] = NULL;
  const cg_selection sel = {(const char *const *)o->backends, (const char *const *)o->variants,
                            o->seed, o->kernel_dir, o->binary_cache, &o->overrides, scope};
  cg_error err = {0};
  if (status == 0) status = legacy_overrides(o);
  if (status == 0) status = check_overrides(o, jobs, njobs);
  for (int j = 0; j < njobs && status == 0; ++j)
    if (cg_engine_validate(&jobs[j], &sel, s.device, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_USAGE;
    }
  if (status == 0) status = check_outputs(o);
  if (status == 0) {
    print_header(&s);
    fflush(stdout);
    for (int j = 0; j < njobs && status == 0; ++j)
      if (cg_engine_run(&jobs[j], &sel, s.device, &s.report, print_progress, o, &err) != CG_OK) {
        cli_error("%s", err.msg);
        status = EXIT_FAILURE;
      }
    if (status == 0) {
      status = finish_session(&s, o);
      if (njobs > 1 && jobs[0].group[0]) print_crossovers(&s.report, jobs[0].workload);
    }
  }
  close_session(&s);
  return status;
}

static int cmd_workload(const cg_workload *w, int argc, char **argv) {
  char command[64];
  snprintf(command, sizeof command, "clgauge %s", w->name);
  cli_set_command(command);
  workload_opts wo = {0};
  cg_job_init(&wo.job, w);
  common_opts o = {.seed = 42};
  const int p = parse_workload(argc, argv, &wo, &o);
  int status = p < 0 ? EXIT_USAGE : 0;
  if (p > 0) workload_help(w);
  if (p == 0) {
    cg_job jobs[MAX_SWEEP];
    int njobs = 1;
    jobs[0] = wo.job;
    if (wo.nsweep > 0) {
      cg_error err = {0};
      njobs = wo.nsweep;
      for (int j = 0; j < njobs && status == 0; ++j)
        if (cg_job_sweep_point(&wo.job, wo.sweep[j], &jobs[j], &err) != CG_OK) {
          cli_error("%s", err.msg);
          status = EXIT_USAGE;
        }
    }
    if (status == 0) status = run_jobs(jobs, njobs, &o, argc, argv);
  }
  free_common(&o);
  return status;
}

/* ---- clgauge suite ---- */

static int cmd_suite(int argc, char **argv) {
  cli_set_command("clgauge suite");
  common_opts o = {.seed = 42};
  int status = 0;
  for (int i = 1; i < argc && status == 0; ++i) {
    const int c = parse_common(argc, argv, &i, &o);
    if (c > 0) continue;
    if (c == 0 && cli_flag(argv[i], "--help")) {
      printf("usage: clgauge suite [options]\n\n"
             "The default suite: every workload with its defaults (");
      for (const cg_workload *const *w = cg_workload_all(); *w; ++w)
        printf("%s%s", w == cg_workload_all() ? "" : ", ", (*w)->name);
      printf(") on every\nbackend. A variant is accepted when any workload has it.\n\n%s\n%s",
             common_help, exit_help);
      free_common(&o);
      return 0;
    }
    if (c == 0) cli_error("unknown option '%s' (see 'clgauge suite --help')", argv[i]);
    status = EXIT_USAGE;
  }
  if (status == 0) {
    cg_job jobs[16];
    int njobs = 0;
    for (const cg_workload *const *w = cg_workload_all(); *w && njobs < 16; ++w)
      cg_job_init(&jobs[njobs++], *w);
    status = run_jobs(jobs, njobs, &o, argc, argv);
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
         "  %-9s every OpenCL platform and device, with the indexes --device takes\n", "list");
  for (const cg_workload *const *w = cg_workload_all(); *w; ++w)
    printf("  %-9s %s\n", (*w)->name, (*w)->summary);
  printf("  %-9s the default suite: every workload with its defaults\n\n"
         "'clgauge COMMAND --help' describes each. --version prints the version.\n",
         "suite");
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
  if (strcmp(cmd, "suite") == 0) return cmd_suite(argc - 1, argv + 1);
  const cg_workload *w = cg_workload_find(cmd);
  if (w) return cmd_workload(w, argc - 1, argv + 1);
  char names[256] = "list";
  for (const cg_workload *const *k = cg_workload_all(); *k; ++k)
    snprintf(names + strlen(names), sizeof names - strlen(names), ", %s", (*k)->name);
  cli_error("unknown command '%s' (commands: %s, suite; see 'clgauge --help')", cmd, names);
  return EXIT_USAGE;
}
