-- Secret (sk_test_...) and publishable (pk_test_...) keys. Only a SHA-256 hash of each key is
-- kept, plus its last four characters to tell keys apart in listings.
CREATE TABLE api_keys (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    kind text NOT NULL CHECK (kind IN ('secret', 'publishable')),
    secret_hash bytea NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
    last4 text NOT NULL,
    created bigint NOT NULL,
    revoked_at timestamptz
);

CREATE INDEX api_keys_by_account ON api_keys (account_id, created);
