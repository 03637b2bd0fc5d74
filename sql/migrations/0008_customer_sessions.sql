-- Customer sessions. The client secret (cuss_secret_...) is kept as a SHA-256 hash; so is the
-- ephemeral key the session hands out, which is derived from the master key and the session id,
-- stored only so a request presenting it can be matched to its session.
CREATE TABLE customer_sessions (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    customer_id text NOT NULL REFERENCES customers (id),
    client_secret_hash bytea NOT NULL UNIQUE CHECK (length(client_secret_hash) = 32),
    api_key_hash bytea NOT NULL UNIQUE CHECK (length(api_key_hash) = 32),
    components jsonb NOT NULL,
    created bigint NOT NULL,
    expires_at bigint NOT NULL,
    revoked_at timestamptz
);

CREATE INDEX customer_sessions_by_customer ON customer_sessions (account_id, customer_id) WHERE revoked_at IS NULL;
CREATE INDEX customer_sessions_by_expiry ON customer_sessions (expires_at);
