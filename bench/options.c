/* The options every clgauge command takes, kernel-parameter overrides, and where the drivers
 * keep their kernel caches. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "front.h"
#include "clgauge/backend.h"
#include "clgauge/report.h"

#define STR_(x) #x
#define STR(x) STR_(x)

const char common_help[] =
    "  --device SEL       device: index from 'clgauge list' (3, or 0:1 as platform:device),\n"
    "                     type (gpu, cpu, accelerator), or vendor/name substring (nvidia, pocl);\n"
    "                     default $CLGAUGE_DEVICE, else the first GPU, else the first device.\n"
    "                     'all', or a comma-separated list (0,2 or nvidia,pocl or 0:0,1:0),\n"
    "                     runs on each device in turn: a table per device, one results file,\n"
    "                     the cpu backend once; 'all' includes platforms that list no device,\n"
    "                     their records skipped\n"
    "  --backend LIST     comma-separated backends: cpu, clblast, cl (default: all)\n"
    "  --variant LIST     comma-separated variants of the backends (default: all)\n"
    "  --kernel-dir DIR   read the OpenCL kernels from DIR instead of the embedded copies\n"
    "  --binary-cache DIR keep built OpenCL programs in DIR (created if missing) and load them\n"
    "                     on later runs: the compile phase then shows the cached cost. By\n"
    "                     default they are kept in $XDG_CACHE_HOME/clgauge, else\n"
    "                     $HOME/.cache/clgauge (see 'clgauge cache --help')\n"
    "  --no-binary-cache  build every program from source, keeping none\n"
    "  --cold-compile     switch off the drivers' own kernel caches (NVIDIA, PoCL, Mesa) and,\n"
    "                     unless --binary-cache names one, clgauge's own, so that the compile\n"
    "                     phase shows a cold build\n"
    "  --kernel-param LIST  set kernel parameters of the hand-written kernels, as NAME=VALUE,...;\n"
    "                     the records' kernel configuration says what ran and where from\n"
    "  --tuning-file FILE the settings of 'clgauge tune' to apply where one matches the\n"
    "                     device, kernel and size class (default\n"
    "                     $XDG_CACHE_HOME/clgauge/tuning.json, else ~/.cache/clgauge/tuning.json)\n"
    "  --no-tuned         run the kernels' default parameters, not the tuned ones\n"
    "  --seed N           seed of the input generator (default 42)\n"
    "  --json FILE        write the results as JSON (schema " CG_REPORT_SCHEMA ")\n"
    "  --csv FILE         write the results as CSV\n"
    "  --record-timeout SECONDS  stop the run when a record takes longer (from its start to its\n"
    "                     verification): the results files keep the records finished and this\n"
    "                     one, marked interrupted, and the exit status is 5. A stuck driver\n"
    "                     call cannot be interrupted safely, so the process ends there\n"
    "  --budget-s S       time budget of each record's steady runs, in seconds (default\n"
    "                     " STR(DEFAULT_BUDGET_S) "; 0: none): once they have taken longer, the remaining runs\n"
    "                     are skipped (run 0, the warm-ups and two steady runs always run),\n"
    "                     the record says how many ran of how many asked, and it is verified\n"
    "                     against the reference of the runs it ran\n"
    "  --probe            measure the ceilings first ('clgauge probe' on the device and the host)\n"
    "                     and hold every record against them: its share of the FP32 peak and\n"
    "                     the bandwidth, its roofline bound, what limits it; the suite's default\n"
    "  --probe-quick      the same with 'clgauge probe --quick' (seconds on a CPU driver)\n"
    "  --probe-file FILE  the ceilings from a results file's probes ('clgauge probe --json')\n"
    "  --no-probe         no probe, not even the suite's\n"
    "  --quiet            no progress lines on stderr\n"
    "  --help             this text\n";

const char exit_help[] =
    "Exit status: 0 when every record is ok, unsupported or skipped and at least one ran; 3\n"
    "when a record is 'error' (the others still run and the files are still written); 4 when\n"
    "nothing that was asked for ran (every record skipped or unsupported, such as OpenCL\n"
    "backends alone without a usable device); 5 when a record ran past --record-timeout;\n"
    "2 for bad usage; 1 otherwise (a results file or stdout that cannot be written, among\n"
    "others). SIGINT, SIGTERM and SIGHUP end the run with the signal (130, 143 and 129 in a\n"
    "shell), the results files holding the records finished and the running one, interrupted.\n";

/* Kernel-parameter overrides added from "NAME=VALUE,...", each name checked against the room
 * an override has for it first, so that a long name is refused by its limit rather than read
 * as a malformed item. Reports and returns false when bad. */
static bool parse_overrides(cg_kernel_overrides *ov, const char *source, const char *text) {
  const size_t room = sizeof ov->items[0].name - 1;
  for (const char *p = text; *p;) {
    const size_t len = strcspn(p, ","), name = strcspn(p, "=,");
    if (name < len && name > room) {
      cli_error("%s'%.*s': a parameter name has at most %zu characters", source, (int)len, p,
                room);
      return false;
    }
    p += len + (p[len] == ',');
  }
  cg_error err = {0};
  if (cg_kernel_overrides_parse(ov, text, &err) != CG_OK) {
    cli_error("%s%s", source[0] == '-' ? "" : source, err.msg);
    return false;
  }
  return true;
}

/* 1: consumed, 0: not a common option, -1: bad. */
int parse_common(int argc, char **argv, int *i, common_opts *o) {
  const char *v = NULL;
  bool bad = false;
  if (cli_option(argc, argv, i, "--device", &v, &bad)) {
    if (bad) return -1;
    if (!*v) {
      cli_error("--device '': an empty selector (an index, a type, or a name or vendor part)");
      return -1;
    }
    o->device = v;
  } else if (cli_option(argc, argv, i, "--kernel-dir", &v, &bad)) {
    if (bad) return -1;
    if (!*v) {
      cli_error("--kernel-dir '': an empty directory name");
      return -1;
    }
    o->kernel_dir = v;
  } else if (cli_option(argc, argv, i, "--binary-cache", &v, &bad)) {
    if (bad) return -1;
    o->binary_cache = v;
  } else if (cli_flag(argv[*i], "--no-binary-cache")) {
    o->no_binary_cache = true;
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
    if (bad || !cli_list("--backend", v, &o->backends)) return -1;
  } else if (cli_option(argc, argv, i, "--variant", &v, &bad)) {
    cli_list_free(o->variants);
    o->variants = NULL;
    if (bad || !cli_list("--variant", v, &o->variants)) return -1;
  } else if (cli_option(argc, argv, i, "--kernel-param", &v, &bad)) {
    if (bad || !parse_overrides(&o->overrides, "--kernel-param ", v)) return -1;
  } else if (cli_option(argc, argv, i, "--seed", &v, &bad)) {
    if (bad || !cli_u64("--seed", v, &o->seed)) return -1;
  } else if (cli_option(argc, argv, i, "--record-timeout", &v, &bad)) {
    if (bad || !cli_double("--record-timeout", v, 0.001, 1e7, &o->record_timeout)) return -1;
  } else if (cli_option(argc, argv, i, "--budget-s", &v, &bad)) {
    if (bad || !cli_double("--budget-s", v, 0, 1e7, &o->budget_s)) return -1;
  } else if (cli_option(argc, argv, i, "--tuning-file", &v, &bad)) {
    if (bad) return -1;
    if (!*v) {
      cli_error("--tuning-file '': an empty file name");
      return -1;
    }
    o->tuning_file = v;
  } else if (cli_flag(argv[*i], "--no-tuned")) {
    o->no_tuned = true;
  } else if (cli_flag(argv[*i], "--probe")) {
    o->probe = true;
  } else if (cli_flag(argv[*i], "--probe-quick")) {
    o->probe = o->probe_quick = true;
  } else if (cli_flag(argv[*i], "--no-probe")) {
    o->no_probe = true;
  } else if (cli_option(argc, argv, i, "--probe-file", &v, &bad)) {
    if (bad) return -1;
    o->probe_file = v;
  } else if (cli_flag(argv[*i], "--quiet")) {
    o->quiet = true;
  } else {
    return 0;
  }
  return 1;
}

void free_common(common_opts *o) {
  cli_list_free(o->backends);
  cli_list_free(o->variants);
}

/* The old spelling of the fused mlp's overrides, CLGAUGE_MLP_FUSED="tx=8,r=4", read here (never
 * inside the library) as --kernel-param with the names in upper case. */
int legacy_overrides(common_opts *o) {
  const char *spec = getenv("CLGAUGE_MLP_FUSED");
  if (!spec || !*spec) return 0;
  char *upper = strdup(spec); /* whole, however long */
  if (!upper) {
    cli_error("CLGAUGE_MLP_FUSED: out of memory");
    return EXIT_FAILURE;
  }
  for (char *c = upper; *c; ++c)
    if (*c >= 'a' && *c <= 'z') *c = (char)(*c - 'a' + 'A');
  const bool ok = parse_overrides(&o->overrides, "CLGAUGE_MLP_FUSED: ", upper);
  free(upper);
  return ok ? 0 : EXIT_USAGE;
}

/* Every --kernel-param must name a parameter that a selected kernel of the jobs takes. */
int check_overrides(const common_opts *o, const cg_job *jobs, int njobs) {
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

/* ---- the drivers' kernel caches ---- */

/* Whether dir is, or can be made, a directory this process can create files in: made (with its
 * missing parents, as a driver would), then probed with a file created and removed. On failure
 * why says what failed. */
static bool cache_dir_usable(const char *dir, char *why, size_t size) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
    snprintf(why, size, "path too long");
    return false;
  }
  for (char *p = path + 1;; ++p) {
    const bool end = *p == '\0';
    if (*p != '/' && !end) continue;
    *p = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
      snprintf(why, size, "%s", strerror(errno));
      return false;
    }
    if (end) break;
    *p = '/';
  }
  char probe[4200];
  snprintf(probe, sizeof probe, "%s/.clgauge-probe-XXXXXX", path);
  const int fd = mkstemp(probe);
  if (fd < 0) {
    snprintf(why, size, "%s", strerror(errno));
    return false;
  }
  close(fd);
  unlink(probe);
  return true;
}

/* A cache directory of this user's under $TMPDIR (or /tmp): clgauge-cache-<uid> when it is
 * ours alone, else a fresh one. */
static bool private_cache_dir(char *out, size_t size) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  snprintf(out, size, "%s/clgauge-cache-%ld", tmp, (long)getuid());
  struct stat st;
  if (mkdir(out, 0700) == 0 ||
      (errno == EEXIST && lstat(out, &st) == 0 && S_ISDIR(st.st_mode) &&
       st.st_uid == getuid() && (st.st_mode & 077) == 0)) {
    char why[128];
    return cache_dir_usable(out, why, sizeof why);
  }
  if (snprintf(out, size, "%s/clgauge-cache-%ld-XXXXXX", tmp, (long)getuid()) >= (int)size)
    return false;
  return mkdtemp(out) != NULL;
}

void driver_caches_fallback(void) {
  /* PoCL keeps its kernel cache in $XDG_CACHE_HOME/pocl, else $HOME/.cache/pocl, and lists no
   * device at all when it cannot make it; Mesa's cache lives there too, NVIDIA's in $HOME. */
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  char base[4096] = "", why[256] = "HOME is not set";
  if (xdg && *xdg)
    snprintf(base, sizeof base, "%s", xdg);
  else if (home && *home)
    snprintf(base, sizeof base, "%s/.cache", home);
  if (base[0] && cache_dir_usable(base, why, sizeof why)) return;
  char dir[4096];
  if (!private_cache_dir(dir, sizeof dir)) {
    fprintf(stderr, "clgauge: the drivers' kernel caches cannot be kept in '%s' (%s), nor in a "
                    "temporary directory: a driver may list no device\n",
            base, why);
    return;
  }
  char nvidia[4200];
  snprintf(nvidia, sizeof nvidia, "%s/nvidia", dir);
  setenv("XDG_CACHE_HOME", dir, 1);
  const bool cuda = !getenv("CUDA_CACHE_PATH");
  if (cuda) setenv("CUDA_CACHE_PATH", nvidia, 1);
  fprintf(stderr,
          "clgauge: the drivers' kernel caches cannot be kept in '%s' (%s): they go to %s "
          "(XDG_CACHE_HOME%s set for this run)\n",
          base[0] ? base : "$HOME/.cache", why, dir, cuda ? " and CUDA_CACHE_PATH" : "");
}
