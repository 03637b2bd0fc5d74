-- Payment methods. Never a card number, CVC, full account number or IBAN: `details` is the
-- type's hash as shown (brand, last4, expiry, bank codes, fingerprint), `processor_reference` the
-- processor's handle for later decisions. The filter columns copy what the sheet settings'
-- filters read.
CREATE TABLE payment_methods (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    type text NOT NULL CHECK (type IN ('card', 'us_bank_account', 'sepa_debit')),
    -- unattached → attached → detached; a detached method is never used again.
    state text NOT NULL DEFAULT 'unattached' CHECK (state IN ('unattached', 'attached', 'detached')),
    customer_id text REFERENCES customers (id),
    billing_details jsonb NOT NULL,
    allow_redisplay text NOT NULL CHECK (allow_redisplay IN ('always', 'limited', 'unspecified')),
    metadata jsonb NOT NULL DEFAULT '{}',
    details jsonb NOT NULL,
    processor_reference text NOT NULL,
    fingerprint text NOT NULL,
    card_brand text,
    card_funding text,
    card_exp_month integer,
    card_exp_year integer,
    country text,
    CHECK ((state = 'attached') = (customer_id IS NOT NULL)),
    UNIQUE (id, customer_id)
);

CREATE INDEX payment_methods_by_customer
    ON payment_methods (account_id, customer_id, created DESC, seq DESC) WHERE state = 'attached';

-- The default must be a method attached to the same customer. Checked at commit, so a detach
-- can clear the default in the same transaction; a concurrent "set default" and "detach" of one
-- method can never both commit.
ALTER TABLE customers
    ADD CONSTRAINT customers_default_is_attached
    FOREIGN KEY (default_payment_method, id) REFERENCES payment_methods (id, customer_id)
    DEFERRABLE INITIALLY DEFERRED;

-- The option the customer picked on any device (spec §4): the default payment method, Apple Pay,
-- Link, or none. At most one per customer, by construction.
ALTER TABLE customers
    ADD COLUMN selected_option text CHECK (selected_option IN ('payment_method', 'apple_pay', 'link')),
    ADD CONSTRAINT customers_selected_method_is_default
    CHECK (selected_option IS DISTINCT FROM 'payment_method' OR default_payment_method IS NOT NULL);
