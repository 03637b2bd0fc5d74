#ifndef PURSE_CEPOLL_SHIM_H
#define PURSE_CEPOLL_SHIM_H

/* Linux's readiness API, which Swift's Glibc module does not include. Empty elsewhere. */
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#endif
