-- A setup intent of a customer on a test clock ages by that clock, not by the wall: its waits
-- for a payment method, an authentication or microdeposits end when an advance moves the clock
-- past them. clock_updated_at is the clock's time at the intent's last change (null for one
-- written while its customer was on no clock); microdeposits' sent_at is written in the same time.
ALTER TABLE setup_intents ADD COLUMN clock_updated_at bigint;

UPDATE setup_intents si
SET clock_updated_at = t.frozen_time,
    microdeposits = si.microdeposits || jsonb_build_object('sent_at', t.frozen_time, 'arrival_date', t.frozen_time + 172800)
FROM customers c JOIN test_clocks t ON t.id = c.test_clock AND t.account_id = c.account_id
WHERE c.id = si.customer_id AND c.account_id = si.account_id;

-- The intents an advance looks at: a clock's customers' still waiting.
CREATE INDEX setup_intents_waiting_by_customer ON setup_intents (customer_id)
    WHERE status IN ('requires_payment_method', 'requires_action');

-- An existing customer can be put on a new clock (`customer` on the clock's creation): servers
-- keep its credentials in memory with its time, which is now the clock's.
CREATE TRIGGER customers_on_test_clock AFTER UPDATE ON customers FOR EACH ROW
    WHEN (OLD.test_clock IS DISTINCT FROM NEW.test_clock)
    EXECUTE FUNCTION purse_notify_change('credentials');
