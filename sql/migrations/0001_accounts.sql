-- Accounts own everything: every other table carries account_id.
CREATE TABLE accounts (
    id text PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    -- Unix seconds, as the API shows it.
    created bigint NOT NULL,
    -- The account `purse serve` makes for itself in local-default mode.
    is_development boolean NOT NULL DEFAULT false
);

-- At most one development account per database.
CREATE UNIQUE INDEX accounts_one_development ON accounts (is_development) WHERE is_development;
