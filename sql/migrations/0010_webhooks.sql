-- Webhook endpoints and their deliveries. The signing secret (whsec_...) is derived from the
-- master key and the endpoint id, never stored.
CREATE TABLE webhook_endpoints (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    url text NOT NULL,
    enabled_events text[] NOT NULL,
    description text,
    metadata jsonb NOT NULL DEFAULT '{}',
    api_version text,
    status text NOT NULL CHECK (status IN ('enabled', 'disabled'))
);

CREATE INDEX webhook_endpoints_enabled ON webhook_endpoints (account_id) WHERE status = 'enabled';
CREATE INDEX webhook_endpoints_list ON webhook_endpoints (account_id, created DESC, seq DESC);

-- One delivery per event and endpoint, made in the event's own transaction (so a rolled-back
-- change delivers nothing). A server claims a due delivery for one attempt at a time.
CREATE TABLE webhook_deliveries (
    seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id text NOT NULL REFERENCES events (id),
    state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    claimed_until timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (endpoint_id, event_id)
);

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id) WHERE state = 'pending';

-- Every attempt, for GET /v1/webhook_endpoints/{id}/deliveries.
CREATE TABLE webhook_attempts (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id text NOT NULL REFERENCES events (id),
    created bigint NOT NULL,
    status_code integer,
    duration_ms integer NOT NULL,
    error text,
    next_retry_at bigint
);

CREATE INDEX webhook_attempts_list ON webhook_attempts (endpoint_id, created DESC, seq DESC);
