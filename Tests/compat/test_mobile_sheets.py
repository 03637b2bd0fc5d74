"""What Purse answers the mobile sheets beyond the replays (issue 25): the types an elements session
offers, stripe-ios's mobile-session contract, card brand choice on co-badged cards, PaymentSheet's
legacy ephemeral key, the device's own default, and the ignored parameters counted in /metrics.
The replays (test_replay_*.py) send what the SDKs send; these tests pin down the server's side."""
import re
import uuid

import pytest
import requests

from conftest import SECRETS_SEEN, SENT_CARD_DATA

COBADGED_VISA = "4000002500001001"  # Cartes Bancaires / Visa
COBADGED_MASTERCARD = "5555552500001001"  # Cartes Bancaires / Mastercard
CONTRACT = "Stripe-Mobile-Session-Contract"


class App:
    """Raw requests with a client credential, as the SDKs make them (form encoding, bearer key)."""

    def __init__(self, base, key):
        self.base = base
        self.key = key

    def get(self, path, params=None, headers=None):
        return self._send("GET", path, params=params, headers=headers)

    def post(self, path, data=None):
        return self._send("POST", path, data=data)

    def _send(self, method, path, params=None, data=None, headers=None):
        response = requests.request(
            method, self.base + path, params=params, data=data, timeout=30,
            headers={"Authorization": f"Bearer {self.key}", **(headers or {})},
        )
        SENT_CARD_DATA.record(response.request.url, response.request.body)
        SECRETS_SEEN.record(self.key)
        SECRETS_SEEN.record(response.text)
        return response


@pytest.fixture
def app(purse, account):
    return App(purse.base, account["publishable_key"])


@pytest.fixture
def customer(client):
    return client.v1.customers.create().id


def deferred(app, types, **extra):
    params = {"type": "deferred_intent", "deferred_intent[mode]": "setup", "mobile_session_id": str(uuid.uuid4())}
    params.update({f"deferred_intent[payment_method_types][{i}]": t for i, t in enumerate(types)})
    params.update(extra)
    return app.get("/v1/elements/sessions", params)


def purse_call(client, method, path, **params):
    """A Purse-only endpoint through stripe-python's raw_request (test_sheet_settings.py does the same)."""
    return client.deserialize(client.raw_request(method, path, **params), api_mode="V1")


def ephemeral_key(client, customer, **params):
    return client.v1.ephemeral_keys.create(params={"customer": customer, **params}, options={"stripe_version": "2020-08-27"})


def attach(client, customer, token="pm_card_visa", **params):
    method = client.v1.payment_methods.create(params={"type": "card", "card": {"token": token.replace("pm_card_", "tok_")}, **params})
    return client.v1.payment_methods.attach(method.id, params={"customer": customer}).id


# Which types a sheet is offered


def test_the_offer_is_what_the_sheet_settings_allow_and_purse_can_add(client, app):
    response = deferred(app, ["sepa_debit", "card", "us_bank_account", "ideal"])
    assert response.status_code == 200
    session = response.json()
    assert session["payment_method_preference"]["ordered_payment_method_types"] == ["sepa_debit", "card", "us_bank_account"]
    assert session["unactivated_payment_method_types"] == ["ideal"]
    purse_call(client, "post", "/v1/customer_sheet_settings/default", payment_method_types=["card"])
    session = deferred(app, ["sepa_debit", "card"]).json()
    assert session["payment_method_preference"]["ordered_payment_method_types"] == ["card"]
    assert session["unactivated_payment_method_types"] == ["sepa_debit"]
    assert session["customer_sheet_settings"]["payment_method_types"] == ["card"]


def test_link_is_off(app):
    session = deferred(app, ["card", "link"]).json()
    assert "link" not in session["payment_method_preference"]["ordered_payment_method_types"]
    assert session["link_settings"]["link_funding_sources"] == []


# stripe-ios's mobile-session contract


@pytest.mark.parametrize("revision", ["0123456789abcdef", "eae9b348c98cf67b"])
def test_the_contract_echoes_the_clients_revision(app, revision):
    response = app.get(
        "/v1/elements/sessions",
        {"type": "deferred_intent", "deferred_intent[mode]": "setup", "deferred_intent[payment_method_types][0]": "card",
         "deferred_intent[payment_method_types][1]": "us_bank_account"},
        headers={CONTRACT: f"major=1; revision={revision}"},
    )
    assert response.headers[CONTRACT] == f"major=1; revision={revision}"
    element = response.json()["mobile_payment_element"]
    assert element["contract"] == {"major": 1, "revision": revision}
    assert element["payment_method_availability"]["entries"] == [
        {"payment_method_type": "card", "available": True},
        {"payment_method_type": "us_bank_account", "available": True},
    ]


@pytest.mark.parametrize("header", ["major=1", "major=2; revision=NOT-HEX", "garbage"])
def test_a_contract_header_purse_cannot_read_is_answered_with_its_own(app, header):
    response = app.get(
        "/v1/elements/sessions", {"type": "deferred_intent", "deferred_intent[mode]": "setup"}, headers={CONTRACT: header}
    )
    assert response.status_code == 200
    assert re.fullmatch(r"major=1; revision=[0-9a-f]{16}", response.headers[CONTRACT])
    revision = response.headers[CONTRACT].split("revision=")[1]
    assert response.json()["mobile_payment_element"]["contract"] == {"major": 1, "revision": revision}


def test_without_the_header_there_is_no_contract(app):
    response = deferred(app, ["card"])
    assert CONTRACT not in response.headers
    assert response.json().get("mobile_payment_element") is None


# Card brand choice


def test_card_brand_choice_is_offered(app):
    choice = deferred(app, ["card"]).json()["card_brand_choice"]
    assert choice["eligible"] is True
    assert choice["preferred_networks"] == ["cartes_bancaires"]


@pytest.mark.parametrize("number, networks", [
    (COBADGED_VISA, ["cartes_bancaires", "visa"]), (COBADGED_MASTERCARD, ["cartes_bancaires", "mastercard"]),
])
def test_co_badged_cards_run_on_both_networks(app, number, networks):
    created = app.post("/v1/payment_methods", {
        "type": "card", "card[number]": number, "card[exp_month]": "12", "card[exp_year]": "2040", "card[cvc]": "042",
    }).json()
    assert created["card"]["networks"] == {"available": networks, "preferred": None}
    assert created["card"]["brand"] == networks[1]
    assert created["card"]["display_brand"] == networks[1]
    assert created["card"]["country"] == "FR"


def test_the_holder_chooses_the_network(client, app, customer):
    created = app.post("/v1/payment_methods", {
        "type": "card", "card[number]": COBADGED_VISA, "card[exp_month]": "12", "card[exp_year]": "2040",
        "card[networks][preferred]": "cartes_bancaires",
    }).json()
    assert created["card"]["networks"]["preferred"] == "cartes_bancaires"
    assert created["card"]["display_brand"] == "cartes_bancaires"
    client.v1.payment_methods.attach(created["id"], params={"customer": customer})
    key = ephemeral_key(client, customer)
    device = App(app.base, key.secret)
    back_to_visa = device.post(f"/v1/payment_methods/{created['id']}", {"card[networks][preferred]": "visa"}).json()
    assert (back_to_visa["card"]["networks"]["preferred"], back_to_visa["card"]["display_brand"]) == ("visa", "visa")
    # As Stripe: a network the card does not run on is stored as invalid_preference.
    elsewhere = device.post(f"/v1/payment_methods/{created['id']}", {"card[networks][preferred]": "mastercard"}).json()
    assert (elsewhere["card"]["networks"]["preferred"], elsewhere["card"]["display_brand"]) == ("invalid_preference", "visa")
    refused = device.post(f"/v1/payment_methods/{created['id']}", {"card[networks][preferred]": "amex"})
    assert refused.status_code == 400
    assert refused.json()["error"]["param"] == "card[networks][preferred]"
    assert client.v1.payment_methods.retrieve(created["id"]).card.networks.preferred == "invalid_preference"


# PaymentSheet's legacy ephemeral key


def test_the_legacy_ephemeral_key_shows_its_customers_saved_methods(client, app, customer):
    always = attach(client, customer, allow_redisplay="always")
    unspecified = attach(client, customer, "pm_card_mastercard")
    client.v1.customers.update(customer, params={"invoice_settings": {"default_payment_method": always}})
    key = ephemeral_key(client, customer)
    session = deferred(app, ["card"], legacy_customer_ephemeral_key=key.secret).json()
    assert [m["id"] for m in session["customer"]["payment_methods"]] == [unspecified, always]
    assert session["customer"]["default_payment_method"] == always
    assert "customer_session" not in session["customer"]


def test_the_legacy_ephemeral_keys_sheet_settings_apply(client, app, customer):
    settings_id = purse_call(client, "post", "/v1/customer_sheet_settings", payment_method_types=["card"]).id
    key = ephemeral_key(client, customer, customer_sheet_settings=settings_id)
    session = deferred(app, ["card", "sepa_debit"], legacy_customer_ephemeral_key=key.secret).json()
    assert session["customer_sheet_settings"]["id"] == settings_id
    assert session["payment_method_preference"]["ordered_payment_method_types"] == ["card"]


def test_a_legacy_key_that_is_not_a_live_ephemeral_key_of_this_account_is_refused(purse, client, app, account, customer):
    other = purse.create_account()
    other_client = purse.client(other["secret_key"], max_network_retries=0)
    foreign = ephemeral_key(other_client, other_client.v1.customers.create().id).secret
    revoked = ephemeral_key(client, customer)
    client.v1.ephemeral_keys.delete(revoked.id)
    for key in ["ek_test_" + "A" * 32, foreign, revoked.secret, account["secret_key"], account["publishable_key"]]:
        response = deferred(app, ["card"], legacy_customer_ephemeral_key=key)
        assert response.status_code == 400, key
        assert response.json()["error"]["param"] == "legacy_customer_ephemeral_key"
        assert key not in response.text


# The device's own default


def test_the_devices_default_is_shown_whatever_its_redisplay_setting(client, app, customer):
    shown = attach(client, customer, allow_redisplay="always")
    hidden = attach(client, customer, "pm_card_mastercard")  # allow_redisplay unspecified: the session's filter hides it
    other_customer = client.v1.customers.create().id
    foreign = attach(client, other_customer, "pm_card_amex", allow_redisplay="unspecified")
    session = client.v1.customer_sessions.create(params={
        "customer": customer, "components": {"customer_sheet": {"enabled": True}},
    })

    def listed(**extra):
        answer = deferred(app, ["card"], customer_session_client_secret=session.client_secret, **extra).json()
        return [m["id"] for m in answer["customer"]["payment_methods"]]

    assert listed() == [shown]
    assert listed(client_default_payment_method=hidden) == [hidden, shown]
    # Another customer's method stays out, whatever the device says.
    assert listed(client_default_payment_method=foreign) == [shown]
    assert listed(client_default_payment_method="pm_nonexistent") == [shown]


# What is ignored is counted


def test_ignored_parameters_are_counted_by_name(purse, app):
    assert deferred(app, ["card"], some_future_parameter="1").status_code == 200
    metrics = requests.get(purse.base + "/metrics", timeout=30).text
    assert re.search(r'^purse_ignored_parameters_total\{parameter="mobile_session_id"\} [1-9]', metrics, re.M)
    assert re.search(r'^purse_ignored_parameters_total\{parameter="some_future_parameter"\} [1-9]', metrics, re.M)
