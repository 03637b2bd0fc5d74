-- A key is now kept only with its answer, in the transaction of the request's effects: a
-- request that is still running holds a transaction-scoped advisory lock instead of a row with
-- a lease. Keys left in flight by an older server answered nothing and changed nothing they
-- could replay, so they go.
DELETE FROM idempotency_keys WHERE state <> 'done';
ALTER TABLE idempotency_keys
    DROP COLUMN state,
    DROP COLUMN lease_expires_at,
    ALTER COLUMN status SET NOT NULL,
    ALTER COLUMN response SET NOT NULL;
