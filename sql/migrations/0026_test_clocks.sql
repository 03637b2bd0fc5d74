-- Test clocks (test_helpers.test_clock): a frozen time, moved only forward, that customers
-- created on it live by. advancing_to is set while an advance runs (status `advancing`); the
-- advance is finished by whichever instance sweeps first (TestClockAdvancer), so one that
-- stopped midway is finished by another. A deleted clock keeps its row, so the tombstones of
-- its customers still name it.
CREATE TABLE test_clocks (
    seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    id text PRIMARY KEY,
    account_id text NOT NULL REFERENCES accounts (id),
    created bigint NOT NULL,
    name text,
    -- The frozen time the clock was created at: advances reach at most two years past it.
    initial_frozen_time bigint NOT NULL,
    frozen_time bigint NOT NULL,
    advancing_to bigint CHECK (advancing_to > frozen_time),
    deletes_after bigint NOT NULL,
    deleted boolean NOT NULL DEFAULT false,
    UNIQUE (id, account_id)
);

CREATE INDEX test_clocks_list ON test_clocks (account_id, created DESC, seq DESC) WHERE NOT deleted;
CREATE INDEX test_clocks_advancing ON test_clocks (id) WHERE advancing_to IS NOT NULL AND NOT deleted;
CREATE INDEX test_clocks_expiring ON test_clocks (deletes_after) WHERE NOT deleted;

-- A customer lives on at most one clock, of its own account, for good.
ALTER TABLE customers ADD COLUMN test_clock text;
ALTER TABLE customers ADD FOREIGN KEY (test_clock, account_id) REFERENCES test_clocks (id, account_id);
CREATE INDEX customers_on_test_clock ON customers (test_clock) WHERE test_clock IS NOT NULL AND NOT deleted;

-- Servers keep credentials in memory with their customer's clock time (ChangeCache): an advance
-- tells every server to forget them.
CREATE TRIGGER test_clocks_moved AFTER UPDATE ON test_clocks FOR EACH ROW
    WHEN (OLD.frozen_time IS DISTINCT FROM NEW.frozen_time OR OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION purse_notify_change('credentials');
