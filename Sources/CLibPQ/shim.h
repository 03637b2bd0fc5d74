#ifndef PURSE_CLIBPQ_SHIM_H
#define PURSE_CLIBPQ_SHIM_H

#include <libpq-fe.h>
#include <postgres_ext.h>

/* The PG_DIAG_* field codes are character macros that Swift does not import. */
static inline int purse_diag_sqlstate(void) { return PG_DIAG_SQLSTATE; }
static inline int purse_diag_message_primary(void) { return PG_DIAG_MESSAGE_PRIMARY; }
static inline int purse_diag_message_detail(void) { return PG_DIAG_MESSAGE_DETAIL; }
static inline int purse_diag_constraint_name(void) { return PG_DIAG_CONSTRAINT_NAME; }

/* A notice processor that drops server notices instead of printing them to stderr. */
static inline void purse_ignore_notice(void *arg, const char *message) { (void)arg; (void)message; }
static inline void purse_silence_notices(PGconn *conn) {
    PQsetNoticeProcessor(conn, purse_ignore_notice, NULL);
}

#endif
