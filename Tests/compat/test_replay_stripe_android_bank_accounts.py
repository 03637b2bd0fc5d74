"""Replays of a current stripe-android `CustomerSheet` adding a US bank account through Financial
Connections (the web / hosted-auth flow, Full SDK and FC Lite), for both integrations of the sheet,
against a live Purse and its test-bank page (issue 30).

The sequence is the SDK's (docs/replays/stripe-android.md, "Financial Connections"; sources in
`stripe_android.SOURCES`):

1. load: GET /v1/elements/sessions (deferred setup intent, `card` and `us_bank_account`): the sheet
   offers us_bank_account only if it is in `ordered_payment_method_types`; its `session_id` becomes the
   deferred intent's id (DeferredSetupIntentJsonParser) and so the FC session's `unique_id`;
2. USBankAccountFormViewModel.collectBankAccountForDeferredIntent -> POST
   /v1/connections/link_account_sessions_for_deferred_payment (pk, plain Stripe-Version);
3. the FC sheet: POST /v1/financial_connections/sessions/synchronize (pk, FC beta; Full or Lite params),
   the web flow (no native killswitch off + treatment), HostedAuthUrlBuilder's URL in a Custom Tab
   (Full) or a WebView (Lite) on Purse's test-bank page, whose form POST answers 200 with a result
   page whose one way back is a link the customer taps, to
   `stripe-auth://link-accounts/<package>/success|cancel` (a Custom Tab opens an app's scheme only
   from a gesture, not from a redirect), which the SDK matches against the manifest;
4. GET /v1/link_account_sessions/session_receipt (pk, FC beta);
5. Save: POST /v1/payment_methods (type=us_bank_account, us_bank_account[link_account_session]); a
   us_bank_account with a financial_connections_account is not "unverified", so CustomerSheet attaches
   it: the app's setup intent, GET it, POST confirm with payment_method and an online mandate
   (infer_from_client=true); then the list again.

The merchant's backend is stripe-python on the secret key, as in test_replay_stripe_android.py, whose
fixtures (`backend`, `sdk`, `integration`, `sheet_factory`) and sheets this file reuses."""
import json
import urllib.parse

import pytest

import stripe_android as android
from html_forms import BankPage
from stripe_android import AndroidApiError, AndroidParseError
from test_replay_stripe_android import (  # noqa: F401  (fixtures are used by name)
    backend, integration, sdk, sheet_factory,
)

# CustomerSheet offers only card and us_bank_account for adding (DefaultCustomerSheetLoader
# .filterSupportedPaymentMethods @003c89e5); the app's paymentMethodTypes.
BANK_SHEET_TYPES = ["card", "us_bank_account"]
# The us_bank_account form's default billing collection: name and email (passed to FC as prefill email).
BILLING = {"name": "Jenny Rosen", "email": "jenny@example.com"}
ROUTING_NUMBER = "110000000"
ACCOUNT_NUMBER = "000123456789"
BAD_ROUTING_NUMBER = "123456789"  # fails the ABA checksum
# The test-bank page's accounts (docs/api.md, "Financial Connections").
PAGE_ACCOUNTS = {"checking", "savings", "closed", "no_account", "manual"}
PAGE_IDS = {"account-checking", "account-savings", "account-closed", "account-no_account", "account-manual",
            "routing_number", "account_number", "account_type", "link", "cancel"}


RESULT_HEADINGS = {"success": "Account linked", "cancel": "Linking cancelled"}


def check_result_page(page, url, heading):
    """The page once its session is decided (the answer to the POST that decided it, and any visit
    after): 200, HTML, no redirect, saying `heading`, no form, and exactly one link, the way back to
    the app: `<a id="return">Return to the app</a>` to `url` (success_url or cancel_url), exactly."""
    assert page.status == 200, f"{page.url} -> {page.status} (Location {page.location!r}): {page.text[:300]}"
    assert page.location is None, f"a result page with Location {page.location!r}"
    assert page.content_type.startswith("text/html"), page.content_type
    assert heading in page.text, f"the result page does not say {heading!r}: {page.text[-400:]}"
    assert page.forms == [], "the result page still has a form"
    assert [(link["id"], link["href"], link["text"].strip()) for link in page.links] == \
        [("return", url, "Return to the app")], f"the result page's links: {page.links}"


def query_of(url):
    return urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)


def body_of(body):
    return urllib.parse.parse_qs(body or "", keep_blank_values=True)


def sent_to(sdk, method, path):
    """The (method, url, body, headers) of every request the replayed SDK sent to `path`."""
    return [entry for entry in sdk.sent
            if entry[0] == method and urllib.parse.urlsplit(entry[1]).path.endswith(path)]


def last_answer(sdk, request_line_start):
    """The raw JSON of the last answer to a request line starting with `request_line_start`."""
    line, status, body = next(entry for entry in reversed(sdk.received) if entry[0].startswith(request_line_start))
    return json.loads(body)


# --------------------------------------------------------------------------------------------------
# The us_bank_account form and the FC sheet
# --------------------------------------------------------------------------------------------------


class BankLink:
    """One run of CollectBankAccountLauncher for CustomerSheet: the FC session, its manifest, the page
    and what the browser was sent back to, and the receipt the SDK fetched."""

    def __init__(self, sheet, lite=False):
        self.sheet = sheet
        self.sdk = sheet.sdk
        self.lite = lite
        self.session = None
        self.manifest = None
        self.url = None
        self.page = None
        self.answer = None
        self.tapped = None
        self.outcome = None
        self.receipt = None

    def start(self):
        """collectBankAccountForDeferredIntent: create the session with the elements session's id, then
        the FC sheet synchronizes and opens HostedAuthUrlBuilder's URL (prefill email from the form)."""
        assert self.sheet.elements_session is not None, "the sheet links only after it has loaded"
        assert "us_bank_account" in self.sheet.elements_session["ordered_payment_method_types"], \
            "the elements session does not offer us_bank_account: the sheet shows no bank account form"
        self.session = self.sdk.create_link_account_session_for_deferred_payment(
            self.sheet.elements_session["session_id"])
        if self.lite:
            self.manifest = self.sdk.synchronize_financial_connections_session_lite(
                self.session["client_secret"])["manifest"]
        else:
            self.manifest = self.sdk.synchronize_financial_connections_session(
                self.session["client_secret"])["manifest"]
        self.url = android.hosted_auth_url(self.manifest["hosted_auth_url"], email=BILLING["email"])
        self.page = BankPage.open(self.url, android.CUSTOM_TAB)
        assert self.page.status == 200, f"GET {self.url} -> {self.page.status}: {self.page.text[:300]}"
        assert self.page.content_type.startswith("text/html")
        return self

    def submit(self, account="checking", action="link", **typed):
        """The customer picks an account and presses a button on the page."""
        self.answer = self.page.submit(account, action, **typed)
        return self.answer

    def come_back(self):
        """The page answers the POST with its result page (200, no redirect), whose one way back is a
        link; the customer taps it, and the URL reaches the SDK (Custom Tab -> OS intent ->
        FinancialConnectionsSheetRedirectActivity, or the Lite WebView's interception), which decides
        the outcome and, on success or cancel, fetches the receipt. The result page must say what the
        outcome is, with no other link and no form."""
        answer = self.answer
        assert answer.status == 200, (f"POST {answer.url} -> {answer.status} (expected 200, the result page; "
                                      f"Location {answer.location!r}): {answer.text[:300]}")
        assert answer.location is None, f"the result page also redirects to {answer.location!r}"
        assert answer.forms == [], "the result page still has a form"
        assert [link["id"] for link in answer.links] == ["return"], \
            f"the result page's links (exactly one way back, #return): {answer.links}"
        self.tapped = answer.tap_return()
        if self.lite:
            self.outcome = android.lite_outcome(self.tapped, self.manifest)
        else:
            self.outcome = android.full_sdk_outcome(self.tapped, self.manifest)
        if self.outcome in RESULT_HEADINGS:
            assert RESULT_HEADINGS[self.outcome] in answer.text, \
                f"the {self.outcome} page does not say {RESULT_HEADINGS[self.outcome]!r}: {answer.text[-400:]}"
            self.receipt = self.sdk.financial_connections_session_receipt(self.session["client_secret"], lite=self.lite)
        return self.outcome

    def link(self, account="checking", **typed):
        self.start()
        self.submit(account, "link", **typed)
        assert self.come_back() == "success", \
            f"the page's link back {self.tapped!r} is not the manifest's success_url {self.manifest['success_url']!r}"
        # USBankAccountFormViewModel.handleResultForACH: a completed session without payment_account is
        # "Something went wrong" (the form resets).
        assert self.receipt["payment_account"] is not None, "succeeded receipt without payment_account"
        return self


class Saved:
    def __init__(self, payment_method, client_secret):
        self.payment_method = payment_method
        self.client_secret = client_secret
        self.intent = None


def save(sheet, link):
    """CustomerSheetViewModel.onPrimaryButtonPressed -> createAndAttach: create the payment method from the
    session id the FC result carried, then (it is not an unverified bank account) attachWithSetupIntent:
    the app's setup intent, GET it, confirm it (the caller does, to see a refusal)."""
    payment_method = sheet.sdk.create_us_bank_account_payment_method(
        link.receipt["id"], BILLING, sheet.allow_redisplay, sheet.elements_session["session_id"])
    assert not android.is_unverified_us_bank_account(payment_method), (
        "us_bank_account.financial_connections_account is null: CustomerSheet would select the method without "
        f"attaching it ({android.cite('PaymentMethodKtx')})")
    client_secret = sheet.backend.setup_intent_client_secret(sheet.customer)
    sheet.sdk.retrieve_setup_intent(client_secret)
    return Saved(payment_method, client_secret)


def confirm(sheet, saved):
    saved.intent = sheet.sdk.confirm_setup_intent(saved.client_secret, saved.payment_method["id"], "us_bank_account")
    if saved.intent["status"] == "succeeded":
        sheet.refresh()
    return saved.intent


def load(sheet_factory):
    return sheet_factory(types=BANK_SHEET_TYPES).load()


# --------------------------------------------------------------------------------------------------
# The mirrors themselves (no server)
# --------------------------------------------------------------------------------------------------


MANIFEST = {
    "allow_manual_entry": False, "consent_required": False, "consent_acquired_at": None,
    "custom_manual_entry_handling": False, "disable_link_more_accounts": False, "id": "fcsess_1",
    "instant_verification_disabled": False, "institution_search_disabled": False, "app_verification_enabled": False,
    "livemode": False, "manual_entry_uses_microdeposits": False, "mobile_handoff_enabled": False,
    "next_pane": "consent", "manual_entry_mode": "automatic", "permissions": ["payment_method"],
    "product": "payment_flows", "single_account": True, "use_single_sort_search": False,
    "payment_method_type": "us_bank_account", "hosted_auth_url": "https://purse.example/fc/auth?session=fcsess_1",
    "success_url": android.FC_SUCCESS_URL, "cancel_url": android.FC_CANCEL_URL,
}
VISUAL = {"reduced_branding": False, "reduce_manual_entry_prominence_in_errors": False, "merchant_logo": []}
ACCOUNT = {
    "object": "financial_connections.account", "id": "fca_1", "created": 1700000000, "institution_name": "Test Bank",
    "livemode": False, "last4": "6789", "category": "cash", "subcategory": "checking", "status": "active",
    "supported_payment_method_types": ["us_bank_account"], "permissions": ["payment_method"],
}


def session_json(**changes):
    session = {
        "id": "fcsess_1", "object": "financial_connections.session", "client_secret": "fcsess_1_secret_x",
        "livemode": False, "status": "succeeded", "payment_account": dict(ACCOUNT),
        "accounts": {"object": "list", "data": [dict(ACCOUNT)], "has_more": False, "url": "/v1/x"},
    }
    session.update(changes)
    return session


def test_the_fc_mirrors_accept_minimal_answers_and_reject_what_android_rejects():
    """Minimal valid answers (docs/replays/stripe-android.md) pass; each mutation is something the SDK's decoder or flow refuses."""
    assert android.parse_synchronize_session_response({"manifest": MANIFEST, "visual": VISUAL})["manifest"]["id"] \
        == "fcsess_1"
    assert android.parse_financial_connections_session(session_json())["payment_account"]["id"] == "fca_1"
    assert android.parse_financial_connections_session(session_json(), lite=True)["accounts"]["has_more"] is False
    assert android.parse_deferred_financial_connections_session(
        {"id": "fcsess_1", "client_secret": "fcsess_1_secret_x"})["client_secret"] == "fcsess_1_secret_x"

    with pytest.raises(AndroidParseError, match="client_secret"):
        android.parse_deferred_financial_connections_session({"id": "fcsess_1", "object": "link_account_session"})
    without_consent = {k: v for k, v in MANIFEST.items() if k != "consent_acquired_at"}
    with pytest.raises(AndroidParseError, match="consent_acquired_at"):
        android.parse_synchronize_session_response({"manifest": without_consent, "visual": VISUAL})
    with pytest.raises(AndroidParseError, match="visual"):
        android.parse_synchronize_session_response({"manifest": MANIFEST})
    with pytest.raises(AndroidParseError, match="merchant_logo"):
        android.parse_synchronize_session_response({"manifest": MANIFEST, "visual": dict(VISUAL, merchant_logo="x")})
    native = dict(MANIFEST, features={android.NATIVE_KILLSWITCH: False},
                  experiment_assignments={android.NATIVE_EXPERIMENT: "treatment"})
    assert android.native_flow_chosen(native)
    with pytest.raises(AndroidParseError, match="native flow"):
        android.parse_synchronize_session_response({"manifest": native, "visual": VISUAL})
    assert not android.native_flow_chosen(dict(native, features=None))  # features null -> killswitch
    with pytest.raises(AndroidParseError, match="success_url"):
        android.parse_synchronize_session_response({"manifest": dict(MANIFEST, success_url=None), "visual": VISUAL})
    with pytest.raises(AndroidParseError, match="cancel_url"):
        android.parse_lite_synchronize_session_response(
            {"manifest": {"hosted_auth_url": "https://x/?a", "success_url": "s"}})

    with pytest.raises(AndroidParseError, match="accounts"):
        android.parse_financial_connections_session({k: v for k, v in session_json().items() if k != "accounts"})
    with pytest.raises(AndroidParseError, match="has_more"):
        android.parse_financial_connections_session(session_json(accounts={"data": [], "has_more": True, "url": "/x"}))
    with pytest.raises(AndroidParseError, match="32 bits"):
        android.parse_financial_connections_session(session_json(payment_account=dict(ACCOUNT, created=2 ** 31)))
    with pytest.raises(AndroidParseError, match="institution_name"):
        android.parse_financial_connections_session(session_json(
            payment_account={k: v for k, v in ACCOUNT.items() if k != "institution_name"}))
    with pytest.raises(AndroidParseError, match=r"data\[0\]\.object"):
        android.parse_financial_connections_session(session_json(accounts={
            "data": [{k: v for k, v in ACCOUNT.items() if k != "object"}], "has_more": False, "url": "/x"}))
    # A payment_account without a FC `object` is a BankAccount: last4 @Required.
    with pytest.raises(AndroidParseError, match="last4"):
        android.parse_financial_connections_session(
            session_json(payment_account={"object": "bank_account", "id": "ba_1"}))
    # coerceInputValues (Full) turns a null category into its default; Lite's Json refuses it.
    nulled = session_json(payment_account=dict(ACCOUNT, category=None))
    assert android.parse_financial_connections_session(nulled)["payment_account"]["category"] is None
    with pytest.raises(AndroidParseError, match="coerceInputValues"):
        android.parse_financial_connections_session(nulled, lite=True)
    with pytest.raises(AndroidParseError, match="reason"):
        android.parse_financial_connections_session(session_json(status_details={"cancelled": {}}))
    with pytest.raises(AndroidParseError, match="supported"):
        android.parse_payment_method({"id": "pm_1", "type": "us_bank_account", "us_bank_account": {
            "last4": "6789", "networks": {"preferred": "ach", "supported": "ach"}}})


class _Answer:
    """An HTTP answer as `BankPage` reads it, for the helpers' own test."""

    def __init__(self, text, status_code=200):
        self.text = text
        self.status_code = status_code
        self.headers = {"Content-Type": "text/html; charset=utf-8"}


def test_the_fc_web_flow_helpers_do_what_the_sdk_does():
    """ApiVersion(betas).code, HostedAuthUrlBuilder (unencoded `&k=v`, launched_by last), the Full SDK's
    exact match after clearing the query, Lite's `contains`, the browser's reading of the result page's
    link back (`&amp;` decoded, resolved against the page), and `expand[]` for the synchronize list."""
    assert android.FC_API_VERSION == "2020-03-02;financial_connections_client_api_beta=v1"
    assert android.hosted_auth_url("https://p.example/fc?session=s", email="jenny@example.com") == \
        "https://p.example/fc?session=s&email=jenny@example.com&launched_by=android_sdk"
    manifest = {"success_url": android.FC_SUCCESS_URL, "cancel_url": android.FC_CANCEL_URL}
    assert android.FC_SUCCESS_URL == "stripe-auth://link-accounts/com.example.pursesheet/success"
    assert android.full_sdk_outcome(android.FC_SUCCESS_URL + "?status=success", manifest) == "success"
    assert android.full_sdk_outcome(android.FC_CANCEL_URL, manifest) == "cancel"
    assert android.full_sdk_outcome(android.FC_SUCCESS_URL + "/", manifest) == "failed"
    assert android.full_sdk_outcome(android.FC_SUCCESS_URL + "#done", manifest) == "failed"
    assert android.lite_outcome(android.FC_SUCCESS_URL + "#done", manifest) == "success"
    assert android.lite_outcome("https://bank.example/", manifest) == "not_intercepted"
    # The result page's link, read as a browser reads it (character references decoded, resolved
    # against the page's URL), and tapped.
    page_url = "https://p.example/fc/t?session=s"
    href = android.FC_SUCCESS_URL + "?a=1&amp;b=2"
    page = BankPage(page_url, _Answer(f'<p><a id="return" class="button primary" href="{href}">Return</a>'))
    assert page.return_link == android.FC_SUCCESS_URL + "?a=1&b=2"
    assert page.tap_return() == android.FC_SUCCESS_URL + "?a=1&b=2"
    assert android.full_sdk_outcome(page.tap_return(), manifest) == "success"
    elsewhere = BankPage(page_url, _Answer('<a id="return" href="/v1/back">Return</a><a href="x">X</a>'))
    assert elsewhere.tap_return() == "https://p.example/v1/back"
    assert [link["href"] for link in elsewhere.links] == ["/v1/back", "x"]
    assert android.full_sdk_outcome(elsewhere.tap_return(), manifest) == "failed"
    assert android.lite_outcome(elsewhere.tap_return(), manifest) == "not_intercepted"
    assert BankPage(page_url, _Answer('<a href="' + href + '">Return</a>')).tap_return() is None
    assert "expand%5B%5D=manifest.active_auth_session" in android.encode_params(
        {"expand": ["manifest.active_auth_session"], "client_secret": "x"}).split("&")


# --------------------------------------------------------------------------------------------------
# Load: the sheet offers us_bank_account
# --------------------------------------------------------------------------------------------------


def test_the_elements_session_offers_us_bank_accounts_with_a_session_id(sheet_factory, sdk):
    """ElementsSessionJsonParser: `us_bank_account` in ordered_payment_method_types (and not in
    unactivated_payment_method_types), a non-blank `session_id` (else the SDK invents a UUID that Purse
    has never seen, and sends it as unique_id), and no `flags.elements_disable_fc_lite: true` (an app
    without the FC SDK could then not link: GetFinancialConnectionsAvailability id 23271710356)."""
    sheet = load(sheet_factory)
    session = sheet.elements_session
    assert session["ordered_payment_method_types"] == BANK_SHEET_TYPES
    assert "us_bank_account" not in session["unactivated_payment_method_types"]
    raw = last_answer(sdk, "GET /v1/elements/sessions")
    assert isinstance(raw.get("session_id"), str) and raw["session_id"].strip(), \
        f"session_id {raw.get('session_id')!r}: the SDK would use a random UUID as the FC unique_id"
    assert session["session_id"] == raw["session_id"]
    assert session["flags"].get("elements_disable_fc_lite") is not True
    query = query_of(sent_to(sdk, "GET", "/v1/elements/sessions")[-1][1])
    assert query["deferred_intent[payment_method_types][1]"] == ["us_bank_account"]


# --------------------------------------------------------------------------------------------------
# Add a US bank account, end to end
# --------------------------------------------------------------------------------------------------


def test_add_a_us_bank_account_end_to_end(sheet_factory, sdk, integration):
    """Full SDK, web flow: deferred session (unique_id = session_id, verification_method=automatic,
    hosted_surface=customer_sheet, link_mode=LINK_DISABLED), synchronize (manifest for the web flow,
    return URLs of the app's package), the test bank's checking account (the result page, whose link to
    success_url the customer taps), receipt
    (succeeded, payment_account), list_accounts, POST /v1/payment_methods with link_account_session,
    the sheet's setup intent confirmed with the online mandate -> succeeded, and the list shows it."""
    sheet = load(sheet_factory)
    link = BankLink(sheet).start()

    # 1. The deferred session: exactly the SDK's body, plain Stripe-Version.
    _, url, body, headers = sent_to(sdk, "POST", "/v1/connections/link_account_sessions_for_deferred_payment")[-1]
    assert body_of(body) == {
        "unique_id": [sheet.elements_session["session_id"]], "verification_method": ["automatic"],
        "hosted_surface": ["customer_sheet"], "link_mode": ["LINK_DISABLED"],
    }
    assert headers["Stripe-Version"] == "2020-03-02"
    assert link.session["id"].startswith("fcsess_")
    assert link.session["client_secret"].startswith(link.session["id"] + "_secret_")

    # 2. Synchronize: the FC beta header, the Full SDK's parameters, and a manifest for the web flow.
    _, url, body, headers = sent_to(sdk, "POST", "/v1/financial_connections/sessions/synchronize")[-1]
    assert headers["Stripe-Version"] == android.FC_API_VERSION
    assert body_of(body) == {
        "expand[]": ["manifest.active_auth_session"], "emit_events": ["true"], "locale": ["en-US"],
        "mobile[forced_authflow_version]": ["v3"], "mobile[fullscreen]": ["true"],
        "mobile[hide_close_button]": ["true"], "mobile[supports_app_verification]": ["false"],
        "mobile[verified_app_id]": [android.APP_ID], "mobile[application_id]": [android.APP_ID],
        "client_secret": [link.session["client_secret"]],
    }
    manifest = link.manifest
    assert manifest["id"] == link.session["id"]
    assert manifest.get("features") is None and manifest.get("experiment_assignments") is None
    assert not android.native_flow_chosen(manifest)
    assert (manifest["product"], manifest["payment_method_type"], manifest["manual_entry_mode"]) == \
        ("payment_flows", "us_bank_account", "automatic")
    assert manifest["success_url"] == android.FC_SUCCESS_URL
    assert manifest["cancel_url"] == android.FC_CANCEL_URL
    assert "?" in manifest["hosted_auth_url"], "HostedAuthUrlBuilder appends &k=v: the URL needs its own query"
    assert urllib.parse.urlsplit(manifest["hosted_auth_url"]).scheme in ("http", "https")
    raw = last_answer(sdk, "POST /v1/financial_connections/sessions/synchronize")
    assert raw["visual"] == {"reduced_branding": False, "reduce_manual_entry_prominence_in_errors": False,
                             "merchant_logo": []}

    # 3. The test bank page, with what the SDK appended to its URL.
    assert link.url.endswith("&email=jenny@example.com&launched_by=android_sdk")
    assert set(link.page.radio_values("account")) >= PAGE_ACCOUNTS
    assert set(link.page.select_values("account_type")) >= {"checking", "savings"}
    assert PAGE_IDS <= link.page.ids, f"missing element ids: {sorted(PAGE_IDS - link.page.ids)}"
    answer = link.submit("checking", "link")
    check_result_page(answer, manifest["success_url"], "Account linked")
    assert link.come_back() == "success"
    split = urllib.parse.urlsplit(link.tapped)
    assert urllib.parse.urlunsplit((split.scheme, split.netloc, split.path, "", split.fragment)) == \
        manifest["success_url"] == f"stripe-auth://link-accounts/{android.APP_ID}/success"

    # 4. The receipt: FC beta header, succeeded, one checking account as payment_account.
    _, url, body, headers = sent_to(sdk, "GET", "/v1/link_account_sessions/session_receipt")[-1]
    assert headers["Stripe-Version"] == android.FC_API_VERSION
    assert query_of(url) == {"client_secret": [link.session["client_secret"]]}
    receipt = link.receipt
    assert (receipt["id"], receipt["client_secret"], receipt["livemode"]) == \
        (link.session["id"], link.session["client_secret"], False)
    assert receipt["status"] == "succeeded"
    account = receipt["payment_account"]
    assert account["kind"] == "financial_connections_account" and account["id"].startswith("fca_")
    assert (account["last4"], account["category"], account["subcategory"], account["status"]) == \
        ("6789", "cash", "checking", "active")
    assert account["supported_payment_method_types"] == ["us_bank_account"]
    assert isinstance(account["institution_name"], str) and account["institution_name"]
    assert [item["id"] for item in receipt["accounts"]["data"]] == [account["id"]]
    assert receipt["accounts"]["has_more"] is False

    # list_accounts (what FetchPaginatedAccountsForSession would page through), and its second page.
    accounts = sdk.list_financial_connections_accounts(link.session["client_secret"])
    assert [item["id"] for item in accounts["data"]] == [account["id"]]
    assert (accounts["has_more"], accounts["url"]) == (False, "/v1/link_account_sessions/list_accounts")
    assert sent_to(sdk, "GET", "/v1/link_account_sessions/list_accounts")[-1][3]["Stripe-Version"] == \
        android.FC_API_VERSION
    after = sdk.list_financial_connections_accounts(link.session["client_secret"], starting_after=account["id"])
    assert (after["data"], after["has_more"]) == ([], False)

    # 5. Save: the payment method from the session, then the sheet's setup intent.
    saved = save(sheet, link)
    _, url, body, headers = sent_to(sdk, "POST", "/v1/payment_methods")[-1]
    sent = body_of(body)
    assert (sent["type"], sent["us_bank_account[link_account_session]"]) == (["us_bank_account"], [link.session["id"]])
    assert (sent["billing_details[name]"], sent["billing_details[email]"]) == (["Jenny Rosen"], ["jenny@example.com"])
    assert sent["allow_redisplay"] == [sheet.allow_redisplay]
    assert sent["payment_user_agent"] == [f"stripe-android/{android.SDK_VERSION};CustomerSheet"]
    assert headers["Stripe-Version"] == "2020-03-02"
    method = saved.payment_method
    bank = method["us_bank_account"]
    assert method["type"] == "us_bank_account" and method["customer"] is None
    assert method["allow_redisplay"] == sheet.allow_redisplay
    assert bank["financial_connections_account"] == account["id"]
    assert (bank["last4"], bank["account_type"], bank["account_holder_type"]) == ("6789", "checking", "individual")
    assert bank["bank_name"] == account["institution_name"]
    assert bank["routing_number"] and bank["fingerprint"]
    raw_method = last_answer(sdk, "POST /v1/payment_methods")
    assert raw_method["us_bank_account"]["networks"] == {"preferred": "ach", "supported": ["ach"]}
    assert raw_method["billing_details"]["name"] == "Jenny Rosen"

    intent = confirm(sheet, saved)
    _, url, body, headers = sent_to(sdk, "POST", "/confirm")[-1]
    sent = body_of(body)
    assert sent["payment_method"] == [method["id"]]
    assert sent["mandate_data[customer_acceptance][type]"] == ["online"]
    assert sent["mandate_data[customer_acceptance][online][infer_from_client]"] == ["true"]
    assert intent["status"] == "succeeded", f"confirm -> {intent['status']} {intent['last_setup_error']}"
    assert intent["payment_method_id"] == method["id"]
    assert intent["last_setup_error"] is None

    # 6. The list again (adapter: GET /v1/payment_methods?type=us_bank_account; session: elements session).
    assert sheet.ids() == [method["id"]]
    listed = sheet.method(method["id"])
    assert listed["us_bank_account"]["financial_connections_account"] == account["id"]
    assert listed["us_bank_account"]["last4"] == "6789"
    assert sheet.backend.attached(sheet.customer) == [method["id"]]
    if integration == "adapter":
        assert query_of(sent_to(sdk, "GET", "/v1/payment_methods")[-1][1])["type"] == ["us_bank_account"]
    assert sheet.backend.setup_intent(saved.client_secret).mandate, "the confirmation recorded no mandate"


def test_add_a_us_bank_account_with_fc_lite(sheet_factory, sdk, integration):
    """An app without the FC SDK: FC Lite synchronizes with its own parameters (locale,
    mobile[fullscreen]=true, mobile[hide_close_button]=false, mobile[application_id], client_secret),
    opens the same URL in a WebView, intercepts the stripe-auth:// URL of the result page's link the
    customer taps (`contains(success_url)`),
    decodes the receipt with a strict Json (no coerceInputValues), and the sheet saves as with the Full SDK."""
    sheet = load(sheet_factory)
    assert sheet.elements_session["flags"].get("elements_disable_fc_lite") is not True
    link = BankLink(sheet, lite=True).link("checking")
    _, url, body, headers = sent_to(sdk, "POST", "/v1/financial_connections/sessions/synchronize")[-1]
    assert headers["Stripe-Version"] == android.FC_API_VERSION
    assert body_of(body) == {
        "locale": ["en-US"], "mobile[fullscreen]": ["true"], "mobile[hide_close_button]": ["false"],
        "mobile[application_id]": [android.APP_ID], "client_secret": [link.session["client_secret"]],
    }
    assert link.manifest["success_url"] == android.FC_SUCCESS_URL
    assert link.manifest["cancel_url"] == android.FC_CANCEL_URL
    assert link.outcome == "success"
    check_result_page(link.answer, android.FC_SUCCESS_URL, "Account linked")
    assert link.receipt["status"] == "succeeded"
    assert link.receipt["payment_account"]["last4"] == "6789"
    saved = save(sheet, link)
    assert saved.payment_method["us_bank_account"]["financial_connections_account"] == \
        link.receipt["payment_account"]["id"]
    assert confirm(sheet, saved)["status"] == "succeeded"
    assert sheet.ids() == [saved.payment_method["id"]]
    assert sheet.backend.attached(sheet.customer) == [saved.payment_method["id"]]


# --------------------------------------------------------------------------------------------------
# Cancel, a closed account, manual entry, a bad routing number
# --------------------------------------------------------------------------------------------------


def test_cancel_on_the_test_bank_page(sheet_factory, sdk):
    """Cancel: the result page, whose link to cancel_url the customer taps (the Full SDK's
    handleOnNewIntent -> onUserCancel -> receipt; not `custom_manual_entry`, so the result is Canceled;
    Lite: payment_account null -> Canceled). The session is cancelled, a payment method from it is
    refused naming us_bank_account[link_account_session], and the page then shows the same result page,
    opened again or posted to from the stale form, which changes nothing."""
    sheet = load(sheet_factory)
    link = BankLink(sheet).start()
    answer = link.submit("checking", "cancel")
    check_result_page(answer, android.FC_CANCEL_URL, "Linking cancelled")
    assert link.come_back() == "cancel", f"{link.tapped!r} is not the manifest's cancel_url"
    assert link.tapped.split("?")[0] == android.FC_CANCEL_URL
    assert android.lite_outcome(link.tapped, link.manifest) == "cancel"
    receipt = link.receipt
    assert receipt["status"] == "cancelled"
    assert receipt["status_details"] == {"cancelled": {"reason": "other"}}
    assert receipt["payment_account"] is None
    assert receipt["accounts"]["data"] == []
    lite_receipt = sdk.financial_connections_session_receipt(link.session["client_secret"], lite=True)
    assert lite_receipt["payment_account"] is None  # FC Lite: Canceled

    with pytest.raises(AndroidApiError) as refused:
        sdk.create_us_bank_account_payment_method(
            link.session["id"], BILLING, sheet.allow_redisplay, sheet.elements_session["session_id"])
    assert refused.value.status == 400
    error = android.parse_error(refused.value.body)
    assert (error["type"], error["param"]) == ("invalid_request_error", "us_bank_account[link_account_session]")

    again = BankPage.open(link.url, android.CUSTOM_TAB)
    check_result_page(again, android.FC_CANCEL_URL, "Linking cancelled")
    stale = link.page.submit("checking", "link")
    check_result_page(stale, android.FC_CANCEL_URL, "Linking cancelled")
    after = sdk.financial_connections_session_receipt(link.session["client_secret"])
    assert (after["status"], after["payment_account"]) == ("cancelled", None)
    sheet.refresh()
    assert sheet.payment_methods == []


def test_a_linked_session_keeps_its_result_page(sheet_factory, sdk):
    """After linking, the page is the result page for good: opened again (a reload, or the customer
    coming back to the tab) it says the account is linked and offers the same one link to success_url,
    which both SDKs still take for a success; a Cancel posted from the stale form changes nothing and
    answers that same page. The session stays succeeded with its account."""
    sheet = load(sheet_factory)
    link = BankLink(sheet).link("savings")
    account = link.receipt["payment_account"]
    assert account["last4"] == "2227"
    check_result_page(link.answer, android.FC_SUCCESS_URL, "Account linked")

    again = BankPage.open(link.url, android.CUSTOM_TAB)
    check_result_page(again, android.FC_SUCCESS_URL, "Account linked")
    assert android.full_sdk_outcome(again.tap_return(), link.manifest) == "success"
    assert android.lite_outcome(again.tap_return(), link.manifest) == "success"
    stale = link.page.submit("checking", "cancel")
    check_result_page(stale, android.FC_SUCCESS_URL, "Account linked")
    after = sdk.financial_connections_session_receipt(link.session["client_secret"])
    assert (after["status"], after["payment_account"]["id"]) == ("succeeded", account["id"])
    assert [item["id"] for item in after["accounts"]["data"]] == [account["id"]]


def test_a_closed_account_links_but_the_bank_declines_it(sheet_factory, sdk):
    """The test bank's `closed` account (••••1113) links and makes a payment method, but confirming the
    setup intent is refused as a typed closed account is (400 bank_account_unusable), the intent keeps
    last_setup_error, and nothing is saved."""
    sheet = load(sheet_factory)
    link = BankLink(sheet).link("closed")
    assert link.receipt["status"] == "succeeded"
    assert link.receipt["payment_account"]["last4"] == "1113"
    saved = save(sheet, link)
    assert saved.payment_method["us_bank_account"]["last4"] == "1113"
    assert saved.payment_method["us_bank_account"]["financial_connections_account"] == \
        link.receipt["payment_account"]["id"]
    with pytest.raises(AndroidApiError) as declined:
        confirm(sheet, saved)
    assert declined.value.status == 400
    error = android.parse_error(declined.value.body)
    assert (error["type"], error["code"]) == ("invalid_request_error", "bank_account_unusable")
    intent = sdk.retrieve_setup_intent(saved.client_secret)
    assert intent["status"] == "requires_payment_method"
    assert intent["last_setup_error"]["code"] == "bank_account_unusable"
    sheet.refresh()
    assert sheet.payment_methods == []
    assert sheet.backend.attached(sheet.customer) == []


def test_manual_entry_of_a_savings_account(sheet_factory, sdk):
    """Manual entry on the page (routing 110000000, account 000123456789, savings): the session's
    payment_account is a savings account ••••6789, and the payment method's account_type is savings."""
    sheet = load(sheet_factory)
    link = BankLink(sheet).link(
        "manual", routing_number=ROUTING_NUMBER, account_number=ACCOUNT_NUMBER, account_type="savings")
    sent = dict(link.answer.submitted)
    assert (sent["account"], sent["routing_number"], sent["account_type"]) == ("manual", ROUTING_NUMBER, "savings")
    account = link.receipt["payment_account"]
    assert account["kind"] == "financial_connections_account"
    assert (account["last4"], account["subcategory"]) == ("6789", "savings")
    assert ACCOUNT_NUMBER not in json.dumps(last_answer(sdk, "GET /v1/link_account_sessions/session_receipt"))
    saved = save(sheet, link)
    bank = saved.payment_method["us_bank_account"]
    assert (bank["account_type"], bank["last4"], bank["routing_number"]) == ("savings", "6789", ROUTING_NUMBER)
    assert bank["bank_name"] == account["institution_name"]
    assert confirm(sheet, saved)["status"] == "succeeded"
    assert sheet.method(saved.payment_method["id"])["us_bank_account"]["account_type"] == "savings"


def test_a_bad_routing_number_re_renders_the_page(sheet_factory, sdk):
    """A routing number failing its checksum: 400 with the page again (text/html, the form still there),
    no redirect and no link back to the app, and the session stays pending with no account; fixing it
    then links."""
    sheet = load(sheet_factory)
    link = BankLink(sheet).start()
    answer = link.submit("manual", routing_number=BAD_ROUTING_NUMBER, account_number=ACCOUNT_NUMBER,
                         account_type="checking")
    assert answer.status == 400, f"POST -> {answer.status} {answer.location!r}"
    assert answer.location is None
    assert answer.return_link is None, f"the re-rendered form offers a way back: {answer.links}"
    assert answer.content_type.startswith("text/html")
    assert answer.form_with_button("link") is not None, "the re-rendered page has no form to try again"
    receipt = sdk.financial_connections_session_receipt(link.session["client_secret"])
    assert receipt["status"] == "pending"
    assert receipt["payment_account"] is None and receipt["accounts"]["data"] == []
    link.page = answer
    link.submit("manual", routing_number=ROUTING_NUMBER, account_number=ACCOUNT_NUMBER, account_type="checking")
    assert link.come_back() == "success"
    assert (link.receipt["status"], link.receipt["payment_account"]["last4"]) == ("succeeded", "6789")


# --------------------------------------------------------------------------------------------------
# Parameters a newer SDK may add
# --------------------------------------------------------------------------------------------------


def test_fc_endpoints_accept_unknown_parameters(sheet_factory, sdk):
    """Every FC endpoint takes parameters it does not know (a newer SDK's), as /v1/elements/* does:
    the deferred creation, both synchronize variants, the receipt; and the flow still completes."""
    sheet = load(sheet_factory)
    session = sdk.create_link_account_session_for_deferred_payment(
        sheet.elements_session["session_id"],
        extra={"manual_entry_only": False, "future_parameter": "android", "client_context": {"surface": "sheet"}})
    secret = session["client_secret"]
    lite = sdk.synchronize_financial_connections_session_lite(
        secret, extra={"future_parameter": "android", "mobile": {"fullscreen": True, "hide_close_button": False,
                                                                 "application_id": android.APP_ID,
                                                                 "future_flag": True}})
    assert lite["manifest"]["success_url"] == android.FC_SUCCESS_URL
    manifest = sdk.synchronize_financial_connections_session(
        secret, extra={"future_parameter": "android", "mobile": {"future_flag": True}})["manifest"]
    assert manifest["id"] == session["id"]
    pending = sdk.financial_connections_session_receipt(secret, extra={"future_parameter": "android"})
    assert pending["status"] == "pending"
    url = android.hosted_auth_url(manifest["hosted_auth_url"], email=BILLING["email"])
    page = BankPage.open(url, android.CUSTOM_TAB)
    answer = page.submit("checking", "link")
    check_result_page(answer, manifest["success_url"], "Account linked")
    assert android.full_sdk_outcome(answer.tap_return(), manifest) == "success"
    receipt = sdk.financial_connections_session_receipt(secret, extra={"future_parameter": "android"})
    assert receipt["status"] == "succeeded" and receipt["payment_account"]["last4"] == "6789"
