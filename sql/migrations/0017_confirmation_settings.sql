-- The sheet settings a client's confirmation ran under (its key's or session's own, else the
-- intent's, else the account's default), so that a confirmation finished on the authentication
-- page keeps them. NULL with confirmed_by_client: settings deleted since; the default applies.
ALTER TABLE setup_intents ADD COLUMN confirmation_settings_id text
    REFERENCES customer_sheet_settings (id) ON DELETE SET NULL;

-- Confirmations pending at the upgrade were to finish under the intent's settings.
UPDATE setup_intents SET confirmation_settings_id = sheet_settings_id
WHERE confirmed_by_client AND status = 'requires_action';
