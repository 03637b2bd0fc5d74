-- Customers. `seq` orders objects created in the same second (lists are newest first by
-- created, then seq). A deleted customer keeps only its id, as a tombstone.
CREATE TABLE customers (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    email text,
    name text,
    phone text,
    description text,
    address jsonb,
    shipping jsonb,
    metadata jsonb NOT NULL DEFAULT '{}',
    preferred_locales text[] NOT NULL DEFAULT '{}',
    invoice_prefix text NOT NULL,
    -- The payment method used by default; its constraint arrives with payment methods.
    default_payment_method text,
    deleted boolean NOT NULL DEFAULT false
);

CREATE INDEX customers_list ON customers (account_id, created DESC, seq DESC) WHERE NOT deleted;
CREATE INDEX customers_by_email ON customers (account_id, email, created DESC, seq DESC) WHERE NOT deleted;
