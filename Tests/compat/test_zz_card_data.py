"""No card data at rest or in logs. Named to run last: after every other compat test of the
session has sent its card numbers, CVCs, IBANs and account numbers (recorded by conftest's
RecordingHTTPClient in SENT_CARD_DATA), the whole database (pg_dump), the server's log and every
file of its data folder (PostgreSQL's tables, WAL and logs) must hold none of them."""
import datetime
import pathlib
import re

import pytest

from conftest import SECRETS_SEEN, SENT_CARD_DATA, pg_dump

# The numbers behind the test tokens the suite uses, which the server looks up itself.
TOKEN_NUMBERS = {
    "pm_card_visa": "4242424242424242",
    "tok_visa": "4242424242424242",
    "pm_card_mastercard": "5555555555554444",
    "pm_card_amex": "378282246310005",
    "tok_mastercard": "5555555555554444",
    "tok_amex": "378282246310005",
    "pm_card_chargeDeclined": "4000000000000002",
    "pm_card_authenticationRequired": "4000002760003184",
    "pm_usBankAccount_success": "000123456789",
    "pm_sepaDebit_success": "DE89370400440532013000",
}

# Sent by this module itself, so the check is meaningful even when it runs alone.
OWN_CARD = {"number": "4000056655665556", "exp_month": 7, "exp_year": datetime.date.today().year + 4, "cvc": "052"}


@pytest.fixture(scope="module")
def own_method(purse):
    """A visa debit card, sent with number and CVC, attached to a customer."""
    client = purse.client(purse.create_account(name="Card data")["secret_key"], max_network_retries=0)
    customer = client.v1.customers.create().id
    method = client.v1.payment_methods.create(params={"type": "card", "card": OWN_CARD})
    client.v1.payment_methods.attach(method.id, params={"customer": customer})
    return method


@pytest.fixture(scope="module")
def dump(purse, own_method):
    return pg_dump(purse)


def full_values():
    """Every card number, IBAN and US account number sent in this session, with those behind tokens."""
    unknown = SENT_CARD_DATA.tokens - TOKEN_NUMBERS.keys()
    assert not unknown, f"add the numbers behind {sorted(unknown)} to TOKEN_NUMBERS"
    values = set(SENT_CARD_DATA.card_numbers) | SENT_CARD_DATA.ibans | SENT_CARD_DATA.account_numbers
    values |= {re.sub(r"[ -]", "", number) for number in SENT_CARD_DATA.card_numbers}
    values |= {TOKEN_NUMBERS[token] for token in SENT_CARD_DATA.tokens}
    return values


def cvc_as_a_value(cvc):
    """A CVC standing alone as a value: a form value (`card[cvc]=052`), a JSON string (`"052"`), a
    whole COPY field or a word in a log line, but not digits inside an id, hash or timestamp."""
    return re.compile(r"(?:^|(?<=[\t \"'=]))" + re.escape(cvc) + r"(?=$|[\t \"'&,}\]])", re.MULTILINE)


def leaks(text):
    """What of the session's card data appears in the text."""
    found = sorted(value for value in full_values() if value in text)
    found += sorted(f"CVC {cvc}" for cvc in SENT_CARD_DATA.cvcs if cvc_as_a_value(cvc).search(text))
    return found


def test_the_suite_sent_card_data_and_only_distinctive_cvcs(own_method):
    assert OWN_CARD["number"] in SENT_CARD_DATA.card_numbers and OWN_CARD["cvc"] in SENT_CARD_DATA.cvcs
    plain = [cvc for cvc in SENT_CARD_DATA.cvcs if not re.fullmatch(r"0\d{2,3}", cvc)]
    assert not plain, f"CVCs {plain} could match an id or count by chance: use CVCs starting with 0"


def test_the_database_holds_no_card_data(dump, own_method):
    assert own_method.id in dump, "the dump must contain the payment methods, or the check proves nothing"
    assert '"last4":"5556"' in dump
    assert leaks(dump) == []


def test_the_server_log_holds_no_card_data(purse, own_method):
    log = purse.log_text()
    assert "req_" in log, "the log must record requests, or the check proves nothing"
    assert leaks(log) == []


def test_no_file_of_the_data_folder_holds_card_data(purse, own_method):
    """PostgreSQL's table files, WAL and its own logs too: a value written once and deleted later
    would still be there."""
    values = full_values()
    found = {}
    for path in pathlib.Path(purse.data).rglob("*"):
        if path.is_file() and not path.is_symlink():
            content = path.read_bytes()
            hits = [value for value in values if value.encode() in content]
            if hits:
                found[str(path.relative_to(purse.data))] = sorted(hits)
    assert found == {}


def secret_leaks(text):
    """Which of the keys and secrets the session saw appear in the text."""
    return sorted(secret[:12] + "..." for secret in SECRETS_SEEN if secret in text)


def test_no_key_or_secret_is_kept_in_clear(request, purse, dump, own_method):
    """API keys, ephemeral-key secrets, customer-session secrets, setup-intent client secrets and
    webhook signing secrets: in the dump, the server's logs and the data folder's files, none.
    Every kind the session's tests handle must have been seen (webhook secrets only where the
    webhook tests ran: the replays stage runs this file without them)."""
    kinds = {secret.split("_")[0] + ("_secret" if "_secret_" in secret else "") for secret in SECRETS_SEEN}
    expected = {"sk", "pk", "ek", "cuss_secret", "seti_secret"}
    if any(item.module.__name__ == "test_webhooks" for item in request.session.items):
        expected.add("whsec")
    assert expected <= kinds, f"the suite saw only {sorted(kinds)}"
    assert secret_leaks(dump) == []
    assert secret_leaks(purse.log_text()) == []
    found = {}
    for path in pathlib.Path(purse.data).rglob("*"):
        if path.is_file() and not path.is_symlink():
            content = path.read_bytes()
            hits = [secret[:12] + "..." for secret in SECRETS_SEEN if secret.encode() in content]
            if hits:
                found[str(path.relative_to(purse.data))] = sorted(hits)
    assert found == {}
