-- A delivery attempt's `error` holds a failure class, never the network's own error text, which
-- let a tenant map the operator's network. The text recorded before becomes its class.
UPDATE webhook_attempts SET error = CASE
    WHEN error = 'timed out' THEN 'timeout'
    WHEN error = 'host not found' THEN 'dns_failure'
    WHEN error = 'invalid URL' THEN 'destination_not_allowed'
    -- URLSession's TLS errors (NSURLErrorSecureConnectionFailed and its neighbours, -1200...-1206).
    WHEN error LIKE 'network error -120_' THEN 'tls_failure'
    ELSE 'connection_failed'
END
WHERE error IS NOT NULL;

ALTER TABLE webhook_attempts ADD CONSTRAINT webhook_attempts_error_class CHECK (
    error IN (
        'destination_not_allowed', 'dns_failure', 'connection_failed', 'tls_failure', 'timeout', 'invalid_response'
    )
);
