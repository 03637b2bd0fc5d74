"""A setup intent's `payment_method_options` and the microdeposits of a US bank account
(docs/api.md, Setup intents), through stripe-python 16.1.0 as a merchant's backend sends
them, with the publishable key where the app takes over (the client view, the Financial
Connections session, the hosted verification page).

Read in stripe-python 16.1.0: `SetupIntentService.create`, `update`, `confirm` and
`verify_microdeposits` (`stripe/_setup_intent_service.py`, the last a POST to
/v1/setup_intents/{intent}/verify_microdeposits); `SetupIntentCreateParamsPaymentMethodOptionsCard`
(`network`: amex ... visa, `request_three_d_secure`: any | automatic | challenge),
`SetupIntentCreateParamsPaymentMethodOptionsUsBankAccount` (`verification_method`: automatic |
instant | microdeposits) and its `FinancialConnections` (`permissions`, `prefetch`, `return_url`)
and `FinancialConnectionsFilters` (`account_subcategories`: checking | savings)
(`stripe/params/_setup_intent_create_params.py`, the same in the update and confirm params);
`SetupIntentVerifyMicrodepositsParams` (`amounts`, `descriptor_code`,
`stripe/params/_setup_intent_verify_microdeposits_params.py`), whose list `_api_encode`
(`stripe/_encode.py`) sends as `amounts[0]=32&amounts[1]=45`; `SetupIntent.PaymentMethodOptions`
and `SetupIntent.NextAction.VerifyWithMicrodeposits` (`arrival_date`, `hosted_verification_url`,
`microdeposit_type`) in `stripe/_setup_intent.py`, with the legacy `SetupIntent.verify_microdeposits`
class method (`_cls_verify_microdeposits`); `PaymentMethod.Card.Networks.available`
(`stripe/_payment_method.py`); `financial_connections.SessionService.retrieve` and
`financial_connections.Session.Filters.account_subcategories`
(`stripe/financial_connections/_session_service.py`, `_session.py`). The link account session
and synchronize calls, which stripe-python has no method for, go through `StripeClient.raw_request`
as stripe-ios sends them (test_replay_stripe_ios_bank_accounts.py), and the test bank page is
pressed with html_forms.py's `BankPage` as stripe-ios's browser (`SAFARI`).

Card data: every number sent here goes through conftest's recording client (the co-badged card
4000002500001001 included) and is checked by test_zz_card_data.py."""
import time

import pytest
import requests
import stripe

from html_forms import BankPage
from stripe_ios import SAFARI
from test_setup_intents import (  # noqa: F401  (fixtures: pytest finds them in this module's namespace)
    DECLINED_CARD, ONLINE_MANDATE, OFFLINE_MANDATE, PUBLISHABLE_FIELDS, RETURN_URL, VISA, attached_ids,
    authentication_url, create_intent, customer, decide, elements_session, error_of, events_for, fields,
    publishable, server_card_data, setup_intent_event_types, sheet_retrieve, us_bank_account_data,
)

CO_BADGED_CARD = "4000002500001001"  # cartes_bancaires and visa
BANK_TYPES = ["card", "us_bank_account"]
TEST_BANK_ACCOUNTS = {"checking", "savings", "closed", "no_account"}  # the page's test accounts (not "manual")

MICRODEPOSITS = {"us_bank_account": {"verification_method": "microdeposits"}}
INSTANT = {"us_bank_account": {"verification_method": "instant"}}
FC_RETURN_URL = "https://shop.example/bank-linked"
FC_OPTIONS = {
    "permissions": ["payment_method", "balances"], "prefetch": ["balances"], "return_url": FC_RETURN_URL,
    "filters": {"account_subcategories": ["savings"]},
}

DEFAULT_CARD = {"mandate_options": None, "network": None, "request_three_d_secure": "automatic"}
DEFAULT_BANK = {
    # return_url is optional, not nullable, in linked_account_options_common: left out when unset.
    "financial_connections": {"permissions": ["payment_method"], "prefetch": []},
    "mandate_options": {}, "verification_method": "automatic",
}

VERIFIED = "SM11AA"
EXCEEDED = "payment_method_microdeposit_verification_attempts_exceeded"
TIMED_OUT = "payment_method_microdeposit_verification_timeout"
AMOUNTS_MISMATCH = "payment_method_microdeposit_verification_amounts_mismatch"
CODE_MISMATCH = "payment_method_microdeposit_verification_descriptor_code_mismatch"
PAGE_HEADERS = {"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


# Helpers


def options_of(intent):
    return intent.payment_method_options.to_dict()


def bank_intent(client, customer, options=None, types=BANK_TYPES, **params):
    """A setup intent for cards and US bank accounts, with these `payment_method_options`."""
    if options is not None:
        params["payment_method_options"] = options
    return create_intent(client, customer, payment_method_types=types, **params)


def awaiting_microdeposits(client, customer):
    """A setup intent whose typed bank account waits for its microdeposits."""
    intent = bank_intent(client, customer, MICRODEPOSITS, types=["us_bank_account"])
    return client.v1.setup_intents.confirm(intent.id, params={
        "payment_method_data": us_bank_account_data(), "mandate_data": OFFLINE_MANDATE,
    })


def verify(client, intent, **params):
    return client.v1.setup_intents.verify_microdeposits(intent.id, params=params)


def link_account_session(publishable, intent):
    """`POST /v1/setup_intents/{id}/link_account_sessions` as stripe-ios sends it, with the
    publishable key and the intent's client secret."""
    response = publishable.raw_request(
        "post", f"/v1/setup_intents/{intent.id}/link_account_sessions", client_secret=intent.client_secret,
        payment_method_data={"type": "us_bank_account", "billing_details": {"name": "Jenny Rosen"}},
        hosted_surface="customer_sheet",
    )
    return publishable.deserialize(response, api_mode="V1")


def bank_page(publishable, session):
    """The test bank's page for a session: `synchronize` for its `hosted_auth_url`, then a GET."""
    response = publishable.raw_request(
        "post", "/v1/financial_connections/sessions/synchronize", client_secret=session.client_secret,
    )
    manifest = publishable.deserialize(response, api_mode="V1").manifest
    return BankPage.open(manifest.hosted_auth_url, SAFARI)


def linked_session(publishable, intent, account="checking"):
    """A link account session for the intent, on which the customer linked a test account."""
    session = link_account_session(publishable, intent)
    answer = bank_page(publishable, session).submit(account, "link")
    assert answer.status == 200, answer.text[:300]
    return session


def linked_bank_data(session):
    return {
        "type": "us_bank_account", "billing_details": {"name": "Jenny Rosen"},
        "us_bank_account": {"link_account_session": session.id},
    }


def sheet_confirm_bank(publishable, intent, data):
    """The sheet's confirm of a bank account, as test_setup_intents.py's `sheet_confirm` sends it."""
    return publishable.v1.setup_intents.confirm(intent.id, params={
        "client_secret": intent.client_secret, "payment_method_data": data, "mandate_data": ONLINE_MANDATE,
        "return_url": RETURN_URL, "use_stripe_sdk": True, "expand": ["payment_method"],
    })


def verification_url(intent):
    assert intent.status == "requires_action"
    assert intent.next_action.type == "verify_with_microdeposits"
    return intent.next_action.verify_with_microdeposits.hosted_verification_url


def submit_code(url, code):
    """The customer typing a code on the hosted verification page (its form's POST, from the browser)."""
    return requests.post(url, data={"descriptor_code": code}, allow_redirects=False, timeout=30)


def unchanged(client, intent, status="requires_payment_method"):
    """The intent as the refused request found it: same status, no failure recorded, nothing saved."""
    after = client.v1.setup_intents.retrieve(intent.id)
    assert (after.status, after.last_setup_error) == (status, None)
    return after


# What is stored and shown


def test_the_defaults(client, customer):
    intent = bank_intent(client, customer)
    assert options_of(intent) == {"card": DEFAULT_CARD, "us_bank_account": DEFAULT_BANK}
    card_only = create_intent(client, customer)
    assert options_of(card_only) == {"card": DEFAULT_CARD}


@pytest.mark.parametrize("value", ["automatic", "any", "challenge"])
def test_each_three_d_secure_request_is_kept(client, customer, value):
    intent = bank_intent(client, customer, {"card": {"request_three_d_secure": value}})
    assert options_of(intent)["card"] == dict(DEFAULT_CARD, request_three_d_secure=value)
    assert options_of(client.v1.setup_intents.retrieve(intent.id))["card"]["request_three_d_secure"] == value


@pytest.mark.parametrize("value", ["automatic", "instant", "microdeposits"])
def test_each_verification_method_is_kept(client, customer, value):
    intent = bank_intent(client, customer, {"us_bank_account": {"verification_method": value}})
    assert options_of(intent)["us_bank_account"] == dict(DEFAULT_BANK, verification_method=value)
    assert options_of(client.v1.setup_intents.retrieve(intent.id))["us_bank_account"]["verification_method"] == value


def test_financial_connections_options_are_kept(client, customer):
    intent = bank_intent(client, customer, {"us_bank_account": {"financial_connections": FC_OPTIONS}})
    shown = options_of(client.v1.setup_intents.retrieve(intent.id))["us_bank_account"]
    assert shown["financial_connections"] == FC_OPTIONS
    assert (shown["verification_method"], shown["mandate_options"]) == ("automatic", {})
    assert options_of(intent)["card"] == DEFAULT_CARD


def test_the_client_sees_only_the_client_shape(client, publishable, customer):
    intent = bank_intent(client, customer, {
        "card": {"request_three_d_secure": "challenge"},
        "us_bank_account": {"verification_method": "microdeposits", "financial_connections": FC_OPTIONS},
    })
    client_shape = {"card": {}, "us_bank_account": {"verification_method": "microdeposits"}}
    seen = sheet_retrieve(publishable, intent)
    assert fields(seen) == PUBLISHABLE_FIELDS
    assert options_of(seen) == client_shape
    session = elements_session(publishable, type="setup_intent", client_secret=intent.client_secret)
    assert options_of(session.payment_method_preference.setup_intent) == client_shape


def test_update_changes_only_what_is_sent(client, customer):
    intent = bank_intent(client, customer, {
        "card": {"request_three_d_secure": "challenge"},
        "us_bank_account": {"verification_method": "microdeposits", "financial_connections": FC_OPTIONS},
    })
    before = options_of(intent)
    updated = client.v1.setup_intents.update(intent.id, params={"payment_method_options": INSTANT})
    assert options_of(updated) == {
        "card": before["card"], "us_bank_account": dict(before["us_bank_account"], verification_method="instant"),
    }
    prefetch = {"us_bank_account": {"financial_connections": {"prefetch": ["ownership", "transactions"]}}}
    updated = client.v1.setup_intents.update(intent.id, params={"payment_method_options": prefetch})
    assert options_of(updated)["us_bank_account"]["financial_connections"] == dict(
        FC_OPTIONS, prefetch=["ownership", "transactions"],
    )
    assert options_of(updated)["card"]["request_three_d_secure"] == "challenge"
    described = client.v1.setup_intents.update(intent.id, params={"description": "Save a bank account"})
    assert options_of(described) == options_of(updated)
    card = client.v1.setup_intents.update(intent.id, params={
        "payment_method_options": {"card": {"request_three_d_secure": "any"}},
    })
    assert options_of(card) == dict(options_of(updated), card=dict(DEFAULT_CARD, request_three_d_secure="any"))


# Refusals


BANK_OPTIONS = "payment_method_options[us_bank_account]"
INVALID_OPTIONS = [
    ({"card": {"request_three_d_secure": "always"}}, "payment_method_options[card][request_three_d_secure]"),
    ({"us_bank_account": {"verification_method": "skip"}}, f"{BANK_OPTIONS}[verification_method]"),
    ({"us_bank_account": {"financial_connections": {"permissions": ["balances", "ownership"]}}},
     f"{BANK_OPTIONS}[financial_connections][permissions]"),
    # An unknown value in a list is named with its index, as payment_method_types[1] is elsewhere.
    ({"us_bank_account": {"financial_connections": {"permissions": ["payment_method", "accounts"]}}},
     f"{BANK_OPTIONS}[financial_connections][permissions][1]"),
    ({"us_bank_account": {"financial_connections": {"prefetch": ["payment_method"]}}},
     f"{BANK_OPTIONS}[financial_connections][prefetch][0]"),
    ({"us_bank_account": {"financial_connections": {"filters": {"account_subcategories": ["mortgage"]}}}},
     f"{BANK_OPTIONS}[financial_connections][filters][account_subcategories][0]"),
    ({"us_bank_account": {"financial_connections": {"return_url": "javascript:alert(1)"}}},
     f"{BANK_OPTIONS}[financial_connections][return_url]"),
]


@pytest.mark.parametrize("options, param", INVALID_OPTIONS, ids=[param for _, param in INVALID_OPTIONS])
def test_an_invalid_option_is_refused_at_create(client, customer, options, param):
    with pytest.raises(stripe.InvalidRequestError) as refused:
        bank_intent(client, customer, options)
    assert refused.value.http_status == 400
    assert error_of(refused)["type"] == "invalid_request_error"
    assert refused.value.param == param
    assert client.v1.setup_intents.list(params={"customer": customer}).data == []


@pytest.mark.parametrize("options, param", INVALID_OPTIONS, ids=[param for _, param in INVALID_OPTIONS])
def test_an_invalid_option_is_refused_at_update(client, customer, options, param):
    intent = bank_intent(client, customer, {"card": {"request_three_d_secure": "any"}})
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.setup_intents.update(intent.id, params={"payment_method_options": options})
    assert (refused.value.http_status, refused.value.param) == (400, param)
    assert options_of(client.v1.setup_intents.retrieve(intent.id)) == options_of(intent)


def test_the_network_is_refused_outside_a_confirmation(client, customer):
    network = {"card": {"network": "cartes_bancaires"}}
    with pytest.raises(stripe.InvalidRequestError) as at_create:
        create_intent(client, customer, payment_method_options=network)
    assert (at_create.value.http_status, at_create.value.param) == (400, "payment_method_options[card][network]")
    assert error_of(at_create)["type"] == "invalid_request_error"
    assert client.v1.setup_intents.list(params={"customer": customer}).data == []
    intent = create_intent(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as at_update:
        client.v1.setup_intents.update(intent.id, params={"payment_method_options": network})
    assert (at_update.value.http_status, at_update.value.param) == (400, "payment_method_options[card][network]")
    assert options_of(client.v1.setup_intents.retrieve(intent.id))["card"]["network"] is None


def test_an_unknown_network_is_refused(client, customer):
    intent = create_intent(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.setup_intents.confirm(intent.id, params={
            "payment_method_data": server_card_data(CO_BADGED_CARD),
            "payment_method_options": {"card": {"network": "maestro"}},
        })
    assert (refused.value.http_status, refused.value.param) == (400, "payment_method_options[card][network]")
    unchanged(client, intent)
    assert attached_ids(client, customer) == []


# Cards: 3D Secure and the network


@pytest.mark.parametrize("value", ["any", "challenge"])
def test_a_requested_challenge_sends_an_approved_card_to_3d_secure(purse, client, customer, value):
    intent = create_intent(client, customer, payment_method_options={"card": {"request_three_d_secure": value}})
    pending = client.v1.setup_intents.confirm(intent.id, params={
        "payment_method_data": server_card_data(VISA), "return_url": RETURN_URL,
    })
    url = authentication_url(pending)
    assert url.startswith(purse.base + "/")
    assert attached_ids(client, customer) == []
    answer = decide(url, "complete")
    assert (answer.status_code, answer.headers["Location"]) == (303, RETURN_URL)
    done = client.v1.setup_intents.retrieve(intent.id)
    assert (done.status, done.next_action) == ("succeeded", None)
    assert attached_ids(client, customer) == [pending.payment_method]
    assert setup_intent_event_types(client, intent.id) == [
        "setup_intent.created", "setup_intent.requires_action", "setup_intent.succeeded",
    ]


def test_automatic_saves_an_approved_card_at_once(client, customer):
    intent = create_intent(client, customer, payment_method_options={"card": {"request_three_d_secure": "automatic"}})
    confirmed = client.v1.setup_intents.confirm(intent.id, params={"payment_method_data": server_card_data(VISA)})
    assert (confirmed.status, confirmed.next_action) == ("succeeded", None)


def test_a_challenge_set_by_update_is_honoured_from_the_sheet(client, publishable, customer):
    intent = create_intent(client, customer)
    client.v1.setup_intents.update(intent.id, params={
        "payment_method_options": {"card": {"request_three_d_secure": "challenge"}},
    })
    pending = publishable.v1.setup_intents.confirm(intent.id, params={
        "client_secret": intent.client_secret, "payment_method_data": server_card_data(VISA),
        "return_url": RETURN_URL, "use_stripe_sdk": True,
    })
    assert pending.next_action.redirect_to_url.return_url == RETURN_URL
    decide(authentication_url(pending), "complete")
    assert sheet_retrieve(publishable, intent).status == "succeeded"


def test_a_declining_card_still_declines_under_a_challenge(client, customer):
    intent = create_intent(client, customer, payment_method_options={"card": {"request_three_d_secure": "challenge"}})
    with pytest.raises(stripe.CardError) as declined:
        client.v1.setup_intents.confirm(intent.id, params={"payment_method_data": server_card_data(DECLINED_CARD)})
    assert (declined.value.http_status, declined.value.code) == (402, "card_declined")
    failed = client.v1.setup_intents.retrieve(intent.id)
    assert (failed.status, failed.next_action) == ("requires_payment_method", None)
    assert attached_ids(client, customer) == []


@pytest.mark.parametrize("network", ["cartes_bancaires", "visa"])
def test_a_co_badged_card_is_saved_on_the_network_asked(client, customer, network):
    intent = create_intent(client, customer)
    confirmed = client.v1.setup_intents.confirm(intent.id, params={
        "payment_method_data": server_card_data(CO_BADGED_CARD),
        "payment_method_options": {"card": {"network": network}},
    })
    assert confirmed.status == "succeeded"
    assert options_of(confirmed)["card"] == dict(DEFAULT_CARD, network=network)
    assert options_of(client.v1.setup_intents.retrieve(intent.id))["card"]["network"] == network
    method = client.v1.payment_methods.retrieve(confirmed.payment_method)
    assert method.card.networks.available == ["cartes_bancaires", "visa"]
    assert attached_ids(client, customer) == [method.id]


def test_create_and_confirm_with_a_network(client, customer):
    intent = create_intent(
        client, customer, payment_method_data=server_card_data(CO_BADGED_CARD), confirm=True,
        payment_method_options={"card": {"network": "cartes_bancaires"}},
    )
    assert intent.status == "succeeded"
    assert options_of(intent)["card"]["network"] == "cartes_bancaires"


def test_a_network_the_card_does_not_run_on_is_refused(client, customer):
    intent = create_intent(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.setup_intents.confirm(intent.id, params={
            "payment_method_data": server_card_data(VISA),
            "payment_method_options": {"card": {"network": "cartes_bancaires"}},
        })
    assert refused.value.http_status == 400
    assert error_of(refused)["type"] == "invalid_request_error"
    assert refused.value.param == "payment_method_options[card][network]"
    after = unchanged(client, intent)
    assert options_of(after)["card"]["network"] is None
    assert attached_ids(client, customer) == []
    assert setup_intent_event_types(client, intent.id) == ["setup_intent.created"]


# US bank accounts: instant verification


def test_instant_refuses_typed_numbers(client, customer):
    intent = bank_intent(client, customer, INSTANT)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.setup_intents.confirm(intent.id, params={
            "payment_method_data": us_bank_account_data(), "mandate_data": OFFLINE_MANDATE,
        })
    assert refused.value.http_status == 400
    assert error_of(refused)["type"] == "invalid_request_error"
    assert refused.value.param == "payment_method_data[us_bank_account]"
    unchanged(client, intent)
    assert attached_ids(client, customer) == []


def test_instant_saves_a_linked_account(client, publishable, customer):
    intent = bank_intent(client, customer, INSTANT)
    session = linked_session(publishable, intent)
    confirmed = sheet_confirm_bank(publishable, intent, linked_bank_data(session))
    assert confirmed.status == "succeeded"
    assert confirmed.payment_method.us_bank_account.financial_connections_account
    assert attached_ids(client, customer) == [confirmed.payment_method.id]


# US bank accounts: microdeposits


def test_typed_numbers_wait_for_microdeposits(purse, client, customer):
    pending = awaiting_microdeposits(client, customer)
    assert pending.status == "requires_action"
    deposits = pending.next_action.verify_with_microdeposits
    assert deposits.arrival_date > time.time()
    assert deposits.microdeposit_type == "descriptor_code"
    assert verification_url(pending).startswith(f"{purse.base}/v1/setup_intents/{pending.id}/verify_microdeposits/")
    assert pending.mandate
    assert pending.last_setup_error is None
    assert client.v1.payment_methods.retrieve(pending.payment_method).customer is None
    assert attached_ids(client, customer) == []


def test_the_client_sees_the_microdeposits(client, publishable, customer):
    pending = awaiting_microdeposits(client, customer)
    seen = sheet_retrieve(publishable, pending)
    assert fields(seen) == PUBLISHABLE_FIELDS
    assert seen.next_action.to_dict() == pending.next_action.to_dict()
    assert options_of(seen) == {"us_bank_account": {"verification_method": "microdeposits"}}


def test_microdeposits_refuse_a_linked_account(client, publishable, customer):
    """Linked while the intent verified automatically; by the confirmation it wants microdeposits."""
    intent = bank_intent(client, customer)
    session = linked_session(publishable, intent)
    client.v1.setup_intents.update(intent.id, params={"payment_method_options": MICRODEPOSITS})
    with pytest.raises(stripe.InvalidRequestError) as refused:
        sheet_confirm_bank(publishable, intent, linked_bank_data(session))
    assert (refused.value.http_status, refused.value.param) == (400, "payment_method_data[us_bank_account]")
    unchanged(client, intent)
    assert attached_ids(client, customer) == []


def test_no_link_account_session_for_microdeposits(client, publishable, customer):
    intent = bank_intent(client, customer, MICRODEPOSITS)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        link_account_session(publishable, intent)
    assert refused.value.http_status == 400
    assert error_of(refused)["type"] == "invalid_request_error"


def test_the_descriptor_code_verifies(client, customer):
    pending = awaiting_microdeposits(client, customer)
    verified = verify(client, pending, descriptor_code=VERIFIED)
    assert (verified.status, verified.next_action, verified.last_setup_error) == ("succeeded", None, None)
    assert verified.payment_method == pending.payment_method
    assert attached_ids(client, customer) == [pending.payment_method]
    attached = [e.data.object.id for e in client.v1.events.list(params={"type": "payment_method.attached"}).data]
    assert attached == [pending.payment_method]
    assert len(events_for(client, pending.id, "setup_intent.succeeded")) == 1


def test_the_amounts_verify_with_the_publishable_key(client, publishable, customer):
    pending = awaiting_microdeposits(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as no_secret:
        publishable.v1.setup_intents.verify_microdeposits(pending.id, params={"amounts": [32, 45]})
    assert no_secret.value.param == "client_secret"
    verified = publishable.v1.setup_intents.verify_microdeposits(pending.id, params={
        "client_secret": pending.client_secret, "amounts": [32, 45],
    })
    assert fields(verified) == PUBLISHABLE_FIELDS
    assert verified.status == "succeeded"
    assert attached_ids(client, customer) == [pending.payment_method]


def test_the_legacy_resource_api(purse, account, client, customer):
    pending = awaiting_microdeposits(client, customer)
    stripe.api_key = account["secret_key"]
    stripe.api_base = purse.base
    try:
        verified = stripe.SetupIntent.verify_microdeposits(pending.id, descriptor_code=VERIFIED)
    finally:
        stripe.api_base = "https://api.stripe.com"
        stripe.api_key = None
    assert isinstance(verified, stripe.SetupIntent)
    assert verified.status == "succeeded"
    assert attached_ids(client, customer) == [pending.payment_method]


@pytest.mark.parametrize("reading, code", [
    ({"descriptor_code": "SM33CC"}, EXCEEDED),
    ({"amounts": [10, 11]}, EXCEEDED),
    ({"descriptor_code": "SM44DD"}, TIMED_OUT),
    ({"amounts": [40, 41]}, TIMED_OUT),
], ids=["SM33CC", "10, 11", "SM44DD", "40, 41"])
def test_a_failed_verification_fails_the_intent(client, customer, reading, code):
    pending = awaiting_microdeposits(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        verify(client, pending, **reading)
    assert (refused.value.http_status, refused.value.code) == (400, code)
    assert error_of(refused)["type"] == "invalid_request_error"
    assert error_of(refused)["setup_intent"]["status"] == "requires_payment_method"
    failed = client.v1.setup_intents.retrieve(pending.id)
    assert (failed.status, failed.next_action) == ("requires_payment_method", None)
    assert failed.last_setup_error.code == code
    assert attached_ids(client, customer) == []
    assert len(events_for(client, pending.id, "setup_intent.setup_failed")) == 1


@pytest.mark.parametrize("reading, code", [
    ({"descriptor_code": "SM99ZZ"}, CODE_MISMATCH),
    ({"amounts": [12, 34]}, AMOUNTS_MISMATCH),
], ids=["code", "amounts"])
def test_a_wrong_reading_may_be_tried_again(client, customer, reading, code):
    pending = awaiting_microdeposits(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        verify(client, pending, **reading)
    assert (refused.value.http_status, refused.value.code) == (400, code)
    assert error_of(refused)["setup_intent"]["status"] == "requires_action"
    kept = client.v1.setup_intents.retrieve(pending.id)
    assert (kept.status, kept.last_setup_error) == ("requires_action", None)
    assert kept.next_action.type == "verify_with_microdeposits"
    assert events_for(client, pending.id, "setup_intent.setup_failed") == []
    assert verify(client, pending, descriptor_code=VERIFIED).status == "succeeded"


def test_the_tenth_wrong_reading_ends_the_verification(client, customer):
    pending = awaiting_microdeposits(client, customer)
    codes = []
    for _ in range(10):
        with pytest.raises(stripe.InvalidRequestError) as refused:
            verify(client, pending, descriptor_code="SM99ZZ")
        codes.append(refused.value.code)
    assert codes == [CODE_MISMATCH] * 9 + [EXCEEDED]
    failed = client.v1.setup_intents.retrieve(pending.id)
    assert (failed.status, failed.last_setup_error.code) == ("requires_payment_method", EXCEEDED)
    with pytest.raises(stripe.InvalidRequestError) as late:
        verify(client, pending, descriptor_code=VERIFIED)
    assert late.value.code == "setup_intent_unexpected_state"
    assert attached_ids(client, customer) == []


@pytest.mark.parametrize("reading", [{}, {"amounts": [32, 45], "descriptor_code": VERIFIED}], ids=["neither", "both"])
def test_verify_needs_the_amounts_or_the_code(client, customer, reading):
    pending = awaiting_microdeposits(client, customer)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        verify(client, pending, **reading)
    assert refused.value.http_status == 400
    assert error_of(refused)["type"] == "invalid_request_error"
    unchanged(client, pending, status="requires_action")
    assert attached_ids(client, customer) == []


def test_only_an_intent_awaiting_microdeposits_is_verified(client, customer):
    fresh = bank_intent(client, customer)
    three_d_secure = create_intent(client, customer, payment_method_options={"card": {"request_three_d_secure": "any"}})
    client.v1.setup_intents.confirm(three_d_secure.id, params={"payment_method_data": server_card_data(VISA)})
    done = awaiting_microdeposits(client, customer)
    verify(client, done, descriptor_code=VERIFIED)
    expected = [(fresh, "requires_payment_method"), (three_d_secure, "requires_action"), (done, "succeeded")]
    for intent, status in expected:
        with pytest.raises(stripe.InvalidRequestError) as refused:
            verify(client, intent, descriptor_code=VERIFIED)
        assert (refused.value.http_status, refused.value.code) == (400, "setup_intent_unexpected_state"), status
        assert client.v1.setup_intents.retrieve(intent.id).status == status


def test_a_counted_reading_is_replayed_not_counted_again(client, customer):
    pending = awaiting_microdeposits(client, customer)
    for _ in range(2):
        with pytest.raises(stripe.InvalidRequestError) as refused:
            client.v1.setup_intents.verify_microdeposits(
                pending.id, params={"descriptor_code": "SM99ZZ"}, options={"idempotency_key": f"verify-{pending.id}"},
            )
        assert refused.value.code == CODE_MISMATCH
        assert "9 verification attempts remaining" in refused.value.user_message


def test_a_second_confirmation_cannot_restart_the_count(client, customer):
    pending = awaiting_microdeposits(client, customer)
    with pytest.raises(stripe.InvalidRequestError):
        verify(client, pending, descriptor_code="SM99ZZ")
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.setup_intents.confirm(pending.id, params={
            "payment_method_data": us_bank_account_data(), "mandate_data": OFFLINE_MANDATE,
        })
    assert (refused.value.http_status, refused.value.code) == (400, "setup_intent_unexpected_state")
    kept = client.v1.setup_intents.retrieve(pending.id)
    assert kept.next_action == pending.next_action  # the same page, the same arrival
    with pytest.raises(stripe.InvalidRequestError) as again:
        verify(client, pending, descriptor_code="SM99ZZ")
    assert "8 verification attempts remaining" in again.value.user_message


def test_an_update_that_drops_microdeposits_ends_the_wait(client, customer):
    pending = awaiting_microdeposits(client, customer)
    updated = client.v1.setup_intents.update(pending.id, params={
        "payment_method_options": {"us_bank_account": {"verification_method": "automatic"}},
    })
    assert (updated.status, updated.next_action) == ("requires_confirmation", None)
    with pytest.raises(stripe.InvalidRequestError) as refused:
        verify(client, pending, descriptor_code=VERIFIED)
    assert refused.value.code == "setup_intent_unexpected_state"
    assert submit_code(verification_url(pending), VERIFIED).status_code == 404  # its page is spent
    assert attached_ids(client, customer) == []


def test_a_canceled_wait_verifies_nothing(client, customer):
    pending = awaiting_microdeposits(client, customer)
    assert client.v1.setup_intents.cancel(pending.id).status == "canceled"
    with pytest.raises(stripe.InvalidRequestError) as refused:
        verify(client, pending, descriptor_code=VERIFIED)
    assert refused.value.code == "setup_intent_unexpected_state"
    assert attached_ids(client, customer) == []


def test_the_event_names_the_wait_without_the_page(client, customer):
    pending = awaiting_microdeposits(client, customer)
    [event] = events_for(client, pending.id, "setup_intent.requires_action")
    action = event.data.object.next_action.to_dict()
    assert action == {"type": "verify_with_microdeposits", "verify_with_microdeposits": {
        "arrival_date": pending.next_action.verify_with_microdeposits.arrival_date,
        "microdeposit_type": "descriptor_code",
    }}


@pytest.mark.parametrize("options, param", [
    ({"us_bank_account": {"verification_method": "automatic"}}, f"{BANK_OPTIONS}[verification_method]"),
    ({"us_bank_account": {"financial_connections": {"permissions": ["payment_method"]}}},
     f"{BANK_OPTIONS}[financial_connections]"),
], ids=["verification", "financial_connections"])
def test_the_client_secret_cannot_relax_the_bank_options(client, publishable, customer, options, param):
    intent = bank_intent(client, customer, MICRODEPOSITS, types=["us_bank_account"])
    with pytest.raises(stripe.InvalidRequestError) as refused:
        publishable.v1.setup_intents.confirm(intent.id, params={
            "client_secret": intent.client_secret, "payment_method_data": us_bank_account_data(),
            "mandate_data": ONLINE_MANDATE, "payment_method_options": options,
        })
    assert (refused.value.http_status, refused.value.param) == (400, param)
    assert options_of(unchanged(client, intent))["us_bank_account"]["verification_method"] == "microdeposits"


def test_the_client_secret_may_ask_for_more_three_d_secure_never_less(client, publishable, customer):
    challenged = create_intent(client, customer, payment_method_options={"card": {"request_three_d_secure": "challenge"}})
    with pytest.raises(stripe.InvalidRequestError) as refused:
        publishable.v1.setup_intents.confirm(challenged.id, params={
            "client_secret": challenged.client_secret, "payment_method_data": server_card_data(VISA),
            "payment_method_options": {"card": {"request_three_d_secure": "automatic"}},
        })
    assert refused.value.param == "payment_method_options[card][request_three_d_secure]"
    unchanged(client, challenged)
    plain = create_intent(client, customer)
    pending = publishable.v1.setup_intents.confirm(plain.id, params={
        "client_secret": plain.client_secret, "payment_method_data": server_card_data(VISA), "return_url": RETURN_URL,
        "payment_method_options": {"card": {"request_three_d_secure": "any"}},
    })
    assert pending.status == "requires_action"


# The hosted verification page


def test_the_hosted_page_shows_a_form(client, customer):
    pending = awaiting_microdeposits(client, customer)
    page = requests.get(verification_url(pending), timeout=30)
    assert page.status_code == 200
    assert page.headers["Content-Type"].startswith("text/html")
    assert "<form" in page.text and 'name="descriptor_code"' in page.text
    assert "<script" not in page.text.lower()
    assert "default-src 'none'" in page.headers["Content-Security-Policy"]
    assert {name: page.headers.get(name) for name in PAGE_HEADERS} == PAGE_HEADERS
    assert page.headers["Cache-Control"] == "no-store"
    assert client.v1.setup_intents.retrieve(pending.id).status == "requires_action"  # showing it changes nothing


def test_the_hosted_page_verifies(client, customer):
    pending = awaiting_microdeposits(client, customer)
    answer = submit_code(verification_url(pending), VERIFIED)
    assert answer.status_code == 200
    assert answer.headers["Content-Type"].startswith("text/html")
    assert client.v1.setup_intents.retrieve(pending.id).status == "succeeded"
    assert attached_ids(client, customer) == [pending.payment_method]
    assert len(events_for(client, pending.id, "setup_intent.succeeded")) == 1


def test_the_hosted_page_asks_again_after_a_wrong_code(client, customer):
    pending = awaiting_microdeposits(client, customer)
    url = verification_url(pending)
    answer = submit_code(url, "SM99ZZ")
    assert answer.status_code == 400
    assert 'name="descriptor_code"' in answer.text
    unchanged(client, pending, status="requires_action")
    submit_code(url, VERIFIED)
    assert client.v1.setup_intents.retrieve(pending.id).status == "succeeded"


def test_the_hosted_page_needs_its_token(client, customer):
    pending = awaiting_microdeposits(client, customer)
    forged = verification_url(pending).rsplit("/", 1)[0] + "/" + "A" * 24
    assert requests.get(forged, timeout=30).status_code == 404
    assert submit_code(forged, VERIFIED).status_code == 404
    unchanged(client, pending, status="requires_action")
    assert attached_ids(client, customer) == []


# Financial Connections


def test_the_session_for_the_intent_shows_its_options(client, publishable, customer):
    intent = bank_intent(client, customer, {"us_bank_account": {"financial_connections": FC_OPTIONS}})
    session = link_account_session(publishable, intent)
    for shown in (session, client.v1.financial_connections.sessions.retrieve(session.id)):
        assert shown.permissions == FC_OPTIONS["permissions"]
        assert shown.prefetch == FC_OPTIONS["prefetch"]
        assert shown.return_url == FC_RETURN_URL
        assert shown.filters.account_subcategories == ["savings"]


def test_the_default_session_asks_for_the_payment_method_only(client, publishable, customer):
    session = link_account_session(publishable, bank_intent(client, customer))
    assert session.permissions == ["payment_method"]
    assert "account_subcategories" not in session.filters


def test_the_test_bank_offers_only_the_allowed_subcategories(client, publishable, customer):
    intent = bank_intent(client, customer, {"us_bank_account": {"financial_connections": FC_OPTIONS}})
    session = link_account_session(publishable, intent)
    page = bank_page(publishable, session)
    assert page.status == 200
    assert set(page.radio_values()) & TEST_BANK_ACCOUNTS == {"savings"}
    assert '<option value="checking"' not in page.response.text  # nor typed checking numbers
    answer = page.submit("savings", "link")
    assert answer.status == 200
    confirmed = sheet_confirm_bank(publishable, intent, linked_bank_data(session))
    assert confirmed.status == "succeeded"
    bank = confirmed.payment_method.us_bank_account
    assert (bank.account_type, bank.last4) == ("savings", "2227")
