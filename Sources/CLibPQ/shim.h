#ifndef PURSE_CLIBPQ_SHIM_H
#define PURSE_CLIBPQ_SHIM_H

#include <libpq-fe.h>
#include <postgres_ext.h>
#include <openssl/ssl.h>

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

/* Whether OpenSSL holds bytes it has decrypted and libpq has not read yet. The socket does not
   report those as readable, so a wait on it must not start while there are any; libpq's own
   waits check the same (pgtls_read_pending). */
static inline int purse_tls_read_pending(PGconn *conn) {
    if (!PQsslInUse(conn)) return 0;
    SSL *ssl = (SSL *)PQsslStruct(conn, "OpenSSL");
    return ssl != NULL && SSL_pending(ssl) > 0;
}

#endif
