/* Check suite of the streaming copy (src/core/stream_copy.c): every length from 0 to a few
 * lines and some longer, at every alignment of the destination within 16 bytes and a few of the
 * source, copies exactly its bytes of fresh random data and writes nothing either side; on
 * x86-64 the streaming stores are there. Needs no OpenCL. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clgauge/random.h"
#include "clgauge/stream_copy.h"
#include "test_util.h"

enum { GUARD = 32, MAX_LEN = 16384 + 67, FILL = 0xA5 };

/* The length of p's leading run of FILL bytes, at most n. */
static size_t untouched(const unsigned char *p, size_t n) {
  size_t i = 0;
  while (i < n && p[i] == FILL) ++i;
  return i;
}

START_TEST(test_copies_exactly) {
  const uint64_t seed = cg_test_seed();
  cg_rng rng;
  cg_rng_seed(&rng, seed);
  unsigned char *src = malloc(MAX_LEN + 16), *dst = malloc(MAX_LEN + 16 + 2 * GUARD);
  ck_assert_ptr_nonnull(src);
  ck_assert_ptr_nonnull(dst);
  static const size_t longer[] = {127, 128, 129, 1000, 4096, MAX_LEN};
  for (size_t len = 0; len < 200 + sizeof longer / sizeof longer[0]; ++len) {
    const size_t n = len < 200 ? len : longer[len - 200];
    for (int d_off = 0; d_off < 16; ++d_off)
      for (int s_off = 0; s_off < 4; ++s_off) {
        for (size_t i = 0; i < n; ++i) src[s_off + i] = (unsigned char)cg_rng_next(&rng);
        memset(dst, FILL, MAX_LEN + 16 + 2 * GUARD);
        unsigned char *to = dst + GUARD + d_off;
        cg_stream_copy(to, src + s_off, n);
        ck_assert_msg(memcmp(to, src + s_off, n) == 0,
                      "%zu bytes, destination offset %d, source offset %d: copy differs (seed "
                      "%llu)",
                      n, d_off, s_off, (unsigned long long)seed);
        const size_t before = untouched(dst, GUARD + (size_t)d_off);
        ck_assert_msg(before == GUARD + (size_t)d_off,
                      "%zu bytes at offset %d: byte %zu before it written", n, d_off,
                      GUARD + (size_t)d_off - before);
        const size_t rest = MAX_LEN + 16 + 2 * GUARD - (GUARD + d_off + n);
        const size_t after = untouched(to + n, rest);
        ck_assert_msg(after == rest, "%zu bytes at offset %d: byte %zu after it written", n,
                      d_off, after);
      }
  }
  free(src);
  free(dst);
}
END_TEST

#if defined(__x86_64__)
START_TEST(test_available_on_x86_64) {
  ck_assert_msg(cg_stream_copy_available(), "x86-64 has SSE2's streaming stores");
}
END_TEST
#endif

static Suite *stream_copy_suite(void) {
  Suite *s = suite_create("stream_copy");
  TCase *tc = tcase_create("copy");
  tcase_add_test(tc, test_copies_exactly);
#if defined(__x86_64__)
  tcase_add_test(tc, test_available_on_x86_64);
#endif
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return cg_test_main(stream_copy_suite, false); }
