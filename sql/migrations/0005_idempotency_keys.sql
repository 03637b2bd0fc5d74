-- Idempotency keys, per account and caller. The request's parameters are kept only as a hash;
-- the stored response is sealed with AES-GCM under a key derived from the master key.
CREATE TABLE idempotency_keys (
    account_id text NOT NULL REFERENCES accounts (id),
    key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
    -- Who used the key: 'account', or the customer a client credential acts for.
    caller text NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    params_hash bytea NOT NULL,
    state text NOT NULL CHECK (state IN ('in_flight', 'done')),
    -- While in flight: when the running request is presumed dead and the key may be taken over.
    lease_expires_at timestamptz,
    status integer,
    response bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, key)
);

CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
