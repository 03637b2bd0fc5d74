"""A replay of what a current stripe-android `CustomerSheet` sends to the API, and of what its JSON
parsers require of the answers, reconstructed from the stripe-android sources (read through the
search index; see docs/replays/stripe-android.md for every file, commit and symbol).

Two halves:

* `AndroidSdk`: sends requests exactly as stripe-android's `ApiRequest` does: the parameters as
  `QueryStringFactory` flattens and encodes them (Java `HashMap` key order, `a[]` for lists of
  primitives, `java.net.URLEncoder` percent-encoding, nulls dropped), the headers of
  `RequestHeadersFactory.Api`, in the query string for GET and in a form body for POST, with the
  credential the SDK uses for that call (publishable key, the customer's ephemeral key, or the
  ephemeral key a customer session hands out).
* `parse_*`: the response parsers (`ElementsSessionJsonParser`, `PaymentMethodJsonParser`,
  `SetupIntentJsonParser`, `CustomerJsonParser`, ...). Each returns a plain dict of what the SDK
  keeps, or raises `AndroidParseError` listing everything the Android parser (or the CustomerSheet
  code right after it) would reject: a `null` parse result, a missing field it dereferences, a
  value of the wrong type. Each error names the Kotlin symbol and the file version it mirrors.

Where a source is named `id N`, it was read by the index's file id (the newest version the index
holds, whose commit the index does not expose for that read); a 40-hex commit was read at that
commit. Nothing here is Stripe's code: it is a description of its wire behaviour, in Python.

Every request is recorded in conftest's SENT_CARD_DATA (URL and body) and every Authorization
header, URL, body and response body in SECRETS_SEEN, as `RecordingHTTPClient` does."""
import json
import struct
import uuid

import requests

from conftest import SECRETS_SEEN, SENT_CARD_DATA

# --------------------------------------------------------------------------------------------------
# Provenance: the stripe-android files every request and parser below comes from.
# --------------------------------------------------------------------------------------------------

REPO = "stripe/stripe-android"
SOURCES = {
    # Release
    "VERSION": ("VERSION", "02493a9133bd8c26c9c1bcb4c0672beabc46e101", "23.13.0"),
    # Transport and encoding (stripe-core)
    "ApiRequest": (
        "stripe-core/src/main/java/com/stripe/android/core/networking/ApiRequest.kt",
        "15c723acc611d4b918dfa1b116f0cb5e88c93512", "ApiRequest.url, writePostBody, Factory.createGet/createPost",
    ),
    "QueryStringFactory": (
        "stripe-core/src/main/java/com/stripe/android/core/networking/QueryStringFactory.kt",
        "553b812dc33c91d4db5da8b002cff63d77225fc2",
        "createFromParamsWithEmptyValues, compactParams, flattenParamsList, Parameter.urlEncode",
    ),
    "RequestHeadersFactory": (
        "stripe-core/src/main/java/com/stripe/android/core/networking/RequestHeadersFactory.kt",
        "15c723acc611d4b918dfa1b116f0cb5e88c93512",
        "BaseApiHeadersFactory.extraHeaders/userAgent/xStripeUserAgent, Api.postHeaders, getUserAgent",
    ),
    "NetworkConstants": (
        "stripe-core/src/main/java/com/stripe/android/core/networking/NetworkConstants.kt",
        "15c723acc611d4b918dfa1b116f0cb5e88c93512", "HEADER_* names",
    ),
    "StripeClientUserAgentHeaderFactory": (
        "stripe-core/src/main/java/com/stripe/android/core/networking/StripeClientUserAgentHeaderFactory.kt",
        "c26acb57b4f4f1538203756cc85a50a37b2a64b8", "createHeaderValue",
    ),
    "ApiVersion": (
        "stripe-core/src/main/java/com/stripe/android/core/ApiVersion.kt",
        "c126e3e55f7b8a4b0b7609a41987d0861c09f93f", "API_VERSION_CODE",
    ),
    "StripeApiRepository": (
        "payments-core/src/main/java/com/stripe/android/networking/StripeApiRepository.kt",
        "2f26c7d256ff73accef0d53c4937b40c6e3ee4d6",
        "createPaymentMethod, confirmSetupIntent, retrieveSetupIntent, getPaymentMethods, detachPaymentMethod, "
        "buildPaymentUserAgent, createClientSecretParam, createExpandParam, get*Url",
    ),
    "FraudDetectionData": (
        "payments-core/src/main/java/com/stripe/android/networking/FraudDetectionData.kt",
        "0e5df5719592d15c6a95172a2bd5dfb2bbcee3b7", "params (guid, muid, sid)",
    ),
    "FraudDetectionDataParamsUtils": (
        "stripe-core/src/main/java/com/stripe/android/core/frauddetection/FraudDetectionDataParamsUtils.kt",
        "id 4075131807", "addFraudDetectionData: only into payment_method_data / source_data",
    ),
    # Request models (payments-core)
    "ElementsSessionParams": (
        "payments-core/src/main/java/com/stripe/android/model/ElementsSessionParams.kt",
        "id 36983661418", "DeferredIntentType, Link.toQueryParams",
    ),
    "DeferredIntentParams": (
        "payments-core/src/main/java/com/stripe/android/model/DeferredIntentParams.kt",
        "0088904b4729d437d047b16206002f3b5bf4d6a3", "toQueryParams",
    ),
    "PaymentMethodCreateParams": (
        "payments-core/src/main/java/com/stripe/android/model/PaymentMethodCreateParams.kt",
        "id 3476922515", "toParamMap (overrideParamMap + allow_redisplay)",
    ),
    "ClientAttributionMetadata": (
        "payments-core/src/main/java/com/stripe/android/model/ClientAttributionMetadata.kt",
        "id 23166051314", "toParamMap",
    ),
    "ConfirmSetupIntentParams": (
        "payments-core/src/main/java/com/stripe/android/model/ConfirmSetupIntentParams.kt",
        "0326dadc3fa10f10a2667d4bc0e7589df02d0932", "toParamMap, createWithSetAsDefaultPaymentMethod(paymentMethodId)",
    ),
    "MandateDataParams": (
        "payments-core/src/test/java/com/stripe/android/model/MandateDataParamsTest.kt",
        "id 5479191198", "MandateDataParams(Type.Online.DEFAULT).toParamMap",
    ),
    "ListPaymentMethodsParams": (
        "payments-core/src/main/java/com/stripe/android/model/ListPaymentMethodsParams.kt",
        "77de572fb545493a4165a583976e19b908b73a1a", "toParamMap",
    ),
    "PaymentMethodUpdateParams": (
        "payments-core/src/main/java/com/stripe/android/model/PaymentMethodUpdateParams.kt",
        "id 5579707215", "Card.generateTypeParams, productUsageTokens",
    ),
    # PaymentSheet / CustomerSheet (paymentsheet)
    "ElementsSessionRepository": (
        "paymentsheet/src/main/java/com/stripe/android/paymentsheet/repositories/ElementsSessionRepository.kt",
        "id 51844134952", "RealElementsSessionRepository.retrieveElementsSession, toElementsSessionParams",
    ),
    "CustomerAdapterDataSource": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/data/CustomerAdapterDataSource.kt",
        "id 3556116314", "fetchElementsSession, createPaymentMethodTypes, loadCustomerSheetSession",
    ),
    "CustomerSessionElementsSessionManager": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/data/CustomerSessionElementsSessionManager.kt",
        "id 3502508572", "DefaultCustomerSessionElementsSessionManager.fetchElementsSession",
    ),
    "CustomerSessionInitializationDataSource": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/data/CustomerSessionInitializationDataSource.kt",
        "id 23562237273", "loadCustomerSheetSession (allow_redisplay ALWAYS, permissions)",
    ),
    "CustomerSessionPaymentMethodDataSource": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/data/CustomerSessionPaymentMethodDataSource.kt",
        "id 3491353126", "retrievePaymentMethods, updatePaymentMethod, detachPaymentMethod",
    ),
    "CustomerSessionSavedSelectionDataSource": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/data/CustomerSessionSavedSelectionDataSource.kt",
        "id 4098968925", "setSavedSelection(shouldSyncDefault) -> saveSelectionToBackend",
    ),
    "CustomerSheetViewModel": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/CustomerSheetViewModel.kt",
        "id 3495087197",
        "createAndAttach, createPaymentMethod, attachWithSetupIntent, handleStripeIntent, "
        "modifyCardPaymentMethod, removePaymentMethod, selectSavedPaymentMethod, refreshAndUpdatePaymentMethods",
    ),
    "StripeCustomerAdapter": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/StripeCustomerAdapter.kt",
        "id 3542731295", "retrievePaymentMethods, detachPaymentMethod, updatePaymentMethod, setSelectedPaymentOption",
    ),
    "CustomerApiRepository": (
        "paymentsheet/src/main/java/com/stripe/android/paymentsheet/repositories/CustomerApiRepository.kt",
        "id 51875425870",
        "getPaymentMethods, detachPaymentMethodAndDuplicates, detachSingleLegacy, detachSingleSession, "
        "updatePaymentMethod, setDefaultPaymentMethod",
    ),
    "PaymentMethodMetadata": (
        "paymentsheet/src/main/java/com/stripe/android/lpmfoundations/paymentmethod/PaymentMethodMetadata.kt",
        "id 23190370140", "createForCustomerSheet (clientAttributionMetadata without flows)",
    ),
    "PaymentMethodSaveConsentBehavior": (
        "paymentsheet/src/main/java/com/stripe/android/lpmfoundations/paymentmethod/PaymentMethodSaveConsentBehavior.kt",
        "id 4343181052", "allowRedisplayForSetupIntent",
    ),
    "FieldValuesToParamsMapConverter": (
        "paymentsheet/src/main/java/com/stripe/android/paymentsheet/paymentdatacollection/"
        "FieldValuesToParamsMapConverter.kt",
        "id 3521483662", "transformToPaymentMethodCreateParams (productUsage = PaymentSheet)",
    ),
    "SepaDebitDefinition": (
        "paymentsheet/src/main/java/com/stripe/android/lpmfoundations/paymentmethod/definitions/"
        "SepaDebitDefinition.kt",
        "id 37080479395", "name, email, iban, requireBillingAddressIfAllowed",
    ),
    "CustomerSheetModule": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/injection/*Module.kt",
        "id 37505974094", "provideProductUsageTokens = setOf(\"CustomerSheet\")",
    ),
    # Parsers
    "ElementsSessionJsonParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/ElementsSessionJsonParser.kt",
        "id 3483439144", "parse, parseCustomer, parseCustomerSession, parseComponents, parseCardBrandChoice",
    ),
    "ElementsSessionJsonParser(LinkInSpm)": (
        "ElementsSessionJsonParser (newer build, read decompiled; not a stripe/stripe-android file)",
        "id 61108057888", "parseCustomer(enableLinkInSpm) -> payment_methods_with_link_details",
    ),
    "DeferredSetupIntentJsonParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/DeferredSetupIntentJsonParser.kt",
        "id 3766509707", "parse",
    ),
    "PaymentMethodJsonParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/PaymentMethodJsonParser.kt",
        "14ba538bdbcbfe8f91062eb3a4f67eb1c49f7e95",
        "parse, CardJsonParser, NetworksJsonParser, SepaDebitJsonParser, USBankAccountJsonParser",
    ),
    "PaymentMethodsListJsonParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/PaymentMethodsListJsonParser.kt",
        "c126e3e55f7b8a4b0b7609a41987d0861c09f93f", "parse",
    ),
    "SetupIntentJsonParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/SetupIntentJsonParser.kt",
        "0b90431aa032c453b0ba220fa15a5454d958209f", "parse, ErrorJsonParser",
    ),
    "NextActionDataParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/NextActionDataParser.kt",
        "id 5715646055", "RedirectToUrlParser.parse",
    ),
    "CustomerJsonParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/CustomerJsonParser.kt",
        "26c8de682383e3ce510b7348ebf2c787fbabfa55", "parse",
    ),
    "StripeErrorJsonParser": (
        "stripe-core/src/main/java/com/stripe/android/core/model/parsers/StripeErrorJsonParser.kt",
        "id 3907743130", "parse",
    ),
}


def cite(name):
    """`path@commit (symbol)` of a source in SOURCES, for messages."""
    path, commit, symbol = SOURCES[name]
    return f"{REPO}:{path}@{commit} ({symbol})"


# --------------------------------------------------------------------------------------------------
# Constants of the SDK and of the simulated device
# --------------------------------------------------------------------------------------------------

SDK_VERSION = "23.13.0"  # VERSION @02493a91; StripeSdkVersion.VERSION_NAME of that release
API_VERSION = "2020-03-02"  # ApiVersion.API_VERSION_CODE @c126e3e5; no betas for CustomerSheet
APP_ID = "com.example.pursesheet"  # @Named(APPLICATION_ID), sent as `mobile_app_id`
# DefaultReturnUrl: the return_url PaymentLauncher puts on a confirmation.
RETURN_URL = f"stripesdk://payment_return_url/{APP_ID}"
LOCALE = "en-US"  # Locale.getDefault().toLanguageTag()
OS_VERSION = "34"  # Build.VERSION.SDK_INT (Android 14)
MANUFACTURER, BRAND, MODEL = "Google", "google", "Pixel 8"
HTTP_AGENT = "Dalvik/2.1.0 (Linux; U; Android 14; Pixel 8 Build/AP2A.240805.005)"  # System.getProperty("http.agent")
# payment_user_agent = "stripe-android/<version>" + the repository's PRODUCT_USAGE tokens ("CustomerSheet",
# CustomerSheetModule) + the params' attribution ("PaymentSheet", FieldValuesToParamsMapConverter), joined by ";"
# (StripeApiRepository.buildPaymentUserAgent, a LinkedHashSet so duplicates collapse).
PRODUCT_USAGE = ("CustomerSheet",)
FORM_ATTRIBUTION = ("PaymentSheet",)


def payment_user_agent(attribution=()):
    """StripeApiRepository.buildPaymentUserAgent @2f26c7d2."""
    tokens = [f"stripe-android/{SDK_VERSION}"]
    for token in (*PRODUCT_USAGE, *attribution):
        if token not in tokens:
            tokens.append(token)
    return ";".join(tokens)


# --------------------------------------------------------------------------------------------------
# Form encoding: QueryStringFactory @553b812d
# --------------------------------------------------------------------------------------------------


def _java_string_hash(text):
    """java.lang.String.hashCode over UTF-16 code units, as an unsigned 32-bit value."""
    value = 0
    data = text.encode("utf-16-be")
    for index in range(0, len(data), 2):
        value = (31 * value + int.from_bytes(data[index:index + 2], "big")) & 0xFFFFFFFF
    return value


def _float32(value):
    return struct.unpack("f", struct.pack("f", value))[0]


def java_hashmap_order(keys):
    """The iteration order of `java.util.HashMap(Map)` built from `keys` in that order, as
    `QueryStringFactory.compactParams` makes one of every map level: buckets in index order,
    insertion order within a bucket. The copy constructor sizes the table as the OpenJDK 17 libcore
    of Android 14 does (`tableSizeFor((int)((float)s / 0.75f + 1.0f))`); JDK 19+ sizes it with
    `Math.ceil(s / 0.75)`, so another ART can put the same keys in another order: a server must
    never depend on parameter order."""
    keys = list(keys)
    if not keys:
        return []
    threshold = int(_float32(_float32(len(keys)) / _float32(0.75)) + 1.0)
    capacity = 1
    while capacity < threshold:
        capacity <<= 1
    buckets = [[] for _ in range(capacity)]
    for key in keys:
        hashed = _java_string_hash(key)
        spread = hashed ^ (hashed >> 16)
        buckets[spread & (capacity - 1)].append(key)
    return [key for bucket in buckets for key in bucket]


_URL_SAFE = set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-*_")


def java_url_encode(text):
    """java.net.URLEncoder.encode(text, "UTF-8"): space as '+', `.-*_` and alphanumerics kept,
    everything else (brackets and '~' included) as uppercase %XX of the UTF-8 bytes."""
    out = []
    for byte in text.encode("utf-8"):
        if byte in _URL_SAFE:
            out.append(chr(byte))
        elif byte == 0x20:
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def _to_string(value):
    """Kotlin `toString()` of a parameter value."""
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def _compact(params):
    """compactParams: every map level becomes a HashMap (hash order) without its null values."""
    return {key: (_compact(value) if isinstance(value, dict) else value)
            for key, value in ((key, params[key]) for key in java_hashmap_order(params))
            if value is not None}


def _flatten_value(value, prefix):
    if isinstance(value, dict):
        return _flatten_map(value, prefix)
    if isinstance(value, (list, tuple)):
        if not value:
            return [(prefix, "")]
        if all(isinstance(item, (str, int, float, bool)) for item in value):
            return [pair for item in value for pair in _flatten_value(item, f"{prefix}[]")]
        return [pair for index, item in enumerate(value) for pair in _flatten_value(item, f"{prefix}[{index}]")]
    if value is None:
        return [(prefix, "")]
    return [(prefix, _to_string(value))]


def _flatten_map(params, prefix=None):
    pairs = []
    for key, value in params.items():
        pairs += _flatten_value(value, f"{prefix}[{key}]" if prefix else key)
    return pairs


def encode_params(params):
    """QueryStringFactory.createFromParamsWithEmptyValues: the exact query string or form body."""
    if not params:
        return ""
    return "&".join(f"{java_url_encode(key)}={java_url_encode(value)}" for key, value in _flatten_map(_compact(params)))


# --------------------------------------------------------------------------------------------------
# Headers: RequestHeadersFactory.Api @15c723ac, StripeClientUserAgentHeaderFactory @c26acb57
# --------------------------------------------------------------------------------------------------


def _org_json_string(value):
    """Android org.json's JSONStringer.string: escapes '"', '\\' and '/' (as "\\/")."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("/", "\\/")
    return f'"{escaped}"'


def x_stripe_client_user_agent():
    """StripeClientUserAgentHeaderFactory.createHeaderValue: JSONObject(mapOf(...)).toString()."""
    fields = [
        ("os.name", "android"), ("os.version", OS_VERSION), ("bindings.version", SDK_VERSION),
        ("lang", "Java"), ("publisher", "Stripe"), ("http.agent", HTTP_AGENT),
    ]
    return "{" + ",".join(f"{_org_json_string(k)}:{_org_json_string(v)}" for k, v in fields) + "}"


def x_stripe_user_agent():
    """RequestHeadersFactory.defaultXStripeUserAgentMap, written as `{"k":"v",...}`."""
    fields = [
        ("lang", "kotlin"), ("bindings_version", SDK_VERSION), ("os_version", OS_VERSION),
        ("type", f"{MANUFACTURER}_{BRAND}_{MODEL}"), ("model", MODEL),
    ]
    return "{" + ",".join(f'"{k}":"{v}"' for k, v in fields) + "}"


def api_headers(api_key, method):
    """RequestHeadersFactory.create() = extraHeaders + User-Agent, Accept-Charset,
    X-Stripe-User-Agent; plus Api.postHeaders (Content-Type) on a POST. No Idempotency-Key: the
    SDK never sets ApiRequest.Options.idempotencyKey on these calls; no Stripe-Account."""
    headers = {
        "Accept": "application/json",
        "Stripe-Version": API_VERSION,
        "Stripe-Mobile-SDK-Version": f"stripe-android/{SDK_VERSION}",
        "Authorization": f"Bearer {api_key}",
        "X-Stripe-Client-User-Agent": x_stripe_client_user_agent(),
        "Accept-Language": LOCALE,
        "User-Agent": f"Stripe/v1 AndroidBindings/{SDK_VERSION}",
        "Accept-Charset": "UTF-8",
        "X-Stripe-User-Agent": x_stripe_user_agent(),
    }
    if method == "POST":
        headers["Content-Type"] = "application/x-www-form-urlencoded; charset=UTF-8"
    return headers


# --------------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------------


class AndroidApiError(Exception):
    """A non-2xx answer, as the SDK sees it (StripeErrorJsonParser), with the request that got it."""

    def __init__(self, request_line, status, body):
        self.request_line = request_line
        self.status = status
        self.body = body
        try:
            self.error = json.loads(body).get("error") or {}
        except (ValueError, AttributeError):
            self.error = {}
        super().__init__(
            f"{request_line} -> {status} type={self.error.get('type')} code={self.error.get('code')} "
            f"param={self.error.get('param')} message={self.error.get('message')!r}"
        )


class Response:
    def __init__(self, request_line, status, headers, body):
        self.request_line = request_line
        self.status = status
        self.headers = headers
        self.body = body

    def json(self):
        return json.loads(self.body)


def _tracking_id():
    """A muid/guid/sid as m.stripe.com hands them out: a UUID followed by six hex digits."""
    return f"{uuid.uuid4()}{uuid.uuid4().hex[:6]}"


class AndroidSdk:
    """One app install running stripe-android's CustomerSheet against `base` (Purse): its
    publishable key (PaymentConfiguration), its analytics session id (AnalyticsRequestFactory
    .sessionId, sent as `mobile_session_id` and `client_attribution_metadata[client_session_id]`)
    and its fraud-detection ids (FraudDetectionData: muid/guid/sid, cached 30 minutes)."""

    def __init__(self, base, publishable_key):
        self.base = base.rstrip("/")
        self.publishable_key = publishable_key
        self.mobile_session_id = str(uuid.uuid4())
        self.fraud_detection = {"guid": _tracking_id(), "muid": _tracking_id(), "sid": _tracking_id()}
        self.http = requests.Session()
        # OkHttp's HttpURLConnection adds only these of its own (besides Host and Content-Length).
        self.http.headers.clear()
        self.http.headers.update({"Accept-Encoding": "gzip", "Connection": "Keep-Alive"})
        self.sent = []  # (method, url, body, headers) of every request, for the tests' assertions

    # Transport -----------------------------------------------------------------------------------

    def request(self, method, path, api_key, params=None):
        """ApiRequest: GET/DELETE carry the encoded params as the query string, POST as the body."""
        query = encode_params(params or {})
        url = f"{self.base}{path}"
        body = None
        if method in ("GET", "DELETE"):
            if query:
                url = f"{url}?{query}"
        else:
            body = query
        headers = api_headers(api_key, method)
        SENT_CARD_DATA.record(url, body)
        for text in (headers["Authorization"], url, body):
            SECRETS_SEEN.record(text)
        self.sent.append((method, url, body, headers))
        prepared = self.http.prepare_request(requests.Request(
            method, url, data=body.encode("utf-8") if body is not None else None, headers=headers,
        ))
        prepared.url = url  # as encoded above: requests would re-quote it (%7E -> ~)
        answer = self.http.send(prepared, allow_redirects=False, timeout=60)
        SECRETS_SEEN.record(answer.text)
        request_line = f"{method} {path} ({api_key.split('_')[0]}_ key)"
        if not 200 <= answer.status_code < 300:
            raise AndroidApiError(request_line, answer.status_code, answer.text)
        return Response(request_line, answer.status_code, answer.headers, answer.text)

    # Elements session ----------------------------------------------------------------------------

    def elements_session_params(
        self, payment_method_types, customer_session_client_secret=None, legacy_customer_ephemeral_key=None,
        client_default_payment_method=None,
    ):
        """RealElementsSessionRepository.retrieveElementsSession (id 51844134952) for the
        `PaymentElementLoader.InitializationMode.DeferredIntent` CustomerSheet builds
        (CustomerAdapterDataSource.fetchElementsSession id 3556116314;
        DefaultCustomerSessionElementsSessionManager.fetchElementsSession id 3502508572):
        `IntentConfiguration(mode = Setup(), paymentMethodTypes)` -> DeferredIntentParams
        .toQueryParams @0088904b (flat, bracketed keys; currency/amount/capture_method/pmc/on_behalf_of
        are null and dropped; Mode.Setup's default setupFutureUse is OffSession)."""
        params = {
            "type": "deferred_intent",
            "mobile_app_id": APP_ID,
            "locale": LOCALE,
        }
        if customer_session_client_secret is not None:
            params["customer_session_client_secret"] = customer_session_client_secret
        if legacy_customer_ephemeral_key is not None:
            params["legacy_customer_ephemeral_key"] = legacy_customer_ephemeral_key
        params["mobile_session_id"] = self.mobile_session_id
        if client_default_payment_method is not None:
            params["client_default_payment_method"] = client_default_payment_method
        params.update({
            "deferred_intent[mode]": "setup",
            "deferred_intent[amount]": None,
            "deferred_intent[currency]": None,
            "deferred_intent[setup_future_usage]": "off_session",
            "deferred_intent[capture_method]": None,
            "deferred_intent[payment_method_configuration][id]": None,
            "deferred_intent[on_behalf_of]": None,
        })
        for index, kind in enumerate(payment_method_types or []):
            params[f"deferred_intent[payment_method_types][{index}]"] = kind
        return params

    def elements_session(self, payment_method_types, **options):
        """GET /v1/elements/sessions with the publishable key (retrieveElementsSession, id 51844134952).
        The SDK falls back to a local session only on a 5xx (shouldFallback), and never for a
        deferred intent's customer: any 4xx is a load failure of the sheet."""
        response = self.request(
            "GET", "/v1/elements/sessions", self.publishable_key,
            self.elements_session_params(payment_method_types, **options),
        )
        return parse_elements_session(
            response.json(), customer_expected=options.get("customer_session_client_secret") is not None,
        )

    # Payment methods -------------------------------------------------------------------------------

    def client_attribution_metadata(self, elements_session_config_id):
        """ClientAttributionMetadata.toParamMap (id 23166051314) as PaymentMethodMetadata
        .createForCustomerSheet builds it (id 23190370140): elementsSessionConfigId = the elements
        session's `session_id`; paymentIntentCreationFlow and paymentMethodSelectionFlow null (omitted)."""
        return {
            "merchant_integration_source": "elements",
            "merchant_integration_subtype": "mobile",
            "merchant_integration_version": f"stripe-android/{SDK_VERSION}",
            "client_session_id": self.mobile_session_id,
            "elements_session_config_id": elements_session_config_id,
        }

    def create_payment_method(self, create_params, elements_session_config_id):
        """POST /v1/payment_methods with the publishable key: CustomerSheetViewModel.createPaymentMethod
        (id 3495087197) -> StripeApiRepository.createPaymentMethod @2f26c7d2:
        `paymentMethodCreateParams.toParamMap() + payment_user_agent + fraudDetectionData.params`
        (muid/guid/sid at the top level), the params carrying `client_attribution_metadata`."""
        params = dict(create_params)
        params["client_attribution_metadata"] = self.client_attribution_metadata(elements_session_config_id)
        params["payment_user_agent"] = payment_user_agent(FORM_ATTRIBUTION)
        params.update(self.fraud_detection)
        response = self.request("POST", "/v1/payment_methods", self.publishable_key, params)
        return parse_payment_method(response.json())

    def list_payment_methods(self, ephemeral_key, customer, kind):
        """GET /v1/payment_methods?customer&type&limit=100 with the ephemeral key: CustomerApiRepository
        .getPaymentMethods (id 51875425870), ListPaymentMethodsParams.toParamMap @77de572f, parsed by
        PaymentMethodsListJsonParser; cards with a wallet (apple_pay, google_pay, samsung_pay, link)
        are dropped (filterPaymentMethods)."""
        response = self.request(
            "GET", "/v1/payment_methods", ephemeral_key, {"customer": customer, "type": kind, "limit": 100},
        )
        return parse_payment_methods_list(response.json())

    def detach_payment_method(self, ephemeral_key, payment_method):
        """POST /v1/payment_methods/{pm}/detach with the ephemeral key and no parameters
        (CustomerApiRepository.detachSingleLegacy -> StripeApiRepository.detachPaymentMethod)."""
        response = self.request("POST", f"/v1/payment_methods/{payment_method}/detach", ephemeral_key, {})
        return parse_payment_method(response.json())

    def elements_detach_payment_method(self, ephemeral_key, payment_method, customer_session_client_secret):
        """POST /v1/elements/payment_methods/{pm}/detach with the customer session's ephemeral key and
        `customer_session_client_secret` (CustomerApiRepository.detachSingleSession)."""
        response = self.request(
            "POST", f"/v1/elements/payment_methods/{payment_method}/detach", ephemeral_key,
            {"customer_session_client_secret": customer_session_client_secret},
        )
        return parse_payment_method(response.json())

    def update_payment_method(self, ephemeral_key, payment_method, card):
        """POST /v1/payment_methods/{pm} with the ephemeral key: PaymentMethodUpdateParams.createCard
        (id 5579707215) -> `card[exp_month]`, `card[exp_year]`, `card[networks][preferred]` (nulls dropped),
        `billing_details` when given, plus payment_user_agent built from productUsageTokens
        {"CustomerSheet"} (CustomerSheetViewModel.modifyCardPaymentMethod)."""
        params = {"card": card, "payment_user_agent": payment_user_agent(("CustomerSheet",))}
        response = self.request("POST", f"/v1/payment_methods/{payment_method}", ephemeral_key, params)
        return parse_payment_method(response.json())

    def set_default_payment_method(self, ephemeral_key, customer, payment_method):
        """POST /v1/elements/customers/{cus}/set_default_payment_method with the session's ephemeral key
        and `payment_method` (null when the selection is cleared, and then dropped by compactParams):
        CustomerSessionSavedSelectionDataSource.saveSelectionToBackend (id 4098968925) ->
        CustomerApiRepository.setDefaultPaymentMethod; the answer is parsed by CustomerJsonParser."""
        response = self.request(
            "POST", f"/v1/elements/customers/{customer}/set_default_payment_method", ephemeral_key,
            {"payment_method": payment_method},
        )
        return parse_customer(response.json())

    # Setup intents -----------------------------------------------------------------------------------

    def retrieve_setup_intent(self, client_secret, expand=None):
        """GET /v1/setup_intents/{id}?client_secret=... with the publishable key
        (StripeApiRepository.retrieveSetupIntent: createClientSecretParam + createExpandParam).
        CustomerSheet calls it without expand before confirming (attachWithSetupIntent); PaymentLauncher
        calls it with expand=[payment_method] after the customer comes back from authentication."""
        intent_id = client_secret.split("_secret_")[0]
        params = {"client_secret": client_secret}
        if expand:
            params["expand"] = list(expand)
        response = self.request("GET", f"/v1/setup_intents/{intent_id}", self.publishable_key, params)
        return parse_setup_intent(response.json())

    def confirm_setup_intent(self, client_secret, payment_method, payment_method_type):
        """POST /v1/setup_intents/{id}/confirm with the publishable key, through ConfirmationHandler ->
        PaymentLauncher for `PaymentMethodConfirmationOption.Saved`:
        ConfirmSetupIntentParams.createWithSetAsDefaultPaymentMethod(paymentMethodId, ...) @0326dadc with
        `mandate_data` = MandateDataParams(Online.DEFAULT) when the type requires a mandate
        (sepa_debit), `return_url` = DefaultReturnUrl, `use_stripe_sdk=true`, expand=[payment_method].
        No muid/guid/sid and no payment_user_agent: FraudDetectionDataParamsUtils and
        maybeAddPaymentUserAgent only add them inside payment_method_data, which is absent."""
        intent_id = client_secret.split("_secret_")[0]
        params = {"client_secret": client_secret, "use_stripe_sdk": True, "return_url": RETURN_URL}
        if payment_method_type == "sepa_debit":
            params["mandate_data"] = {"customer_acceptance": {"type": "online", "online": {"infer_from_client": True}}}
        params["payment_method"] = payment_method
        params["expand"] = ["payment_method"]
        response = self.request("POST", f"/v1/setup_intents/{intent_id}/confirm", self.publishable_key, params)
        return parse_setup_intent(response.json())

    # PaymentSheet (not CustomerSheet) ----------------------------------------------------------------

    def payment_sheet_elements_session(self, ephemeral_key, payment_method_types):
        """PaymentSheet with `CustomerConfiguration(id, ephemeralKeySecret)` in deferred setup mode:
        the same call with `legacy_customer_ephemeral_key` (toElementsSessionParams, id 51844134952)."""
        return self.elements_session(payment_method_types, legacy_customer_ephemeral_key=ephemeral_key)


# --------------------------------------------------------------------------------------------------
# Parsers
# --------------------------------------------------------------------------------------------------


class AndroidParseError(AssertionError):
    """What stripe-android would reject in an answer (or crash on right after parsing it)."""

    def __init__(self, what, problems, source):
        self.problems = problems
        super().__init__(
            f"stripe-android would reject this {what} ({cite(source)}):\n  - " + "\n  - ".join(problems)
        )


class _Checker:
    def __init__(self):
        self.problems = []

    def fail(self, path, message):
        self.problems.append(f"{path}: {message}")

    def object(self, value, path, required=True):
        if isinstance(value, dict):
            return value
        if value is None:
            if required:
                self.fail(path, "missing or null; the parser needs a JSON object here")
            return None
        self.fail(path, f"must be a JSON object, got {type(value).__name__}")
        return None

    def string(self, parent, key, path, required=False, choices=None, nonempty=False):
        value = parent.get(key) if isinstance(parent, dict) else None
        if value is None:
            if required:
                self.fail(f"{path}.{key}", "missing or null; required")
            return None
        if not isinstance(value, str):
            self.fail(f"{path}.{key}", f"must be a string, got {type(value).__name__} {value!r}")
            return None
        if (required or nonempty) and value in ("", "null"):
            self.fail(f"{path}.{key}", "empty (StripeJsonUtils.optString reads \"\" and \"null\" as null)")
            return None
        if choices is not None and value not in choices:
            self.fail(f"{path}.{key}", f"{value!r} is none of {sorted(choices)}")
        return value if value not in ("", "null") else None

    def integer(self, parent, key, path, required=False):
        value = parent.get(key) if isinstance(parent, dict) else None
        if value is None:
            if required:
                self.fail(f"{path}.{key}", "missing or null; required")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(f"{path}.{key}", f"must be an integer, got {type(value).__name__} {value!r}")
            return None
        return value

    def boolean(self, parent, key, path, required=False):
        value = parent.get(key) if isinstance(parent, dict) else None
        if value is None:
            if required:
                self.fail(f"{path}.{key}", "missing or null; required")
            return None
        if not isinstance(value, bool):
            self.fail(f"{path}.{key}", f"must be a boolean, got {type(value).__name__} {value!r}")
            return None
        return value

    def string_list(self, parent, key, path, required=False):
        value = parent.get(key) if isinstance(parent, dict) else None
        if value is None:
            if required:
                self.fail(f"{path}.{key}", "missing or null; the parser needs an array of strings")
            return []
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            self.fail(f"{path}.{key}", f"must be an array of strings, got {value!r}")
            return []
        return value

    def done(self, what, source, result):
        if self.problems:
            raise AndroidParseError(what, self.problems, source)
        return result


# PaymentMethod.Type codes CustomerSheet can show (SupportedSavedPaymentMethodTypes.all).
SHEET_TYPES = {"card", "us_bank_account", "sepa_debit"}
# CardBrand codes (CardBrand.fromCode); anything else becomes CardBrand.Unknown (no icon, no CBC).
CARD_BRANDS = {"visa", "mastercard", "amex", "discover", "jcb", "diners", "unionpay", "cartes_bancaires"}
ALLOW_REDISPLAY = {"always", "limited", "unspecified"}
INTENT_STATUSES = {
    "requires_payment_method", "requires_confirmation", "requires_action", "processing", "requires_capture",
    "succeeded", "canceled",
}


def _check_address(check, value, path):
    address = check.object(value, path, required=False)
    if address:
        for key in ("city", "country", "line1", "line2", "postal_code", "state"):
            check.string(address, key, path)


def _check_payment_method(check, json_object, path):
    """PaymentMethodJsonParser.parse @14ba538b, plus what CustomerSheet dereferences afterwards
    (`paymentMethod.id!!` on remove/update/attach, `card.fingerprint` for duplicate removal)."""
    pm = check.object(json_object, path)
    if pm is None:
        return None
    parsed = {
        "id": check.string(pm, "id", path, required=True),
        "type": check.string(pm, "type", path, required=True),
        "created": check.integer(pm, "created", path),
        "livemode": check.boolean(pm, "livemode", path),
        "customer": check.string(pm, "customer", path),
        "allow_redisplay": check.string(pm, "allow_redisplay", path, choices=ALLOW_REDISPLAY),
    }
    if parsed["type"] is not None and parsed["type"] not in SHEET_TYPES:
        check.fail(f"{path}.type", f"{parsed['type']!r} is not a type CustomerSheet shows ({sorted(SHEET_TYPES)})")
    billing = check.object(pm.get("billing_details"), f"{path}.billing_details", required=False)
    if billing:
        _check_address(check, billing.get("address"), f"{path}.billing_details.address")
        for key in ("email", "name", "phone"):
            check.string(billing, key, f"{path}.billing_details")
    parsed["billing_details"] = billing
    kind = parsed["type"]
    if kind == "card":
        card = check.object(pm.get("card"), f"{path}.card")  # null card: no brand, last4, expiry to show
        if card:
            parsed["card"] = {
                "brand": check.string(card, "brand", f"{path}.card", required=True),
                "display_brand": check.string(card, "display_brand", f"{path}.card"),
                "last4": check.string(card, "last4", f"{path}.card", required=True),
                "exp_month": check.integer(card, "exp_month", f"{path}.card", required=True),
                "exp_year": check.integer(card, "exp_year", f"{path}.card", required=True),
                # CustomerApiRepository.detachPaymentMethodAndDuplicates compares fingerprints.
                "fingerprint": check.string(card, "fingerprint", f"{path}.card", required=True),
                "funding": check.string(card, "funding", f"{path}.card"),
                "country": check.string(card, "country", f"{path}.card"),
            }
            if parsed["card"]["brand"] is not None and parsed["card"]["brand"] not in CARD_BRANDS:
                check.fail(f"{path}.card.brand", f"{parsed['card']['brand']!r} is no CardBrand code {sorted(CARD_BRANDS)}")
            checks = check.object(card.get("checks"), f"{path}.card.checks", required=False)
            for key in ("address_line1_check", "address_postal_code_check", "cvc_check"):
                if checks:
                    check.string(checks, key, f"{path}.card.checks")
            tds = check.object(card.get("three_d_secure_usage"), f"{path}.card.three_d_secure_usage", required=False)
            if tds:
                check.boolean(tds, "supported", f"{path}.card.three_d_secure_usage")
            wallet = check.object(card.get("wallet"), f"{path}.card.wallet", required=False)
            parsed["card"]["wallet"] = check.string(wallet, "type", f"{path}.card.wallet") if wallet else None
            networks = check.object(card.get("networks"), f"{path}.card.networks", required=False)
            if networks:
                parsed["card"]["networks"] = {
                    "available": check.string_list(networks, "available", f"{path}.card.networks"),
                    "preferred": check.string(networks, "preferred", f"{path}.card.networks"),
                    "selection_mandatory": check.boolean(networks, "selection_mandatory", f"{path}.card.networks"),
                }
            else:
                parsed["card"]["networks"] = None
    elif kind == "sepa_debit":
        sepa = check.object(pm.get("sepa_debit"), f"{path}.sepa_debit")
        if sepa:
            parsed["sepa_debit"] = {key: check.string(sepa, key, f"{path}.sepa_debit")
                                    for key in ("bank_code", "branch_code", "country", "fingerprint", "last4")}
            if not parsed["sepa_debit"]["last4"]:
                check.fail(f"{path}.sepa_debit.last4", "missing; the sheet labels the account by it")
    elif kind == "us_bank_account":
        bank = check.object(pm.get("us_bank_account"), f"{path}.us_bank_account")
        if bank:
            parsed["us_bank_account"] = {key: check.string(bank, key, f"{path}.us_bank_account") for key in (
                "account_holder_type", "account_type", "bank_name", "fingerprint", "last4",
                "financial_connections_account", "routing_number")}
            # USBankAccountJsonParser: `if (json.has("networks")) ... optJSONObject("networks")
            # ?.getJSONArray("supported")`: a networks object without `supported` throws.
            if "networks" in bank and isinstance(bank["networks"], dict):
                if not isinstance(bank["networks"].get("supported"), list):
                    check.fail(f"{path}.us_bank_account.networks.supported",
                               "missing: USBankAccountJsonParser calls getJSONArray(\"supported\"), which throws")
                check.string(bank["networks"], "preferred", f"{path}.us_bank_account.networks")
            elif "networks" in bank and bank["networks"] is not None:
                check.fail(f"{path}.us_bank_account.networks", "must be an object or null")
    return parsed


def parse_payment_method(json_object):
    """PaymentMethodJsonParser.parse @14ba538b (never null itself; CustomerSheet then needs an id)."""
    check = _Checker()
    parsed = _check_payment_method(check, json_object, "payment_method")
    return check.done("payment method", "PaymentMethodJsonParser", parsed)


def parse_payment_methods_list(json_object):
    """PaymentMethodsListJsonParser.parse @c126e3e5: `data` array, each PaymentMethodJsonParser;
    a malformed list becomes an empty one silently (runCatching), which the sheet shows as no methods,
    so it is refused here."""
    check = _Checker()
    body = check.object(json_object, "list")
    methods = []
    if body is not None:
        if body.get("object") != "list":
            check.fail("list.object", f"expected \"list\", got {body.get('object')!r}")
        data = body.get("data")
        if not isinstance(data, list):
            check.fail("list.data", "must be an array (PaymentMethodsListJsonParser falls back to no methods)")
        else:
            methods = [_check_payment_method(check, item, f"list.data[{index}]") for index, item in enumerate(data)]
    return check.done("payment method list", "PaymentMethodsListJsonParser", methods)


def _check_next_action(check, value, path):
    """NextActionDataParser (id 5715646055): RedirectToUrlParser needs `redirect_to_url.url`
    (json.has("url") + getString), else the action is null and PaymentLauncher cannot authenticate."""
    action = check.object(value, path, required=False)
    if action is None:
        return None
    kind = check.string(action, "type", path, required=True)
    parsed = {"type": kind}
    if kind == "redirect_to_url":
        redirect = check.object(action.get("redirect_to_url"), f"{path}.redirect_to_url")
        if redirect is not None:
            parsed["url"] = check.string(redirect, "url", f"{path}.redirect_to_url", required=True)
            parsed["return_url"] = check.string(redirect, "return_url", f"{path}.redirect_to_url")
    elif kind is not None and kind != "use_stripe_sdk":
        check.fail(f"{path}.type", f"{kind!r}: no card or SEPA flow of the sheet handles this next action")
    return parsed


def _check_setup_intent(check, json_object, path):
    intent = check.object(json_object, path)
    if intent is None:
        return None
    if intent.get("object") != "setup_intent":
        check.fail(f"{path}.object", f"must be \"setup_intent\" (else SetupIntentJsonParser returns null), "
                                     f"got {intent.get('object')!r}")
    parsed = {
        "id": check.string(intent, "id", path, required=True),  # requireNotNull(...) { "SetupIntent id is required." }
        "client_secret": check.string(intent, "client_secret", path),
        "status": check.string(intent, "status", path, required=True, choices=INTENT_STATUSES),
        "usage": check.string(intent, "usage", path, choices={"off_session", "on_session", "one_time"}),
        "created": check.integer(intent, "created", path),
        "livemode": check.boolean(intent, "livemode", path),
        "payment_method_types": check.string_list(intent, "payment_method_types", path),
        "cancellation_reason": check.string(intent, "cancellation_reason", path),
        "description": check.string(intent, "description", path),
    }
    payment_method = intent.get("payment_method")
    if isinstance(payment_method, dict):
        parsed["payment_method"] = _check_payment_method(check, payment_method, f"{path}.payment_method")
        parsed["payment_method_id"] = (parsed["payment_method"] or {}).get("id")
    else:
        parsed["payment_method"] = None
        parsed["payment_method_id"] = check.string(intent, "payment_method", path)
    parsed["next_action"] = _check_next_action(check, intent.get("next_action"), f"{path}.next_action")
    if parsed["status"] == "requires_action" and not (parsed["next_action"] or {}).get("url"):
        check.fail(f"{path}.next_action", "requires_action without a redirect_to_url.url the SDK can open")
    error = check.object(intent.get("last_setup_error"), f"{path}.last_setup_error", required=False)
    if error:
        parsed["last_setup_error"] = {key: check.string(error, key, f"{path}.last_setup_error")
                                      for key in ("code", "decline_code", "doc_url", "message", "param", "type")}
    else:
        parsed["last_setup_error"] = None
    return parsed


def parse_setup_intent(json_object):
    """SetupIntentJsonParser.parse @0b90431a."""
    check = _Checker()
    parsed = _check_setup_intent(check, json_object, "setup_intent")
    return check.done("setup intent", "SetupIntentJsonParser", parsed)


def parse_customer(json_object):
    """CustomerJsonParser.parse @26c8de68: `object` must be "customer" (else null, and the
    set-default call fails with "Unable to parse response")."""
    check = _Checker()
    customer = check.object(json_object, "customer")
    parsed = None
    if customer is not None:
        if customer.get("object") != "customer":
            check.fail("customer.object", f"must be \"customer\", got {customer.get('object')!r}")
        parsed = {
            "id": check.string(customer, "id", "customer", required=True),
            "email": check.string(customer, "email", "customer"),
            "description": check.string(customer, "description", "customer"),
            "livemode": check.boolean(customer, "livemode", "customer"),
        }
        invoice_settings = customer.get("invoice_settings")
        parsed["default_payment_method"] = (
            invoice_settings.get("default_payment_method") if isinstance(invoice_settings, dict) else None
        )
    return check.done("customer", "CustomerJsonParser", parsed)


def parse_error(body):
    """StripeErrorJsonParser.parse (id 3907743130): `error` object with optional strings; a body
    without one is "An improperly formatted error response was found."."""
    check = _Checker()
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    envelope = check.object(document, "body")
    error = check.object(envelope.get("error") if envelope else None, "body.error")
    parsed = None
    if error is not None:
        parsed = {key: check.string(error, key, "body.error")
                  for key in ("charge", "code", "decline_code", "message", "param", "type", "doc_url")}
        if not parsed["message"]:
            check.fail("body.error.message", "missing: the sheet shows this text to the customer")
    return check.done("error", "StripeErrorJsonParser", parsed)


def _check_components(check, value, path):
    """parseComponents: both `mobile_payment_element` and `customer_sheet` objects are required
    (either missing -> components null -> customer_session null -> customer null); an enabled component
    needs a `features` object."""
    components = check.object(value, path)
    if components is None:
        return None
    parsed = {}
    for name, features in (
        ("mobile_payment_element", ("payment_method_save", "payment_method_remove", "payment_method_remove_last",
                                    "payment_method_set_as_default", "payment_method_save_allow_redisplay_override")),
        ("customer_sheet", ("payment_method_remove", "payment_method_remove_last", "payment_method_sync_default")),
    ):
        component = check.object(components.get(name), f"{path}.{name}")
        if component is None:
            continue
        enabled = check.boolean(component, "enabled", f"{path}.{name}", required=True)
        entry = {"enabled": bool(enabled)}
        if enabled:
            feature_values = check.object(component.get("features"), f"{path}.{name}.features")
            if feature_values is not None:
                for feature in features:
                    entry[feature] = check.string(feature_values, feature, f"{path}.{name}.features")
        parsed[name] = entry
    return parsed


def _check_customer(check, value, path, enable_link_in_spm):
    """parseCustomer / parseCustomerSession (ElementsSessionJsonParser, id 3483439144)."""
    customer = check.object(value, path)
    if customer is None:
        return None
    key = "payment_methods_with_link_details" if enable_link_in_spm else "payment_methods"
    items = customer.get(key)
    methods = []
    if not isinstance(items, list):
        check.fail(f"{path}.{key}", "must be an array (null reads as no saved methods)")
    else:
        for index, item in enumerate(items):
            if enable_link_in_spm:
                # PaymentMethodWithLinkDetailsJsonParser: {payment_method, link_payment_details}
                item = check.object(item, f"{path}.{key}[{index}]")
                item = item.get("payment_method") if item else None
            methods.append(_check_payment_method(check, item, f"{path}.{key}[{index}]"))
    session = check.object(customer.get("customer_session"), f"{path}.customer_session")
    parsed_session = None
    if session is not None:
        parsed_session = {
            "id": check.string(session, "id", f"{path}.customer_session"),
            "livemode": check.boolean(session, "livemode", f"{path}.customer_session"),
            # Used as the Bearer key of every later customer call (ApiKeyValidator rejects blank / sk_).
            "api_key": check.string(session, "api_key", f"{path}.customer_session", required=True),
            # optInt: missing -> 0 -> the cached key is always stale and the session refetched each call.
            "api_key_expiry": check.integer(session, "api_key_expiry", f"{path}.customer_session", required=True),
            # Used in /v1/elements/customers/{customer}/set_default_payment_method.
            "customer": check.string(session, "customer", f"{path}.customer_session", required=True),
            "components": _check_components(check, session.get("components"), f"{path}.customer_session.components"),
        }
        api_key = parsed_session["api_key"] or ""
        if api_key.startswith(("sk_", "pk_")):
            check.fail(f"{path}.customer_session.api_key", "must be an ephemeral key, not an API key")
    default = customer.get("default_payment_method")
    if default is not None and not isinstance(default, str):
        check.fail(f"{path}.default_payment_method", f"must be a string or null, got {default!r}")
    return {
        "payment_methods": methods,
        "default_payment_method": default or None,
        "customer_session": parsed_session,
    }


def parse_elements_session(json_object, customer_expected=False, mode="deferred_intent"):
    """ElementsSessionJsonParser.parse (id 3483439144) for a deferred setup intent
    (DeferredSetupIntentJsonParser, id 3766509707), plus what CustomerSheet requires right after:
    `customer` present with a customer session (DefaultCustomerSessionElementsSessionManager
    .createCustomerSessionElementsSession throws "`customer` field should be available when using
    `CustomerSession` in elements/session!")."""
    check = _Checker()
    body = check.object(json_object, "elements_session")
    parsed = None
    if body is not None:
        preference = check.object(body.get("payment_method_preference"), "payment_method_preference")
        ordered = []
        if preference is not None:
            if preference.get("object") != "payment_method_preference":
                check.fail("payment_method_preference.object",
                           f"must be \"payment_method_preference\" (else parse returns null), got "
                           f"{preference.get('object')!r}")
            ordered = check.string_list(preference, "ordered_payment_method_types", "payment_method_preference",
                                        required=True)
            check.string(preference, "country_code", "payment_method_preference")
            if mode == "setup_intent":
                _check_setup_intent(check, preference.get("setup_intent"), "payment_method_preference.setup_intent")
        flags = check.object(body.get("flags"), "flags", required=False) or {}
        for name, value in flags.items():
            if not isinstance(value, bool):
                check.fail(f"flags.{name}", f"must be a boolean (parseFlags keeps only booleans), got {value!r}")
        enable_link_in_spm = flags.get("elements_enable_link_spm") is True
        parsed = {
            # Blank -> UUID.randomUUID() (ElementsSession.elementsSessionId); it becomes the
            # client_attribution_metadata[elements_session_config_id] of the methods the sheet creates.
            "session_id": check.string(body, "session_id", "elements_session") or str(uuid.uuid4()),
            "config_id": check.string(body, "config_id", "elements_session"),
            "ordered_payment_method_types": ordered,
            "unactivated_payment_method_types": check.string_list(body, "unactivated_payment_method_types",
                                                                  "elements_session"),
            "merchant_country": check.string(body, "merchant_country", "elements_session"),
            "google_pay_preference": check.string(body, "google_pay_preference", "elements_session"),
            "flags": flags,
        }
        cbc = check.object(body.get("card_brand_choice"), "card_brand_choice", required=False)
        parsed["card_brand_choice"] = {
            "eligible": check.boolean(cbc, "eligible", "card_brand_choice") or False,
            "preferred_networks": check.string_list(cbc, "preferred_networks", "card_brand_choice"),
        } if cbc else {"eligible": False, "preferred_networks": []}
        link = check.object(body.get("link_settings"), "link_settings", required=False)
        parsed["link_settings"] = link
        if link:
            check.string_list(link, "link_funding_sources", "link_settings")
            for key in ("link_passthrough_mode_enabled", "link_mobile_disable_signup"):
                check.boolean(link, key, "link_settings")
        specs = body.get("payment_method_specs")
        if specs is not None and not isinstance(specs, list):
            check.fail("payment_method_specs", "must be an array or null")
        customer = body.get("customer")
        if customer_expected or (isinstance(customer, dict) and customer.get("customer_session") is not None):
            parsed["customer"] = _check_customer(check, customer, "customer", enable_link_in_spm)
        else:
            # Without a customer session parseCustomer returns null: the legacy-key answer is not read.
            parsed["customer"] = None
    return check.done("elements session", "ElementsSessionJsonParser", parsed)
