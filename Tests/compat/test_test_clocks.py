"""Test clocks (`test_helpers.test_clock`, issue 34) through stripe-python 16.1.0, as an
integration test suite uses them to move a customer through time.

Read in stripe-python 16.1.0:
- `StripeClient.v1.test_helpers.test_clocks.create / retrieve / list / delete / advance`
  (`stripe/test_helpers/_test_clock_service.py`): POST and GET /v1/test_helpers/test_clocks,
  GET and DELETE /v1/test_helpers/test_clocks/{test_clock}, POST .../{test_clock}/advance.
- The legacy resource `stripe.test_helpers.TestClock` (`stripe/test_helpers/_test_clock.py`,
  OBJECT_NAME "test_helpers.test_clock"): `create`, `retrieve`, `list`, `delete` and `advance`, in
  class and instance forms.
- `StripeClient.v1.customers.create / list / retrieve` with `test_clock`, and `expand`.
- `TestClockCreateParams.customer` (`stripe/params/test_helpers/_test_clock_create_params.py`):
  "Existing customer this test clock will be attached to".

Beyond Stripe (Purse's choice, docs/test-clocks.md): a customer on a clock lives by its time. Its
ephemeral keys and customer sessions are created at the clock's time and expire by it (`expires`,
`expires_at`, the elements session's `api_key_expiry`), and the sheet settings' `hide_expired`
filter and the selected option's `unavailable_reason: expired` read the clock's month (a card
four years ahead, so the tests keep their meaning whatever the date); a new expiry of an attached
card is judged at the clock's time; setup intents are abandoned, and microdeposits time out, by
the clock's time. Ephemeral keys are asked for
with the Stripe-Version stripe-ios sends (2020-08-27); the elements session is fetched as
CustomerSheet fetches it (a GET with the publishable key and `customer_session_client_secret`,
through `raw_request`).

What the object holds is Stripe's (`stripe/openapi`, `test_helpers.test_clock`): created,
deletes_after (30 days after creation), frozen_time, livemode, name, status (advancing, ready,
internal_failure) and status_details ({} when ready, {advancing: {target_frozen_time}} while
advancing). An advance answers `advancing` and is `ready` moments later, so a test polls, as it
does against Stripe."""
import calendar
import datetime
import threading
import time

import pytest
import stripe

START = 1_700_000_000
DAY = 86_400
# A card must be unexpired by the wall clock to be saved: one expiring in June four years on,
# and a clock that starts in that June and is moved to mid-July.
CARD_YEAR = datetime.date.today().year + 4
JUNE_1 = calendar.timegm((CARD_YEAR, 6, 1, 0, 0, 0))
JULY_15 = calendar.timegm((CARD_YEAR, 7, 15, 0, 0, 0))
MOBILE_SDK_VERSION = "2020-08-27"  # what stripe-ios sends when it asks for an ephemeral key
KEY_LIFETIME = 3600  # purse serve's defaults
SESSION_LIFETIME = 1800
CLOCK_FIELDS = {"id", "object", "created", "deletes_after", "frozen_time", "livemode", "name", "status", "status_details"}


def error_of(raised):
    return raised.value.json_body["error"]


def wait_until_ready(client, clock_id, limit=30):
    """Polls the clock as a test suite does against Stripe, for at most `limit` seconds."""
    deadline = time.monotonic() + limit
    while True:
        clock = client.v1.test_helpers.test_clocks.retrieve(clock_id)
        if clock.status == "ready" or time.monotonic() > deadline:
            return clock
        time.sleep(0.1)


def advance(client, clock_id, frozen_time):
    client.v1.test_helpers.test_clocks.advance(clock_id, params={"frozen_time": frozen_time})
    ready = wait_until_ready(client, clock_id)
    assert (ready.status, ready.frozen_time) == ("ready", frozen_time)


def status_of(call):
    try:
        call()
        return 200, None
    except stripe.StripeError as error:
        return error.http_status, (error.json_body or {}).get("error", {}).get("code")


def test_a_clock_is_created_listed_and_retrieved(client):
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START, "name": "Annual renewal"})
    assert set(clock.to_dict()) == CLOCK_FIELDS
    assert clock.id.startswith("clock_") and clock.object == "test_helpers.test_clock"
    assert (clock.frozen_time, clock.name, clock.status, clock.livemode) == (START, "Annual renewal", "ready", False)
    assert clock.status_details.to_dict() == {}
    assert clock.deletes_after - clock.created == 30 * DAY
    assert client.v1.test_helpers.test_clocks.retrieve(clock.id).to_dict() == clock.to_dict()
    other = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    assert other.name is None
    listed = client.v1.test_helpers.test_clocks.list(params={"limit": 1})
    assert [c.id for c in listed.data] == [other.id] and listed.has_more
    assert [c.id for c in client.v1.test_helpers.test_clocks.list(params={"starting_after": other.id}).data] == [clock.id]
    created = client.v1.events.list(params={"type": "test_helpers.test_clock.created"}).data
    assert [e.data.object.id for e in created] == [other.id, clock.id]


def test_an_advance_answers_advancing_and_becomes_ready(client):
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    advancing = client.v1.test_helpers.test_clocks.advance(clock.id, params={"frozen_time": START + DAY})
    assert advancing.status == "advancing" and advancing.frozen_time == START
    assert advancing.status_details.advancing.target_frozen_time == START + DAY
    ready = wait_until_ready(client, clock.id)
    assert (ready.status, ready.frozen_time, ready.status_details.to_dict()) == ("ready", START + DAY, {})
    types = [e.type for e in client.v1.events.list().data if e.type.startswith("test_helpers.")]
    assert types == ["test_helpers.test_clock.ready", "test_helpers.test_clock.advancing", "test_helpers.test_clock.created"]


def test_a_clock_moves_only_forward_and_at_most_two_years(client):
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    for frozen_time in [START, START - DAY, START + 2 * 365 * DAY + 1]:
        with pytest.raises(stripe.InvalidRequestError) as refused:
            client.v1.test_helpers.test_clocks.advance(clock.id, params={"frozen_time": frozen_time})
        assert refused.value.http_status == 400 and error_of(refused)["param"] == "frozen_time"
    assert client.v1.test_helpers.test_clocks.retrieve(clock.id).frozen_time == START
    with pytest.raises(stripe.InvalidRequestError) as missing:
        client.v1.test_helpers.test_clocks.advance(clock.id, params={})
    assert error_of(missing)["code"] == "parameter_missing" and error_of(missing)["param"] == "frozen_time"
    with pytest.raises(stripe.InvalidRequestError) as unknown:
        client.v1.test_helpers.test_clocks.retrieve("clock_doesnotexist")
    assert unknown.value.http_status == 404 and error_of(unknown)["code"] == "resource_missing"


def test_customers_on_a_clock_take_its_time_and_stay_on_it(client):
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    plain = client.v1.customers.create(params={"name": "No clock"})
    assert plain.test_clock is None
    customer = client.v1.customers.create(params={"name": "On the clock", "test_clock": clock.id})
    assert customer.test_clock == clock.id and customer.created == START
    expanded = client.v1.customers.retrieve(customer.id, params={"expand": ["test_clock"]})
    assert expanded.test_clock.id == clock.id and expanded.test_clock.frozen_time == START
    # Listed only when asked for by their clock, as Stripe lists them.
    assert [c.id for c in client.v1.customers.list().data] == [plain.id]
    assert [c.id for c in client.v1.customers.list(params={"test_clock": clock.id}).data] == [customer.id]
    with pytest.raises(stripe.InvalidRequestError) as moved:
        client.v1.customers.update(customer.id, params={"test_clock": clock.id})
    assert error_of(moved)["code"] == "parameter_unknown"
    client.v1.customers.create(params={"test_clock": clock.id})
    client.v1.customers.create(params={"test_clock": clock.id})
    with pytest.raises(stripe.InvalidRequestError) as full:
        client.v1.customers.create(params={"test_clock": clock.id})
    assert error_of(full)["param"] == "test_clock"
    assert len(client.v1.customers.list(params={"test_clock": clock.id}).data) == 3


def test_deleting_a_clock_deletes_its_customers(purse, client):
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    customer = client.v1.customers.create(params={"test_clock": clock.id})
    card = client.v1.payment_methods.attach("pm_card_visa", params={"customer": customer.id})
    key = client.v1.ephemeral_keys.create(params={"customer": customer.id}, options={"stripe_version": MOBILE_SDK_VERSION})
    device = purse.client(key.secret, max_network_retries=0)
    assert status_of(lambda: device.v1.customers.retrieve(customer.id)) == (200, None)
    kept = client.v1.customers.create(params={"name": "Kept"})
    deleted = client.v1.test_helpers.test_clocks.delete(clock.id)
    assert deleted.to_dict() == {"id": clock.id, "object": "test_helpers.test_clock", "deleted": True}
    assert client.v1.customers.retrieve(customer.id).deleted is True
    assert client.v1.payment_methods.retrieve(card.id).customer is None
    assert status_of(lambda: device.v1.customers.retrieve(customer.id))[0] == 401
    assert client.v1.customers.retrieve(kept.id).name == "Kept"
    with pytest.raises(stripe.InvalidRequestError) as gone:
        client.v1.test_helpers.test_clocks.retrieve(clock.id)
    assert gone.value.http_status == 404
    assert client.v1.events.list(params={"type": "test_helpers.test_clock.deleted"}).data[0].data.object.id == clock.id


def test_keys_and_sessions_of_a_clocked_customer_live_by_its_time(purse, client, account):
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    customer = client.v1.customers.create(params={"test_clock": clock.id}).id
    plain = client.v1.customers.create().id
    key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    assert (key.created, key.expires) == (START, START + KEY_LIFETIME)
    plain_key = client.v1.ephemeral_keys.create(params={"customer": plain}, options={"stripe_version": MOBILE_SDK_VERSION})
    assert plain_key.expires - plain_key.created == KEY_LIFETIME and plain_key.created > START + 365 * DAY
    session = client.v1.customer_sessions.create(params={"customer": customer, "components": {"customer_sheet": {"enabled": True}}})
    assert (session.created, session.expires_at) == (START, START + SESSION_LIFETIME)
    publishable = purse.client(account["publishable_key"], max_network_retries=0)

    def elements_session():
        response = publishable.raw_request(
            "get", "/v1/elements/sessions", type="deferred_intent",
            deferred_intent={"mode": "setup", "payment_method_types": ["card"]},
            customer_session_client_secret=session.client_secret,
        )
        return publishable.deserialize(response, api_mode="V1")

    assert elements_session().customer.customer_session.api_key_expiry == START + SESSION_LIFETIME
    device = purse.client(key.secret, max_network_retries=0)
    plain_device = purse.client(plain_key.secret, max_network_retries=0)
    assert status_of(lambda: device.v1.customers.retrieve(customer)) == (200, None)

    # Past the session's half hour of clock time: the session is over, the key still works.
    advance(client, clock.id, START + SESSION_LIFETIME)
    assert status_of(elements_session) == (400, "customer_session_expired")
    assert status_of(lambda: device.v1.customers.retrieve(customer)) == (200, None)
    # Past the key's hour: the key is expired; the wall clock's customer keeps its key.
    advance(client, clock.id, START + KEY_LIFETIME)
    assert status_of(lambda: device.v1.customers.retrieve(customer)) == (401, "api_key_expired")
    assert status_of(lambda: plain_device.v1.customers.retrieve(plain)) == (200, None)
    # A key made now lives from the clock's new time.
    fresh = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    assert fresh.created == START + KEY_LIFETIME


def test_the_expired_card_filter_reads_the_clocks_month(purse, client):
    client.deserialize(client.raw_request(
        "post", "/v1/customer_sheet_settings/default", saved_payment_method_filter={"hide_expired": True},
    ), api_mode="V1")
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": JUNE_1})
    customer = client.v1.customers.create(params={"test_clock": clock.id}).id
    card = client.v1.payment_methods.create(params={
        "type": "card", "card": {"number": "4242424242424242", "exp_month": 6, "exp_year": CARD_YEAR, "cvc": "031"},
    })
    client.v1.payment_methods.attach(card.id, params={"customer": customer})
    key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    device = purse.client(key.secret, max_network_retries=0)

    def shown():
        return [m.id for m in device.v1.payment_methods.list(params={"customer": customer, "type": "card"}).data]

    assert shown() == [card.id]

    def selected():
        response = client.raw_request("get", f"/v1/customers/{customer}/selected_payment_option")
        return client.deserialize(response, api_mode="V1")

    client.raw_request("post", f"/v1/customers/{customer}/selected_payment_option", option=card.id)
    assert selected().unavailable_reason is None
    advance(client, clock.id, JULY_15)
    assert selected().unavailable_reason == "expired"
    # The key is an hour old in clock time by now: a new one, as the app would ask for.
    key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    device = purse.client(key.secret, max_network_retries=0)
    assert shown() == []
    # The merchant's secret key sees every method, as without settings.
    assert [m.id for m in client.v1.payment_methods.list(params={"customer": customer}).data] == [card.id]


def test_setup_intents_of_a_clocked_customer_end_by_its_time(client):
    """Waiting for a payment method or an authentication ends (`canceled`, `abandoned`) a day
    after the intent last changed, and unverified microdeposits fail ten days after they were
    sent, both in the customer's clock time and by the time the advance that passes them is
    ready, as Stripe's advances apply their effects before `ready`."""
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    customer = client.v1.customers.create(params={"test_clock": clock.id}).id
    waiting = client.v1.setup_intents.create(params={"customer": customer})
    authenticating = client.v1.setup_intents.create(params={
        "customer": customer, "payment_method": "pm_card_authenticationRequired", "confirm": True,
        "return_url": "https://shop.example/done",
    })
    deposits = client.v1.setup_intents.create(params={
        "customer": customer, "payment_method_types": ["us_bank_account"], "confirm": True,
        "payment_method_options": {"us_bank_account": {"verification_method": "microdeposits"}},
        "payment_method": "pm_usBankAccount_success",
        "mandate_data": {"customer_acceptance": {"type": "offline"}},
    })
    assert (waiting.created, waiting.status) == (START, "requires_payment_method")
    assert authenticating.status == deposits.status == "requires_action"
    assert deposits.next_action.type == "verify_with_microdeposits"

    advance(client, clock.id, START + DAY)
    assert client.v1.setup_intents.retrieve(waiting.id).status == "requires_payment_method"  # a day, not past it
    advance(client, clock.id, START + DAY + 1)
    for intent in (waiting, authenticating):
        ended = client.v1.setup_intents.retrieve(intent.id)
        assert (ended.status, ended.cancellation_reason) == ("canceled", "abandoned")
    assert client.v1.setup_intents.retrieve(deposits.id).status == "requires_action"

    advance(client, clock.id, START + 10 * DAY + 1)
    failed = client.v1.setup_intents.retrieve(deposits.id)
    assert failed.status == "requires_payment_method"
    assert failed.last_setup_error.code == "payment_method_microdeposit_verification_timeout"


def test_an_attached_cards_new_expiry_is_judged_at_its_customers_time(client):
    """A card takes its customer's clock once attached: an expiry past by the wall clock but not
    by the clock (set in 2023) is accepted, and refused for a customer on no clock."""
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    clocked = client.v1.customers.create(params={"test_clock": clock.id}).id
    plain = client.v1.customers.create().id
    methods = [client.v1.payment_methods.attach("pm_card_visa", params={"customer": c}) for c in (clocked, plain)]
    expiry = {"card": {"exp_month": 12, "exp_year": 2024}}
    updated = client.v1.payment_methods.update(methods[0].id, params=expiry)
    assert (updated.card.exp_month, updated.card.exp_year) == (12, 2024)
    with pytest.raises(stripe.CardError) as refused:
        client.v1.payment_methods.update(methods[1].id, params=expiry)
    assert error_of(refused)["code"] == "invalid_expiry_year"


def test_an_existing_customer_is_put_on_a_new_clock_once(purse, client):
    """`customer` on a clock's creation (stripe-python 16.1.0's `TestClockCreateParams.customer`,
    Stripe's API since 2026-05-27.dahlia) puts an existing customer on the clock for good. Its
    keys, timed by the wall clock, are revoked (Purse's choice: new ones live by the clock); one
    already on a clock is refused, and no clock is made."""
    customer = client.v1.customers.create().id
    old_key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START, "customer": customer})
    assert status_of(lambda: purse.client(old_key.secret, max_network_retries=0).v1.customers.retrieve(customer))[0] == 401
    assert client.v1.customers.retrieve(customer).test_clock == clock.id
    assert [c.id for c in client.v1.customers.list(params={"test_clock": clock.id}).data] == [customer]
    key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    assert key.created == START
    clocks_before = len(client.v1.test_helpers.test_clocks.list(params={"limit": 100}).data)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.test_helpers.test_clocks.create(params={"frozen_time": START, "customer": customer})
    assert (refused.value.http_status, error_of(refused)["param"]) == (400, "customer")
    with pytest.raises(stripe.InvalidRequestError) as unknown:
        client.v1.test_helpers.test_clocks.create(params={"frozen_time": START, "customer": "cus_missing"})
    assert (unknown.value.http_status, error_of(unknown)["code"]) == (400, "resource_missing")
    assert len(client.v1.test_helpers.test_clocks.list(params={"limit": 100}).data) == clocks_before


def test_customers_racing_for_a_clocks_last_places_get_three(client):
    """Six creations at once on an empty clock: the clock's lock makes exactly three of them
    succeed, whatever their order."""
    clock = client.v1.test_helpers.test_clocks.create(params={"frozen_time": START})
    outcomes = []

    def create():
        outcomes.append(status_of(lambda: client.v1.customers.create(params={"test_clock": clock.id})))

    threads = [threading.Thread(target=create) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes, key=lambda o: o[0]) == [(200, None)] * 3 + [(400, None)] * 3
    assert len(client.v1.customers.list(params={"test_clock": clock.id}).data) == 3


def test_two_clocks_advanced_at_once_stay_apart(client):
    clocks = [client.v1.test_helpers.test_clocks.create(params={"frozen_time": START}) for _ in range(2)]
    customers = [client.v1.customers.create(params={"test_clock": clock.id}).id for clock in clocks]
    targets = [START + DAY, START + 7 * DAY]
    failures = []

    def move(clock, target):
        try:
            advance(client, clock.id, target)
        except Exception as error:  # reported below, in the test's own thread
            failures.append(error)

    threads = [threading.Thread(target=move, args=pair) for pair in zip(clocks, targets)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    for clock, customer, target in zip(clocks, customers, targets):
        assert client.v1.test_helpers.test_clocks.retrieve(clock.id).frozen_time == target
        key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
        assert key.created == target


def test_the_legacy_resource_api(purse, account):
    stripe.api_key = account["secret_key"]
    stripe.api_base = purse.base
    try:
        clock = stripe.test_helpers.TestClock.create(frozen_time=START, name="Legacy")
        assert isinstance(clock, stripe.test_helpers.TestClock)
        assert stripe.test_helpers.TestClock.retrieve(clock.id).name == "Legacy"
        advancing = stripe.test_helpers.TestClock.advance(clock.id, frozen_time=START + DAY)
        assert advancing.status == "advancing"
        deadline = time.monotonic() + 30
        while stripe.test_helpers.TestClock.retrieve(clock.id).status != "ready" and time.monotonic() < deadline:
            time.sleep(0.1)
        ready = stripe.test_helpers.TestClock.retrieve(clock.id)
        assert ready.frozen_time == START + DAY
        ready.advance(frozen_time=START + 2 * DAY)
        assert [c.id for c in stripe.test_helpers.TestClock.list().data] == [clock.id]
        assert stripe.test_helpers.TestClock.delete(clock.id).deleted is True
    finally:
        stripe.api_key = None
        stripe.api_base = "https://api.stripe.com"
