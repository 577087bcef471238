/* clgauge coldstart: the time from process start to the first verified result of each
 * workload's seed case, in fresh child processes (this program run again), under each cache
 * state. The child is an ordinary workload command whose run ends at its first verified result;
 * CLGAUGE_COLDSTART_FD, set by the parent, makes it report its clock readings and phases on a
 * pipe as one line. The parent never loads an OpenCL driver: a driver's state does not survive a
 * fork, and its caches must be set up before the child loads it. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "front.h"
#include "clgauge/backend.h"
#include "clgauge/clock.h"
#include "clgauge/coldstart.h"
#include "clgauge/report.h"
#include "clgauge/workload.h"

/* ---- the child's side ---- */

static int child_fd = -1;
static uint64_t child_main_ns, child_job_ns, child_record_ns;

void coldstart_child_begin(void) {
  child_main_ns = cg_now_ns();
  const char *fd = getenv("CLGAUGE_COLDSTART_FD");
  if (!fd || !*fd) return;
  char *end = NULL;
  const long v = strtol(fd, &end, 10);
  if (*end == '\0' && v > 2 && v < 1024 && fcntl((int)v, F_GETFD) >= 0) child_fd = (int)v;
  unsetenv("CLGAUGE_COLDSTART_FD"); /* not for a grandchild */
}

void coldstart_child_job_start(void) { child_job_ns = child_record_ns = cg_now_ns(); }

void coldstart_child_record_start(void) {
  if (child_record_ns == child_job_ns) child_record_ns = cg_now_ns(); /* the first record's */
}

/* A value on the line: tabs and newlines, which separate fields and lines, become spaces. */
static void put_text(FILE *out, const char *key, const char *value) {
  fprintf(out, "\t%s=", key);
  for (const char *c = value; *c; ++c) fputc(*c == '\t' || *c == '\n' ? ' ' : *c, out);
}

void coldstart_child_job_done(const cg_report *report, int first) {
  if (child_fd < 0) return;
  const uint64_t done = cg_now_ns();
  FILE *out = fdopen(child_fd, "w");
  if (!out) return;
  child_fd = -1;
  for (int i = first; i < report->count; ++i) {
    const cg_record *r = &report->records[i];
    /* the result is there once verified; releasing the device afterwards is not waited for */
    fprintf(out, "clgauge-coldstart 1\tmain_ns=%llu\tdone_ns=%llu",
            (unsigned long long)child_main_ns,
            (unsigned long long)(r->verified_ns ? r->verified_ns : done));
    const struct {
      const char *key;
      double v;
    } nums[] = {{"discovery", report->discovery_ms},
                {"inputs", cg_ns_to_ms(child_record_ns - child_job_ns)},
                {"reference", r->reference_ms},
                {"context", r->init_ms},
                {"compile", r->compile_ms},
                {"upload", r->upload_ms},
                {"run", r->first.complete_ms},
                {"download", r->download_ms},
                {"verify", r->verify_ms},
                {"overlap", report->discovery_overlap_ms + r->init_overlap_ms}};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; ++k)
      fprintf(out, "\t%s=%.17g", nums[k].key, nums[k].v);
    put_text(out, "kind", r->compile_kind);
    put_text(out, "status", cg_status_name(r->status));
    put_text(out, "variant", r->variant);
    put_text(out, "device", r->device);
    put_text(out, "driver", r->driver);
    put_text(out, "reason", r->reason);
    fputc('\n', out);
  }
  fclose(out);
}

/* ---- the parent's side ---- */

/* How each workload's seed case ends at its first verified result, and the cl variant that
 * runs it: the fastest of bench/RESULTS.md on the H200. */
typedef struct seed_case {
  const char *workload;
  const char *cl_variant;
  const char *args[6]; /* NULL-terminated */
} seed_case;
static const seed_case seed_cases[] = {
    {"matmul", "pipelined", {"--runs", "1", "--warmup", "0", NULL}}, /* run 0: ten products */
    {"mlp", "fused", {"--iters", "1", "--print-every", "1", NULL}}, /* the first loss */
    {"linear", "fused", {"--epochs", "1", "--transfer", "pageable", NULL}},
    {"saxpy", "float4", {"--runs", "1", "--warmup", "0", NULL}},
};
enum { NSEEDS = sizeof seed_cases / sizeof seed_cases[0] };

static const seed_case *seed_find(const char *workload) {
  for (int i = 0; i < NSEEDS; ++i)
    if (strcmp(seed_cases[i].workload, workload) == 0) return &seed_cases[i];
  return NULL;
}

typedef struct coldstart_opts {
  const char *device, *json, *csv;
  const char *cl_variant; /* --variant, else each seed case's own */
  char **workloads, **backends;
  bool quiet;
  char **extra; /* after "--": given to every child */
  int nextra;
  double child_timeout_s;
} coldstart_opts;

static void coldstart_help(void) {
  printf("usage: clgauge coldstart [options] [-- WORKLOAD-OPTIONS]\n\n"
         "The first run from process start: for each workload's seed case, each backend and each\n"
         "cache state, a fresh process (clgauge itself) runs until its first verified result,\n"
         "and the time from before its fork to that result is split into phases.\n\n"
         "Cache states, in the order measured (each has its own fresh, empty directories; the\n"
         "driver's caches are pointed there through POCL_CACHE_DIR, CUDA_CACHE_PATH,\n"
         "MESA_SHADER_CACHE_DIR and XDG_CACHE_HOME, and clgauge's through --binary-cache):\n"
         "  cold     clgauge's binary cache and the driver's kernel cache empty\n"
         "  driver   the driver's cache warm (from the cold run), clgauge's empty\n"
         "  warm     both warm: what a second run of the same program sees\n"
         "  clgauge  clgauge's cache warm, the driver's empty\n\n"
         "Seed cases, until the first verified result: matmul run 0 (ten products, --runs 1);\n"
         "mlp one training step and its loss (--iters 1 --print-every 1); linear one epoch\n"
         "(--epochs 1, pageable); saxpy run 0 (--runs 1). The cl backend runs its fastest\n"
         "variant (matmul pipelined, mlp fused, linear fused, saxpy float4) unless --variant\n"
         "names another.\n\n"
         "options:\n"
         "  --device SEL       the device, as the workload commands take it\n"
         "  --workload LIST    comma-separated workloads (default: matmul,mlp,linear,saxpy)\n"
         "  --backend LIST     cl, clblast or both (default: cl,clblast)\n"
         "  --variant NAME     the cl backend's variant (default: each workload's fastest, as\n"
         "                     above), one that every workload measured has: how soon a first\n"
         "                     result comes from a kernel that is quicker to build\n"
         "  --json FILE        write the results as JSON (schema " CG_COLDSTART_SCHEMA ")\n"
         "  --csv FILE         write the results as CSV\n"
         "  --child-timeout SECONDS  end a child that runs longer (default 900)\n"
         "  --quiet            no progress lines on stderr\n"
         "  -- OPTIONS         given to every child after the seed case's own (sizes, say:\n"
         "                     'clgauge coldstart --workload matmul -- --n 256')\n"
         "  --help             this text\n\n"
         "Phases: start (fork and exec until main), discovery (the drivers loaded, platforms\n"
         "and devices listed), inputs and reference (on the host), context, compile ('in run'\n"
         "for CLBlast, which compiles inside its first call), upload, run (run 0 until\n"
         "complete), download, verify. Discovery and the context run on a thread of their own\n"
         "from the start, beside the options, the inputs and the reference: 'overlap' is the\n"
         "time counted in two phases at once (the total is the phases' sum less it).\n\n"
         "Exit status: 0 when every process gave a verified result; 3 when one did not (its\n"
         "row says why; the others still run); 2 for bad usage; 1 otherwise (a results file\n"
         "that cannot be written, among others).\n");
}

/* -1: bad (reported), 1: --help, 0: parsed. */
static int parse_coldstart(int argc, char **argv, coldstart_opts *o) {
  for (int i = 1; i < argc; ++i) {
    const char *v = NULL;
    bool bad = false;
    if (strcmp(argv[i], "--") == 0) {
      o->extra = argv + i + 1;
      o->nextra = argc - i - 1;
      break;
    }
    if (cli_flag(argv[i], "--help")) return 1;
    if (cli_option(argc, argv, &i, "--device", &v, &bad)) {
      if (bad) return -1;
      if (!*v) {
        cli_error("--device '': an empty selector (an index, a type, or a name or vendor part)");
        return -1;
      }
      o->device = v;
    } else if (cli_option(argc, argv, &i, "--workload", &v, &bad)) {
      cli_list_free(o->workloads);
      o->workloads = NULL;
      if (bad || !cli_list("--workload", v, &o->workloads)) return -1;
      for (int k = 0; o->workloads[k]; ++k)
        if (!seed_find(o->workloads[k])) {
          cli_error("--workload '%s': no such workload (matmul, mlp, linear, saxpy)",
                    o->workloads[k]);
          return -1;
        }
    } else if (cli_option(argc, argv, &i, "--backend", &v, &bad)) {
      cli_list_free(o->backends);
      o->backends = NULL;
      if (bad || !cli_list("--backend", v, &o->backends)) return -1;
      for (int k = 0; o->backends[k]; ++k)
        if (strcmp(o->backends[k], "cl") != 0 && strcmp(o->backends[k], "clblast") != 0) {
          cli_error("--backend '%s': coldstart runs the OpenCL backends, cl and clblast",
                    o->backends[k]);
          return -1;
        }
    } else if (cli_option(argc, argv, &i, "--variant", &v, &bad)) {
      if (bad) return -1;
      o->cl_variant = v;
    } else if (cli_option(argc, argv, &i, "--json", &v, &bad)) {
      if (bad) return -1;
      o->json = v;
    } else if (cli_option(argc, argv, &i, "--csv", &v, &bad)) {
      if (bad) return -1;
      o->csv = v;
    } else if (cli_option(argc, argv, &i, "--child-timeout", &v, &bad)) {
      if (bad || !cli_double("--child-timeout", v, 1, 1e6, &o->child_timeout_s)) return -1;
    } else if (cli_flag(argv[i], "--quiet")) {
      o->quiet = true;
    } else {
      cli_error("unknown option '%s' (see 'clgauge coldstart --help')", argv[i]);
      return -1;
    }
  }
  return 0;
}

/* The cl variant each workload's child runs. */
static const char *cl_variant_of(const coldstart_opts *o, const seed_case *seed) {
  return o->cl_variant ? o->cl_variant : seed->cl_variant;
}

/* --variant names a variant of the cl backend of every workload measured, else it is reported
 * with the variants there are. */
static bool variant_known(const coldstart_opts *o, const char *const *workloads) {
  if (!o->cl_variant) return true;
  for (int w = 0; workloads[w]; ++w) {
    const cg_impl *impl = cg_impl_find(cg_backend_find("cl"), workloads[w]);
    bool found = false;
    char known[256] = "";
    for (const char *const *v = impl ? impl->variants : NULL; v && *v; ++v) {
      found |= strcmp(*v, o->cl_variant) == 0;
      snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", *known ? ", " : "",
               *v);
    }
    if (!found) {
      cli_error("--variant '%s': the cl backend's %s has no such variant (%s)", o->cl_variant,
                workloads[w], known);
      return false;
    }
  }
  return true;
}

/* The scratch directories of one run, removed at the end. */
static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

static bool make_dir(const char *path) { return mkdir(path, 0700) == 0 || errno == EEXIST; }

/* The driver caches of one state's child: fresh directories under base, made before the child
 * starts (PoCL uses POCL_CACHE_DIR only when it exists). */
static bool driver_dirs(const char *base) {
  static const char *const subs[] = {"", "/pocl", "/nvidia", "/mesa", "/xdg"};
  char path[4400];
  for (size_t i = 0; i < sizeof subs / sizeof subs[0]; ++i) {
    snprintf(path, sizeof path, "%s%s", base, subs[i]);
    if (!make_dir(path)) return false;
  }
  return true;
}

/* In the forked child, before exec: the caches of its state (documented by each driver: PoCL's
 * POCL_CACHE_DIR, portablecl.org/docs/html/env_variables.html; NVIDIA's CUDA_CACHE_PATH,
 * docs.nvidia.com/cuda/cuda-programming-guide/05-appendices/environment-variables.html; Mesa's
 * MESA_SHADER_CACHE_DIR, mesa3d.org/envvars.html; XDG_CACHE_HOME for anything that follows the
 * XDG base directories, such as Mesa's default), with the switches that turn them off unset. */
static void child_environment(const char *drivers, int fd) {
  char path[4400], num[16];
  snprintf(path, sizeof path, "%s/pocl", drivers);
  setenv("POCL_CACHE_DIR", path, 1);
  snprintf(path, sizeof path, "%s/nvidia", drivers);
  setenv("CUDA_CACHE_PATH", path, 1);
  snprintf(path, sizeof path, "%s/mesa", drivers);
  setenv("MESA_SHADER_CACHE_DIR", path, 1);
  snprintf(path, sizeof path, "%s/xdg", drivers);
  setenv("XDG_CACHE_HOME", path, 1);
  unsetenv("CUDA_CACHE_DISABLE");
  unsetenv("POCL_KERNEL_CACHE");
  unsetenv("MESA_SHADER_CACHE_DISABLE");
  snprintf(num, sizeof num, "%d", fd);
  setenv("CLGAUGE_COLDSTART_FD", num, 1);
}

static double field_num(const char *line, const char *key) {
  char pattern[32];
  snprintf(pattern, sizeof pattern, "\t%s=", key);
  const char *p = strstr(line, pattern);
  return p ? strtod(p + strlen(pattern), NULL) : NAN;
}

static void field_text(const char *line, const char *key, char *out, size_t cap) {
  char pattern[32];
  snprintf(pattern, sizeof pattern, "\t%s=", key);
  const char *p = strstr(line, pattern);
  out[0] = '\0';
  if (!p) return;
  p += strlen(pattern);
  snprintf(out, cap, "%.*s", (int)strcspn(p, "\t\n"), p);
}

/* The last line of the child's stderr, for a row that failed. */
static void last_line(const char *path, char *out, size_t cap) {
  FILE *f = fopen(path, "r");
  char line[1024];
  while (f && fgets(line, sizeof line, f))
    if (line[0] != '\n') snprintf(out, cap, "%.*s", (int)strcspn(line, "\n"), line);
  if (f) fclose(f);
}

/* Run one child and fill its row. Returns the child's exit status (-1 when it did not exit by
 * itself). */
static int run_child(const char *self, char **args, const char *drivers, const char *errfile,
                     double timeout_s, cg_coldstart_row *row) {
  int fds[2];
  snprintf(row->status, sizeof row->status, "error");
  if (pipe(fds) != 0) {
    snprintf(row->reason, sizeof row->reason, "pipe: %s", strerror(errno));
    return -1;
  }
  fcntl(fds[0], F_SETFD, FD_CLOEXEC);
  fflush(NULL);
  const uint64_t t0 = cg_now_ns(); /* process start, as the child's own clock cannot see it */
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const int null = open("/dev/null", O_RDWR);
    const int err = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (null >= 0) dup2(null, STDOUT_FILENO);
    if (err >= 0) dup2(err, STDERR_FILENO);
    child_environment(drivers, fds[1]);
    execv(self, args);
    _exit(127);
  }
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    snprintf(row->reason, sizeof row->reason, "fork: %s", strerror(errno));
    return -1;
  }
  char line[8192];
  size_t used = 0;
  bool timed_out = false;
  const uint64_t deadline = t0 + (uint64_t)(timeout_s * 1e9);
  for (;;) {
    const uint64_t now = cg_now_ns();
    if (now >= deadline) {
      timed_out = true;
      break;
    }
    struct pollfd p = {fds[0], POLLIN, 0};
    const int left = (int)((deadline - now) / 1000000u) + 1;
    const int r = poll(&p, 1, left);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(fds[0], line + used, sizeof line - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    used += (size_t)n;
    if (used == sizeof line - 1) break;
  }
  line[used] = '\0';
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (strncmp(line, "clgauge-coldstart 1\t", 20) != 0) {
    char why[600] = "";
    last_line(errfile, why, sizeof why);
    if (timed_out)
      snprintf(row->reason, sizeof row->reason, "no result within %g s (ended)", timeout_s);
    else if (WIFSIGNALED(status))
      snprintf(row->reason, sizeof row->reason, "the process died of signal %d%s%.400s",
               WTERMSIG(status), why[0] ? ": " : "", why);
    else
      snprintf(row->reason, sizeof row->reason, "no result (exit status %d)%s%.400s", code,
               why[0] ? ": " : "", why);
    return timed_out ? -1 : code;
  }
  const double main_ns = field_num(line, "main_ns"), done_ns = field_num(line, "done_ns");
  row->total_ms = (done_ns - (double)t0) / 1e6;
  row->start_ms = (main_ns - (double)t0) / 1e6;
  row->discovery_ms = field_num(line, "discovery");
  row->inputs_ms = field_num(line, "inputs");
  row->reference_ms = field_num(line, "reference");
  row->context_ms = field_num(line, "context");
  row->compile_ms = field_num(line, "compile");
  row->upload_ms = field_num(line, "upload");
  row->run_ms = field_num(line, "run");
  row->download_ms = field_num(line, "download");
  row->verify_ms = field_num(line, "verify");
  row->overlap_ms = field_num(line, "overlap");
  field_text(line, "kind", row->compile_kind, sizeof row->compile_kind);
  field_text(line, "status", row->status, sizeof row->status);
  field_text(line, "variant", row->variant, sizeof row->variant);
  field_text(line, "device", row->device, sizeof row->device);
  field_text(line, "driver", row->driver, sizeof row->driver);
  field_text(line, "reason", row->reason, sizeof row->reason);
  return code;
}

/* The command line of one child: clgauge WORKLOAD, the seed case, the backend and variant, the
 * device, the binary cache, then the options after "--". args has room for 32 + nextra. */
static void child_args(char **args, const char *self, const seed_case *seed, const char *backend,
                       const char *device, const char *cache, const coldstart_opts *o) {
  int n = 0;
  args[n++] = (char *)self;
  args[n++] = (char *)seed->workload;
  for (int i = 0; seed->args[i]; ++i) args[n++] = (char *)seed->args[i];
  args[n++] = "--backend";
  args[n++] = (char *)backend;
  if (strcmp(backend, "cl") == 0) {
    args[n++] = "--variant";
    args[n++] = (char *)cl_variant_of(o, seed);
  }
  if (device) {
    args[n++] = "--device";
    args[n++] = (char *)device;
  }
  args[n++] = "--binary-cache";
  args[n++] = (char *)cache;
  args[n++] = "--quiet";
  for (int i = 0; i < o->nextra; ++i) args[n++] = o->extra[i];
  args[n] = NULL;
}

/* The whole command line, for the JSON. */
static char *command_line(int argc, char **argv) {
  size_t size = 16;
  for (int i = 0; i < argc; ++i) size += strlen(argv[i]) + 1;
  char *s = malloc(size);
  if (!s) return NULL;
  snprintf(s, size, "clgauge");
  for (int i = 0; i < argc; ++i) snprintf(s + strlen(s), size - strlen(s), " %s", argv[i]);
  return s;
}

int cmd_coldstart(int argc, char **argv) {
  cli_set_command("clgauge coldstart");
  coldstart_opts o = {.child_timeout_s = 900};
  const int p = parse_coldstart(argc, argv, &o);
  if (p != 0) {
    if (p > 0) coldstart_help();
    cli_list_free(o.workloads);
    cli_list_free(o.backends);
    return p > 0 ? 0 : EXIT_USAGE;
  }
  static const char *const all_workloads[] = {"matmul", "mlp", "linear", "saxpy", NULL};
  static const char *const all_backends[] = {"cl", "clblast", NULL};
  const char *const *workloads = o.workloads ? (const char *const *)o.workloads : all_workloads;
  const char *const *backends = o.backends ? (const char *const *)o.backends : all_backends;
  int status = variant_known(&o, workloads) ? 0 : EXIT_USAGE;
  cg_error err = {0};
  const char *paths[] = {o.json, o.csv}, *names[] = {"--json", "--csv"};
  for (int i = 0; i < 2 && status == 0; ++i)
    if (paths[i] && cg_report_check_path(paths[i], &err) != CG_OK) {
      cli_error("%s %s", names[i], err.msg);
      status = EXIT_USAGE;
    }
  char self[4096];
  const ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (status == 0 && len <= 0) {
    cli_error("cannot find this program's own path (/proc/self/exe): %s", strerror(errno));
    status = EXIT_FAILURE;
  }
  if (len > 0) self[len] = '\0';
  const char *tmp = getenv("TMPDIR");
  char scratch[4096];
  snprintf(scratch, sizeof scratch, "%s/clgauge-coldstart-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  bool have_scratch = false;
  if (status == 0) {
    have_scratch = mkdtemp(scratch) != NULL;
    if (!have_scratch) {
      cli_error("cannot make a scratch directory '%s': %s", scratch, strerror(errno));
      status = EXIT_FAILURE;
    }
  }
  int nw = 0, nb = 0;
  while (workloads[nw]) ++nw;
  while (backends[nb]) ++nb;
  const int total = nw * nb * CG_STATE_COUNT;
  cg_coldstart_row *rows = calloc((size_t)total, sizeof *rows);
  char **args = malloc((size_t)(40 + o.nextra) * sizeof *args);
  if (status == 0 && (!rows || !args)) {
    cli_error("out of memory");
    status = EXIT_FAILURE;
  }
  int nrows = 0;
  bool failed = false;
  for (int w = 0; w < nw && status == 0; ++w) {
    const seed_case *seed = seed_find(workloads[w]);
    for (int b = 0; b < nb && status == 0; ++b) {
      /* drivers: a, warmed by the cold run, and b, fresh for the clgauge state; clgauge's
       * caches: c1, fresh for the cold run, and c2, filled by the driver run */
      char base[4200], drv_a[4300], drv_b[4300], c1[4300], c2[4300];
      snprintf(base, sizeof base, "%s/%s-%s", scratch, seed->workload, backends[b]);
      snprintf(drv_a, sizeof drv_a, "%s/drivers-a", base);
      snprintf(drv_b, sizeof drv_b, "%s/drivers-b", base);
      snprintf(c1, sizeof c1, "%s/clgauge-1", base);
      snprintf(c2, sizeof c2, "%s/clgauge-2", base);
      if (!make_dir(base) || !driver_dirs(drv_a) || !driver_dirs(drv_b)) {
        cli_error("cannot make the scratch directories under '%s': %s", base, strerror(errno));
        status = EXIT_FAILURE;
        break;
      }
      for (int s = 0; s < CG_STATE_COUNT && status == 0; ++s) {
        const cg_cache_state state = (cg_cache_state)s;
        cg_coldstart_row *row = &rows[nrows++];
        snprintf(row->workload, sizeof row->workload, "%s", seed->workload);
        snprintf(row->backend, sizeof row->backend, "%s", backends[b]);
        snprintf(row->variant, sizeof row->variant, "%s",
                 strcmp(backends[b], "cl") == 0 ? cl_variant_of(&o, seed) : "?");
        row->state = state;
        double *times[] = {&row->total_ms,  &row->start_ms,   &row->discovery_ms,
                           &row->inputs_ms, &row->reference_ms, &row->context_ms,
                           &row->compile_ms, &row->upload_ms, &row->run_ms,
                           &row->download_ms, &row->verify_ms, &row->overlap_ms};
        for (size_t t = 0; t < sizeof times / sizeof times[0]; ++t) *times[t] = NAN;
        const char *drivers = state == CG_STATE_CLGAUGE ? drv_b : drv_a;
        const char *cache = state == CG_STATE_COLD ? c1 : c2;
        char errfile[4400];
        snprintf(errfile, sizeof errfile, "%s/%s.stderr", base, cg_cache_state_name(state));
        if (!o.quiet)
          fprintf(stderr, "[%d/%d] %s %s, %s caches\n", nrows, total, seed->workload,
                  backends[b], cg_cache_state_name(state));
        child_args(args, self, seed, backends[b], o.device, cache, &o);
        const int code = run_child(self, args, drivers, errfile, o.child_timeout_s, row);
        if (code == EXIT_USAGE && nrows == 1) {
          /* the first child refused its options (a --device that matches nothing, options
           * after --): the same for every child, so stop here and say why */
          cli_error("%s", row->reason);
          status = EXIT_USAGE;
        }
        failed |= strcmp(row->status, "ok") != 0;
      }
    }
  }
  if (have_scratch) nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
  if (status == 0) {
    char *command = command_line(argc, argv);
    if (o.json && cg_coldstart_write_json(o.json, rows, nrows, command, &err) != CG_OK) {
      cli_error("--json %s", err.msg);
      status = EXIT_FAILURE;
    }
    if (o.csv && cg_coldstart_write_csv(o.csv, rows, nrows, &err) != CG_OK) {
      cli_error("--csv %s", err.msg);
      status = EXIT_FAILURE;
    }
    free(command);
    cg_coldstart_print_table(rows, nrows, stdout);
    if (status == 0 && failed) status = EXIT_RECORD_ERROR;
  }
  free(rows);
  free(args);
  cli_list_free(o.workloads);
  cli_list_free(o.backends);
  return status;
}
