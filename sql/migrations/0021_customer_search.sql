-- Customer search (`GET /v1/customers/search`). Email, name and phone are compared lower-cased,
-- by whole words (`:`) or substrings (`~`): trigram indexes find both without reading every
-- customer of the account. metadata['key'] clauses use the GIN index on the document's keys.
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension, so the database's owner,
-- who runs the migrations, may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE INDEX customers_search_email ON customers USING gin (lower(email) gin_trgm_ops) WHERE NOT deleted;
CREATE INDEX customers_search_name ON customers USING gin (lower(name) gin_trgm_ops) WHERE NOT deleted;
CREATE INDEX customers_search_phone ON customers USING gin (lower(phone) gin_trgm_ops) WHERE NOT deleted;
CREATE INDEX customers_search_metadata ON customers USING gin (metadata) WHERE NOT deleted;
