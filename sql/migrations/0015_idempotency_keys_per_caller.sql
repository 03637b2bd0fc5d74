-- Idempotency keys belong to their caller (spec §5): an account's server, its publishable key and
-- each customer's devices have key spaces of their own, so no caller can collide with, or learn
-- of, another caller's request through a key.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (account_id, caller, key);
