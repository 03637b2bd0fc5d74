-- The secrets root, sealed under each master key instances may hold. Every derived secret
-- (client secrets, page tokens, webhook signing secrets, fingerprints, sealed responses) comes
-- from the root, which never changes; rotating the master key adds a seal under the new key, and
-- retiring the old key deletes its seal (docs/operations.md). Holds nothing of any one account.
CREATE TABLE master_key_seals (
    -- 16 hex characters of an HMAC under the master key: names the key, reveals nothing of it.
    key_id text PRIMARY KEY CHECK (key_id ~ '^[0-9a-f]{16}$'),
    -- AES-GCM (nonce, ciphertext, tag) of the root under a key derived from the master key.
    sealed_root bytea NOT NULL,
    created bigint NOT NULL
);
