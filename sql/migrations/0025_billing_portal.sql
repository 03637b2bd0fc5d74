-- The customer portal (billing_portal): configurations, one of them each account's default, and
-- the sessions whose URL opens a customer's payment-method pages. A session's URL token is never
-- stored: it is derived from the master key and the session's id (DerivedSecrets), so a row
-- holds nothing that opens the page.
CREATE TABLE billing_portal_configurations (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    updated bigint NOT NULL,
    is_default boolean NOT NULL DEFAULT false,
    active boolean NOT NULL DEFAULT true,
    name text,
    default_return_url text,
    business_profile jsonb NOT NULL,
    payment_method_update boolean NOT NULL,
    metadata jsonb NOT NULL DEFAULT '{}',
    UNIQUE (id, account_id)
);

CREATE UNIQUE INDEX billing_portal_configurations_one_default ON billing_portal_configurations (account_id) WHERE is_default;
CREATE INDEX billing_portal_configurations_list ON billing_portal_configurations (account_id, created DESC, seq DESC);

-- Portal sessions open for five minutes until first visited, then for an hour after the latest
-- visit (last_active), and a day at most (Purse's choice, PortalSessionLifetime); revoked_at
-- ends one sooner.
CREATE TABLE billing_portal_sessions (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    customer_id text NOT NULL REFERENCES customers (id),
    configuration_id text NOT NULL REFERENCES billing_portal_configurations (id),
    created bigint NOT NULL,
    last_active bigint,
    revoked_at bigint,
    completed_at bigint,
    locale text,
    return_url text,
    flow jsonb
);

CREATE INDEX billing_portal_sessions_by_customer ON billing_portal_sessions (customer_id);
