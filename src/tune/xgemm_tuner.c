/* CLBlast's xgemm tuner as a child process (fork, exec, polled for its first stage's JSON, then
 * stopped), and the reader of its JSON files (cJSON). */
#include "clgauge/xgemm_tuner.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clgauge/clock.h"
#include "clgauge/files.h"

const char *const cg_xgemm_clblast_names[] = {"GEMMK", "KREG",  "KWG", "KWI",  "MDIMA", "MDIMC",
                                              "MWG",   "NDIMB", "NDIMC", "NWG", "SA",    "SB",
                                              "STRM",  "STRN",  "VWM", "VWN",  NULL};
const char *const cg_xgemm_params[] = {
    "XGEMM_GEMMK", "XGEMM_KREG",  "XGEMM_KWG",   "XGEMM_KWI",  "XGEMM_MDIMA", "XGEMM_MDIMC",
    "XGEMM_MWG",   "XGEMM_NDIMB", "XGEMM_NDIMC", "XGEMM_NWG",  "XGEMM_SA",    "XGEMM_SB",
    "XGEMM_STRM",  "XGEMM_STRN",  "XGEMM_VWM",   "XGEMM_VWN",  NULL};

enum { MAX_TUNER_JSON = 64 << 20, TUNER_ALIGN = 128 };
static const char first_stage[] = "clblast_xgemm_1_32.json";

/* The tuner writes its numbers as strings in the header ("arg_m": "1024") and as numbers in the
 * results; either is taken. */
static bool number_of(const cJSON *v, double *out) {
  if (cJSON_IsNumber(v)) {
    *out = v->valuedouble;
    return true;
  }
  if (!cJSON_IsString(v)) return false;
  char *end = NULL;
  *out = strtod(v->valuestring, &end);
  return end != v->valuestring && *end == '\0' && isfinite(*out);
}

static long header_size(const cJSON *root, const char *key) {
  double v = NAN;
  return number_of(cJSON_GetObjectItemCaseSensitive(root, key), &v) && v >= 1 ? (long)v : 0;
}

cg_rc cg_xgemm_tuner_read(const char *path, cg_xgemm_best *out, cg_error *err) {
  cg_rc rc = CG_OK;
  char *text = NULL;
  size_t size = 0;
  cJSON *root = NULL;
  memset(out, 0, sizeof *out);
  out->ms = NAN;
  CG_TRY(cg_file_read(path, &text, &size, err));
  CG_CHECK(size <= MAX_TUNER_JSON, CG_BAD_INPUT, "%s: %zu bytes, more than a tuner's results",
           path, size);
  root = cJSON_ParseWithLength(text, size);
  CG_CHECK(cJSON_IsObject(root), CG_BAD_INPUT, "%s is not a JSON object (not the tuner's output?)",
           path);
  double precision = NAN;
  CG_CHECK(number_of(cJSON_GetObjectItemCaseSensitive(root, "precision"), &precision) &&
               precision == 32,
           CG_BAD_INPUT, "%s: \"precision\" is not 32 (single precision is what clgauge runs)",
           path);
  const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
  CG_CHECK(cJSON_IsArray(results), CG_BAD_INPUT, "%s: no \"results\" list", path);
  int index = 0;
  const cJSON *r = NULL;
  cJSON_ArrayForEach(r, results) {
    const cJSON *kernel = cJSON_GetObjectItemCaseSensitive(r, "kernel");
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(r, "parameters");
    double ms = NAN;
    CG_CHECK(cJSON_IsString(kernel) && strcmp(kernel->valuestring, "Xgemm") == 0 &&
                 cJSON_IsObject(params) &&
                 number_of(cJSON_GetObjectItemCaseSensitive(r, "time"), &ms) && ms > 0,
             CG_BAD_INPUT, "%s: result %d is not an Xgemm result with a time and parameters",
             path, index);
    int values[CG_XGEMM_NPARAMS];
    for (int p = 0; p < CG_XGEMM_NPARAMS; ++p) {
      double v = NAN;
      CG_CHECK(number_of(cJSON_GetObjectItemCaseSensitive(params, cg_xgemm_clblast_names[p]), &v) &&
                   v >= 0 && v <= 1024 && v == floor(v),
               CG_BAD_INPUT, "%s: result %d has no whole %s in 0..1024", path, index,
               cg_xgemm_clblast_names[p]);
      values[p] = (int)v;
    }
    if (!(ms >= out->ms)) { /* the first, or a faster one */
      memcpy(out->values, values, sizeof values);
      out->ms = ms;
    }
    ++index;
  }
  CG_CHECK(index > 0, CG_BAD_INPUT, "%s: the tuner reports no configuration that ran", path);
  out->results = index;
  out->m = header_size(root, "arg_m");
  out->n = header_size(root, "arg_n");
  out->k = header_size(root, "arg_k");
cleanup:
  cJSON_Delete(root);
  free(text);
  return rc;
}

static long align_up(long x) { return (x + TUNER_ALIGN - 1) / TUNER_ALIGN * TUNER_ALIGN; }

/* Start the tuner in workdir with its output in tuner.log; -1 when fork fails. */
static pid_t start(const cg_xgemm_tuner_job *job, const char *log) {
  char platform[16], device[16], m[24], n[24], k[24], fraction[32];
  snprintf(platform, sizeof platform, "%d", job->platform);
  snprintf(device, sizeof device, "%d", job->device);
  snprintf(m, sizeof m, "%ld", align_up(job->m));
  snprintf(n, sizeof n, "%ld", align_up(job->n));
  snprintf(k, sizeof k, "%ld", align_up(job->k));
  snprintf(fraction, sizeof fraction, "%g", job->fraction);
  char *const argv[] = {(char *)job->program, "-platform", platform, "-device", device,
                        "-precision", "32", "-m", m, "-n", n, "-k", k, "-fraction", fraction,
                        "-runs", "2", NULL};
  fflush(NULL);
  const pid_t pid = fork();
  if (pid != 0) return pid;
  /* the child: into workdir, output to the log, then the tuner (127: it could not start) */
  const int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0 || chdir(job->workdir) != 0 || dup2(fd, STDOUT_FILENO) < 0 ||
      dup2(fd, STDERR_FILENO) < 0)
    _exit(126);
  execvp(job->program, argv);
  _exit(127);
}

static void stop(pid_t pid) {
  kill(pid, SIGTERM);
  for (int i = 0; i < 50; ++i) {
    if (waitpid(pid, NULL, WNOHANG) == pid) return;
    nanosleep(&(struct timespec){0, 100000000}, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

cg_rc cg_xgemm_tuner_run(const cg_xgemm_tuner_job *job, cg_xgemm_best *out, cg_error *err) {
  cg_rc rc = CG_OK;
  pid_t pid = -1;
  char json[4096], log[4096];
  CG_CHECK(job->fraction >= 1 && job->fraction <= 578, CG_BAD_INPUT,
           "the tuner's fraction %g: must be 1..578 (1/fraction of its configurations run)",
           job->fraction);
  CG_CHECK(job->m >= 1 && job->n >= 1 && job->k >= 1, CG_BAD_INPUT,
           "the tuner's shape %ldx%ldx%ld: every size must be at least 1", job->m, job->n,
           job->k);
  CG_CHECK((size_t)snprintf(json, sizeof json, "%s/%s", job->workdir, first_stage) < sizeof json &&
               (size_t)snprintf(log, sizeof log, "%s/tuner.log", job->workdir) < sizeof log,
           CG_BAD_INPUT, "the tuner's folder '%s': name too long", job->workdir);
  CG_TRY(cg_dir_ensure(job->workdir, err));
  CG_CHECK(unlink(json) == 0 || errno == ENOENT, CG_ERROR, "cannot remove the old '%s': %s", json,
           strerror(errno));
  const uint64_t t0 = cg_now_ns();
  pid = start(job, log);
  CG_CHECK(pid > 0, CG_ERROR, "cannot start '%s': fork: %s", job->program, strerror(errno));
  /* Poll: the stage's file appears once, at the stage's end, written in one go; read it again
   * until it parses in case it was caught half written. */
  for (;;) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      cg_error ignored = {0};
      if (cg_xgemm_tuner_read(json, out, &ignored) == CG_OK) break;
      const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      CG_CHECK(code != 127 && code != 126, CG_UNSUPPORTED,
               "cannot run '%s' (CLBlast's tuner, Debian package clblast-utils): %s",
               job->program,
               code == 127 ? "not found" : "cannot write its log or enter its folder");
      CG_CHECK(false, CG_ERROR, "'%s' ended (%s %d) before writing %s; its output: %s",
               job->program, WIFEXITED(status) ? "exit status" : "signal",
               WIFEXITED(status) ? code : WTERMSIG(status), first_stage, log);
    }
    struct stat st;
    cg_error ignored = {0};
    if (stat(json, &st) == 0 && cg_xgemm_tuner_read(json, out, &ignored) == CG_OK) break;
    CG_CHECK(cg_ns_to_ms(cg_now_ns() - t0) < 1e3 * job->budget_s, CG_ERROR,
             "'%s' wrote no result within %g s (its first stage at -fraction %g; a larger "
             "fraction runs fewer configurations); its output: %s",
             job->program, job->budget_s, job->fraction, log);
    nanosleep(&(struct timespec){0, 200000000}, NULL);
  }
cleanup:
  if (pid > 0) stop(pid);
  return rc;
}
