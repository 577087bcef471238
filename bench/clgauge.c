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
#include "clgauge/matmul.h"
#include "clgauge/report.h"

enum { EXIT_USAGE = 2, EXIT_RECORD_ERROR = 3 };

/* Options every workload command takes. */
typedef struct common_opts {
  const char *device;
  const char *kernel_dir;
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
  return 0;
}

static void progress(void *ctx, int index, int total, const cg_record *rec) {
  const common_opts *o = ctx;
  if (o->quiet) return;
  fprintf(stderr, "[%d/%d] %s %s/%s on %s\n", index + 1, total, rec->workload, rec->backend,
          rec->variant, rec->device[0] ? rec->device : "no device");
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
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    int c = parse_common(argc, argv, &i, o);
    if (c < 0) return -1;
    if (c > 0) continue;
    if (cli_flag(argv[i], "--help")) return 1;
    int *target = NULL;
    const char *name = NULL;
    long long min = 1, max = CG_MATMUL_MAX_DIM;
    static const char *const dims[] = {"--n", "--m", "--k", "--loops", "--runs", "--warmup"};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0] && !target; ++d)
      if (cli_option(argc, argv, &i, dims[d], &v, &bad)) name = dims[d];
    if (bad) return -1;
    if (!name) {
      cli_error("unknown option '%s' (see 'clgauge matmul --help')", argv[i]);
      return -1;
    }
    if (strcmp(name, "--n") == 0) {
      if (!cli_int(name, v, min, max, &cfg->n)) return -1;
      cfg->m = cfg->k = cfg->n;
      continue;
    }
    if (strcmp(name, "--m") == 0) target = &cfg->m;
    if (strcmp(name, "--k") == 0) target = &cfg->k;
    if (strcmp(name, "--loops") == 0) target = &cfg->loops, max = 1000000;
    if (strcmp(name, "--runs") == 0) target = &cfg->runs, max = 1000000;
    if (strcmp(name, "--warmup") == 0) target = &cfg->warmup, min = 0, max = 1000000;
    if (!cli_int(name, v, min, max, target)) return -1;
  }
  return 0;
}

static int run_matmul(const cg_matmul_config *cfg, common_opts *o, int argc, char **argv) {
  session s;
  int status = open_session(&s, o, argc, argv);
  cg_error err = {0};
  if (status == 0 && cg_matmul_validate(cfg, s.device, &err) != CG_OK) {
    cli_error("%s", err.msg);
    status = EXIT_USAGE;
  }
  if (status == 0) status = check_outputs(o);
  if (status == 0) {
    print_header(&s);
    fflush(stdout);
    if (cg_matmul_run(cfg, s.device, &s.report, progress, o, &err) != CG_OK) {
      cli_error("%s", err.msg);
      status = EXIT_FAILURE;
    } else {
      status = finish_session(&s, o);
    }
  }
  close_session(&s);
  return status;
}

static void apply_common(cg_matmul_config *cfg, const common_opts *o) {
  cfg->backends = (const char *const *)o->backends;
  cfg->variants = (const char *const *)o->variants;
  cfg->kernel_dir = o->kernel_dir;
  cfg->seed = o->seed;
}

static int cmd_matmul(int argc, char **argv) {
  cli_set_command("clgauge matmul");
  cg_matmul_config cfg;
  cg_matmul_defaults(&cfg);
  common_opts o = {.seed = cfg.seed};
  int p = parse_matmul(argc, argv, &cfg, &o);
  int status = p < 0 ? EXIT_USAGE : 0;
  if (p > 0) matmul_help();
  if (p == 0) {
    apply_common(&cfg, &o);
    status = run_matmul(&cfg, &o, argc, argv);
  }
  free_common(&o);
  return status;
}

/* ---- clgauge suite ---- */

static int cmd_suite(int argc, char **argv) {
  cli_set_command("clgauge suite");
  cg_matmul_config cfg;
  cg_matmul_defaults(&cfg);
  common_opts o = {.seed = cfg.seed};
  int status = 0;
  for (int i = 1; i < argc && status == 0; ++i) {
    int c = parse_common(argc, argv, &i, &o);
    if (c > 0) continue;
    if (c == 0 && cli_flag(argv[i], "--help")) {
      printf("usage: clgauge suite [options]\n\n"
             "The default suite: every workload with its defaults (today: matmul) on every\n"
             "backend.\n\n%s\n%s",
             common_help, exit_help);
      free_common(&o);
      return 0;
    }
    if (c == 0) cli_error("unknown option '%s' (see 'clgauge suite --help')", argv[i]);
    status = EXIT_USAGE;
  }
  if (status == 0) {
    apply_common(&cfg, &o);
    status = run_matmul(&cfg, &o, argc, argv);
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
  if (strcmp(cmd, "suite") == 0) return cmd_suite(argc - 1, argv + 1);
  cli_error("unknown command '%s' (commands: list, matmul, suite; see 'clgauge --help')", cmd);
  return EXIT_USAGE;
}
