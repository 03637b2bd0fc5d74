"""Customer sessions and the elements endpoints through stripe-python, the way a merchant's server
and stripe-ios's CustomerSheet in customer-session mode use them (stripe-reference.md §4, §8,
§11.4; purse.md §2): the server creates a session with the secret key and hands its client secret
to the app; the app presents it with the publishable key to `GET /v1/elements/sessions`, which
answers with the customer's saved methods (filtered by `allow_redisplay`), their default and the
session's key; the app then sets the default and removes methods with that key, within the
session's features, until the session expires or is revoked.

stripe-python has methods for creating customer sessions only; the elements calls and the
revocation go through `raw_request`, with the parameters stripe-ios sends (form encoded, arrays as
`a[0]=`).

Card data: every number and CVC sent here is registered by conftest's recording client and checked
by test_zz_card_data.py. CVCs start with 0, and the only test tokens used are those
test_zz_card_data.py knows the numbers of."""
import datetime
import re
import time

import pytest
import stripe

from conftest import pg_dump

THIS_YEAR = datetime.date.today().year
MOBILE_SDK_VERSION = "2020-08-27"  # what stripe-ios sends when it asks for an ephemeral key
SESSION_LIFETIME = 1800  # Purse's default: 30 minutes
VISA_DEBIT = "4000056655665556"
CVC = "036"
SDK_USER_AGENT = "stripe-ios/24.0.0; variant.paymentsheet; CustomerSheet"

# What each component holds when enabled without features: Stripe's documented defaults, plus the
# features stripe-ios reads from the elements session (`payment_method_remove_last`,
# `payment_method_sync_default`, `payment_method_set_as_default`).
DEFAULT_FEATURES = {
    "customer_sheet": {
        "payment_method_allow_redisplay_filters": ["always"],
        "payment_method_remove": "disabled",
        "payment_method_remove_last": "enabled",
        "payment_method_sync_default": "disabled",
    },
    "mobile_payment_element": {
        "payment_method_allow_redisplay_filters": ["always"],
        "payment_method_redisplay": "disabled",
        "payment_method_remove": "disabled",
        "payment_method_remove_last": "enabled",
        "payment_method_save": "disabled",
        "payment_method_save_allow_redisplay_override": None,
        "payment_method_set_as_default": "disabled",
    },
    "payment_element": {
        "payment_method_allow_redisplay_filters": ["always"],
        "payment_method_redisplay": "disabled",
        "payment_method_redisplay_limit": 3,
        "payment_method_remove": "disabled",
        "payment_method_save": "disabled",
        "payment_method_save_usage": None,
    },
}
# Every component of the object with nothing enabled: the toggles, and the components with features.
DISABLED = {
    "buy_button": {"enabled": False},
    "customer_sheet": {"enabled": False, "features": None},
    "mobile_payment_element": {"enabled": False, "features": None},
    "payment_element": {"enabled": False, "features": None},
    "pricing_table": {"enabled": False},
}
SESSION_FIELDS = {
    "id", "object", "client_secret", "components", "created", "customer", "customer_account", "expires_at", "livemode",
}
SHEET = {"customer_sheet": {"enabled": True}}
REMOVABLE = {"customer_sheet": {"enabled": True, "features": {"payment_method_remove": "enabled"}}}


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


def create_session(client, customer, components=None, **params):
    """What the merchant's server does for the app (`customerSessionClientSecretProvider`)."""
    return client.v1.customer_sessions.create(
        params={"customer": customer, "components": SHEET if components is None else components, **params}
    )


def elements_session(publishable, session_secret, **params):
    """`GET /v1/elements/sessions` as CustomerSheet sends it in customer-session mode (a deferred
    setup intent for the sheet's types), which stripe-python has no method for."""
    params.setdefault("type", "deferred_intent")
    if params["type"] == "deferred_intent":
        params.setdefault("deferred_intent", {"mode": "setup", "payment_method_types": ["card"]})
    response = publishable.raw_request(
        "get", "/v1/elements/sessions", locale="en-US", customer_session_client_secret=session_secret, **params
    )
    return publishable.deserialize(response, api_mode="V1")


def api_key_of(session):
    """`customer.customer_session.api_key` of an elements session. Read as an item: a StripeObject's
    `api_key` attribute is the key of the client that fetched it, not the field."""
    return session.customer.customer_session["api_key"]


def session_device(purse, publishable, customer_session):
    """The app after claiming the session: a StripeClient on the session's key."""
    claimed = elements_session(publishable, customer_session.client_secret)
    return purse.client(api_key_of(claimed), max_network_retries=0)


def saved_ids(publishable, customer_session, **params):
    claimed = elements_session(publishable, customer_session.client_secret, **params)
    return [method.id for method in claimed.customer.payment_methods]


def set_default(device, customer, method):
    """`setAsDefaultPaymentMethod` of stripe-ios: the session's key, and only `payment_method`."""
    response = device.raw_request(
        "post", f"/v1/elements/customers/{customer}/set_default_payment_method", payment_method=method
    )
    return device.deserialize(response, api_mode="V1")


def remove(device, method, client_secret):
    """`detachPaymentMethod(_:fromCustomerUsing:withCustomerSessionClientSecret:)` of stripe-ios."""
    response = device.raw_request(
        "post", f"/v1/elements/payment_methods/{method}/detach", customer_session_client_secret=client_secret
    )
    return device.deserialize(response, api_mode="V1")


def remove_with_duplicates(device, customer, method, client_secret):
    """`detachPaymentMethodRemoveDuplicates` of stripe-ios: list the customer's cards with the
    session's key, then remove every card with the fingerprint of the one chosen."""
    cards = device.v1.payment_methods.list(params={"customer": customer, "type": "card"}).data
    fingerprint = next(card.card.fingerprint for card in cards if card.id == method)
    return [remove(device, card.id, client_secret).id for card in cards if card.card.fingerprint == fingerprint]


def revoke_session(client, session_id):
    """`DELETE /v1/customer_sessions/{id}`, Purse's own, which stripe-python has no method for."""
    return client.deserialize(client.raw_request("delete", f"/v1/customer_sessions/{session_id}"), api_mode="V1")


def revoke_credentials(client, customer):
    response = client.raw_request("post", f"/v1/customers/{customer}/revoke_credentials")
    return client.deserialize(response, api_mode="V1")


def get_selected_option(client, customer):
    response = client.raw_request("get", f"/v1/customers/{customer}/selected_payment_option")
    return client.deserialize(response, api_mode="V1")


def save(client, customer, method, allow_redisplay):
    """A method the customer saved earlier, with the `allow_redisplay` it was saved with."""
    attached = client.v1.payment_methods.attach(method, params={"customer": customer})
    return client.v1.payment_methods.update(attached.id, params={"allow_redisplay": allow_redisplay})


def default_of(client, customer):
    return client.v1.customers.retrieve(customer).invoice_settings.default_payment_method


def attached_ids(client, customer):
    return [method.id for method in client.v1.customers.payment_methods.list(customer).data]


def error_of(excinfo):
    """The error envelope's body as the server sent it."""
    return excinfo.value.json_body["error"]


def refusal(call):
    """(status, code, param) of the error a call raises."""
    with pytest.raises(stripe.StripeError) as refused:
        call()
    return refused.value.http_status, error_of(refused).get("code"), error_of(refused).get("param")


# Creating customer sessions


def test_create_a_customer_sheet_session_with_stripes_defaults(client, customer):
    session = create_session(client, customer)
    assert set(session.to_dict()) == SESSION_FIELDS
    assert session.id.startswith("cuss_") and not session.id.startswith("cuss_secret_")
    assert session.object == "customer_session"
    # stripe-ios asserts the `cuss_` prefix and refuses an ephemeral key given in its place.
    assert re.fullmatch(r"cuss_secret_[A-Za-z0-9]{24,}", session.client_secret)
    assert session.customer == customer
    assert session.customer_account is None
    assert session.livemode is False
    assert abs(session.created - time.time()) < 60
    assert session.expires_at - session.created == SESSION_LIFETIME
    assert session.components.to_dict() == {
        **DISABLED, "customer_sheet": {"enabled": True, "features": DEFAULT_FEATURES["customer_sheet"]},
    }


@pytest.mark.parametrize("component", ["customer_sheet", "mobile_payment_element", "payment_element"])
def test_create_a_session_for_one_component_with_features(client, customer, component):
    session = create_session(client, customer, {component: {"enabled": True}})
    assert session.components.to_dict() == {
        **DISABLED, component: {"enabled": True, "features": DEFAULT_FEATURES[component]},
    }


@pytest.mark.parametrize("component", ["buy_button", "pricing_table"])
def test_create_a_session_for_a_web_component(client, customer, component):
    session = create_session(client, customer, {component: {"enabled": True}})
    assert session.components.to_dict() == {**DISABLED, component: {"enabled": True}}


def test_create_a_session_with_every_component_and_its_features(client, customer):
    every_value = ["always", "limited", "unspecified"]
    features = {
        "customer_sheet": {
            "payment_method_allow_redisplay_filters": every_value,
            "payment_method_remove": "enabled",
            "payment_method_remove_last": "disabled",
            "payment_method_sync_default": "enabled",
        },
        "mobile_payment_element": {
            "payment_method_allow_redisplay_filters": ["always", "limited"],
            "payment_method_redisplay": "enabled",
            "payment_method_remove": "enabled",
            "payment_method_remove_last": "disabled",
            "payment_method_save": "enabled",
            "payment_method_save_allow_redisplay_override": "limited",
            "payment_method_set_as_default": "enabled",
        },
        "payment_element": {
            "payment_method_allow_redisplay_filters": ["unspecified"],
            "payment_method_redisplay": "enabled",
            "payment_method_redisplay_limit": 10,
            "payment_method_remove": "enabled",
            "payment_method_save": "enabled",
            "payment_method_save_usage": "off_session",
        },
    }
    session = create_session(client, customer, {
        "buy_button": {"enabled": True},
        "pricing_table": {"enabled": True},
        **{component: {"enabled": True, "features": values} for component, values in features.items()},
    })
    assert session.components.to_dict() == {
        "buy_button": {"enabled": True},
        "pricing_table": {"enabled": True},
        **{component: {"enabled": True, "features": values} for component, values in features.items()},
    }


def test_a_disabled_component_has_no_features(client, customer):
    session = create_session(client, customer, {
        "buy_button": {"enabled": True},
        "customer_sheet": {"enabled": False, "features": {"payment_method_remove": "enabled"}},
    })
    assert session.components.customer_sheet.to_dict() == {"enabled": False, "features": None}


def test_create_a_session_and_expand_its_customer(client, customer):
    session = create_session(client, customer, expand=["customer"])
    assert session.customer.id == customer
    assert session.customer.object == "customer"
    assert session.customer.email == "jenny@example.com"
    with pytest.raises(stripe.InvalidRequestError) as refused:
        create_session(client, customer, expand=["components"])
    assert (refused.value.http_status, error_of(refused)["param"]) == (400, "expand")


@pytest.mark.parametrize("params, code, param", [
    ({"components": SHEET}, "parameter_missing", "customer"),
    ({"customer": None}, "parameter_missing", "components"),
    ({"customer": None, "components": {"buy_button": {"enabled": False}, "customer_sheet": {"enabled": False}}},
     None, "components"),
    ({"customer": None, "components": {"customer_sheet": {"enabled": True, "features": {
        "payment_method_remove": "sometimes"}}}},
     "parameter_invalid", "components[customer_sheet][features][payment_method_remove]"),
    ({"customer": None, "components": {"customer_sheet": {"enabled": True, "features": {
        "payment_method_allow_redisplay_filters": ["never"]}}}},
     "parameter_invalid", "components[customer_sheet][features][payment_method_allow_redisplay_filters][0]"),
    ({"customer": None, "components": {"payment_element": {"enabled": True, "features": {
        "payment_method_redisplay_limit": 11}}}},
     None, "components[payment_element][features][payment_method_redisplay_limit]"),
    ({"customer": None, "components": {"payment_element": {"enabled": True, "features": {
        "payment_method_redisplay_limit": 0}}}},
     None, "components[payment_element][features][payment_method_redisplay_limit]"),
    ({"customer": None, "components": {"customer_sheet": {"enabled": True}, "wallet": {"enabled": True}}},
     "parameter_unknown", "components[wallet]"),
], ids=[
    "missing customer", "missing components", "none enabled", "bad enum", "bad filter", "redisplay limit 11",
    "redisplay limit 0", "unknown component",
])
def test_invalid_sessions_are_refused_naming_the_parameter(client, customer, params, code, param):
    if params.get("customer", "") is None:
        params = {**params, "customer": customer}
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.customer_sessions.create(params=params)
    assert refused.value.http_status == 400
    assert error_of(refused)["type"] == "invalid_request_error"
    assert error_of(refused)["param"] == param
    if code:
        assert error_of(refused)["code"] == code


def test_no_session_for_an_unknown_deleted_or_foreign_customer(purse, client):
    deleted = client.v1.customers.create().id
    client.v1.customers.delete(deleted)
    stranger = purse.client(purse.create_account(name="Stranger")["secret_key"], max_network_retries=0)
    foreign = stranger.v1.customers.create().id
    for named in ("cus_" + "X" * 24, deleted, foreign):
        assert refusal(lambda: create_session(client, named)) == (400, "resource_missing", "customer"), named


def test_only_the_secret_key_creates_sessions(purse, client, publishable, customer):
    session_key = session_device(purse, publishable, create_session(client, customer))
    for caller in (publishable, session_key):
        with pytest.raises(stripe.PermissionError) as refused:
            create_session(caller, customer)
        assert refused.value.http_status == 403
        assert error_of(refused)["code"] == "secret_key_required"
        with pytest.raises(stripe.PermissionError):
            revoke_session(caller, "cuss_" + "X" * 24)


def test_revoking_an_unknown_or_foreign_session_is_404(purse, client):
    stranger = purse.client(purse.create_account(name="Stranger")["secret_key"], max_network_retries=0)
    theirs = create_session(stranger, stranger.v1.customers.create().id)
    for session_id in ("cuss_" + "X" * 24, theirs.id):
        assert refusal(lambda: revoke_session(client, session_id))[:2] == (404, "resource_missing")


# The elements session with a customer session


def test_the_elements_session_claims_the_customer_session(client, publishable, customer):
    session = create_session(client, customer, REMOVABLE)
    claimed = elements_session(publishable, session.client_secret, client_default_payment_method="pm_" + "X" * 24)
    assert claimed.payment_method_preference.ordered_payment_method_types == ["card"]
    sheet_customer = claimed.customer
    assert set(sheet_customer.to_dict()) == {"payment_methods", "default_payment_method", "customer_session"}
    assert sheet_customer.payment_methods == []
    assert sheet_customer.default_payment_method is None
    claim = sheet_customer.customer_session
    assert set(claim.to_dict()) == {"id", "livemode", "api_key", "api_key_expiry", "customer", "components"}
    assert (claim.id, claim.customer, claim.livemode) == (session.id, customer, False)
    assert re.fullmatch(r"ek_test_[A-Za-z0-9]{24,}", claim["api_key"])
    assert claim.api_key_expiry == session.expires_at
    assert claim.components.to_dict() == {
        "customer_sheet": session.components.customer_sheet.to_dict(),
        "mobile_payment_element": {"enabled": False, "features": None},
    }


def test_the_sessions_key_is_the_same_on_every_call_and_its_own(client, publishable, customer):
    session, another = create_session(client, customer), create_session(client, customer)
    first = api_key_of(elements_session(publishable, session.client_secret))
    second = api_key_of(elements_session(publishable, session.client_secret, type="deferred_intent", deferred_intent={
        "mode": "setup", "payment_method_types": ["card", "us_bank_account", "sepa_debit"],
    }))
    assert first == second
    assert api_key_of(elements_session(publishable, another.client_secret)) != first


def test_the_saved_list_honours_the_sessions_redisplay_filters(client, publishable, customer, other_customer):
    """Newest first, only attached methods of the session's customer whose `allow_redisplay` is in
    the filters (Stripe's default filter is `["always"]`)."""
    always = save(client, customer, "pm_card_visa", "always")
    limited = save(client, customer, "pm_usBankAccount_success", "limited")
    unspecified = client.v1.payment_methods.attach("pm_sepaDebit_success", params={"customer": customer})
    assert unspecified.allow_redisplay == "unspecified"
    detached = save(client, customer, "pm_card_mastercard", "always")
    client.v1.payment_methods.detach(detached.id)
    save(client, other_customer, "pm_card_amex", "always")

    def sheet(filters=None):
        features = {} if filters is None else {"payment_method_allow_redisplay_filters": filters}
        return create_session(client, customer, {"customer_sheet": {"enabled": True, "features": features}})

    assert saved_ids(publishable, sheet()) == [always.id]
    assert saved_ids(publishable, sheet(["always"])) == [always.id]
    assert saved_ids(publishable, sheet(["always", "limited"])) == [limited.id, always.id]
    assert saved_ids(publishable, sheet(["limited", "unspecified"])) == [unspecified.id, limited.id]
    everything = sheet(["always", "limited", "unspecified"])
    assert saved_ids(publishable, everything) == [unspecified.id, limited.id, always.id]
    shown = elements_session(publishable, sheet().client_secret).customer.payment_methods[0]
    assert (shown.card.last4, shown.customer, shown.allow_redisplay) == ("4242", customer, "always")


def test_the_mobile_payment_element_sessions_filters_apply_without_a_customer_sheet(client, publishable, customer):
    always = save(client, customer, "pm_card_visa", "always")
    limited = save(client, customer, "pm_card_mastercard", "limited")
    session = create_session(client, customer, {"mobile_payment_element": {"enabled": True, "features": {
        "payment_method_allow_redisplay_filters": ["always", "limited"], "payment_method_redisplay": "enabled",
    }}})
    claimed = elements_session(publishable, session.client_secret)
    assert [m.id for m in claimed.customer.payment_methods] == [limited.id, always.id]
    assert claimed.customer.customer_session.components.mobile_payment_element.enabled is True
    assert claimed.customer.customer_session.components.customer_sheet.to_dict() == {"enabled": False, "features": None}


def test_the_elements_session_of_a_setup_intent_with_a_customer_session(client, publishable, customer):
    """CustomerSheet with a setup intent provider: `type=setup_intent` with both client secrets."""
    always = save(client, customer, "pm_card_visa", "always")
    session = create_session(client, customer)
    intent = client.v1.setup_intents.create(params={"customer": customer})
    claimed = elements_session(
        publishable, session.client_secret, type="setup_intent", client_secret=intent.client_secret,
        expand=["payment_method_preference.setup_intent.payment_method"],
    )
    assert claimed.payment_method_preference.setup_intent.id == intent.id
    assert [m.id for m in claimed.customer.payment_methods] == [always.id]
    assert claimed.customer.customer_session.id == session.id


def test_an_unknown_or_foreign_client_secret_claims_nothing(purse, client, publishable, customer):
    stranger = purse.client(purse.create_account(name="Stranger")["secret_key"], max_network_retries=0)
    theirs = create_session(stranger, stranger.v1.customers.create().id)
    forged = create_session(client, customer).client_secret[:-4] + "AAAA"
    for secret in ("cuss_secret_" + "A" * 48, forged, theirs.client_secret):
        assert refusal(lambda: elements_session(publishable, secret)) == (
            400, "resource_missing", "customer_session_client_secret",
        )


# The customer sheet in customer-session mode (stripe-reference §11.4)


def test_the_sheet_lists_saves_sets_the_default_and_removes(purse, client, publishable, customer):
    visa = save(client, customer, "pm_card_visa", "always")
    mastercard = save(client, customer, "pm_card_mastercard", "always")
    save(client, customer, "pm_card_amex", "limited")  # saved for off-session use only: never shown
    session = create_session(client, customer, {"customer_sheet": {"enabled": True, "features": {
        "payment_method_remove": "enabled", "payment_method_sync_default": "enabled",
    }}})
    claimed = elements_session(publishable, session.client_secret)
    assert [m.id for m in claimed.customer.payment_methods] == [mastercard.id, visa.id]
    assert claimed.customer.default_payment_method is None
    device = purse.client(api_key_of(claimed), max_network_retries=0)

    # Adding a card: a setup intent from the merchant's server, confirmed with the publishable key;
    # in this mode the SDK saves new methods with allow_redisplay=always.
    intent = client.v1.setup_intents.create(params={"customer": customer})
    confirmed = publishable.v1.setup_intents.confirm(intent.id, params={
        "client_secret": intent.client_secret,
        "payment_method_data": {
            "type": "card", "allow_redisplay": "always", "payment_user_agent": SDK_USER_AGENT,
            "card": {"number": VISA_DEBIT, "exp_month": 9, "exp_year": THIS_YEAR + 3, "cvc": CVC},
        },
        "expand": ["payment_method"],
    })
    assert confirmed.status == "succeeded"
    debit = confirmed.payment_method.id
    assert saved_ids(publishable, session) == [debit, mastercard.id, visa.id]

    # Editing a card with the session's key.
    edited = device.v1.payment_methods.update(
        mastercard.id, params={"card": {"exp_month": 4, "exp_year": THIS_YEAR + 7}}
    )
    assert (edited.card.exp_month, edited.card.exp_year) == (4, THIS_YEAR + 7)

    # Setting the default: answered with the customer, seen by the merchant and the next session.
    updated = set_default(device, customer, visa.id)
    assert (updated.object, updated.id) == ("customer", customer)
    assert updated.invoice_settings.default_payment_method == visa.id
    assert default_of(client, customer) == visa.id
    assert get_selected_option(device, customer).option == visa.id
    assert elements_session(publishable, session.client_secret).customer.default_payment_method == visa.id

    # Removing the default, as the SDK does it (every card with its fingerprint): the default goes too.
    assert remove_with_duplicates(device, customer, visa.id, session.client_secret) == [visa.id]
    assert client.v1.payment_methods.retrieve(visa.id).customer is None
    assert default_of(client, customer) is None
    assert get_selected_option(device, customer).option is None
    after = elements_session(publishable, session.client_secret).customer
    assert ([m.id for m in after.payment_methods], after.default_payment_method) == ([debit, mastercard.id], None)


def test_set_default_takes_only_the_payment_method_as_stripe_ios_sends_it(purse, client, publishable, customer):
    """stripe-ios's `setAsDefaultPaymentMethod` posts `payment_method` alone (no
    `customer_session_client_secret`, unlike its detach) with the session's key."""
    method = save(client, customer, "pm_card_visa", "always")
    device = session_device(purse, publishable, create_session(client, customer))
    assert set_default(device, customer, method.id).invoice_settings.default_payment_method == method.id
    assert default_of(client, customer) == method.id
    # A client secret is not needed here, but one that is sent must be the session's own.
    another = create_session(client, customer)
    status, _, param = refusal(lambda: device.raw_request(
        "post", f"/v1/elements/customers/{customer}/set_default_payment_method",
        payment_method=method.id, customer_session_client_secret=another.client_secret,
    ))
    assert (status, param) == (400, "customer_session_client_secret")


def test_set_default_needs_a_method_of_the_customer(purse, client, publishable, customer, other_customer):
    """A method that is not the customer's is named by the `payment_method` parameter: 400
    resource_missing naming it, with an ordinary ephemeral key as with the session's key."""
    theirs = save(client, other_customer, "pm_card_visa", "always")
    unattached = client.v1.payment_methods.create(params={"type": "card", "card": {"token": "tok_visa"}})
    key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    ephemeral = purse.client(key.secret, max_network_retries=0)
    device = session_device(purse, publishable, create_session(client, customer))
    for caller in (ephemeral, device):
        for method in (theirs.id, unattached.id, "pm_" + "X" * 24):
            assert refusal(lambda: set_default(caller, customer, method)) == (
                400, "resource_missing", "payment_method",
            ), method
        assert refusal(lambda: caller.raw_request(
            "post", f"/v1/elements/customers/{customer}/set_default_payment_method",
        )) == (400, "parameter_missing", "payment_method")
    assert default_of(client, customer) is None
    assert default_of(client, other_customer) is None


def test_setting_the_default_is_never_gated_by_the_features(purse, client, publishable, customer):
    """Neither removal nor `payment_method_sync_default` decides whether the default can be set."""
    method = save(client, customer, "pm_card_visa", "always")
    session = create_session(client, customer, {"customer_sheet": {"enabled": True, "features": {
        "payment_method_remove": "disabled", "payment_method_remove_last": "disabled",
        "payment_method_sync_default": "disabled",
    }}})
    device = session_device(purse, publishable, session)
    assert set_default(device, customer, method.id).invoice_settings.default_payment_method == method.id


def test_removal_is_refused_when_the_session_disables_it(purse, client, publishable, customer):
    first = save(client, customer, "pm_card_visa", "always")
    second = save(client, customer, "pm_card_mastercard", "always")
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": first.id}})
    session = create_session(client, customer)  # payment_method_remove defaults to disabled
    device = session_device(purse, publishable, session)
    for call in (
        lambda: remove(device, first.id, session.client_secret),
        lambda: device.v1.payment_methods.detach(first.id),
        lambda: device.raw_request("post", f"/v1/payment_methods/{second.id}/detach"),
    ):
        with pytest.raises(stripe.PermissionError) as refused:
            call()
        assert refused.value.http_status == 403
        assert error_of(refused)["type"] == "invalid_request_error"
        assert error_of(refused)["code"] == "customer_session_remove_disabled"
    assert attached_ids(client, customer) == [second.id, first.id]
    assert default_of(client, customer) == first.id


def test_removing_the_last_method_is_refused_when_the_session_disables_it(purse, client, publishable, customer):
    first = save(client, customer, "pm_card_visa", "always")
    second = save(client, customer, "pm_card_mastercard", "always")
    session = create_session(client, customer, {"customer_sheet": {"enabled": True, "features": {
        "payment_method_remove": "enabled", "payment_method_remove_last": "disabled",
    }}})
    device = session_device(purse, publishable, session)
    assert remove(device, second.id, session.client_secret).customer is None
    for call in (
        lambda: remove(device, first.id, session.client_secret),
        lambda: device.v1.payment_methods.detach(first.id),
    ):
        with pytest.raises(stripe.PermissionError) as refused:
            call()
        assert refused.value.http_status == 403
        assert error_of(refused)["type"] == "invalid_request_error"
    assert attached_ids(client, customer) == [first.id]


def test_removing_the_last_method_is_allowed_by_default(purse, client, publishable, customer):
    only = save(client, customer, "pm_card_visa", "always")
    session = create_session(client, customer, REMOVABLE)
    device = session_device(purse, publishable, session)
    assert remove(device, only.id, session.client_secret).id == only.id
    assert attached_ids(client, customer) == []


def test_the_elements_detach_needs_this_sessions_client_secret(purse, client, publishable, customer):
    method = save(client, customer, "pm_card_visa", "always")
    session, sibling = create_session(client, customer, REMOVABLE), create_session(client, customer, REMOVABLE)
    device = session_device(purse, publishable, session)
    path = f"/v1/elements/payment_methods/{method.id}/detach"
    assert refusal(lambda: device.raw_request("post", path)) == (
        400, "parameter_missing", "customer_session_client_secret",
    )
    for wrong in (sibling.client_secret, "cuss_secret_" + "A" * 48):
        status, _, param = refusal(lambda: remove(device, method.id, wrong))
        assert (status, param) == (400, "customer_session_client_secret")
    assert attached_ids(client, customer) == [method.id]


def test_the_sessions_key_acts_for_its_customer(purse, client, publishable, customer):
    """The ephemeral-key scope: the customer, its methods (one type at a time, as the SDK lists
    them), their update and the selected option."""
    card = save(client, customer, "pm_card_visa", "always")
    bank = save(client, customer, "pm_usBankAccount_success", "limited")
    device = session_device(purse, publishable, create_session(client, customer))
    assert device.v1.customers.retrieve(customer).email == "jenny@example.com"
    cards = device.v1.payment_methods.list(params={"customer": customer, "type": "card", "limit": 100})
    assert [m.id for m in cards.data] == [card.id]
    assert [m.id for m in device.v1.customers.payment_methods.list(customer).data] == [bank.id, card.id]
    assert device.v1.payment_methods.retrieve(bank.id).us_bank_account.last4 == "6789"
    named = device.v1.payment_methods.update(card.id, params={"billing_details": {"name": "Jenny Rosen"}})
    assert named.billing_details.name == "Jenny Rosen"
    response = device.raw_request("post", f"/v1/customers/{customer}/selected_payment_option", option="apple_pay")
    selected = device.deserialize(response, api_mode="V1")
    assert selected.option == "apple_pay"
    assert get_selected_option(client, customer).option == "apple_pay"


def test_the_sessions_key_finds_nothing_of_another_customer(purse, client, publishable, customer, other_customer):
    """Objects of another customer answer as if they did not exist: 404 in the path, 400
    resource_missing when named by a parameter."""
    theirs = save(client, other_customer, "pm_card_visa", "always")
    session = create_session(client, customer, REMOVABLE)
    device = session_device(purse, publishable, session)
    in_path = {
        "retrieve customer": lambda: device.v1.customers.retrieve(other_customer),
        "customer's methods": lambda: device.v1.customers.payment_methods.list(other_customer),
        "retrieve method": lambda: device.v1.payment_methods.retrieve(theirs.id),
        "update method": lambda: device.v1.payment_methods.update(theirs.id, params={"metadata": {"a": "b"}}),
        "detach method": lambda: device.v1.payment_methods.detach(theirs.id),
        "elements detach": lambda: remove(device, theirs.id, session.client_secret),
        "elements set default": lambda: set_default(device, other_customer, theirs.id),
        "selected option": lambda: get_selected_option(device, other_customer),
    }
    for name, call in in_path.items():
        assert refusal(call)[:2] == (404, "resource_missing"), name
    assert refusal(lambda: device.v1.payment_methods.list(params={"customer": other_customer, "type": "card"})) == (
        400, "resource_missing", "customer",
    )
    assert client.v1.payment_methods.retrieve(theirs.id).customer == other_customer
    assert default_of(client, other_customer) is None


@pytest.mark.parametrize("call", [
    "list customers", "update customer", "create payment method", "create setup intent", "create ephemeral key",
    "elements session", "revoke credentials",
])
def test_the_sessions_key_cannot_do_what_needs_the_secret_key(purse, client, publishable, customer, call):
    session = create_session(client, customer)
    device = session_device(purse, publishable, session)
    calls = {
        "list customers": lambda: device.v1.customers.list(),
        "update customer": lambda: device.v1.customers.update(customer, params={"name": "Mallory"}),
        "create payment method": lambda: device.v1.payment_methods.create(params={
            "type": "card", "card": {"token": "tok_visa"},
        }),
        "create setup intent": lambda: device.v1.setup_intents.create(params={"customer": customer}),
        "create ephemeral key": lambda: device.v1.ephemeral_keys.create(
            params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION},
        ),
        "elements session": lambda: elements_session(device, session.client_secret),
        "revoke credentials": lambda: revoke_credentials(device, customer),
    }
    with pytest.raises(stripe.PermissionError) as refused:
        calls[call]()
    assert refused.value.http_status == 403
    assert error_of(refused)["code"] == "secret_key_required"
    assert client.v1.customers.retrieve(customer).name is None


def test_the_elements_posts_take_a_customers_key_not_an_account_key(client, publishable, customer):
    method = save(client, customer, "pm_card_visa", "always")
    session = create_session(client, customer, REMOVABLE)
    for caller in (client, publishable):
        assert refusal(lambda: set_default(caller, customer, method.id))[:2] == (403, "secret_key_required")
        assert refusal(lambda: remove(caller, method.id, session.client_secret))[:2] == (403, "secret_key_required")
    assert attached_ids(client, customer) == [method.id]
    assert default_of(client, customer) is None


def test_an_ordinary_ephemeral_key_uses_the_elements_posts_without_a_client_secret(purse, client, customer):
    method = save(client, customer, "pm_card_visa", "always")
    key = client.v1.ephemeral_keys.create(params={"customer": customer}, options={"stripe_version": MOBILE_SDK_VERSION})
    ephemeral = purse.client(key.secret, max_network_retries=0)
    assert set_default(ephemeral, customer, method.id).invoice_settings.default_payment_method == method.id
    response = ephemeral.raw_request("post", f"/v1/elements/payment_methods/{method.id}/detach")
    detached = ephemeral.deserialize(response, api_mode="V1")
    assert detached.customer is None
    assert default_of(client, customer) is None


# Revocation and expiry


def test_revoking_a_session_stops_its_secret_and_its_key_at_once(purse, client, publishable, customer):
    session, kept = create_session(client, customer), create_session(client, customer)
    device = session_device(purse, publishable, session)
    kept_device = session_device(purse, publishable, kept)
    revoked = revoke_session(client, session.id)
    assert (revoked.id, revoked.object, revoked.customer) == (session.id, "customer_session", customer)
    assert "client_secret" not in revoked
    with pytest.raises(stripe.AuthenticationError) as refused:
        device.v1.customers.retrieve(customer)
    assert refused.value.http_status == 401
    assert error_of(refused)["type"] == "invalid_request_error"
    assert error_of(refused)["message"].startswith("Invalid API Key provided")
    assert api_key_of(elements_session(publishable, kept.client_secret)) not in error_of(refused)["message"]
    assert refusal(lambda: elements_session(publishable, session.client_secret)) == (
        400, "resource_missing", "customer_session_client_secret",
    )
    assert kept_device.v1.customers.retrieve(customer).id == customer


def test_revoke_credentials_revokes_the_customers_sessions(purse, client, publishable, customer, other_customer):
    phone = create_session(client, customer)
    phone_key = session_device(purse, publishable, phone)
    tablet_key = session_device(purse, publishable, create_session(client, customer))
    bystander = session_device(purse, publishable, create_session(client, other_customer))
    revocation = revoke_credentials(client, customer)
    assert (revocation.object, revocation.customer) == ("credential_revocation", customer)
    assert (revocation.ephemeral_keys_revoked, revocation.customer_sessions_revoked) == (0, 2)
    for device in (phone_key, tablet_key):
        with pytest.raises(stripe.AuthenticationError) as refused:
            device.v1.customers.retrieve(customer)
        assert refused.value.http_status == 401
    assert refusal(lambda: elements_session(publishable, phone.client_secret))[:2] == (400, "resource_missing")
    assert bystander.v1.customers.retrieve(other_customer).id == other_customer
    signed_in_again = session_device(purse, publishable, create_session(client, customer))  # a new session works
    assert signed_in_again.v1.customers.retrieve(customer).id == customer


def test_deleting_the_customer_revokes_its_sessions(purse, client, publishable, customer):
    session = create_session(client, customer)
    device = session_device(purse, publishable, session)
    client.v1.customers.delete(customer)
    with pytest.raises(stripe.AuthenticationError) as refused:
        device.v1.payment_methods.list(params={"customer": customer, "type": "card"})
    assert refused.value.http_status == 401
    assert refusal(lambda: elements_session(publishable, session.client_secret)) == (
        400, "resource_missing", "customer_session_client_secret",
    )


def test_an_expired_session_and_its_key_are_refused(purse, account, customer):
    lifetime = 3  # long enough to claim the session before it expires
    with purse.sibling("--customer-session-lifetime", str(lifetime)) as short_lived:
        secret = short_lived.client(account["secret_key"], max_network_retries=0)
        publishable = short_lived.client(account["publishable_key"], max_network_retries=0)
        session = create_session(secret, customer)
        assert session.expires_at - session.created == lifetime
        claimed = elements_session(publishable, session.client_secret)
        assert claimed.customer.customer_session.api_key_expiry == session.expires_at
        key = api_key_of(claimed)
        device = short_lived.client(key, max_network_retries=0)
        assert device.v1.customers.retrieve(customer).id == customer
        time.sleep(max(0.0, session.expires_at - time.time()) + 0.2)
        with pytest.raises(stripe.AuthenticationError) as refused:
            device.v1.customers.retrieve(customer)
        with pytest.raises(stripe.InvalidRequestError) as expired:
            elements_session(publishable, session.client_secret)
    assert refused.value.http_status == 401
    assert error_of(refused)["type"] == "invalid_request_error"
    assert error_of(refused)["message"].startswith("Expired API Key provided")
    assert key not in error_of(refused)["message"]
    assert expired.value.http_status == 400
    assert error_of(expired)["code"] == "customer_session_expired"
    assert error_of(expired)["param"] == "customer_session_client_secret"


def test_the_masked_key_in_a_refusal_tells_session_keys_apart(purse, client, publishable, customer):
    """A refused key is shown masked to its last four characters, which is how a developer tells
    which key failed: two sessions' keys must not end alike (each is random to its last character)."""
    sessions = [create_session(client, customer) for _ in range(2)]
    keys = [api_key_of(elements_session(publishable, s.client_secret)) for s in sessions]
    messages = []
    for session, key in zip(sessions, keys):
        revoke_session(client, session.id)
        with pytest.raises(stripe.AuthenticationError) as refused:
            purse.client(key, max_network_retries=0).v1.customers.retrieve(customer)
        messages.append(error_of(refused)["message"])
        assert key[-4:] in messages[-1] and key not in messages[-1]
    assert keys[0][-4:] != keys[1][-4:]
    assert messages[0] != messages[1]


# Secrets at rest and in logs


def test_neither_client_secrets_nor_session_keys_are_stored_or_logged(purse, client, publishable, customer):
    """Client secrets are kept only as hashes and the session's key is derived from the master key
    (purse.md §2): the database and the log hold neither, although both were used."""
    method = save(client, customer, "pm_card_visa", "always")
    session = create_session(client, customer, REMOVABLE)
    key = api_key_of(elements_session(publishable, session.client_secret))
    device = purse.client(key, max_network_retries=0)
    set_default(device, customer, method.id)
    remove(device, method.id, session.client_secret)
    revoke_session(client, session.id)
    with pytest.raises(stripe.AuthenticationError):
        device.v1.customers.retrieve(customer)
    dump = pg_dump(purse)
    assert session.id in dump, "the dump must hold the session, or the check proves nothing"
    secrets = [
        session.client_secret, session.client_secret.removeprefix("cuss_secret_"), key, key.removeprefix("ek_test_"),
    ]
    assert [s for s in secrets if s in dump] == []
    log = purse.log_text()
    assert "/v1/elements/sessions" in log, "the log must record the requests, or the check proves nothing"
    assert [s for s in secrets if s in log] == []
