-- billing_details.tax_id, in Stripe's payment methods since API 2025-04-30: null on every
-- payment method already saved, as on those saved from now on. Lists copy the stored text.
UPDATE payment_methods
SET billing_details = (billing_details::jsonb || '{"tax_id": null}')::json
WHERE NOT billing_details::jsonb ? 'tax_id';
