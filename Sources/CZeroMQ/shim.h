// The C surface the ZeroMQ wrapper needs: libzmq itself and eventfd for waking poll loops (and memmem, and naming
// threads).
#ifndef LAUNCHAD_CZEROMQ_SHIM_H
#define LAUNCHAD_CZEROMQ_SHIM_H
#include <zmq.h>
#include <sys/eventfd.h>
#include <errno.h>
#include <unistd.h>
#include <poll.h>
#include <stddef.h>

// glibc's memmem (a GNU extension the Swift Glibc module does not show): adload scans replies with it.
void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);

// glibc's pthread_setname_np (also a GNU extension): socket threads name themselves for `top -H` and /proc.
#include <pthread.h>
int pthread_setname_np(pthread_t thread, const char *name);

// Reply frames lent to libzmq from one block of fixed-size slots (see `OutgoingBatch` in the ZeroMQ module). A frame
// made with zmq_msg_init_size is malloc'd on the sending thread and freed on libzmq's I/O thread once written, so for
// every reply the two threads take the same glibc arena lock, and under load one of them often sleeps on it. A slot
// costs neither: the sending thread takes a free slot, libzmq's free function (on whichever thread lets go of the
// frame) marks it free again; only libzmq's small header of a lent frame is still allocated. The block lives while
// the owner or any lent frame holds it: the owner takes references in bulk (one atomic add per
// `LAUNCHAD_FRAME_POOL_RESERVE` frames), each frame gives its one back.
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LAUNCHAD_FRAME_POOL_RESERVE 1024

typedef struct launchad_frame_pool {
    // Written by whichever thread lets go of a frame; on a line of its own.
    _Alignas(64) atomic_size_t references;
    // The owner's, on another line.
    _Alignas(64) size_t reserve;
    size_t cursor;
    size_t last;  // the slot lent last, or SIZE_MAX
    size_t slot_size;
    size_t slot_count;
    unsigned char *memory;
    atomic_uchar *busy;
    // Called as the block goes (tests watch its lifetime with it), or NULL.
    void (*freed)(void *);
    void *freed_context;
} launchad_frame_pool;

static inline void launchad_frame_pool_free(launchad_frame_pool *pool) {
    if (pool->freed != NULL) pool->freed(pool->freed_context);
    free(pool->memory);
    free((void *)pool->busy);
    free(pool);
}

// libzmq's free function for a lent frame: the slot is free again, and the frame's reference goes back.
static inline void launchad_frame_pool_release(void *data, void *hint) {
    launchad_frame_pool *pool = (launchad_frame_pool *)hint;
    size_t index = (size_t)((unsigned char *)data - pool->memory) / pool->slot_size;
    atomic_store_explicit(&pool->busy[index], 0, memory_order_release);
    if (atomic_fetch_sub_explicit(&pool->references, 1, memory_order_acq_rel) == 1) launchad_frame_pool_free(pool);
}

// A pool of `slot_count` slots of `slot_size` bytes each, or NULL when out of memory.
static inline launchad_frame_pool *launchad_frame_pool_create(size_t slot_size, size_t slot_count) {
    if (slot_size == 0 || slot_count == 0 || slot_size > SIZE_MAX / slot_count) return NULL;
    launchad_frame_pool *pool = (launchad_frame_pool *)aligned_alloc(64, sizeof(launchad_frame_pool));
    if (pool == NULL) return NULL;
    pool->freed = NULL;
    pool->freed_context = NULL;
    pool->memory = (unsigned char *)malloc(slot_size * slot_count);
    pool->busy = (atomic_uchar *)calloc(slot_count, sizeof(atomic_uchar));
    if (pool->memory == NULL || pool->busy == NULL) {
        launchad_frame_pool_free(pool);  // frees what was allocated (free(NULL) does nothing)
        return NULL;
    }
    atomic_init(&pool->references, 1);  // the owner's own
    pool->reserve = 0;
    pool->cursor = 0;
    pool->last = SIZE_MAX;
    pool->slot_size = slot_size;
    pool->slot_count = slot_count;
    return pool;
}

// Sets what is called as the block goes; before any frame is lent.
static inline void launchad_frame_pool_on_free(launchad_frame_pool *pool, void (*freed)(void *), void *context) {
    pool->freed = freed;
    pool->freed_context = context;
}

// Makes `msg` (closed or never initialised) a frame holding a copy of `count` bytes, and returns 0; returns -1, leaving
// `msg` alone, when the bytes do not fit a slot or no slot is free where it looks (the caller makes the frame another
// way). It looks at the slot lent last, free again when replies go out one at a time, so that a quiet socket writes
// into memory still in the cache; then at the next slot in turn. Only the owner's thread calls it.
static inline int launchad_frame_pool_copy(launchad_frame_pool *pool, zmq_msg_t *msg, const void *bytes, size_t count) {
    if (count > pool->slot_size || count == 0) return -1;
    size_t index = pool->last;
    if (index == SIZE_MAX || atomic_load_explicit(&pool->busy[index], memory_order_acquire) != 0) {
        index = pool->cursor;
        pool->cursor = index + 1 == pool->slot_count ? 0 : index + 1;
        if (atomic_load_explicit(&pool->busy[index], memory_order_acquire) != 0) return -1;
    }
    if (pool->reserve == 0) {
        atomic_fetch_add_explicit(&pool->references, LAUNCHAD_FRAME_POOL_RESERVE, memory_order_relaxed);
        pool->reserve = LAUNCHAD_FRAME_POOL_RESERVE;
    }
    unsigned char *slot = pool->memory + index * pool->slot_size;
    memcpy(slot, bytes, count);
    atomic_store_explicit(&pool->busy[index], 1, memory_order_relaxed);
    if (zmq_msg_init_data(msg, slot, count, launchad_frame_pool_release, pool) != 0) {
        atomic_store_explicit(&pool->busy[index], 0, memory_order_relaxed);
        return -1;
    }
    pool->reserve -= 1;
    pool->last = index;
    return 0;
}

// The owner lets go: its own reference and the unused reserve go back; the block goes once no frame holds it.
static inline void launchad_frame_pool_close(launchad_frame_pool *pool) {
    size_t owned = pool->reserve + 1;
    if (atomic_fetch_sub_explicit(&pool->references, owned, memory_order_acq_rel) == owned) {
        launchad_frame_pool_free(pool);
    }
}
#endif
