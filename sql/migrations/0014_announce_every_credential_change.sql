-- The caches hold whole rows of keys and sessions, found by their hashes (ChangeCache), so any
-- change to such a row must empty them: an operator's SQL that moves a session to another
-- customer, or replaces a key's hash, is announced as a revocation is. Purse itself only ever
-- revokes, and nothing updates these rows routinely, so announcing every change costs nothing.
DROP TRIGGER api_keys_changed ON api_keys;
CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION purse_notify_change('credentials');

DROP TRIGGER ephemeral_keys_changed ON ephemeral_keys;
CREATE TRIGGER ephemeral_keys_changed AFTER UPDATE ON ephemeral_keys FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION purse_notify_change('credentials');

DROP TRIGGER customer_sessions_changed ON customer_sessions;
CREATE TRIGGER customer_sessions_changed AFTER UPDATE ON customer_sessions FOR EACH ROW
    WHEN (OLD.* IS DISTINCT FROM NEW.*)
    EXECUTE FUNCTION purse_notify_change('credentials');
