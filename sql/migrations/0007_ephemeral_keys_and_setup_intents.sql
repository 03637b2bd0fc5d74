-- Ephemeral keys: a customer's device credential. Only the secret's SHA-256 hash is kept.
CREATE TABLE ephemeral_keys (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    customer_id text NOT NULL REFERENCES customers (id),
    secret_hash bytea NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
    created bigint NOT NULL,
    expires bigint NOT NULL,
    revoked_at timestamptz
);

CREATE INDEX ephemeral_keys_by_customer ON ephemeral_keys (account_id, customer_id) WHERE revoked_at IS NULL;
CREATE INDEX ephemeral_keys_by_expiry ON ephemeral_keys (expires);

-- Setup intents. The client secret is derived from the master key and the id, never stored;
-- so is the 3D Secure page's token (from the id and `authentication_attempt`).
CREATE TABLE setup_intents (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    customer_id text REFERENCES customers (id),
    status text NOT NULL CHECK (status IN ('requires_payment_method', 'requires_confirmation', 'requires_action',
                                           'processing', 'canceled', 'succeeded')),
    usage text NOT NULL CHECK (usage IN ('on_session', 'off_session')),
    payment_method_types text[] NOT NULL,
    payment_method_id text REFERENCES payment_methods (id),
    description text,
    metadata jsonb NOT NULL DEFAULT '{}',
    return_url text,
    cancellation_reason text,
    last_setup_error jsonb,
    -- The mandate a bank debit's confirmation recorded: {id, customer_acceptance}.
    mandate jsonb,
    authentication_attempt integer NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX setup_intents_list ON setup_intents (account_id, created DESC, seq DESC);
CREATE INDEX setup_intents_abandoned ON setup_intents (updated_at) WHERE status IN ('requires_payment_method', 'requires_action');
