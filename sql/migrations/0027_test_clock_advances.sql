-- An advance is finished by whichever server hears of it first, once the transaction that
-- started it commits (a server that answered the advance inside an idempotency key's transaction
-- could not finish it before then): the statement that starts it announces it.
CREATE TRIGGER test_clocks_advancing AFTER UPDATE ON test_clocks FOR EACH ROW
    WHEN (OLD.advancing_to IS NULL AND NEW.advancing_to IS NOT NULL)
    EXECUTE FUNCTION purse_notify_change('test_clock_advances');
