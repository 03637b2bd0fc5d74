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
* Financial Connections (us_bank_account, web flow): the FC calls of payments-core and of the
  financial-connections (Full) and financial-connections-lite modules (`Stripe-Version` with the FC
  beta), their kotlinx decoders (`parse_synchronize_session_response`,
  `parse_financial_connections_session`, ...), HostedAuthUrlBuilder and the deep-link matching of
  both SDKs, and the browser (`CUSTOM_TAB`, for html_forms.py's `BankPage`) playing the Custom Tab
  or Lite WebView on Purse's test-bank page: the form, then the result page and the customer's tap
  on its link back to the app.

Where a source is named `id N`, it was read by the index's file id (the newest version the index
holds, whose commit the index does not expose for that read); a 40-hex commit was read at that
commit. Nothing here is Stripe's code: it is a description of its wire behaviour, in Python.

Every request is recorded in conftest's SENT_CARD_DATA (URL and body) and every Authorization
header, URL, body and response body in SECRETS_SEEN, as `RecordingHTTPClient` does."""
import json
import struct
import urllib.parse
import uuid

import requests

from conftest import SECRETS_SEEN, SENT_CARD_DATA
from html_forms import Browser

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
    # ---- us_bank_account through Financial Connections (web / hosted-auth flow), docs/replays/stripe-android.md
    # CustomerSheet / PaymentSheet side (paymentsheet, payments-core)
    "CustomerSheetViewModel(FC)": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/CustomerSheetViewModel.kt",
        "00bbdb023229b8406b2ce61442a997af69886c59",
        "createDefaultUsBankArguments (stripeIntentId = intent.id, clientSecret = intent.clientSecret), "
        "onPrimaryButtonPressed, createAndAttach, attachWithSetupIntent (id 51901652783)",
    ),
    "PaymentMethodKtx": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/util/PaymentMethodKtx.kt",
        "id 4910049374", "isUnverifiedUSBankAccount (us_bank_account without financial_connections_account)",
    ),
    "USBankAccountFormViewModel": (
        "paymentsheet/src/main/java/com/stripe/android/paymentsheet/paymentdatacollection/ach/"
        "USBankAccountFormViewModel.kt",
        "e0bb0e8895db51f4b9304dc34eb83a0cc836f81e",
        "collectBankAccount -> collectBankAccountForDeferredIntent, handleResultForACH (payment_account null -> "
        "reset with error), createNewPaymentSelection",
    ),
    "CustomerSheetLoader": (
        "paymentsheet/src/main/java/com/stripe/android/customersheet/CustomerSheetLoader.kt",
        "003c89e5f7832732b4b4615deae1ef4ef50b8500",
        "DefaultCustomerSheetLoader.filterSupportedPaymentMethods (card + us_bank_account)",
    ),
    "UsBankAccountDefinition": (
        "paymentsheet/src/main/java/com/stripe/android/lpmfoundations/paymentmethod/definitions/"
        "UsBankAccountDefinition.kt",
        "id 4156869161", "requirementsToBeUsedAsNewPaymentMethod (FinancialConnectionsSdk, "
        "ValidUsBankVerificationMethod, MerchantSupportsDelayedPaymentMethods)",
    ),
    "AddPaymentMethodRequirement": (
        "paymentsheet/src/main/java/com/stripe/android/lpmfoundations/paymentmethod/AddPaymentMethodRequirement.kt",
        "80d0393cd5fb1a1c2d25ee039f57ad429e57db15",
        "ValidUsBankVerificationMethod (deferred intent: always met), FinancialConnectionsSdk",
    ),
    "GetFinancialConnectionsAvailability": (
        "payments-core/src/main/java/com/stripe/android/payments/financialconnections/"
        "GetFinancialConnectionsAvailability.kt",
        "id 23271710356", "Full if the FC SDK is on the classpath, else Lite unless flags.elements_disable_fc_lite",
    ),
    "ElementsSessionJsonParser(FC)": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/ElementsSessionJsonParser.kt",
        "2063a05af3c268645894eb0882dd37251a5a62fa", "session_id -> elementsSessionId (blank -> random UUID)",
    ),
    "DeferredSetupIntentJsonParser(FC)": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/DeferredSetupIntentJsonParser.kt",
        "c22c4c9076f06805018643320c4c9330aef9afb2", "id = elementsSessionId, clientSecret = null",
    ),
    "CollectBankAccountViewModel": (
        "payments-core/src/main/java/com/stripe/android/payments/bankaccount/ui/CollectBankAccountViewModel.kt",
        "33738da0016a22230f2f05546ea086cf33097ae3",
        "createFinancialConnectionsSession: requireNotNull(session.clientSecret)",
    ),
    "CreateFinancialConnectionsSession": (
        "payments-core/src/main/java/com/stripe/android/payments/bankaccount/domain/"
        "CreateFinancialConnectionsSession.kt",
        "33738da0016a22230f2f05546ea086cf33097ae3", "forDeferredPayments (VerificationMethodParam.Automatic)",
    ),
    "CreateFinancialConnectionsSessionForDeferredPaymentParams": (
        "payments-core/src/main/java/com/stripe/android/model/"
        "CreateFinancialConnectionsSessionForDeferredPaymentParams.kt",
        "03b438dc0ef265618047b1de66e409a1b98996fd", "toMap (link_mode ?: \"LINK_DISABLED\"), VerificationMethodParam",
    ),
    "CollectBankAccountLauncher": (
        "payments-core/src/main/java/com/stripe/android/payments/bankaccount/CollectBankAccountLauncher.kt",
        "id 3848188814", "HOSTED_SURFACE_CUSTOMER_SHEET = \"customer_sheet\"",
    ),
    "CollectBankAccountForACHLauncher": (
        "payments-core/src/main/java/com/stripe/android/payments/bankaccount/CollectBankAccountForACHLauncher.kt",
        "e07ad1a3c168ce7721c44d9882bc21527a32feff", "attachToIntent = hostedSurface == null (never attach here)",
    ),
    "StripeApiRepository(FC)": (
        "payments-core/src/main/java/com/stripe/android/networking/StripeApiRepository.kt",
        "id 1760485312",
        "createFinancialConnectionsSessionForDeferredPayments, deferredFinancialConnectionsSessionUrl",
    ),
    "FinancialConnectionsSessionJsonParser": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/FinancialConnectionsSessionJsonParser.kt",
        "eb3b27412f09b132c5bbfde8326ba1c276a3271e", "parse (optString id, client_secret)",
    ),
    "PaymentMethodCreateParams(USBankAccount)": (
        "payments-core/src/main/java/com/stripe/android/model/PaymentMethodCreateParams.kt",
        "id 3476922515", "USBankAccount.toParamMap (link_account_session), productUsage empty -> no attribution",
    ),
    "ConfirmStripeIntentParamsFactory": (
        "payments-core/src/main/java/com/stripe/android/ConfirmStripeIntentParamsFactory.kt",
        "id 14211902508", "ConfirmSetupIntentParamsFactory.create: mandate_data when the type requires a mandate",
    ),
    "MandateDataParams(FC)": (
        "payments-core/src/main/java/com/stripe/android/model/MandateDataParams.kt",
        "id 5392892375", "Type.Online.DEFAULT (infer_from_client = true)",
    ),
    "PaymentMethodJsonParser(USBankAccount)": (
        "payments-core/src/main/java/com/stripe/android/model/parsers/PaymentMethodJsonParser.kt",
        "14ba538bdbcbfe8f91062eb3a4f67eb1c49f7e95", "USBankAccountJsonParser (networks.supported getJSONArray)",
    ),
    # Financial Connections SDK (financial-connections, Full)
    "ApiVersion(FC)": (
        "stripe-core/src/main/java/com/stripe/android/core/ApiVersion.kt",
        "id 4975022681", "code = API_VERSION_CODE + betas joined by \";\"",
    ),
    "FinancialConnectionsSheetConfigurationModule": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/di/"
        "FinancialConnectionsSheetConfigurationModule.kt",
        "12784f4de00d0851861c360179404c9bf6b52ab6",
        "providesApiVersion (betas = {financial_connections_client_api_beta=v1})",
    ),
    "FinancialConnectionsSheetSharedModule": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/di/"
        "FinancialConnectionsSheetSharedModule.kt",
        "0161efd78a27493397c76564cd55f40cbec22653",
        "providesJson {coerceInputValues, ignoreUnknownKeys, isLenient, encodeDefaults}, providesApiOptions",
    ),
    "FinancialConnectionsSheetModule": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/di/"
        "FinancialConnectionsSheetModule.kt",
        "00d2444247a48de8eecfd47a427f4a19af184d59", "providesProvideApiRequestOptions (publishable key)",
    ),
    "FinancialConnectionsManifestRepository": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/repository/"
        "FinancialConnectionsManifestRepository.kt",
        "54bb29439a8525924909c8f74e3ed9a586b16e60",
        "synchronize (expand, emit_events, locale, mobile[...], client_secret) (id 3566082897)",
    ),
    "FinancialConnectionsRepository": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/repository/"
        "FinancialConnectionsRepository.kt",
        "04b5a250ddedae1944f65fad1b0880ec284f067e",
        "getFinancialConnectionsSession (GET session_receipt), getFinancialConnectionsAccounts (GET list_accounts)",
    ),
    "GetFinancialConnectionsAcccountsParams": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/model/"
        "GetFinancialConnectionsAcccountsParams.kt",
        "7aa2be16df47273429c18ed8af61b696278673af", "toParamMap (client_secret, starting_after)",
    ),
    "FetchFinancialConnectionsSession": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/domain/"
        "FetchFinancialConnectionsSession.kt",
        "a32f02f90d115e258ed8aafe59ed83fb79ad9dc4", "invoke (receipt, then pages while accounts.has_more)",
    ),
    "FetchPaginatedAccountsForSession": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/domain/"
        "FetchPaginatedAccountsForSession.kt",
        "7d5310060bcea25e2fa6c320dc57b6477e9d0bed",
        "has_more -> rebuilds the session from id, client_secret, livemode, accounts (payment_account dropped)",
    ),
    "FinancialConnectionsSheetViewModel": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/"
        "FinancialConnectionsSheetViewModel.kt",
        "86c6470d1425038c2747f5a545203784353a7260",
        "openAuthFlow (hostedAuthUrl required), handleOnNewIntent (query cleared == success_url / cancel_url), "
        "onUserCancel (receipt; status_details.cancelled.reason)",
    ),
    "NativeAuthFlowRouter": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/domain/NativeAuthFlowRouter.kt",
        "9aba6dd1dbc85f5d5a2b27b2b67399398bfdb1fb",
        "nativeAuthFlowEnabled = !killswitch && experiment connections_mobile_native == treatment; "
        "features null -> killswitch",
    ),
    "Experiment": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/utils/Experiment.kt",
        "id 4769140376", "CONNECTIONS_MOBILE_NATIVE = \"connections_mobile_native\", experimentAssignment",
    ),
    "HostedAuthUrlBuilder": (
        "financial-connections-core/src/main/java/com/stripe/android/financialconnections/utils/"
        "HostedAuthUrlBuilder.kt",
        "4f22b1342899ac2dbb3962b9b6a827d7998d0bfb",
        "create: hosted_auth_url + &email= + &linkMobilePhone= + &linkMobilePhoneCountry= + &launched_by=android_sdk, "
        "joined by \"&\", unencoded",
    ),
    "FinancialConnectionsSheetRedirectActivity": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/"
        "FinancialConnectionsSheetRedirectActivity.kt",
        "bdcf9f757c976fcc9f7fceb1804c859f3f8310d9", "forwards stripe-auth://link-accounts/... to the sheet",
    ),
    "FinancialConnectionsAndroidManifest": (
        "financial-connections/src/main/AndroidManifest.xml",
        "05611ac8d02a4ae6b0f4143bf291f622e0dcbba6",
        "intent filters stripe-auth://link-accounts/${applicationId}/success|cancel (android:path, exact)",
    ),
    "SynchronizeSessionResponse": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/model/"
        "SynchronizeSessionResponse.kt",
        "a4fe4c7b402152a23813daf754a171a22d5aae5c",
        "manifest (required), text (optional), visual (required): VisualUpdate{reduced_branding, "
        "reduce_manual_entry_prominence_in_errors, merchant_logo: List<String>}",
    ),
    "FinancialConnectionsSessionManifest": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/model/"
        "FinancialConnectionsSessionManifest.kt",
        "ba975ec5f4f3aeaf04997d992c74e4ee55f82d1c", "18 properties without a default (required keys)",
    ),
    "ManualEntry": (
        "financial-connections/src/main/java/com/stripe/android/financialconnections/model/ManualEntry.kt",
        "id 3597490398", "ManualEntryMode automatic|custom (unknown -> UNKNOWN)",
    ),
    "FinancialConnectionsSession": (
        "financial-connections-core/src/main/java/com/stripe/android/financialconnections/model/"
        "FinancialConnectionsSession.kt",
        "0aa99d5fd46e7f68bd1500f81a41ffd26387bb0a",
        "client_secret, id, livemode required; accounts = accountsNew ?: accountsOld!!; Status pending|succeeded|"
        "canceled|failed (unknown -> UNKNOWN); StatusDetails.Cancelled.reason required",
    ),
    "PaymentAccountSerializer": (
        "financial-connections-core/src/main/java/com/stripe/android/financialconnections/model/serializer/"
        "PaymentAccountSerializer.kt",
        "b2ba00c76a91e5c6717d3d9d5698642bb9f3bdb2",
        "object linked_account | financial_connections.account -> FinancialConnectionsAccount, else BankAccount",
    ),
    "FinancialConnectionsAccount": (
        "financial-connections-core/src/main/java/com/stripe/android/financialconnections/model/"
        "FinancialConnectionsAccount.kt",
        "14ea2bbf3004740a7b184c705c284b825de90b80",
        "created: Int, id, institution_name, livemode, supported_payment_method_types required; object @Required",
    ),
    "BankAccount": (
        "financial-connections-core/src/main/java/com/stripe/android/financialconnections/model/BankAccount.kt",
        "14ea2bbf3004740a7b184c705c284b825de90b80", "id, last4 @Required; bank_name, routing_number optional",
    ),
    "FinancialConnectionsAccountList": (
        "financial-connections-core/src/main/java/com/stripe/android/financialconnections/model/"
        "FinancialConnectionsAccountList.kt",
        "715126c9fa242ee35163ee2f0de034be9a15ee07", "data, has_more, url required; count, total_count optional",
    ),
    # Financial Connections Lite (financial-connections-lite)
    "FinancialConnectionsLiteRepository": (
        "financial-connections-lite/src/main/java/com/stripe/android/financialconnections/lite/repository/"
        "FinancialConnectionsLiteRepository.kt",
        "4f22b1342899ac2dbb3962b9b6a827d7998d0bfb",
        "synchronize (locale, mobile[fullscreen|hide_close_button|application_id], client_secret), "
        "getFinancialConnectionsSession (GET session_receipt)",
    ),
    "FinancialConnectionsLiteDi": (
        "financial-connections-lite/src/main/java/com/stripe/android/financialconnections/lite/di/Di.kt",
        "0931ac164dd5462fe92a5e92ab348d1f6b71d110",
        "ApiVersion(betas = {financial_connections_client_api_beta=v1}); Json { ignoreUnknownKeys = true } "
        "(no coerceInputValues: null for a defaulted non-null property fails) (also f914c837)",
    ),
    "FinancialConnectionsLiteSynchronizeSessionResponse": (
        "financial-connections-lite/src/main/java/com/stripe/android/financialconnections/lite/repository/model/"
        "SynchronizeSessionResponse.kt",
        "0931ac164dd5462fe92a5e92ab348d1f6b71d110", "manifest{hosted_auth_url, success_url, cancel_url: String?}",
    ),
    "FinancialConnectionsLiteViewModel": (
        "financial-connections-lite/src/main/java/com/stripe/android/financialconnections/lite/"
        "FinancialConnectionsLiteViewModel.kt",
        "7b0afa494b832ecf312f179615d420e5a2e12290",
        "requireNotNull(hosted_auth_url, success_url, cancel_url); handleUrl: contains(success_url) -> receipt -> "
        "Completed; contains(cancel_url) -> receipt -> Canceled if payment_account == null",
    ),
    "FinancialConnectionsSheetLiteActivity": (
        "financial-connections-lite/src/main/java/com/stripe/android/financialconnections/lite/"
        "FinancialConnectionsSheetLiteActivity.kt",
        "f63e8eea334261d7512931fc6d8c65922786dd24", "WebView; shouldOverrideUrlLoading intercepts scheme stripe-auth",
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
# PaymentMethod.Type.requiresMandate among the types CustomerSheet saves.
REQUIRES_MANDATE = {"sepa_debit", "us_bank_account"}

# Financial Connections (us_bank_account). ApiVersion(betas = {"financial_connections_client_api_beta=v1"})
# .code (ApiVersion id 4975022681): the version and its betas joined by ";", no space. Sent by the
# financial-connections modules (FinancialConnectionsSheetConfigurationModule @12784f4d, Lite Di @0931ac16),
# not by payments-core (the deferred session creation keeps API_VERSION).
FC_BETA = "financial_connections_client_api_beta=v1"
FC_API_VERSION = f"{API_VERSION};{FC_BETA}"
HOSTED_SURFACE_CUSTOMER_SHEET = "customer_sheet"  # CollectBankAccountLauncher (id 3848188814)
LINK_DISABLED = "LINK_DISABLED"  # CreateFinancialConnectionsSessionForDeferredPaymentParams.toMap @03b438dc
# The deep links FinancialConnectionsSheetRedirectActivity is registered for (AndroidManifest @05611ac8,
# android:path exact, ${applicationId} = the app's package = mobile[application_id] of synchronize).
FC_SUCCESS_URL = f"stripe-auth://link-accounts/{APP_ID}/success"
FC_CANCEL_URL = f"stripe-auth://link-accounts/{APP_ID}/cancel"


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


def api_headers(api_key, method, api_version=API_VERSION):
    """RequestHeadersFactory.create() = extraHeaders + User-Agent, Accept-Charset,
    X-Stripe-User-Agent; plus Api.postHeaders (Content-Type) on a POST. No Idempotency-Key: the
    SDK never sets ApiRequest.Options.idempotencyKey on these calls; no Stripe-Account.
    `api_version` is the `ApiRequest.Factory(apiVersion)` of the module that sends: payments-core's
    plain API_VERSION, or the Financial Connections modules' FC_API_VERSION with their beta."""
    headers = {
        "Accept": "application/json",
        "Stripe-Version": api_version,
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
        self.received = []  # (request_line, status, body) of every answer, in the same order

    # Transport -----------------------------------------------------------------------------------

    def request(self, method, path, api_key, params=None, api_version=API_VERSION):
        """ApiRequest: GET/DELETE carry the encoded params as the query string, POST as the body."""
        query = encode_params(params or {})
        url = f"{self.base}{path}"
        body = None
        if method in ("GET", "DELETE"):
            if query:
                url = f"{url}?{query}"
        else:
            body = query
        headers = api_headers(api_key, method, api_version)
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
        self.received.append((request_line, answer.status_code, answer.text))
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

    def create_payment_method(self, create_params, elements_session_config_id, attribution=FORM_ATTRIBUTION):
        """POST /v1/payment_methods with the publishable key: CustomerSheetViewModel.createPaymentMethod
        (id 3495087197) -> StripeApiRepository.createPaymentMethod @2f26c7d2:
        `paymentMethodCreateParams.toParamMap() + payment_user_agent + fraudDetectionData.params`
        (muid/guid/sid at the top level), the params carrying `client_attribution_metadata`.
        `attribution` is the params' own product usage: "PaymentSheet" for the card and SEPA forms
        (FieldValuesToParamsMapConverter), none for a us_bank_account made by
        USBankAccountFormViewModel (PaymentMethodCreateParams.create(usBankAccount, ...), productUsage
        empty, id 3476922515)."""
        params = dict(create_params)
        params["client_attribution_metadata"] = self.client_attribution_metadata(elements_session_config_id)
        params["payment_user_agent"] = payment_user_agent(attribution)
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
        (sepa_debit, us_bank_account: PaymentMethod.Type.requiresMandate; ConfirmSetupIntentParamsFactory
        id 14211902508), `return_url` = DefaultReturnUrl, `use_stripe_sdk=true`, expand=[payment_method].
        No muid/guid/sid and no payment_user_agent: FraudDetectionDataParamsUtils and
        maybeAddPaymentUserAgent only add them inside payment_method_data, which is absent."""
        intent_id = client_secret.split("_secret_")[0]
        params = {"client_secret": client_secret, "use_stripe_sdk": True, "return_url": RETURN_URL}
        if payment_method_type in REQUIRES_MANDATE:
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

    # Financial Connections: us_bank_account (web / hosted-auth flow) ---------------------------------

    def create_link_account_session_for_deferred_payment(
        self, elements_session_id, hosted_surface=HOSTED_SURFACE_CUSTOMER_SHEET, link_mode=None, extra=None,
    ):
        """POST /v1/connections/link_account_sessions_for_deferred_payment with the publishable key and
        payments-core's plain Stripe-Version: StripeApiRepository.createFinancialConnectionsSessionForDeferred
        Payments (id 1760485312) <- CreateFinancialConnectionsSession.forDeferredPayments @33738da0 <-
        CollectBankAccountViewModel <- USBankAccountFormViewModel.collectBankAccountForDeferredIntent
        @e0bb0e88 (CustomerSheet's deferred setup intent has `clientSecret == null`,
        DeferredSetupIntentJsonParser @c22c4c90; `uniqueId` = `stripeIntent.id` = the elements session's
        `session_id`). Params: CreateFinancialConnectionsSessionForDeferredPaymentParams.toMap @03b438dc,
        nulls dropped: unique_id, verification_method=automatic (VerificationMethodParam.Automatic),
        hosted_surface=customer_sheet, link_mode (`linkMode?.value ?: "LINK_DISABLED"`; CustomerSheet
        passes null). Not sent by CustomerSheet (null): initial_institution, manual_entry_only,
        search_session, customer, on_behalf_of, product, amount, currency. `extra`: parameters a newer
        SDK (or PaymentSheet) may add."""
        params = {
            "unique_id": elements_session_id,
            "initial_institution": None,
            "manual_entry_only": None,
            "search_session": None,
            "verification_method": "automatic",
            "customer": None,
            "on_behalf_of": None,
            "hosted_surface": hosted_surface,
            "link_mode": link_mode or LINK_DISABLED,
            "amount": None,
            "currency": None,
            "product": None,
        }
        params.update(extra or {})
        response = self.request(
            "POST", "/v1/connections/link_account_sessions_for_deferred_payment", self.publishable_key, params,
        )
        session = parse_deferred_financial_connections_session(response.json())
        # A client secret like a setup intent's: test_zz_card_data.py checks none is kept in clear
        # (SecretsSeen's pattern does not know the fcsess_ form, so it is added here).
        SECRETS_SEEN.add(session["client_secret"])
        return session

    def synchronize_financial_connections_session(self, client_secret, supports_app_verification=False, extra=None):
        """POST /v1/financial_connections/sessions/synchronize, the Full SDK:
        FinancialConnectionsManifestRepositoryImpl.synchronize @54bb2943 (id 3566082897), publishable key
        (ProvideApiRequestOptions, FinancialConnectionsSheetModule @00d24442), Stripe-Version with the FC
        beta. `mobile[supports_app_verification]` is true only when Play Integrity was prepared; both
        app ids are the package name."""
        params = {
            "expand": ["manifest.active_auth_session"],
            "emit_events": True,
            "locale": LOCALE,
            "mobile": {
                "forced_authflow_version": "v3",
                "fullscreen": True,
                "hide_close_button": True,
                "supports_app_verification": supports_app_verification,
                "verified_app_id": APP_ID,
                "application_id": APP_ID,
            },
            "client_secret": client_secret,
        }
        for key, value in (extra or {}).items():
            if isinstance(value, dict) and isinstance(params.get(key), dict):
                params[key] = {**params[key], **value}
            else:
                params[key] = value
        response = self.request(
            "POST", "/v1/financial_connections/sessions/synchronize", self.publishable_key, params,
            api_version=FC_API_VERSION,
        )
        return parse_synchronize_session_response(response.json())

    def synchronize_financial_connections_session_lite(self, client_secret, extra=None):
        """POST /v1/financial_connections/sessions/synchronize, FC Lite: FinancialConnectionsLiteRepository
        .synchronize @4f22b134: locale, mobile[fullscreen]=true, mobile[hide_close_button]=false,
        mobile[application_id], client_secret (no expand, no emit_events, no verified_app_id); Stripe-Version
        with the FC beta (Lite Di @0931ac16)."""
        params = {
            "locale": LOCALE,
            "mobile": {"fullscreen": True, "hide_close_button": False, "application_id": APP_ID},
            "client_secret": client_secret,
        }
        params.update(extra or {})
        response = self.request(
            "POST", "/v1/financial_connections/sessions/synchronize", self.publishable_key, params,
            api_version=FC_API_VERSION,
        )
        return parse_lite_synchronize_session_response(response.json())

    def financial_connections_session_receipt(self, client_secret, lite=False, extra=None):
        """GET /v1/link_account_sessions/session_receipt?client_secret=... with the publishable key and the
        FC beta: FinancialConnectionsRepositoryImpl.getFinancialConnectionsSession @04b5a250 (Full, after the
        success or cancel deep link) or FinancialConnectionsLiteRepository.getFinancialConnectionsSession
        @4f22b134 (Lite). Decoded as FinancialConnectionsSession, with the Full SDK's lenient Json or Lite's
        strict one."""
        params = {"client_secret": client_secret}
        params.update(extra or {})
        response = self.request(
            "GET", "/v1/link_account_sessions/session_receipt", self.publishable_key, params,
            api_version=FC_API_VERSION,
        )
        return parse_financial_connections_session(response.json(), lite=lite)

    def list_financial_connections_accounts(self, client_secret, starting_after=None):
        """GET /v1/link_account_sessions/list_accounts with the publishable key and the FC beta:
        FinancialConnectionsRepositoryImpl.getFinancialConnectionsAccounts @04b5a250 with
        GetFinancialConnectionsAcccountsParams.toParamMap @7aa2be16 (client_secret, starting_after),
        what FetchPaginatedAccountsForSession @7d531006 calls while `accounts.has_more`."""
        response = self.request(
            "GET", "/v1/link_account_sessions/list_accounts", self.publishable_key,
            {"client_secret": client_secret, "starting_after": starting_after}, api_version=FC_API_VERSION,
        )
        return parse_financial_connections_account_list(response.json())

    def create_us_bank_account_payment_method(
        self, link_account_session, billing_details, allow_redisplay, elements_session_config_id,
    ):
        """POST /v1/payment_methods for the linked account, when the customer taps Save:
        USBankAccountFormViewModel.createNewPaymentSelection @e0bb0e88 builds
        PaymentMethodCreateParams.create(usBankAccount = USBankAccount(linkAccountSessionId = session.id),
        billingDetails, allowRedisplay) (id 3476922515): type=us_bank_account,
        us_bank_account[link_account_session], billing_details[...] (name and email: the form's default
        collection), allow_redisplay; CustomerSheetViewModel.createPaymentMethod sends it as for a card
        (client_attribution_metadata, payment_user_agent without a form attribution, muid/guid/sid)."""
        create_params = {
            "type": "us_bank_account",
            "billing_details": billing_details,
            "us_bank_account": {"link_account_session": link_account_session},
            "allow_redisplay": allow_redisplay,
        }
        return self.create_payment_method(create_params, elements_session_config_id, attribution=())


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


# --------------------------------------------------------------------------------------------------
# Financial Connections: decoders (kotlinx.serialization and org.json) and the web flow
# --------------------------------------------------------------------------------------------------

INT32 = (-2 ** 31, 2 ** 31 - 1)
# FinancialConnectionsAccount.OBJECT_OLD / OBJECT_NEW: PaymentAccountSerializer @b2ba00c7 decodes these
# as a FinancialConnectionsAccount, anything else as a BankAccount.
FC_ACCOUNT_OBJECTS = {"linked_account", "financial_connections.account"}
# The properties of FinancialConnectionsSessionManifest @ba975ec5 without a default value: kotlinx needs
# every one of them as a key (no `explicitNulls = false` in providesJson @0161efd7). Types as declared.
MANIFEST_REQUIRED = {
    "allow_manual_entry": "bool",
    "consent_required": "bool",
    "consent_acquired_at": "string?",  # String? without a default: the key is required, null allowed
    "custom_manual_entry_handling": "bool",
    "disable_link_more_accounts": "bool",
    "id": "string",
    "instant_verification_disabled": "bool",
    "institution_search_disabled": "bool",
    "app_verification_enabled": "bool",
    "livemode": "bool",
    "manual_entry_uses_microdeposits": "bool",
    "mobile_handoff_enabled": "bool",
    "next_pane": "enum",  # Pane, EnumIgnoreUnknownSerializer (unknown -> UNEXPECTED_ERROR)
    "manual_entry_mode": "enum",  # ManualEntryMode (id 3597490398), unknown -> UNKNOWN
    "permissions": "enum_list",  # List<FinancialConnectionsAccount.Permissions>
    "product": "enum",  # Product, unknown -> UNKNOWN
    "single_account": "bool",
    "use_single_sort_search": "bool",
}
# Optional (`= null`) properties of the manifest, and their types (objects the web flow never gets are
# not mirrored: Purse must leave them out or null).
MANIFEST_OPTIONAL = {
    "account_disconnection_method": "enum", "accountholder_customer_email_address": "string",
    "accountholder_is_link_consumer": "bool", "accountholder_phone_number": "string",
    "accountholder_token": "string", "active_auth_session": "unmirrored", "active_institution": "unmirrored",
    "assignment_event_id": "string", "business_name": "string", "cancel_url": "string",
    "connect_platform_name": "string", "connected_account_name": "string",
    "experiment_assignments": "string_map", "display_text": "unmirrored", "features": "bool_map",
    "hosted_auth_url": "string", "initial_institution": "unmirrored", "is_end_user_facing": "bool",
    "is_link_with_stripe": "bool", "is_networking_user_flow": "bool", "is_stripe_direct": "bool",
    "link_account_session_cancellation_behavior": "enum", "modal_customization": "bool_map",
    "payment_method_type": "enum", "step_up_authentication_required": "bool", "success_url": "string",
    "skip_success_pane": "bool", "theme": "enum",
}
NATIVE_KILLSWITCH = "bank_connections_mobile_native_version_killswitch"  # NativeAuthFlowRouter @9aba6dd1
NATIVE_EXPERIMENT = "connections_mobile_native"  # Experiment.CONNECTIONS_MOBILE_NATIVE (id 4769140376)


def _kx_value(check, value, kind, path):
    """One value of a kotlinx property of `kind`, already known to be non-null. Strict JSON types: the
    Full SDK's Json is lenient (quoted booleans pass), Lite's is not."""
    if kind in ("string", "enum"):
        if not isinstance(value, str):
            check.fail(path, f"must be a string, got {type(value).__name__} {value!r}")
    elif kind == "bool":
        if not isinstance(value, bool):
            check.fail(path, f"must be a boolean, got {type(value).__name__} {value!r}")
    elif kind == "int32":
        if isinstance(value, bool) or not isinstance(value, int):
            check.fail(path, f"must be an integer, got {type(value).__name__} {value!r}")
        elif not INT32[0] <= value <= INT32[1]:
            check.fail(path, f"{value} does not fit a Kotlin Int (32 bits): kotlinx fails the decode")
    elif kind == "enum_list":
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            check.fail(path, f"must be an array of strings, got {value!r}")
    elif kind == "bool_map":
        if not isinstance(value, dict) or not all(isinstance(item, bool) for item in value.values()):
            check.fail(path, f"must be an object of booleans (Map<String, Boolean>), got {value!r}")
    elif kind == "string_map":
        if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
            check.fail(path, f"must be an object of strings (Map<String, String>), got {value!r}")
    elif kind == "object":
        if not isinstance(value, dict):
            check.fail(path, f"must be a JSON object, got {type(value).__name__}")
    elif kind == "unmirrored":
        check.fail(path, "an object here needs a model this replay does not mirror (the web flow has none): "
                         "leave it out or null")


def _kx(check, parent, key, path, kind, presence, coerce=True):
    """A kotlinx property. presence: "required" (no default, non-null), "required_nullable" (`T?` without
    a default: key required, null allowed), "nullable" (`T? = null`), "defaulted" (non-null with a
    default: absent is fine; null only with coerceInputValues, which the Full SDK's Json has and Lite's
    has not)."""
    where = f"{path}.{key}"
    if not isinstance(parent, dict):
        return None
    if key not in parent:
        if presence in ("required", "required_nullable"):
            check.fail(where, "missing: a property without a default is required by kotlinx")
        return None
    value = parent[key]
    if value is None:
        if presence == "required":
            check.fail(where, "null for a non-null property without a default")
        elif presence == "defaulted" and not coerce:
            check.fail(where, "null for a non-null property with a default: only coerceInputValues accepts "
                              "that, and FC Lite's Json has none")
        return None
    _kx_value(check, value, kind, where)
    return value


def parse_deferred_financial_connections_session(json_object):
    """FinancialConnectionsSessionJsonParser.parse @eb3b2741 (org.json: optString `id`, `client_secret`;
    never null), then CollectBankAccountViewModel @33738da0 `requireNotNull(session.clientSecret)`."""
    check = _Checker()
    body = check.object(json_object, "link_account_session")
    parsed = None
    if body is not None:
        parsed = {
            "id": check.string(body, "id", "link_account_session", required=True),
            "client_secret": check.string(body, "client_secret", "link_account_session", required=True),
            "livemode": check.boolean(body, "livemode", "link_account_session"),
        }
    return check.done("link account session", "CollectBankAccountViewModel", parsed)


def native_flow_chosen(manifest):
    """NativeAuthFlowRouter.nativeAuthFlowEnabled @9aba6dd1: native iff not killswitch and the
    connections_mobile_native experiment is "treatment"; `features` null -> killswitch (`?: true`)."""
    features = manifest.get("features")
    killswitch = True if features is None else features.get(NATIVE_KILLSWITCH, False) is True
    assignments = manifest.get("experiment_assignments") or {}
    return (not killswitch) and assignments.get(NATIVE_EXPERIMENT) == "treatment"


def _check_manifest(check, manifest, path, coerce=True):
    for key, kind in MANIFEST_REQUIRED.items():
        _kx(check, manifest, key, path, kind.rstrip("?"), "required_nullable" if kind.endswith("?") else "required",
            coerce)
    for key, kind in MANIFEST_OPTIONAL.items():
        _kx(check, manifest, key, path, kind, "nullable", coerce)


def parse_synchronize_session_response(json_object):
    """SynchronizeSessionResponse @a4fe4c7b with FinancialConnectionsSessionManifest @ba975ec5, decoded
    by the Full SDK's Json (providesJson @0161efd7: coerceInputValues, ignoreUnknownKeys, isLenient),
    then what FinancialConnectionsSheetViewModel @86c6470d needs for the web flow: the web flow chosen
    (NativeAuthFlowRouter @9aba6dd1), `hosted_auth_url` (HostedAuthUrlBuilder: null -> Failed
    "hostedAuthUrl is required!"), `success_url` and `cancel_url` (handleOnNewIntent compares the deep
    link to them; null -> every return is "Error processing FinancialConnectionsSheet intent")."""
    check = _Checker()
    body = check.object(json_object, "synchronize")
    parsed = None
    if body is not None:
        manifest = check.object(body.get("manifest"), "synchronize.manifest")
        if manifest is not None:
            _check_manifest(check, manifest, "synchronize.manifest")
            for key in ("hosted_auth_url", "success_url", "cancel_url"):
                if not manifest.get(key):
                    check.fail(f"synchronize.manifest.{key}", "missing or null: the web flow needs it")
            if native_flow_chosen(manifest):
                check.fail("synchronize.manifest.experiment_assignments",
                           "connections_mobile_native=treatment without the killswitch: the SDK would run the "
                           "native flow, whose panes Purse does not serve")
        text = body.get("text")
        if text is not None:
            check.fail("synchronize.text", "TextUpdate is not mirrored here: leave it out or null")
        visual = body.get("visual")
        if visual is None:
            check.fail("synchronize.visual", "missing or null: required in the newest SynchronizeSessionResponse "
                                             "(a4fe4c7b)")
        elif not isinstance(visual, dict):
            check.fail("synchronize.visual", "must be an object")
        else:
            _kx(check, visual, "reduced_branding", "synchronize.visual", "bool", "required")
            _kx(check, visual, "reduce_manual_entry_prominence_in_errors", "synchronize.visual", "bool", "required")
            _kx(check, visual, "merchant_logo", "synchronize.visual", "enum_list", "required")
        parsed = {"manifest": manifest, "visual": visual, "text": text}
    return check.done("synchronize answer", "SynchronizeSessionResponse", parsed)


def parse_lite_synchronize_session_response(json_object):
    """FC Lite's SynchronizeSessionResponse @0931ac16 (`manifest` required; inside only hosted_auth_url,
    success_url, cancel_url, `String? = null`) with Json { ignoreUnknownKeys } (Di @0931ac16), then
    FinancialConnectionsLiteViewModel @7b0afa49 `requireNotNull` on all three."""
    check = _Checker()
    body = check.object(json_object, "synchronize")
    parsed = None
    if body is not None:
        manifest = check.object(body.get("manifest"), "synchronize.manifest")
        if manifest is not None:
            parsed = {"manifest": {key: _kx(check, manifest, key, "synchronize.manifest", "string", "nullable",
                                             coerce=False)
                                   for key in ("hosted_auth_url", "success_url", "cancel_url")}}
            for key, value in parsed["manifest"].items():
                if value is None:
                    check.fail(f"synchronize.manifest.{key}", "missing or null: requireNotNull in "
                                                              "FinancialConnectionsLiteViewModel fails the flow")
    return check.done("FC Lite synchronize answer", "FinancialConnectionsLiteViewModel", parsed)


def _check_fc_account(check, account, path, coerce, in_list):
    """FinancialConnectionsAccount @14ea2bbf."""
    if not isinstance(account, dict):
        check.fail(path, "must be a JSON object")
        return None
    if in_list:
        # `object` is @Required on the class itself: decoded directly (accounts.data) it must be present.
        _kx(check, account, "object", path, "string", "required", coerce)
    for key, kind in (("created", "int32"), ("id", "string"), ("institution_name", "string"),
                      ("livemode", "bool"), ("supported_payment_method_types", "enum_list")):
        _kx(check, account, key, path, kind, "required", coerce)
    for key in ("category", "status", "subcategory"):
        _kx(check, account, key, path, "enum", "defaulted", coerce)
    for key, kind in (("display_name", "string"), ("last4", "string"), ("ownership", "string"),
                      ("permissions", "enum_list"), ("balance", "unmirrored"), ("balance_refresh", "unmirrored"),
                      ("ownership_refresh", "unmirrored")):
        _kx(check, account, key, path, kind, "nullable", coerce)
    return {key: account.get(key) for key in (
        "object", "id", "created", "institution_name", "livemode", "last4", "category", "subcategory", "status",
        "supported_payment_method_types", "display_name", "permissions")}


def _check_account_list(check, value, path, coerce):
    """FinancialConnectionsAccountList @715126c9: data, has_more, url required."""
    body = check.object(value, path)
    if body is None:
        return None
    data = body.get("data")
    accounts = []
    if not isinstance(data, list):
        check.fail(f"{path}.data", "missing or not an array: required")
    else:
        accounts = [_check_fc_account(check, item, f"{path}.data[{index}]", coerce, in_list=True)
                    for index, item in enumerate(data)]
    return {
        "data": accounts,
        "has_more": _kx(check, body, "has_more", path, "bool", "required", coerce),
        "url": _kx(check, body, "url", path, "string", "required", coerce),
        "count": _kx(check, body, "count", path, "int32", "nullable", coerce),
        "total_count": _kx(check, body, "total_count", path, "int32", "nullable", coerce),
    }


def _check_payment_account(check, value, path, coerce):
    """PaymentAccountSerializer @b2ba00c7: by `object`, a FinancialConnectionsAccount or a BankAccount
    (@14ea2bbf: id, last4 @Required; bank_name, routing_number optional)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        check.fail(path, "must be a JSON object or null")
        return None
    if value.get("object") in FC_ACCOUNT_OBJECTS:
        parsed = _check_fc_account(check, value, path, coerce, in_list=False)
        parsed["kind"] = "financial_connections_account"
        return parsed
    for key in ("id", "last4"):
        _kx(check, value, key, path, "string", "required", coerce)
    for key in ("bank_name", "routing_number"):
        _kx(check, value, key, path, "string", "nullable", coerce)
    return {"kind": "bank_account", **{key: value.get(key) for key in ("id", "last4", "bank_name", "routing_number")}}


def parse_financial_connections_session(json_object, lite=False):
    """FinancialConnectionsSession @0aa99d5f (same shape @8c5e9ccc), decoded by the Full SDK's lenient Json
    (coerceInputValues) or FC Lite's (ignoreUnknownKeys only), plus what the flow does with it:
    `accounts` (or `linked_accounts`) must be there (`accountsNew ?: accountsOld!!`), `has_more` must be
    false (FetchPaginatedAccountsForSession @7d531006 would rebuild the session without its
    payment_account, and USBankAccountFormViewModel.handleResultForACH fails on a null payment_account).
    Whether payment_account is required depends on the outcome, so callers check it."""
    check = _Checker()
    coerce = not lite
    body = check.object(json_object, "session")
    parsed = None
    if body is not None:
        parsed = {key: _kx(check, body, key, "session", kind, "required", coerce)
                  for key, kind in (("client_secret", "string"), ("id", "string"), ("livemode", "bool"))}
        for key in ("return_url", "status"):
            parsed[key] = _kx(check, body, key, "session", "string", "nullable", coerce)
        lists = [key for key in ("accounts", "linked_accounts") if body.get(key) is not None]
        if not lists:
            check.fail("session.accounts", "missing: FinancialConnectionsSession.accounts is "
                                           "`accountsNew ?: accountsOld!!` (NPE)")
        parsed["accounts"] = None
        for key in lists:
            account_list = _check_account_list(check, body[key], f"session.{key}", coerce)
            parsed["accounts"] = parsed["accounts"] or account_list
        if parsed["accounts"] and parsed["accounts"]["has_more"] is True and not lite:
            check.fail("session.accounts.has_more", "true: FetchPaginatedAccountsForSession rebuilds the session "
                                                    "without its payment_account, and the sheet fails")
        parsed["payment_account"] = _check_payment_account(check, body.get("payment_account"),
                                                           "session.payment_account", coerce)
        details = body.get("status_details")
        parsed["status_details"] = details
        if details is not None:
            if not isinstance(details, dict):
                check.fail("session.status_details", "must be an object or null")
            elif details.get("cancelled") is not None:
                cancelled = check.object(details["cancelled"], "session.status_details.cancelled")
                _kx(check, cancelled, "reason", "session.status_details.cancelled", "enum", "required", coerce)
        manual_entry = body.get("manual_entry")
        if manual_entry is not None:
            if not isinstance(manual_entry, dict):
                check.fail("session.manual_entry", "must be an object or null")
            else:
                _kx(check, manual_entry, "mode", "session.manual_entry", "enum", "required", coerce)
    source = "FinancialConnectionsLiteViewModel" if lite else "FinancialConnectionsSession"
    return check.done("Financial Connections session", source, parsed)


def parse_financial_connections_account_list(json_object):
    """FinancialConnectionsAccountList @715126c9, the Full SDK's Json."""
    check = _Checker()
    parsed = _check_account_list(check, json_object, "list", coerce=True)
    return check.done("account list", "FinancialConnectionsAccountList", parsed)


def is_unverified_us_bank_account(payment_method):
    """PaymentMethodKtx.isUnverifiedUSBankAccount (id 4910049374): a us_bank_account without
    financial_connections_account. CustomerSheet then selects it without attaching or confirming."""
    return (payment_method["type"] == "us_bank_account"
            and not (payment_method.get("us_bank_account") or {}).get("financial_connections_account"))


def hosted_auth_url(manifest_url, email=None, phone=None, phone_country_code=None):
    """HostedAuthUrlBuilder.create @4f22b134 for ForData (us_bank_account) args: the manifest's
    hosted_auth_url, then `email=`, `linkMobilePhone=`, `linkMobilePhoneCountry=` for the prefill
    details that are set, then `launched_by=android_sdk`, joined by "&", nothing encoded."""
    parts = [manifest_url]
    if email is not None:
        parts.append(f"email={email}")
    if phone is not None:
        parts.append(f"linkMobilePhone={phone}")
    if phone_country_code is not None:
        parts.append(f"linkMobilePhoneCountry={phone_country_code}")
    parts.append("launched_by=android_sdk")
    return "&".join(parts)


def full_sdk_outcome(deep_link, manifest):
    """FinancialConnectionsSheetViewModel.handleOnNewIntent @86c6470d: the deep link with its query
    cleared (`buildUpon().clearQuery()`), compared by string equality with success_url / cancel_url."""
    split = urllib.parse.urlsplit(deep_link)
    cleared = urllib.parse.urlunsplit((split.scheme, split.netloc, split.path, "", split.fragment))
    if cleared == manifest["success_url"]:
        return "success"
    if cleared == manifest["cancel_url"]:
        return "cancel"
    return "failed"


def lite_outcome(url, manifest):
    """FinancialConnectionsLiteViewModel.handleUrl @7b0afa49 (only stripe-auth URLs reach it:
    FinancialConnectionsSheetLiteActivity's shouldOverrideUrlLoading @f63e8eea): `contains`."""
    if urllib.parse.urlsplit(url).scheme != "stripe-auth":
        return "not_intercepted"
    if manifest["success_url"] in url:
        return "success"
    if manifest["cancel_url"] in url:
        return "cancel"
    return "custom_tab"


# --------------------------------------------------------------------------------------------------
# The Custom Tab (or Lite WebView) on Purse's test-bank page: a browser, not the SDK
# --------------------------------------------------------------------------------------------------


# The Custom Tab (Full SDK, OpenAuthFlowWithUrl) or the Lite WebView on the URL HostedAuthUrlBuilder
# made, as html_forms.BankPage plays it. The customer's tap on the result page's link back
# (`tap_return`) is the gesture a Custom Tab needs to hand an app's scheme to the OS, which gives it to
# FinancialConnectionsSheetRedirectActivity (its intent filter) for the sheet (`full_sdk_outcome`);
# the Lite WebView's shouldOverrideUrlLoading sees it (`lite_outcome`).
CUSTOM_TAB = Browser({
    "User-Agent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/126.0.0.0 Mobile Safari/537.36",
    "Accept": "text/html,application/xhtml+xml,*/*;q=0.8",
})
