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
#endif
