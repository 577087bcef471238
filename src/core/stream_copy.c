/* Streaming copies (stream_copy.h): SSE2's 16-byte non-temporal stores, the unaligned head and
 * the tail written by memcpy. */
#include "clgauge/stream_copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

bool cg_stream_copy_available(void) {
#if defined(__SSE2__)
  return true;
#else
  return false;
#endif
}

void cg_stream_copy(void *dst, const void *src, size_t bytes) {
#if defined(__SSE2__)
  unsigned char *d = dst;
  const unsigned char *s = src;
  /* bytes up to d's next 16-byte boundary, which the streaming stores need */
  const size_t head = (16u - ((uintptr_t)d & 15u)) & 15u;
  if (bytes <= head) {
    memcpy(d, s, bytes);
    return;
  }
  memcpy(d, s, head);
  d += head;
  s += head;
  bytes -= head;
  /* four stores in a row fill a 64-byte line's write-combining buffer at once */
  for (; bytes >= 64; d += 64, s += 64, bytes -= 64) {
    const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)s);
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    const __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32));
    const __m128i e = _mm_loadu_si128((const __m128i *)(const void *)(s + 48));
    _mm_stream_si128((__m128i *)(void *)d, a);
    _mm_stream_si128((__m128i *)(void *)(d + 16), b);
    _mm_stream_si128((__m128i *)(void *)(d + 32), c);
    _mm_stream_si128((__m128i *)(void *)(d + 48), e);
  }
  for (; bytes >= 16; d += 16, s += 16, bytes -= 16)
    _mm_stream_si128((__m128i *)(void *)d, _mm_loadu_si128((const __m128i *)(const void *)s));
  memcpy(d, s, bytes);
  /* streaming stores are weakly ordered: fence them before the caller's next store */
  _mm_sfence();
#else
  memcpy(dst, src, bytes);
#endif
}
