-- Failed deliveries, counted by GET /metrics at every scrape: deliveries are kept forever, so
-- without this the count would read the whole table. Failures are few, and so is this index.
CREATE INDEX webhook_deliveries_failed ON webhook_deliveries (seq) WHERE state = 'failed';
