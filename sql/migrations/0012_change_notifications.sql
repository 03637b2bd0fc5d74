-- Servers keep credentials and sheet settings in memory (ChangeCache). Whatever changes them,
-- purse or an operator's SQL, tells every server through NOTIFY purse_changes in the changing
-- transaction, delivered when it commits. The payload names what to forget.
CREATE FUNCTION purse_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('purse_changes', TG_ARGV[0]);
    RETURN NULL;
END
$$;

-- Rows removed by a statement, told once per statement and only when there were some (the
-- sweeps of long-expired keys usually remove none).
CREATE FUNCTION purse_notify_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM removed) THEN
        PERFORM pg_notify('purse_changes', TG_ARGV[0]);
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_changed AFTER UPDATE ON api_keys FOR EACH ROW
    WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.kind IS DISTINCT FROM NEW.kind
          OR OLD.account_id IS DISTINCT FROM NEW.account_id)
    EXECUTE FUNCTION purse_notify_change('credentials');
CREATE TRIGGER api_keys_removed AFTER DELETE ON api_keys REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION purse_notify_removed('credentials');

CREATE TRIGGER ephemeral_keys_changed AFTER UPDATE ON ephemeral_keys FOR EACH ROW
    WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires IS DISTINCT FROM NEW.expires
          OR OLD.sheet_settings_id IS DISTINCT FROM NEW.sheet_settings_id)
    EXECUTE FUNCTION purse_notify_change('credentials');
CREATE TRIGGER ephemeral_keys_removed AFTER DELETE ON ephemeral_keys REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION purse_notify_removed('credentials');

CREATE TRIGGER customer_sessions_changed AFTER UPDATE ON customer_sessions FOR EACH ROW
    WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
          OR OLD.components IS DISTINCT FROM NEW.components OR OLD.sheet_settings_id IS DISTINCT FROM NEW.sheet_settings_id)
    EXECUTE FUNCTION purse_notify_change('credentials');
CREATE TRIGGER customer_sessions_removed AFTER DELETE ON customer_sessions REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION purse_notify_removed('credentials');

-- A deleted customer's keys and sessions stop working.
CREATE TRIGGER customers_deleted AFTER UPDATE ON customers FOR EACH ROW
    WHEN (OLD.deleted IS DISTINCT FROM NEW.deleted)
    EXECUTE FUNCTION purse_notify_change('credentials');
CREATE TRIGGER customers_removed AFTER DELETE ON customers REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION purse_notify_removed('credentials');

CREATE TRIGGER customer_sheet_settings_changed AFTER INSERT OR UPDATE OR DELETE ON customer_sheet_settings
    FOR EACH STATEMENT EXECUTE FUNCTION purse_notify_change('sheet_settings');
