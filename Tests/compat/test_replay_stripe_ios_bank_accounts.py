"""Replays of stripe-ios CustomerSheet adding a US bank account through Financial Connections
(issue 30), against Purse: the requests `STPBankAccountCollector`, the full Financial Connections
SDK (`FinancialConnectionsSDKImplementation`, web flow) and FC Lite (`FCLiteImplementation`) send,
built by stripe_ios.py exactly as their clients build them, the browser on Purse's test-bank page,
and the sheet's confirm; every answer held to what the SDK's decoders require (stripe_ios.py's
`decode_*`, each naming the Swift symbol and the commit or index id it mirrors) and to what
docs/api.md ("Financial Connections") says Purse answers.

The flow per add (docs/replays/stripe-ios.md, "Financial Connections"):
elements session -> `POST /v1/setup_intents/{id}/link_account_sessions` -> `synchronize` -> the
hosted page (GET, then the form's POST, answered `200` with a result page whose one way back is a
link the customer taps, to `success_url` / `cancel_url`) ->
`session_receipt` (FC Lite: or `complete`) -> elements session for the setup intent ->
`POST /v1/setup_intents/{id}/confirm` with `payment_method_data[us_bank_account][link_account_session]`
-> the refreshed list.

The merchant's backend is stripe-python on the secret key, with the fixtures of
test_replay_stripe_ios.py."""
import urllib.parse

import pytest

import stripe_ios
from html_forms import BankPage
from stripe_ios import (
    APP_BUNDLE_ID, FC_BETA, SAFARI, Device, SDKClient, add_payment_method, cancel_on_page,
    close_browser, collect_bank_account, decode_error, decode_fc_account_list, decode_fc_session,
    decode_fc_session_lite, decode_link_account_session, decode_payment_method, decode_setup_intent,
    decode_synchronize, decode_synchronize_lite, decode_us_bank_account, flow_of, link_account, offered_types,
    setup_intent_id, setup_intent_of_elements_session, us_bank_account_payment_method_data,
)
from test_replay_stripe_ios import (  # noqa: F401  (fixtures: pytest finds them in this module's namespace)
    INTEGRATIONS, customer, expect_ok, load, make_sheet, no_drops, refreshed_ids, setup_intent_provider,
    sheet,
)

NAME, EMAIL = "Jenny Rosen", "jenny@example.com"
BANK_NAME = "STRIPE TEST BANK"  # the test processor's name for routing 110000000, as on the payment method
ROUTING_NUMBER = "110000000"
# The test-bank page's accounts (contract §4): value -> (last4, subcategory).
TEST_ACCOUNTS = {"checking": ("6789", "checking"), "savings": ("2227", "savings"), "closed": ("1113", "checking"),
                 "no_account": ("1116", "checking")}
PAGE_ACCOUNTS = {"checking", "savings", "closed", "no_account", "manual"}
PAGE_IDS = {"account-checking", "account-savings", "account-closed", "account-no_account", "account-manual",
            "routing_number", "account_number", "account_type", "link", "cancel"}
PLAIN_VERSION = stripe_ios.API_VERSION
BETA_VERSION = f"{stripe_ios.API_VERSION}; {FC_BETA}"
VISUAL = {"reduced_branding": False, "reduce_manual_entry_prominence_in_errors": False, "merchant_logo": []}
IMPLEMENTATIONS = ["full", "lite"]


def success_url(app_id):
    return f"stripe-auth://link-accounts/{app_id}/success"


def cancel_url(app_id):
    return f"stripe-auth://link-accounts/{app_id}/cancel"


# What the SDK asks for, step by step


def link(sheet, implementation="full", customer_action=None, taps_return=True):
    """The customer taps "Continue" on the US bank account form: the sheet's setup intent
    (`fetchClientSecret`, cached), then the whole Financial Connections exchange on the sheet's
    client (`STPAPIClient.shared`); on the page's result page the customer taps the link back to
    the app (`taps_return`), or closes the browser."""
    secret = sheet.fetch_client_secret()
    return collect_bank_account(sheet.sdk, secret, NAME, EMAIL, implementation,
                                customer_action or link_account("checking"), taps_return=taps_return)


def save(sheet, flow):
    """The customer taps "Save" (`addPaymentOption`): the elements session for the setup intent,
    then the confirm with the linked bank. Returns the decoded elements session and the confirm's
    reply."""
    data = us_bank_account_payment_method_data(sheet, flow.linked_bank, NAME, EMAIL)
    replies = add_payment_method(sheet, data)
    session_body = expect_ok(replies[0], "the add flow's elements session for the setup intent")
    assert len(replies) == 2, "the SDK stopped before confirming"
    session = stripe_ios.decode_elements_session(
        session_body, customer_session_client_secret=sheet.claimed[1] if sheet.integration == "session" else None)
    return session, replies[1]


def saved(sheet, flow):
    """`save`, which must succeed: the confirmed setup intent (decoded) with its expanded method."""
    session, reply = save(sheet, flow)
    intent = decode_setup_intent(expect_ok(reply, "POST /v1/setup_intents/{id}/confirm (us_bank_account)"))
    no_drops(intent, "the confirmed setup intent")
    assert intent["status"] == "succeeded", \
        f"STPPaymentHandler accepts only succeeded (or requires_action with microdeposits) for a setup intent: {intent}"
    assert intent.get("next_action") is None
    assert isinstance(intent["payment_method"], dict), "CustomerSheet needs the expanded payment_method"
    return session, intent


# Checks of the answers against the contract
#
# Two kinds of checks. What the SDK needs (a decoder, a result, a status the payment handler
# accepts) is asserted on the spot: the SDK would stop there. Values the contract fixes that the
# SDK does not read (names, exact URLs, the account holder, ...) are collected by `CONTRACT` so
# that one of them does not hide the rest of the flow; `CONTRACT.done()` at the end of the test
# fails it with all of them.


class Contract:
    def __init__(self):
        self.deviations = []
        self.reported = False

    def expect(self, actual, expected, what):
        if actual != expected:
            self.deviations.append(f"{what}: {actual!r}; docs/api.md: {expected!r}")

    def expect_true(self, condition, what):
        if not condition:
            self.deviations.append(what)

    def done(self):
        self.reported = True
        assert not self.deviations, "Purse deviates from docs/api.md (Financial Connections):\n  - " + "\n  - ".join(self.deviations)


CONTRACT = Contract()


@pytest.fixture(autouse=True)
def contract():
    """A fresh `CONTRACT` per test; deviations a test did not report (it failed earlier) are
    reported at teardown."""
    global CONTRACT
    CONTRACT = Contract()
    yield CONTRACT
    if CONTRACT.deviations and not CONTRACT.reported:
        pytest.fail("also, Purse deviates from docs/api.md (Financial Connections):\n  - " + "\n  - ".join(CONTRACT.deviations))


def check_link_account_session(flow, customer=None):
    session = flow.link_account_session
    CONTRACT.expect_true(session["id"].startswith("fcsess_"), f"link account session id {session['id']!r}: fcsess_...")
    CONTRACT.expect_true(session["client_secret"].startswith(session["id"] + "_secret_"),
                         f"client_secret {session['client_secret'][:30]!r}...: <id>_secret_<token>")
    CONTRACT.expect(session["livemode"], False, "link account session livemode")
    CONTRACT.expect(session.get("object"), "financial_connections.session", "link account session object")
    CONTRACT.expect(session.get("status"), "pending", "a new link account session's status")
    if customer is not None:
        CONTRACT.expect(session.get("account_holder"), {"type": "customer", "customer": customer},
                        "link account session account_holder")


def check_manifest(flow, app_id):
    """The SDK needs: a product other than instant_debits, a `hosted_auth_url` with its `?`
    (HostedAuthUrlBuilder appends `&...`), and for the full SDK the web flow and `success_url` /
    `cancel_url` of one custom scheme (ASWebAuthenticationSession calls back only for the scheme
    of `success_url`, never for http(s) navigations it could load)."""
    manifest = flow.manifest
    las = flow.link_account_session
    assert manifest["product"] != "instant_debits"
    assert "?" in manifest["hosted_auth_url"], manifest["hosted_auth_url"]
    success, cancel = (urllib.parse.urlsplit(manifest[key]) for key in ("success_url", "cancel_url"))
    if flow.implementation == "full":
        assert flow_of(manifest) == "web_financial_connections"
        assert success.scheme == cancel.scheme and success.scheme not in ("http", "https"), \
            (manifest["success_url"], manifest["cancel_url"])
        no_drops(flow.synchronize, "the synchronize answer")
    CONTRACT.expect(manifest["id"], las["id"], "manifest.id (the session's id)")
    CONTRACT.expect(manifest.get("product"), "payment_flows", "manifest.product")
    CONTRACT.expect(manifest.get("manual_entry_uses_microdeposits"), False, "manifest.manual_entry_uses_microdeposits")
    CONTRACT.expect((manifest.get("success_url"), manifest.get("cancel_url")), (success_url(app_id), cancel_url(app_id)),
                    "manifest.success_url, cancel_url")
    hosted = urllib.parse.urlsplit(manifest["hosted_auth_url"])
    CONTRACT.expect_true(hosted.scheme in ("http", "https"), f"hosted_auth_url {manifest['hosted_auth_url']!r}: http(s)")
    CONTRACT.expect_true(hosted.path.startswith("/v1/financial_connections/test_bank/"),
                         f"hosted_auth_url path {hosted.path!r}: /v1/financial_connections/test_bank/<token>")
    CONTRACT.expect(urllib.parse.parse_qs(hosted.query).get("session"), [las["id"]], "hosted_auth_url ?session=")
    if flow.implementation == "full":
        synchronize = flow.synchronize
        CONTRACT.expect_true("features" not in manifest and "experiment_assignments" not in manifest,
                             "manifest: no features, no experiment_assignments")
        CONTRACT.expect(manifest.get("payment_method_type"), "us_bank_account", "manifest.payment_method_type")
        CONTRACT.expect(manifest["manual_entry_mode"], "automatic", "manifest.manual_entry_mode")
        CONTRACT.expect(manifest["permissions"], ["payment_method"], "manifest.permissions")
        CONTRACT.expect(manifest["livemode"], False, "manifest.livemode")
        CONTRACT.expect(synchronize["visual"], VISUAL, "synchronize visual")
        CONTRACT.expect(synchronize.get("text"), None, "synchronize text")


def check_page(page):
    """The page must be HTML with a POST form offering the accounts and both buttons (what the
    replay presses); the element ids are the contract's."""
    assert page.status == 200 and page.content_type.startswith("text/html"), (page.status, page.text[:300])
    assert PAGE_ACCOUNTS <= set(page.radio_values()), page.radio_values()
    assert {"link", "cancel"} <= set(page.buttons()), page.buttons()
    CONTRACT.expect_true(PAGE_IDS <= page.ids, f"test-bank page: missing element ids {sorted(PAGE_IDS - page.ids)}")


def check_result_page(flow, key, heading, page=None):
    """What the page answers the form's POST (or shows again once the session is decided: `page`):
    200, an HTML result page saying `heading`, whose one way back is the link the customer taps,
    `<a id="return">Return to the app</a>` to the manifest's `key` URL exactly (the SDK matched it
    by scheme, host and path); no redirect (Android's Custom Tabs open an app's scheme only from a
    gesture), no form."""
    page = page or flow.answer
    assert page is not None, "the page gave no answer"
    what = f"the result page ({heading})"
    CONTRACT.expect(page.status, 200, f"{what}: status")
    CONTRACT.expect(page.location, None, f"{what}: Location (the page ends on a link)")
    CONTRACT.expect_true(page.content_type.startswith("text/html"), f"{what}: Content-Type {page.content_type!r}")
    CONTRACT.expect_true(heading in page.text, f"{what}: the text {page.text[:200]!r} does not say it")
    CONTRACT.expect([(link["id"], link["href"], link["text"].strip()) for link in page.links],
                    [("return", flow.manifest[key], "Return to the app")],
                    f"{what}: its links (exactly one: #return to {key})")
    CONTRACT.expect(page.forms, [], f"{what}: its forms")


def check_linked_account(account, customer, kind="checking", where="account"):
    last4, subcategory = TEST_ACCOUNTS[kind]
    CONTRACT.expect_true(account["id"].startswith("fca_"), f"{where}.id {account['id']!r}: fca_...")
    CONTRACT.expect(account["object"], "financial_connections.account", f"{where}.object")
    CONTRACT.expect((account["institution_name"], account.get("last4"), account["subcategory"]),
                    (BANK_NAME, last4, subcategory), f"{where} (institution_name, last4, subcategory)")
    CONTRACT.expect((account["category"], account["status"], account["livemode"]), ("cash", "active", False),
                    f"{where} (category, status, livemode)")
    CONTRACT.expect(account["supported_payment_method_types"], ["us_bank_account"],
                    f"{where}.supported_payment_method_types")
    CONTRACT.expect(account.get("permissions"), ["payment_method"], f"{where}.permissions")
    CONTRACT.expect(account.get("account_holder"), {"type": "customer", "customer": customer}, f"{where}.account_holder")


def check_linked(flow, customer, kind="checking"):
    """A completed link: the SDK's result (`completed` with a linked bank: for the full SDK a
    `payment_account` that decodes, for the sheet a session id, last4 and bank name), then the
    contract's values."""
    assert flow.result == "completed", f"the SDK's result: {flow.result} ({flow.error})"
    assert flow.web_result == "success"
    session = flow.session
    las = flow.link_account_session
    bank = flow.linked_bank
    assert bank["session_id"] and bank["last4"] and bank["bank_name"], bank
    last4, _ = TEST_ACCOUNTS[kind]
    assert bank["last4"] == last4, f"the page's {kind} account is ••••{last4}; linked: {bank}"
    assert flow.return_url is not None, "the customer tapped no link back to the app"
    check_result_page(flow, "success_url", "Account linked")
    CONTRACT.expect(session["id"], las["id"], "receipt id")
    CONTRACT.expect(session.get("status"), "succeeded", "receipt status after linking")
    if flow.implementation == "full":
        no_drops(session, "the session receipt")
        CONTRACT.expect(session["client_secret"], las["client_secret"], "receipt client_secret")
        CONTRACT.expect(session.payment_account_kind, "linked_account", "receipt payment_account: a whole account")
        CONTRACT.expect(len(session.accounts.accounts), 1, "receipt accounts.data length")
        if session.accounts.accounts:
            account = session.accounts.accounts[0]
            check_linked_account(account, customer, kind, "accounts.data[0]")
            CONTRACT.expect(session["payment_account"].get("id"), account["id"], "payment_account.id (accounts.data[0].id)")
        CONTRACT.expect(session.get("status_details"), None, "receipt status_details after linking")
    if isinstance(session.get("payment_account"), dict):
        check_linked_account(session["payment_account"], customer, kind, "payment_account")
    CONTRACT.expect(bank, {
        "session_id": las["id"], "account_id": session["payment_account"]["id"],
        "display_name": session["payment_account"].get("display_name"), "bank_name": BANK_NAME, "last4": last4,
        "instantly_verified": True,
    }, "the linked bank handed to the sheet")


def check_saved_method(method, flow, customer, sheet, kind="checking"):
    """The SDK needs the method and its `us_bank_account` to decode (else no bank details are
    shown); the contract fixes the values."""
    decoded = decode_payment_method(method)
    no_drops(decoded, "the saved us_bank_account payment method")
    assert method["type"] == "us_bank_account"
    bank = decode_us_bank_account(method["us_bank_account"])
    no_drops(bank, "payment_method.us_bank_account")
    last4, account_type = TEST_ACCOUNTS[kind]
    assert (bank["last4"], bank["account_type"]) == (last4, account_type), bank
    CONTRACT.expect(method.get("customer"), customer, "payment_method.customer")
    CONTRACT.expect((bank["bank_name"], bank["routing_number"]), (flow.linked_bank["bank_name"], ROUTING_NUMBER),
                    "us_bank_account (bank_name = the account's institution_name, routing_number)")
    CONTRACT.expect(bank["account_holder_type"], "individual", "us_bank_account.account_holder_type")
    CONTRACT.expect_true(bool(bank["fingerprint"]), "us_bank_account.fingerprint: not empty")
    CONTRACT.expect(bank.get("financial_connections_account"), flow.linked_bank["account_id"],
                    "us_bank_account.financial_connections_account")
    CONTRACT.expect(bank.get("networks"), {"preferred": "ach", "supported": ["ach"]}, "us_bank_account.networks")
    billing = method.get("billing_details") or {}
    CONTRACT.expect((billing.get("name"), billing.get("email")), (NAME, EMAIL), "billing_details (name, email)")
    CONTRACT.expect(method.get("allow_redisplay"), "always" if sheet.integration == "session" else "unspecified",
                    "payment_method.allow_redisplay")


def session_receipt(sdk, flow):
    reply = sdk.session_receipt(flow.link_account_session["client_secret"])
    return expect_ok(reply, "GET /v1/link_account_sessions/session_receipt")


# CustomerSheet adds a US bank account (full Financial Connections SDK, web flow)


def test_customer_sheet_adds_a_us_bank_account(sheet, client, customer):
    """The whole add, as a current stripe-ios CustomerSheet with StripeFinancialConnections linked
    runs it: the sheet offers us_bank_account; `Continue` creates the link account session for
    the sheet's setup intent (`hosted_surface=customer_sheet`, `link_mode=LINK_DISABLED`, name and
    email); the FC sheet inserts its beta into `STPAPIClient.shared` and synchronizes
    (`expand[0]=manifest.active_auth_session`, `mobile[...]`); the web flow opens the test-bank
    page with `&email=...&launched_by=ios_sdk`; the customer links the checking account and taps
    the result page's link to `success_url`, which comes back to the app; `session_receipt` gives
    the linked account; `Save`
    confirms with `payment_method_data[us_bank_account][link_account_session]`, the inferred
    mandate, `use_stripe_sdk` and `expand[0]=payment_method`: succeeded, and the list shows it."""
    state = load(sheet)
    assert "us_bank_account" in offered_types(state.session), \
        "customerSheetSupportedPaymentMethodTypesForAdd: the elements session must offer us_bank_account"

    flow = link(sheet)
    create, synchronize, receipt = flow.replies
    assert create.path == f"/v1/setup_intents/{setup_intent_id(sheet.cached_client_secret)}/link_account_sessions"
    assert create.request_headers["Stripe-Version"] == PLAIN_VERSION, "the first FC sheet of the app: no beta yet"
    assert synchronize.request_headers["Stripe-Version"] == BETA_VERSION
    assert receipt.request_headers["Stripe-Version"] == BETA_VERSION
    assert flow.hosted_url.endswith("&email=jenny%40example.com&launched_by=ios_sdk")
    check_link_account_session(flow, customer)
    check_manifest(flow, APP_BUNDLE_ID)
    check_page(flow.page)
    check_linked(flow, customer)

    session, intent = saved(sheet, flow)
    assert "us_bank_account" in offered_types(session)
    offered_intent = setup_intent_of_elements_session(session)
    assert "us_bank_account" in offered_intent["payment_method_types"]
    # CustomerSheet does not read payment_method_options (PaymentSheet's gating does); the contract
    # shows it on the setup intent (the merchant's view).
    options = client.v1.setup_intents.retrieve(offered_intent["id"]).payment_method_options
    CONTRACT.expect(options.to_dict().get("us_bank_account") if options else None, {
        # return_url left out when unset: optional, not nullable, in linked_account_options_common.
        "financial_connections": {"permissions": ["payment_method"], "prefetch": []},
        "mandate_options": {}, "verification_method": "automatic",
    }, "secret key: the setup intent's payment_method_options.us_bank_account")
    confirm = sheet.sdk.log[-1]
    assert confirm.request_headers["Stripe-Version"] == BETA_VERSION, "the sheet's confirm runs on STPAPIClient.shared"
    assert f"payment_method_data[us_bank_account][link_account_session]={flow.linked_bank['session_id']}" in confirm.body
    method = intent["payment_method"]
    check_saved_method(method, flow, customer, sheet)

    merchant = client.v1.payment_methods.retrieve(method["id"])
    assert (merchant.customer, merchant.type, merchant.us_bank_account.last4) == (customer, "us_bank_account", "6789")
    CONTRACT.expect(merchant.us_bank_account.financial_connections_account, flow.linked_bank["account_id"],
                    "secret key: us_bank_account.financial_connections_account")
    fc_session = client.v1.financial_connections.sessions.retrieve(flow.link_account_session["id"])
    CONTRACT.expect((fc_session.status, fc_session.payment_account.id), ("succeeded", flow.linked_bank["account_id"]),
                    "secret key: GET /v1/financial_connections/sessions/{id} (status, payment_account.id)")
    account = client.v1.financial_connections.accounts.retrieve(flow.linked_bank["account_id"])
    CONTRACT.expect((account.last4, account.subcategory), ("6789", "checking"),
                    "secret key: GET /v1/financial_connections/accounts/{id} (last4, subcategory)")

    after = load(sheet)
    assert after.ids == [method["id"]]
    (shown,) = after.methods
    assert shown["type"] == "us_bank_account" and shown["us_bank_account"]["last4"] == "6789"
    for reply in after.list_replies + [after.elements_reply]:
        assert reply.request_headers["Stripe-Version"] == BETA_VERSION, "the beta stays on STPAPIClient.shared"
    CONTRACT.done()


@pytest.mark.parametrize("integration", INTEGRATIONS)
def test_customer_sheet_adds_a_us_bank_account_with_fc_lite(integration, purse, account, client, customer):
    """An app with StripeFinancialConnectionsLite instead: no beta (FC Lite inserts none), FC Lite's
    synchronize (`mobile[fullscreen]`, `mobile[mobile_sdk_type]=FC_LITE`, `mobile[app_return_url]`;
    no app id, so the return URLs name `purse`), the page in a WKWebView where the tap on the
    result page's link to `success_url` ends the flow, `session_receipt` (FC Lite's decoder), then
    the same save."""
    sheet = make_sheet(integration, purse, account, client, customer)
    load(sheet)
    flow = link(sheet, "lite")
    create, synchronize, receipt = flow.replies
    assert [r.request_headers["Stripe-Version"] for r in flow.replies] == [PLAIN_VERSION] * 3
    assert receipt.path == "/v1/link_account_sessions/session_receipt"
    check_link_account_session(flow, customer)
    check_manifest(flow, "purse")
    # One renderer for both SDKs: the answers FC Lite got satisfy the full SDK's decoders too.
    no_drops(decode_synchronize(synchronize.json()), "the synchronize answer, read by the full SDK")
    no_drops(decode_fc_session(receipt.json()), "the receipt, read by the full SDK")
    check_page(flow.page)
    check_linked(flow, customer)

    _, intent = saved(sheet, flow)
    assert sheet.sdk.log[-1].request_headers["Stripe-Version"] == PLAIN_VERSION
    check_saved_method(intent["payment_method"], flow, customer, sheet)
    assert refreshed_ids(sheet) == [intent["payment_method"]["id"]]
    CONTRACT.done()


def test_fc_lite_closed_outside_the_web_view_cancels_the_session(sheet, client, customer):
    """FC Lite, the customer opens the page and then closes the sheet (swipe or close button,
    `.cancelledOutsideWebView`): `POST /v1/link_account_sessions/complete` turns the pending
    session into a cancelled one with no payment account, the SDK reports a cancel, the sheet
    saves nothing. The page, opened again or submitted from the stale copy, links nothing: it
    shows the cancelled session's result page, its link to `cancel_url`."""
    load(sheet)
    flow = link(sheet, "lite", close_browser)
    check_page(flow.page)
    complete = flow.replies[-1]
    assert (complete.method, complete.path, complete.body) == (
        "POST", "/v1/link_account_sessions/complete", "client_secret=" + flow.link_account_session["client_secret"])
    assert flow.result == "cancelled", f"{flow.result} ({flow.error})"
    body = complete.json()
    CONTRACT.expect(body["id"], flow.link_account_session["id"], "complete: id")
    CONTRACT.expect(body.get("status"), "cancelled", "complete: a pending session's status")
    CONTRACT.expect(body.get("status_details"), {"cancelled": {"reason": "other"}}, "complete: status_details")
    CONTRACT.expect(body.get("accounts", {}).get("data"), [], "complete: accounts.data")
    decode_fc_session(body)  # the full SDK's decoder takes it too

    again = BankPage.open(flow.hosted_url, SAFARI)
    assert again.status == 200, (again.status, again.text[:300])
    CONTRACT.expect_true(again.form_with_button("link") is None,
                         "the page of a cancelled session still offers Link account")
    check_result_page(flow, "cancel_url", "Linking cancelled", page=again)
    stale = flow.page.submit("checking", "link")
    assert stale_page_result(stale, flow) != "success", "a cancelled session was linked"
    assert stale.location is None, stale.response.headers
    check_result_page(flow, "cancel_url", "Linking cancelled", page=stale)
    receipt = session_receipt(sheet.sdk, flow)
    assert receipt.get("payment_account") is None, receipt
    CONTRACT.expect(receipt.get("status"), "cancelled", "the receipt after the stale POST")

    assert refreshed_ids(sheet) == []
    assert client.v1.customers.payment_methods.list(customer).data == []
    CONTRACT.done()


def stale_page_result(page, flow):
    """What the SDK would make of the customer tapping `page`'s link back (FC Lite's reading; the
    full SDK's is the same for these URLs)."""
    return stripe_ios.web_result_lite(page.tap_return(), flow.manifest)


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_the_customer_cancels_on_the_bank_page(implementation, sheet, client, customer):
    """The customer presses Cancel on the page: the result page, whose link to `cancel_url` the
    customer taps, which both SDKs classify as a cancel in the web page
    (`AuthenticationSessionManager`: `.webCancelled`; FC Lite: `.cancelledWithinWebview`); the
    receipt says cancelled (reason `other`, not `custom_manual_entry`) with no payment account, so
    the SDK reports a cancel and the sheet saves nothing."""
    load(sheet)
    flow = link(sheet, implementation, cancel_on_page)
    check_page(flow.page)
    assert dict(flow.answer.submitted).get("action") == "cancel"
    assert flow.web_result == ("web_cancelled" if implementation == "full" else "cancelled_within_webview"), \
        (flow.web_result, flow.answer.status, flow.answer.location, flow.return_url)
    assert flow.result == "cancelled", f"{flow.result} ({flow.error})"
    check_result_page(flow, "cancel_url", "Linking cancelled")
    receipt = flow.replies[-1].json()
    assert receipt.get("payment_account") is None, receipt
    CONTRACT.expect(receipt.get("status"), "cancelled", "receipt status after Cancel")
    CONTRACT.expect(receipt.get("status_details"), {"cancelled": {"reason": "other"}}, "receipt status_details")
    CONTRACT.expect(receipt["accounts"]["data"], [], "receipt accounts.data after Cancel")
    assert refreshed_ids(sheet) == []
    assert client.v1.customers.payment_methods.list(customer).data == []
    CONTRACT.done()


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS)
def test_closing_the_browser_on_the_result_page_still_links(implementation, sheet, client, customer):
    """The page ends on a link the customer taps; one who closes the browser on the result page
    instead has linked all the same, since the POST decided the session: the full SDK
    (`canceledLogin` -> `.nativeCancelled`) reads the receipt, finds the payment account and
    reports success (`FinancialConnectionsWebFlowViewController.fetchSession`); FC Lite (closed
    outside the web view) sends `complete`, which answers the succeeded session as it is. The
    sheet saves the account. The page opened again shows the same result page, and a Cancel
    posted from the stale form changes nothing."""
    load(sheet)
    flow = link(sheet, implementation, link_account("checking"), taps_return=False)
    check_page(flow.page)
    assert flow.return_url is None
    assert flow.web_result == ("native_cancelled" if implementation == "full" else "cancelled_outside_webview")
    if implementation == "lite":
        complete = flow.replies[-1]
        assert complete.path == "/v1/link_account_sessions/complete"
        CONTRACT.expect(complete.json().get("status"), "succeeded", "complete: a succeeded session's status")
    assert flow.result == "completed", f"the SDK's result: {flow.result} ({flow.error})"
    assert flow.linked_bank["last4"] == "6789", flow.linked_bank
    check_result_page(flow, "success_url", "Account linked")

    again = BankPage.open(flow.hosted_url, SAFARI)
    assert again.status == 200, (again.status, again.text[:300])
    check_result_page(flow, "success_url", "Account linked", page=again)
    stale = flow.page.submit(None, "cancel")
    assert stale_page_result(stale, flow) == "success", "a Cancel after linking changed the result page"
    check_result_page(flow, "success_url", "Account linked", page=stale)
    receipt = session_receipt(sheet.sdk, flow)
    assert receipt.get("status") == "succeeded" and receipt["payment_account"]["id"] == flow.linked_bank["account_id"], \
        receipt

    _, intent = saved(sheet, flow)
    check_saved_method(intent["payment_method"], flow, customer, sheet)
    assert refreshed_ids(sheet) == [intent["payment_method"]["id"]]
    CONTRACT.done()


def test_closing_the_browser_without_linking_is_a_cancel(purse, account, client, customer):
    """Full SDK, the customer closes the browser sheet on the page
    (`ASWebAuthenticationSessionError.canceledLogin` -> `.nativeCancelled`): the web flow reads the
    receipt and reports success if it holds accounts, a `payment_account` or a
    `bank_account_token`, else a cancel (`FinancialConnectionsWebFlowViewController.fetchSession`).
    Nothing was linked, so it must be a cancel — which needs a receipt without `payment_account`
    (StripeJSONDecoder turns a null `payment_account` into `.unparsable`, which is not nil: the
    SDK would then take it for a link and fail with "Unknown PaymentAccount is set on
    FinancialConnectionsSession")."""
    sheet = make_sheet("session", purse, account, client, customer)
    load(sheet)
    flow = link(sheet, "full", close_browser)
    receipt = flow.replies[-1]
    assert receipt.path == "/v1/link_account_sessions/session_receipt"
    assert flow.session.accounts.accounts == []
    CONTRACT.expect(receipt.json().get("status"), "pending", "receipt status while the session is open")
    assert flow.result == "cancelled", \
        f"stripe-ios reports {flow.result} ({flow.error}); payment_account in the receipt: " \
        f"{receipt.json().get('payment_account', '<absent>')!r} -> {flow.session.payment_account_kind}"
    assert refreshed_ids(sheet) == []
    CONTRACT.done()


def test_a_closed_account_is_declined_then_the_checking_account_saves(sheet, client, customer):
    """The test bank's closed account (••••1113) links, but saving it fails as a typed closed
    account does: the confirm is refused with the bank's error (the sheet shows its message), the
    setup intent goes back to `requires_payment_method` with `last_setup_error`, nothing is
    attached. The sheet keeps the setup intent: the customer removes the linked bank, links the
    checking account (a second link account session for the same setup intent — now with the beta
    the first FC sheet left on STPAPIClient.shared) and the same setup intent succeeds."""
    load(sheet)
    closed = link(sheet, "full", link_account("closed"))
    check_linked(closed, customer, "closed")
    _, reply = save(sheet, closed)
    # STPPaymentHandler fails the add on an error answer, or on a setup intent back at
    # requires_payment_method (its last_setup_error's message is shown); the contract: the error.
    if 200 <= reply.status < 300:
        declined = decode_setup_intent(reply.json())
        assert declined["status"] == "requires_payment_method" and declined.get("last_setup_error"), \
            f"the confirm of a closed account must fail: {declined['status']}"
        CONTRACT.expect(reply.status, 400, "the closed account's confirm (as a typed closed account: an error)")
    else:
        assert 400 <= reply.status < 500, f"{reply.status} {reply.text[:400]}"
        error = decode_error(reply.json())
        assert error.get("message"), "the sheet shows the error's message"
        CONTRACT.expect((reply.status, error["type"], error.get("code")),
                        (400, "invalid_request_error", "bank_account_unusable"),
                        "the closed account's confirm (as a typed closed account)")
        CONTRACT.expect((error.get("setup_intent") or {}).get("status"), "requires_payment_method",
                        "error.setup_intent.status")
    merchant = client.v1.setup_intents.retrieve(setup_intent_id(sheet.cached_client_secret))
    assert merchant.status == "requires_payment_method"
    assert merchant.last_setup_error, "the setup intent records the decline"
    CONTRACT.expect(merchant.last_setup_error.code, "bank_account_unusable", "last_setup_error.code")
    assert client.v1.customers.payment_methods.list(customer).data == []

    checking = link(sheet, "full", link_account("checking"))
    again = checking.replies[0]
    assert again.path == closed.replies[0].path, "the same setup intent (cachedClientSecret)"
    assert again.request_headers["Stripe-Version"] == BETA_VERSION
    assert checking.link_account_session["id"] != closed.link_account_session["id"]
    check_linked(checking, customer, "checking")
    _, intent = saved(sheet, checking)
    assert intent["id"] == setup_intent_id(sheet.cached_client_secret)
    check_saved_method(intent["payment_method"], checking, customer, sheet)
    assert refreshed_ids(sheet) == [intent["payment_method"]["id"]]
    CONTRACT.done()


# Focused checks


def test_the_beta_suffix_is_accepted_on_every_request(sheet, client, customer):
    """An app that already showed a Financial Connections sheet: `STPAPIClient.shared` carries
    `Stripe-Version: 2020-08-27; financial_connections_client_api_beta=v1` on everything — the
    loads, the link account session, synchronize, the receipt, the accounts list, the elements
    sessions, the confirm, the remove. Purse must answer all of them as without it."""
    sheet.sdk.configure_financial_connections_api_version()
    load(sheet)
    flow = link(sheet)
    check_linked(flow, customer)
    listing = sheet.sdk.list_accounts(flow.link_account_session["client_secret"])
    decode_fc_account_list(expect_ok(listing, "GET /v1/link_account_sessions/list_accounts"))
    _, intent = saved(sheet, flow)
    state = load(sheet)
    assert state.ids == [intent["payment_method"]["id"]]
    for reply in sheet.detach(state.methods[0]):
        expect_ok(reply, "remove the bank account")
    assert refreshed_ids(sheet) == []
    assert sheet.sdk.log, "nothing was sent"
    for reply in sheet.sdk.log:
        assert reply.request_headers["Stripe-Version"] == BETA_VERSION, reply.path
        expect_ok(reply, f"{reply.method} {reply.path} with the FC beta")
    CONTRACT.done()


def test_fc_endpoints_accept_unknown_parameters(purse, account, client, customer):
    """Parameters a newer or differently configured SDK adds are ignored, not refused: the newest
    link-account-session body's billing address and instant-debits fields, FC Lite's
    `mobile[use_secure_webview_if_necessary]` and `pre_collected_consent[...]`, and names no SDK
    sends yet."""
    sdk = SDKClient(purse.base, account["publishable_key"], Device(), ["CustomerSheet"])
    sdk.configure_financial_connections_api_version()
    secret = setup_intent_provider(client, customer)()
    created = sdk.create_link_account_session(secret, NAME, EMAIL, extra={
        "payment_method_data[billing_details][address][country]": "US",
        "payment_method_data[billing_details][address][postal_code]": "94107",
        "attach_required": True, "future_parameter": "yes",
    })
    las = decode_link_account_session(expect_ok(created, "link_account_sessions with extra parameters"))
    fc_secret = las["client_secret"]
    extra = {"future_parameter": "yes", "mobile": {"future_flag": True, "use_secure_webview_if_necessary": True},
             "pre_collected_consent": {"consent": "accepted", "collected_at": 1700000000}}
    no_drops(decode_synchronize(expect_ok(sdk.synchronize(fc_secret, extra=extra), "synchronize with extras")),
             "synchronize")
    decode_synchronize_lite(expect_ok(sdk.synchronize_lite(fc_secret, extra=extra), "FC Lite synchronize with extras"))
    decode_fc_session(expect_ok(sdk.session_receipt(fc_secret, extra={"future_parameter": "yes"}),
                                "session_receipt with extras"))
    decode_fc_account_list(expect_ok(sdk.list_accounts(fc_secret, extra={"future_parameter": "yes", "limit": 10}),
                                     "list_accounts with extras"))
    completed = decode_fc_session_lite(expect_ok(sdk.complete_session(fc_secret, extra={"future_parameter": "yes"}),
                                                 "complete with extras"))
    CONTRACT.expect(completed.get("status"), "cancelled", "complete: a pending session's status")
    CONTRACT.done()


def test_a_wrong_client_secret_is_refused(purse, account, client, customer):
    """`synchronize`, `session_receipt`, `list_accounts` and `complete` with a client secret that is
    not the session's (a forged token for the real session id, an unknown session, the setup
    intent's secret): a 4xx Stripe error envelope that `StripeAPIError` decodes and that does not
    decode as the success type (modern STPAPIClient tries that first); the real session is
    untouched."""
    sdk = SDKClient(purse.base, account["publishable_key"], Device(), ["CustomerSheet"])
    sdk.configure_financial_connections_api_version()
    secret = setup_intent_provider(client, customer)()
    las = decode_link_account_session(expect_ok(sdk.create_link_account_session(secret, NAME, EMAIL),
                                                "link_account_sessions"))
    wrong_secrets = [las["id"] + "_secret_" + "x" * 24, "fcsess_" + "0" * 24 + "_secret_" + "y" * 24, secret]
    calls = {
        "synchronize": (lambda s: sdk.synchronize(s), decode_synchronize),
        "session_receipt": (lambda s: sdk.session_receipt(s), decode_fc_session),
        "list_accounts": (lambda s: sdk.list_accounts(s), decode_fc_account_list),
        "complete": (lambda s: sdk.complete_session(s), decode_fc_session_lite),
    }
    for name, (call, decoder) in calls.items():
        for wrong in wrong_secrets:
            reply = call(wrong)
            assert 400 <= reply.status < 500, f"{name} with {wrong[:20]}...: {reply.status} {reply.text[:300]}"
            error = decode_error(reply.json())
            assert error["type"] == "invalid_request_error", (name, error)
            with pytest.raises(AssertionError):
                decoder(reply.json())
    receipt = expect_ok(sdk.session_receipt(las["client_secret"]), "the real session's receipt")
    assert receipt.get("status") == "pending" and receipt["accounts"]["data"] == [], "a wrong secret changed the session"
    CONTRACT.done()


def test_list_accounts_pages_as_the_sdk_does(purse, account, client, customer):
    """`FinancialConnectionsAccountAPIFetcher`: `list_accounts` with the session's client secret
    answers the linked accounts (`AccountList`: `data`, `has_more`); `starting_after` the last one
    answers the (empty) rest."""
    sheet = make_sheet("session", purse, account, client, customer)
    flow = link(sheet)
    check_linked(flow, customer)
    fc_secret = flow.link_account_session["client_secret"]
    first = decode_fc_account_list(expect_ok(sheet.sdk.list_accounts(fc_secret), "list_accounts"))
    no_drops(first, "list_accounts")
    assert [a["id"] for a in first.accounts] == [flow.linked_bank["account_id"]]
    assert first["has_more"] is False
    CONTRACT.expect((first.get("object"), first.get("url")), ("list", "/v1/link_account_sessions/list_accounts"),
                    "list_accounts (object, url)")
    rest = decode_fc_account_list(expect_ok(sheet.sdk.list_accounts(fc_secret, starting_after=first.accounts[-1]["id"]),
                                            "list_accounts starting_after"))
    assert rest.accounts == [] and rest["has_more"] is False
    CONTRACT.done()


def test_a_session_linked_for_another_setup_intent_is_refused(purse, account, client, customer):
    """A link account session belongs to the setup intent it was created for: confirming another
    setup intent with it is refused (400) and that intent stays as it was."""
    sheet = make_sheet("adapter", purse, account, client, customer)
    flow = link(sheet)
    check_linked(flow, customer)
    other = setup_intent_provider(client, customer)()
    reply = sheet.sdk.confirm_setup_intent(other, us_bank_account_payment_method_data(sheet, flow.linked_bank,
                                                                                       NAME, EMAIL))
    assert reply.status == 400, f"{reply.status} {reply.text[:300]}"
    assert decode_error(reply.json())["type"] == "invalid_request_error"
    assert client.v1.setup_intents.retrieve(setup_intent_id(other)).status == "requires_payment_method"
    assert client.v1.customers.payment_methods.list(customer).data == []
    CONTRACT.done()
