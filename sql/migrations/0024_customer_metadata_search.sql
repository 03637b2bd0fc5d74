-- metadata['key']:'value' is an exact match, case-insensitive. The GIN index of 0021 holds the
-- documents' keys, which narrows nothing when most customers have the key (a user id, say): the
-- clause then read every customer of the account. This index holds each document with its values
-- lower-cased, so the clause is a containment the index answers directly.
CREATE FUNCTION metadata_folded(metadata jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    RETURN (SELECT coalesce(jsonb_object_agg(key, lower(value)), '{}'::jsonb) FROM jsonb_each_text(metadata));

DROP INDEX customers_search_metadata;
CREATE INDEX customers_search_metadata ON customers USING gin (metadata_folded(metadata) jsonb_path_ops) WHERE NOT deleted;
