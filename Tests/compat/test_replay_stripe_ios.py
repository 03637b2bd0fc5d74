"""Replays of a current stripe-ios CustomerSheet against Purse (issue 25): the requests the SDK
sends, byte for byte as its `STPAPIClient` builds them (stripe_ios.py), for both integrations —
`StripeCustomerAdapter` with an ephemeral key and a setup-intent provider ("adapter"), and
customer-session client secrets ("session") — and the answers held to what the SDK's decoders
require (stripe_ios.py's `decode_*`, each naming the Swift symbol and commit it mirrors).

The merchant's backend (customer, ephemeral key with the SDK's Stripe-Version, setup intents,
customer sessions) is stripe-python on the secret key, as in the other compat tests. Every
request the app side sends cites its source in the docstring of the stripe_ios.py function that
sends it; docs/replays/stripe-ios.md lists them per flow.

US bank accounts (Financial Connections, issue 30) are replayed in
test_replay_stripe_ios_bank_accounts.py, with these fixtures.

Card data: stripe_ios.py records every request in conftest's SENT_CARD_DATA and SECRETS_SEEN.
CVCs start with 0; no test token is used (cards and IBANs are sent by number, as the sheet does)."""
import datetime
import re
import urllib.parse

import pytest
import requests

import html_forms
import stripe_ios
from stripe_ios import (
    RETURN_URL, AdapterSheet, SessionSheet, add_payment_method, card_payment_method_data, check_mobile_session_contract,
    decode_customer, decode_elements_session, decode_error, decode_payment_method, decode_payment_method_list,
    decode_setup_intent, offered_types, query_string, sepa_debit_payment_method_data, setup_intent_of_elements_session,
)

THIS_YEAR = datetime.date.today().year
SHEET_TYPES = ["card", "us_bank_account", "sepa_debit"]  # what the example app passes as paymentMethodTypes
VISA = "4242424242424242"
MASTERCARD = "5555555555554444"
THREE_D_SECURE = "4000002500003155"
DECLINED = "4000000000000002"
COBADGED = "4000002500001001"  # Stripe's Cartes Bancaires / Visa co-badged test card
IBAN = "DE89370400440532013000"
CVC = "042"
EXPIRY = (11, THIS_YEAR + 4)
NEW_EXPIRY = (3, THIS_YEAR + 7)
INTEGRATIONS = ["adapter", "session"]


# The merchant's backend (stripe-python, secret key)


@pytest.fixture
def customer(client):
    return client.v1.customers.create(params={"email": "jenny@example.com", "name": "Jenny Rosen"}).id


def ephemeral_key_provider(client, customer):
    """The app's `customerEphemeralKeyProvider`: the backend creates an ephemeral key rendered for
    the SDK's API version (`STPAPIClient.apiVersion`, 2020-08-27) and returns the secret."""
    def provide():
        key = client.v1.ephemeral_keys.create(params={"customer": customer},
                                              options={"stripe_version": stripe_ios.API_VERSION})
        return customer, key.secret
    return provide


def setup_intent_provider(client, customer):
    """`setupIntentClientSecretProvider`: a setup intent for the customer with the sheet's types."""
    def provide():
        return client.v1.setup_intents.create(params={"customer": customer, "payment_method_types": SHEET_TYPES}).client_secret
    return provide


SESSION_FEATURES = {
    "payment_method_remove": "enabled",
    "payment_method_remove_last": "enabled",
    "payment_method_sync_default": "enabled",
    "payment_method_allow_redisplay_filters": ["always"],
}


def customer_session_provider(client, customer, features=None):
    """`customerSessionClientSecretProvider`: a customer session with `components[customer_sheet]
    [enabled]=true` and the features the sheet needs (remove, remove last, sync the default)."""
    def provide():
        session = client.v1.customer_sessions.create(params={
            "customer": customer,
            "components": {"customer_sheet": {"enabled": True, "features": features or SESSION_FEATURES}},
        })
        return customer, session.client_secret
    return provide


def make_sheet(integration, purse, account, client, customer, setup_intents=True):
    if integration == "adapter":
        return AdapterSheet(purse.base, account["publishable_key"], ephemeral_key_provider(client, customer),
                            setup_intent_provider(client, customer) if setup_intents else None,
                            payment_method_types=SHEET_TYPES)
    return SessionSheet(purse.base, account["publishable_key"], customer_session_provider(client, customer),
                        setup_intent_provider(client, customer), payment_method_types=SHEET_TYPES)


@pytest.fixture(params=INTEGRATIONS)
def sheet(request, purse, account, client, customer):
    return make_sheet(request.param, purse, account, client, customer)


# Helpers


def expect_ok(reply, what):
    """The request must succeed; if it does not, say what Purse answered (the implementer's
    to-do): status, error type, code, param and message."""
    if 200 <= reply.status < 300:
        return reply.json()
    try:
        error = reply.json().get("error", {})
    except ValueError:
        error = {"message": reply.text[:300]}
    pytest.fail(
        f"{what}: {reply.method} {reply.path} answered {reply.status} "
        f"type={error.get('type')} code={error.get('code')} param={error.get('param')} "
        f"message={error.get('message')!r}\nrequest: {reply.url}\nbody: {reply.body[:1500]}"
    )


def no_drops(decoded, what):
    assert decoded.dropped == [], f"{what}: stripe-ios would drop {decoded.dropped}"


def load(sheet):
    """Presenting the sheet (`CustomerSheet.present` -> `loadPaymentMethodInfo`); everything it
    asks must succeed and decode."""
    state = sheet.load()
    for reply in state.list_replies:
        no_drops(decode_payment_method_list(expect_ok(reply, "StripeCustomerAdapter.fetchPaymentMethods")),
                 "GET /v1/payment_methods")
    body = expect_ok(state.elements_reply, "CustomerSheet load: GET /v1/elements/sessions")
    session = decode_elements_session(body, customer_session_client_secret=sheet.claimed[1]
                                      if sheet.integration == "session" else None)
    no_drops(session, "the sheet's elements session")
    state.session = session
    return state


def add(sheet, payment_method_data):
    """Adding a method (`addPaymentOption`): every step up to the confirm must succeed; returns
    the decoded elements session and the confirm's reply."""
    replies = add_payment_method(sheet, payment_method_data)
    session_body = expect_ok(replies[0], "the add flow's elements session for the setup intent")
    assert len(replies) == 2, "the SDK stopped before confirming"
    return session_body, replies[1]


def confirmed(sheet, payment_method_data, status="succeeded"):
    session_body, reply = add(sheet, payment_method_data)
    intent = decode_setup_intent(expect_ok(reply, "POST /v1/setup_intents/{id}/confirm"))
    no_drops(intent, "the confirmed setup intent")
    assert intent["status"] == status, intent
    assert isinstance(intent["payment_method"], dict), "the SDK asks for expand[0]=payment_method and reads it"
    return intent


def card(sheet, number=VISA, cvc=CVC, expiry=EXPIRY, **extra):
    return card_payment_method_data(sheet, number, cvc, *expiry, **extra)


def refreshed_ids(sheet):
    """After an add or a remove the sheet refreshes its saved methods (`fetchSavedPaymentMethods`)."""
    return load(sheet).ids


def assert_shown(sheet, state, expected):
    """The sheet shows `expected` (newest first). A customer session shows the server's order; a
    StripeCustomerAdapter merges one list per type and sorts by `created` descending with Swift's
    unstable `sort`, so methods created in the same second may come in either order: there the
    check is the set and the order of `created`."""
    if sheet.integration == "session":
        assert state.ids == expected
    else:
        assert sorted(state.ids) == sorted(expected)
        created = [method["created"] for method in state.methods]
        assert created == sorted(created, reverse=True)


def browser_completes(url):
    """What SFSafariViewController does with `next_action.redirect_to_url.url`: open the page, the
    customer presses the button that completes authentication (its form is POSTed), and the
    browser is sent to the return URL, which hands control back to the app (the SDK does not
    follow it: iOS opens the app). Returns the final answer (its Location is the return URL)."""
    browser = requests.Session()
    browser.headers.update(stripe_ios.SAFARI.headers)
    page = browser.get(url, timeout=30)
    assert page.status_code == 200 and page.headers.get("Content-Type", "").startswith("text/html"), page.text[:300]
    forms = html_forms.parse(page.text).forms
    form = next((form for form in forms if ("action", "complete") in html_forms.form_fields(form)), None)
    assert form is not None and form["method"] == "post", f"no form completing authentication on {url}"
    target = urllib.parse.urljoin(url, form["action"] or url)
    return browser.post(target, data=html_forms.form_fields(form), allow_redirects=False, timeout=30)


# Encoding, as URLEncoder writes it (no server)


def test_the_form_encoding_is_stripe_ios_url_encoder():
    """URLEncoder.swift @ 57907e92: sorted keys, raw brackets, indexed arrays, `/` kept, `;`, `:`
    and spaces escaped, booleans as words."""
    assert query_string({
        "type": "deferred_intent",
        "deferred_intent": {"payment_method_types": ["card", "sepa_debit"], "mode": "setup"},
        "locale": "en-US",
    }) == "deferred_intent[mode]=setup&deferred_intent[payment_method_types][0]=card&" \
          "deferred_intent[payment_method_types][1]=sepa_debit&locale=en-US&type=deferred_intent"
    assert query_string({"use_stripe_sdk": True, "return_url": RETURN_URL, "payment_user_agent":
                         "stripe-ios/26.16.1; variant.paymentsheet; CustomerSheet", "empty": []}) == (
        "payment_user_agent=stripe-ios/26.16.1%3B%20variant.paymentsheet%3B%20CustomerSheet&"
        "return_url=purse-example%3A//stripe-redirect&use_stripe_sdk=true")


# Secret-key endpoints stay strict


def test_the_merchant_backend_is_still_refused_unknown_parameters(client, customer):
    """Issue 25: only the client SDKs' requests accept their extra fields; the secret key keeps
    Stripe's strictness."""
    import stripe
    with pytest.raises(stripe.InvalidRequestError) as refused:
        client.v1.setup_intents.create(params={"customer": customer, "mobile_session_id": "x"})
    assert (refused.value.http_status, refused.value.code, refused.value.param) == (
        400, "parameter_unknown", "mobile_session_id")


# Load


def test_the_sheet_loads(sheet, client, customer):
    """The first thing the sheet does: the saved methods (adapter: three lists with the ephemeral
    key) and `GET /v1/elements/sessions?type=deferred_intent...&mobile_session_id=...` with the
    publishable key (session: with `customer_session_client_secret`, claiming the session)."""
    state = load(sheet)
    session = state.session
    assert state.ids == []
    kinds = session["payment_method_preference"]["ordered_payment_method_types"]
    assert "us_bank_account" in kinds, "Purse offers us_bank_account through Financial Connections (issue 30)"
    assert "link" not in kinds, "Link is off in Purse"
    assert offered_types(session) == ["card", "us_bank_account", "sepa_debit"]
    link = session.get("link_settings")
    assert link is None or link.get("link_funding_sources") == [], "Link is off: no funding sources"
    assert isinstance((session.get("card_brand_choice") or {}).get("eligible"), bool)
    if sheet.integration == "session":
        customer_session = session.customer["customer_session"]
        assert customer_session["customer"] == customer
        assert customer_session["api_key"].startswith("ek_")
        assert stripe_ios.customer_sheet_features(customer_session) == {
            "enabled": True, "remove": True, "remove_last": True, "sync_default": True, "update": True,
        }
        assert session.customer.get("default_payment_method") is None


def test_reloading_the_sheet_claims_the_same_session_key(purse, account, client, customer):
    """`CustomerSessionAdapter` keeps the claimed session for 30 minutes and asks the elements
    session again with the same client secret on every refresh."""
    sheet = make_sheet("session", purse, account, client, customer)
    first = load(sheet).session.customer["customer_session"]["api_key"]
    assert load(sheet).session.customer["customer_session"]["api_key"] == first


# Add a card, a 3D Secure card, a declined card, SEPA


def test_add_a_card(sheet, client, customer):
    load(sheet)
    session_body, _ = add(sheet, card(sheet))
    session = decode_elements_session(session_body, customer_session_client_secret=sheet.claimed[1]
                                      if sheet.integration == "session" else None)
    assert "us_bank_account" in offered_types(session)
    intent = decode_setup_intent(expect_ok(sheet.sdk.log[-1], "POST /v1/setup_intents/{id}/confirm"))
    assert intent["status"] == "succeeded" and intent["next_action"] is None
    method = decode_payment_method(intent["payment_method"])
    assert method["type"] == "card" and method["card"]["last4"] == "4242"
    assert (method["card"]["exp_month"], method["card"]["exp_year"]) == EXPIRY
    saved = client.v1.payment_methods.retrieve(method["id"])
    assert saved.customer == customer
    assert saved.allow_redisplay == ("always" if sheet.integration == "session" else "unspecified")
    assert refreshed_ids(sheet) == [method["id"]]


def test_add_a_3d_secure_card(sheet, client, customer):
    """4000002500003155: the confirm answers `requires_action` with `next_action.redirect_to_url`;
    the browser completes Purse's page and is sent to the return URL; the SDK then retrieves the
    setup intent (`GET /v1/setup_intents/{id}?client_secret=...&expand[0]=payment_method`)."""
    load(sheet)
    intent = confirmed(sheet, card(sheet, THREE_D_SECURE), status="requires_action")
    action = intent["next_action"]
    assert action["type"] == "redirect_to_url"
    assert action["redirect_to_url"]["return_url"] == RETURN_URL
    answer = browser_completes(action["redirect_to_url"]["url"])
    assert answer.status_code in (302, 303) and answer.headers["Location"] == RETURN_URL
    retrieved = sheet.sdk.retrieve_setup_intent(intent["client_secret"])
    done = decode_setup_intent(expect_ok(retrieved, "GET /v1/setup_intents/{id} after authentication"))
    no_drops(done, "the retrieved setup intent")
    assert done["status"] == "succeeded" and done["next_action"] is None
    assert isinstance(done["payment_method"], dict) and done["payment_method"]["card"]["last4"] == "3155"
    assert client.v1.payment_methods.retrieve(done["payment_method"]["id"]).customer == customer
    assert refreshed_ids(sheet) == [done["payment_method"]["id"]]


def test_a_declined_card_then_a_good_one_on_the_same_setup_intent(sheet, client, customer):
    """4000000000000002: 402 `card_error` the SDK shows; nothing is saved. The sheet keeps the
    setup intent's client secret (`cachedClientSecret`) and the retry confirms it again."""
    load(sheet)
    _, reply = add(sheet, card(sheet, DECLINED))
    assert reply.status == 402, f"{reply.status} {reply.text[:300]}"
    error = decode_error(reply.json())
    assert (error["type"], error["code"], error.get("decline_code")) == ("card_error", "card_declined", "generic_decline")
    assert error.get("message")
    assert client.v1.customers.payment_methods.list(customer).data == []
    intent = confirmed(sheet, card(sheet, VISA, cvc="043"))
    assert stripe_ios.setup_intent_id(intent["client_secret"]) == stripe_ios.setup_intent_id(sheet.cached_client_secret)
    assert refreshed_ids(sheet) == [intent["payment_method"]["id"]]


def test_add_a_sepa_debit_account(sheet, client, customer):
    """`sepa_debit[iban]`, name, email, address and the inferred online mandate
    (`mandate_data[customer_acceptance][online][infer_from_client]=true`)."""
    load(sheet)
    intent = confirmed(sheet, sepa_debit_payment_method_data(sheet, IBAN))
    confirm = sheet.sdk.log[-1]
    assert "mandate_data[customer_acceptance][online][infer_from_client]=true" in confirm.body
    assert "mandate_data[customer_acceptance][type]=online" in confirm.body
    method = decode_payment_method(intent["payment_method"])
    assert method["type"] == "sepa_debit" and method["sepa_debit"]["last4"] == "3000"
    assert client.v1.payment_methods.retrieve(method["id"]).customer == customer
    assert refreshed_ids(sheet) == [method["id"]]


def test_an_adapter_without_setup_intents_adds_a_card_by_create_and_attach(purse, account, client, customer):
    """`CustomerAdapter.canCreateSetupIntents == false`: the sheet offers only cards and adds one
    with `POST /v1/payment_methods` (publishable key, `payment_user_agent`, muid/guid/sid at the
    top level) then `POST /v1/payment_methods/{id}/attach` with the ephemeral key
    (`addPaymentOptionToCustomer`)."""
    sheet = make_sheet("adapter", purse, account, client, customer, setup_intents=False)
    state = load(sheet)
    assert offered_types(state.session, can_create_setup_intents=False) == ["card"]
    data = card(sheet, MASTERCARD, cvc="044")
    created = decode_payment_method(expect_ok(sheet.sdk.create_payment_method(data), "POST /v1/payment_methods"))
    no_drops(created, "the created payment method")
    attached = sheet.sdk.attach_payment_method(created["id"], customer, sheet.key[1])
    decode_payment_method(expect_ok(attached, "POST /v1/payment_methods/{id}/attach"))
    assert refreshed_ids(sheet) == [created["id"]]


# Remove


def test_remove_a_card(sheet, client, customer):
    load(sheet)
    keep = confirmed(sheet, card(sheet, MASTERCARD, cvc="045"))["payment_method"]
    sheet.cached_client_secret = None  # reinitAddPaymentMethodViewController after a success
    gone = confirmed(sheet, card(sheet, VISA))["payment_method"]
    state = load(sheet)
    assert_shown(sheet, state, [gone["id"], keep["id"]])
    for reply in sheet.detach(next(m for m in state.methods if m["id"] == gone["id"])):
        body = expect_ok(reply, "remove")
        if reply.path.endswith("/detach"):
            decode_payment_method(body)  # APIRequest<STPPaymentMethod>
    assert refreshed_ids(sheet) == [keep["id"]]
    assert [m.id for m in client.v1.customers.payment_methods.list(customer).data] == [keep["id"]]


def test_remove_a_card_saved_twice(sheet, client, customer):
    """The same card saved twice: with a customer session the SDK lists the cards and removes
    every card with the chosen one's fingerprint (`detachPaymentMethodRemoveDuplicates`); the
    StripeCustomerAdapter removes only the chosen one."""
    load(sheet)
    ids = []
    for number, cvc in ((MASTERCARD, "046"), (VISA, "047"), (VISA, "048")):
        ids.append(confirmed(sheet, card(sheet, number, cvc=cvc))["payment_method"]["id"])
        sheet.cached_client_secret = None
    other, first, second = ids
    state = load(sheet)
    assert_shown(sheet, state, [second, first, other])
    replies = sheet.detach(next(m for m in state.methods if m["id"] == second))
    for reply in replies:
        expect_ok(reply, "remove")
    if sheet.integration == "session":
        listing = decode_payment_method_list(replies[0].json())
        assert {m["id"] for m in listing.methods} == set(ids)
        fingerprints = {m["id"]: m["card"]["fingerprint"] for m in listing.methods}
        assert fingerprints[first] == fingerprints[second] != fingerprints[other]
        assert sorted(r.path for r in replies[1:]) == sorted(f"/v1/elements/payment_methods/{i}/detach" for i in (first, second))
        assert refreshed_ids(sheet) == [other]
    else:
        assert [r.path for r in replies] == [f"/v1/payment_methods/{second}/detach"]
        assert_shown(sheet, load(sheet), [first, other])


# Update


def test_update_the_expiry(purse, account, client, customer):
    """Editing a card's expiry is offered with a customer session (`paymentMethodUpdate` is the
    customer_sheet component; an adapter's sheet cannot edit card details):
    `POST /v1/payment_methods/{id}` with `card[exp_month]`, `card[exp_year]` and the session's key."""
    sheet = make_sheet("session", purse, account, client, customer)
    load(sheet)
    method = confirmed(sheet, card(sheet))["payment_method"]
    reply = sheet.update(method["id"], card={"exp_month": NEW_EXPIRY[0], "exp_year": NEW_EXPIRY[1]})
    assert reply.body == f"card[exp_month]={NEW_EXPIRY[0]}&card[exp_year]={NEW_EXPIRY[1]}"
    updated = decode_payment_method(expect_ok(reply, "POST /v1/payment_methods/{id}"))
    assert (updated["card"]["exp_month"], updated["card"]["exp_year"]) == NEW_EXPIRY
    shown = load(sheet).methods[0]
    assert (shown["card"]["exp_month"], shown["card"]["exp_year"]) == NEW_EXPIRY


def test_a_cobadged_card_with_card_brand_choice(sheet, client, customer):
    """Card brand choice: the sheet offers the network picker only when the elements session says
    `card_brand_choice.eligible: true`; the card is saved with `card[networks][preferred]`, shown
    from `card.networks.available/preferred`, and its brand changed later with
    `POST /v1/payment_methods/{id}` `card[networks][preferred]` (both integrations)."""
    state = load(sheet)
    assert state.session["card_brand_choice"]["eligible"] is True, "Purse offers card brand choice"
    intent = confirmed(sheet, card(sheet, COBADGED, cvc="049", preferred_network="cartes_bancaires"))
    method = decode_payment_method(intent["payment_method"])
    no_drops(method, "the co-badged card")
    networks = method["card"]["networks"]
    assert set(networks["available"]) == {"cartes_bancaires", "visa"}
    assert networks["preferred"] == "cartes_bancaires"
    shown = load(sheet).methods[0]
    key = sheet.key[1] if sheet.integration == "adapter" else sheet.claimed[2]
    reply = sheet.sdk.update_payment_method(shown["id"], key, card={"networks": {"preferred": "visa"}})
    assert reply.body == "card[networks][preferred]=visa"
    updated = decode_payment_method(expect_ok(reply, "POST /v1/payment_methods/{id} card[networks][preferred]"))
    assert updated["card"]["networks"]["preferred"] == "visa"
    assert load(sheet).methods[0]["card"]["networks"]["preferred"] == "visa"


# Set the default, reload


def test_set_the_default(sheet, client, customer):
    """With a customer session and `payment_method_sync_default` the selection goes to the server
    (`POST /v1/elements/customers/{cus}/set_default_payment_method`) and comes back as
    `customer.default_payment_method`; the reload also sends the device's selection as
    `client_default_payment_method`. A StripeCustomerAdapter keeps it on the device only."""
    load(sheet)
    first = confirmed(sheet, card(sheet, MASTERCARD, cvc="051"))["payment_method"]["id"]
    sheet.cached_client_secret = None
    second = confirmed(sheet, card(sheet, VISA, cvc="053"))["payment_method"]["id"]
    replies = sheet.select(first)
    if sheet.integration == "session":
        (reply,) = replies
        assert reply.body == f"payment_method={first}"
        decode_customer(expect_ok(reply, "POST /v1/elements/customers/{cus}/set_default_payment_method"))
        assert client.v1.customers.retrieve(customer).invoice_settings.default_payment_method == first
    else:
        assert replies == []
    state = load(sheet)
    assert_shown(sheet, state, [second, first])
    assert state.selected == first
    if sheet.integration == "session":
        assert f"client_default_payment_method={first}" in state.elements_reply.url
        assert state.session.customer["default_payment_method"] == first


def test_reload_shows_what_the_customer_saved_and_chose(sheet, purse, account, client, customer):
    """A whole visit, then a new visit of the sheet (a new device session) shows the saved
    methods newest first and the default."""
    load(sheet)
    ids = []
    for data in (card(sheet, MASTERCARD, cvc="054"), sepa_debit_payment_method_data(sheet, IBAN),
                 card(sheet, VISA, cvc="055")):
        ids.append(confirmed(sheet, data)["payment_method"]["id"])
        sheet.cached_client_secret = None
    state = load(sheet)
    assert_shown(sheet, state, list(reversed(ids)))
    for reply in sheet.detach(next(m for m in state.methods if m["id"] == ids[0])):
        expect_ok(reply, "remove")
    sheet.select(ids[1])
    again = make_sheet(sheet.integration, purse, account, client, customer)
    again.device.local_default = sheet.device.local_default  # the same phone, a new CustomerSheet
    later = load(again)
    assert_shown(again, later, [ids[2], ids[1]])
    assert later.selected == ids[1]
    kinds = {m["id"]: m["type"] for m in later.methods}
    assert kinds == {ids[2]: "card", ids[1]: "sepa_debit"}


# Focused checks of single answers


def test_the_add_flow_elements_session_of_an_adapter_carries_the_mobile_session_contract(purse, account, client,
                                                                                       customer):
    """`retrieveElementsSession(setupIntentClientSecret:...)` (STPAPIClient+PaymentSheet.swift @
    cf3a5e42), which CustomerSheetDataSource uses for a StripeCustomerAdapter, sends
    `Stripe-Mobile-Session-Contract` and rejects an answer without the contract header and the
    `mobile_payment_element` object (`validateMobileSessionContractResponse`)."""
    sheet = make_sheet("adapter", purse, account, client, customer)
    reply = sheet.elements_session_for_setup_intent(sheet.fetch_client_secret())
    body = expect_ok(reply, "GET /v1/elements/sessions type=setup_intent (PaymentSheet parameters)")
    check_mobile_session_contract(reply)
    intent = setup_intent_of_elements_session(decode_elements_session(body))
    assert intent["status"] == "requires_payment_method"
    assert "us_bank_account" in offered_types(decode_elements_session(body))


def test_the_confirm_accepts_every_field_the_sdk_sends(purse, account, client, customer):
    """The confirm on its own (no load first), so its refusals show even while the elements
    session is refused: fraud fields and `payment_user_agent` inside `payment_method_data`,
    `client_attribution_metadata[...]` at both levels, `use_stripe_sdk`, `return_url`, `expand`."""
    sheet = make_sheet("session", purse, account, client, customer)
    secret = setup_intent_provider(client, customer)()
    reply = sheet.sdk.confirm_setup_intent(secret, card(sheet, VISA, cvc="056"))
    for field in ("payment_method_data[muid]=", "payment_method_data[guid]=", "payment_method_data[sid]=",
                  "payment_method_data[payment_user_agent]=stripe-ios/",
                  "payment_method_data[client_attribution_metadata][merchant_integration_source]=elements",
                  "client_attribution_metadata[client_session_id]=", "use_stripe_sdk=true", "expand[0]=payment_method"):
        assert field in reply.body
    intent = decode_setup_intent(expect_ok(reply, "POST /v1/setup_intents/{id}/confirm"))
    assert intent["status"] == "succeeded"


def test_the_create_accepts_every_field_the_sdk_sends(purse, account):
    """`POST /v1/payment_methods` with the publishable key as stripe-ios sends it."""
    sheet = AdapterSheet(purse.base, account["publishable_key"], lambda: None)
    reply = sheet.sdk.create_payment_method(card(sheet, MASTERCARD, cvc="057"))
    assert re.search(r"(^|&)muid=[0-9a-f-]+&", reply.body) and "payment_user_agent=stripe-ios/" in reply.body
    decode_payment_method(expect_ok(reply, "POST /v1/payment_methods"))
