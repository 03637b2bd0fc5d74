"""Replays of a current stripe-android `CustomerSheet` (release 23.13.0, VERSION @02493a91), for its
two integrations, against a live Purse:

* `StripeCustomerAdapter` with a `CustomerEphemeralKeyProvider` and a
  `SetupIntentClientSecretProvider` (StripeCustomerAdapter id 3542731295, CustomerAdapterDataSource
  id 3556116314), and
* the customer-session integration (`CustomerSheet.CustomerSessionProvider`:
  DefaultCustomerSessionElementsSessionManager id 3502508572, CustomerSessionInitializationDataSource
  id 23562237273, CustomerSessionPaymentMethodDataSource id 3491353126,
  CustomerSessionSavedSelectionDataSource id 4098968925).

Every request goes through `stripe_android.AndroidSdk`, whose methods each cite the stripe-android
file, commit (or index id) and symbol they reproduce; the sequence of each flow is the one of
CustomerSheetViewModel (id 3495087197): load (elements session + saved methods), add
(`createAndAttach`: POST /v1/payment_methods, then `attachWithSetupIntent`: the app's setup-intent
secret, GET the intent, confirm it with `payment_method=pm_...` through PaymentLauncher, handle
`redirect_to_url`, GET it again), remove (`removePaymentMethod` -> CustomerApiRepository
.detachPaymentMethodAndDuplicates), update (`modifyCardPaymentMethod` / the card update executor ->
POST /v1/payment_methods/{id}), select (`selectSavedPaymentMethod`: local for the adapter, POST
/v1/elements/customers/{cus}/set_default_payment_method for a session with sync-default), and reload.
Every answer goes through the mirrored Android parsers (`stripe_android.parse_*`), which fail with
what the SDK would reject. The merchant's backend (customers, ephemeral keys, setup intents,
customer sessions) is stripe-python on the secret key, as in the other compat tests.

docs/replays/stripe-android.md lists the requests, parameters and parser requirements.

Card data: numbers, CVCs and IBANs are recorded by AndroidSdk into conftest's SENT_CARD_DATA (and
the authentication page's form posts too) and checked by test_zz_card_data.py; CVCs start with 0."""
import datetime
import urllib.parse

import pytest
import requests

import html_forms
import stripe_android as android
from stripe_android import AndroidApiError, AndroidParseError, AndroidSdk
from conftest import SECRETS_SEEN, SENT_CARD_DATA

THIS_YEAR = datetime.date.today().year
VISA = "4242424242424242"
MASTERCARD = "5555555555554444"
THREE_D_SECURE = "4000002500003155"  # authentication required on setup
DECLINED = "4000000000000002"  # generic_decline
CARTES_BANCAIRES_VISA = "4000002500001001"  # co-badged Cartes Bancaires / Visa
IBAN = "DE89370400440532013000"
CVC = "042"
# CustomerSheet.IntentConfiguration / StripeCustomerAdapter paymentMethodTypes of these replays. Without
# us_bank_account, whose Financial Connections add flow has replays of its own
# (test_replay_stripe_android_bank_accounts.py).
SHEET_TYPES = ["card", "sepa_debit"]
ALL_SHEET_TYPES = ["card", "us_bank_account", "sepa_debit"]
# What a customer_sheet component needs for the sheet's remove and sync-default features
# (ElementsSessionJsonParser.parseCustomerSheetComponent).
SESSION_FEATURES = {
    "payment_method_remove": "enabled",
    "payment_method_remove_last": "enabled",
    "payment_method_sync_default": "enabled",
}


# --------------------------------------------------------------------------------------------------
# The merchant's backend (stripe-python, secret key)
# --------------------------------------------------------------------------------------------------


class Backend:
    """What the app's providers call: the merchant's server, on the secret key."""

    def __init__(self, purse, account):
        self.client = purse.client(account["secret_key"], max_network_retries=0)

    def create_customer(self):
        return self.client.v1.customers.create(params={"email": "jenny@example.com", "name": "Jenny Rosen"}).id

    def ephemeral_key(self, customer):
        """CustomerEphemeralKeyProvider: an ephemeral key for the app, created with the API version of
        the Android SDK (ApiVersion.API_VERSION_CODE @c126e3e5; the SDK only reads its secret)."""
        key = self.client.v1.ephemeral_keys.create(
            params={"customer": customer}, options={"stripe_version": android.API_VERSION},
        )
        return key.secret

    def setup_intent_client_secret(self, customer):
        """SetupIntentClientSecretProvider / CustomerSessionProvider.provideSetupIntentClientSecret."""
        intent = self.client.v1.setup_intents.create(
            params={"customer": customer, "automatic_payment_methods": {"enabled": True}},
        )
        return intent.client_secret

    def customer_session_client_secret(self, customer, features=None):
        """CustomerSessionProvider.providesCustomerSessionClientSecret: a customer session with the
        customer_sheet component enabled and the features the sheet reads."""
        session = self.client.v1.customer_sessions.create(params={
            "customer": customer,
            "components": {"customer_sheet": {"enabled": True, "features": SESSION_FEATURES if features is None
                                              else features}},
        })
        return session.client_secret

    def attached(self, customer):
        return [method.id for method in self.client.v1.customers.payment_methods.list(customer).data]

    def setup_intent(self, client_secret):
        return self.client.v1.setup_intents.retrieve(client_secret.split("_secret_")[0])


@pytest.fixture
def backend(purse, account):
    return Backend(purse, account)


@pytest.fixture
def sdk(purse, account):
    """One app install: a fresh mobile_session_id and fresh muid/guid/sid."""
    return AndroidSdk(purse.base, account["publishable_key"])


# --------------------------------------------------------------------------------------------------
# What the add form sends (FieldValuesToParamsMapConverter id 3521483662 + PaymentMethodCreateParams
# .toParamMap id 3476922515; allow_redisplay from PaymentMethodSaveConsentBehavior id 4343181052:
# Legacy (adapter) -> unspecified, Disabled(override = ALWAYS) (customer session) -> always)
# --------------------------------------------------------------------------------------------------


def card_form(number, allow_redisplay, exp_month=12, exp_year=None, cvc=CVC):
    """The card form with the default billing collection (automatic: country and postal code)."""
    return {
        "type": "card",
        "card": {"number": number, "exp_month": exp_month, "exp_year": exp_year or THIS_YEAR + 5, "cvc": cvc},
        "billing_details": {"address": {"country": "US", "postal_code": "94107"}},
        "allow_redisplay": allow_redisplay,
    }


def sepa_form(allow_redisplay):
    """SepaDebitDefinition (id 37080479395): name, email, IBAN and the billing address."""
    return {
        "type": "sepa_debit",
        "billing_details": {
            "name": "Jenny Rosen", "email": "jenny@example.com",
            "address": {"line1": "Unter den Linden 1", "city": "Berlin", "postal_code": "10117", "country": "DE"},
        },
        "sepa_debit": {"iban": IBAN},
        "allow_redisplay": allow_redisplay,
    }


# --------------------------------------------------------------------------------------------------
# The two integrations of the sheet
# --------------------------------------------------------------------------------------------------


class Added:
    def __init__(self, payment_method, client_secret, intent):
        self.payment_method = payment_method
        self.client_secret = client_secret
        self.intent = intent


class Sheet:
    """The steps CustomerSheetViewModel (id 3495087197) takes, common to both integrations."""

    allow_redisplay = None

    def __init__(self, sdk, backend, customer, types=SHEET_TYPES):
        self.sdk = sdk
        self.backend = backend
        self.customer = customer
        self.types = types
        self.elements_session = None
        self.payment_methods = []
        self.selection = None

    def add(self, create_params):
        """createAndAttach -> createPaymentMethod (POST /v1/payment_methods, publishable key) ->
        attachWithSetupIntent: retrieveSetupIntentClientSecret (the app's provider), retrieveSetupIntent
        (GET /v1/setup_intents/{id}?client_secret=...), handleStripeIntent -> ConfirmationHandler ->
        PaymentLauncher -> confirmSetupIntent (POST /v1/setup_intents/{id}/confirm). On success,
        refreshAndUpdatePaymentMethods; on requires_action the caller authenticates (`finish_add`)."""
        assert self.elements_session is not None, "the sheet adds only after it has loaded"
        payment_method = self.sdk.create_payment_method(create_params, self.elements_session["session_id"])
        client_secret = self.backend.setup_intent_client_secret(self.customer)
        self.last_client_secret = client_secret
        self.sdk.retrieve_setup_intent(client_secret)
        intent = self.sdk.confirm_setup_intent(client_secret, payment_method["id"], payment_method["type"])
        if intent["status"] == "succeeded":
            self.refresh()
        return Added(payment_method, client_secret, intent)

    def finish_add(self, added):
        """PaymentLauncher after the browser returns to the return_url: PaymentFlowResultProcessor
        retrieves the intent with expand=[payment_method]; then refreshAndUpdatePaymentMethods."""
        intent = self.sdk.retrieve_setup_intent(added.client_secret, expand=["payment_method"])
        if intent["status"] == "succeeded":
            self.refresh()
        return intent

    def shown(self):
        """What the sheet lists: (type, label) newest first as the source returned them, with the
        selection (sortPaymentMethods puts the selected one first; compared here as a set)."""
        labels = []
        for method in self.payment_methods:
            if method["type"] == "card":
                brand = method["card"]["display_brand"] or method["card"]["brand"]
                labels.append((method["id"], f"{brand} •••• {method['card']['last4']}"))
            elif method["type"] == "sepa_debit":
                labels.append((method["id"], f"sepa_debit ••••{method['sepa_debit']['last4']}"))
            else:
                labels.append((method["id"], method["type"]))
        return labels

    def ids(self):
        return [method["id"] for method in self.payment_methods]

    def method(self, payment_method_id):
        return next(method for method in self.payment_methods if method["id"] == payment_method_id)


class AdapterSheet(Sheet):
    """CustomerSheet with StripeCustomerAdapter(customerEphemeralKeyProvider,
    setupIntentClientSecretProvider, paymentMethodTypes) (id 3542731295)."""

    allow_redisplay = "unspecified"  # PaymentMethodSaveConsentBehavior.Legacy

    def __init__(self, sdk, backend, customer, types=SHEET_TYPES):
        super().__init__(sdk, backend, customer, types)
        self._ephemeral_key = None

    @property
    def ephemeral_key(self):
        """getCustomerEphemeralKey: the provider's key, cached 30 minutes."""
        if self._ephemeral_key is None:
            self._ephemeral_key = self.backend.ephemeral_key(self.customer)
        return self._ephemeral_key

    def load(self):
        """CustomerAdapterDataSource.loadCustomerSheetSession: fetchElementsSession (types =
        adapter.paymentMethodTypes, or [] when null) and fetchInitialPaymentMethods in parallel; the
        saved selection from the device (SharedPreferences)."""
        self.elements_session = self.sdk.elements_session(self.types)
        self.refresh()
        return self

    def refresh(self):
        """StripeCustomerAdapter.retrievePaymentMethods -> CustomerApiRepository.getPaymentMethods:
        one GET /v1/payment_methods per requested type (all supported types when none given)."""
        kinds = [kind for kind in (self.types or ALL_SHEET_TYPES) if kind in ALL_SHEET_TYPES]
        methods = []
        for kind in kinds:
            methods += [m for m in self.sdk.list_payment_methods(self.ephemeral_key, self.customer, kind)
                        if (m.get("card") or {}).get("wallet") not in ("apple_pay", "google_pay", "samsung_pay", "link")]
        self.payment_methods = methods

    def remove(self, payment_method_id):
        """StripeCustomerAdapter.detachPaymentMethod (canRemoveDuplicates =
        CAN_REMOVE_DUPLICATES_CUSTOMER_SHEET_VALUE) -> detachPaymentMethodAndDuplicates: list cards,
        detach every other card with the same fingerprint, then the chosen one (detachSingleLegacy)."""
        cards = self.sdk.list_payment_methods(self.ephemeral_key, self.customer, "card")
        chosen = next((card for card in cards if card["id"] == payment_method_id), None)
        removed = []
        if chosen is not None:
            for card in cards:
                if card["id"] != payment_method_id and card["card"]["fingerprint"] == chosen["card"]["fingerprint"]:
                    removed.append(self.sdk.detach_payment_method(self.ephemeral_key, card["id"])["id"])
        removed.append(self.sdk.detach_payment_method(self.ephemeral_key, payment_method_id)["id"])
        self.payment_methods = [m for m in self.payment_methods if m["id"] not in removed]
        return removed

    def update_card(self, payment_method_id, card):
        """StripeCustomerAdapter.updatePaymentMethod -> CustomerApiRepository.updatePaymentMethod."""
        updated = self.sdk.update_payment_method(self.ephemeral_key, payment_method_id, card)
        self.payment_methods = [updated if m["id"] == updated["id"] else m for m in self.payment_methods]
        return updated

    def select(self, payment_method_id):
        """selectSavedPaymentMethod -> CustomerAdapterDataSource.setSavedSelection ->
        StripeCustomerAdapter.setSelectedPaymentOption: SharedPreferences only, no request."""
        self.selection = payment_method_id


class SessionSheet(Sheet):
    """CustomerSheet with a CustomerSessionProvider (customer session client secrets)."""

    allow_redisplay = "always"  # PaymentMethodSaveConsentBehavior.Disabled(overrideAllowRedisplay = ALWAYS)

    def __init__(self, sdk, backend, customer, types=SHEET_TYPES, features=None):
        super().__init__(sdk, backend, customer, types)
        self.features = features
        self.local_selection = None  # PrefsRepository of the customer, used when sync-default is off
        self.ephemeral_key = None
        self.customer_session_client_secret = None

    def fetch(self):
        """DefaultCustomerSessionElementsSessionManager.fetchElementsSession: a new client secret from
        the provider (CustomerSessionClientSecretValidator wants `cuss_`), the locally saved selection as
        `client_default_payment_method`, and the customer's key from `customer.customer_session`."""
        secret = self.backend.customer_session_client_secret(self.customer, self.features)
        assert secret.startswith("cuss_"), f"CustomerSessionClientSecretValidator refuses {secret[:12]}..."
        session = self.sdk.elements_session(
            self.types, customer_session_client_secret=secret, client_default_payment_method=self.local_selection,
        )
        customer = session["customer"]
        self.elements_session = session
        self.customer_session_client_secret = secret
        self.ephemeral_key = customer["customer_session"]["api_key"]
        self.payment_methods = customer["payment_methods"]
        return session

    @property
    def syncs_default(self):
        """getDefaultPaymentMethodsEnabledForCustomerSheet: customer_sheet enabled with
        payment_method_sync_default == "enabled"."""
        sheet = self.elements_session["customer"]["customer_session"]["components"]["customer_sheet"]
        return sheet["enabled"] and sheet.get("payment_method_sync_default") == "enabled"

    def load(self):
        """CustomerSessionInitializationDataSource.loadCustomerSheetSession: the elements session,
        then the selection: the backend's default when syncing, else the device's."""
        self.fetch()
        if self.syncs_default:
            default = self.elements_session["customer"]["default_payment_method"]
            self.selection = default if default in self.ids() else None
        else:
            self.selection = self.local_selection if self.local_selection in self.ids() else None
        return self

    def refresh(self):
        """CustomerSessionPaymentMethodDataSource.retrievePaymentMethods: the elements session again."""
        self.fetch()

    def remove(self, payment_method_id):
        """CustomerSessionPaymentMethodDataSource.detachPaymentMethod (canRemoveDuplicates = true) ->
        detachPaymentMethodAndDuplicates with detachSingleSession: list the cards with the session's key,
        then POST /v1/elements/payment_methods/{id}/detach for each duplicate and the chosen one."""
        cards = self.sdk.list_payment_methods(self.ephemeral_key, self.customer, "card")
        chosen = next((card for card in cards if card["id"] == payment_method_id), None)
        removed = []
        if chosen is not None:
            for card in cards:
                if card["id"] != payment_method_id and card["card"]["fingerprint"] == chosen["card"]["fingerprint"]:
                    removed.append(self.sdk.elements_detach_payment_method(
                        self.ephemeral_key, card["id"], self.customer_session_client_secret)["id"])
        removed.append(self.sdk.elements_detach_payment_method(
            self.ephemeral_key, payment_method_id, self.customer_session_client_secret)["id"])
        self.payment_methods = [m for m in self.payment_methods if m["id"] not in removed]
        return removed

    def update_card(self, payment_method_id, card):
        """CustomerSessionPaymentMethodDataSource.updatePaymentMethod: the session's key."""
        updated = self.sdk.update_payment_method(self.ephemeral_key, payment_method_id, card)
        self.payment_methods = [updated if m["id"] == updated["id"] else m for m in self.payment_methods]
        return updated

    def select(self, payment_method_id):
        """selectSavedPaymentMethod(shouldSyncDefault = isPaymentMethodSetAsDefaultEnabled) ->
        CustomerSessionSavedSelectionDataSource.setSavedSelection: the backend when syncing, else prefs."""
        if self.syncs_default:
            customer = self.sdk.set_default_payment_method(self.ephemeral_key, self.customer, payment_method_id)
            assert customer["id"] == self.customer
        else:
            self.local_selection = payment_method_id
        self.selection = payment_method_id


INTEGRATIONS = {"adapter": AdapterSheet, "customer_session": SessionSheet}


@pytest.fixture(params=sorted(INTEGRATIONS))
def integration(request):
    return request.param


@pytest.fixture
def sheet_factory(sdk, backend, integration):
    def make(customer=None, **options):
        return INTEGRATIONS[integration](sdk, backend, customer or backend.create_customer(), **options)
    return make


# --------------------------------------------------------------------------------------------------
# The browser side of 3D Secure (not the SDK: what a Custom Tab does with Purse's page)
# --------------------------------------------------------------------------------------------------


def authenticate_in_browser(url, action="complete"):
    """GET the redirect_to_url page, POST its form whose `action` field is `action`, and return
    where the page sends the browser (the return_url, which hands control back to the app)."""
    SENT_CARD_DATA.record(url, None)
    page = requests.get(url, timeout=30)
    assert page.status_code == 200, f"GET {url} -> {page.status_code}"
    assert page.headers.get("Content-Type", "").startswith("text/html")
    forms = html_forms.parse(page.text).forms
    form = next((form for form in forms if ("action", action) in html_forms.form_fields(form)), None)
    assert form is not None, f"no form posting action={action} on the authentication page"
    assert form["method"] == "post"
    fields = html_forms.form_fields(form)
    target = urllib.parse.urljoin(url, form["action"] or url)
    body = urllib.parse.urlencode(fields)
    SENT_CARD_DATA.record(target, body)
    answer = requests.post(target, data=fields, allow_redirects=False, timeout=30)
    SECRETS_SEEN.record(answer.text)
    assert answer.status_code in (302, 303), f"POST {target} -> {answer.status_code}: {answer.text[:200]}"
    return answer.headers["Location"]


# --------------------------------------------------------------------------------------------------
# The replay itself: encoding and headers
# --------------------------------------------------------------------------------------------------


def test_the_replay_encodes_as_java_does():
    """QueryStringFactory @553b812d: URLEncoder escapes brackets and '~', keeps '*', spaces as '+';
    lists of primitives as `a[]`; nulls dropped; map keys in java.util.HashMap order."""
    assert android._java_string_hash("hello") == 99162322  # "hello".hashCode()
    assert android._java_string_hash("card") == 3046160
    assert android.java_url_encode("a[b] c~*.-_é") == "a%5Bb%5D+c%7E*.-_%C3%A9"
    encoded = android.encode_params({"expand": ["payment_method"], "client_secret": "seti_1_secret_2", "x": None})
    assert sorted(encoded.split("&")) == ["client_secret=seti_1_secret_2", "expand%5B%5D=payment_method"]
    assert android.encode_params({"use_stripe_sdk": True}) == "use_stripe_sdk=true"
    # Bucket order, not insertion order: HashMap(3 keys) has 8 buckets.
    keys = ["type", "card", "billing_details"]
    order = android.java_hashmap_order(keys)
    assert sorted(order) == sorted(keys)
    assert order == sorted(keys, key=lambda k: (lambda h: (h ^ (h >> 16)) & 7)(android._java_string_hash(k)))


def test_the_replay_sends_stripe_androids_headers(purse, sdk):
    """RequestHeadersFactory.Api @15c723ac: every request carries these; POSTs add Content-Type."""
    try:
        sdk.request("POST", "/v1/payment_methods", sdk.publishable_key, {"type": "card"})
    except AndroidApiError:
        pass  # the answer does not matter here, only what was sent
    method, url, body, headers = sdk.sent[-1]
    assert headers["User-Agent"] == f"Stripe/v1 AndroidBindings/{android.SDK_VERSION}"
    assert headers["Stripe-Version"] == "2020-03-02"
    assert headers["Authorization"] == f"Bearer {sdk.publishable_key}"
    assert headers["Content-Type"] == "application/x-www-form-urlencoded; charset=UTF-8"
    assert headers["X-Stripe-User-Agent"].startswith('{"lang":"kotlin","bindings_version":"')
    assert '"http.agent":"Dalvik\\/2.1.0' in headers["X-Stripe-Client-User-Agent"]
    assert "Idempotency-Key" not in headers


# --------------------------------------------------------------------------------------------------
# Load
# --------------------------------------------------------------------------------------------------


def test_load_an_empty_sheet(sheet_factory, integration, sdk):
    """Load: GET /v1/elements/sessions (publishable key; RealElementsSessionRepository
    .retrieveElementsSession id 51844134952) with type=deferred_intent, mobile_app_id, locale,
    mobile_session_id, deferred_intent[mode|setup_future_usage|payment_method_types][i] (and
    customer_session_client_secret in session mode); adapter mode also lists the saved methods per type
    (GET /v1/payment_methods, ephemeral key; CustomerApiRepository.getPaymentMethods id 51875425870)."""
    sheet = sheet_factory().load()
    session = sheet.elements_session
    assert {"card", "sepa_debit"} <= set(session["ordered_payment_method_types"])
    assert "us_bank_account" not in session["ordered_payment_method_types"]
    assert sheet.payment_methods == [] and sheet.selection is None
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(sdk.sent[0][1]).query)
    assert query["mobile_session_id"] == [sdk.mobile_session_id]
    assert query["deferred_intent[payment_method_types][1]"] == ["sepa_debit"]
    if integration == "customer_session":
        customer = session["customer"]
        assert customer["customer_session"]["customer"] == sheet.customer
        assert customer["customer_session"]["api_key"].startswith("ek_")
        assert customer["customer_session"]["components"]["customer_sheet"] == {
            "enabled": True, **SESSION_FEATURES,
        }
        assert customer["default_payment_method"] is None


def test_the_sheet_is_offered_us_bank_accounts_when_it_asks_for_them(sheet_factory):
    """With us_bank_account requested, the elements session lists it in ordered_payment_method_types:
    CustomerSheet then offers it, and adds it through Financial Connections
    (test_replay_stripe_android_bank_accounts.py)."""
    sheet = sheet_factory(types=ALL_SHEET_TYPES).load()
    assert sheet.elements_session["ordered_payment_method_types"] == ALL_SHEET_TYPES


def test_without_types_the_sheet_is_offered_cards(sheet_factory):
    """No types (CustomerAdapterDataSource.createPaymentMethodTypes sends none): a deferred setup
    intent's default, as Stripe's, is card."""
    sheet = sheet_factory(types=None).load()
    ordered = sheet.elements_session["ordered_payment_method_types"]
    assert "card" in ordered
    assert "us_bank_account" not in ordered


def test_the_sheet_offers_only_the_requested_types(sheet_factory):
    """`deferred_intent[payment_method_types][i]` means something: the sheet's add screen offers the
    listed types (CustomerSheet.IntentConfiguration / StripeCustomerAdapter paymentMethodTypes), so the
    answer's ordered_payment_method_types is limited to them."""
    sheet = sheet_factory(types=["card"]).load()
    assert sheet.elements_session["ordered_payment_method_types"] == ["card"]


def test_the_elements_session_answers_what_the_parser_reads(sheet_factory):
    """ElementsSessionJsonParser (id 3483439144): the optional keys it reads have its types; Link off
    (CustomerSheet never uses Link; PaymentSheet reads link_settings)."""
    sheet = sheet_factory().load()
    session = sheet.elements_session
    assert session["config_id"] is None or isinstance(session["config_id"], str)
    assert isinstance(session["card_brand_choice"]["eligible"], bool)
    assert "link" not in session["ordered_payment_method_types"]  # Link off: CustomerSheet has no Link
    assert session["google_pay_preference"] in (None, "enabled", "disabled")


# --------------------------------------------------------------------------------------------------
# Add
# --------------------------------------------------------------------------------------------------


def test_add_a_card(sheet_factory, backend, sdk):
    """Add: POST /v1/payment_methods (pk; type, card[...], billing_details[address][...], allow_redisplay,
    client_attribution_metadata[...], payment_user_agent, muid, guid, sid), GET /v1/setup_intents/{id}
    ?client_secret (pk), POST /v1/setup_intents/{id}/confirm (pk; client_secret, use_stripe_sdk,
    return_url, payment_method, expand[]), then the list again (CustomerSheetViewModel.createAndAttach)."""
    sheet = sheet_factory().load()
    added = sheet.add(card_form(VISA, sheet.allow_redisplay))
    assert added.payment_method["customer"] is None
    assert added.payment_method["allow_redisplay"] == sheet.allow_redisplay
    assert added.payment_method["card"]["last4"] == "4242" and added.payment_method["card"]["brand"] == "visa"
    assert added.intent["status"] == "succeeded"
    assert added.intent["payment_method_id"] == added.payment_method["id"]
    assert sheet.shown() == [(added.payment_method["id"], "visa •••• 4242")]
    assert backend.attached(sheet.customer) == [added.payment_method["id"]]
    create_body = urllib.parse.parse_qs(next(body for method, url, body, _ in sdk.sent
                                             if method == "POST" and url.endswith("/v1/payment_methods")))
    assert create_body["payment_user_agent"] == [f"stripe-android/{android.SDK_VERSION};CustomerSheet;PaymentSheet"]
    assert set(create_body) >= {"muid", "guid", "sid", "client_attribution_metadata[client_session_id]"}


def test_add_a_card_that_needs_3d_secure(sheet_factory, backend):
    """3D Secure: the confirmation answers requires_action with next_action.redirect_to_url (url and the
    SDK's return_url); the browser GETs the page and POSTs its complete form, which redirects to the
    return_url; PaymentLauncher then GETs the intent with expand[]=payment_method (succeeded)."""
    sheet = sheet_factory().load()
    added = sheet.add(card_form(THREE_D_SECURE, sheet.allow_redisplay))
    assert added.intent["status"] == "requires_action"
    assert added.intent["next_action"]["type"] == "redirect_to_url"
    assert added.intent["next_action"]["return_url"] == android.RETURN_URL
    assert backend.attached(sheet.customer) == []
    location = authenticate_in_browser(added.intent["next_action"]["url"], "complete")
    assert location == android.RETURN_URL
    done = sheet.finish_add(added)
    assert done["status"] == "succeeded" and done["next_action"] is None
    assert done["payment_method_id"] == added.payment_method["id"]
    assert sheet.shown() == [(added.payment_method["id"], "visa •••• 3155")]


def test_add_a_declined_card(sheet_factory, backend):
    """Decline: the payment method is created (no check at creation), the confirmation is a 402
    card_error whose envelope StripeErrorJsonParser reads (message shown in the sheet), the intent goes
    back to requires_payment_method with last_setup_error, and nothing is saved."""
    sheet = sheet_factory().load()
    with pytest.raises(AndroidApiError) as refused:
        sheet.add(card_form(DECLINED, sheet.allow_redisplay))
    assert refused.value.status == 402
    error = android.parse_error(refused.value.body)
    assert (error["type"], error["code"], error["decline_code"]) == ("card_error", "card_declined", "generic_decline")
    intent = sheet.sdk.retrieve_setup_intent(sheet.last_client_secret)
    assert intent["status"] == "requires_payment_method"
    assert intent["last_setup_error"]["decline_code"] == "generic_decline"
    sheet.refresh()
    assert sheet.payment_methods == []
    assert backend.attached(sheet.customer) == []


def test_add_a_sepa_debit_account(sheet_factory, backend, sdk):
    """SEPA: POST /v1/payment_methods with type=sepa_debit, sepa_debit[iban], billing_details[name|email|
    address], then the confirmation with mandate_data[customer_acceptance][type]=online and
    [online][infer_from_client]=true (MandateDataParams(Online.DEFAULT), ConfirmSetupIntentParams @0326dadc)."""
    sheet = sheet_factory().load()
    added = sheet.add(sepa_form(sheet.allow_redisplay))
    confirm_body = urllib.parse.parse_qs(next(body for method, url, body, _ in reversed(sdk.sent)
                                              if url.endswith("/confirm")))
    assert confirm_body["mandate_data[customer_acceptance][online][infer_from_client]"] == ["true"]
    assert added.intent["status"] == "succeeded"
    assert added.payment_method["sepa_debit"]["last4"] == "3000"
    assert sheet.shown() == [(added.payment_method["id"], "sepa_debit ••••3000")]
    assert backend.attached(sheet.customer) == [added.payment_method["id"]]


# --------------------------------------------------------------------------------------------------
# Remove, update, select, reload
# --------------------------------------------------------------------------------------------------


def test_remove_a_card_and_its_duplicates(sheet_factory, backend):
    """Remove: GET /v1/payment_methods?customer&type=card&limit=100 with the customer's key, then a
    detach of every card with the chosen card's fingerprint, the chosen one last: POST
    /v1/payment_methods/{id}/detach (adapter, ephemeral key, no parameters) or POST
    /v1/elements/payment_methods/{id}/detach with customer_session_client_secret (session's key)."""
    sheet = sheet_factory().load()
    first = sheet.add(card_form(VISA, sheet.allow_redisplay)).payment_method["id"]
    second = sheet.add(card_form(VISA, sheet.allow_redisplay)).payment_method["id"]
    other = sheet.add(card_form(MASTERCARD, sheet.allow_redisplay)).payment_method["id"]
    assert set(sheet.ids()) == {first, second, other}
    removed = sheet.remove(first)
    assert sorted(removed) == sorted([first, second]) and removed[-1] == first
    assert backend.attached(sheet.customer) == [other]
    sheet.load()
    assert sheet.ids() == [other]


def test_remove_a_sepa_debit_account(sheet_factory, backend):
    """A bank debit is not in the card list, so it is detached alone (detachPaymentMethodAndDuplicates'
    fallback `detachSingle(paymentMethodId)`)."""
    sheet = sheet_factory().load()
    account = sheet.add(sepa_form(sheet.allow_redisplay)).payment_method["id"]
    assert sheet.remove(account) == [account]
    assert backend.attached(sheet.customer) == []


def test_update_a_cards_expiry(sheet_factory):
    """Update: POST /v1/payment_methods/{id} with the customer's key, card[exp_month], card[exp_year] and
    payment_user_agent (PaymentMethodUpdateParams.createCard, productUsageTokens {CustomerSheet}). The
    session integration's sheet offers it (canUpdateFullPaymentMethodDetails = true); the adapter's
    sheet offers brand choice only, but StripeCustomerAdapter.updatePaymentMethod sends the same."""
    sheet = sheet_factory().load()
    card = sheet.add(card_form(VISA, sheet.allow_redisplay, exp_month=3)).payment_method["id"]
    updated = sheet.update_card(card, {"exp_month": 7, "exp_year": THIS_YEAR + 7})
    assert (updated["card"]["exp_month"], updated["card"]["exp_year"]) == (7, THIS_YEAR + 7)
    sheet.load()
    assert (sheet.method(card)["card"]["exp_month"], sheet.method(card)["card"]["exp_year"]) == (7, THIS_YEAR + 7)


def test_choose_the_network_of_a_co_badged_card(sheet_factory):
    """Card brand choice: a Cartes Bancaires / Visa card lists both networks in card.networks.available;
    with card_brand_choice.eligible the sheet lets the customer pick one and sends
    card[networks][preferred] (CustomerSheetViewModel.modifyCardPaymentMethod)."""
    sheet = sheet_factory().load()
    assert sheet.elements_session["card_brand_choice"]["eligible"] is True, \
        "card_brand_choice.eligible is false: the sheet never offers the network choice"
    card = sheet.add(card_form(CARTES_BANCAIRES_VISA, sheet.allow_redisplay)).payment_method
    assert {"visa", "cartes_bancaires"} <= set(card["card"]["networks"]["available"])
    updated = sheet.update_card(card["id"], {"networks": {"preferred": "cartes_bancaires"}})
    assert updated["card"]["networks"]["preferred"] == "cartes_bancaires"
    assert updated["card"]["display_brand"] == "cartes_bancaires"
    sheet.load()
    assert sheet.method(card["id"])["card"]["networks"]["preferred"] == "cartes_bancaires"


def test_select_a_default_and_reload(sheet_factory, integration, sdk):
    """Select, then reload what the sheet shows. Adapter: the selection stays on the device
    (SharedPreferences; no request) and the reload lists the methods again. Customer session with
    payment_method_sync_default: POST /v1/elements/customers/{cus}/set_default_payment_method
    (payment_method, session's key; answer parsed by CustomerJsonParser), and the reload's
    customer.default_payment_method is the selection."""
    sheet = sheet_factory().load()
    first = sheet.add(card_form(VISA, sheet.allow_redisplay)).payment_method["id"]
    second = sheet.add(sepa_form(sheet.allow_redisplay)).payment_method["id"]
    sent_before = len(sdk.sent)
    sheet.select(first)
    if integration == "adapter":
        assert len(sdk.sent) == sent_before  # nothing leaves the device
    else:
        method, url, body, headers = sdk.sent[-1]
        assert url.endswith(f"/v1/elements/customers/{sheet.customer}/set_default_payment_method")
        assert urllib.parse.parse_qs(body) == {"payment_method": [first]}
    reloaded = INTEGRATIONS[integration](sdk, sheet.backend, sheet.customer)
    if integration == "adapter":
        reloaded.select(first)  # what the device remembers
    reloaded.load()
    assert set(reloaded.ids()) == {first, second}
    assert reloaded.selection == first
    if integration == "customer_session":
        assert reloaded.elements_session["customer"]["default_payment_method"] == first


def test_a_session_without_sync_default_sends_the_devices_choice(sdk, backend):
    """Customer session without payment_method_sync_default: the selection is kept on the device and
    sent as `client_default_payment_method` on the next elements session (DefaultCustomerSessionElements
    SessionManager: prefsRepository.getSavedSelection), which must keep that method in the answer."""
    features = {"payment_method_remove": "enabled", "payment_method_remove_last": "enabled"}
    sheet = SessionSheet(sdk, backend, backend.create_customer(), features=features).load()
    assert not sheet.syncs_default
    first = sheet.add(card_form(VISA, sheet.allow_redisplay)).payment_method["id"]
    sheet.add(card_form(MASTERCARD, sheet.allow_redisplay))
    sheet.select(first)
    sheet.load()
    method, url, body, headers = sdk.sent[-1]
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)["client_default_payment_method"] == [first]
    assert first in sheet.ids() and sheet.selection == first


def test_a_session_key_removes_nothing_without_the_remove_feature(sdk, backend):
    """payment_method_remove disabled: the sheet hides removal (CustomerSessionInitializationDataSource
    -> PaymentMethodRemovePermission.None) and the server refuses a detach with the session's key."""
    features = {"payment_method_remove": "disabled", "payment_method_sync_default": "enabled"}
    sheet = SessionSheet(sdk, backend, backend.create_customer(), features=features).load()
    card = sheet.add(card_form(VISA, sheet.allow_redisplay)).payment_method["id"]
    components = sheet.elements_session["customer"]["customer_session"]["components"]
    assert components["customer_sheet"]["payment_method_remove"] == "disabled"
    with pytest.raises(AndroidApiError) as refused:
        sheet.remove(card)
    assert refused.value.status in (400, 403)
    assert backend.attached(sheet.customer) == [card]


# --------------------------------------------------------------------------------------------------
# Parsers against hand-made answers (what each one rejects), and PaymentSheet's legacy key
# --------------------------------------------------------------------------------------------------


def test_the_mirrored_parsers_reject_what_android_rejects():
    with pytest.raises(AndroidParseError, match="payment_method_preference"):
        android.parse_elements_session({"session_id": "es_1", "payment_method_preference": {"object": "x"}})
    with pytest.raises(AndroidParseError, match="customer_sheet"):
        android.parse_elements_session({
            "session_id": "es_1",
            "payment_method_preference": {"object": "payment_method_preference", "ordered_payment_method_types": []},
            "customer": {"payment_methods": [], "customer_session": {
                "api_key": "ek_test_1", "api_key_expiry": 1, "customer": "cus_1",
                "components": {"mobile_payment_element": {"enabled": False}}}},
        }, customer_expected=True)
    with pytest.raises(AndroidParseError, match="SetupIntent"):
        android.parse_setup_intent({"object": "payment_intent", "id": "pi_1"})
    with pytest.raises(AndroidParseError, match="supported"):
        android.parse_payment_method({"id": "pm_1", "type": "us_bank_account", "created": 1,
                                      "us_bank_account": {"last4": "6789", "networks": {"preferred": "ach"}}})
    with pytest.raises(AndroidParseError, match="customer.object"):
        android.parse_customer({"id": "cus_1", "object": "list"})


def test_payment_sheet_sends_the_legacy_ephemeral_key(sdk, backend):
    """PaymentSheet (not CustomerSheet) with CustomerConfiguration(id, ephemeralKeySecret) in deferred
    setup mode sends `legacy_customer_ephemeral_key` to the same endpoint (toElementsSessionParams).
    The Android parser reads `customer` only with a `customer_session`, so the answer must parse, and
    Purse answers the legacy customer's saved methods there as Stripe does."""
    customer = backend.create_customer()
    session = sdk.payment_sheet_elements_session(backend.ephemeral_key(customer), SHEET_TYPES)
    assert "card" in session["ordered_payment_method_types"]
