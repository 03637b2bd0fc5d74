-- A payment method's documents (billing details, metadata, the type's details) are only ever
-- written whole and read whole, never queried inside. As `json` PostgreSQL keeps the text Purse
-- wrote, so a list copies it into the response instead of decoding and encoding every method.
-- Rows written before this keep jsonb's rendering of the same document (key order and spacing
-- differ, the JSON is equal).
ALTER TABLE payment_methods ALTER COLUMN metadata DROP DEFAULT;
ALTER TABLE payment_methods
    ALTER COLUMN billing_details TYPE json USING billing_details::json,
    ALTER COLUMN metadata TYPE json USING metadata::json,
    ALTER COLUMN details TYPE json USING details::json;
ALTER TABLE payment_methods ALTER COLUMN metadata SET DEFAULT '{}';
