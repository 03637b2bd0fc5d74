-- payment_method_options as a setup intent was given them (NULL: Stripe's defaults), and the
-- microdeposits a bank account's setup waits for (NULL when it waits for none).
ALTER TABLE setup_intents
    ADD COLUMN payment_method_options jsonb,
    ADD COLUMN microdeposits jsonb;

-- What a Financial Connections session asks for (permissions, prefetch, return_url, account
-- subcategories), taken from its setup intent's options; NULL: the defaults.
ALTER TABLE financial_connections_sessions ADD COLUMN link_options jsonb;
