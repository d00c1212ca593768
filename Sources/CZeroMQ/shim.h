// The C surface the ZeroMQ wrapper needs: libzmq itself and eventfd for waking poll loops.
#ifndef LAUNCHAD_CZEROMQ_SHIM_H
#define LAUNCHAD_CZEROMQ_SHIM_H
#include <zmq.h>
#include <sys/eventfd.h>
#include <errno.h>
#include <unistd.h>
#include <poll.h>
#endif
