// The C allocator's settings that deliveryd changes (glibc's mallopt, which the Swift Glibc module does not show).
#ifndef LAUNCHAD_CHEAP_HEAP_H
#define LAUNCHAD_CHEAP_HEAP_H

// Keeps freed heap memory for reuse instead of trimming it back to the system, and keeps blocks from 128 KiB mapped
// on their own. Returns 1 when the C library took both settings, 0 when it refused one or is not glibc.
int launchad_keep_freed_heap_memory(void);

#endif
