#ifndef PURSE_CEPOLL_SHIM_H
#define PURSE_CEPOLL_SHIM_H

/* epoll and eventfd, which Swift's Glibc module does not export. Empty elsewhere. */
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#endif
