#include "heap.h"

#if defined(__GLIBC__)
#include <limits.h>
#include <malloc.h>

int launchad_keep_freed_heap_memory(void) {
    // Setting either threshold also turns off glibc's moving mmap threshold, so both are set together.
    return mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1 && mallopt(M_MMAP_THRESHOLD, 128 * 1024) == 1;
}
#else
int launchad_keep_freed_heap_memory(void) { return 0; }
#endif
