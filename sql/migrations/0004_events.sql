-- The event outbox: every change records its event in the change's own transaction, so a
-- rolled-back change emits nothing. `data` is {object, previous_attributes?}.
CREATE TABLE events (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    type text NOT NULL,
    api_version text NOT NULL,
    -- json, not jsonb: the object keeps its key order, as the API shows it.
    data json NOT NULL,
    request_id text,
    idempotency_key text
);

CREATE INDEX events_list ON events (account_id, created DESC, seq DESC);
CREATE INDEX events_by_type ON events (account_id, type, created DESC, seq DESC);
