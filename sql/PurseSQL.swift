/// Purse's schema: the numbered files in `migrations/`, compiled into the binary so `purse`
/// works from any directory. Add a file there and a line here; a test checks they agree.
public enum PurseSQL {
    /// Every migration as (file name, SQL), in order.
    public static let files: [(name: String, sql: String)] = [
        ("0001_accounts.sql", text(PackageResources._001_accounts_sql)),
        ("0002_api_keys.sql", text(PackageResources._002_api_keys_sql)),
        ("0003_customers.sql", text(PackageResources._003_customers_sql)),
        ("0004_events.sql", text(PackageResources._004_events_sql)),
        ("0005_idempotency_keys.sql", text(PackageResources._005_idempotency_keys_sql)),
        ("0006_payment_methods.sql", text(PackageResources._006_payment_methods_sql)),
        ("0007_ephemeral_keys_and_setup_intents.sql", text(PackageResources._007_ephemeral_keys_and_setup_intents_sql)),
        ("0008_customer_sessions.sql", text(PackageResources._008_customer_sessions_sql)),
        ("0009_customer_sheet_settings.sql", text(PackageResources._009_customer_sheet_settings_sql)),
        ("0010_webhooks.sql", text(PackageResources._010_webhooks_sql)),
        ("0011_webhook_deliveries_failed.sql", text(PackageResources._011_webhook_deliveries_failed_sql)),
        ("0012_change_notifications.sql", text(PackageResources._012_change_notifications_sql)),
        ("0013_payment_method_documents_as_written.sql", text(PackageResources._013_payment_method_documents_as_written_sql)),
        ("0014_announce_every_credential_change.sql", text(PackageResources._014_announce_every_credential_change_sql)),
        ("0015_idempotency_keys_per_caller.sql", text(PackageResources._015_idempotency_keys_per_caller_sql)),
        ("0016_webhook_attempt_failure_classes.sql", text(PackageResources._016_webhook_attempt_failure_classes_sql)),
        ("0017_confirmation_settings.sql", text(PackageResources._017_confirmation_settings_sql)),
        ("0018_idempotency_keys_answered_only.sql", text(PackageResources._018_idempotency_keys_answered_only_sql)),
        ("0019_financial_connections_sessions.sql", text(PackageResources._019_financial_connections_sessions_sql)),
        ("0020_master_key_seals.sql", text(PackageResources._020_master_key_seals_sql)),
        ("0021_customer_search.sql", text(PackageResources._021_customer_search_sql)),
        ("0022_billing_details_tax_id.sql", text(PackageResources._022_billing_details_tax_id_sql)),
        ("0023_setup_intent_options.sql", text(PackageResources._023_setup_intent_options_sql)),
        ("0024_customer_metadata_search.sql", text(PackageResources._024_customer_metadata_search_sql)),
        ("0025_billing_portal.sql", text(PackageResources._025_billing_portal_sql)),
        ("0026_test_clocks.sql", text(PackageResources._026_test_clocks_sql)),
        ("0027_test_clock_advances.sql", text(PackageResources._027_test_clock_advances_sql)),
        ("0028_time_on_test_clocks.sql", text(PackageResources._028_time_on_test_clocks_sql)),
    ]

    private static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}
