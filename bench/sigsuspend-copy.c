/* Preloaded into deliveryd under valgrind by bench/profile.sh: sigsuspend with its mask copied to the stack first.
 * libdispatch's main thread (dispatchMain) waits in sigsuspend on a mask in read-only memory, and valgrind 3.19
 * rewrites the mask it is given in place (to keep its own signals), which faults inside valgrind and ends the run.
 *
 *   gcc -O2 -shared -fPIC -o sigsuspend-copy.so bench/sigsuspend-copy.c
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    /* The kernel's sigset is 8 bytes on Linux x86-64 (glibc's sigset_t is larger). */
    return (int)syscall(SYS_rt_sigsuspend, &copy, 8);
}
