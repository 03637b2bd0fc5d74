-- Sheet settings (spec §4): which billing details a sheet collects, which saved methods it shows,
-- what it may add, and whether a re-entered card reuses the saved one. Every account has one
-- default; setup intents, ephemeral keys and customer sessions may name another.
CREATE TABLE customer_sheet_settings (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    name text,
    is_default boolean NOT NULL DEFAULT false,
    payment_method_types text[] NOT NULL,
    billing_details_collection jsonb NOT NULL,
    default_billing_details jsonb NOT NULL,
    saved_payment_method_filter jsonb NOT NULL,
    duplicate_cards text NOT NULL CHECK (duplicate_cards IN ('allow', 'reuse')),
    UNIQUE (id, account_id)
);

CREATE UNIQUE INDEX customer_sheet_settings_one_default ON customer_sheet_settings (account_id) WHERE is_default;
CREATE INDEX customer_sheet_settings_list ON customer_sheet_settings (account_id, created DESC, seq DESC);

-- Deleting settings sends what named them back to the account's default.
ALTER TABLE setup_intents ADD COLUMN sheet_settings_id text REFERENCES customer_sheet_settings (id) ON DELETE SET NULL;
-- Whether the pending confirmation came from a client credential, whose rules (duplicate cards)
-- still apply when the customer finishes 3D Secure on Purse's page; the secret key is never restricted.
ALTER TABLE setup_intents ADD COLUMN confirmed_by_client boolean NOT NULL DEFAULT false;
ALTER TABLE ephemeral_keys ADD COLUMN sheet_settings_id text REFERENCES customer_sheet_settings (id) ON DELETE SET NULL;
ALTER TABLE customer_sessions ADD COLUMN sheet_settings_id text REFERENCES customer_sheet_settings (id) ON DELETE SET NULL;

-- Accounts made before this migration get their default, with the initial values.
INSERT INTO customer_sheet_settings (id, account_id, created, is_default, payment_method_types,
                                     billing_details_collection, default_billing_details, saved_payment_method_filter,
                                     duplicate_cards)
SELECT 'css_' || substr(md5(random()::text || id), 1, 24), id, extract(epoch FROM now())::bigint, true,
       '{card,us_bank_account,sepa_debit}',
       '{"name": "automatic", "email": "automatic", "phone": "automatic", "address": "automatic", "attach_defaults_to_payment_method": false}',
       '{"name": null, "email": null, "phone": null, "address": {"city": null, "country": null, "line1": null, "line2": null, "postal_code": null, "state": null}}',
       '{"card": {"funding": [], "brands": []}, "hide_expired": false, "allow_redisplay": [], "countries": []}',
       'allow'
FROM accounts;
