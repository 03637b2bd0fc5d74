"""stripe-ios's CustomerSheet on the wire: requests built as the SDK builds them, and the checks its
decoders make on the answers.

Everything here is reconstructed from stripe-ios sources (github.com/stripe/stripe-ios) as the
search index holds them; `SOURCES` names each file with the commit it was read at (or, where the
index gave a file version without naming its commit, the index's file id and a phrase that
identifies the version). docs/replays/stripe-ios.md lists the requests per flow. The code read is
the index's newest (2026, the 26.x line: `STPPaymentHandler+IntentRetrieval.swift` carries
"Copyright 2026", the elements-session "mobile session contract" exists); the index does not hold
the VERSION file at those commits, so `SDK_VERSION` is the newest release Stripe published by then
(stripe-react-native 0.85.1, 2026-11-10, ships stripe-ios 26.16.1).

Encoding (`URLEncoder.queryString(from:)`, StripeCore): top-level keys sorted, nested hash keys
sorted and written `a[b]` with raw brackets, arrays `a[0]`, booleans `true`/`false`, values
percent-encoded with RFC 3986 query characters minus `:#[]@!$&'()*+,;=` (so `/` and `?` stay
raw, a space is `%20`). GET parameters go in the query string (`stp_addParameters(toURL:)`, raw
brackets), POST parameters in an `application/x-www-form-urlencoded` body.

Every request is recorded into conftest's SENT_CARD_DATA (URL and body) and SECRETS_SEEN
(Authorization header and response body), as RecordingHTTPClient does for stripe-python.

US bank accounts (issue 30) go through Financial Connections: `STPBankAccountCollector` creates a
link account session for the sheet's setup intent, then the full Financial Connections SDK
(`FinancialConnectionsSDKImplementation`) or FC Lite (`FCLiteImplementation`) synchronizes it,
opens the hosted page (`manifest.hosted_auth_url`) in a browser (ASWebAuthenticationSession /
WKWebView) and reads the session back (`session_receipt`, FC Lite's `complete`); the sheet then
confirms the setup intent with `payment_method_data[us_bank_account][link_account_session]`.
`collect_bank_account` plays that whole exchange, html_forms.py's `BankPage` as `SAFARI` the
browser on Purse's test-bank page (the form, then the result page and the customer's tap on its
link back to the app); the `FC_SOURCES` part of `SOURCES` names the files read."""
import json
import secrets
import urllib.parse
import uuid
from dataclasses import dataclass, field

import requests

from conftest import SECRETS_SEEN, SENT_CARD_DATA
from html_forms import BankPage, Browser

SDK_VERSION = "26.16.1"
API_VERSION = "2020-08-27"  # STPAPIClient.swift, `private let APIVersion`
RETURN_URL = "purse-example://stripe-redirect"  # CustomerSheet.Configuration.returnURL of the example app
APP_BUNDLE_ID = "com.example.purse"  # Bundle.main.bundleIdentifier -> `mobile_app_id`
LOCALE = "en-US"  # Locale.current.toLanguageTag()
SUPPORTED_TYPES = ["card", "us_bank_account", "sepa_debit"]  # CustomerSheet.supportedPaymentMethods
# APIVersion.swift (StripeFinancialConnections): `financial_connections_client_api_beta=v\(apiVersion)`, apiVersion 1.
FC_BETA = "financial_connections_client_api_beta=v1"

# Where each reconstructed behaviour comes from: repository stripe/stripe-ios, path, commit (or
# index file id when the index gave no commit for the newest version it holds).
SOURCES = {
    "STPAPIClient": ("StripeCore/StripeCore/Source/API Bindings/STPAPIClient.swift",
                     "c57767ad4f123ff9f98a76fedbd96435fb3e20d0"),
    "URLEncoder": ("StripeCore/StripeCore/Source/Helpers/URLEncoder.swift",
                   "57907e92acd625f5b58fb39f7cbbc0c09d100450"),
    "stp_addParameters": ("StripeCore/StripeCore/Source/Categories/URLRequest+Stripe.swift",
                          "index id 957680532 (the CFURLCreateWithString version)"),
    "AnalyticsHelper": ("StripeCore/StripeCore/Source/Analytics/AnalyticsHelper.swift",
                        "4d42156e11e3140192596b9056d24f15e81676ba"),
    "PaymentsSDKVariant": ("StripeCore/StripeCore/Source/Helpers/PaymentsSDKVariant.swift",
                           "e25ba80796c2585030b9aa15b710798959285b90"),
    "STPClientAttributionMetadata": ("StripeCore/StripeCore/Source/API Bindings/STPClientAttributionMetadata.swift",
                                     "db0c34382d385196cac4c0f823144f1752fd0b1f"),
    "STPClientAttributionMetadata+STPFormEncodable": (
        "StripePayments/StripePayments/Source/API Bindings/Models/PaymentMethods/"
        "STPClientAttributionMetadata+STPFormEncodable.swift", "3913c218b7b3491a7adef149664fad02363e3b28"),
    "STPTelemetryClient": ("StripeCore/StripeCore/Source/Telemetry/STPTelemetryClient.swift",
                           "index id 53275658741 (the @MainActor version)"),
    "StripeAPIError": ("StripeCore/StripeCore/Source/API Bindings/StripeServiceError.swift",
                       "02e11878aa25b28bc3faa087f4feda499b1d064d"),
    "STPAPIClient+Payments": ("StripePayments/StripePayments/Source/API Bindings/STPAPIClient+Payments.swift",
                              "04f36a2f60da27fc2cf7bf039f5668852074e707"),
    "APIRequest": ("StripePayments/StripePayments/Source/API Bindings/APIRequest.swift", "index id 331486434"),
    "STPFormEncoder": ("StripePayments/StripePayments/Source/API Bindings/STPFormEncoder.swift", "index id 151809191"),
    "STPSetupIntentConfirmParams": (
        "StripePayments/StripePayments/Source/API Bindings/Models/SetupIntents/STPSetupIntentConfirmParams.swift",
        "00c6f77512902c1b7e62333d0835f008c63a5b29"),
    "STPPaymentMethodParams": (
        "StripePayments/StripePayments/Source/API Bindings/Models/PaymentMethods/STPPaymentMethodParams.swift",
        "04295bb1deab580921b64b699f2b44bda23661e1"),
    "STPMandateDataParams": ("StripePayments/.../STPMandateDataParams.swift + STPMandateOnlineParams.swift",
                             "index ids 2151653737, 64358868"),
    "STPPaymentMethodUpdateParams": (
        "StripePayments/StripePayments/Source/API Bindings/Models/PaymentMethods/STPPaymentMethodUpdateParams.swift",
        "12c3c56a17c522c756521507a9fb1abe290d599f"),
    "STPPaymentMethod": (
        "StripePayments/StripePayments/Source/API Bindings/Models/PaymentMethods/STPPaymentMethod.swift",
        "00c6f77512902c1b7e62333d0835f008c63a5b29"),
    "STPPaymentMethodCard": (
        "StripePayments/StripePayments/Source/API Bindings/Models/PaymentMethods/Types/STPPaymentMethodCard.swift",
        "d10d13b57283659c970a534ee676a38d4c842de0"),
    "STPPaymentMethodCardNetworks": (
        "StripePayments/StripePayments/Source/API Bindings/Models/PaymentMethods/Types/STPPaymentMethodCardNetworks.swift",
        "b456e2e1c985aa2331a2e5b23e26326b85828b89"),
    "STPPaymentMethodSEPADebit": ("Stripe/STPPaymentMethodSEPADebit.swift", "index id 62671419"),
    "STPPaymentMethodListDeserializer": ("StripePayments/.../STPPaymentMethodListDeserializer.swift",
                                         "index id 197622903"),
    "STPSetupIntent": ("StripePayments/StripePayments/Source/API Bindings/Models/SetupIntents/STPSetupIntent.swift",
                       "043769808e11b06aa8d7abb2942ca38894352f81"),
    "STPIntentActionRedirectToURL": ("StripePayments/.../STPIntentActionRedirectToURL.swift", "index id 388626095"),
    "STPCustomer": ("StripePayments/.../STPCustomer.swift", "index id 313324904"),
    "STPPaymentHandler+PaymentAPI": ("StripePayments/.../STPPaymentHandler+PaymentAPI.swift",
                                     "index id 14078817469"),
    "STPPaymentHandler+IntentRetrieval": ("StripePayments/.../STPPaymentHandler+IntentRetrieval.swift",
                                          "index ids 14134853264, 14634954713"),
    "STPAPIClient+PaymentSheet": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/STPAPIClient+PaymentSheet.swift",
        "cf3a5e42e081b623688e333546d339dc0dd811c3"),
    "MobileSessionV1": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/v1-elements-sessions/MobileSessionV1.swift",
        "81349f474b31eaca973e829d367bb7eded955699"),
    "STPElementsSession": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/v1-elements-sessions/STPElementsSession.swift",
        "index id 1370920195 (the version reading config_id and passive_captcha)"),
    "ElementsCustomer": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/v1-elements-sessions/ElementsCustomer.swift",
        "index id 1240226245 (the version with enableLinkInSPM and isLinkOrigin)"),
    "CustomerSession": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/v1-elements-sessions/CustomerSession.swift",
        "02937540eeb67bef716e367cb7fc9c45e4ac25b1"),
    "STPPaymentMethodRemove": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/v1-elements-sessions/STPPaymentMethodRemove.swift",
        "5e519a54d30a52abb8b593daa8a44e18b7424fd0"),
    "STPCardBrandChoice": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/v1-elements-sessions/STPCardBrandChoice.swift",
        "02b449f44f684eb14eb453168a5dd9d9d2b93ef7"),
    "PaymentMethodWithLinkDetails": (
        "StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/v1-elements-sessions/"
        "PaymentMethodWithLinkDetails.swift", "0b4ffa8fcce715afeee44694d04a63a07fadd13b"),
    "LinkSettings": ("StripePaymentSheet/.../LinkSettings.swift", "index id 2304817238"),
    "CustomerSheet": ("StripePaymentSheet/StripePaymentSheet/Source/PaymentSheet/CustomerSheet/CustomerSheet.swift",
                      "c57767ad4f123ff9f98a76fedbd96435fb3e20d0"),
    "CustomerSheet+API": (
        "StripePaymentSheet/StripePaymentSheet/Source/PaymentSheet/CustomerSheet/CustomerSheet+API.swift",
        "026323136e484e8e680bdfc52c9ac9dc10d2fe1e"),
    "CustomerSheetDataSource": (
        "StripePaymentSheet/StripePaymentSheet/Source/PaymentSheet/CustomerSheet/CustomerSheetDataSource.swift",
        "e79544556c8f7fc9763eafcac81378cf7675ccfa"),
    "CustomerSessionAdapter": ("StripePaymentSheet/.../CustomerSheet/CustomerSessionAdapter.swift",
                               "index id 98475479; cache per CustomerSessionAdapterTests index id 69382031782"),
    "StripeCustomerAdapter": ("StripePaymentSheet/.../CustomerSheet/CustomerAdapter.swift", "index id 190112868"),
    "CustomerSavedPaymentMethodsViewController": (
        "StripePaymentSheet/.../CustomerSheet/CustomerSavedPaymentMethodsViewController.swift", "index id 1166335451"),
    "IntentConfirmParams": ("StripePaymentSheet/.../IntentConfirmParams.swift (setAllowRedisplayForCustomerSheet)",
                            "index id 2040605213"),
    "UpdatePaymentMethodViewController": ("StripePaymentSheet/.../UpdatePaymentMethodViewController.swift",
                                          "index id 525694215; caller index id 204223124"),
    "CardExpiryDate": ("StripePaymentSheet/StripePaymentSheet/Source/Internal/API Bindings/VO/CardExpiryDate.swift",
                       "1febdd50296e57a0036a57e7ad7b9b75408bcad6"),
}

# Financial Connections (issue 30): the files behind the us_bank_account flow. The index holds no
# full mirror of stripe-ios (the snapshot is over the fetch limit); where it gave a file version
# without its commit, the index file id is given, as above.
FC_SOURCES = {
    "StripeJSONDecoder": ("StripeCore/StripeCore/Source/Coder/StripeJSONDecoder.swift",
                          "d10d13b57283659c970a534ee676a38d4c842de0 (index id 1045519531)"),
    "STPAPIClient.defaultHeaders": ("StripeCore/StripeCore/Source/API Bindings/STPAPIClient.swift "
                                    "(`stripeVersion += \"; \\(beta)\"` per beta)",
                                    "c57767ad4f123ff9f98a76fedbd96435fb3e20d0 (index id 360353927)"),
    "STPAPIClient+LinkAccountSession": (
        "StripePayments/StripePayments/Source/API Bindings/STPAPIClient+LinkAccountSession.swift",
        "d6aec539708c9821f61f095642594b1b9ba6176d (index id 1049124954)"),
    "LinkAccountSession": ("StripePayments/StripePayments/Source/API Bindings/Models/ACH/LinkAccountSession.swift",
                           "66d2625442dc9a0be6257cb9c1b7473e8181c2b7 (index id 32987218102)"),
    "CustomerAddPaymentMethodViewController": (
        "StripePaymentSheet/.../CustomerSheet/CustomerAddPaymentMethodViewController.swift "
        "(handleCollectBankAccount: hosted_surface=customer_sheet, returnURL: configuration.returnURL)",
        "index id 1853013562"),
    "STPBankAccountCollector": ("StripePayments/.../STPBankAccountCollector.swift (init(style:) -> STPAPIClient.shared)",
                                "newest not in the index; STPBankAccountCollectorTests index id 58212332447"),
    "FinancialConnectionsSDKAvailability": (
        "StripePayments/StripePayments/Source/Internal/Helpers/ConnectionsSDKAvailability.swift",
        "03f568398a69e154dd3f6b91bfa9e837b29c0335 (index id 56578359254)"),
    "APIVersion.configureFinancialConnectionsAPIVersion": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/API Bindings/APIVersion.swift",
        "11eb6e0a9301a16258fb648ed7cb92688ed43279 (index id 14656625513)"),
    "FinancialConnectionsSDKImplementation": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/FinancialConnectionsSDKImplementation.swift",
        "index id 1199056662"),
    "FinancialConnectionsAsyncAPIClient": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/API Bindings/FinancialConnectionsAsyncAPIClient.swift",
        "c57767ad4f123ff9f98a76fedbd96435fb3e20d0 (index id 878675811)"),
    "FinancialConnectionsSynchronize": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/API Bindings/Models/FinancialConnectionsSynchronize.swift",
        "eb7016c80334d7bb856bcd2eff7364fa58f14325 (index id 812650865)"),
    "FinancialConnectionsSessionManifest": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/API Bindings/Models/"
        "FinancialConnectionsSessionManifest.swift", "c57767ad4f123ff9f98a76fedbd96435fb3e20d0 (index id 592433961)"),
    "StripeAPI.FinancialConnectionsSession": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/API Bindings/Models/FinancialConnectionsSession.swift",
        "3f81185e485e2d01607543e494e725de66482a57 (index id 570376306)"),
    "StripeAPI.FinancialConnectionsAccount": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/API Bindings/Models/FinancialConnectionsAccount.swift",
        "4104058edb84fcfc87bdd961b3085c74fd9aaac8 (index id 873594194)"),
    "FlowRouter": ("StripeFinancialConnections/StripeFinancialConnections/Source/Common/FlowRouter.swift",
                   "c57767ad4f123ff9f98a76fedbd96435fb3e20d0 (index id 268611827)"),
    "FinancialConnectionsWebFlowViewController": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/Web/FinancialConnectionsWebFlowViewController.swift",
        "c57767ad4f123ff9f98a76fedbd96435fb3e20d0 (index id 945286287)"),
    "AuthenticationSessionManager": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/Web/AuthenticationSessionManager.swift",
        "c57767ad4f123ff9f98a76fedbd96435fb3e20d0 (index id 877766066)"),
    "FinancialConnectionsSessionAPIFetcher": (
        "StripeFinancialConnections/StripeFinancialConnections/Source/Web/FinancialConnectionsSessionFetcher.swift",
        "54e44219beb39ff71dc04d7384b0bfff35e472b0 (index id 1134215691)"),
    "HostedAuthUrlBuilder": ("StripeCore/.../HostedAuthUrlBuilder.swift",
                             "index id 58384445845 (the version with hasExistingAccountholderToken)"),
    "FCLiteAPIClient": (
        "StripeFinancialConnectionsLite/StripeFinancialConnectionsLite/Source/API Client/FCLiteApiClient.swift",
        "04295bb1deab580921b64b699f2b44bda23661e1 (index id 69451975453)"),
    "FCLite.LinkAccountSessionManifest": (
        "StripeFinancialConnectionsLite/StripeFinancialConnectionsLite/Source/Models/FCLiteManifest.swift",
        "d6d91561bd3a5637895b2be45751e6d9031d72a6 (index id 56257130767)"),
    "FCLite.FinancialConnectionsSession": (
        "StripeFinancialConnectionsLite/StripeFinancialConnectionsLite/Source/Models/FCLiteSession.swift",
        "d6d91561bd3a5637895b2be45751e6d9031d72a6 (index id 56604729012)"),
    "FCLiteContainerViewController": (
        "StripeFinancialConnectionsLite/StripeFinancialConnectionsLite/Source/Controllers/FCLiteContainerViewController.swift",
        "17cfc756d67b6ac2779c40733fab61a7b060d1e2 (index id 58216938136)"),
    "FCLiteAuthFlowViewController": (
        "StripeFinancialConnectionsLite/StripeFinancialConnectionsLite/Source/Controllers/FCLiteAuthFlowViewController.swift",
        "04e2e62560dc5d5687426bede660e4462edfa87a (index id 56172346382)"),
    "URL.matchesSchemeHostAndPath": (
        "StripeFinancialConnectionsLite/StripeFinancialConnectionsLite/Source/Helpers/URL+MatchesSchemeHostAndPath.swift",
        "d6d91561bd3a5637895b2be45751e6d9031d72a6 (index id 56304513954)"),
    "USBankAccountPaymentMethodElement": ("StripePaymentSheet/.../USBankAccountPaymentMethodElement.swift "
                                          "(updateParams sets link_account_session)", "index id 408819556"),
    "STPPaymentMethodUSBankAccountParams": (
        "StripePayments/StripePayments/Source/API Bindings/Models/PaymentMethods/Types/STPPaymentMethodUSBankAccountParams.swift",
        "2b382176e767c6d4b432b6a64ff9236a05697492 (index id 6470233078)"),
    "STPPaymentMethodUSBankAccount": (
        "StripePayments/.../Models/PaymentMethods/Types/STPPaymentMethodUSBankAccount.swift", "index id 37455794"),
    "STPPaymentHandler+IntentStatus": (
        "StripePayments/StripePayments/Source/PaymentHandler/STPPaymentHandler+IntentStatus.swift",
        "5e5d6fb5d525d0c2a016ab27613fa4aa712fed6f (index id 14880839293)"),
    "customerSheetSupportedPaymentMethodTypesForAdd": (
        "StripePaymentSheet/.../CustomerSheet/CustomerSheet+PaymentMethodAvailability.swift", "index id 456354855"),
}
SOURCES.update(FC_SOURCES)


def cite(symbol):
    path, commit = SOURCES[symbol]
    return f"stripe-ios {path} @ {commit}, {symbol}"


# Encoding: URLEncoder.swift @ 57907e92 (queryComponents / escape / query)


def escape(text):
    """`escape(_:)`: `CharacterSet.urlQueryAllowed` minus `:#[]@!$&'()*+,;=`, which leaves the
    RFC 3986 unreserved characters plus `/` and `?`."""
    return urllib.parse.quote(text, safe="-._~/?")


def _components(key, value):
    """`queryComponents(fromKey:value:)`."""
    if isinstance(value, dict):
        out = []
        for nested in sorted(value):
            out += _components(f"{key}[{escape(nested)}]", value[nested])
        return out
    if isinstance(value, (list, tuple)):
        out = []
        for index, element in enumerate(value):
            out += _components(f"{key}[{index}]", element)
        return out
    if isinstance(value, bool):
        return [(key, "true" if value else "false")]
    return [(key, escape(str(value)))]


def query_string(parameters):
    """`URLEncoder.queryString(from:)`: top-level keys sorted, `key=value` joined by `&`. A nil
    value never reaches it (Swift dictionaries drop nil), so `None` values are dropped here."""
    parameters = _drop_none(parameters)
    parts = []
    for key in sorted(parameters):
        parts += _components(escape(key), parameters[key])
    return "&".join(f"{k}={v}" for k, v in parts)


def _drop_none(value):
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


# The device: what an install of the app sends with every request


@dataclass
class Device:
    """One install of the example app on an iPhone. `mobile_session_id` is
    `AnalyticsHelper.generateSessionID()` (a lowercased UUID, new at each CustomerSheet init);
    muid/guid/sid are `STPTelemetryClient.fraudDetectionData()` (fetched from m.stripe.com, which
    the SDK always calls, so a device pointed at Purse still has them)."""

    vendor_identifier: str = field(default_factory=lambda: str(uuid.uuid4()).upper())
    muid: str = field(default_factory=lambda: str(uuid.uuid4()) + secrets.token_hex(3))
    guid: str = field(default_factory=lambda: str(uuid.uuid4()) + secrets.token_hex(3))
    sid: str = field(default_factory=lambda: str(uuid.uuid4()) + secrets.token_hex(3))
    mobile_session_id: str = field(default_factory=lambda: str(uuid.uuid4()).lower())
    # CustomerPaymentOption.setDefaultPaymentMethod: UserDefaults
    # `com.stripe.lib:STPStripeCustomerToLastSelectedPaymentMethodKey`, per customer id.
    local_default: dict = field(default_factory=dict)

    def x_stripe_user_agent(self):
        """`STPAPIClient.stripeUserAgentDetails(with:)`: a JSON object (key order is whatever
        JSONSerialization writes; sorted here)."""
        return json.dumps({
            "bindings_version": SDK_VERSION, "lang": "objective-c", "model": "iPhone", "os_version": "18.1",
            "type": "iPhone16,2", "vendor_identifier": self.vendor_identifier,
        }, separators=(",", ":"), sort_keys=True)


@dataclass
class Reply:
    method: str
    path: str
    url: str
    body: str
    request_headers: dict
    status: int
    headers: dict
    text: str

    def json(self):
        return json.loads(self.text)


class SDKClient:
    """`STPAPIClient` (StripeCore) with the legacy `APIRequest` (StripePayments) that every
    CustomerSheet call goes through. Headers (`defaultHeaders(ephemeralKeySecret:)` +
    `authorizationHeader(using:)`): `X-Stripe-User-Agent`, `Stripe-Version: 2020-08-27` (no
    betas are set by CustomerSheet), `Authorization: Bearer <publishable key, or the ephemeral /
    session key for customer calls>`; POSTs add `Content-Type: application/x-www-form-urlencoded`
    and `Content-Length` (`stp_setFormPayload`). `User-Agent`, `Accept`, `Accept-Language` and
    `Accept-Encoding` are URLSession's defaults (`StripeAPIConfiguration.sharedUrlSessionConfiguration
    = .default`)."""

    def __init__(self, base, publishable_key, device, product_usage):
        self.base = base.rstrip("/")
        self.publishable_key = publishable_key
        self.device = device
        self.product_usage = list(product_usage)
        self.log = []
        self.http = requests.Session()
        # `STPAPIClient.betas` (a Set<String>): empty for CustomerSheet until the Financial
        # Connections SDK inserts its beta (`configure_financial_connections_api_version`).
        self.betas = set()

    @property
    def payment_user_agent(self):
        """`PaymentsSDKVariant.paymentUserAgent`: `stripe-ios/<version>; variant.paymentsheet;`
        then `STPAnalyticsClient.productUsage` (a Set: its order is not defined)."""
        return "; ".join([f"stripe-ios/{SDK_VERSION}", "variant.paymentsheet", *self.product_usage])

    def headers(self, key=None, extra=None):
        headers = {
            "Accept": "*/*",
            "Accept-Language": "en-US,en;q=0.9",
            "Accept-Encoding": "gzip, deflate, br",
            "User-Agent": "PurseExample/1 CFNetwork/1568.200.51 Darwin/24.1.0",
            "X-Stripe-User-Agent": self.device.x_stripe_user_agent(),
            # `defaultHeaders`: `stripeVersion += "; \(beta)"` for each beta of the Set (one here).
            "Stripe-Version": API_VERSION + "".join(f"; {beta}" for beta in sorted(self.betas)),
            "Authorization": "Bearer " + (key or self.publishable_key),
        }
        headers.update(extra or {})
        return headers

    def _send(self, method, path, headers, query=None, body=None):
        url = self.base + "/v1/" + path
        if query is not None:
            url += "?" + query  # stp_addParameters(toURL:): "?" then the query, raw brackets
        request = requests.Request(method, self.base + "/", headers=headers).prepare()
        request.url = url  # exactly these bytes, not requests' re-quoting
        if body is not None:
            request.body = body.encode("utf-8")
            request.headers["Content-Length"] = str(len(request.body))
        else:
            request.headers.pop("Content-Length", None)
        SENT_CARD_DATA.record(url, body)
        SECRETS_SEEN.record(headers.get("Authorization"))
        response = self.http.send(request, allow_redirects=False, timeout=60)
        SECRETS_SEEN.record(response.text)
        reply = Reply(method, "/v1/" + path, url, body or "", dict(request.headers), response.status_code,
                      dict(response.headers), response.text)
        self.log.append(reply)
        return reply

    def get(self, path, parameters, key=None, extra_headers=None):
        """`APIRequest.getWith(_:endpoint:additionalHeaders:parameters:)`."""
        return self._send("GET", path, self.headers(key, extra_headers), query=query_string(parameters))

    def post(self, path, parameters, key=None):
        """`APIRequest.post(with:endpoint:additionalHeaders:parameters:)`: the body is
        `URLEncoder.queryString(from:)` even when empty (`Content-Length: 0`)."""
        headers = self.headers(key, {"Content-Type": "application/x-www-form-urlencoded"})
        return self._send("POST", path, headers, body=query_string(parameters))

    # Requests, one per SDK function

    def list_payment_methods(self, customer, ephemeral_key, kind, limit=100):
        """`STPAPIClient.listPaymentMethods(forCustomer:using:types:limit:completion:)`
        (STPAPIClient+Payments.swift @ 04f36a2f): one GET per type, `customer`, `type` and, when
        given, `limit` (StripeCustomerAdapter passes 100; detachPaymentMethodRemoveDuplicates none)."""
        params = {"customer": customer, "type": kind}
        if limit is not None:
            params["limit"] = limit
        return self.get("payment_methods", params, key=ephemeral_key)

    def deferred_elements_session(self, payment_method_types, customer_session_client_secret=None,
                                  client_default_payment_method=None):
        """`makeDeferredElementsSessionsParamsForCustomerSheet` (STPAPIClient+PaymentSheet.swift @
        cf3a5e42), as `retrieveDeferredElementsSessionForCustomerSheet` sends it: no `key`, no
        contract header. `deferred_intent[on_behalf_of]` is nil for a CustomerSheet without one,
        `deferred_intent[payment_method_types]` only when the adapter / intent configuration
        names types."""
        deferred = {"mode": "setup"}
        if payment_method_types is not None:
            deferred["payment_method_types"] = list(payment_method_types)
        return self.get("elements/sessions", {
            "type": "deferred_intent",
            "locale": LOCALE,
            "mobile_session_id": self.device.mobile_session_id,
            "customer_session_client_secret": customer_session_client_secret,
            "client_default_payment_method": client_default_payment_method,
            "deferred_intent": deferred,
        })

    def setup_intent_elements_session_for_customer_sheet(self, client_secret, customer_session_client_secret,
                                                         client_default_payment_method=None):
        """`makeElementsSessionsParamsForCustomerSheet(setupIntentClientSecret:...)` @ cf3a5e42,
        sent by `CustomerSessionAdapter.elementsSession(setupIntentClientSecret:)`."""
        return self.get("elements/sessions", {
            "type": "setup_intent",
            "client_secret": client_secret,
            "expand": ["payment_method_preference.setup_intent.payment_method"],
            "locale": LOCALE,
            "mobile_session_id": self.device.mobile_session_id,
            "customer_session_client_secret": customer_session_client_secret,
            "client_default_payment_method": client_default_payment_method,
        })

    def setup_intent_elements_session_for_payment_sheet(self, client_secret):
        """`retrieveElementsSession(setupIntentClientSecret:clientDefaultPaymentMethod:configuration:)`
        @ cf3a5e42 with `PaymentSheet.Configuration.init()`, which
        `CustomerSheetDataSource.fetchElementsSession` (@ e7954455) calls for a CustomerAdapter:
        `makeElementsSessionsParams` (empty `external_payment_methods` / `custom_payment_methods`
        arrays encode to nothing; `payment_sheet_config` is `PaymentSheetConfigV1` of a default
        configuration, MobileSessionV1.swift @ 81349f47) and the request header
        `Stripe-Mobile-Session-Contract: major=1; revision=<MobileSessionContractV1.contractRevision>`,
        validated by `validateMobileSessionContractResponse` (see `check_mobile_session_contract`)."""
        return self.get("elements/sessions", {
            "locale": LOCALE,
            "external_payment_methods": [],
            "custom_payment_methods": [],
            "payment_sheet_config": DEFAULT_PAYMENT_SHEET_CONFIG,
            "mobile_session_id": self.device.mobile_session_id,
            "mobile_app_id": APP_BUNDLE_ID,
            "type": "setup_intent",
            "client_secret": client_secret,
            "expand": ["payment_method_preference.setup_intent.payment_method"],
        }, extra_headers={MOBILE_SESSION_CONTRACT_HEADER: f"major=1; revision={MOBILE_SESSION_CONTRACT_REVISION}"})

    def client_attribution_metadata(self, elements_session_config_id):
        """`STPClientAttributionMetadata(elementsSessionConfigId:)` (StripeCore @ db0c3438): no
        flows for CustomerSheet; encoded by its STPFormEncodable mapping (@ 3913c218)."""
        return {
            "client_session_id": self.device.mobile_session_id,
            "elements_session_config_id": elements_session_config_id,
            "merchant_integration_source": "elements",
            "merchant_integration_subtype": "mobile",
            "merchant_integration_version": f"stripe-ios/{SDK_VERSION}",
        }

    def confirm_setup_intent(self, client_secret, payment_method_data, elements_session_config_id=None,
                             return_url=RETURN_URL):
        """`CustomerSheet.confirm` (CustomerSheet+API.swift @ 02632313) ->
        `STPPaymentHandler._confirmSetupIntentImpl` (sets `use_stripe_sdk`, `expand:
        ["payment_method"]`) -> `STPAPIClient.confirmSetupIntent(with:expand:)` (@ 04f36a2f):
        `STPFormEncoder` of `STPSetupIntentConfirmParams` (@ 00c6f775), then into
        `payment_method_data` `STPTelemetryClient.addTelemetryFields` (muid, guid, sid) and
        `paramsAddingPaymentUserAgent`. CAM goes top level and inside `payment_method_data`.
        `mandate_data` is `STPMandateDataParams.makeWithInferredValues()` for sepa_debit and
        us_bank_account (`mandateDataIfRequired(for:)`)."""
        cam = self.client_attribution_metadata(elements_session_config_id)
        data = dict(payment_method_data)
        data["client_attribution_metadata"] = cam
        data["muid"], data["guid"], data["sid"] = self.device.muid, self.device.guid, self.device.sid
        data["payment_user_agent"] = self.payment_user_agent
        params = {
            "client_secret": client_secret,
            "payment_method_data": data,
            "return_url": return_url,
            "use_stripe_sdk": True,
            "client_attribution_metadata": cam,
            "expand": ["payment_method"],
        }
        if data.get("type") in ("sepa_debit", "us_bank_account"):
            params["mandate_data"] = {"customer_acceptance": {"type": "online", "online": {"infer_from_client": True}}}
        return self.post(f"setup_intents/{setup_intent_id(client_secret)}/confirm", params)

    def retrieve_setup_intent(self, client_secret):
        """`retrieveOrRefreshSetupIntent` (STPPaymentHandler, index id 14634954713): for a card
        (no `supportsRefreshing`) `retrieveSetupIntent(withClientSecret:expand:["payment_method"])`."""
        return self.get(f"setup_intents/{setup_intent_id(client_secret)}",
                        {"client_secret": client_secret, "expand": ["payment_method"]})

    def create_payment_method(self, payment_method_data):
        """`STPAPIClient.createPaymentMethod(with:additionalPaymentUserAgentValues:...)` @ 04f36a2f:
        `STPFormEncoder` of the params, `payment_user_agent`, then muid/guid/sid at the top level.
        CustomerSheet sends it only for a CustomerAdapter that cannot create setup intents
        (`addPaymentOptionToCustomer`); `allow_redisplay` stays `unspecified` there."""
        params = dict(payment_method_data)
        params["payment_user_agent"] = self.payment_user_agent
        params["muid"], params["guid"], params["sid"] = self.device.muid, self.device.guid, self.device.sid
        return self.post("payment_methods", params)

    def attach_payment_method(self, payment_method, customer, ephemeral_key):
        """`STPAPIClient.attachPaymentMethod(_:customerID:ephemeralKeySecret:)` @ 04f36a2f."""
        return self.post(f"payment_methods/{payment_method}/attach", {"customer": customer}, key=ephemeral_key)

    def update_payment_method(self, payment_method, key, card=None, billing_details=None):
        """`STPAPIClient.updatePaymentMethod(with:paymentMethodUpdateParams:ephemeralKeySecret:)`
        @ 04f36a2f: `STPPaymentMethodUpdateParams` (@ 12c3c56a) -> `card[...]`, `billing_details[...]`."""
        return self.post(f"payment_methods/{payment_method}", {"card": card, "billing_details": billing_details}, key=key)

    def detach_payment_method(self, payment_method, ephemeral_key):
        """`detachPaymentMethod(_:fromCustomerUsing:)` @ 04f36a2f: empty body, ephemeral key."""
        return self.post(f"payment_methods/{payment_method}/detach", {}, key=ephemeral_key)

    def detach_elements_payment_method(self, payment_method, api_key, customer_session_client_secret):
        """`detachPaymentMethod(_:fromCustomerUsing:withCustomerSessionClientSecret:)` @ 04f36a2f."""
        return self.post(f"elements/payment_methods/{payment_method}/detach",
                         {"customer_session_client_secret": customer_session_client_secret}, key=api_key)

    def set_default_payment_method(self, customer, payment_method, api_key):
        """`setAsDefaultPaymentMethod(_:for:using:)` @ 04f36a2f."""
        return self.post(f"elements/customers/{customer}/set_default_payment_method",
                         {"payment_method": payment_method}, key=api_key)

    # Financial Connections (us_bank_account), issue 30

    def configure_financial_connections_api_version(self):
        """`APIVersion.configureFinancialConnectionsAPIVersion(apiClient:)` (APIVersion.swift @
        11eb6e0a): `FinancialConnectionsSheet.init` and its `apiClient.didSet` insert
        `financial_connections_client_api_beta=v1` into the betas of the client they are given,
        which for PaymentSheet and CustomerSheet is `STPAPIClient.shared` (the
        `STPBankAccountCollector` is built without a client) — the same client the sheet uses by
        default — and nothing ever removes it: every later request of the app carries
        `Stripe-Version: 2020-08-27; financial_connections_client_api_beta=v1`. FC Lite inserts
        nothing."""
        self.betas.add(FC_BETA)

    def create_link_account_session(self, client_secret, name, email, hosted_surface="customer_sheet", link_mode=None,
                                    extra=None):
        """`STPAPIClient.createLinkAccountSession(setupIntentID:clientSecret:paymentMethodType:
        customerName:customerEmailAddress:linkMode:additionalParameters:)` ->
        `linkAccountSessions(endpoint:...)` (STPAPIClient+LinkAccountSession.swift @ d6aec539):
        `POST /v1/setup_intents/{id}/link_account_sessions` through the legacy
        `APIRequest<LinkAccountSession>.post`. The parameters are a flat dictionary whose keys
        already hold brackets (`"payment_method_data[billing_details][name]"`), so URLEncoder
        percent-encodes those brackets as it does any top-level key
        (`payment_method_data%5Bbilling_details%5D%5Bname%5D=...`). `additionalParameters` is
        `["hosted_surface": "customer_sheet"]` from CustomerSheet
        (`CustomerAddPaymentMethodViewController.handleCollectBankAccount`); because it holds
        `hosted_surface`, `link_mode` is added: the elements session context's link mode, else
        `LINK_DISABLED` (CustomerSheet has none). `extra` stands for other additional parameters."""
        params = dict(extra or {})
        if hosted_surface is not None:
            params["hosted_surface"] = hosted_surface
        params["client_secret"] = client_secret
        params["payment_method_data[type]"] = "us_bank_account"
        if name is not None:
            params["payment_method_data[billing_details][name]"] = name
        if email is not None:
            params["payment_method_data[billing_details][email]"] = email
        if "hosted_surface" in params:
            params["link_mode"] = link_mode or "LINK_DISABLED"
        return self.post(f"setup_intents/{setup_intent_id(client_secret)}/link_account_sessions", params)

    def synchronize(self, client_secret, return_url=RETURN_URL, initial=True, supports_app_verification=True,
                    extra=None):
        """`FinancialConnectionsAsyncAPIClient.synchronize(clientSecret:returnURL:initialSynchronize:)`
        (@ c57767ad), sent by `HostViewController.getManifest` with `initialSynchronize: true`:
        `expand[0]=manifest.active_auth_session`, `client_secret`, `locale`,
        `mobile[fullscreen|hide_close_button|forced_authflow_version=v3]`, `mobile[app_return_url]`
        (the sheet's `configuration.returnURL`, passed through `collectBankAccountForSetup`), and on
        the initial synchronize `mobile[supports_app_verification]` (`stripeAttest.isSupported`) and
        `mobile[verified_app_id]` (`Bundle.main.bundleIdentifier`). Modern `STPAPIClient.post`:
        same headers and URLEncoder body as the legacy requests."""
        mobile = {"fullscreen": True, "hide_close_button": True, "forced_authflow_version": "v3",
                  "app_return_url": return_url}
        if initial:
            mobile["supports_app_verification"] = supports_app_verification
            mobile["verified_app_id"] = APP_BUNDLE_ID
        params = {"expand": ["manifest.active_auth_session"], "client_secret": client_secret, "locale": LOCALE,
                  "mobile": mobile}
        return self.post("financial_connections/sessions/synchronize", _merged(params, extra))

    def synchronize_lite(self, client_secret, return_url=RETURN_URL, extra=None):
        """`FCLiteAPIClient.synchronize(clientSecret:returnUrl:canUseNativeLink:
        secureWebviewFeatureFlagEnabled:preCollectedConsent:)` (FCLiteApiClient.swift @ 04295bb1),
        from `FCLiteContainerViewController.fetchManifest`: `client_secret`,
        `mobile[fullscreen]=true`, `mobile[mobile_sdk_type]=FC_LITE`, `mobile[app_return_url]` (a
        URL, written as its absolute string); `mobile[use_secure_webview_if_necessary]` only with a
        debug UserDefaults flag, `pre_collected_consent[...]` only when given (neither here)."""
        params = {"client_secret": client_secret,
                  "mobile": {"fullscreen": True, "mobile_sdk_type": "FC_LITE", "app_return_url": return_url}}
        return self.post("financial_connections/sessions/synchronize", _merged(params, extra))

    def session_receipt(self, client_secret, extra=None):
        """`fetchFinancialConnectionsSession(clientSecret:)` (FinancialConnectionsAsyncAPIClient @
        c57767ad, through `FinancialConnectionsSessionAPIFetcher.fetchSession`) and
        `FCLiteAPIClient.sessionReceipt`: `GET /v1/link_account_sessions/session_receipt?client_secret=...`."""
        return self.get("link_account_sessions/session_receipt", _merged({"client_secret": client_secret}, extra))

    def list_accounts(self, client_secret, starting_after=None, extra=None):
        """`fetchFinancialConnectionsAccounts(clientSecret:startingAfterAccountId:)` (@ c57767ad), which
        `FinancialConnectionsAccountAPIFetcher` calls while the receipt's `accounts.has_more` is true:
        `GET /v1/link_account_sessions/list_accounts?client_secret=...[&starting_after=fca_...]`."""
        params = {"client_secret": client_secret}
        if starting_after is not None:
            params["starting_after"] = starting_after
        return self.get("link_account_sessions/list_accounts", _merged(params, extra))

    def complete_session(self, client_secret, extra=None):
        """`FCLiteAPIClient.complete(clientSecret:)` (@ 04295bb1): FC Lite's
        `POST /v1/link_account_sessions/complete` when the customer closed the sheet outside the
        web view (`FCLiteContainerViewController.fetchSessionAndComplete`, `.cancelledOutsideWebView`).
        The full SDK never sends it."""
        return self.post("link_account_sessions/complete", _merged({"client_secret": client_secret}, extra))


def _merged(params, extra):
    """`params` with `extra` merged in (nested dictionaries merged key by key): the unknown
    parameters a newer SDK would add."""
    result = dict(params)
    for key, value in (extra or {}).items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = _merged(result[key], value)
        else:
            result[key] = value
    return result


def setup_intent_id(client_secret):
    """`STPSetupIntent.id(fromClientSecret:)`: the part before `_secret_`."""
    return client_secret.split("_secret_")[0]


# The mobile session contract of the newest STPAPIClient+PaymentSheet.swift (@ cf3a5e42)

MOBILE_SESSION_CONTRACT_HEADER = "Stripe-Mobile-Session-Contract"
MOBILE_SESSION_CONTRACT_REVISION = "eae9b348c98cf67b"  # MobileSessionV1.swift @ 81349f47, contractRevision

# `PaymentElementConfiguration.paymentSheetConfig` (STPAPIClient+PaymentSheet.swift @ cf3a5e42)
# for `PaymentSheet.Configuration.init()`, encoded as `encodeJSONDictionary()` writes
# `PaymentSheetConfigV1` (MobileSessionV1.swift @ 81349f47): nil optionals and empty
# arrays/dictionaries produce no form field. Purse must ignore it (an /elements/* parameter).
DEFAULT_PAYMENT_SHEET_CONFIG = {
    "allows_delayed_payment_methods": False,
    "allows_payment_methods_requiring_shipping_address": False,
    "link": {"display": "automatic", "collect_missing_billing_details_for_existing_payment_methods": True,
             "allow_user_email_edits": True, "allow_logout": True},
    "return_url_provided": False,
    "merchant_display_name_provided": True,
    "customer_configured": False,
    "custom_api_client": False,
    "default_billing_details": {"name": False, "email": False, "phone": False, "address": False,
                                "address_city": False, "address_line1": False, "address_line2": False,
                                "address_postal_code": False, "address_state": False},
    "shipping_details_provided": False,
    "save_payment_method_opt_in_behavior": "automatic",
    "primary_button_label_provided": False,
    "appearance_customized": False,
    "user_interface_style": "automatic",
    "billing_details_collection_configuration": {"name": "automatic", "phone": "automatic", "email": "automatic",
                                                 "address": "automatic", "attach_defaults_to_payment_method": False},
    "external_payment_method_handler_provided": False,
    "custom_payment_method_handler_provided": False,
    "payment_method_layout": "automatic",
    "card_brand_acceptance": {"filter": "all"},
    "allowed_card_funding_types": ["credit", "debit", "prepaid", "unknown"],
    "allows_removal_of_last_saved_payment_method": True,
    "remove_saved_payment_method_message_provided": False,
    "opens_card_scanner_automatically": False,
    "disable_wallet_payment_method_filtering": False,
    "link_payment_methods_only": False,
    "wallet_buttons": {"will_display_externally": False},
    "google_places_api_key_provided": False,
}


# Decoders: what stripe-ios requires of the answers


class DecodeError(AssertionError):
    """A stripe-ios decoder would return nil (or throw) for this answer."""

    def __init__(self, symbol, problems, document=None):
        text = f"{cite(symbol)} would reject the answer:\n  - " + "\n  - ".join(problems)
        if document is not None:
            text += "\nanswer (start): " + json.dumps(document)[:400]
        super().__init__(text)
        self.symbol = symbol
        self.problems = problems


class Decoded(dict):
    """The JSON object as decoded, with `dropped`: parts the SDK silently drops (a sub-object
    its decoder returns nil for), which the sheet then cannot show."""

    def __init__(self, value, dropped=()):
        super().__init__(value)
        self.dropped = list(dropped)


def _is_str(value):
    return isinstance(value, str)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_bool(value):
    return isinstance(value, bool)


def _is_str_list(value):
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _require(document, key, check, kind, problems, where=""):
    value = document.get(key) if isinstance(document, dict) else None
    if not check(value):
        shown = "missing" if not isinstance(document, dict) or key not in document else f"got {json.dumps(value)[:80]}"
        problems.append(f"{where}{key}: must be {kind} ({shown})")
        return None
    return value


def _without_nulls(document):
    """`stp_dictionaryByRemovingNulls()`: null members count as absent."""
    return {k: v for k, v in document.items() if v is not None}


def _is_url(value):
    if not isinstance(value, str):
        return False
    parsed = urllib.parse.urlsplit(value)
    return bool(parsed.scheme) and " " not in value


def decode_payment_method(document, where=""):
    """`STPPaymentMethod.decodedObject(fromAPIResponse:)` (@ 00c6f775): `id` (string) and `created`
    (`stp_date`: a number of Unix seconds) are required, nulls removed first. Sub-objects decode
    leniently: `card` (`STPPaymentMethodCard` @ d10d13b5, nothing required; `networks` is dropped
    unless `available` is a string array, `STPPaymentMethodCardNetworks` @ b456e2e1), `sepa_debit`
    (nothing required), `billing_details`."""
    problems, dropped = [], []
    if not isinstance(document, dict):
        raise DecodeError("STPPaymentMethod", [f"{where}: must be an object"], document)
    clean = _without_nulls(document)
    _require(clean, "id", _is_str, "a string", problems, where)
    _require(clean, "created", _is_number, "a number (Unix seconds)", problems, where)
    if problems:
        raise DecodeError("STPPaymentMethod", problems, document)
    card = clean.get("card")
    if isinstance(card, dict):
        networks = card.get("networks")
        if networks is not None and not (isinstance(networks, dict) and _is_str_list(_without_nulls(networks).get("available"))):
            dropped.append(f"{where}card.networks (STPPaymentMethodCardNetworks needs available: [String])")
        for key, check in (("brand", _is_str), ("last4", _is_str), ("exp_month", _is_int), ("exp_year", _is_int)):
            if card.get(key) is not None and not check(card.get(key)):
                dropped.append(f"{where}card.{key} (wrong type)")
    if clean.get("type") is not None and not _is_str(clean.get("type")):
        dropped.append(f"{where}type (not a string: the type becomes unknown)")
    bank = clean.get("us_bank_account")
    if bank is not None:
        try:
            dropped += decode_us_bank_account(bank, where=f"{where}us_bank_account.").dropped
        except DecodeError as error:
            dropped += [f"{problem} (STPPaymentMethodUSBankAccount is nil: no bank details shown)"
                        for problem in error.problems]
    return Decoded(document, dropped)


def decode_us_bank_account(document, where="us_bank_account."):
    """`STPPaymentMethodUSBankAccount.decodedObject(fromAPIResponse:)` (index id 37455794): nil
    unless `account_holder_type`, `account_type`, `bank_name`, `fingerprint`, `last4` and
    `routing_number` are all strings; `account_holder_type` other than individual/company and
    `account_type` other than checking/savings become `.unknown` (recorded as dropped);
    `financial_connections_account` (string) is `linkedAccount`; `networks` is kept only when
    `networks.supported` is a string array (`preferred` a string or absent)."""
    if not isinstance(document, dict):
        raise DecodeError("STPPaymentMethodUSBankAccount", [f"{where}: must be an object"], document)
    problems, dropped = [], []
    for key in ("account_holder_type", "account_type", "bank_name", "fingerprint", "last4", "routing_number"):
        _require(document, key, _is_str, "a string", problems, where)
    if problems:
        raise DecodeError("STPPaymentMethodUSBankAccount", problems, document)
    if document["account_holder_type"].lower() not in ("individual", "company"):
        dropped.append(f"{where}account_holder_type ({document['account_holder_type']!r} is .unknown)")
    if document["account_type"].lower() not in ("checking", "savings"):
        dropped.append(f"{where}account_type ({document['account_type']!r} is .unknown)")
    linked = document.get("financial_connections_account")
    if linked is not None and not _is_str(linked):
        dropped.append(f"{where}financial_connections_account (not a string: linkedAccount is nil)")
    networks = document.get("networks")
    if networks is not None and not (isinstance(networks, dict) and _is_str_list(networks.get("supported"))):
        dropped.append(f"{where}networks (needs supported: [String]; networks is nil)")
    return Decoded(document, dropped)


def decode_payment_method_list(document):
    """`STPPaymentMethodListDeserializer`: `data` must be an array of objects; a method that
    `STPPaymentMethod` cannot decode is silently left out (recorded in `dropped`)."""
    if not isinstance(document, dict) or not isinstance(document.get("data"), list) \
            or not all(isinstance(m, dict) for m in document["data"]):
        raise DecodeError("STPPaymentMethodListDeserializer", ["data: must be an array of objects"], document)
    methods, dropped = [], []
    for index, method in enumerate(document["data"]):
        try:
            decoded = decode_payment_method(method, where=f"data[{index}].")
            dropped += decoded.dropped
            methods.append(decoded)
        except DecodeError as error:
            dropped += error.problems
    result = Decoded(document, dropped)
    result.methods = methods
    return result


def decode_setup_intent(document):
    """`STPSetupIntent.decodeSTPSetupIntentObject` (@ 04376980), nulls removed first: `id`,
    `client_secret`, `status` (strings), `created` (number), `payment_method_types` ([String]) and a
    non-null `livemode` are required. `payment_method` is decoded as an STPPaymentMethod when an
    object (the SDK always expands it), `next_action` by STPIntentAction: a `redirect_to_url`
    needs `redirect_to_url.url`, a valid URL (`STPIntentActionRedirectToURL`)."""
    if not isinstance(document, dict):
        raise DecodeError("STPSetupIntent", ["the answer must be an object"], document)
    clean = _without_nulls(document)
    problems, dropped = [], []
    _require(clean, "id", _is_str, "a string", problems)
    _require(clean, "client_secret", _is_str, "a string (the client secret, also for the publishable key)", problems)
    _require(clean, "status", _is_str, "a string", problems)
    _require(clean, "created", _is_number, "a number", problems)
    _require(clean, "payment_method_types", _is_str_list, "an array of strings", problems)
    if "livemode" not in clean:
        problems.append("livemode: must be present and not null")
    if problems:
        raise DecodeError("STPSetupIntent", problems, document)
    method = clean.get("payment_method")
    if isinstance(method, dict):
        decoded = decode_payment_method(method, where="payment_method.")
        dropped += decoded.dropped
    action = clean.get("next_action")
    if isinstance(action, dict) and action.get("type") == "redirect_to_url":
        redirect = action.get("redirect_to_url")
        if not (isinstance(redirect, dict) and _is_url(redirect.get("url"))):
            raise DecodeError("STPIntentActionRedirectToURL",
                              ["next_action.redirect_to_url.url: must be a URL string"], document)
    return Decoded(document, dropped)


def decode_customer(document):
    """`STPCustomer.decodedObject`: `id` (string) is required; what set_default_payment_method
    answers (`APIRequest<STPCustomer>`)."""
    problems = []
    _require(document, "id", _is_str, "a string", problems)
    if problems:
        raise DecodeError("STPCustomer", problems, document)
    return Decoded(document)


ERROR_TYPES = {"api_error", "card_error", "idempotency_error", "invalid_request_error"}


def decode_error(document):
    """An error answer: `APIRequest.parseResponse` -> `NSError.stp_error(fromStripeResponse:)` and
    StripeCore's `StripeAPIError` (@ 02e11878): `error.type` one of api_error, card_error,
    idempotency_error, invalid_request_error; `code`, `message`, `param` strings when present;
    `doc_url` a URL when present."""
    problems = []
    error = document.get("error") if isinstance(document, dict) else None
    if not isinstance(error, dict):
        raise DecodeError("StripeAPIError", ["error: must be an object"], document)
    if error.get("type") not in ERROR_TYPES:
        problems.append(f"error.type: must be one of {sorted(ERROR_TYPES)} (got {error.get('type')!r})")
    for key in ("code", "message", "param", "decline_code"):
        if error.get(key) is not None and not _is_str(error[key]):
            problems.append(f"error.{key}: must be a string")
    if error.get("doc_url") is not None and not _is_url(error["doc_url"]):
        problems.append("error.doc_url: must be a URL")
    if problems:
        raise DecodeError("StripeAPIError", problems, document)
    return Decoded(error)


def decode_customer_session(document):
    """`CustomerSession.decoded(fromAPIResponse:)` (@ 02937540): `id`, `api_key`, `customer`
    (strings), `livemode` (bool), `api_key_expiry` (Int), `components` (object) required. An enabled
    `mobile_payment_element` needs `features.payment_method_save` and `.payment_method_remove`
    (strings); an enabled `customer_sheet` needs `features.payment_method_remove` (a string:
    enabled/partial/disabled, `STPPaymentMethodRemove`); `payment_method_remove_last` defaults to
    enabled, `payment_method_sync_default` to disabled. Any of these missing: nil for the whole
    session."""
    problems = []
    _require(document, "id", _is_str, "a string", problems, "customer_session.")
    _require(document, "livemode", _is_bool, "a bool", problems, "customer_session.")
    _require(document, "api_key", _is_str, "a string", problems, "customer_session.")
    _require(document, "api_key_expiry", _is_int, "an integer", problems, "customer_session.")
    _require(document, "customer", _is_str, "a string", problems, "customer_session.")
    components = _require(document, "components", lambda v: isinstance(v, dict), "an object", problems,
                          "customer_session.")
    if isinstance(components, dict):
        mpe = components.get("mobile_payment_element")
        if isinstance(mpe, dict) and mpe.get("enabled") is True:
            features = mpe.get("features")
            if not isinstance(features, dict):
                problems.append("customer_session.components.mobile_payment_element.features: must be an object when enabled")
            else:
                for key in ("payment_method_save", "payment_method_remove"):
                    _require(features, key, _is_str, "a string", problems,
                             "customer_session.components.mobile_payment_element.features.")
        sheet = components.get("customer_sheet")
        if isinstance(sheet, dict) and sheet.get("enabled") is True:
            features = sheet.get("features")
            if not isinstance(features, dict):
                problems.append("customer_session.components.customer_sheet.features: must be an object when enabled")
            else:
                _require(features, "payment_method_remove", _is_str, "a string", problems,
                         "customer_session.components.customer_sheet.features.")
    if problems:
        raise DecodeError("CustomerSession", problems, document)
    return Decoded(document)


def customer_sheet_features(customer_session):
    """What the sheet derives from the decoded session (`STPElementsSession` extensions):
    remove allowed when `payment_method_remove` is enabled or partial; remove-last default true;
    sync-default default false; `customerSheetComponent.enabled` (which also turns on updating)."""
    sheet = customer_session["components"].get("customer_sheet") or {}
    enabled = sheet.get("enabled") is True
    features = sheet.get("features") or {}
    return {
        "enabled": enabled,
        "remove": enabled and features.get("payment_method_remove") in ("enabled", "partial"),
        "remove_last": features.get("payment_method_remove_last", "enabled") == "enabled",
        "sync_default": enabled and features.get("payment_method_sync_default", "disabled") == "enabled",
        "update": enabled,
    }


def decode_elements_customer(document, enable_link_in_spm):
    """`ElementsCustomer.decoded(fromAPIResponse:enableLinkInSPM:)` (index id 1240226245): the saved
    methods from `payment_methods` ([object]) or, when the session's flag
    `elements_enable_link_spm` is true, from `payment_methods_with_link_details` ([{payment_method,
    is_link_origin?, link_payment_details?}], `PaymentMethodWithLinkDetails` @ 0b4ffa8f); a
    `customer_session` that `CustomerSession` decodes. `default_payment_method` (string) is
    optional. Methods that fail to decode are left out."""
    key = "payment_methods_with_link_details" if enable_link_in_spm else "payment_methods"
    problems, dropped = [], []
    entries = _require(document, key, lambda v: isinstance(v, list) and all(isinstance(e, dict) for e in v),
                       "an array of objects", problems, "customer.")
    session = _require(document, "customer_session", lambda v: isinstance(v, dict), "an object", problems, "customer.")
    if problems:
        raise DecodeError("ElementsCustomer", problems, document)
    decode_customer_session(session)
    methods = []
    for index, entry in enumerate(entries):
        method = entry.get("payment_method") if enable_link_in_spm else entry
        try:
            decoded = decode_payment_method(method, where=f"customer.{key}[{index}].")
            dropped += decoded.dropped
            methods.append(decoded)
        except DecodeError as error:
            dropped += error.problems
    if document.get("default_payment_method") is not None and not _is_str(document["default_payment_method"]):
        dropped.append("customer.default_payment_method (not a string)")
    result = Decoded(document, dropped)
    result.methods = methods
    return result


def decode_elements_session(document, customer_session_client_secret=None):
    """`STPElementsSession.decodedObject(fromAPIResponse:)` (index id 1370920195): required
    `session_id` (string) and `payment_method_preference.ordered_payment_method_types` ([String]).
    Read when present: `config_id` (sent back in client_attribution_metadata),
    `unactivated_payment_method_types`, `card_brand_choice.eligible` (bool, default false),
    `apple_pay_preference` ("disabled" turns Apple Pay off), `flags` ([String: Bool], else
    ignored whole), `link_settings` (`LinkSettings` needs `link_funding_sources: [String]`),
    `payment_method_specs`, `merchant_country`, `payment_method_preference.country_code`, and
    `customer` (`ElementsCustomer`; a customer that does not decode becomes nil).

    With a customer session (`verifyCustomerSessionForCustomerSheet` @ cf3a5e42 and
    `CustomerSessionAdapter.elementsSessionWithCustomerSessionClientSecret`): the customer must
    decode ("Failed to claim customerSession"), its `customer_sheet` component be enabled, and
    `api_key` be non-empty."""
    if not isinstance(document, dict):
        raise DecodeError("STPElementsSession", ["the answer must be an object"], document)
    problems, dropped = [], []
    preference = _require(document, "payment_method_preference", lambda v: isinstance(v, dict), "an object", problems)
    if isinstance(preference, dict):
        _require(preference, "ordered_payment_method_types", _is_str_list, "an array of strings", problems,
                 "payment_method_preference.")
    _require(document, "session_id", _is_str, "a string", problems)
    if problems:
        raise DecodeError("STPElementsSession", problems, document)
    flags = document.get("flags")
    if flags is not None and not (isinstance(flags, dict) and all(_is_bool(v) for v in flags.values())):
        dropped.append("flags (must be [String: Bool]; ignored whole)")
        flags = {}
    flags = flags or {}
    if document.get("config_id") is not None and not _is_str(document["config_id"]):
        dropped.append("config_id (not a string)")
    choice = document.get("card_brand_choice")
    if choice is not None and not (isinstance(choice, dict) and _is_bool(choice.get("eligible", False))):
        dropped.append("card_brand_choice.eligible (must be a bool; read as false)")
    link = document.get("link_settings")
    if link is not None and not (isinstance(link, dict) and _is_str_list(link.get("link_funding_sources"))):
        dropped.append("link_settings (LinkSettings needs link_funding_sources: [String])")
    result = Decoded(document, dropped)
    result.customer = None
    customer = document.get("customer")
    if customer is not None:
        try:
            result.customer = decode_elements_customer(customer, flags.get("elements_enable_link_spm", False))
            result.dropped += result.customer.dropped
        except DecodeError as error:
            if customer_session_client_secret is None:
                result.dropped += error.problems
            else:
                raise DecodeError("STPElementsSession",
                                  ["customer: does not decode, so the sheet fails with \"Failed to claim customerSession\"",
                                   *error.problems], document) from error
    if customer_session_client_secret is not None:
        if result.customer is None:
            raise DecodeError("STPElementsSession",
                              ["customer: missing with a customer_session_client_secret (\"Failed to claim customerSession\")"],
                              document)
        session = result.customer["customer_session"]
        if not customer_sheet_features(session)["enabled"]:
            raise DecodeError("STPElementsSession",
                              ["customer.customer_session.components.customer_sheet.enabled: must be true for CustomerSheet"],
                              document)
        if not session["api_key"]:
            raise DecodeError("CustomerSessionAdapter", ["customer.customer_session.api_key: must not be empty"], document)
    return result


def setup_intent_of_elements_session(session):
    """`payment_method_preference.setup_intent`, decoded by `STPSetupIntent` (both
    `CustomerSessionAdapter.elementsSession(setupIntentClientSecret:)` and
    `retrieveElementsSession(setupIntentClientSecret:...)`): missing or undecodable -> "SetupIntent
    missing from v1/elements/sessions response"."""
    intent = session["payment_method_preference"].get("setup_intent")
    if not isinstance(intent, dict):
        raise DecodeError("STPAPIClient+PaymentSheet",
                          ["payment_method_preference.setup_intent: must be the setup intent object"], dict(session))
    return decode_setup_intent(intent)


REVISION_CHARS = set("0123456789abcdef")


def check_mobile_session_contract(reply):
    """`STPAPIClient.validateMobileSessionContractResponse` (@ cf3a5e42): the answer must carry
    the header `Stripe-Mobile-Session-Contract: major=<int>; revision=<16 lowercase hex>` and a body
    member `mobile_payment_element` that decodes as `MobilePaymentElementV1` (MobileSessionV1.swift
    @ 81349f47: `contract {major: Int, revision: String}` and `payment_method_availability`
    (object; `entries` [{payment_method_type, available}] optional) required; `features`, `assets`,
    `form_specs` optional), with `contract.major == 1`, a 16-hex revision, and header == body."""
    problems = []
    header = reply.headers.get(MOBILE_SESSION_CONTRACT_HEADER) or next(
        (v for k, v in reply.headers.items() if k.lower() == MOBILE_SESSION_CONTRACT_HEADER.lower()), None)
    header_contract = None
    if header is None:
        problems.append(f"response header {MOBILE_SESSION_CONTRACT_HEADER}: missing (missing_response_header)")
    else:
        parts = header.split("; ")
        if len(parts) == 2 and parts[0].startswith("major=") and parts[1].startswith("revision="):
            major, revision = parts[0][6:], parts[1][9:]
            if major.isdigit() and str(int(major)) == major and len(revision) == 16 and set(revision) <= REVISION_CHARS:
                header_contract = (int(major), revision)
        if header_contract is None:
            problems.append(f"response header {MOBILE_SESSION_CONTRACT_HEADER}: {header!r} is not "
                            "\"major=<n>; revision=<16 hex>\" (malformed_response_header)")
    try:
        body = reply.json()
    except ValueError:
        body = None
    element = body.get("mobile_payment_element") if isinstance(body, dict) else None
    if not isinstance(element, dict):
        problems.append("mobile_payment_element: must be an object (missing_payload)")
    else:
        contract = element.get("contract")
        if not (isinstance(contract, dict) and _is_int(contract.get("major")) and _is_str(contract.get("revision"))):
            problems.append("mobile_payment_element.contract: must be {major: Int, revision: String} (decode_failure)")
        elif not isinstance(element.get("payment_method_availability"), dict):
            problems.append("mobile_payment_element.payment_method_availability: must be an object (decode_failure)")
        else:
            if contract["major"] != 1:
                problems.append(f"mobile_payment_element.contract.major: must be 1 (unsupported_contract_major)")
            if not (len(contract["revision"]) == 16 and set(contract["revision"]) <= REVISION_CHARS):
                problems.append("mobile_payment_element.contract.revision: must be 16 lowercase hex (invalid_contract_revision)")
            if header_contract and header_contract != (contract["major"], contract["revision"]):
                problems.append("header and mobile_payment_element.contract differ (response_header_body_mismatch)")
    if problems:
        raise DecodeError("MobileSessionV1", problems, body)


def offered_types(session, can_create_setup_intents=True):
    """The types the sheet offers to add: `CustomerSheetDataSource.merchantSupportedPaymentMethodTypes`
    (ordered types; `[card]` for an adapter without setup intents) kept to the types CustomerSheet
    supports (`CustomerSheet+PaymentMethodAvailability`)."""
    ordered = session["payment_method_preference"]["ordered_payment_method_types"]
    if not can_create_setup_intents:
        ordered = ["card"]
    return [kind for kind in ordered if kind in SUPPORTED_TYPES]


# The two integrations, as CustomerSheet drives them


class AdapterSheet:
    """CustomerSheet with `StripeCustomerAdapter(customerEphemeralKeyProvider:,
    setupIntentClientSecretProvider:, paymentMethodTypes:)` (CustomerAdapter.swift, index id
    190112868) and `CustomerSheetDataSource` (@ e7954455). The ephemeral key is cached 30 minutes;
    the selected option lives on the device (UserDefaults), never on the server; the sheet cannot
    edit a card's details with an adapter (`paymentMethodUpdate` is false), only its brand when
    card brand choice applies."""

    integration = "adapter"

    def __init__(self, base, publishable_key, ephemeral_key_provider, setup_intent_provider=None,
                 payment_method_types=None, device=None):
        self.device = device or Device()
        # productUsage: StripeCustomerAdapter.init and CustomerSheet.init add their classes.
        self.sdk = SDKClient(base, publishable_key, self.device, ["StripeCustomerAdapter", "CustomerSheet"])
        self.ephemeral_key_provider = ephemeral_key_provider
        self.setup_intent_provider = setup_intent_provider
        self.payment_method_types = payment_method_types
        self._key = None
        self.cached_client_secret = None

    @property
    def key(self):
        """`StripeCustomerAdapter.customerEphemeralKey`: (customer id, ephemeral key secret)."""
        if self._key is None:
            self._key = self.ephemeral_key_provider()
        return self._key

    @property
    def customer(self):
        return self.key[0]

    def fetch_payment_methods(self):
        """`StripeCustomerAdapter.fetchPaymentMethods()`: a list per type (the adapter's types, or
        all CustomerSheet supports) with `limit=100`, Apple/Google Pay cards removed, newest first."""
        customer, secret = self.key
        methods, replies = [], []
        for kind in self.payment_method_types or SUPPORTED_TYPES:
            reply = self.sdk.list_payment_methods(customer, secret, kind, limit=100)
            replies.append(reply)
            if reply.status != 200:
                return None, replies
            methods += decode_payment_method_list(reply.json()).methods
        methods = [m for m in methods if not (m.get("type") == "card" and ((m.get("card") or {}).get("wallet") or {})
                                                .get("type") in ("apple_pay", "google_pay"))]
        methods.sort(key=lambda m: m["created"], reverse=True)
        return methods, replies

    def load(self):
        """`CustomerSheetDataSource.loadPaymentMethodInfo(customerAdapter:)`: the saved methods, the
        local selection and `retrieveDeferredElementsSessionForCustomerSheet(paymentMethodTypes:
        adapter types, clientDefaultPaymentMethod: nil, customerSessionClientSecret: nil)`."""
        methods, replies = self.fetch_payment_methods()
        reply = self.sdk.deferred_elements_session(self.payment_method_types)
        return SheetState(self, methods, self.device.local_default.get(self.customer), reply, replies)

    def elements_session_for_setup_intent(self, client_secret):
        """`CustomerSheetDataSource.fetchElementsSession(setupIntentClientSecret:)` for an adapter."""
        return self.sdk.setup_intent_elements_session_for_payment_sheet(client_secret)

    def fetch_client_secret(self):
        """`CustomerSavedPaymentMethodsViewController.fetchClientSecret()`: cached until a method
        is added (a decline keeps the same setup intent for the retry)."""
        if self.cached_client_secret is None:
            self.cached_client_secret = self.setup_intent_provider()
        return self.cached_client_secret

    def detach(self, method):
        """`StripeCustomerAdapter.detachPaymentMethod(paymentMethodId:)`: only the chosen method."""
        return [self.sdk.detach_payment_method(method["id"], self.key[1])]

    def update(self, method_id, card=None, billing_details=None):
        return self.sdk.update_payment_method(method_id, self.key[1], card=card, billing_details=billing_details)

    def select(self, method_id):
        """`StripeCustomerAdapter.setSelectedPaymentOption`: UserDefaults only, no request."""
        self.device.local_default[self.customer] = method_id
        return []


class SessionSheet:
    """CustomerSheet with `CustomerSheet(configuration:, intentConfiguration:
    IntentConfiguration(paymentMethodTypes:, setupIntentClientSecretProvider:),
    customerSessionClientSecretProvider:)` -> `CustomerSessionAdapter` (index id 98475479): the
    customer session's client secret is claimed with `GET /v1/elements/sessions`, whose
    `customer.customer_session.api_key` then authorizes updates, detaches and the default; the
    claimed session is reused for 30 minutes (CustomerSessionAdapterTests, index id 69382031782),
    each `elementsSession()` asks again with the same client secret."""

    integration = "session"

    def __init__(self, base, publishable_key, customer_session_provider, setup_intent_provider,
                 payment_method_types=None, device=None):
        self.device = device or Device()
        self.sdk = SDKClient(base, publishable_key, self.device, ["CustomerSheet"])
        self.customer_session_provider = customer_session_provider
        self.setup_intent_provider = setup_intent_provider
        self.payment_method_types = payment_method_types
        self.claimed = None  # (customer id, client secret, api key)
        self.cached_client_secret = None

    @property
    def customer(self):
        return self.claimed[0] if self.claimed else self._secret()[0]

    def _secret(self):
        if self.claimed:
            return self.claimed[0], self.claimed[1]
        if not hasattr(self, "_pending"):
            self._pending = self.customer_session_provider()  # CustomerSessionClientSecret(customerId:clientSecret:)
        return self._pending

    def _client_default(self, customer):
        """`fetchClientDefaultPaymentMethod(for:)`: the locally selected method, if a saved one."""
        return self.device.local_default.get(customer)

    def elements_session(self):
        """`CustomerSessionAdapter.elementsSessionWithCustomerSessionClientSecret()`."""
        customer, secret = self._secret()
        reply = self.sdk.deferred_elements_session(self.payment_method_types, customer_session_client_secret=secret,
                                                   client_default_payment_method=self._client_default(customer))
        if reply.status == 200:
            session = decode_elements_session(reply.json(), customer_session_client_secret=secret)
            self.claimed = (customer, secret, session.customer["customer_session"]["api_key"])
        return reply

    def load(self):
        """`CustomerSheetDataSource.loadPaymentMethodInfo(customerSessionAdapter:)`: the saved
        methods are `customer.payment_methods`; the selection is the server default when
        `payment_method_sync_default` is enabled, else the local one."""
        reply = self.elements_session()
        methods, selected = None, None
        if reply.status == 200:
            session = decode_elements_session(reply.json(), customer_session_client_secret=self.claimed[1])
            methods = session.customer.methods
            features = customer_sheet_features(session.customer["customer_session"])
            selected = session.customer.get("default_payment_method") if features["sync_default"] \
                else self.device.local_default.get(self.claimed[0])
        return SheetState(self, methods, selected, reply, [])

    def elements_session_for_setup_intent(self, client_secret):
        customer, secret = self._secret()
        return self.sdk.setup_intent_elements_session_for_customer_sheet(
            client_secret, secret, client_default_payment_method=self._client_default(customer))

    def fetch_client_secret(self):
        if self.cached_client_secret is None:
            self.cached_client_secret = self.setup_intent_provider()
        return self.cached_client_secret

    def detach(self, method):
        """`CustomerSessionAdapter.detachPaymentMethod(paymentMethod:)`: a card goes through
        `detachPaymentMethodRemoveDuplicates` (list the customer's cards with the session's key, no
        limit, then detach every card with the same fingerprint on /v1/elements); other types one
        `/v1/elements/payment_methods/{id}/detach`."""
        customer, secret, api_key = self.claimed
        if method.get("type") != "card":
            return [self.sdk.detach_elements_payment_method(method["id"], api_key, secret)]
        listing = self.sdk.list_payment_methods(customer, api_key, "card", limit=None)
        replies = [listing]
        if listing.status != 200:
            return replies
        cards = decode_payment_method_list(listing.json()).methods
        chosen = next((card for card in cards if card["id"] == method["id"]), None)
        if chosen is None:
            return replies
        fingerprint = (chosen.get("card") or {}).get("fingerprint")
        for card in cards:
            if card.get("type") == "card" and (card.get("card") or {}).get("fingerprint") == fingerprint:
                replies.append(self.sdk.detach_elements_payment_method(card["id"], api_key, secret))
        return replies

    def update(self, method_id, card=None, billing_details=None):
        return self.sdk.update_payment_method(method_id, self.claimed[2], card=card, billing_details=billing_details)

    def select(self, method_id, sync_default=True):
        """`setSelectablePaymentMethod`: the selection is stored locally, then with
        `payment_method_sync_default` enabled `setAsDefaultPaymentMethod`."""
        self.device.local_default[self.claimed[0]] = method_id
        if not sync_default:
            return []
        return [self.sdk.set_default_payment_method(self.claimed[0], method_id, self.claimed[2])]


@dataclass
class SheetState:
    """What the sheet shows after a load: its saved methods (as decoded), the selected one, and
    the replies that produced them."""

    sheet: object
    methods: list
    selected: str
    elements_reply: Reply
    list_replies: list

    @property
    def ids(self):
        return [method["id"] for method in self.methods or []]


def add_payment_method(sheet, payment_method_data, session_decoder=decode_elements_session):
    """`CustomerSavedPaymentMethodsViewController.addPaymentOption`: the setup intent's client
    secret (cached), the elements session for it, the confirm, then the refreshed saved methods.
    Returns the replies in order; stops where the SDK would."""
    secret = sheet.fetch_client_secret()
    replies = []
    session_reply = sheet.elements_session_for_setup_intent(secret)
    replies.append(session_reply)
    if session_reply.status != 200:
        return replies
    if sheet.integration == "adapter":
        check_mobile_session_contract(session_reply)
        session = session_decoder(session_reply.json())
    else:
        session = session_decoder(session_reply.json(), customer_session_client_secret=sheet._secret()[1])
    intent = setup_intent_of_elements_session(session)
    confirm = sheet.sdk.confirm_setup_intent(intent["client_secret"], payment_method_data,
                                             elements_session_config_id=session.get("config_id"))
    replies.append(confirm)
    return replies


def card_payment_method_data(sheet, number, cvc, exp_month, exp_year, postal_code="94107", country="US",
                             preferred_network=None):
    """The card form's `STPPaymentMethodParams` (@ 04295bb1): `type`, `card[number|exp_month|
    exp_year|cvc]` (a 4-digit year, `CardExpiryDate.normalizeYear`), `card[networks][preferred]`
    when the customer picks a brand (card brand choice), the default billing collection's
    country and postal code, `allow_redisplay` from `setAllowRedisplayForCustomerSheet`
    (`unspecified` with an adapter, `always` with a customer session)."""
    card = {"number": number, "exp_month": exp_month, "exp_year": exp_year, "cvc": cvc}
    if preferred_network:
        card["networks"] = {"preferred": preferred_network}
    return {
        "type": "card",
        "card": card,
        "billing_details": {"address": {"country": country, "postal_code": postal_code}},
        "allow_redisplay": "always" if sheet.integration == "session" else "unspecified",
    }


def sepa_debit_payment_method_data(sheet, iban, name="Jenny Rosen", email="jenny@example.com"):
    """The SEPA Debit form: `sepa_debit[iban]`, name, email and the billing address it collects."""
    return {
        "type": "sepa_debit",
        "sepa_debit": {"iban": iban},
        "billing_details": {
            "name": name, "email": email,
            "address": {"line1": "Unter den Linden 1", "city": "Berlin", "postal_code": "10117", "country": "DE"},
        },
        "allow_redisplay": "always" if sheet.integration == "session" else "unspecified",
    }


# Financial Connections: the us_bank_account flow (issue 30)
#
# Decoding rules (StripeJSONDecoder.swift, index id 1045519531): a Swift property `fooBar` is read
# from the JSON key `foo_bar`; a non-optional property whose key is missing or whose value is
# null or of another type fails the whole decode (modern STPAPIClient then tries the error
# envelope, and the step fails); an optional one is nil when missing or null and fails the decode
# when of another type; a `SafeEnumCodable` enum turns an unknown (or null) value into
# `.unparsable` without failing, but the key of a non-optional one must be there. Unknown keys are
# ignored. `try? container.decode(T.self, forKey:)` of a null value calls `T.init(from:)` on the
# null (StripeJSONDecoder's `castFromNSObject` default case): for
# `FinancialConnectionsSession.PaymentAccount`, whose init swallows its members' failures, a null
# `payment_account` is `.unparsable`, not nil.


def _present(document, key):
    return isinstance(document, dict) and document.get(key) is not None


def _json_required(document, key, check, kind, problems, where=""):
    """A non-optional property: the key must be there, not null, and of the type."""
    return _require(document, key, check, kind, problems, where)


def _json_optional(document, key, check, kind, problems, where=""):
    """An optional property: missing or null is nil; any other value must be of the type."""
    if not _present(document, key):
        return None
    if not check(document[key]):
        problems.append(f"{where}{key}: must be {kind} or null (got {json.dumps(document[key])[:80]})")
        return None
    return document[key]


def _safe_enum(document, key, values, problems, dropped, where="", required=True):
    """A `SafeEnumCodable` property: a required key must be present (a missing one fails the
    decode); an unknown or null value is `.unparsable` (recorded as dropped)."""
    if not isinstance(document, dict) or key not in document:
        if required:
            problems.append(f"{where}{key}: must be present (one of {sorted(values)})")
        return None
    value = document[key]
    if value is None and not required:
        return None
    if value not in values:
        dropped.append(f"{where}{key} ({json.dumps(value)[:60]} is .unparsable; known: {sorted(values)})")
    return value


def _is_object(value):
    return isinstance(value, dict)


def _is_bool_map(value):
    return isinstance(value, dict) and all(_is_bool(v) for v in value.values())


def _is_str_map(value):
    return isinstance(value, dict) and all(_is_str(v) for v in value.values())


def decode_link_account_session(document):
    """`LinkAccountSession.decodedObject(fromAPIResponse:)` (LinkAccountSession.swift @ 66d26254),
    what `POST /v1/setup_intents/{id}/link_account_sessions` answers: `id` (string), `livemode`
    (bool) and `client_secret` (string) or nil ("failed to parse"). The `client_secret` is what
    every Financial Connections request then sends; `id` becomes the payment method's
    `us_bank_account[link_account_session]` (through the manifest's and the receipt's `id`)."""
    problems = []
    if not isinstance(document, dict):
        raise DecodeError("LinkAccountSession", ["the answer must be an object"], document)
    _require(document, "id", _is_str, "a string", problems)
    _require(document, "livemode", _is_bool, "a bool", problems)
    _require(document, "client_secret", _is_str, "a string", problems)
    if problems:
        raise DecodeError("LinkAccountSession", problems, document)
    return Decoded(document)


MANIFEST_BOOLS = ("allow_manual_entry", "consent_required", "custom_manual_entry_handling", "disable_link_more_accounts",
                  "instant_verification_disabled", "institution_search_disabled", "livemode",
                  "manual_entry_uses_microdeposits", "single_account")
MANIFEST_STRINGS = ("id", "product")
# The 14 non-optional properties of FinancialConnectionsSessionManifest (@ c57767ad).
MANIFEST_REQUIRED = MANIFEST_BOOLS + MANIFEST_STRINGS + ("manual_entry_mode", "next_pane", "permissions")
NEXT_PANES = {"account_picker", "attach_linked_payment_account", "auth_options", "bank_auth_repair", "consent",
              "id_consent_content", "institution_picker", "link_account_picker", "link_consent", "link_login",
              "manual_entry", "manual_entry_success", "networking_link_login_warmup", "networking_link_signup_pane",
              "networking_link_step_up_verification", "networking_link_verification",
              "networking_save_to_link_verification", "partner_auth", "success", "unexpected_error", "reset_flow",
              "terminal_error"}
MANUAL_ENTRY_MODES = {"automatic", "custom"}
FC_PERMISSIONS = {"balances", "ownership", "payment_method", "transactions", "account_numbers"}
MANIFEST_OPTIONAL_STRINGS = ("accountholder_customer_email_address", "accountholder_phone_number",
                             "accountholder_token", "assignment_event_id", "business_name", "cancel_url",
                             "consent_acquired_at", "hosted_auth_url", "success_url")
MANIFEST_OPTIONAL_BOOLS = ("accountholder_is_link_consumer", "app_verification_enabled", "is_end_user_facing",
                           "is_link_with_stripe", "is_networking_user_flow", "is_stripe_direct", "skip_success_pane",
                           "step_up_authentication_required")
# Optional objects with required fields of their own (FinancialConnectionsAuthSession,
# FinancialConnectionsInstitution, DisplayText) that a Purse without auth sessions or institutions
# has no business sending: held to null here, so that a half-filled one is noticed.
MANIFEST_NULL_OBJECTS = ("active_auth_session", "active_institution", "initial_institution")


def decode_fc_manifest(document, where="manifest."):
    """`FinancialConnectionsSessionManifest` (@ c57767ad) as StripeJSONDecoder decodes it: the 14
    non-optional properties (`allow_manual_entry`, `consent_required`,
    `custom_manual_entry_handling`, `disable_link_more_accounts`, `id`,
    `instant_verification_disabled`, `institution_search_disabled`, `livemode`,
    `manual_entry_mode`, `manual_entry_uses_microdeposits`, `next_pane`, `permissions`,
    `product`, `single_account`) must be there with their types (the three enums may hold unknown
    values, which become `.unparsable`); the optional ones, when not null, must have theirs
    (`features` [String: Bool], `experiment_assignments` [String: String], the URLs strings, ...)."""
    problems, dropped = [], []
    if not isinstance(document, dict):
        raise DecodeError("FinancialConnectionsSessionManifest", [f"{where}: must be an object"], document)
    for key in MANIFEST_BOOLS:
        _json_required(document, key, _is_bool, "a bool", problems, where)
    for key in MANIFEST_STRINGS:
        _json_required(document, key, _is_str, "a string", problems, where)
    _safe_enum(document, "manual_entry_mode", MANUAL_ENTRY_MODES, problems, dropped, where)
    _safe_enum(document, "next_pane", NEXT_PANES, problems, dropped, where)
    permissions = _json_required(document, "permissions", lambda v: isinstance(v, list), "an array", problems, where)
    for index, permission in enumerate(permissions or []):
        if permission not in FC_PERMISSIONS:
            dropped.append(f"{where}permissions[{index}] ({json.dumps(permission)[:40]} is .unparsable)")
    for key in MANIFEST_OPTIONAL_STRINGS:
        _json_optional(document, key, _is_str, "a string", problems, where)
    for key in MANIFEST_OPTIONAL_BOOLS:
        _json_optional(document, key, _is_bool, "a bool", problems, where)
    _json_optional(document, "features", _is_bool_map, "a [String: Bool] object", problems, where)
    _json_optional(document, "experiment_assignments", _is_str_map, "a [String: String] object", problems, where)
    _json_optional(document, "display_text", _is_object, "an object", problems, where)
    for key, values in (("theme", {"light", "dashboard_light", "link_light"}),
                        ("account_disconnection_method", {"dashboard", "support", "email", "link"}),
                        ("payment_method_type", {"us_bank_account", "link"})):
        _safe_enum(document, key, values, problems, dropped, where, required=False)
    for key in MANIFEST_NULL_OBJECTS:
        if _present(document, key):
            problems.append(f"{where}{key}: must be null or absent (its decoder needs fields Purse does not have)")
    if problems:
        raise DecodeError("FinancialConnectionsSessionManifest", problems, document)
    return Decoded(document, dropped)


def decode_synchronize(document):
    """`FinancialConnectionsSynchronize` (FinancialConnectionsSynchronize.swift @ eb7016c8), what
    the full SDK's synchronize decodes: `manifest` (above) and `visual` are required —
    `visual.reduced_branding` (bool), `visual.merchant_logo` ([String]) and
    `visual.reduce_manual_entry_prominence_in_errors` (bool) all three; `text` is optional (its
    panes have required fields of their own: held to null here)."""
    if not isinstance(document, dict):
        raise DecodeError("FinancialConnectionsSynchronize", ["the answer must be an object"], document)
    problems = []
    manifest = _json_required(document, "manifest", _is_object, "an object", problems)
    visual = _json_required(document, "visual", _is_object, "an object", problems)
    if isinstance(visual, dict):
        _json_required(visual, "reduced_branding", _is_bool, "a bool", problems, "visual.")
        _json_required(visual, "merchant_logo", _is_str_list, "an array of strings", problems, "visual.")
        _json_required(visual, "reduce_manual_entry_prominence_in_errors", _is_bool, "a bool", problems, "visual.")
    text = _json_optional(document, "text", _is_object, "an object", problems)
    if isinstance(text, dict) and any(v is not None for v in text.values()):
        problems.append("text: its panes must be null (each pane's decoder needs its own fields)")
    if problems:
        raise DecodeError("FinancialConnectionsSynchronize", problems, document)
    decoded = Decoded(document)
    decoded.manifest = decode_fc_manifest(manifest)
    decoded.dropped += decoded.manifest.dropped
    return decoded


def flow_of(manifest):
    """`FlowRouter.flow` (@ c57767ad): `product == "instant_debits"` is the instant-debits flow
    (native unless killswitched); any other product is Financial Connections, native only when
    `features["bank_connections_mobile_native_version_killswitch"] == false` AND
    `experiment_assignments["connections_mobile_native"] == "treatment"`; a missing `features`, a
    missing killswitch key or `true` is the killswitch: the web flow."""
    features = manifest.get("features")
    killswitch = True if not isinstance(features, dict) else features.get(
        "bank_connections_mobile_native_version_killswitch", True)
    if manifest.get("product") == "instant_debits":
        return "web_instant_debits" if killswitch else "native_instant_debits"
    treatment = (manifest.get("experiment_assignments") or {}).get("connections_mobile_native") == "treatment"
    return "native_financial_connections" if (not killswitch and treatment) else "web_financial_connections"


def decode_synchronize_lite(document):
    """FC Lite's `SynchronizePayload` / `LinkAccountSessionManifest` (FCLiteManifest.swift @
    d6d91561): `manifest` with `id` (string), `hosted_auth_url`, `success_url`, `cancel_url`
    (URLs: `URL(string:)` must accept them), `product` (string) and
    `manual_entry_uses_microdeposits` (bool) required; `accountholder_token` optional."""
    if not isinstance(document, dict):
        raise DecodeError("FCLite.LinkAccountSessionManifest", ["the answer must be an object"], document)
    problems = []
    manifest = _json_required(document, "manifest", _is_object, "an object", problems)
    if isinstance(manifest, dict):
        _json_required(manifest, "id", _is_str, "a string", problems, "manifest.")
        for key in ("hosted_auth_url", "success_url", "cancel_url"):
            _json_required(manifest, key, _is_url, "a URL string", problems, "manifest.")
        _json_required(manifest, "product", _is_str, "a string", problems, "manifest.")
        _json_required(manifest, "manual_entry_uses_microdeposits", _is_bool, "a bool", problems, "manifest.")
        _json_optional(manifest, "accountholder_token", _is_str, "a string", problems, "manifest.")
    if problems:
        raise DecodeError("FCLite.LinkAccountSessionManifest", problems, document)
    decoded = Decoded(document)
    decoded.manifest = Decoded(manifest)
    return decoded


FC_ACCOUNT_CATEGORIES = {"cash", "credit", "investment", "other"}
FC_ACCOUNT_STATUSES = {"active", "disconnected", "inactive"}
FC_ACCOUNT_SUBCATEGORIES = {"checking", "credit_card", "line_of_credit", "mortgage", "other", "savings"}
FC_PAYMENT_METHOD_TYPES = {"link", "us_bank_account"}


def decode_fc_account(document, where=""):
    """`StripeAPI.FinancialConnectionsAccount` (FinancialConnectionsAccount.swift @ 4104058e):
    required `id`, `object`, `institution_name` (strings), `livemode` (bool), `created` (Int),
    `category` (cash|credit|investment|other), `status` (active|disconnected|inactive),
    `subcategory` (checking|credit_card|line_of_credit|mortgage|other|savings) and
    `supported_payment_method_types` ([us_bank_account|link]); optional `display_name`, `last4`,
    `ownership` (strings), `permissions`; `balance`, `balance_refresh`, `ownership_refresh` have
    required fields of their own (held to null here)."""
    problems, dropped = [], []
    if not isinstance(document, dict):
        raise DecodeError("StripeAPI.FinancialConnectionsAccount", [f"{where}: must be an object"], document)
    for key in ("id", "object", "institution_name"):
        _json_required(document, key, _is_str, "a string", problems, where)
    _json_required(document, "livemode", _is_bool, "a bool", problems, where)
    _json_required(document, "created", _is_int, "an integer", problems, where)
    _safe_enum(document, "category", FC_ACCOUNT_CATEGORIES, problems, dropped, where)
    _safe_enum(document, "status", FC_ACCOUNT_STATUSES, problems, dropped, where)
    _safe_enum(document, "subcategory", FC_ACCOUNT_SUBCATEGORIES, problems, dropped, where)
    kinds = _json_required(document, "supported_payment_method_types", lambda v: isinstance(v, list), "an array",
                           problems, where)
    for index, kind in enumerate(kinds or []):
        if kind not in FC_PAYMENT_METHOD_TYPES:
            dropped.append(f"{where}supported_payment_method_types[{index}] ({json.dumps(kind)[:40]} is .unparsable)")
    for key in ("display_name", "last4", "ownership"):
        _json_optional(document, key, _is_str, "a string", problems, where)
    permissions = _json_optional(document, "permissions", lambda v: isinstance(v, list), "an array", problems, where)
    for index, permission in enumerate(permissions or []):
        if permission not in FC_PERMISSIONS:
            dropped.append(f"{where}permissions[{index}] ({json.dumps(permission)[:40]} is .unparsable)")
    for key in ("balance", "balance_refresh", "ownership_refresh"):
        if _present(document, key):
            problems.append(f"{where}{key}: must be null (its decoder needs fields Purse does not have)")
    if problems:
        raise DecodeError("StripeAPI.FinancialConnectionsAccount", problems, document)
    return Decoded(document, dropped)


def decode_fc_account_list(document, where=""):
    """`StripeAPI.FinancialConnectionsSession.AccountList`: `data` ([FinancialConnectionsAccount];
    one account that does not decode fails the whole list) and `has_more` (bool), both required.
    Also what `GET /v1/link_account_sessions/list_accounts` answers."""
    problems = []
    if not isinstance(document, dict):
        raise DecodeError("StripeAPI.FinancialConnectionsSession", [f"{where}: must be an object"], document)
    data = _json_required(document, "data", lambda v: isinstance(v, list), "an array", problems, where)
    _json_required(document, "has_more", _is_bool, "a bool", problems, where)
    if problems:
        raise DecodeError("StripeAPI.FinancialConnectionsSession", problems, document)
    decoded = Decoded(document)
    decoded.accounts = []
    for index, account in enumerate(data):
        item = decode_fc_account(account, where=f"{where}data[{index}].")
        decoded.accounts.append(item)
        decoded.dropped += item.dropped
    return decoded


SESSION_STATUSES = {"pending", "succeeded", "failed", "cancelled"}


def _payment_account_union(value, bank_account_fields):
    """`PaymentAccount.init(from:)`: first a whole account, else a bank account, else
    `.unparsable` — also for a null value (see the decoding rules above)."""
    try:
        return "linked_account", decode_fc_account(value, where="payment_account.")
    except DecodeError:
        pass
    if isinstance(value, dict) and all(check(value.get(key)) if required else
                                       (value.get(key) is None or check(value.get(key)))
                                       for key, check, required in bank_account_fields):
        return "bank_account", Decoded(value)
    return "unparsable", None


FULL_BANK_ACCOUNT_FIELDS = (("id", _is_str, True), ("last4", _is_str, True), ("bank_name", _is_str, False),
                            ("routing_number", _is_str, False))


def decode_fc_session(document):
    """`StripeAPI.FinancialConnectionsSession` (FinancialConnectionsSession.swift @ 3f81185e), what
    the full SDK decodes from `session_receipt`: `client_secret`, `id` (strings), `livemode`
    (bool) and `accounts` (an AccountList; the legacy key `linked_accounts` is tried when
    `accounts` fails) are required. `payment_account` is `try?`: missing is nil, anything else
    goes through `PaymentAccount.init`, which gives `.linkedAccount` (a whole
    FinancialConnectionsAccount), `.bankAccount` ({id, last4} strings) or `.unparsable` — a null
    value included. `status` (pending|succeeded|failed|cancelled) and `status_details.cancelled.reason`
    (other|custom_manual_entry) are `try?` too. The decoded object carries `payment_account_kind`
    (None, "linked_account", "bank_account" or "unparsable") and `payment_account_value`."""
    if not isinstance(document, dict):
        raise DecodeError("StripeAPI.FinancialConnectionsSession", ["the answer must be an object"], document)
    problems = []
    _json_required(document, "client_secret", _is_str, "a string", problems)
    _json_required(document, "id", _is_str, "a string", problems)
    _json_required(document, "livemode", _is_bool, "a bool", problems)
    accounts, failures = None, []
    for key in ("accounts", "linked_accounts"):
        try:
            accounts = decode_fc_account_list(document.get(key), where=f"{key}.")
            break
        except DecodeError as error:
            failures.append(error.problems if key == "accounts" or key in document else [f"{key}: missing too"])
    if accounts is None:
        problems += [problem for failure in failures for problem in failure]
    if problems:
        raise DecodeError("StripeAPI.FinancialConnectionsSession", problems, document)
    decoded = Decoded(document, accounts.dropped)
    decoded.accounts = accounts
    if "payment_account" in document:
        decoded.payment_account_kind, decoded.payment_account_value = _payment_account_union(
            document["payment_account"], FULL_BANK_ACCOUNT_FIELDS)
        if decoded.payment_account_value is not None:
            decoded.dropped += decoded.payment_account_value.dropped
    else:
        decoded.payment_account_kind, decoded.payment_account_value = None, None
    status = document.get("status")
    decoded.status = status if status in SESSION_STATUSES else None
    details = document.get("status_details")
    cancelled = details.get("cancelled") if isinstance(details, dict) else None
    reason = cancelled.get("reason") if isinstance(cancelled, dict) else None
    decoded.cancelled_reason = reason if reason in ("other", "custom_manual_entry") else (
        "unparsable" if isinstance(cancelled, dict) else None)
    decoded.has_bank_account_token = document.get("bank_account_token") is not None
    return decoded


LITE_LINKED_ACCOUNT_FIELDS = (("id", _is_str, True), ("institution_name", _is_str, True),
                              ("display_name", _is_str, False), ("last4", _is_str, False))


def decode_fc_session_lite(document):
    """FC Lite's `FinancialConnectionsSession` (FCLiteSession.swift @ d6d91561), from
    `session_receipt` and `complete`: `id` (string) required; `payment_account` optional (null or
    missing is nil), else `.linkedAccount` ({id, institution_name} strings; display_name, last4),
    `.bankAccount` ({id, last4}) or `.unparsable`."""
    if not isinstance(document, dict):
        raise DecodeError("FCLite.FinancialConnectionsSession", ["the answer must be an object"], document)
    problems = []
    _json_required(document, "id", _is_str, "a string", problems)
    if problems:
        raise DecodeError("FCLite.FinancialConnectionsSession", problems, document)
    decoded = Decoded(document)
    value = document.get("payment_account")
    if value is None:
        decoded.payment_account_kind, decoded.payment_account_value = None, None
    else:
        fields = LITE_LINKED_ACCOUNT_FIELDS
        if isinstance(value, dict) and all(check(value.get(key)) if required else
                                           (value.get(key) is None or check(value.get(key)))
                                           for key, check, required in fields):
            decoded.payment_account_kind, decoded.payment_account_value = "linked_account", Decoded(value)
        else:
            if isinstance(value, dict) and all(check(value.get(key)) if required else
                                               (value.get(key) is None or check(value.get(key)))
                                               for key, check, required in FULL_BANK_ACCOUNT_FIELDS):
                decoded.payment_account_kind, decoded.payment_account_value = "bank_account", Decoded(value)
            else:
                decoded.payment_account_kind, decoded.payment_account_value = "unparsable", None
    return decoded


def linked_bank_of(session, manual_entry_uses_microdeposits):
    """`FinancialConnectionsLinkedBank` as `FinancialConnectionsSDKImplementation.linkedBankFor` and
    `FCLiteContainerViewController.linkedBankFor` build it: `sessionId` = the session's `id`,
    `accountId` = the payment account's `id`; a linked account gives its `display_name`,
    `institution_name`, `last4` and is instantly verified; a bank account gives `bank_name` twice,
    `last4`, and is instantly verified unless the manifest says manual entry uses microdeposits.
    None for no or an unparsable payment account."""
    kind, value = session.payment_account_kind, session.payment_account_value
    if kind == "linked_account":
        return {"session_id": session["id"], "account_id": value["id"], "display_name": value.get("display_name"),
                "bank_name": value["institution_name"], "last4": value.get("last4"), "instantly_verified": True}
    if kind == "bank_account":
        return {"session_id": session["id"], "account_id": value["id"], "display_name": value.get("bank_name"),
                "bank_name": value.get("bank_name"), "last4": value["last4"],
                "instantly_verified": not manual_entry_uses_microdeposits}
    return None


# The hosted page


def hosted_auth_url_for(hosted_auth_url, email=None, phone=None, phone_country=None, allow_redisplay=None,
                        additional_query_parameters=None):
    """`HostedAuthUrlBuilder.build` (index id 58384445845) for a product other than instant debits:
    the parameters (`additional…`, then the prefill `email=`, `linkMobilePhone=`,
    `linkMobilePhoneCountry=`, then `launched_by=ios_sdk`, then `allow_redisplay=`) joined with
    `&`, percent-encoded with `.urlHostAllowed` (so `@` is `%40`, `&` and `=` stay), and appended
    to the manifest's URL with a literal `&` (none when it already ends with `&`): the URL must
    already have its `?`."""
    parameters = []
    if additional_query_parameters:
        parameters.append(additional_query_parameters)
    if email:
        parameters.append(f"email={email}")
    if phone:
        parameters.append(f"linkMobilePhone={phone}")
    if phone_country:
        parameters.append(f"linkMobilePhoneCountry={phone_country}")
    parameters.append("launched_by=ios_sdk")
    if allow_redisplay:
        parameters.append(f"allow_redisplay={allow_redisplay}")
    joined = urllib.parse.quote("&".join(parameters), safe="!$&'()*+,;=:[]")
    joiner = "" if hosted_auth_url.endswith("&") or joined.startswith("&") else "&"
    return hosted_auth_url + joiner + joined


def _matches_scheme_host_and_path(url, other):
    """`URL.matchesSchemeHostAndPath(of:)` (AuthenticationSessionManager.swift @ c57767ad,
    URL+MatchesSchemeHostAndPath.swift @ d6d91561): scheme, host and path equal; query ignored."""
    if not (isinstance(url, str) and isinstance(other, str)):
        return False
    a, b = urllib.parse.urlsplit(url), urllib.parse.urlsplit(other)
    return (a.scheme, a.hostname, a.path) == (b.scheme, b.hostname, b.path)


NATIVE_REDIRECT_PREFIX = "stripe-auth://native-redirect/"  # String+Extensions.swift, hasNativeRedirectPrefix


def web_result_full(url, manifest):
    """What `AuthenticationSessionManager.start` makes of the navigation that ends the visit (on
    Purse's page: the customer tapping the result page's link back to the app; `url` None when
    there was none). The ASWebAuthenticationSession was opened with `callbackURLScheme` = the
    scheme of `success_url`: a navigation to any other scheme is not handed back (the browser
    follows it and the customer is left on whatever loads), so it is `"no_callback"`, as is no
    navigation at all. A URL with that scheme matching `success_url` by scheme, host and path is
    `"success"`, `cancel_url` `"web_cancelled"`, the native-redirect prefix `"redirect"`, anything
    else the failure "Nil return URL"."""
    success_url = manifest.get("success_url")
    if not success_url:
        return "failed: NULL `successUrl`"
    if not url or urllib.parse.urlsplit(url).scheme != urllib.parse.urlsplit(success_url).scheme:
        return "no_callback"
    if _matches_scheme_host_and_path(url, success_url):
        return "success"
    if _matches_scheme_host_and_path(url, manifest.get("cancel_url")):
        return "web_cancelled"
    if url.startswith(NATIVE_REDIRECT_PREFIX):
        return "redirect"
    return "failed: Nil return URL"


def web_result_lite(url, manifest):
    """`FCLiteAuthFlowViewController.webView(_:decidePolicyFor:)` (@ 04e2e625): every navigation
    of the WKWebView (a tapped link as much as a redirect) is checked: `success_url` by scheme,
    host and path is `"success"`, `cancel_url` `"cancelled_within_webview"`; anything else is
    allowed to load (`"navigates"`: the flow goes on in the web view), and no navigation leaves
    the customer on the page (`"stays"`)."""
    if _matches_scheme_host_and_path(url, manifest.get("success_url")):
        return "success"
    if _matches_scheme_host_and_path(url, manifest.get("cancel_url")):
        return "cancelled_within_webview"
    return "navigates" if url else "stays"


# The browser the SDK opens on the page (ASWebAuthenticationSession for the full SDK, a WKWebView
# for FC Lite), as the page sees it.
SAFARI = Browser({
    "User-Agent": "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 "
                  "(KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "Accept-Language": "en-US,en;q=0.9",
})


# The whole exchange, as STPBankAccountCollector and the Financial Connections SDKs run it


class SDKStepFailed(AssertionError):
    """A request of the flow was refused: the SDK stops there and the sheet shows an error."""


def _step_ok(reply, what):
    if 200 <= reply.status < 300:
        try:
            return reply.json()
        except ValueError:
            raise SDKStepFailed(f"{what}: {reply.method} {reply.path} answered {reply.status} with a body that is not "
                                f"JSON: {reply.text[:300]!r}") from None
    try:
        error = reply.json().get("error", {})
    except (ValueError, AttributeError):
        error = {"message": reply.text[:300]}
    raise SDKStepFailed(
        f"{what}: {reply.method} {reply.path} answered {reply.status} type={error.get('type')} code={error.get('code')} "
        f"param={error.get('param')} message={error.get('message')!r}\nrequest: {reply.url}\n"
        f"Stripe-Version: {reply.request_headers.get('Stripe-Version')}\nbody: {reply.body[:1500]}")


@dataclass
class BankAccountCollection:
    """One pass through `STPBankAccountCollector.collectBankAccountForSetup` with the
    `financialConnectionsCompletion` variant, as CustomerSheet drives it: every reply, the decoded
    objects, the page, what the browser handed back, and the `FinancialConnectionsSDKResult`
    (`completed` with a linked bank, `cancelled`, or `failed` with the SDK's message)."""

    implementation: str
    replies: list = field(default_factory=list)
    link_account_session: object = None
    synchronize: object = None
    manifest: object = None
    hosted_url: str = None
    page: object = None
    answer: object = None
    return_url: str = None
    web_result: str = None
    session: object = None
    result: str = None
    linked_bank: dict = None
    error: str = None


def close_browser(page):
    """The customer closes the browser sheet without pressing anything on the page."""
    return None


def link_account(account="checking", **values):
    """The customer picks `account` and presses "Link account"."""
    return lambda page: page.submit(account, "link", **values)


def cancel_on_page(page):
    """The customer presses "Cancel" on the page."""
    return page.submit(None, "cancel")


def collect_bank_account(sdk, setup_intent_client_secret, name, email, implementation="full", customer=link_account(),
                         return_url=RETURN_URL, prefill_email=True, taps_return=True):
    """CustomerSheet's "Continue" on the US bank account form
    (`CustomerAddPaymentMethodViewController.handleCollectBankAccount`, index id 1853013562):

    1. `POST /v1/setup_intents/{id}/link_account_sessions` on `STPAPIClient.shared` (`sdk`):
       `LinkAccountSession` must decode.
    2. The implementation `FinancialConnectionsSDKAvailability` picks:
       - "full" (`FinancialConnectionsSDKImplementation`): the sheet inserts the FC beta into the
         client, `synchronize` (initial), `FinancialConnectionsSynchronize` must decode and
         `FlowRouter` must choose the web flow; `hosted_auth_url` and `success_url` must be
         there; the page is opened (`HostedAuthUrlBuilder`), the customer acts (`customer`, a
         function of the `BankPage` returning the page's answer, or None for closing the browser),
         the browser shows the answer (the result page) and the customer taps its link back to
         the app (`taps_return`; False: closes the browser there instead),
         `AuthenticationSessionManager` classifies that navigation; then the session is read back
         (`session_receipt`, then `list_accounts` pages while `has_more`) and
         `FinancialConnectionsWebFlowViewController.fetchSession` /
         `FinancialConnectionsSDKImplementation` decide the result.
       - "lite" (`FCLiteImplementation`): `synchronize` (FC Lite's parameters, no beta),
         `LinkAccountSessionManifest`, the page in a WKWebView, `FCLiteAuthFlowViewController`
         intercepting the tapped link; `session_receipt` after success or a cancel in the web view,
         `complete` after a close outside it; `FCLiteContainerViewController.fetchSessionAndComplete`
         decides.

    A refused request raises `SDKStepFailed`, an answer the SDK cannot decode `DecodeError`."""
    flow = BankAccountCollection(implementation)
    reply = sdk.create_link_account_session(setup_intent_client_secret, name, email)
    flow.replies.append(reply)
    flow.link_account_session = decode_link_account_session(
        _step_ok(reply, "STPAPIClient.createLinkAccountSession (POST /v1/setup_intents/{id}/link_account_sessions)"))
    secret = flow.link_account_session["client_secret"]

    if implementation == "full":
        sdk.configure_financial_connections_api_version()
        reply = sdk.synchronize(secret, return_url=return_url)
        flow.replies.append(reply)
        flow.synchronize = decode_synchronize(_step_ok(reply, "HostViewController.getManifest (synchronize)"))
        flow.manifest = manifest = flow.synchronize.manifest
        if flow_of(manifest) != "web_financial_connections":
            raise AssertionError(f"FlowRouter picks {flow_of(manifest)}: Purse serves only the web flow "
                                 f"(features={manifest.get('features')}, "
                                 f"experiment_assignments={manifest.get('experiment_assignments')})")
        if not _is_url(manifest.get("hosted_auth_url")):
            flow.result, flow.error = "failed", "NULL or malformed `hostedAuthUrl`"
            return flow
        if not manifest.get("success_url"):
            flow.result, flow.error = "failed", "NULL `successUrl`"
            return flow
    else:
        reply = sdk.synchronize_lite(secret, return_url=return_url)
        flow.replies.append(reply)
        flow.synchronize = decode_synchronize_lite(_step_ok(reply, "FCLiteContainerViewController.fetchManifest"))
        flow.manifest = manifest = flow.synchronize.manifest

    flow.hosted_url = hosted_auth_url_for(manifest["hosted_auth_url"], email=email if prefill_email else None)
    flow.page = BankPage.open(flow.hosted_url, SAFARI)
    flow.answer = customer(flow.page)
    closed = flow.answer is None or not taps_return
    if not closed:
        flow.return_url = flow.answer.tap_return()
    came_back = f"(answer {flow.answer.status if flow.answer is not None else None}, " \
                f"Location {flow.answer.location if flow.answer is not None else None!r}, " \
                f"the page's link back {flow.return_url!r})"

    if implementation == "full":
        if closed:
            flow.web_result = "native_cancelled"  # ASWebAuthenticationSessionError.canceledLogin
        else:
            flow.web_result = web_result_full(flow.return_url, manifest)
            if flow.web_result.startswith("failed") or flow.web_result in ("no_callback", "redirect"):
                flow.result, flow.error = "failed", f"the browser did not come back: {flow.web_result} {came_back}"
                return flow
        flow.session = _fetch_session_full(sdk, secret, flow)
        session = flow.session
        if flow.web_result == "web_cancelled":
            if session.status == "cancelled" and session.cancelled_reason == "custom_manual_entry":
                flow.result, flow.error = "failed", "FinancialConnectionsCustomManualEntryRequiredError"
            else:
                flow.result = "cancelled"
            return flow
        if flow.web_result == "native_cancelled" and not (
                session.accounts.accounts or session.payment_account_kind is not None or session.has_bank_account_token):
            flow.result = "cancelled"
            return flow
        # FinancialConnectionsSDKImplementation.presentFinancialConnectionsSheet, `.completed(.financialConnections)`
        if session.payment_account_kind is None:
            flow.result, flow.error = "failed", "PaymentAccount is not set on FinancialConnectionsSession"
        elif session.payment_account_kind == "unparsable":
            flow.result, flow.error = "failed", "Unknown PaymentAccount is set on FinancialConnectionsSession"
        else:
            flow.result = "completed"
            flow.linked_bank = linked_bank_of(session, manifest["manual_entry_uses_microdeposits"])
        return flow

    # FC Lite
    if closed:
        cancellation = "cancelled_outside_webview"
    else:
        flow.web_result = web_result_lite(flow.return_url, manifest)
        if flow.web_result in ("navigates", "stays"):
            where = f"loads {flow.return_url!r}" if flow.web_result == "navigates" else "stays on the page"
            flow.result, flow.error = "failed", f"the web view {where} and the flow never ends {came_back}"
            return flow
        cancellation = None if flow.web_result == "success" else "cancelled_within_webview"
    flow.web_result = flow.web_result or cancellation
    if cancellation == "cancelled_outside_webview":
        reply = sdk.complete_session(secret)
        what = "FCLiteAPIClient.complete (POST /v1/link_account_sessions/complete)"
    else:
        reply = sdk.session_receipt(secret)
        what = "FCLiteAPIClient.sessionReceipt (GET /v1/link_account_sessions/session_receipt)"
    flow.replies.append(reply)
    flow.session = session = decode_fc_session_lite(_step_ok(reply, what))
    if session.payment_account_kind is None and cancellation is not None:
        flow.result = "cancelled"
        return flow
    flow.linked_bank = linked_bank_of(session, manifest["manual_entry_uses_microdeposits"])
    if flow.linked_bank is None:
        flow.result, flow.error = "failed", "FCLiteError.linkedBankUnavailable"
    else:
        flow.result = "completed"
    return flow


def _fetch_session_full(sdk, secret, flow):
    """`FinancialConnectionsSessionAPIFetcher.fetchSession` (@ 54e44219): the receipt, then, while
    `accounts.has_more`, `list_accounts` with `starting_after` = the last account's id; the
    session is rebuilt with the whole list."""
    reply = sdk.session_receipt(secret)
    flow.replies.append(reply)
    session = decode_fc_session(_step_ok(reply, "FinancialConnectionsSessionAPIFetcher.fetchSession (session_receipt)"))
    accounts = list(session.accounts.accounts)
    more = session["accounts" if "accounts" in session else "linked_accounts"]["has_more"]
    pages = 0
    while more:
        pages += 1
        assert pages < 50, "list_accounts keeps answering has_more: true"
        reply = sdk.list_accounts(secret, starting_after=accounts[-1]["id"] if accounts else None)
        flow.replies.append(reply)
        page = decode_fc_account_list(_step_ok(reply, "FinancialConnectionsAccountAPIFetcher (list_accounts)"))
        accounts += page.accounts
        session.dropped += page.dropped
        more = page["has_more"]
    session.all_accounts = accounts
    return session


def us_bank_account_payment_method_data(sheet, linked_bank, name, email):
    """The US bank account form after linking (`USBankAccountPaymentMethodElement.updateParams`,
    index id 408819556): `type=us_bank_account`, `us_bank_account[link_account_session]` = the
    linked bank's `sessionId` (`STPPaymentMethodUSBankAccountParams` @ 2b382176, the only field
    set), the name and email the form collected (the default billing collection: no address),
    and `allow_redisplay` as for the other forms (`unspecified` with an adapter, `always` with a
    customer session). `confirm_setup_intent` adds the inferred online mandate."""
    return {
        "type": "us_bank_account",
        "us_bank_account": {"link_account_session": linked_bank["session_id"]},
        "billing_details": {"name": name, "email": email},
        "allow_redisplay": "always" if sheet.integration == "session" else "unspecified",
    }
