"""Ephemeral keys and setup intents through stripe-python, the way a merchant's server and the
mobile customer sheet use them: the server creates a customer's ephemeral key and setup intents
with the secret key; the app lists, attaches, updates, detaches and selects with the ephemeral key,
reads the elements session and confirms with the publishable key and the intent's client secret
(stripe-reference.md §3, §7, §8, §11.2), including declines, 3D Secure on Purse's own page, bank
debits with mandates, events, and the key's revocation and expiry.

Card data: every number and CVC sent here is registered by conftest's recording client (nested
`payment_method_data[card][...]` keys included) and checked by test_zz_card_data.py. CVCs start
with 0, and the only test tokens used are those test_zz_card_data.py knows the numbers of (so the
3D Secure card is sent by number, not as `pm_card_authenticationRequiredOnSetup`)."""
import datetime
import re
import time

import pytest
import requests
import stripe

from conftest import pg_dump

THIS_YEAR = datetime.date.today().year
MOBILE_SDK_VERSION = "2020-08-27"  # what stripe-ios sends when it asks for an ephemeral key
KEY_LIFETIME = 3600  # Purse's default: stripe-ios caches a key for 30 minutes of its 60

VISA = "4242424242424242"
THREE_D_SECURE_CARD = "4000002500003155"  # authentication required on setup
DECLINED_CARD = "4000000000000002"  # generic_decline
CVC = "084"

ROUTING_NUMBER = "110000000"
GOOD_ACCOUNT = "000123456789"
CLOSED_ACCOUNT = "000111111113"
NO_ACCOUNT = "000111111116"
GOOD_IBAN = "DE89370400440532013000"
FAILING_IBAN = "DE62370400440532013001"

RETURN_URL = "purse-sample://stripe-redirect"
SDK_USER_AGENT = "stripe-ios/24.0.0; variant.legacy; CustomerSheet"
SHEET_TYPES = ["card", "us_bank_account", "sepa_debit"]

# What a publishable key with the client secret may see of a setup intent (stripe-reference §7.1).
PUBLISHABLE_FIELDS = {
    "id", "object", "cancellation_reason", "client_secret", "created", "description", "last_setup_error",
    "livemode", "next_action", "payment_method", "payment_method_types", "status", "usage",
    # In the client shape of the OpenAPI's setup_intent_type_specific_payment_method_options_client.
    "payment_method_options",
}
# Every field of the full object (stripe-reference §7.1, less `attach_to_self`, which Purse omits).
SETUP_INTENT_FIELDS = PUBLISHABLE_FIELDS | {
    "application", "automatic_payment_methods", "customer", "excluded_payment_method_types", "flow_directions",
    "latest_attempt", "mandate", "metadata", "on_behalf_of", "payment_method_configuration_details",
    "payment_method_options", "single_use_mandate",
    "customer_sheet_settings",  # Purse's own: the sheet settings its confirmation checks against
}
CLIENT_SECRET = re.compile(r"^(seti_[^_]+)_secret_[^_]+$")  # what stripe-ios and stripe-android accept


# Fixtures and helpers


@pytest.fixture
def publishable(purse, account):
    """The app's StripeClient before it knows the customer: the publishable key."""
    return purse.client(account["publishable_key"], max_network_retries=0)


@pytest.fixture
def customer(client):
    return client.v1.customers.create(params={"email": "jenny@example.com"}).id


@pytest.fixture
def other_customer(client):
    return client.v1.customers.create().id


def create_ephemeral_key(client, customer):
    """What a merchant's backend does for the app: a key rendered for the mobile SDK's version."""
    return client.v1.ephemeral_keys.create(
        params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION}
    )


def device(purse, client, customer):
    """A StripeClient on a new ephemeral key of the customer, as the app's customer adapter holds it."""
    return purse.client(create_ephemeral_key(client, customer).secret, max_network_retries=0)


def card_data(number=VISA, cvc=CVC, **extra):
    """`payment_method_data` as the sheet sends it for a card typed in."""
    return {
        "type": "card",
        "card": {"number": number, "exp_month": 11, "exp_year": THIS_YEAR + 4, "cvc": cvc},
        "payment_user_agent": SDK_USER_AGENT,
        **extra,
    }


def server_card_data(number=VISA):
    """`payment_method_data` as a merchant's server sends it: no SDK telemetry, which the secret key
    may not send (spec §3, parameter policy)."""
    data = card_data(number)
    del data["payment_user_agent"]
    return data


def us_bank_account_data(account_number=GOOD_ACCOUNT):
    return {
        "type": "us_bank_account",
        "billing_details": {"name": "Jenny Rosen"},
        "us_bank_account": {
            "routing_number": ROUTING_NUMBER, "account_number": account_number, "account_holder_type": "individual",
        },
    }


def sepa_debit_data(iban=GOOD_IBAN):
    return {
        "type": "sepa_debit",
        "billing_details": {"name": "Jenny Rosen", "email": "jenny@example.com"},
        "sepa_debit": {"iban": iban},
    }


ONLINE_MANDATE = {
    "customer_acceptance": {
        "type": "online", "online": {"ip_address": "203.0.113.7", "user_agent": "Mozilla/5.0 (iPhone)"},
    },
}
OFFLINE_MANDATE = {"customer_acceptance": {"type": "offline"}}


def create_intent(client, customer, **params):
    """The merchant's backend making a setup intent for the sheet."""
    return client.v1.setup_intents.create(params={"customer": customer, **params})


def sheet_confirm(publishable, intent, payment_method_data, **params):
    """`POST /v1/setup_intents/{id}/confirm` as stripe-ios sends it with the publishable key."""
    return publishable.v1.setup_intents.confirm(intent.id, params={
        "client_secret": intent.client_secret,
        "payment_method_data": payment_method_data,
        "return_url": RETURN_URL,
        "use_stripe_sdk": True,
        "expand": ["payment_method"],
        **params,
    })


def sheet_retrieve(publishable, intent):
    """What the SDK does after the customer comes back from the authentication page."""
    return publishable.v1.setup_intents.retrieve(intent.id, params={"client_secret": intent.client_secret})


def saved_methods(ephemeral, customer, types=SHEET_TYPES):
    """`fetchPaymentMethods` of stripe-ios's customer adapter: one list per type with limit=100,
    merged newest first."""
    methods = []
    for kind in types:
        methods += ephemeral.v1.payment_methods.list(params={"customer": customer, "type": kind, "limit": 100}).data
    return sorted(methods, key=lambda method: method.created, reverse=True)


def attached_ids(client, customer):
    return [method.id for method in client.v1.customers.payment_methods.list(customer).data]


def elements_session(publishable, **params):
    """`GET /v1/elements/sessions`, which stripe-python has no method for."""
    response = publishable.raw_request("get", "/v1/elements/sessions", **params)
    return publishable.deserialize(response, api_mode="V1")


def selected_option_path(customer):
    return f"/v1/customers/{customer}/selected_payment_option"


def get_selected_option(client, customer):
    return client.deserialize(client.raw_request("get", selected_option_path(customer)), api_mode="V1")


def select_option(client, customer, option):
    return client.deserialize(client.raw_request("post", selected_option_path(customer), option=option), api_mode="V1")


def revoke_credentials(client, customer):
    response = client.raw_request("post", f"/v1/customers/{customer}/revoke_credentials")
    return client.deserialize(response, api_mode="V1")


def authentication_url(intent):
    assert intent.status == "requires_action"
    assert intent.next_action.type == "redirect_to_url"
    return intent.next_action.redirect_to_url.url


def decide(url, action):
    """The customer pressing one of the page's buttons (a form POST from the browser)."""
    return requests.post(url, data={"action": action}, allow_redirects=False, timeout=30)


def events_for(client, intent_id, type_):
    events = client.v1.events.list(params={"type": type_, "limit": 100}).data
    return [event for event in events if event.data.object.id == intent_id]


def setup_intent_event_types(client, intent_id):
    events = client.v1.events.list(params={"type": "setup_intent.*", "limit": 100}).data
    return [event.type for event in reversed(events) if event.data.object.id == intent_id]


def fields(stripe_object):
    """The keys the server sent for an object (a StripeObject is not a dict in stripe-python 16)."""
    return set(stripe_object.to_dict())


def error_of(excinfo):
    """The error envelope's body as the server sent it."""
    return excinfo.value.json_body["error"]


# Ephemeral keys


def test_create_an_ephemeral_key_for_the_mobile_sdk(client, customer):
    key = create_ephemeral_key(client, customer)
    assert key.id.startswith("ephkey_")
    assert key.object == "ephemeral_key"
    assert [(o.type, o.id) for o in key.associated_objects] == [("customer", customer)]
    assert key.expires - key.created == KEY_LIFETIME
    assert abs(key.created - time.time()) < 60
    assert key.livemode is False
    assert key.secret.startswith("ek_test_")
    assert key.last_response.headers["Stripe-Version"] == MOBILE_SDK_VERSION


def test_an_ephemeral_key_needs_the_stripe_version_header(purse, account, customer):
    """stripe-python's StripeClient always sends its own version, so the refusal is seen with a bare request."""
    response = requests.post(
        f"{purse.base}/v1/ephemeral_keys", data={"customer": customer}, auth=(account["secret_key"], ""), timeout=30
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["param"] == "Stripe-Version"


def test_no_ephemeral_key_for_another_accounts_customer(purse, client):
    stranger = purse.client(purse.create_account(name="Stranger")["secret_key"], max_network_retries=0)
    foreign = stranger.v1.customers.create().id
    with pytest.raises(stripe.InvalidRequestError) as refused:
        create_ephemeral_key(client, foreign)
    assert refused.value.http_status == 400
    assert error_of(refused)["code"] == "resource_missing"
    assert error_of(refused)["param"] == "customer"


def test_no_ephemeral_key_for_a_deleted_customer(client, customer):
    client.v1.customers.delete(customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        create_ephemeral_key(client, customer)
    assert error_of(refused)["code"] == "resource_missing"


def test_an_ephemeral_key_retrieves_its_customer(purse, client, customer):
    ephemeral = device(purse, client, customer)
    assert ephemeral.v1.customers.retrieve(customer).email == "jenny@example.com"


def test_an_ephemeral_key_lists_its_customers_methods_one_type_at_a_time(purse, client, customer, other_customer):
    card = client.v1.payment_methods.attach("pm_card_visa", params={"customer": customer})
    bank = client.v1.payment_methods.attach("pm_usBankAccount_success", params={"customer": customer})
    sepa = client.v1.payment_methods.attach("pm_sepaDebit_success", params={"customer": customer})
    client.v1.payment_methods.attach("pm_card_mastercard", params={"customer": other_customer})
    ephemeral = device(purse, client, customer)
    cards = ephemeral.v1.payment_methods.list(params={"customer": customer, "type": "card", "limit": 100})
    assert [m.id for m in cards.data] == [card.id]
    assert cards.url == "/v1/payment_methods"
    assert {m.id for m in saved_methods(ephemeral, customer)} == {card.id, bank.id, sepa.id}


def test_an_ephemeral_key_attaches_a_method_the_app_created(purse, client, publishable, customer):
    """The sheet without a setup intent: the publishable key creates the card, the ephemeral key attaches it."""
    method = publishable.v1.payment_methods.create(params={"type": "card", "card": card_data()["card"]})
    ephemeral = device(purse, client, customer)
    attached = ephemeral.v1.payment_methods.attach(method.id, params={"customer": customer})
    assert attached.customer == customer
    assert attached_ids(client, customer) == [method.id]


def test_an_ephemeral_key_updates_and_detaches_its_customers_method(purse, client, customer):
    method = client.v1.payment_methods.attach("pm_card_visa", params={"customer": customer})
    ephemeral = device(purse, client, customer)
    updated = ephemeral.v1.payment_methods.update(method.id, params={
        "card": {"exp_month": 3, "exp_year": THIS_YEAR + 6}, "billing_details": {"name": "Jenny Rosen"},
    })
    assert (updated.card.exp_month, updated.card.exp_year) == (3, THIS_YEAR + 6)
    assert updated.billing_details.name == "Jenny Rosen"
    assert ephemeral.v1.payment_methods.retrieve(method.id).billing_details.name == "Jenny Rosen"
    detached = ephemeral.v1.payment_methods.detach(method.id)
    assert detached.customer is None
    assert saved_methods(ephemeral, customer) == []


def test_an_ephemeral_key_reads_and_sets_its_customers_selected_option(purse, client, customer):
    method = client.v1.payment_methods.attach("pm_card_visa", params={"customer": customer})
    ephemeral = device(purse, client, customer)
    assert get_selected_option(ephemeral, customer).option is None
    selected = select_option(ephemeral, customer, method.id)
    assert selected.option == method.id
    assert selected.payment_method.id == method.id
    assert client.v1.customers.retrieve(customer).invoice_settings.default_payment_method == method.id
    assert select_option(ephemeral, customer, "apple_pay").option == "apple_pay"
    assert get_selected_option(ephemeral, customer).option == "apple_pay"


def test_an_ephemeral_key_finds_nothing_of_another_customer(purse, client, customer, other_customer):
    """Objects of another customer answer exactly as if they did not exist: 404 resource_missing."""
    theirs = client.v1.payment_methods.attach("pm_card_visa", params={"customer": other_customer})
    ephemeral = device(purse, client, customer)
    calls = {
        "retrieve customer": lambda: ephemeral.v1.customers.retrieve(other_customer),
        "customer's methods": lambda: ephemeral.v1.customers.payment_methods.list(other_customer),
        "retrieve method": lambda: ephemeral.v1.payment_methods.retrieve(theirs.id),
        "update method": lambda: ephemeral.v1.payment_methods.update(theirs.id, params={"metadata": {"a": "b"}}),
        "detach method": lambda: ephemeral.v1.payment_methods.detach(theirs.id),
        "selected option": lambda: get_selected_option(ephemeral, other_customer),
    }
    for name, call in calls.items():
        with pytest.raises(stripe.InvalidRequestError) as refused:
            call()
        assert (refused.value.http_status, error_of(refused)["code"]) == (404, "resource_missing"), name
    assert client.v1.payment_methods.retrieve(theirs.id).customer == other_customer


def test_an_ephemeral_key_cannot_attach_another_customers_method(purse, client, customer, other_customer):
    """Attaching a method of another customer must not reveal that it exists: the answer is the
    404 that retrieve, update and detach give for it with the same key, and for a method that
    does not exist at all."""
    theirs = client.v1.payment_methods.attach("pm_card_visa", params={"customer": other_customer})
    ephemeral = device(purse, client, customer)
    with pytest.raises(stripe.InvalidRequestError) as missing:
        ephemeral.v1.payment_methods.attach("pm_" + "X" * 24, params={"customer": customer})
    with pytest.raises(stripe.InvalidRequestError) as refused:
        ephemeral.v1.payment_methods.attach(theirs.id, params={"customer": customer})
    assert (missing.value.http_status, error_of(missing)["code"]) == (404, "resource_missing")
    assert (refused.value.http_status, error_of(refused)["code"]) == (404, "resource_missing")
    assert client.v1.payment_methods.retrieve(theirs.id).customer == other_customer


def test_an_ephemeral_key_names_another_customer_as_if_it_did_not_exist(purse, client, customer, other_customer):
    """Where the customer is a parameter, not the path (listing, attaching), Stripe's answer for a
    missing one is 400 resource_missing with `param: customer`: another customer gets the same."""
    method = client.v1.payment_methods.create(params={"type": "card", "card": {"token": "tok_visa"}})
    ephemeral = device(purse, client, customer)
    answers = []
    for named in (other_customer, "cus_" + "X" * 24):
        for call in (
            lambda: ephemeral.v1.payment_methods.list(params={"customer": named, "type": "card", "limit": 100}),
            lambda: ephemeral.v1.payment_methods.attach(method.id, params={"customer": named}),
        ):
            with pytest.raises(stripe.InvalidRequestError) as refused:
                call()
            answers.append((refused.value.http_status, error_of(refused)["code"], error_of(refused)["param"]))
    assert answers == [(400, "resource_missing", "customer")] * 4
    assert client.v1.payment_methods.retrieve(method.id).customer is None


@pytest.mark.parametrize("call", [
    "list customers", "create customer", "update customer", "delete customer", "create payment method",
    "create setup intent", "list setup intents", "create ephemeral key", "list events", "elements session",
])
def test_an_ephemeral_key_cannot_do_what_needs_the_secret_key(purse, client, customer, call):
    ephemeral = device(purse, client, customer)
    calls = {
        "list customers": lambda: ephemeral.v1.customers.list(),
        "create customer": lambda: ephemeral.v1.customers.create(),
        "update customer": lambda: ephemeral.v1.customers.update(customer, params={"name": "Mallory"}),
        "delete customer": lambda: ephemeral.v1.customers.delete(customer),
        "create payment method": lambda: ephemeral.v1.payment_methods.create(params={
            "type": "card", "card": {"token": "tok_visa"},
        }),
        "create setup intent": lambda: ephemeral.v1.setup_intents.create(params={"customer": customer}),
        "list setup intents": lambda: ephemeral.v1.setup_intents.list(params={"customer": customer}),
        "create ephemeral key": lambda: create_ephemeral_key(ephemeral, customer),
        "list events": lambda: ephemeral.v1.events.list(),
        "elements session": lambda: elements_session(
            ephemeral, type="deferred_intent", deferred_intent={"mode": "setup"},
        ),
    }
    with pytest.raises(stripe.PermissionError) as refused:
        calls[call]()
    assert refused.value.http_status == 403
    assert error_of(refused)["type"] == "invalid_request_error"
    assert error_of(refused)["code"] == "secret_key_required"
    assert client.v1.customers.retrieve(customer).name is None


def test_a_deleted_ephemeral_key_stops_working_at_once(purse, client, customer):
    key = create_ephemeral_key(client, customer)
    ephemeral = purse.client(key.secret, max_network_retries=0)
    ephemeral.v1.customers.retrieve(customer)
    deleted = client.v1.ephemeral_keys.delete(key.id)
    assert deleted.id == key.id
    assert [(o.type, o.id) for o in deleted.associated_objects] == [("customer", customer)]
    assert "secret" not in deleted
    with pytest.raises(stripe.AuthenticationError) as refused:
        ephemeral.v1.customers.retrieve(customer)
    assert refused.value.http_status == 401
    assert error_of(refused)["type"] == "invalid_request_error"
    assert key.secret not in error_of(refused)["message"]
    assert key.secret[-4:] in error_of(refused)["message"]


def test_deleting_an_unknown_ephemeral_key_is_404(client):
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.ephemeral_keys.delete("ephkey_" + "X" * 24)
    assert (refused.value.http_status, error_of(refused)["code"]) == (404, "resource_missing")


def test_revoke_credentials_signs_a_customer_out_everywhere(purse, client, customer, other_customer):
    phone, tablet = device(purse, client, customer), device(purse, client, customer)
    bystander = device(purse, client, other_customer)
    revocation = revoke_credentials(client, customer)
    assert revocation.object == "credential_revocation"
    assert revocation.customer == customer
    assert revocation.ephemeral_keys_revoked == 2
    for ephemeral in (phone, tablet):
        with pytest.raises(stripe.AuthenticationError):
            ephemeral.v1.customers.retrieve(customer)
    assert bystander.v1.customers.retrieve(other_customer).id == other_customer
    device(purse, client, customer).v1.customers.retrieve(customer)  # a new key works again


def test_deleting_a_customer_revokes_its_ephemeral_keys(purse, client, customer):
    ephemeral = device(purse, client, customer)
    client.v1.customers.delete(customer)
    with pytest.raises(stripe.AuthenticationError) as refused:
        ephemeral.v1.payment_methods.list(params={"customer": customer, "type": "card", "limit": 100})
    assert refused.value.http_status == 401


def test_an_expired_ephemeral_key_is_refused(purse, account, customer):
    with purse.sibling("--ephemeral-key-lifetime", "1") as short_lived:
        secret = short_lived.client(account["secret_key"], max_network_retries=0)
        key = create_ephemeral_key(secret, customer)
        assert key.expires - key.created == 1
        ephemeral = short_lived.client(key.secret, max_network_retries=0)
        time.sleep(max(0.0, key.expires - time.time()) + 0.2)
        with pytest.raises(stripe.AuthenticationError) as refused:
            ephemeral.v1.customers.retrieve(customer)
    assert refused.value.http_status == 401
    assert error_of(refused)["type"] == "invalid_request_error"
    assert error_of(refused)["message"].startswith("Expired API Key provided")
    assert key.secret not in error_of(refused)["message"]


# Setup intents with the secret key


def test_create_a_setup_intent(client, customer):
    intent = create_intent(client, customer)
    assert fields(intent) == SETUP_INTENT_FIELDS
    assert intent.id.startswith("seti_")
    assert intent.object == "setup_intent"
    assert CLIENT_SECRET.match(intent.client_secret).group(1) == intent.id
    assert intent.status == "requires_payment_method"
    assert intent.customer == customer
    assert intent.usage == "off_session"
    assert intent.payment_method_types == ["card"]
    assert intent.payment_method is None and intent.next_action is None and intent.last_setup_error is None
    assert intent.livemode is False
    assert intent.metadata.to_dict() == {}
    assert client.v1.setup_intents.retrieve(intent.id).client_secret == intent.client_secret


def test_a_setup_intent_with_a_method_requires_confirmation_then_succeeds(client, customer):
    intent = create_intent(client, customer, payment_method="pm_card_visa", usage="on_session")
    assert intent.status == "requires_confirmation"
    assert intent.usage == "on_session"
    confirmed = client.v1.setup_intents.confirm(intent.id)
    assert confirmed.status == "succeeded"
    assert confirmed.payment_method == intent.payment_method
    assert attached_ids(client, customer) == [intent.payment_method]


def test_create_and_confirm_in_one_request(client, customer):
    intent = create_intent(client, customer, payment_method="pm_card_visa", confirm=True, return_url=RETURN_URL)
    assert intent.status == "succeeded"
    assert attached_ids(client, customer) == [intent.payment_method]
    assert setup_intent_event_types(client, intent.id) == ["setup_intent.created", "setup_intent.succeeded"]


def test_a_refused_create_and_confirm_leaves_no_setup_intent(client, customer):
    """A request refused as invalid changes nothing (purse.md §5): the intent it would have made
    must not be left behind in requires_confirmation, nor its `setup_intent.created` event."""
    with pytest.raises(stripe.InvalidRequestError) as refused:
        create_intent(
            client, customer, payment_method_types=["us_bank_account"], payment_method="pm_usBankAccount_success",
            confirm=True,
        )
    assert error_of(refused)["param"] == "mandate_data"
    assert client.v1.setup_intents.list(params={"customer": customer}).data == []
    assert client.v1.events.list(params={"type": "setup_intent.created"}).data == []


def test_a_setup_intent_without_customer_leaves_the_method_unattached(client):
    intent = client.v1.setup_intents.create(params={"payment_method": "pm_card_visa", "confirm": True})
    assert intent.status == "succeeded" and intent.customer is None
    assert client.v1.payment_methods.retrieve(intent.payment_method).customer is None


def test_update_changes_only_what_is_sent(client, customer):
    intent = create_intent(client, customer, description="Save a card", metadata={"order": "6735", "app": "ios"})
    updated = client.v1.setup_intents.update(intent.id, params={"metadata": {"order": "", "tier": "gold"}})
    assert updated.description == "Save a card"
    assert updated.metadata.to_dict() == {"app": "ios", "tier": "gold"}
    assert client.v1.setup_intents.update(intent.id, params={"description": ""}).description is None
    assert setup_intent_event_types(client, intent.id) == ["setup_intent.created"]


def test_update_sets_and_clears_the_payment_method(client, customer):
    intent = create_intent(client, customer)
    with_method = client.v1.setup_intents.update(intent.id, params={"payment_method": "pm_card_visa"})
    assert with_method.status == "requires_confirmation"
    assert client.v1.payment_methods.retrieve(with_method.payment_method).card.last4 == "4242"
    cleared = client.v1.setup_intents.update(intent.id, params={"payment_method": ""})
    assert (cleared.status, cleared.payment_method) == ("requires_payment_method", None)
    assert attached_ids(client, customer) == []


def test_retrieve_expands_the_customer_and_the_method(client, customer):
    intent = create_intent(client, customer, payment_method="pm_card_visa", confirm=True)
    expanded = client.v1.setup_intents.retrieve(intent.id, params={"expand": ["customer", "payment_method"]})
    assert expanded.customer.id == customer
    assert expanded.payment_method.id == intent.payment_method
    assert expanded.payment_method.customer == customer


def test_list_setup_intents_newest_first_and_by_customer(client, customer, other_customer):
    first, second = create_intent(client, customer), create_intent(client, customer)
    theirs = create_intent(client, other_customer)
    assert [i.id for i in client.v1.setup_intents.list().data] == [theirs.id, second.id, first.id]
    mine = client.v1.setup_intents.list(params={"customer": customer})
    assert [i.id for i in mine.data] == [second.id, first.id]
    assert mine.url == "/v1/setup_intents"
    page = client.v1.setup_intents.list(params={"customer": customer, "limit": 1})
    assert [i.id for i in page.data] == [second.id] and page.has_more is True
    rest = client.v1.setup_intents.list(params={"customer": customer, "starting_after": second.id})
    assert [i.id for i in rest.data] == [first.id]


def test_cancel_a_setup_intent(client, customer):
    intent = create_intent(client, customer)
    canceled = client.v1.setup_intents.cancel(intent.id, params={"cancellation_reason": "requested_by_customer"})
    assert canceled.status == "canceled"
    assert canceled.cancellation_reason == "requested_by_customer"
    assert setup_intent_event_types(client, intent.id) == ["setup_intent.created", "setup_intent.canceled"]


@pytest.mark.parametrize("state", ["succeeded", "canceled"])
@pytest.mark.parametrize("action", ["confirm", "cancel", "update"])
def test_a_finished_setup_intent_cannot_change(client, customer, state, action):
    intent = create_intent(client, customer, payment_method="pm_card_visa")
    if state == "succeeded":
        client.v1.setup_intents.confirm(intent.id)
    else:
        client.v1.setup_intents.cancel(intent.id)
    calls = {
        "confirm": lambda: client.v1.setup_intents.confirm(intent.id, params={"payment_method": "pm_card_mastercard"}),
        "cancel": lambda: client.v1.setup_intents.cancel(intent.id),
        "update": lambda: client.v1.setup_intents.update(intent.id, params={"description": "again"}),
    }
    with pytest.raises(stripe.InvalidRequestError) as refused:
        calls[action]()
    assert refused.value.http_status == 400
    assert error_of(refused)["code"] == "setup_intent_unexpected_state"
    after = client.v1.setup_intents.retrieve(intent.id)
    assert (after.status, after.description) == (state, None)


@pytest.mark.parametrize("action", ["retrieve", "update", "confirm", "cancel"])
def test_an_unknown_setup_intent_is_404(client, action):
    """A setup intent named in the path that does not exist is `404 resource_missing`, as Stripe
    answers (`No such setupintent`, `param: intent`) and as docs/api.md promises."""
    unknown = "seti_" + "X" * 24
    calls = {
        "retrieve": lambda: client.v1.setup_intents.retrieve(unknown),
        "update": lambda: client.v1.setup_intents.update(unknown, params={"description": "x"}),
        "confirm": lambda: client.v1.setup_intents.confirm(unknown, params={"payment_method": "pm_card_visa"}),
        "cancel": lambda: client.v1.setup_intents.cancel(unknown),
    }
    with pytest.raises(stripe.InvalidRequestError) as refused:
        calls[action]()
    assert refused.value.http_status == 404
    assert error_of(refused)["code"] == "resource_missing"


def test_another_accounts_setup_intent_is_404_even_with_its_client_secret(purse, publishable):
    stranger = purse.create_account(name="Stranger")
    theirs = purse.client(stranger["secret_key"], max_network_retries=0).v1.setup_intents.create()
    with pytest.raises(stripe.InvalidRequestError) as refused:
        sheet_retrieve(publishable, theirs)
    assert refused.value.http_status == 404
    assert error_of(refused)["code"] == "resource_missing"


def test_a_method_of_another_customer_cannot_be_set_up(client, customer, other_customer):
    theirs = client.v1.payment_methods.attach("pm_card_visa", params={"customer": other_customer})
    intent = create_intent(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.setup_intents.confirm(intent.id, params={"payment_method": theirs.id})
    assert error_of(refused)["code"] == "payment_method_unexpected_state"
    assert error_of(refused)["param"] == "payment_method"
    assert client.v1.setup_intents.retrieve(intent.id).status == "requires_payment_method"
    assert client.v1.payment_methods.retrieve(theirs.id).customer == other_customer


def test_a_type_the_intent_does_not_allow_is_refused(client, publishable, customer):
    intent = create_intent(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        sheet_confirm(publishable, intent, us_bank_account_data(), mandate_data=ONLINE_MANDATE)
    assert error_of(refused)["param"] == "payment_method_data[type]"
    assert client.v1.setup_intents.retrieve(intent.id).status == "requires_payment_method"
    assert attached_ids(client, customer) == []


# The publishable key with the client secret


def test_the_publishable_key_sees_only_the_client_fields(client, publishable, customer):
    intent = create_intent(client, customer, description="Save a card", metadata={"internal": "yes"})
    seen = sheet_retrieve(publishable, intent)
    assert fields(seen) == PUBLISHABLE_FIELDS
    assert seen.payment_method_options.to_dict() == {"card": {}}
    assert (seen.id, seen.client_secret, seen.description) == (intent.id, intent.client_secret, "Save a card")
    assert seen.status == "requires_payment_method"


def test_the_publishable_key_needs_the_client_secret(client, publishable, customer):
    intent, another = create_intent(client, customer), create_intent(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as missing:
        publishable.v1.setup_intents.retrieve(intent.id)
    assert (error_of(missing)["code"], error_of(missing)["param"]) == ("parameter_missing", "client_secret")
    with pytest.raises(stripe.InvalidRequestError) as wrong:
        publishable.v1.setup_intents.retrieve(intent.id, params={"client_secret": another.client_secret})
    assert error_of(wrong)["param"] == "client_secret"
    with pytest.raises(stripe.InvalidRequestError) as wrong_confirm:
        publishable.v1.setup_intents.confirm(intent.id, params={
            "client_secret": another.client_secret, "payment_method_data": card_data(),
        })
    assert error_of(wrong_confirm)["param"] == "client_secret"
    assert client.v1.setup_intents.retrieve(intent.id).status == "requires_payment_method"
    assert attached_ids(client, customer) == []


@pytest.mark.parametrize("call", ["create", "list", "update", "cancel"])
def test_the_publishable_key_cannot_manage_setup_intents(client, publishable, customer, call):
    intent = create_intent(client, customer)
    calls = {
        "create": lambda: publishable.v1.setup_intents.create(params={"customer": customer}),
        "list": lambda: publishable.v1.setup_intents.list(),
        "update": lambda: publishable.v1.setup_intents.update(intent.id, params={
            "client_secret": intent.client_secret, "description": "x",
        }),
        "cancel": lambda: publishable.v1.setup_intents.cancel(intent.id, params={
            "client_secret": intent.client_secret,
        }),
    }
    with pytest.raises(stripe.PermissionError) as refused:
        calls[call]()
    assert error_of(refused)["code"] == "secret_key_required"
    assert client.v1.setup_intents.retrieve(intent.id).status == "requires_payment_method"


# The customer sheet, as stripe-ios drives it with an ephemeral key


def test_the_sheet_saves_a_card_through_a_setup_intent(purse, client, publishable, customer):
    ephemeral = device(purse, client, customer)
    assert saved_methods(ephemeral, customer) == []
    intent = create_intent(client, customer)  # setupIntentClientSecretProvider, on the merchant's server
    session = elements_session(
        publishable, type="setup_intent", client_secret=intent.client_secret, locale="en-US",
        expand=["payment_method_preference.setup_intent.payment_method"],
    )
    assert session.payment_method_preference.setup_intent.id == intent.id
    confirmed = sheet_confirm(
        publishable, intent, card_data(allow_redisplay="always", billing_details={"name": "Jenny Rosen"}),
        client_attribution_metadata={
            "merchant_integration_source": "elements", "merchant_integration_subtype": "mobile",
            "merchant_integration_version": "stripe-ios/24.0.0",
        },
    )
    assert fields(confirmed) == PUBLISHABLE_FIELDS
    assert confirmed.status == "succeeded"
    method = confirmed.payment_method
    assert (method.card.brand, method.card.last4, method.card.exp_year) == ("visa", "4242", THIS_YEAR + 4)
    assert method.allow_redisplay == "always"
    assert method.billing_details.name == "Jenny Rosen"
    assert VISA not in confirmed.last_response.body
    assert [m.id for m in saved_methods(ephemeral, customer)] == [method.id]
    assert ephemeral.v1.payment_methods.retrieve(method.id).customer == customer


def test_the_sheet_sees_a_declined_card(client, publishable, customer):
    intent = create_intent(client, customer)
    with pytest.raises(stripe.CardError) as declined:
        sheet_confirm(publishable, intent, card_data(DECLINED_CARD))
    assert declined.value.http_status == 402
    assert declined.value.code == "card_declined"
    assert error_of(declined)["decline_code"] == "generic_decline"
    failed = error_of(declined)["setup_intent"]
    assert set(failed) == PUBLISHABLE_FIELDS
    assert (failed["id"], failed["status"]) == (intent.id, "requires_payment_method")
    assert failed["last_setup_error"]["code"] == "card_declined"
    assert failed["last_setup_error"]["payment_method"]["card"]["last4"] == "0002"
    kept = sheet_retrieve(publishable, intent)
    assert kept.status == "requires_payment_method"
    assert kept.last_setup_error.decline_code == "generic_decline"
    # Stripe's api_errors has `param` optional, not nullable: no parameter was at fault here.
    assert "param" not in failed["last_setup_error"] and "param" not in kept.last_setup_error
    assert attached_ids(client, customer) == []
    assert setup_intent_event_types(client, intent.id) == ["setup_intent.created", "setup_intent.setup_failed"]


def test_the_sheet_saves_another_card_after_a_decline(client, publishable, customer):
    intent = create_intent(client, customer)
    with pytest.raises(stripe.CardError):
        sheet_confirm(publishable, intent, card_data(DECLINED_CARD))
    confirmed = sheet_confirm(publishable, intent, card_data())
    assert confirmed.status == "succeeded"
    assert confirmed.last_setup_error is None
    assert attached_ids(client, customer) == [confirmed.payment_method.id]


def test_a_declined_confirmation_is_replayed_with_its_idempotency_key(client, publishable, customer):
    intent = create_intent(client, customer)
    answers = []
    for _ in range(2):
        with pytest.raises(stripe.CardError) as declined:
            publishable.v1.setup_intents.confirm(
                intent.id, params={"client_secret": intent.client_secret, "payment_method": "pm_card_chargeDeclined"},
                options={"idempotency_key": "sheet-confirm-1"},
            )
        answers.append(declined.value)
    first, replay = answers
    assert replay.http_status == 402
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert replay.json_body == first.json_body
    assert len(events_for(client, intent.id, "setup_intent.setup_failed")) == 1


def test_the_sheet_completes_3d_secure_on_purses_page(purse, client, publishable, customer):
    intent = create_intent(client, customer)
    pending = sheet_confirm(publishable, intent, card_data(THREE_D_SECURE_CARD))
    url = authentication_url(pending)
    assert url.startswith(purse.base + "/")
    assert pending.next_action.redirect_to_url.return_url == RETURN_URL
    assert pending.payment_method.customer is None
    page = requests.get(url, timeout=30)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    assert "3155" in page.text and THREE_D_SECURE_CARD not in page.text
    assert sheet_retrieve(publishable, intent).status == "requires_action"  # showing the page changes nothing
    answer = decide(url, "complete")
    assert answer.status_code == 303
    assert answer.headers["Location"] == RETURN_URL
    done = sheet_retrieve(publishable, intent)
    assert (done.status, done.next_action) == ("succeeded", None)
    assert attached_ids(client, customer) == [pending.payment_method.id]
    assert setup_intent_event_types(client, intent.id) == [
        "setup_intent.created", "setup_intent.requires_action", "setup_intent.succeeded",
    ]


def test_the_sheet_fails_3d_secure_on_purses_page(client, publishable, customer):
    intent = create_intent(client, customer)
    url = authentication_url(sheet_confirm(publishable, intent, card_data(THREE_D_SECURE_CARD)))
    assert decide(url, "fail").headers["Location"] == RETURN_URL
    failed = sheet_retrieve(publishable, intent)
    assert (failed.status, failed.next_action, failed.payment_method) == ("requires_payment_method", None, None)
    assert failed.last_setup_error.code == "setup_intent_authentication_failure"
    assert attached_ids(client, customer) == []
    assert setup_intent_event_types(client, intent.id)[-1] == "setup_intent.setup_failed"


def test_the_authentication_page_answers_with_a_page_without_a_return_url(client, customer):
    intent = create_intent(client, customer)
    pending = client.v1.setup_intents.confirm(intent.id, params={"payment_method_data": server_card_data(THREE_D_SECURE_CARD)})
    assert pending.next_action.redirect_to_url.return_url is None
    answer = decide(authentication_url(pending), "complete")
    assert answer.status_code == 200
    assert "Authentication complete" in answer.text
    assert client.v1.setup_intents.retrieve(intent.id).status == "succeeded"


def test_the_secret_key_may_not_send_the_sdks_telemetry(client, customer):
    """Secret-key requests stay strict (spec §3): what the mobile SDKs may send is refused here."""
    intent = create_intent(client, customer)
    for name, extra in [
        ("payment_method_data[payment_user_agent]", {"payment_method_data": card_data()}),
        ("muid", {"payment_method_data": server_card_data(), "muid": "7f1b3c"}),
    ]:
        with pytest.raises(stripe.InvalidRequestError) as refused:
            client.v1.setup_intents.confirm(intent.id, params=extra)
        assert (error_of(refused)["code"], error_of(refused)["param"]) == ("parameter_unknown", name)
    assert client.v1.setup_intents.retrieve(intent.id).status == "requires_payment_method"


def test_the_authentication_page_decides_only_once(client, publishable, customer):
    intent = create_intent(client, customer)
    url = authentication_url(sheet_confirm(publishable, intent, card_data(THREE_D_SECURE_CARD)))
    decide(url, "complete")
    decide(url, "fail")
    assert sheet_retrieve(publishable, intent).status == "succeeded"
    assert len(attached_ids(client, customer)) == 1
    assert setup_intent_event_types(client, intent.id).count("setup_intent.setup_failed") == 0


def test_the_authentication_page_needs_its_token(client, publishable, customer):
    intent = create_intent(client, customer)
    url = authentication_url(sheet_confirm(publishable, intent, card_data(THREE_D_SECURE_CARD)))
    forged = url.rsplit("/", 1)[0] + "/" + "A" * 24
    assert requests.get(forged, timeout=30).status_code == 404
    assert decide(forged, "complete").status_code == 404
    assert decide(url, "approve").status_code == 400
    assert sheet_retrieve(publishable, intent).status == "requires_action"
    assert attached_ids(client, customer) == []


def test_canceling_during_authentication_closes_the_page(client, publishable, customer):
    intent = create_intent(client, customer)
    url = authentication_url(sheet_confirm(publishable, intent, card_data(THREE_D_SECURE_CARD)))
    canceled = client.v1.setup_intents.cancel(intent.id)
    assert (canceled.status, canceled.next_action) == ("canceled", None)
    decide(url, "complete")
    assert client.v1.setup_intents.retrieve(intent.id).status == "canceled"
    assert attached_ids(client, customer) == []


def test_a_new_method_during_authentication_must_be_confirmed_again(client, publishable, customer):
    """Changing the payment method of an intent awaiting 3D Secure asks for a new confirmation
    (Stripe: updating `payment_method` always requires confirming again): the intent leaves
    requires_action, and the old page, shown for the 3D Secure card, cannot save the new method,
    which no processor decision has approved (here a card that declines)."""
    intent = create_intent(client, customer)
    url = authentication_url(sheet_confirm(publishable, intent, card_data(THREE_D_SECURE_CARD)))
    updated = client.v1.setup_intents.update(intent.id, params={"payment_method": "pm_card_chargeDeclined"})
    assert (updated.status, updated.next_action) == ("requires_confirmation", None)
    decide(url, "complete")
    assert client.v1.setup_intents.retrieve(intent.id).status == "requires_confirmation"
    assert attached_ids(client, customer) == []


def test_the_sheet_picks_a_default_and_removes_a_card(purse, client, publishable, customer):
    ephemeral = device(purse, client, customer)
    first = sheet_confirm(publishable, create_intent(client, customer), card_data()).payment_method.id
    mastercard = card_data("5555555555554444")
    second = sheet_confirm(publishable, create_intent(client, customer), mastercard).payment_method.id
    assert [m.id for m in saved_methods(ephemeral, customer)] == [second, first]
    assert select_option(ephemeral, customer, first).option == first
    assert client.v1.customers.retrieve(customer).invoice_settings.default_payment_method == first
    ephemeral.v1.payment_methods.detach(first)
    assert [m.id for m in saved_methods(ephemeral, customer)] == [second]
    assert get_selected_option(ephemeral, customer).option is None
    assert client.v1.customers.retrieve(customer).invoice_settings.default_payment_method is None


# Elements sessions


def test_the_elements_session_of_a_setup_intent(client, publishable, customer):
    intent = create_intent(client, customer, payment_method_types=SHEET_TYPES, metadata={"internal": "yes"})
    session = elements_session(
        publishable, type="setup_intent", client_secret=intent.client_secret,
        expand=["payment_method_preference.setup_intent.payment_method"], locale="en-US",
        mobile_app_id="com.example.sheet",
    )
    assert isinstance(session.session_id, str) and session.session_id
    preference = session.payment_method_preference
    assert preference.type == "setup_intent"
    assert preference.ordered_payment_method_types == SHEET_TYPES
    assert session.unactivated_payment_method_types == []
    assert intent.payment_method_types == SHEET_TYPES
    assert fields(preference.setup_intent) == PUBLISHABLE_FIELDS
    assert preference.setup_intent.client_secret == intent.client_secret
    assert session.livemode is False


def test_the_elements_session_expands_the_intents_method(client, publishable, customer):
    intent = create_intent(client, customer)
    saved = sheet_confirm(publishable, intent, card_data()).payment_method.id
    session = elements_session(
        publishable, type="setup_intent", client_secret=intent.client_secret,
        expand=["payment_method_preference.setup_intent.payment_method"],
    )
    method = session.payment_method_preference.setup_intent.payment_method
    assert (method.id, method.card.last4) == (saved, "4242")


def test_the_elements_session_of_a_deferred_setup(publishable):
    session = elements_session(
        publishable, type="deferred_intent", locale="en-US", mobile_app_id="com.example.sheet",
        deferred_intent={"mode": "setup", "payment_method_types": ["card", "us_bank_account", "ideal"]},
    )
    preference = session.payment_method_preference
    assert preference.type == "deferred_intent"
    assert preference.ordered_payment_method_types == ["card", "us_bank_account"]
    assert session.unactivated_payment_method_types == ["ideal"]
    assert "setup_intent" not in preference


def test_the_elements_session_needs_the_intents_client_secret(client, publishable, customer):
    intent = create_intent(client, customer)
    forged = intent.client_secret.rsplit("_", 1)[0] + "_" + "A" * 24
    with pytest.raises(stripe.InvalidRequestError) as refused:
        elements_session(publishable, type="setup_intent", client_secret=forged)
    assert error_of(refused)["param"] == "client_secret"


# Bank debits


def test_the_sheet_saves_a_us_bank_account_with_an_online_mandate(client, publishable, customer):
    intent = create_intent(client, customer, payment_method_types=SHEET_TYPES)
    confirmed = sheet_confirm(publishable, intent, us_bank_account_data(), mandate_data=ONLINE_MANDATE)
    assert confirmed.status == "succeeded"
    assert confirmed.payment_method.us_bank_account.last4 == "6789"
    assert GOOD_ACCOUNT not in confirmed.last_response.body
    assert client.v1.setup_intents.retrieve(intent.id).mandate
    assert attached_ids(client, customer) == [confirmed.payment_method.id]


def test_the_server_saves_a_sepa_debit_with_an_offline_mandate(client, customer):
    intent = create_intent(client, customer, payment_method_types=["sepa_debit"])
    confirmed = client.v1.setup_intents.confirm(intent.id, params={
        "payment_method_data": sepa_debit_data(), "mandate_data": OFFLINE_MANDATE,
    })
    assert confirmed.status == "succeeded"
    assert confirmed.mandate
    method = client.v1.payment_methods.retrieve(confirmed.payment_method)
    assert (method.sepa_debit.last4, method.customer) == ("3000", customer)


def test_a_bank_debit_needs_a_mandate(client, publishable, customer):
    intent = create_intent(client, customer, payment_method_types=SHEET_TYPES)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        sheet_confirm(publishable, intent, sepa_debit_data())
    assert (error_of(refused)["code"], error_of(refused)["param"]) == ("parameter_missing", "mandate_data")
    unchanged = sheet_retrieve(publishable, intent)
    assert (unchanged.status, unchanged.last_setup_error) == ("requires_payment_method", None)
    assert attached_ids(client, customer) == []


@pytest.mark.parametrize("payment_method_data", [
    us_bank_account_data(CLOSED_ACCOUNT), us_bank_account_data(NO_ACCOUNT), sepa_debit_data(FAILING_IBAN),
], ids=["account closed", "no account", "failing IBAN"])
def test_an_unusable_bank_account_is_refused(client, publishable, customer, payment_method_data):
    intent = create_intent(client, customer, payment_method_types=SHEET_TYPES)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        sheet_confirm(publishable, intent, payment_method_data, mandate_data=ONLINE_MANDATE)
    assert refused.value.http_status == 400
    assert error_of(refused)["code"] == "bank_account_unusable"
    assert error_of(refused)["setup_intent"]["status"] == "requires_payment_method"
    kept = sheet_retrieve(publishable, intent)
    assert (kept.status, kept.last_setup_error.code) == ("requires_payment_method", "bank_account_unusable")
    assert attached_ids(client, customer) == []


# Events and secrets


def test_setup_intent_events_carry_the_client_secret(client, publishable, customer):
    intent = create_intent(client, customer)
    sheet_confirm(publishable, intent, card_data())
    created, = events_for(client, intent.id, "setup_intent.created")
    succeeded, = events_for(client, intent.id, "setup_intent.succeeded")
    assert created.data.object.status == "requires_payment_method"
    assert succeeded.data.object.status == "succeeded"
    assert created.data.object.client_secret == succeeded.data.object.client_secret == intent.client_secret
    assert succeeded.request.id.startswith("req_")
    attached = [e for e in client.v1.events.list(params={"type": "payment_method.attached"}).data
                if e.data.object.customer == customer]
    assert [e.data.object.id for e in attached] == [succeeded.data.object.payment_method]


def test_neither_client_secrets_nor_ephemeral_key_secrets_are_stored(purse, client, publishable, customer):
    """Client secrets are derived from the master key when shown; ephemeral-key secrets are kept
    only as hashes (purse.md §2)."""
    intent = create_intent(client, customer)
    sheet_retrieve(publishable, intent)
    key = create_ephemeral_key(client, customer)
    dump = pg_dump(purse)
    assert intent.id in dump and key.id in dump, "the dump must hold both objects, or the check proves nothing"
    secret_part = intent.client_secret.split("_secret_", 1)[1]
    assert secret_part not in dump
    assert key.secret not in dump and key.secret.removeprefix("ek_test_") not in dump
    log = purse.log_text()
    assert secret_part not in log and key.secret not in log
