-- Financial Connections sessions: a customer linking a US bank account for a setup intent
-- (stripe-ios) or for an intent not created yet (stripe-android), and the account linked. The
-- client secret and the test-bank page's token are derived from the master key and the id,
-- never stored; of the account, only what a us_bank_account payment method shows is kept:
-- routing number, last four digits, fingerprint, and the processor's reference.
CREATE TABLE financial_connections_sessions (
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    customer_id text REFERENCES customers (id),
    setup_intent_id text REFERENCES setup_intents (id),
    unique_id text,
    hosted_surface text,
    status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'cancelled')),
    app_id text,
    linked_account_id text UNIQUE,
    linked_account_created bigint,
    institution_name text,
    display_name text,
    last4 text,
    routing_number text,
    subcategory text CHECK (subcategory IN ('checking', 'savings')),
    fingerprint text,
    processor_reference text,
    -- A session has linked an account exactly when it succeeded.
    CHECK ((status = 'succeeded') = (linked_account_id IS NOT NULL)),
    CHECK (linked_account_id IS NULL OR num_nulls(linked_account_created, institution_name, display_name, last4,
                                                  routing_number, subcategory, fingerprint, processor_reference) = 0)
);
