"""Sheet settings through stripe-python (purse.md §4): the `/v1/customer_sheet_settings` resource
and where the settings in force apply. The merchant's server manages them with the secret key,
which they never restrict: every Stripe-shaped endpoint behaves for it exactly as without them.
The app's credentials are held to them: the publishable key when it creates a payment method
(the account's default settings) or confirms a setup intent (the intent's settings), an ephemeral
key or a customer session's key when it lists, attaches or reads the selected option (the settings
they were created with, else the default).

stripe-python has no methods for the resource, `current`, the elements session or the selected
option: those go through `raw_request` and `deserialize`, form encoded as the SDK encodes
everything (`payment_method_types[0]=card`). No request can save an expired card, so the tests of
`hide_expired` and `unavailable_reason: expired` age a saved card in the database (conftest's
`psql`), as time would.

Card data: every number and CVC sent here is registered by conftest's recording client and checked
by test_zz_card_data.py. CVCs start with 0, and the only test tokens used are those
test_zz_card_data.py knows the numbers of; other test cards are sent by number."""
import datetime
import re

import pytest
import requests
import stripe

from conftest import psql

THIS_YEAR = datetime.date.today().year
MOBILE_SDK_VERSION = "2020-08-27"  # what stripe-ios sends when it asks for an ephemeral key

VISA = "4242424242424242"  # credit, US
VISA_DEBIT = "4000056655665556"  # debit, US
MASTERCARD_DEBIT = "5200828282828210"  # debit, US
JCB = "3566002020360505"  # credit, JP
THREE_D_SECURE_CARD = "4000002500003155"  # authentication required on setup
CVC = "047"
IBAN = "DE89370400440532013000"
ROUTING_NUMBER = "110000000"
ACCOUNT_NUMBER = "000123456789"

EXPIRY = (11, THIS_YEAR + 4)
NEW_EXPIRY = (3, THIS_YEAR + 7)

# The default settings every account starts with (purse.md §4).
INITIAL = {
    "object": "customer_sheet_settings",
    "name": None,
    "is_default": True,
    "livemode": False,
    "payment_method_types": ["card", "us_bank_account", "sepa_debit"],
    "billing_details_collection": {
        "name": "automatic", "email": "automatic", "phone": "automatic", "address": "automatic",
        "attach_defaults_to_payment_method": False,
    },
    "default_billing_details": {
        "name": None, "email": None, "phone": None, "tax_id": None,
        "address": {"city": None, "country": None, "line1": None, "line2": None, "postal_code": None, "state": None},
    },
    "saved_payment_method_filter": {
        "card": {"funding": [], "brands": []}, "hide_expired": False, "allow_redisplay": [], "countries": [],
    },
    "duplicate_cards": "allow",
}

# The strictest settings a merchant might choose: cards only, every billing detail, debit cards
# from the US that have not expired, and no second copy of a saved card.
STRICT = {
    "payment_method_types": ["card"],
    "billing_details_collection": {"name": "always", "email": "always", "phone": "always", "address": "full"},
    "saved_payment_method_filter": {"card": {"funding": ["debit"]}, "countries": ["US"], "hide_expired": True},
    "duplicate_cards": "reuse",
}

# Billing details that satisfy STRICT.
FULL_BILLING = {
    "name": "Jenny Rosen",
    "email": "jenny@example.com",
    "phone": "+15555550100",
    "address": {
        "line1": "510 Townsend St", "city": "San Francisco", "state": "CA", "postal_code": "94103", "country": "US",
    },
}

OFFLINE_MANDATE = {"customer_acceptance": {"type": "offline"}}
# What stripe-ios sends with the publishable key.
INFERRED_MANDATE = {"customer_acceptance": {"type": "online", "online": {"infer_from_client": True}}}
RETURN_URL = "purse-sample://stripe-redirect"


# Fixtures and helpers


@pytest.fixture
def publishable(purse, account):
    """The app's StripeClient before it knows the customer: the publishable key."""
    return purse.client(account["publishable_key"], max_network_retries=0)


@pytest.fixture
def customer(client):
    return client.v1.customers.create(params={"email": "jenny@example.com"}).id


def call(client, method, path, **params):
    return client.deserialize(client.raw_request(method, path, **params), api_mode="V1")


def create_settings(client, **params):
    return call(client, "post", "/v1/customer_sheet_settings", **params)


def retrieve_settings(client, settings_id="default"):
    return call(client, "get", f"/v1/customer_sheet_settings/{settings_id}")


def update_settings(client, settings_id="default", **params):
    return call(client, "post", f"/v1/customer_sheet_settings/{settings_id}", **params)


def delete_settings(client, settings_id):
    return call(client, "delete", f"/v1/customer_sheet_settings/{settings_id}")


def list_settings(client, **params):
    return call(client, "get", "/v1/customer_sheet_settings", **params)


def current_settings(device):
    return call(device, "get", "/v1/customer_sheet_settings/current")


def make_strict(client):
    """The account's default settings made STRICT: what the publishable key and unbound keys get."""
    return update_settings(client, "default", **STRICT)


def without_identity(settings):
    """A settings object as a dict, without what differs between any two of them."""
    return {key: value for key, value in settings.to_dict().items() if key not in ("id", "created")}


def card(number=VISA, expiry=EXPIRY, cvc=CVC):
    return {"number": number, "exp_month": expiry[0], "exp_year": expiry[1], "cvc": cvc}


def create_card(client, number=VISA, expiry=EXPIRY, billing_details=None):
    params = {"type": "card", "card": card(number, expiry)}
    if billing_details is not None:
        params["billing_details"] = billing_details
    return client.v1.payment_methods.create(params=params)


def sepa_debit(client, billing_details=None):
    params = {"type": "sepa_debit", "sepa_debit": {"iban": IBAN}}
    if billing_details is not None:
        params["billing_details"] = billing_details
    return client.v1.payment_methods.create(params=params)


def us_bank_account(client, billing_details=None):
    params = {
        "type": "us_bank_account",
        "us_bank_account": {
            "routing_number": ROUTING_NUMBER, "account_number": ACCOUNT_NUMBER, "account_holder_type": "individual",
        },
    }
    if billing_details is not None:
        params["billing_details"] = billing_details
    return client.v1.payment_methods.create(params=params)


def attach(client, method, customer):
    return client.v1.payment_methods.attach(method, params={"customer": customer})


def saved_card(client, customer, number=VISA, expiry=EXPIRY, allow_redisplay=None):
    """A card the merchant's server saved for the customer earlier (secret key)."""
    method = attach(client, create_card(client, number, expiry).id, customer)
    if allow_redisplay:
        method = client.v1.payment_methods.update(method.id, params={"allow_redisplay": allow_redisplay})
    return method


def create_ephemeral_key(client, customer, **params):
    return client.v1.ephemeral_keys.create(
        params={"customer": customer, **params}, options={"stripe_version": MOBILE_SDK_VERSION}
    )


def device(purse, client, customer, **params):
    """A StripeClient on a new ephemeral key of the customer, as the app's customer adapter holds it."""
    return purse.client(create_ephemeral_key(client, customer, **params).secret, max_network_retries=0)


def create_intent(client, customer, **params):
    return client.v1.setup_intents.create(params={"customer": customer, **params})


def sheet_confirm(publishable, intent, payment_method_data=None, **params):
    """`POST /v1/setup_intents/{id}/confirm` as stripe-ios sends it with the publishable key."""
    if payment_method_data is not None:
        params["payment_method_data"] = payment_method_data
    return publishable.v1.setup_intents.confirm(intent.id, params={
        "client_secret": intent.client_secret, "return_url": RETURN_URL, "use_stripe_sdk": True,
        "expand": ["payment_method"], **params,
    })


def card_data(number=VISA, expiry=EXPIRY, billing_details=None):
    data = {"type": "card", "card": card(number, expiry)}
    if billing_details is not None:
        data["billing_details"] = billing_details
    return data


def ids(objects):
    return [o.id for o in objects]


def attached_ids(client, customer):
    """Everything attached to the customer, as the secret key sees it (never filtered)."""
    return ids(client.v1.customers.payment_methods.list(customer, params={"limit": 100}).data)


def listed(client, customer, kind):
    """`GET /v1/payment_methods?customer=&type=&limit=100`, as stripe-ios's customer adapter lists."""
    return ids(client.v1.payment_methods.list(params={"customer": customer, "type": kind, "limit": 100}).data)


def elements_session(publishable, **params):
    """`GET /v1/elements/sessions`, which stripe-python has no method for."""
    params.setdefault("type", "deferred_intent")
    if params["type"] == "deferred_intent":
        params.setdefault("deferred_intent", {"mode": "setup", "payment_method_types": ["card"]})
    return call(publishable, "get", "/v1/elements/sessions", **params)


def selected_option(client, customer):
    return call(client, "get", f"/v1/customers/{customer}/selected_payment_option")


def select(client, customer, option):
    return call(client, "post", f"/v1/customers/{customer}/selected_payment_option", option=option)


def refusal(call_):
    """(status, code, param) of the error a call raises; `[::2]` is (status, param)."""
    with pytest.raises(stripe.StripeError) as refused:
        call_()
    error = refused.value.json_body["error"]
    return refused.value.http_status, error.get("code"), error.get("param")


def last_month():
    """The month before this one on the server's clock (UTC): a card that expired then is expired."""
    today = datetime.datetime.now(datetime.timezone.utc).date()
    return (12, today.year - 1) if today.month == 1 else (today.month - 1, today.year)


def expire(purse, method_id):
    """Makes a saved card expired, as if it had been saved years ago: no request can save an expired
    card, so the test changes the stored row (its details and the columns the filter reads)."""
    month, year = last_month()
    psql(
        purse,
        """
        UPDATE payment_methods
        SET card_exp_month = :month, card_exp_year = :year,
            details = (details::jsonb || jsonb_build_object('exp_month', :month, 'exp_year', :year))::json
        WHERE id = :'id';
        """,
        id=method_id, month=month, year=year,
    )


# The resource: create, retrieve, update, list, delete


def test_every_account_starts_with_default_settings(client):
    default = retrieve_settings(client, "default")
    assert re.fullmatch(r"css_[A-Za-z0-9]+", default.id)
    assert isinstance(default.created, int)
    assert without_identity(default) == INITIAL
    assert retrieve_settings(client, default.id).to_dict() == default.to_dict()
    page = list_settings(client)
    assert page.object == "list" and page.url == "/v1/customer_sheet_settings" and page.has_more is False
    assert [s.to_dict() for s in page.data] == [default.to_dict()]


def test_create_retrieve_list_and_delete_settings(client):
    default = retrieve_settings(client).id
    created = create_settings(
        client, name="Debit cards", payment_method_types=["card", "card"],
        saved_payment_method_filter={"card": {"funding": ["debit", "prepaid"], "brands": ["visa"]}},
    )
    assert created.id.startswith("css_") and created.id != default
    assert created.object == "customer_sheet_settings"
    assert created.name == "Debit cards"
    assert created.is_default is False
    assert created.payment_method_types == ["card"]
    assert created.saved_payment_method_filter.to_dict() == {
        "card": {"funding": ["debit", "prepaid"], "brands": ["visa"]}, "hide_expired": False, "allow_redisplay": [],
        "countries": [],
    }
    # Whatever is not sent takes the initial value.
    assert created.billing_details_collection.to_dict() == INITIAL["billing_details_collection"]
    assert created.duplicate_cards == "allow"
    assert retrieve_settings(client, created.id).to_dict() == created.to_dict()
    blank = create_settings(client)
    assert without_identity(blank) == {**INITIAL, "is_default": False}

    assert ids(list_settings(client).data) == [blank.id, created.id, default]
    first = list_settings(client, limit=1)
    assert ids(first.data) == [blank.id] and first.has_more is True
    assert ids(list_settings(client, starting_after=blank.id).data) == [created.id, default]

    deleted = delete_settings(client, created.id)
    assert deleted.to_dict() == {"id": created.id, "object": "customer_sheet_settings", "deleted": True}
    assert refusal(lambda: retrieve_settings(client, created.id))[:2] == (404, "resource_missing")
    assert refusal(lambda: delete_settings(client, created.id))[:2] == (404, "resource_missing")
    assert ids(list_settings(client).data) == [blank.id, default]


def test_the_default_settings_cannot_be_deleted(client):
    default = retrieve_settings(client)
    for name in ("default", default.id):
        with pytest.raises(stripe.InvalidRequestError) as refused:
            delete_settings(client, name)
        assert refused.value.http_status == 400
        assert refused.value.error.type == "invalid_request_error"
    assert retrieve_settings(client).to_dict() == default.to_dict()


def test_settings_belong_to_their_account_and_its_secret_key(purse, client, publishable, customer):
    mine = create_settings(client, name="Mine")
    other = purse.client(purse.create_account(name="Other")["secret_key"], max_network_retries=0)
    assert refusal(lambda: retrieve_settings(other, mine.id))[:2] == (404, "resource_missing")
    assert refusal(lambda: update_settings(other, mine.id, name="Theirs"))[:2] == (404, "resource_missing")
    assert retrieve_settings(other).id != retrieve_settings(client).id
    ephemeral = device(purse, client, customer)
    for credential in (publishable, ephemeral):
        assert refusal(lambda: retrieve_settings(credential))[:2] == (403, "secret_key_required")
        assert refusal(lambda: list_settings(credential))[:2] == (403, "secret_key_required")
        assert refusal(lambda: create_settings(credential, name="App"))[:2] == (403, "secret_key_required")
        assert refusal(lambda: update_settings(credential, "default", **STRICT))[:2] == (403, "secret_key_required")
    assert retrieve_settings(client, mine.id).name == "Mine"
    assert without_identity(retrieve_settings(client)) == INITIAL


def test_an_update_changes_only_what_is_sent_and_merges_nested_fields(client):
    settings = create_settings(
        client, name="Sheet",
        billing_details_collection={"name": "always", "address": "full"},
        default_billing_details={"name": "Jenny Rosen", "address": {"country": "US", "city": "Oslo"}},
        saved_payment_method_filter={"card": {"funding": ["debit"], "brands": ["visa"]}, "countries": ["US"]},
    )
    updated = update_settings(
        client, settings.id,
        billing_details_collection={"email": "never"},
        default_billing_details={"email": "jenny@example.com", "address": {"city": "Boston"}},
        saved_payment_method_filter={"card": {"brands": ["mastercard", "amex"]}, "hide_expired": True},
    )
    assert updated.id == settings.id and updated.created == settings.created
    assert updated.name == "Sheet"
    assert updated.billing_details_collection.to_dict() == {
        "name": "always", "email": "never", "phone": "automatic", "address": "full",
        "attach_defaults_to_payment_method": False,
    }
    assert updated.default_billing_details.to_dict() == {
        "name": "Jenny Rosen", "email": "jenny@example.com", "phone": None, "tax_id": None,
        "address": {
            "city": "Boston", "country": "US", "line1": None, "line2": None, "postal_code": None, "state": None,
        },
    }
    assert updated.saved_payment_method_filter.to_dict() == {
        "card": {"funding": ["debit"], "brands": ["mastercard", "amex"]}, "hide_expired": True,
        "allow_redisplay": [], "countries": ["US"],
    }
    assert retrieve_settings(client, settings.id).to_dict() == updated.to_dict()
    # An update that sends nothing changes nothing.
    assert update_settings(client, settings.id).to_dict() == updated.to_dict()


def test_an_empty_value_clears_a_list_or_a_field(client):
    settings = create_settings(
        client, name="Sheet", default_billing_details={"name": "Jenny Rosen", "address": {"city": "Oslo"}},
        saved_payment_method_filter={
            "card": {"funding": ["debit"], "brands": ["visa"]}, "allow_redisplay": ["always"],
            "countries": ["US", "DE"],
        },
    )
    cleared = update_settings(
        client, settings.id, name="",
        default_billing_details={"name": "", "address": {"city": ""}},
        saved_payment_method_filter={"card": {"funding": ""}, "countries": ""},
    )
    assert cleared.name is None
    assert cleared.default_billing_details.name is None
    assert cleared.default_billing_details.address.city is None
    assert cleared.saved_payment_method_filter.to_dict() == {
        "card": {"funding": [], "brands": ["visa"]}, "hide_expired": False, "allow_redisplay": ["always"],
        "countries": [],
    }
    # The types a sheet may add cannot be cleared: a sheet must be able to add something.
    status, _, param = refusal(lambda: update_settings(client, settings.id, payment_method_types=""))
    assert (status, param) == (400, "payment_method_types")
    assert retrieve_settings(client, settings.id).to_dict() == cleared.to_dict()


def test_an_empty_value_clears_a_hash(client):
    """docs/api.md: an empty value unsets a field or clears a list or hash. Emptying
    `default_billing_details` removes every default, emptying `saved_payment_method_filter` every
    filter."""
    settings = create_settings(
        client, default_billing_details={"name": "Jenny Rosen", "address": {"city": "Oslo"}},
        saved_payment_method_filter={"card": {"funding": ["debit"]}, "countries": ["US"], "hide_expired": True},
    )
    cleared = update_settings(client, settings.id, default_billing_details="", saved_payment_method_filter="")
    assert cleared.default_billing_details.to_dict() == INITIAL["default_billing_details"]
    assert cleared.saved_payment_method_filter.to_dict() == INITIAL["saved_payment_method_filter"]
    assert retrieve_settings(client, settings.id).to_dict() == cleared.to_dict()


@pytest.mark.parametrize("params, param", [
    ({"payment_method_types": ["paypal"]}, "payment_method_types[0]"),
    ({"payment_method_types": ["card", "ideal"]}, "payment_method_types[1]"),
    ({"billing_details_collection": {"name": "sometimes"}}, "billing_details_collection[name]"),
    ({"billing_details_collection": {"phone": "full"}}, "billing_details_collection[phone]"),
    ({"billing_details_collection": {"address": "always"}}, "billing_details_collection[address]"),
    ({"billing_details_collection": {"shoe_size": "always"}}, "billing_details_collection[shoe_size]"),
    ({"saved_payment_method_filter": {"card": {"funding": ["gold"]}}}, "saved_payment_method_filter[card][funding][0]"),
    ({"saved_payment_method_filter": {"card": {"brands": ["visa", "maestro"]}}},
     "saved_payment_method_filter[card][brands][1]"),
    ({"saved_payment_method_filter": {"nope": "1"}}, "saved_payment_method_filter[nope]"),
    ({"saved_payment_method_filter": {"countries": ["usa"]}}, "saved_payment_method_filter[countries][0]"),
    ({"saved_payment_method_filter": {"countries": ["US", "de"]}}, "saved_payment_method_filter[countries][1]"),
    ({"saved_payment_method_filter": {"allow_redisplay": ["sometimes"]}},
     "saved_payment_method_filter[allow_redisplay][0]"),
    ({"billing_details_collection": {"attach_defaults_to_payment_method": "maybe"}},
     "billing_details_collection[attach_defaults_to_payment_method]"),
    ({"saved_payment_method_filter": {"hide_expired": "maybe"}}, "saved_payment_method_filter[hide_expired]"),
    ({"default_billing_details": {"nickname": "Jen"}}, "default_billing_details[nickname]"),
    ({"name": "x" * 201}, "name"),
    ({"duplicate_cards": "merge"}, "duplicate_cards"),
    ({"colour": "blue"}, "colour"),
])
def test_bad_values_are_refused_naming_the_parameter(client, params, param):
    before = retrieve_settings(client)
    for attempt in (lambda: create_settings(client, **params), lambda: update_settings(client, "default", **params)):
        with pytest.raises(stripe.InvalidRequestError) as refused:
            attempt()
        assert refused.value.http_status == 400
        assert refused.value.error.type == "invalid_request_error"
        assert refused.value.param == param
    assert retrieve_settings(client).to_dict() == before.to_dict()
    assert ids(list_settings(client).data) == [before.id]


# The secret key is never restricted


def same_shape(value, names):
    """A response with what legitimately differs between two accounts replaced: ids (numbered in
    the order they first appear), times, fingerprints (keyed per account), client secrets and
    invoice prefixes (random)."""
    if isinstance(value, dict):
        return {
            key: f"<{key}>" if key in ("created", "fingerprint", "client_secret", "invoice_prefix") and item is not None
            else same_shape(item, names)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [same_shape(item, names) for item in value]
    if isinstance(value, str):
        return re.sub(
            r"\b(cus|pm|seti|mandate)_[A-Za-z0-9]+",
            lambda match: names.setdefault(match.group(0), f"<{match.group(1)} {len(names)}>"),
            value,
        )
    return value


def merchant_flow(client):
    """What a merchant's server does with its secret key, and everything it gets back, by step:
    customers, payment methods of every type without billing details, attach (the same visa three
    times), detach, the default, setup intents for a credit card and a SEPA debit, lists,
    events."""
    seen = {}
    customer = seen["customer"] = client.v1.customers.create(
        params={"email": "jenny@example.com", "name": "Jenny Rosen"}
    )
    typed = seen["card"] = create_card(client)
    sepa = seen["sepa_debit"] = sepa_debit(client)
    bank = seen["us_bank_account"] = us_bank_account(client)
    for name, method in [("card", typed.id), ("sepa_debit", sepa.id), ("us_bank_account", bank.id),
                         ("mastercard", "pm_card_mastercard"), ("visa", "pm_card_visa")]:
        seen[f"attach {name}"] = attach(client, method, customer.id)
    seen["default"] = client.v1.customers.update(customer.id, params={
        "invoice_settings": {"default_payment_method": typed.id}, "expand": ["invoice_settings.default_payment_method"],
    })
    intent = client.v1.setup_intents.create(params={"customer": customer.id, "payment_method_types": ["card"]})
    seen["confirm card"] = client.v1.setup_intents.confirm(intent.id, params={"payment_method": "pm_card_visa"})
    sepa_intent = client.v1.setup_intents.create(
        params={"customer": customer.id, "payment_method_types": ["sepa_debit"]}
    )
    seen["confirm sepa_debit"] = client.v1.setup_intents.confirm(sepa_intent.id, params={
        "payment_method_data": {"type": "sepa_debit", "sepa_debit": {"iban": IBAN}}, "mandate_data": OFFLINE_MANDATE,
        "expand": ["payment_method"],
    })
    seen["detach"] = client.v1.payment_methods.detach(seen["attach mastercard"].id)
    for kind in ("card", "sepa_debit", "us_bank_account"):
        seen[f"list {kind}"] = client.v1.payment_methods.list(
            params={"customer": customer.id, "type": kind, "limit": 100}
        )
    seen["list all"] = client.v1.customers.payment_methods.list(customer.id, params={"limit": 100})
    seen["retrieve customer"] = client.v1.customers.retrieve(customer.id)
    responses = {step: item.to_dict() for step, item in seen.items()}
    responses["events"] = [event.type for event in client.v1.events.list(params={"limit": 100}).data]
    return responses


def test_the_secret_key_works_exactly_as_without_settings(purse, client):
    strict = make_strict(client)
    plain = purse.client(purse.create_account(name="Plain")["secret_key"], max_network_retries=0)
    with_settings, without_settings = merchant_flow(client), merchant_flow(plain)
    assert same_shape(with_settings, {}) == same_shape(without_settings, {})

    # What the strict settings would refuse or hide for a client, the secret key got.
    cards = with_settings["list card"]["data"]
    assert [m["card"]["funding"] for m in cards] == ["credit", "credit", "credit"]
    assert len({m["card"]["fingerprint"] for m in cards}) == 1  # the same visa, saved three times
    debits = with_settings["list sepa_debit"]["data"]
    assert [m["sepa_debit"]["country"] for m in debits] == ["DE", "DE"]
    banks = with_settings["list us_bank_account"]["data"]
    assert [m["billing_details"]["name"] for m in debits + banks] == [None, None, None]
    assert len(with_settings["list all"]["data"]) == 6
    assert with_settings["confirm card"]["status"] == "succeeded"
    assert with_settings["confirm sepa_debit"]["status"] == "succeeded"
    assert with_settings["confirm sepa_debit"]["mandate"].startswith("mandate_")
    default = with_settings["retrieve customer"]["invoice_settings"]["default_payment_method"]
    assert default == with_settings["card"]["id"]
    assert retrieve_settings(client).to_dict() == strict.to_dict()


def test_the_secret_key_confirmation_completed_on_the_authentication_page_is_not_restricted(client, customer):
    """A 3D Secure card the merchant's server confirmed with its secret key, which the customer
    completes on Purse's page: the secret key's confirmation saves the card as it would without
    settings, a new method even when the customer has the same card already."""
    make_strict(client)
    saved = saved_card(client, customer, THREE_D_SECURE_CARD)
    intent = create_intent(client, customer, payment_method_data=card_data(THREE_D_SECURE_CARD), confirm=True)
    assert intent.status == "requires_action"
    page = requests.post(intent.next_action.redirect_to_url.url, data={"action": "complete"}, allow_redirects=False,
                         timeout=30)
    assert page.status_code == 200  # no return_url: the page shows the outcome
    completed = client.v1.setup_intents.retrieve(intent.id)
    assert completed.status == "succeeded"
    assert completed.payment_method != saved.id
    assert set(attached_ids(client, customer)) == {saved.id, completed.payment_method}


# What the publishable key may create


def test_the_publishable_key_adds_only_the_types_allowed(client, publishable):
    make_strict(client)
    assert refusal(lambda: sepa_debit(publishable, FULL_BILLING))[::2] == (400, "type")
    assert refusal(lambda: us_bank_account(publishable, FULL_BILLING))[::2] == (400, "type")
    assert create_card(publishable, billing_details=FULL_BILLING).type == "card"
    # The secret key adds what it likes.
    assert sepa_debit(client).type == "sepa_debit"


@pytest.mark.parametrize("missing, param", [
    ("name", "billing_details[name]"),
    ("email", "billing_details[email]"),
    ("phone", "billing_details[phone]"),
    ("line1", "billing_details[address][line1]"),
    ("city", "billing_details[address][city]"),
    ("postal_code", "billing_details[address][postal_code]"),
    ("country", "billing_details[address][country]"),
    ("state", "billing_details[address][state]"),
])
def test_the_publishable_key_must_send_what_is_always_collected(client, publishable, missing, param):
    make_strict(client)
    billing = {key: value for key, value in FULL_BILLING.items() if key != missing}
    billing["address"] = {key: value for key, value in FULL_BILLING["address"].items() if key != missing}
    assert refusal(lambda: create_card(publishable, billing_details=billing)) == (400, "parameter_missing", param)
    method = create_card(publishable, billing_details=FULL_BILLING)
    assert method.billing_details.to_dict() == {
        **FULL_BILLING, "address": {**FULL_BILLING["address"], "line2": None}, "tax_id": None,
    }
    assert create_card(client).billing_details.name is None


def test_a_full_address_needs_a_state_only_in_the_us(client, publishable):
    make_strict(client)
    german = {**FULL_BILLING, "address": {"line1": "Unter den Linden 1", "city": "Berlin", "postal_code": "10117",
                                          "country": "DE"}}
    assert create_card(publishable, billing_details=german).billing_details.address.state is None


def test_never_accepts_only_the_default_and_can_attach_it(client, publishable):
    defaults = {
        "name": "Jenny Rosen", "email": "jenny@example.com", "address": {"country": "US", "postal_code": "94103"},
    }
    update_settings(
        client, "default",
        billing_details_collection={"name": "never", "email": "never", "phone": "never", "address": "never"},
        default_billing_details=defaults,
    )
    # Stock SDKs send the defaults for what the sheet does not collect: accepted and kept.
    echoed = create_card(publishable, billing_details=defaults)
    assert (echoed.billing_details.name, echoed.billing_details.email) == ("Jenny Rosen", "jenny@example.com")
    # Nothing sent, nothing attached.
    bare = create_card(publishable)
    assert bare.billing_details.name is None and bare.billing_details.address.country is None
    for field, value, param in [
        ("name", "Someone Else", "billing_details[name]"),
        ("email", "someone@example.com", "billing_details[email]"),
        ("phone", "+15555550199", "billing_details[phone]"),
        ("address", {"country": "DE"}, "billing_details[address]"),
    ]:
        status, _, named = refusal(lambda: create_card(publishable, billing_details={field: value}))
        assert (status, named) == (400, param)
    # With attach_defaults_to_payment_method the defaults are attached to what is saved.
    update_settings(client, "default", billing_details_collection={"attach_defaults_to_payment_method": True})
    attached = create_card(publishable)
    assert attached.billing_details.name == "Jenny Rosen"
    assert attached.billing_details.email == "jenny@example.com"
    assert attached.billing_details.phone is None
    assert attached.billing_details.address.to_dict() == {
        "city": None, "country": "US", "line1": None, "line2": None, "postal_code": "94103", "state": None,
    }
    # The secret key sends what it likes, and gets no defaults.
    free = create_card(client, billing_details={"name": "Someone Else"})
    assert free.billing_details.name == "Someone Else" and free.billing_details.email is None


def test_a_confirmation_applies_the_intents_billing_rules_to_a_method_it_names(client, publishable, customer):
    """Whether the method is created inline or named by id, what is saved follows the intent's
    settings: `never` refuses a value other than the default, and the default is attached."""
    collected_by_merchant = create_settings(
        client, name="Merchant collects the name",
        billing_details_collection={"name": "never", "attach_defaults_to_payment_method": True},
        default_billing_details={"name": "Jenny Rosen"},
    )
    intent = create_intent(client, customer, customer_sheet_settings=collected_by_merchant.id)
    someone_else = card_data(billing_details={"name": "Someone Else"})
    assert refusal(lambda: sheet_confirm(publishable, intent, someone_else))[::2] == (
        400, "payment_method_data[billing_details][name]",
    )
    named = client.v1.payment_methods.create(params={
        "type": "card", "card": card(VISA_DEBIT), "billing_details": {"name": "Someone Else"},
    })
    status, _, param = refusal(lambda: sheet_confirm(publishable, intent, payment_method=named.id))
    assert status == 400 and param.startswith("payment_method")
    assert client.v1.setup_intents.retrieve(intent.id).status == "requires_payment_method"
    # A method without a name gets the default, inline or named.
    bare = client.v1.payment_methods.create(params={"type": "card", "card": card(MASTERCARD_DEBIT)})
    confirmed = sheet_confirm(publishable, intent, payment_method=bare.id)
    assert confirmed.status == "succeeded"
    assert confirmed.payment_method.id == bare.id
    assert client.v1.payment_methods.retrieve(bare.id).billing_details.name == "Jenny Rosen"
    second = create_intent(client, customer, customer_sheet_settings=collected_by_merchant.id)
    inline = sheet_confirm(publishable, second, card_data())
    assert inline.payment_method.billing_details.name == "Jenny Rosen"
    # The account's default settings (all automatic) leave a confirmation's method as it is.
    plain = sheet_confirm(publishable, create_intent(client, customer), card_data(VISA_DEBIT))
    assert plain.payment_method.billing_details.name is None


def test_automatic_requires_what_the_type_needs(client, publishable):
    """The initial settings: SEPA debits need a name and an email, US bank accounts a name."""
    assert refusal(lambda: sepa_debit(publishable)) == (400, "parameter_missing", "billing_details[name]")
    assert refusal(lambda: sepa_debit(publishable, {"name": "Jenny Rosen"})) == (
        400, "parameter_missing", "billing_details[email]",
    )
    assert sepa_debit(publishable, {"name": "Jenny Rosen", "email": "jenny@example.com"}).type == "sepa_debit"
    assert refusal(lambda: us_bank_account(publishable)) == (400, "parameter_missing", "billing_details[name]")
    assert us_bank_account(publishable, {"name": "Jenny Rosen"}).type == "us_bank_account"
    assert create_card(publishable).billing_details.name is None
    # The secret key needs none of it.
    assert sepa_debit(client).billing_details.email is None
    assert us_bank_account(client).billing_details.name is None


# What the publishable key may confirm


def test_a_confirmation_with_the_publishable_key_is_checked(client, publishable, customer):
    make_strict(client)
    intent = create_intent(client, customer)
    missing_name = card_data(billing_details={k: v for k, v in FULL_BILLING.items() if k != "name"})
    assert refusal(lambda: sheet_confirm(publishable, intent, missing_name)) == (
        400, "parameter_missing", "payment_method_data[billing_details][name]",
    )
    no_state = card_data(billing_details={**FULL_BILLING, "address": {**FULL_BILLING["address"], "state": ""}})
    assert refusal(lambda: sheet_confirm(publishable, intent, no_state)) == (
        400, "parameter_missing", "payment_method_data[billing_details][address][state]",
    )
    # A method named by id (here a test token, which has no billing details) is checked as well.
    status, code, param = refusal(lambda: sheet_confirm(publishable, intent, payment_method="pm_card_visa"))
    assert (status, code) == (400, "parameter_missing") and param.startswith("payment_method")
    # Refusals change nothing.
    unchanged = client.v1.setup_intents.retrieve(intent.id)
    assert (unchanged.status, unchanged.payment_method, unchanged.last_setup_error) == (
        "requires_payment_method", None, None,
    )
    assert attached_ids(client, customer) == []
    confirmed = sheet_confirm(publishable, intent, card_data(VISA_DEBIT, billing_details=FULL_BILLING))
    assert confirmed.status == "succeeded"
    assert confirmed.payment_method.billing_details.name == "Jenny Rosen"
    assert attached_ids(client, customer) == [confirmed.payment_method.id]


def test_a_confirmation_uses_its_intents_settings_else_the_default(client, publishable, customer):
    update_settings(client, "default", payment_method_types=["card"])
    bank_debits = create_settings(client, name="Bank debits", payment_method_types=["sepa_debit", "us_bank_account"])
    default_id = retrieve_settings(client).id
    types = ["card", "sepa_debit"]
    bound = create_intent(client, customer, payment_method_types=types, customer_sheet_settings=bank_debits.id)
    unbound = create_intent(client, customer, payment_method_types=types)
    by_alias = create_intent(client, customer, payment_method_types=types, customer_sheet_settings="default")
    assert (bound.customer_sheet_settings, unbound.customer_sheet_settings) == (bank_debits.id, None)
    assert by_alias.customer_sheet_settings == default_id
    sepa = {"type": "sepa_debit", "sepa_debit": {"iban": IBAN},
            "billing_details": {"name": "Jenny Rosen", "email": "jenny@example.com"}}

    assert refusal(lambda: sheet_confirm(publishable, bound, card_data()))[::2] == (400, "payment_method_data[type]")
    assert sheet_confirm(publishable, bound, sepa, mandate_data=INFERRED_MANDATE).status == "succeeded"
    for intent in (unbound, by_alias):
        assert refusal(lambda: sheet_confirm(publishable, intent, sepa, mandate_data=INFERRED_MANDATE))[::2] == (
            400, "payment_method_data[type]",
        )
        assert sheet_confirm(publishable, intent, card_data()).status == "succeeded"

    # The secret key confirms whatever the intent's types allow, whichever settings it names.
    secret_bound = create_intent(client, customer, payment_method_types=types, customer_sheet_settings=bank_debits.id)
    confirmed = client.v1.setup_intents.confirm(secret_bound.id, params={"payment_method": "pm_card_visa"})
    assert confirmed.status == "succeeded"


def test_an_intent_names_settings_of_its_account(purse, client, publishable, customer):
    other = purse.client(purse.create_account(name="Other")["secret_key"], max_network_retries=0)
    theirs = create_settings(other, name="Theirs")
    for name in ("css_nothing", theirs.id):
        assert refusal(lambda: create_intent(client, customer, customer_sheet_settings=name)) == (
            400, "resource_missing", "customer_sheet_settings",
        )
        assert refusal(lambda: create_ephemeral_key(client, customer, customer_sheet_settings=name)) == (
            400, "resource_missing", "customer_sheet_settings",
        )
        assert refusal(lambda: client.v1.customer_sessions.create(params={
            "customer": customer, "components": {"customer_sheet": {"enabled": True}}, "customer_sheet_settings": name,
        })) == (400, "resource_missing", "customer_sheet_settings")
    assert client.v1.setup_intents.list().data == []
    # The publishable key sees the intent as Stripe documents it, without Purse's field.
    mine = create_settings(client, name="Mine")
    intent = create_intent(client, customer, customer_sheet_settings=mine.id)
    seen = publishable.v1.setup_intents.retrieve(intent.id, params={"client_secret": intent.client_secret})
    assert "customer_sheet_settings" not in seen.to_dict()
    assert client.v1.setup_intents.retrieve(intent.id).customer_sheet_settings == mine.id


def test_deleted_settings_send_their_intent_back_to_the_default(client, publishable, customer):
    update_settings(client, "default", payment_method_types=["card"])
    banks = create_settings(client, name="Banks", payment_method_types=["sepa_debit"])
    intent = create_intent(
        client, customer, payment_method_types=["card", "sepa_debit"], customer_sheet_settings=banks.id
    )
    session = elements_session(publishable, type="setup_intent", client_secret=intent.client_secret)
    assert session.customer_sheet_settings.to_dict() == banks.to_dict()
    delete_settings(client, banks.id)
    assert client.v1.setup_intents.retrieve(intent.id).customer_sheet_settings is None
    session = elements_session(publishable, type="setup_intent", client_secret=intent.client_secret)
    assert session.customer_sheet_settings.to_dict() == retrieve_settings(client).to_dict()
    assert sheet_confirm(publishable, intent, card_data()).status == "succeeded"


# The settings in force, as clients read them


def test_an_ephemeral_key_reads_the_settings_in_force(purse, client, publishable, customer):
    default = make_strict(client)
    named = create_settings(client, name="Sheet", payment_method_types=["sepa_debit"])
    assert current_settings(device(purse, client, customer)).to_dict() == default.to_dict()
    assert current_settings(device(purse, client, customer, customer_sheet_settings="default")).to_dict() == (
        default.to_dict()
    )
    bound = device(purse, client, customer, customer_sheet_settings=named.id)
    assert current_settings(bound).to_dict() == named.to_dict()
    # Changes show at once; deleted settings fall back to the default.
    updated = update_settings(client, named.id, duplicate_cards="reuse")
    assert current_settings(bound).to_dict() == updated.to_dict()
    delete_settings(client, named.id)
    assert current_settings(bound).to_dict() == default.to_dict()
    # Only a customer's key has settings in force.
    assert refusal(lambda: current_settings(client))[:2] == (403, "secret_key_required")
    assert refusal(lambda: current_settings(publishable))[:2] == (403, "secret_key_required")


def test_the_elements_session_returns_the_settings_in_force(client, publishable, customer):
    default = make_strict(client)
    assert elements_session(publishable).customer_sheet_settings.to_dict() == default.to_dict()
    intent = create_intent(client, customer)
    session = elements_session(publishable, type="setup_intent", client_secret=intent.client_secret)
    assert session.customer_sheet_settings.to_dict() == default.to_dict()
    named = create_settings(client, name="Sheet")
    bound = create_intent(client, customer, customer_sheet_settings=named.id)
    session = elements_session(publishable, type="setup_intent", client_secret=bound.client_secret)
    assert session.customer_sheet_settings.to_dict() == named.to_dict()


def test_a_customer_session_shows_its_customer_through_its_settings(purse, client, publishable, customer):
    default = make_strict(client)
    credit = saved_card(client, customer, VISA, allow_redisplay="always")
    debit = saved_card(client, customer, VISA_DEBIT, allow_redisplay="always")
    sepa = client.v1.payment_methods.update(attach(client, sepa_debit(client).id, customer).id,
                                            params={"allow_redisplay": "always"})
    components = {"customer_sheet": {"enabled": True}}
    strict_session = client.v1.customer_sessions.create(params={"customer": customer, "components": components})
    claimed = elements_session(publishable, customer_session_client_secret=strict_session.client_secret)
    assert claimed.customer_sheet_settings.to_dict() == default.to_dict()
    assert ids(claimed.customer.payment_methods) == [debit.id]
    session_key = purse.client(claimed.customer.customer_session["api_key"], max_network_retries=0)
    assert current_settings(session_key).to_dict() == default.to_dict()
    assert listed(session_key, customer, "card") == [debit.id]

    open_settings = create_settings(client, name="Everything")
    open_session = client.v1.customer_sessions.create(params={
        "customer": customer, "components": components, "customer_sheet_settings": open_settings.id,
    })
    claimed = elements_session(publishable, customer_session_client_secret=open_session.client_secret)
    assert claimed.customer_sheet_settings.to_dict() == open_settings.to_dict()
    assert ids(claimed.customer.payment_methods) == [sepa.id, debit.id, credit.id]
    session_key = purse.client(claimed.customer.customer_session["api_key"], max_network_retries=0)
    assert current_settings(session_key).to_dict() == open_settings.to_dict()
    assert listed(session_key, customer, "card") == [debit.id, credit.id]


# Saved-method filters: what client credentials list


def test_client_lists_are_filtered_by_funding_and_country(purse, client, customer):
    make_strict(client)
    credit = saved_card(client, customer, VISA)
    debit = saved_card(client, customer, VISA_DEBIT)
    mastercard_debit = saved_card(client, customer, MASTERCARD_DEBIT)
    japanese = saved_card(client, customer, JCB)
    sepa = attach(client, sepa_debit(client).id, customer)
    bank = attach(client, us_bank_account(client).id, customer)
    ephemeral = device(purse, client, customer)

    assert listed(ephemeral, customer, "card") == [mastercard_debit.id, debit.id]
    assert listed(ephemeral, customer, "sepa_debit") == []  # DE: not in the countries
    # Only cards are filtered by funding; the types a sheet may add do not hide saved methods.
    assert listed(ephemeral, customer, "us_bank_account") == [bank.id]
    everything = ephemeral.v1.customers.payment_methods.list(customer, params={"limit": 100})
    assert ids(everything.data) == [bank.id, mastercard_debit.id, debit.id]
    assert ids(ephemeral.v1.customers.payment_methods.list(customer, params={"type": "card"}).data) == [
        mastercard_debit.id, debit.id,
    ]
    # The secret key's lists are unfiltered.
    assert listed(client, customer, "card") == [japanese.id, mastercard_debit.id, debit.id, credit.id]
    assert listed(client, customer, "sepa_debit") == [sepa.id]
    assert attached_ids(client, customer) == [bank.id, sepa.id, japanese.id, mastercard_debit.id, debit.id, credit.id]

    # Only countries: the Japanese card and the German debit are hidden, the credit card is back.
    update_settings(client, "default", saved_payment_method_filter={"card": {"funding": ""}})
    assert listed(ephemeral, customer, "card") == [mastercard_debit.id, debit.id, credit.id]
    assert listed(ephemeral, customer, "sepa_debit") == []
    # No filter at all: everything.
    update_settings(client, "default", saved_payment_method_filter={"countries": ""})
    assert ids(ephemeral.v1.customers.payment_methods.list(customer, params={"limit": 100}).data) == (
        attached_ids(client, customer)
    )


def test_client_lists_are_filtered_by_brand_and_allow_redisplay(purse, client, customer):
    mastercard = client.v1.payment_methods.update(attach(client, "pm_card_mastercard", customer).id,
                                                  params={"allow_redisplay": "always"})
    limited_mastercard = saved_card(client, customer, MASTERCARD_DEBIT, allow_redisplay="limited")
    visa = client.v1.payment_methods.update(attach(client, "pm_card_visa", customer).id,
                                            params={"allow_redisplay": "always"})
    sepa = client.v1.payment_methods.update(attach(client, sepa_debit(client).id, customer).id,
                                            params={"allow_redisplay": "always"})
    unspecified_bank = attach(client, us_bank_account(client).id, customer)
    mastercards = create_settings(client, name="Mastercard", saved_payment_method_filter={
        "card": {"brands": ["mastercard"]}, "allow_redisplay": ["always"],
    })
    bound = device(purse, client, customer, customer_sheet_settings=mastercards.id)
    assert listed(bound, customer, "card") == [mastercard.id]
    assert listed(bound, customer, "sepa_debit") == [sepa.id]  # brands filter cards only
    assert listed(bound, customer, "us_bank_account") == []  # allow_redisplay unspecified
    # A key without settings has the account's default, which filters nothing.
    unbound = device(purse, client, customer)
    assert listed(unbound, customer, "card") == [visa.id, limited_mastercard.id, mastercard.id]
    assert listed(unbound, customer, "us_bank_account") == [unspecified_bank.id]
    # The request's own allow_redisplay narrows what the settings show; it never widens it.
    limited = bound.v1.customers.payment_methods.list(customer, params={"allow_redisplay": "limited"})
    assert limited.data == []


def test_expired_cards_are_hidden_when_the_settings_say_so(purse, client, customer):
    update_settings(client, "default", saved_payment_method_filter={"hide_expired": True})
    old = saved_card(client, customer, VISA)
    current = saved_card(client, customer, VISA_DEBIT)
    bank = attach(client, us_bank_account(client).id, customer)
    expire(purse, old.id)
    stored = client.v1.payment_methods.retrieve(old.id).card
    assert (stored.exp_month, stored.exp_year) == last_month()
    ephemeral = device(purse, client, customer)
    assert listed(ephemeral, customer, "card") == [current.id]
    assert ids(ephemeral.v1.customers.payment_methods.list(customer).data) == [bank.id, current.id]
    assert listed(client, customer, "card") == [current.id, old.id]
    update_settings(client, "default", saved_payment_method_filter={"hide_expired": False})
    assert listed(ephemeral, customer, "card") == [current.id, old.id]


def test_reentering_an_expired_card_renews_the_saved_one(purse, client, publishable, customer):
    """Hidden because it expired, the saved card comes back when the customer types it again with
    its new expiry: reuse updates it instead of saving a copy."""
    update_settings(client, "default", duplicate_cards="reuse", saved_payment_method_filter={"hide_expired": True})
    saved = saved_card(client, customer, VISA_DEBIT)
    expire(purse, saved.id)
    ephemeral = device(purse, client, customer)
    assert listed(ephemeral, customer, "card") == []
    renewed = attach(ephemeral, create_card(publishable, VISA_DEBIT, NEW_EXPIRY).id, customer)
    assert renewed.id == saved.id
    assert (renewed.card.exp_month, renewed.card.exp_year) == NEW_EXPIRY
    assert listed(ephemeral, customer, "card") == [saved.id]
    assert attached_ids(client, customer) == [saved.id]


def test_a_hidden_method_can_still_be_detached_by_its_owner(purse, client, customer):
    make_strict(client)
    hidden = saved_card(client, customer, VISA)
    shown = saved_card(client, customer, VISA_DEBIT)
    ephemeral = device(purse, client, customer)
    assert listed(ephemeral, customer, "card") == [shown.id]
    detached = ephemeral.v1.payment_methods.detach(hidden.id)
    assert detached.id == hidden.id and detached.customer is None
    assert attached_ids(client, customer) == [shown.id]


# Duplicate cards


def test_reuse_returns_the_saved_card_when_a_client_attaches_it_again(purse, client, publishable, customer):
    update_settings(client, "default", duplicate_cards="reuse")
    saved = saved_card(client, customer, VISA_DEBIT)
    ephemeral = device(purse, client, customer)
    again = create_card(publishable, VISA_DEBIT)
    assert again.id != saved.id and again.card.fingerprint == saved.card.fingerprint
    reused = attach(ephemeral, again.id, customer)
    assert reused.id == saved.id
    assert (reused.card.exp_month, reused.card.exp_year) == EXPIRY
    assert attached_ids(client, customer) == [saved.id]
    assert client.v1.payment_methods.retrieve(again.id).customer is None
    assert client.v1.events.list(params={"type": "payment_method.updated"}).data == []
    # Another card is saved as usual.
    other = attach(ephemeral, create_card(publishable, MASTERCARD_DEBIT).id, customer)
    assert attached_ids(client, customer) == [other.id, saved.id]


def test_reuse_updates_the_saved_cards_expiry_when_a_client_attaches_it_with_a_new_one(
    purse, client, publishable, customer
):
    update_settings(client, "default", duplicate_cards="reuse")
    saved = saved_card(client, customer, VISA_DEBIT)
    ephemeral = device(purse, client, customer)
    renewed = attach(ephemeral, create_card(publishable, VISA_DEBIT, NEW_EXPIRY).id, customer)
    assert renewed.id == saved.id
    assert (renewed.card.exp_month, renewed.card.exp_year) == NEW_EXPIRY
    assert renewed.card.fingerprint == saved.card.fingerprint and renewed.card.last4 == "5556"
    stored = client.v1.payment_methods.retrieve(saved.id)
    assert (stored.card.exp_month, stored.card.exp_year) == NEW_EXPIRY
    assert attached_ids(client, customer) == [saved.id]
    update = client.v1.events.list(params={"type": "payment_method.updated"}).data
    assert len(update) == 1 and update[0].data.object.id == saved.id
    assert update[0].data.previous_attributes.to_dict() == {"card": {"exp_month": EXPIRY[0], "exp_year": EXPIRY[1]}}


def test_reuse_applies_to_a_publishable_confirmation(client, publishable, customer):
    update_settings(client, "default", duplicate_cards="reuse")
    saved = saved_card(client, customer, VISA_DEBIT)
    same = sheet_confirm(publishable, create_intent(client, customer), card_data(VISA_DEBIT))
    assert same.status == "succeeded"
    assert same.payment_method.id == saved.id
    assert attached_ids(client, customer) == [saved.id]
    renewed = sheet_confirm(publishable, create_intent(client, customer), card_data(VISA_DEBIT, NEW_EXPIRY))
    assert renewed.status == "succeeded"
    assert renewed.payment_method.id == saved.id
    assert (renewed.payment_method.card.exp_month, renewed.payment_method.card.exp_year) == NEW_EXPIRY
    assert (client.v1.payment_methods.retrieve(saved.id).card.exp_year) == NEW_EXPIRY[1]
    assert attached_ids(client, customer) == [saved.id]


def test_reuse_applies_to_a_publishable_confirmation_completed_on_the_authentication_page(
    client, publishable, customer
):
    update_settings(client, "default", duplicate_cards="reuse")
    saved = saved_card(client, customer, THREE_D_SECURE_CARD)
    intent = create_intent(client, customer)
    confirmed = sheet_confirm(publishable, intent, card_data(THREE_D_SECURE_CARD))
    assert confirmed.status == "requires_action"
    page = requests.post(confirmed.next_action.redirect_to_url.url, data={"action": "complete"},
                         allow_redirects=False, timeout=30)
    assert page.status_code == 303
    completed = client.v1.setup_intents.retrieve(intent.id)
    assert completed.status == "succeeded"
    assert completed.payment_method == saved.id
    assert attached_ids(client, customer) == [saved.id]


def test_allow_saves_a_copy_and_the_secret_key_always_does(purse, client, publishable, customer):
    saved = saved_card(client, customer, VISA_DEBIT)
    ephemeral = device(purse, client, customer)
    copy = attach(ephemeral, create_card(publishable, VISA_DEBIT).id, customer)
    assert copy.id != saved.id
    confirmed = sheet_confirm(publishable, create_intent(client, customer), card_data(VISA_DEBIT))
    assert confirmed.payment_method.id not in (saved.id, copy.id)
    update_settings(client, "default", duplicate_cards="reuse")
    by_secret_key = saved_card(client, customer, VISA_DEBIT, NEW_EXPIRY)
    secret_confirmed = client.v1.setup_intents.confirm(create_intent(client, customer).id, params={
        "payment_method_data": card_data(VISA_DEBIT),
    })
    assert len({saved.id, copy.id, confirmed.payment_method.id, by_secret_key.id, secret_confirmed.payment_method}) == 5
    assert len(attached_ids(client, customer)) == 5
    assert (client.v1.payment_methods.retrieve(saved.id).card.exp_year) == EXPIRY[1]


# The selected option


def test_the_selected_option_says_when_the_filter_hides_it(purse, client, customer):
    make_strict(client)
    credit = saved_card(client, customer, VISA)
    debit = saved_card(client, customer, VISA_DEBIT)
    ephemeral = device(purse, client, customer)
    selected = select(ephemeral, customer, credit.id)
    assert selected.option == credit.id and selected.payment_method.id == credit.id
    assert selected.unavailable_reason == "filtered"
    assert selected_option(ephemeral, customer).unavailable_reason == "filtered"
    assert select(ephemeral, customer, debit.id).unavailable_reason is None
    assert selected_option(ephemeral, customer).unavailable_reason is None
    # Under settings that show credit cards, nothing is unavailable.
    everything = create_settings(client, name="Everything")
    shown = device(purse, client, customer, customer_sheet_settings=everything.id)
    assert select(shown, customer, credit.id).unavailable_reason is None
    assert selected_option(ephemeral, customer).unavailable_reason == "filtered"


def test_the_selected_option_says_when_the_card_has_expired(purse, client, customer):
    method = saved_card(client, customer, VISA)
    ephemeral = device(purse, client, customer)
    select(ephemeral, customer, method.id)
    assert selected_option(ephemeral, customer).unavailable_reason is None
    expire(purse, method.id)
    assert selected_option(ephemeral, customer).unavailable_reason == "expired"
    update_settings(client, "default", saved_payment_method_filter={"hide_expired": True})
    selected = selected_option(ephemeral, customer)
    assert selected.unavailable_reason == "expired"
    assert selected.option == method.id and selected.payment_method.id == method.id
