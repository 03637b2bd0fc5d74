#!/usr/bin/env python3
"""Writes Purse's OpenAPI 3.1 document into Sources/PurseServer/OpenAPI/OpenAPIDocument.swift, a raw
string literal the server compiles in and serves at /openapi.json (a string literal, because SwiftPM's
embedded resources are byte-array literals that took minutes to compile). Edit the document here and run this script; `--check`
(run by the test command) fails when the committed file is out of date. A Swift test compares
the document's operations with the routes the server registers."""
import json
import pathlib
import sys

def nullable(t): return {"type": [t, "null"]}
def ref(n): return {"$ref": f"#/components/schemas/{n}"}
def nref(n): return {"anyOf": [ref(n), {"type": "null"}]}
ERR = {"description": "A Stripe-style error", "content": {"application/json": {"schema": ref("Error")}}}
def ok(schema, desc="OK"): return {"description": desc, "content": {"application/json": {"schema": schema}}}
def resp(schema): return {"200": ok(schema), "default": ERR}
def body(props, required=None):
    s = {"type": "object", "properties": props, "additionalProperties": False}
    if required: s["required"] = required
    enc = {k: {"style": "deepObject", "explode": True} for k, v in props.items() if v.get("type") in ("object", "array") or "$ref" in v}
    c = {"application/x-www-form-urlencoded": {"schema": s}}
    if enc: c["application/x-www-form-urlencoded"]["encoding"] = enc
    c["application/json"] = {"schema": s}
    return {"required": False, "content": c}
def q(name, schema, desc=None, required=False):
    p = {"name": name, "in": "query", "required": required, "schema": schema}
    if schema.get("type") in ("object", "array"): p["style"] = "deepObject"; p["explode"] = True
    if desc: p["description"] = desc
    return p
def pathid(desc="The object's id"): return {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}, "description": desc}
EXPAND = q("expand", {"type": "array", "items": {"type": "string"}}, "Fields to expand (expand[]=customer)")
PAGE = [q("limit", {"type": "integer", "minimum": 1, "maximum": 100}), q("starting_after", {"type": "string"}), q("ending_before", {"type": "string"})]
CREATED = q("created", {"anyOf": [{"type": "integer"}, ref("RangeQuery")]})
S = {"type": "string"}
STR = {"type": "string", "maxLength": 5000}
def line(n): return {"type": "string", "maxLength": n, "pattern": "^[^\\r\\n]*$"}  # one line: no CR or LF
def email(n): return {"type": "string", "maxLength": n, "pattern": "^[^@\\s<>\\u0000-\\u001f\\u007f]+@[^@\\s<>\\u0000-\\u001f\\u007f]+$"}
RETURN_URL = {"type": "string", "maxLength": 2048, "description": "http(s), or an app's own scheme (myapp://...); javascript:, data:, vbscript:, file:, blob:, about: and filesystem: are refused (url_invalid)"}
address_param = {"type": "object", "properties": {k: STR for k in ["city", "country", "line1", "line2", "postal_code", "state"]}, "additionalProperties": False}
metadata_param = {"type": "object", "additionalProperties": {"type": "string", "maxLength": 500}, "maxProperties": 50}
customer_props = {
    "address": address_param,
    "description": line(5000), "email": email(512), "name": line(256),
    "phone": line(50),
    "metadata": metadata_param,
    "preferred_locales": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 10},
    "shipping": {"type": "object", "properties": {"address": address_param, "name": line(256), "phone": line(50)}, "required": ["address", "name"], "additionalProperties": False},
    "invoice_settings": {"type": "object", "properties": {"default_payment_method": S}, "additionalProperties": False},
    "expand": {"type": "array", "items": S},
}
TIMESTAMP = {"type": "integer", "minimum": 0, "maximum": 253402300799}
billing_param = {"type": "object", "properties": {"address": address_param, "email": email(800), "name": line(256), "phone": line(50)}, "additionalProperties": False}
pm_create_props = {
    "type": {"enum": ["card", "us_bank_account", "sepa_debit"]},
    "card": {"type": "object", "properties": {"number": S, "exp_month": {"type": "integer"}, "exp_year": {"type": "integer"}, "cvc": S, "token": S, "networks": {"type": "object", "properties": {"preferred": {"enum": ["cartes_bancaires", "mastercard", "visa"]}}, "additionalProperties": False}}, "additionalProperties": False},
    "us_bank_account": {"type": "object", "properties": {"account_holder_type": {"enum": ["individual", "company"]}, "account_number": S, "account_type": {"enum": ["checking", "savings"]}, "routing_number": S, "link_account_session": S, "financial_connections_account": S}, "additionalProperties": False},
    "sepa_debit": {"type": "object", "properties": {"iban": S}, "required": ["iban"], "additionalProperties": False},
    "billing_details": billing_param,
    "allow_redisplay": {"enum": ["always", "limited", "unspecified"]},
    "metadata": metadata_param,
    "expand": {"type": "array", "items": S},
}
pm_update_props = {
    "allow_redisplay": {"enum": ["always", "limited", "unspecified"]},
    "billing_details": billing_param,
    "card": {"type": "object", "properties": {"exp_month": {"type": "integer"}, "exp_year": {"type": "integer"}, "networks": {"type": "object", "properties": {"preferred": {"enum": ["cartes_bancaires", "mastercard", "visa"]}}, "additionalProperties": False}}, "additionalProperties": False},
    "us_bank_account": {"type": "object", "properties": {"account_holder_type": {"enum": ["individual", "company"]}, "account_type": {"enum": ["checking", "savings"]}}, "additionalProperties": False},
    "metadata": metadata_param,
    "expand": {"type": "array", "items": S},
}
PM_TYPE = q("type", {"enum": ["card", "us_bank_account", "sepa_debit"]})
REDISPLAY = q("allow_redisplay", {"enum": ["always", "limited", "unspecified"]})
customer_props["payment_method"] = S
# Only at creation: a customer stays on its test clock for good.
customer_create_props = dict(customer_props, test_clock={"type": "string", "maxLength": 5000})
PM_TYPES = {"type": "array", "items": {"enum": ["card", "us_bank_account", "sepa_debit"]}}
mandate_param = {"type": "object", "properties": {"customer_acceptance": {"type": "object", "required": ["type"], "properties": {
    "type": {"enum": ["online", "offline"]}, "accepted_at": {"type": "integer"},
    "online": {"type": "object", "properties": {"ip_address": S, "user_agent": S, "infer_from_client": {"type": "boolean"}}, "additionalProperties": False},
    "offline": {"type": "object", "additionalProperties": False}}, "additionalProperties": False}}, "required": ["customer_acceptance"], "additionalProperties": False}
CARD_NETWORKS = ["amex", "cartes_bancaires", "diners", "discover", "eftpos_au", "girocard", "interac", "jcb", "link", "mastercard", "unionpay", "unknown", "visa"]
fc_options_param = {"type": "object", "properties": {
    "permissions": {"type": "array", "items": {"enum": ["balances", "ownership", "payment_method", "transactions"]}},
    "prefetch": {"type": "array", "items": {"enum": ["balances", "ownership", "transactions"]}}, "return_url": S,
    "filters": {"type": "object", "properties": {"account_subcategories": {"type": "array", "items": {"enum": ["checking", "savings"]}}}, "additionalProperties": False}},
    "additionalProperties": False}
pm_options_param = {"type": "object", "properties": {
    "card": {"type": "object", "properties": {"request_three_d_secure": {"enum": ["automatic", "any", "challenge"]}, "network": {"enum": CARD_NETWORKS}}, "additionalProperties": False},
    "us_bank_account": {"type": "object", "properties": {"verification_method": {"enum": ["automatic", "instant", "microdeposits"]}, "financial_connections": fc_options_param}, "additionalProperties": False}},
    "additionalProperties": False}
pm_data_param = {"type": "object", "properties": {k: v for k, v in pm_create_props.items() if k != "expand"}, "required": ["type"], "additionalProperties": False}
si_create_props = {
    "customer_sheet_settings": S,
    "customer": S, "payment_method": S, "payment_method_data": pm_data_param, "payment_method_types": PM_TYPES,
    "automatic_payment_methods": {"type": "object", "properties": {"enabled": {"type": "boolean"}, "allow_redirects": S}, "required": ["enabled"], "additionalProperties": False},
    "payment_method_options": pm_options_param, "usage": {"enum": ["on_session", "off_session"]}, "confirm": {"type": "boolean"},
    "return_url": RETURN_URL, "description": STR, "metadata": metadata_param, "mandate_data": mandate_param, "use_stripe_sdk": {"type": "boolean"},
    "expand": {"type": "array", "items": S},
}
si_update_props = {"customer": S, "payment_method": S, "payment_method_data": pm_data_param, "payment_method_types": PM_TYPES,
    "payment_method_options": pm_options_param, "description": STR, "metadata": metadata_param, "expand": {"type": "array", "items": S}}
si_confirm_props = {"client_secret": S, "payment_method": S, "payment_method_data": pm_data_param, "payment_method_options": pm_options_param,
    "return_url": RETURN_URL, "mandate_data": mandate_param, "use_stripe_sdk": {"type": "boolean"}, "expand": {"type": "array", "items": S}}
TOGGLE = {"enum": ["enabled", "disabled"]}
REDISPLAY_FILTERS = {"type": "array", "items": {"enum": ["always", "limited", "unspecified"]}}
def component(features):
    return {"type": "object", "properties": {"enabled": {"type": "boolean"}, "features": {"type": "object", "properties": features, "additionalProperties": False}}, "required": ["enabled"], "additionalProperties": False}
session_components = {"type": "object", "properties": {
    "buy_button": {"type": "object", "properties": {"enabled": {"type": "boolean"}}, "required": ["enabled"], "additionalProperties": False},
    "pricing_table": {"type": "object", "properties": {"enabled": {"type": "boolean"}}, "required": ["enabled"], "additionalProperties": False},
    "customer_sheet": component({"payment_method_allow_redisplay_filters": REDISPLAY_FILTERS, "payment_method_remove": TOGGLE, "payment_method_remove_last": TOGGLE, "payment_method_sync_default": TOGGLE}),
    "mobile_payment_element": component({"payment_method_allow_redisplay_filters": REDISPLAY_FILTERS, "payment_method_redisplay": TOGGLE, "payment_method_remove": TOGGLE, "payment_method_remove_last": TOGGLE, "payment_method_save": TOGGLE, "payment_method_save_allow_redisplay_override": {"enum": ["always", "limited", "unspecified"]}, "payment_method_set_as_default": TOGGLE}),
    "payment_element": component({"payment_method_allow_redisplay_filters": REDISPLAY_FILTERS, "payment_method_redisplay": TOGGLE, "payment_method_redisplay_limit": {"type": "integer", "minimum": 1, "maximum": 10}, "payment_method_remove": TOGGLE, "payment_method_save": TOGGLE, "payment_method_save_usage": {"enum": ["on_session", "off_session"]}}),
}, "additionalProperties": False}
MODE = {"enum": ["automatic", "always", "never"]}
CLEARABLE = lambda items: {"anyOf": [{"type": "array", "items": items}, {"const": ""}]}
sheet_settings_props = {
    "name": STR,
    "payment_method_types": {"type": "array", "items": {"enum": ["card", "us_bank_account", "sepa_debit"]}, "minItems": 1},
    "billing_details_collection": {"type": "object", "properties": {"name": MODE, "email": MODE, "phone": MODE, "address": {"enum": ["automatic", "full", "never"]}, "attach_defaults_to_payment_method": {"type": "boolean"}}, "additionalProperties": False},
    "default_billing_details": billing_param,
    "saved_payment_method_filter": {"type": "object", "properties": {
        "card": {"type": "object", "properties": {"funding": CLEARABLE({"enum": ["credit", "debit", "prepaid", "unknown"]}), "brands": CLEARABLE({"enum": ["visa", "mastercard", "amex", "discover", "diners", "jcb", "unionpay", "unknown"]})}, "additionalProperties": False},
        "hide_expired": {"type": "boolean"},
        "allow_redisplay": CLEARABLE({"enum": ["always", "limited", "unspecified"]}),
        "countries": CLEARABLE({"type": "string", "pattern": "^[A-Z]{2}$"})}, "additionalProperties": False},
    "duplicate_cards": {"enum": ["allow", "reuse"]},
    "expand": {"type": "array", "items": S},
}
EVENT_TYPES = ["*", "billing_portal.configuration.created", "billing_portal.configuration.updated", "billing_portal.session.created", "customer.created", "customer.updated", "customer.deleted", "payment_method.attached", "payment_method.detached",
    "payment_method.updated", "payment_method.automatically_updated", "setup_intent.created", "setup_intent.requires_action",
    "setup_intent.succeeded", "setup_intent.setup_failed", "setup_intent.canceled", "test_helpers.test_clock.created",
    "test_helpers.test_clock.advancing", "test_helpers.test_clock.ready", "test_helpers.test_clock.deleted",
    "test_helpers.test_clock.internal_failure"]
webhook_create_props = {"url": {"type": "string", "format": "uri"}, "enabled_events": {"type": "array", "items": {"enum": EVENT_TYPES}, "minItems": 1},
    "description": STR, "metadata": metadata_param, "api_version": S, "expand": {"type": "array", "items": S}}
webhook_update_props = {"url": {"type": "string", "format": "uri"}, "enabled_events": {"type": "array", "items": {"enum": EVENT_TYPES}, "minItems": 1},
    "description": STR, "metadata": metadata_param, "disabled": {"type": "boolean"}, "expand": {"type": "array", "items": S}}
HTML = {"description": "An HTML page", "content": {"text/html": {"schema": {"type": "string"}}}}
# What StripeVersion.parse accepts: a date, an optional `.name`, then `; key=value` parts (stripe-ios's beta flags).
STRIPE_VERSION = {"type": "string", "pattern": r"^[ \t]*[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(\.[A-Za-z0-9_]{1,40})?[ \t]*(;[ \t]*[A-Za-z0-9_.-]+=[A-Za-z0-9_.-]+[ \t]*)*$",
                  "examples": ["2026-10-28.endive", "2020-08-27; elements_beta=v1"]}
TEST_BANK_PAGE = [{"name": "token", "in": "path", "required": True, "schema": S, "description": "The page's token"},
                  {"name": "session", "in": "query", "required": True, "schema": S, "description": "The Financial Connections session"}]
AUTH_PATH = [pathid("The setup intent"), {"name": "token", "in": "path", "required": True, "schema": S, "description": "The page's token"}]
# The customer portal (billing_portal): only payment_method_update can be on; the other features may be sent switched off.
PORTAL_LOCALES = ["auto", "bg", "cs", "da", "de", "el", "en", "en-AU", "en-CA", "en-GB", "en-IE", "en-IN", "en-NZ", "en-SG", "es", "es-419",
    "et", "fi", "fil", "fr", "fr-CA", "hr", "hu", "id", "it", "ja", "ko", "lt", "lv", "ms", "mt", "nb", "nl", "pl", "pt", "pt-BR",
    "ro", "ru", "sk", "sl", "sv", "th", "tr", "vi", "zh", "zh-HK", "zh-TW"]
OFF = {"const": False, "description": "Purse's portal serves payment methods only: true is refused (400, param names this field)"}
WEB_URL = {"type": "string", "format": "uri", "maxLength": 2048, "description": "An http or https URL (url_invalid otherwise)"}
def portal_switch(enabled, required):
    s = {"type": "object", "properties": {"enabled": enabled}, "additionalProperties": False}
    if required: s["required"] = ["enabled"]
    return s
def portal_features(creating):
    customer_update = portal_switch(OFF, creating)
    customer_update["properties"] = dict(customer_update["properties"], allowed_updates={"type": "array", "items": S, "maxItems": 0, "description": "Only empty: the portal does not update customer details"})
    return {"type": "object", "properties": {
        "customer_update": customer_update, "invoice_history": portal_switch(OFF, True),
        "payment_method_update": dict(portal_switch({"type": "boolean"}, True), properties={"enabled": {"type": "boolean"},
            "payment_method_configuration": {"const": "", "description": "Only empty: the sheet settings' payment_method_types decide what may be added"}}),
        "subscription_cancel": portal_switch(OFF, creating), "subscription_pause": portal_switch(OFF, creating),
        "subscription_update": portal_switch(OFF, creating)}, "additionalProperties": False}
portal_configuration_props = {
    "business_profile": {"type": "object", "properties": {"headline": {"type": "string", "maxLength": 60}, "privacy_policy_url": WEB_URL, "terms_of_service_url": WEB_URL}, "additionalProperties": False},
    "default_return_url": RETURN_URL, "features": portal_features(True), "login_page": portal_switch(OFF, True),
    "metadata": metadata_param, "name": {"type": "string", "maxLength": 256}, "expand": {"type": "array", "items": S},
}
portal_configuration_update_props = {"active": {"type": "boolean", "description": "The default configuration cannot be deactivated"},
    **portal_configuration_props, "features": portal_features(False)}
portal_session_props = {
    "customer": S, "configuration": {"type": "string", "description": "An active configuration; the account's default when left out"},
    "flow_data": {"type": "object", "properties": {
        "type": {"enum": ["payment_method_update"], "description": "Stripe's other flows (customer_update, subscription_*) are refused (400, param flow_data[type]): Purse keeps no subscriptions and its portal shows payment methods only"},
        "after_completion": {"type": "object", "properties": {
            "type": {"enum": ["hosted_confirmation", "portal_homepage", "redirect"]},
            "redirect": {"type": "object", "properties": {"return_url": RETURN_URL}, "required": ["return_url"], "additionalProperties": False},
            "hosted_confirmation": {"type": "object", "properties": {"custom_message": {"type": "string", "maxLength": 500}}, "additionalProperties": False}},
            "required": ["type"], "additionalProperties": False}},
        "required": ["type"], "additionalProperties": False},
    "locale": {"enum": PORTAL_LOCALES, "description": "fr and fr-CA pages are in French, auto follows the browser, the others are in English"},
    "return_url": RETURN_URL, "expand": {"type": "array", "items": S},
}
def html(desc): return {"description": desc, "content": {"text/html": {"schema": {"type": "string"}}}}
PORTAL_PATH = [pathid("The portal session (bps_...)"), {"name": "token", "in": "path", "required": True, "schema": S, "description": "The session's token, from its url"}]
PORTAL_PM = {"name": "payment_method", "in": "path", "required": True, "schema": S, "description": "One of the customer's payment methods"}
PORTAL_CLOSED = html("This link has expired: the session is unknown, revoked or expired, or the token is wrong")
PORTAL_FORBIDDEN = html("No or a wrong csrf_token, or the form came from another site (Sec-Fetch-Site: cross-site, or a foreign Origin)")
PORTAL_CSRF = {"type": "object", "properties": {"csrf_token": S}, "required": ["csrf_token"]}

doc = {
  "openapi": "3.1.0",
  "info": {"title": "Purse", "version": "1.0.0", "description": "A self-hosted payment-method settings service that speaks Stripe's API. Request bodies are form-encoded (Stripe's bracket nesting) or JSON; every error is Stripe's envelope."},
  "servers": [{"url": "/"}],
  "security": [{"bearerAuth": []}, {"basicAuth": []}],
  "paths": {
    "/healthz": {"get": {"operationId": "healthz", "summary": "The process answers", "security": [], "responses": {"200": ok(ref("Health"))}}},
    "/readyz": {"get": {"operationId": "readyz", "summary": "The database is reachable, its schema current, and a write commits within 2 s", "security": [], "responses": {"200": ok(ref("Health")), "503": ok(ref("Health"), "Not ready")}}},
    "/metrics": {"get": {"operationId": "metrics", "summary": "Prometheus metrics (text format 0.0.4): requests and latency per route template and status, the database pool, the webhook queue, the process. Public and free of tenant data; keep it off the public internet at the proxy.", "security": [], "responses": {"200": {"description": "The metrics", "content": {"text/plain; version=0.0.4": {"schema": {"type": "string"}}}}}}},
    "/openapi.json": {"get": {"operationId": "openapi", "summary": "This document", "security": [], "responses": {"200": {"description": "The OpenAPI document", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/v1/customers": {
      "post": {"operationId": "createCustomer", "summary": "Create a customer (secret key); with test_clock, on that clock (at most 3 per clock) and created at its time", "requestBody": body(customer_create_props), "responses": resp(ref("Customer"))},
      "get": {"operationId": "listCustomers", "summary": "List customers, newest first (secret key); those on a test clock only with test_clock, as Stripe's", "parameters": [q("email", S), CREATED, q("test_clock", S, "Only the customers on this test clock")] + PAGE + [EXPAND], "responses": resp(ref("CustomerList"))},
    },
    "/v1/customers/search": {
      "get": {"operationId": "searchCustomers", "summary": "Search customers with Stripe's search query language: created, email, metadata['key'], name, phone (secret key)",
              "parameters": [q("query", {"type": "string", "minLength": 1, "maxLength": 5000}, "e.g. email:'jenny@example.com' AND metadata['plan']:'pro'", required=True),
                             q("limit", {"type": "integer", "minimum": 1, "maximum": 100}), q("page", STR, "next_page of the previous page, with the same query"), EXPAND],
              "responses": resp(ref("CustomerSearchResult"))},
    },
    "/v1/customers/{id}": {
      "get": {"operationId": "retrieveCustomer", "summary": "Retrieve a customer (secret key, or the customer's own ephemeral key)", "parameters": [pathid(), EXPAND], "responses": resp({"anyOf": [ref("Customer"), ref("DeletedObject")]})},
      "post": {"operationId": "updateCustomer", "summary": "Update a customer: only what is sent changes; an empty value unsets (secret key)", "parameters": [pathid()], "requestBody": body(customer_props), "responses": resp(ref("Customer"))},
      "delete": {"operationId": "deleteCustomer", "summary": "Delete a customer (secret key)", "parameters": [pathid()], "responses": resp(ref("DeletedObject"))},
    },
    "/v1/payment_methods": {
      "post": {"operationId": "createPaymentMethod", "summary": "Create a payment method from card or bank details or a test token (secret or publishable key). The number is never stored.", "requestBody": body(pm_create_props, ["type"]), "responses": resp(ref("PaymentMethod"))},
      "get": {"operationId": "listPaymentMethods", "summary": "List a customer's payment methods (secret key, or the customer's ephemeral key)", "parameters": [q("customer", S, required=True), PM_TYPE, REDISPLAY] + PAGE + [EXPAND], "responses": resp(ref("PaymentMethodList"))},
    },
    "/v1/payment_methods/{id}": {
      "get": {"operationId": "retrievePaymentMethod", "summary": "Retrieve a payment method", "parameters": [pathid(), EXPAND], "responses": resp(ref("PaymentMethod"))},
      "post": {"operationId": "updatePaymentMethod", "summary": "Update an attached payment method", "parameters": [pathid()], "requestBody": body(pm_update_props), "responses": resp(ref("PaymentMethod"))},
    },
    "/v1/payment_methods/{id}/attach": {"post": {"operationId": "attachPaymentMethod", "summary": "Attach a payment method (or a test token such as pm_card_visa) to a customer, after a card check", "parameters": [pathid()], "requestBody": body({"customer": S, "expand": {"type": "array", "items": S}}, ["customer"]), "responses": resp(ref("PaymentMethod"))}},
    "/v1/payment_methods/{id}/detach": {"post": {"operationId": "detachPaymentMethod", "summary": "Detach a payment method for good; a default is cleared", "parameters": [pathid()], "requestBody": body({"expand": {"type": "array", "items": S}}), "responses": resp(ref("PaymentMethod"))}},
    "/v1/customers/{id}/payment_methods": {"get": {"operationId": "listCustomerPaymentMethods", "summary": "List a customer's payment methods", "parameters": [pathid("The customer"), PM_TYPE, REDISPLAY] + PAGE + [EXPAND], "responses": resp(ref("PaymentMethodList"))}},
    "/v1/customers/{id}/payment_methods/{payment_method}": {"get": {"operationId": "retrieveCustomerPaymentMethod", "summary": "Retrieve one of a customer's payment methods", "parameters": [pathid("The customer"), {"name": "payment_method", "in": "path", "required": True, "schema": S}, EXPAND], "responses": resp(ref("PaymentMethod"))}},
    "/v1/customers/{id}/selected_payment_option": {
      "get": {"operationId": "retrieveSelectedPaymentOption", "summary": "The option the customer picked on any device (Purse)", "parameters": [pathid("The customer"), EXPAND], "responses": resp(ref("SelectedPaymentOption"))},
      "post": {"operationId": "selectPaymentOption", "summary": "Select a payment method (it becomes the default), apple_pay, link, or none (empty)", "parameters": [pathid("The customer")], "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"option": S, "expand": {"type": "array", "items": S}}, "required": ["option"], "additionalProperties": False}}, "application/json": {"schema": {"type": "object", "properties": {"option": {"type": ["string", "null"]}, "expand": {"type": "array", "items": S}}, "required": ["option"], "additionalProperties": False}}}}, "responses": resp(ref("SelectedPaymentOption"))},
    },
    "/v1/customers/{id}/revoke_credentials": {"post": {"operationId": "revokeCustomerCredentials", "summary": "Revoke every ephemeral key, customer session and customer portal session of the customer at once (sign out everywhere)", "parameters": [pathid("The customer")], "requestBody": body({"expand": {"type": "array", "items": S}}), "responses": resp(ref("CredentialRevocation"))}},
    "/v1/ephemeral_keys": {"post": {"operationId": "createEphemeralKey", "summary": "Create an ephemeral key for a customer's device (secret key; the Stripe-Version header is required)", "parameters": [{"name": "Stripe-Version", "in": "header", "required": True, "schema": STRIPE_VERSION}], "requestBody": body({"customer": S, "customer_sheet_settings": S, "expand": {"type": "array", "items": S}}, ["customer"]), "responses": resp(ref("EphemeralKey"))}},
    "/v1/ephemeral_keys/{id}": {"delete": {"operationId": "revokeEphemeralKey", "summary": "Revoke an ephemeral key at once", "parameters": [pathid()], "responses": resp(ref("EphemeralKey"))}},
    "/v1/setup_intents": {
      "post": {"operationId": "createSetupIntent", "summary": "Create a setup intent (secret key)", "requestBody": body(si_create_props), "responses": resp(ref("SetupIntent"))},
      "get": {"operationId": "listSetupIntents", "summary": "List setup intents (secret key)", "parameters": [q("customer", S), q("payment_method", S), CREATED] + PAGE + [EXPAND], "responses": resp(ref("SetupIntentList"))},
    },
    "/v1/setup_intents/{id}": {
      "get": {"operationId": "retrieveSetupIntent", "summary": "Retrieve a setup intent (secret key, or publishable key with client_secret: a subset of fields)", "parameters": [pathid(), q("client_secret", S), EXPAND], "responses": resp(ref("SetupIntent"))},
      "post": {"operationId": "updateSetupIntent", "summary": "Update a setup intent (secret key)", "parameters": [pathid()], "requestBody": body(si_update_props), "responses": resp(ref("SetupIntent"))},
    },
    "/v1/setup_intents/{id}/confirm": {"post": {"operationId": "confirmSetupIntent", "summary": "Confirm a setup intent (secret key, or publishable key with client_secret)", "parameters": [pathid()], "requestBody": body(si_confirm_props), "responses": resp(ref("SetupIntent"))}},
    "/v1/setup_intents/{id}/cancel": {"post": {"operationId": "cancelSetupIntent", "summary": "Cancel a setup intent (secret key)", "parameters": [pathid()], "requestBody": body({"cancellation_reason": {"enum": ["abandoned", "requested_by_customer", "duplicate"]}, "expand": {"type": "array", "items": S}}), "responses": resp(ref("SetupIntent"))}},
    "/v1/setup_intents/{id}/verify_microdeposits": {"post": {"operationId": "verifySetupIntentMicrodeposits", "summary": "Verify the microdeposits a bank account's setup waits for: the two amounts or the statement descriptor's code (secret key, or publishable key with client_secret)", "parameters": [pathid()], "requestBody": body({"client_secret": S, "amounts": {"type": "array", "items": {"type": "integer"}}, "descriptor_code": S, "expand": {"type": "array", "items": S}}), "responses": resp(ref("SetupIntent"))}},
    "/v1/setup_intents/{id}/verify_microdeposits/{token}": {
      "get": {"operationId": "showMicrodepositsPage", "summary": "The hosted verification page next_action.verify_with_microdeposits points at (public; the token is the credential). Changes nothing.", "security": [], "parameters": AUTH_PATH, "responses": {"200": HTML, "default": ERR}},
      "post": {"operationId": "verifyMicrodepositsOnPage", "summary": "The page's form: verifies the descriptor code as verify_microdeposits does", "security": [], "parameters": AUTH_PATH,
               "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"descriptor_code": S}, "required": ["descriptor_code"]}}}},
               "responses": {"200": HTML,
                             "400": {"description": "A wrong code: the form again, with why (or the verification's end); a malformed form: an error",
                                     "content": {"text/html": {"schema": {"type": "string"}}, "application/json": {"schema": ref("Error")}}},
                             "default": ERR}},
    },
    "/v1/setup_intents/{id}/authenticate/{token}": {
      "get": {"operationId": "showAuthenticationPage", "summary": "The 3D Secure page next_action points at (public; the token is the credential). Changes nothing.", "security": [], "parameters": AUTH_PATH, "responses": {"200": HTML, "default": ERR}},
      "post": {"operationId": "decideAuthentication", "summary": "The page's buttons: complete or fail authentication, then redirect (303) to return_url when there is one", "security": [], "parameters": AUTH_PATH,
               "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {"action": {"enum": ["complete", "fail"]}}, "required": ["action"]}}}},
               "responses": {"200": HTML, "303": {"description": "Back to return_url"}, "default": ERR}},
    },
    "/v1/setup_intents/{id}/link_account_sessions": {"post": {"operationId": "createSetupIntentLinkAccountSession", "summary": "A Financial Connections session to link the bank account this setup intent will save (publishable key with client_secret, as stripe-ios sends it; any other parameter is ignored)", "parameters": [pathid("The setup intent")],
        "requestBody": body({"client_secret": S, "payment_method_data": {"type": "object", "properties": {"type": {"const": "us_bank_account"}, "billing_details": billing_param}}, "hosted_surface": S, "link_mode": S, "expand": {"type": "array", "items": S}}), "responses": resp(ref("FinancialConnectionsSession"))}},
    "/v1/connections/link_account_sessions_for_deferred_payment": {"post": {"operationId": "createDeferredLinkAccountSession", "summary": "A Financial Connections session for an intent not created yet, named by the elements session's session_id (publishable key, as stripe-android sends it; any other parameter is ignored)",
        "requestBody": body({"unique_id": line(200), "customer": S, "verification_method": {"enum": ["automatic", "instant", "skip", "instant_or_skip", "microdeposits"]}, "hosted_surface": S, "link_mode": S, "amount": {"type": "integer"}, "currency": S, "on_behalf_of": S, "expand": {"type": "array", "items": S}}, ["unique_id"]), "responses": resp(ref("FinancialConnectionsSession"))}},
    "/v1/financial_connections/sessions/synchronize": {"post": {"operationId": "synchronizeFinancialConnectionsSession", "summary": "The manifest that sends the app's browser to Purse's test bank (hosted_auth_url) and back to the app (success_url, cancel_url)",
        "requestBody": body({"client_secret": S, "mobile": {"type": "object", "properties": {"application_id": S, "verified_app_id": S}}, "expand": {"type": "array", "items": S}}, ["client_secret"]), "responses": resp(ref("FinancialConnectionsSynchronization"))}},
    "/v1/link_account_sessions/session_receipt": {"get": {"operationId": "financialConnectionsSessionReceipt", "summary": "The session as it stands, by its client secret", "parameters": [q("client_secret", S, required=True), EXPAND], "responses": resp(ref("FinancialConnectionsSession"))}},
    "/v1/link_account_sessions/list_accounts": {"get": {"operationId": "listLinkedAccounts", "summary": "The accounts linked through a session, by its client secret", "parameters": [q("client_secret", S, required=True), q("starting_after", S), EXPAND], "responses": resp(ref("FinancialConnectionsAccountList"))}},
    "/v1/link_account_sessions/complete": {"post": {"operationId": "completeFinancialConnectionsSession", "summary": "The app closed the sheet: a pending session is cancelled", "requestBody": body({"client_secret": S, "expand": {"type": "array", "items": S}}, ["client_secret"]), "responses": resp(ref("FinancialConnectionsSession"))}},
    "/v1/financial_connections/sessions/{id}": {"get": {"operationId": "retrieveFinancialConnectionsSession", "summary": "Retrieve a Financial Connections session (secret key)", "parameters": [pathid(), EXPAND], "responses": resp(ref("FinancialConnectionsSession"))}},
    "/v1/financial_connections/accounts/{id}": {"get": {"operationId": "retrieveFinancialConnectionsAccount", "summary": "Retrieve a linked account (secret key)", "parameters": [pathid(), EXPAND], "responses": resp(ref("FinancialConnectionsAccount"))}},
    "/v1/financial_connections/test_bank/{token}": {
      "get": {"operationId": "showTestBankPage", "summary": "Purse's test bank, where hosted_auth_url points (public; the token is the credential). Changes nothing.", "security": [], "parameters": TEST_BANK_PAGE, "responses": {"200": HTML, "default": ERR}},
      "post": {"operationId": "decideTestBankPage", "summary": "Link the chosen account or cancel; the page then ends on a link back to the app (success_url or cancel_url)", "security": [], "parameters": TEST_BANK_PAGE,
               "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
                   "action": {"enum": ["link", "cancel"]}, "account": {"enum": ["checking", "savings", "closed", "no_account", "manual"]},
                   "routing_number": S, "account_number": S, "account_type": {"enum": ["checking", "savings"]}}, "required": ["action"]}}}},
               "responses": {"200": HTML,
                             "400": {"description": "Typed numbers that do not check out: the form again, with why; a malformed form: an error",
                                     "content": {"text/html": {"schema": {"type": "string"}}, "application/json": {"schema": ref("Error")}}},
                             "default": ERR}},
    },
    "/v1/customer_sessions": {"post": {"operationId": "createCustomerSession", "summary": "Create a customer session (secret key); its client_secret is shown once", "requestBody": body({"customer": S, "components": session_components, "customer_sheet_settings": S, "expand": {"type": "array", "items": S}}, ["customer", "components"]), "responses": resp(ref("CustomerSession"))}},
    "/v1/customer_sessions/{id}": {"delete": {"operationId": "revokeCustomerSession", "summary": "Revoke a customer session at once (Purse)", "parameters": [pathid()], "responses": resp(ref("CustomerSession"))}},
    "/v1/elements/payment_methods/{id}/detach": {"post": {"operationId": "elementsDetachPaymentMethod", "summary": "Remove a saved method (bearer: the session's key), refused when payment_method_remove is disabled", "parameters": [pathid()], "requestBody": body({"customer_session_client_secret": S, "expand": {"type": "array", "items": S}}), "responses": resp(ref("PaymentMethod"))}},
    "/v1/elements/customers/{id}/set_default_payment_method": {"post": {"operationId": "elementsSetDefaultPaymentMethod", "summary": "Set the default (bearer: the session's key); never gated; returns the customer", "parameters": [pathid("The customer")], "requestBody": body({"payment_method": S, "customer_session_client_secret": S, "expand": {"type": "array", "items": S}}, ["payment_method"]), "responses": resp(ref("Customer"))}},
    "/v1/customer_sheet_settings": {
      "post": {"operationId": "createCustomerSheetSettings", "summary": "Create sheet settings (secret key; Purse)", "requestBody": body(sheet_settings_props), "responses": resp(ref("CustomerSheetSettings"))},
      "get": {"operationId": "listCustomerSheetSettings", "summary": "List sheet settings (secret key)", "parameters": PAGE + [EXPAND], "responses": resp(ref("CustomerSheetSettingsList"))},
    },
    "/v1/customer_sheet_settings/current": {"get": {"operationId": "currentCustomerSheetSettings", "summary": "The settings in force for a customer's ephemeral or session key", "parameters": [EXPAND], "responses": resp(ref("CustomerSheetSettings"))}},
    "/v1/customer_sheet_settings/{id}": {
      "get": {"operationId": "retrieveCustomerSheetSettings", "summary": "Retrieve sheet settings by id, or `default`", "parameters": [pathid("An id, or default"), EXPAND], "responses": resp(ref("CustomerSheetSettings"))},
      "post": {"operationId": "updateCustomerSheetSettings", "summary": "Update sheet settings: only what is sent changes, nested fields merge, an empty value clears a list", "parameters": [pathid("An id, or default")], "requestBody": body(sheet_settings_props), "responses": resp(ref("CustomerSheetSettings"))},
      "delete": {"operationId": "deleteCustomerSheetSettings", "summary": "Delete sheet settings (not the default); what named them falls back to the default", "parameters": [pathid()], "responses": resp(ref("DeletedObject"))},
    },
    "/v1/elements/sessions": {"get": {"operationId": "retrieveElementsSession", "summary": "What the mobile SDKs read before showing a sheet (publishable key; any parameter not listed is ignored, as the SDKs add some with each release)", "parameters": [
        q("type", {"enum": ["setup_intent", "deferred_intent"]}, required=True), q("client_secret", S),
        q("deferred_intent", {"type": "object", "properties": {"mode": {"enum": ["setup", "payment"]}, "payment_method_types": {"type": "array", "items": S}, "currency": S, "amount": {"type": "integer"}, "setup_future_usage": S, "capture_method": S}}),
        q("customer_session_client_secret", S, "The customer session whose customer and key to return"),
        q("legacy_customer_ephemeral_key", S, "PaymentSheet's customer by ephemeral key: its saved methods, without a session"),
        q("client_default_payment_method", S, "The device's own default: shown whatever its allow_redisplay"),
        q("locale", S), q("mobile_app_id", S), q("mobile_session_id", S),
        q("external_payment_methods", {"type": "array", "items": S}), EXPAND,
        {"name": "Stripe-Mobile-Session-Contract", "in": "header", "required": False, "schema": S,
         "description": "stripe-ios's contract (`major=1; revision=<16 hex>`): answered with the same header and `mobile_payment_element`"}],
        "responses": resp(ref("ElementsSession"))}},
    "/v1/billing_portal/configurations": {
      "post": {"operationId": "createBillingPortalConfiguration", "summary": "Create a customer portal configuration (secret key); features is required, and only features[payment_method_update] can be enabled", "requestBody": body(portal_configuration_props, ["features"]), "responses": resp(ref("BillingPortalConfiguration"))},
      "get": {"operationId": "listBillingPortalConfigurations", "summary": "List portal configurations, newest first (secret key); the account's default is made the first time it is needed", "parameters": [q("active", {"type": "boolean"}), q("is_default", {"type": "boolean"})] + PAGE + [EXPAND], "responses": resp(ref("BillingPortalConfigurationList"))},
    },
    "/v1/billing_portal/configurations/{id}": {
      "get": {"operationId": "retrieveBillingPortalConfiguration", "summary": "Retrieve a portal configuration (secret key)", "parameters": [pathid(), EXPAND], "responses": resp(ref("BillingPortalConfiguration"))},
      "post": {"operationId": "updateBillingPortalConfiguration", "summary": "Update a portal configuration: only what is sent changes; an empty value unsets (secret key)", "parameters": [pathid()], "requestBody": body(portal_configuration_update_props), "responses": resp(ref("BillingPortalConfiguration"))},
    },
    "/v1/test_helpers/test_clocks": {
      "post": {"operationId": "createTestClock", "summary": "Create a test clock frozen at frozen_time (secret key); it is deleted, with its customers, 30 days later", "requestBody": body({"frozen_time": TIMESTAMP, "name": {"type": "string", "maxLength": 300}, "customer": {**STR, "description": "An existing customer on no clock, put on this one for good"}, "expand": {"type": "array", "items": S}}, ["frozen_time"]), "responses": resp(ref("TestClock"))},
      "get": {"operationId": "listTestClocks", "summary": "List test clocks, newest first (secret key)", "parameters": PAGE + [EXPAND], "responses": resp(ref("TestClockList"))},
    },
    "/v1/test_helpers/test_clocks/{id}": {
      "get": {"operationId": "retrieveTestClock", "summary": "Retrieve a test clock (secret key)", "parameters": [pathid(), EXPAND], "responses": resp(ref("TestClock"))},
      "delete": {"operationId": "deleteTestClock", "summary": "Delete a test clock and every customer on it (secret key)", "parameters": [pathid()], "responses": resp(ref("DeletedObject"))},
    },
    "/v1/test_helpers/test_clocks/{id}/advance": {"post": {"operationId": "advanceTestClock", "summary": "Advance a ready test clock to a later frozen_time, at most two years past the time it was created at (secret key); answers advancing, ready moments later", "parameters": [pathid()], "requestBody": body({"frozen_time": TIMESTAMP, "expand": {"type": "array", "items": S}}, ["frozen_time"]), "responses": resp(ref("TestClock"))}},
    "/v1/billing_portal/sessions": {"post": {"operationId": "createBillingPortalSession", "summary": "Create a customer portal session (secret key); its url is shown once, in this answer. on_behalf_of (Connect) is refused.", "requestBody": body(portal_session_props, ["customer"]), "responses": resp(ref("BillingPortalSession"))}},
    "/p/session/{id}/{token}": {"get": {"operationId": "showPortalPage", "summary": "The customer portal, where a session's url points (public; the url is the credential): the customer's payment methods, or the add form while a payment_method_update flow is pending. Changes nothing.", "security": [],
        "parameters": PORTAL_PATH + [q("done", {"enum": ["added", "default", "removed"]}, "The notice to show after an action"), q("failed", {"const": "authentication"}, "A 3D Secure attempt failed: the add form again, with why")],
        "responses": {"200": HTML, "404": PORTAL_CLOSED, "default": ERR}}},
    "/p/session/{id}/{token}/add": {"get": {"operationId": "showPortalAddPage", "summary": "The portal's add form (card or SEPA Direct Debit, as the sheet settings offer); redirects (303) to the portal when adding is off. Changes nothing.", "security": [],
        "parameters": PORTAL_PATH + [q("type", {"enum": ["card", "sepa_debit"]}), q("failed", {"const": "authentication"}, "A 3D Secure attempt failed: the form again, with why")],
        "responses": {"200": HTML, "303": {"description": "To the portal, when the session cannot add payment methods"}, "404": PORTAL_CLOSED, "default": ERR}}},
    "/p/session/{id}/{token}/payment_methods": {"post": {"operationId": "addPortalPaymentMethod", "summary": "The add form: saves the method through a setup intent for the customer, with the API's checks (sheet settings, declines, 3D Secure), then redirects (303): to the portal, or as the flow's after_completion says, or to the 3D Secure page", "security": [], "parameters": PORTAL_PATH,
        "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
            "csrf_token": S, "type": {"enum": ["card", "sepa_debit"]}, "card_number": S, "card_expiry": {"type": "string", "description": "MM / YY"}, "card_cvc": S, "iban": S,
            **{k: S for k in ["billing_name", "billing_email", "billing_phone", "billing_line1", "billing_line2", "billing_city", "billing_state", "billing_postal_code", "billing_country"]},
            "make_default": {"type": "string", "description": "Present (a ticked checkbox): the method becomes the default"}}, "required": ["csrf_token", "type"]}}}},
        "responses": {"303": {"description": "Saved: to the portal (?done=added), the flow's redirect return_url, or its /done page; or to the 3D Secure page"},
                      "400": html("Invalid input: the form again, with the error (card number and CVC never echoed)"), "402": html("Declined: the form again, with why"),
                      "403": PORTAL_FORBIDDEN, "404": PORTAL_CLOSED, "413": html("The form is too large"), "default": ERR}}},
    "/p/session/{id}/return/{setup_intent}": {"get": {"operationId": "returnToPortalFromAuthentication", "summary": "Where the 3D Secure page sends the customer back: finishes the addition (public; the return cookie set when the browser left proves it is the same browser), then redirects (303) as after any addition, or back to the form when authentication failed", "security": [],
        "parameters": [pathid("The portal session (bps_...)"), {"name": "setup_intent", "in": "path", "required": True, "schema": S, "description": "The setup intent that was authenticated"},
                       q("make_default", {"const": "true"}, "The method becomes the default"),
                       {"name": "purse_portal_return", "in": "cookie", "required": True, "schema": S, "description": "Set (HttpOnly, SameSite=Lax, this path only) by the add form's redirect to 3D Secure"}],
        "responses": {"200": html("Saved, and the flow sends the customer to another site: a page that goes on there"), "303": {"description": "To the portal, the flow's /done page, or the form again after a failed authentication"},
                      "404": PORTAL_CLOSED, "default": ERR}}},
    "/p/session/{id}/{token}/payment_methods/{payment_method}/default": {"post": {"operationId": "setPortalDefaultPaymentMethod", "summary": "Make a payment method the customer's default, then redirect (303) to the portal (?done=default)", "security": [], "parameters": PORTAL_PATH + [PORTAL_PM],
        "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": PORTAL_CSRF}}},
        "responses": {"303": {"description": "To the portal"}, "400": html("Refused: the portal again, with why"), "403": PORTAL_FORBIDDEN, "404": PORTAL_CLOSED, "413": html("The form is too large"), "default": ERR}}},
    "/p/session/{id}/{token}/payment_methods/{payment_method}/remove": {"post": {"operationId": "removePortalPaymentMethod", "summary": "Remove (detach) a payment method, then redirect (303) to the portal (?done=removed); the default cannot be removed while the customer has another method", "security": [], "parameters": PORTAL_PATH + [PORTAL_PM],
        "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": PORTAL_CSRF}}},
        "responses": {"303": {"description": "To the portal"}, "400": html("Refused (the default while another method remains): the portal again, with why"), "403": PORTAL_FORBIDDEN, "404": PORTAL_CLOSED, "413": html("The form is too large"), "default": ERR}}},
    "/p/session/{id}/{token}/done": {"get": {"operationId": "showPortalDonePage", "summary": "The hosted confirmation a completed flow ends on (after_completion hosted_confirmation): its custom_message and the return link; redirects (303) to the portal otherwise. Changes nothing.", "security": [], "parameters": PORTAL_PATH,
        "responses": {"200": HTML, "303": {"description": "To the portal, when there is no completed flow"}, "404": PORTAL_CLOSED, "default": ERR}}},
    "/v1/webhook_endpoints": {
      "post": {"operationId": "createWebhookEndpoint", "summary": "Create a webhook endpoint; its signing secret is shown once (secret key)", "requestBody": body(webhook_create_props, ["url", "enabled_events"]), "responses": resp(ref("WebhookEndpoint"))},
      "get": {"operationId": "listWebhookEndpoints", "summary": "List webhook endpoints (secret key)", "parameters": PAGE + [EXPAND], "responses": resp(ref("WebhookEndpointList"))},
    },
    "/v1/webhook_endpoints/{id}": {
      "get": {"operationId": "retrieveWebhookEndpoint", "summary": "Retrieve a webhook endpoint", "parameters": [pathid(), EXPAND], "responses": resp(ref("WebhookEndpoint"))},
      "post": {"operationId": "updateWebhookEndpoint", "summary": "Update a webhook endpoint (url, enabled_events, disabled, ...)", "parameters": [pathid()], "requestBody": body(webhook_update_props), "responses": resp(ref("WebhookEndpoint"))},
      "delete": {"operationId": "deleteWebhookEndpoint", "summary": "Delete a webhook endpoint", "parameters": [pathid()], "responses": resp(ref("DeletedObject"))},
    },
    "/v1/webhook_endpoints/{id}/deliveries": {"get": {"operationId": "listWebhookDeliveries", "summary": "The delivery attempts to an endpoint, newest first (Purse)", "parameters": [pathid()] + PAGE + [EXPAND], "responses": resp(ref("WebhookDeliveryAttemptList"))}},
    "/v1/events": {"get": {"operationId": "listEvents", "summary": "List events, newest first (secret key)", "parameters": [q("type", S, "An event type, or a prefix ending in * (customer.*)"), q("types", {"type": "array", "items": S, "maxItems": 20}), CREATED] + PAGE + [EXPAND], "responses": resp(ref("EventList"))}},
    "/v1/events/{id}": {"get": {"operationId": "retrieveEvent", "summary": "Retrieve an event (secret key)", "parameters": [pathid(), EXPAND], "responses": resp(ref("Event"))}},
  },
  "components": {
    "securitySchemes": {
      "bearerAuth": {"type": "http", "scheme": "bearer", "description": "sk_test_..., pk_test_..., or a customer's ek_test_..."},
      "basicAuth": {"type": "http", "scheme": "basic", "description": "The key as the user name, an empty password"},
    },
    "schemas": {
      "Error": {"type": "object", "required": ["error"], "properties": {"error": {"type": "object", "required": ["type", "message"], "properties": {
          "type": {"enum": ["api_error", "card_error", "idempotency_error", "invalid_request_error"]},
          "code": S, "decline_code": S, "doc_url": S, "message": S, "param": S,
          "payment_method": {"type": "object"}, "setup_intent": {"type": "object"}}}}},
      "Health": {"type": "object", "required": ["status"], "properties": {"status": S}},
      "RangeQuery": {"type": "object", "properties": {k: {"type": "integer"} for k in ["gt", "gte", "lt", "lte"]}, "additionalProperties": False},
      "Metadata": {"type": "object", "additionalProperties": S},
      "Address": {"type": "object", "required": ["city", "country", "line1", "line2", "postal_code", "state"], "properties": {k: nullable("string") for k in ["city", "country", "line1", "line2", "postal_code", "state"]}},
      "Shipping": {"type": "object", "required": ["address", "name"], "properties": {"address": ref("Address"), "name": S, "phone": nullable("string")}},
      "DeletedObject": {"type": "object", "required": ["id", "object", "deleted"], "properties": {"id": S, "object": S, "deleted": {"const": True}}},
      "Customer": {"type": "object", "required": ["id", "object", "created", "livemode", "metadata", "invoice_settings"], "properties": {
          "id": S, "object": {"const": "customer"}, "address": nref("Address"), "balance": {"type": "integer"}, "created": {"type": "integer"},
          "currency": nullable("string"), "default_source": nullable("string"), "delinquent": {"type": "boolean"},
          "description": nullable("string"), "discount": {"type": "null"}, "email": nullable("string"), "invoice_prefix": S,
          "invoice_settings": {"type": "object", "properties": {"custom_fields": {"type": ["array", "null"]}, "default_payment_method": {"anyOf": [S, {"type": "object"}, {"type": "null"}]}, "footer": nullable("string"), "rendering_options": {"type": ["object", "null"]}}},
          "livemode": {"type": "boolean"}, "metadata": ref("Metadata"), "name": nullable("string"), "next_invoice_sequence": {"type": "integer"},
          "phone": nullable("string"), "preferred_locales": {"type": "array", "items": S}, "shipping": nref("Shipping"),
          "tax_exempt": S, "test_clock": {"anyOf": [S, ref("TestClock"), {"type": "null"}]}}},
      "CustomerList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("Customer")}}}]},
      "CustomerSearchResult": {"type": "object", "required": ["object", "data", "has_more", "next_page", "url"], "properties": {
          "object": {"const": "search_result"}, "data": {"type": "array", "items": ref("Customer")}, "has_more": {"type": "boolean"},
          "next_page": nullable("string"), "url": S, "total_count": {"type": "integer", "description": "With expand[]=total_count; counted up to 10,000"}}},
      "ListBase": {"type": "object", "required": ["object", "data", "has_more", "url"], "properties": {"object": {"const": "list"}, "data": {"type": "array"}, "has_more": {"type": "boolean"}, "url": S}},
      "Event": {"type": "object", "required": ["id", "object", "api_version", "created", "data", "livemode", "pending_webhooks", "type"], "properties": {
          "id": S, "object": {"const": "event"}, "account": S, "api_version": S, "created": {"type": "integer"},
          "data": {"type": "object", "required": ["object"], "properties": {"object": {"type": "object"}, "previous_attributes": {"type": "object"}}},
          "livemode": {"type": "boolean"}, "pending_webhooks": {"type": "integer"},
          "request": {"type": ["object", "null"], "properties": {"id": nullable("string"), "idempotency_key": nullable("string")}},
          "type": S}},
      "BillingDetails": {"type": "object", "required": ["address", "email", "name", "phone"], "properties": {"address": ref("Address"), "email": nullable("string"), "name": nullable("string"), "phone": nullable("string"), "tax_id": {"type": "null"}}},
      "PaymentMethod": {"type": "object", "required": ["id", "object", "allow_redisplay", "billing_details", "created", "customer", "livemode", "metadata", "type"], "properties": {
          "id": S, "object": {"const": "payment_method"}, "allow_redisplay": {"enum": ["always", "limited", "unspecified"]},
          "billing_details": ref("BillingDetails"), "created": {"type": "integer"},
          "customer": {"anyOf": [S, {"type": "object"}, {"type": "null"}]}, "livemode": {"type": "boolean"}, "metadata": ref("Metadata"),
          "type": {"enum": ["card", "us_bank_account", "sepa_debit"]},
          "card": {"type": "object", "required": ["brand", "exp_month", "exp_year", "fingerprint", "funding", "last4"], "properties": {
              "brand": S, "checks": {"type": "object"}, "country": nullable("string"), "display_brand": S, "exp_month": {"type": "integer"},
              "exp_year": {"type": "integer"}, "fingerprint": S, "funding": {"enum": ["credit", "debit", "prepaid", "unknown"]},
              "generated_from": {"type": ["object", "null"]}, "last4": S, "networks": {"type": "object"}, "regulated_status": S,
              "three_d_secure_usage": {"type": "object"}, "wallet": {"type": ["object", "null"]}}},
          "us_bank_account": {"type": "object", "required": ["fingerprint", "last4", "routing_number"], "properties": {
              "account_holder_type": nullable("string"), "account_type": nullable("string"), "bank_name": nullable("string"),
              "financial_connections_account": nullable("string"), "fingerprint": S, "last4": S, "networks": {"type": "object"},
              "routing_number": S, "status_details": {"type": ["object", "null"]}}},
          "sepa_debit": {"type": "object", "required": ["country", "fingerprint", "last4"], "properties": {
              "bank_code": nullable("string"), "branch_code": nullable("string"), "country": S, "fingerprint": S,
              "generated_from": {"type": "object"}, "last4": S}}}},
      "PaymentMethodList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("PaymentMethod")}}}]},
      "SelectedPaymentOption": {"type": "object", "required": ["object", "customer", "option", "payment_method", "unavailable_reason"], "properties": {
          "object": {"const": "selected_payment_option"}, "customer": S, "option": nullable("string"),
          "payment_method": nref("PaymentMethod"), "unavailable_reason": nullable("string")}},
      "CredentialRevocation": {"type": "object", "required": ["object", "customer", "ephemeral_keys_revoked", "customer_sessions_revoked", "billing_portal_sessions_revoked"], "properties": {
          "object": {"const": "credential_revocation"}, "customer": S, "ephemeral_keys_revoked": {"type": "integer"}, "customer_sessions_revoked": {"type": "integer"},
          "billing_portal_sessions_revoked": {"type": "integer"}}},
      "EphemeralKey": {"type": "object", "required": ["id", "object", "associated_objects", "created", "expires", "livemode"], "properties": {
          "id": S, "object": {"const": "ephemeral_key"}, "associated_objects": {"type": "array", "items": {"type": "object", "properties": {"type": S, "id": S}}},
          "created": {"type": "integer"}, "expires": {"type": "integer"}, "livemode": {"type": "boolean"}, "secret": S}},
      "SetupIntent": {"type": "object", "required": ["id", "object", "client_secret", "created", "status", "payment_method_types"], "properties": {
          "id": S, "object": {"const": "setup_intent"}, "application": nullable("string"), "automatic_payment_methods": {"type": ["object", "null"]},
          "cancellation_reason": nullable("string"), "client_secret": S, "created": {"type": "integer"},
          "customer": {"anyOf": [S, {"type": "object"}, {"type": "null"}]}, "description": nullable("string"),
          "last_setup_error": {"type": ["object", "null"]}, "latest_attempt": nullable("string"), "livemode": {"type": "boolean"},
          "mandate": nullable("string"), "metadata": ref("Metadata"),
          "next_action": {"type": ["object", "null"], "properties": {"type": {"enum": ["redirect_to_url", "verify_with_microdeposits"]}, "redirect_to_url": {"type": "object", "properties": {"url": S, "return_url": nullable("string")}},
                          "verify_with_microdeposits": {"type": "object", "required": ["arrival_date", "hosted_verification_url", "microdeposit_type"], "properties": {"arrival_date": {"type": "integer"}, "hosted_verification_url": S, "microdeposit_type": {"enum": ["amounts", "descriptor_code"]}}}}},
          "payment_method": {"anyOf": [S, {"type": "object"}, {"type": "null"}]}, "payment_method_options": {"type": "object"},
          "payment_method_types": {"type": "array", "items": S},
          "status": {"enum": ["requires_payment_method", "requires_confirmation", "requires_action", "processing", "canceled", "succeeded"]},
          "usage": {"enum": ["on_session", "off_session"]}}},
      "SetupIntentList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("SetupIntent")}}}]},
      "ElementsSession": {"type": "object", "required": ["session_id", "payment_method_preference"], "properties": {
          "session_id": S, "livemode": {"type": "boolean"},
          "payment_method_preference": {"type": "object", "required": ["ordered_payment_method_types"], "properties": {
              "object": S, "country_code": S, "ordered_payment_method_types": {"type": "array", "items": S}, "type": S, "setup_intent": {"type": "object"}}},
          "unactivated_payment_method_types": {"type": "array", "items": S}, "merchant_country": S, "apple_pay_preference": S,
          "card_brand_choice": {"type": "object"}, "flags": {"type": "object"}, "external_payment_method_data": {"type": ["object", "null"]},
          "payment_method_specs": {"type": "array"}, "customer": {"type": ["object", "null"]}, "customer_sheet_settings": {"type": ["object", "null"]},
          "link_settings": {"type": "object"}, "mobile_payment_element": {"type": ["object", "null"]}}},
      "FinancialConnectionsAccount": {"type": "object", "required": ["id", "object", "category", "created", "institution_name", "livemode", "status", "subcategory", "supported_payment_method_types"], "properties": {
          "id": S, "object": {"const": "financial_connections.account"}, "account_holder": {"type": ["object", "null"]}, "balance": {"type": "null"}, "balance_refresh": {"type": "null"},
          "category": {"const": "cash"}, "created": {"type": "integer"}, "display_name": S, "institution_name": S, "last4": S, "livemode": {"type": "boolean"},
          "ownership": {"type": "null"}, "ownership_refresh": {"type": "null"}, "permissions": {"type": "array", "items": S}, "status": {"const": "active"},
          "subcategory": {"enum": ["checking", "savings"]}, "supported_payment_method_types": {"type": "array", "items": S}}},
      "FinancialConnectionsAccountList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("FinancialConnectionsAccount")}}}]},
      "FinancialConnectionsSession": {"type": "object", "required": ["id", "object", "accounts", "client_secret", "livemode", "permissions", "status"], "properties": {
          "id": S, "object": {"const": "financial_connections.session"}, "account_holder": {"type": ["object", "null"]}, "accounts": ref("FinancialConnectionsAccountList"),
          "client_secret": S, "filters": {"type": "object"}, "livemode": {"type": "boolean"}, "payment_account": {"anyOf": [ref("FinancialConnectionsAccount"), {"type": "null"}]},
          "permissions": {"type": "array", "items": S}, "prefetch": {"type": ["array", "null"], "items": S}, "return_url": nullable("string"),
          "status": {"enum": ["pending", "succeeded", "cancelled"]}, "status_details": {"type": ["object", "null"]}}},
      "FinancialConnectionsSynchronization": {"type": "object", "required": ["manifest", "visual"], "properties": {
          "manifest": {"type": "object", "required": ["id", "hosted_auth_url", "success_url", "cancel_url"], "properties": {"id": S, "hosted_auth_url": S, "success_url": S, "cancel_url": S}},
          "text": {"type": "null"}, "visual": {"type": "object"}}},
      "CustomerSession": {"type": "object", "required": ["id", "object", "components", "created", "customer", "expires_at", "livemode"], "properties": {
          "id": S, "object": {"const": "customer_session"}, "client_secret": S, "components": {"type": "object"}, "created": {"type": "integer"},
          "customer": {"anyOf": [S, {"type": "object"}]}, "customer_account": nullable("string"), "expires_at": {"type": "integer"}, "livemode": {"type": "boolean"}}},
      "CustomerSheetSettings": {"type": "object", "required": ["id", "object", "is_default", "created", "payment_method_types", "billing_details_collection", "default_billing_details", "saved_payment_method_filter", "duplicate_cards"], "properties": {
          "id": S, "object": {"const": "customer_sheet_settings"}, "name": nullable("string"), "is_default": {"type": "boolean"},
          "created": {"type": "integer"}, "livemode": {"type": "boolean"}, "payment_method_types": {"type": "array", "items": S},
          "billing_details_collection": {"type": "object"}, "default_billing_details": ref("BillingDetails"),
          "saved_payment_method_filter": {"type": "object"}, "duplicate_cards": {"enum": ["allow", "reuse"]}}},
      "CustomerSheetSettingsList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("CustomerSheetSettings")}}}]},
      "BillingPortalConfiguration": {"type": "object", "required": ["id", "object", "active", "application", "business_profile", "created", "default_return_url", "features", "is_default", "livemode", "login_page", "metadata", "name", "updated"], "properties": {
          "id": S, "object": {"const": "billing_portal.configuration"}, "active": {"type": "boolean"}, "application": nullable("string"),
          "business_profile": {"type": "object", "required": ["headline", "privacy_policy_url", "terms_of_service_url"], "properties": {
              "headline": nullable("string"), "privacy_policy_url": nullable("string"), "terms_of_service_url": nullable("string")}},
          "created": {"type": "integer"}, "default_return_url": nullable("string"),
          "features": {"type": "object", "required": ["customer_update", "invoice_history", "payment_method_update", "subscription_cancel", "subscription_pause", "subscription_update"], "properties": {
              "subscription_pause": {"type": "object", "required": ["enabled"], "properties": {"enabled": {"const": False}}},
              "customer_update": {"type": "object", "required": ["allowed_updates", "enabled"], "properties": {"allowed_updates": {"type": "array", "items": S}, "enabled": {"const": False}}},
              "invoice_history": {"type": "object", "required": ["enabled"], "properties": {"enabled": {"const": False}}},
              "payment_method_update": {"type": "object", "required": ["enabled", "payment_method_configuration"], "properties": {
                  "enabled": {"type": "boolean"}, "payment_method_configuration": {"type": "null"}}},
              "subscription_cancel": {"type": "object", "required": ["cancellation_reason", "enabled", "mode", "proration_behavior"], "properties": {
                  "cancellation_reason": {"type": "object", "required": ["enabled", "options"], "properties": {"enabled": {"const": False}, "options": {"type": "array", "items": S}}},
                  "enabled": {"const": False}, "mode": {"const": "at_period_end"}, "proration_behavior": {"const": "none"}}},
              "subscription_update": {"type": "object", "required": ["billing_cycle_anchor", "default_allowed_updates", "enabled", "products", "proration_behavior", "schedule_at_period_end", "trial_update_behavior"], "properties": {
                  "billing_cycle_anchor": {"type": "null"}, "default_allowed_updates": {"type": "array", "items": S}, "enabled": {"const": False},
                  "products": {"type": "array", "items": S}, "proration_behavior": {"const": "none"},
                  "schedule_at_period_end": {"type": "object", "required": ["conditions"], "properties": {"conditions": {"type": "array", "items": S}}},
                  "trial_update_behavior": {"const": "end_trial"}}}}},
          "is_default": {"type": "boolean"}, "livemode": {"type": "boolean"},
          "login_page": {"type": "object", "required": ["enabled", "url"], "properties": {"enabled": {"const": False}, "url": {"type": "null"}}},
          "metadata": ref("Metadata"), "name": nullable("string"), "updated": {"type": "integer"}}},
      "TestClock": {"type": "object", "required": ["id", "object", "created", "deletes_after", "frozen_time", "livemode", "name", "status", "status_details"], "properties": {
          "id": S, "object": {"const": "test_helpers.test_clock"}, "created": {"type": "integer"}, "deletes_after": {"type": "integer"},
          "frozen_time": {"type": "integer"}, "livemode": {"type": "boolean"}, "name": nullable("string"),
          "status": {"enum": ["advancing", "internal_failure", "ready"]},
          "status_details": {"type": "object", "properties": {"advancing": {"type": "object", "required": ["target_frozen_time"], "properties": {"target_frozen_time": {"type": "integer"}}}}}}},
      "TestClockList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("TestClock")}}}]},
      "BillingPortalConfigurationList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("BillingPortalConfiguration")}}}]},
      "BillingPortalSession": {"type": "object", "required": ["id", "object", "after_expiration", "configuration", "created", "customer", "customer_account", "flow", "livemode", "locale", "on_behalf_of", "return_url", "url"], "properties": {
          "id": S, "object": {"const": "billing_portal.session"}, "after_expiration": {"type": "null"}, "configuration": S, "created": {"type": "integer"}, "customer": S,
          "customer_account": {"type": "null"},
          "flow": {"type": ["object", "null"], "required": ["after_completion", "customer_update", "subscription_cancel", "subscription_update", "subscription_update_confirm", "type"], "properties": {
              "customer_update": {"type": "null"},
              "after_completion": {"type": "object", "required": ["hosted_confirmation", "redirect", "type"], "properties": {
                  "hosted_confirmation": {"type": ["object", "null"], "required": ["custom_message"], "properties": {"custom_message": nullable("string")}},
                  "redirect": {"type": ["object", "null"], "required": ["return_url"], "properties": {"return_url": S}},
                  "type": {"enum": ["hosted_confirmation", "portal_homepage", "redirect"]}}},
              "subscription_cancel": {"type": "null"}, "subscription_update": {"type": "null"}, "subscription_update_confirm": {"type": "null"},
              "type": {"const": "payment_method_update"}}},
          "livemode": {"type": "boolean"}, "locale": {"enum": PORTAL_LOCALES + [None]}, "on_behalf_of": {"type": "null"},
          "return_url": nullable("string"),
          "url": {"type": ["string", "null"], "description": "{base}/p/session/{id}/{token}: only in the answer that creates the session, null everywhere else (events included)"}}},
      "WebhookEndpoint": {"type": "object", "required": ["id", "object", "created", "enabled_events", "livemode", "metadata", "status", "url"], "properties": {
          "id": S, "object": {"const": "webhook_endpoint"}, "api_version": nullable("string"), "application": nullable("string"),
          "created": {"type": "integer"}, "description": nullable("string"), "enabled_events": {"type": "array", "items": S},
          "livemode": {"type": "boolean"}, "metadata": ref("Metadata"), "secret": S, "status": {"enum": ["enabled", "disabled"]}, "url": S}},
      "WebhookEndpointList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("WebhookEndpoint")}}}]},
      "WebhookDeliveryAttempt": {"type": "object", "required": ["id", "object", "created", "duration_ms", "endpoint", "event"], "properties": {
          "id": S, "object": {"const": "webhook_delivery_attempt"}, "created": {"type": "integer"}, "duration_ms": {"type": "integer"},
          "endpoint": S,
          "error": {"enum": ["destination_not_allowed", "dns_failure", "connection_failed", "tls_failure", "timeout", "invalid_response", None],
                    "description": "Why no response came, as a class (never the network's own error text); null when a response came"},
          "event": S, "next_retry_at": {"type": ["integer", "null"]}, "status_code": {"type": ["integer", "null"]}}},
      "WebhookDeliveryAttemptList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("WebhookDeliveryAttempt")}}}]},
      "EventList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("Event")}}}]},
    },
  },
}

# What `expand[]` may name, as Sources/PurseServer/API/Expansion.swift decides: per object type,
# its expandable fields and the type each becomes; a path goes at most 4 segments deep, a list's
# paths start with `data.`. Every operation's `expand` (query or body) lists exactly these.
EXPANDABLE = {
    "customer": {"invoice_settings.default_payment_method": "payment_method", "test_clock": "test_helpers.test_clock"},
    "payment_method": {"customer": "customer"},
    "setup_intent": {"customer": "customer", "payment_method": "payment_method"},
    "customer_session": {"customer": "customer"},
    "selected_payment_option": {"payment_method": "payment_method"},
    "elements_session": {"payment_method_preference.setup_intent": "setup_intent"},
}
EXPAND_DEPTH = 4
# Fields the SDKs ask to expand that Purse always answers as null (Expansion.alwaysNullFields).
ALWAYS_NULL = {"financial_connections_synchronization": ["manifest.active_auth_session"]}
RETURNS = {"Customer": "customer", "PaymentMethod": "payment_method", "SetupIntent": "setup_intent", "CustomerSession": "customer_session",
           "SelectedPaymentOption": "selected_payment_option", "ElementsSession": "elements_session",
           "FinancialConnectionsSynchronization": "financial_connections_synchronization"}

def expand_paths(object_type, prefix="", depth=0):
    for field, target in EXPANDABLE.get(object_type, {}).items():
        path = prefix + field
        if depth + len(field.split(".")) > EXPAND_DEPTH:
            continue
        yield path
        yield from expand_paths(target, path + ".", depth + len(field.split(".")))

def expand_schema(operation):
    """The `expand` array of an operation, from what its 200 response returns."""
    schema = operation["responses"].get("200", {}).get("content", {}).get("application/json", {}).get("schema", {})
    name = schema.get("$ref", "").rsplit("/", 1)[-1] or next((b["$ref"].rsplit("/", 1)[-1] for b in schema.get("anyOf", []) if "$ref" in b), "")
    if name.endswith("List"):
        paths = sorted(expand_paths(RETURNS.get(name[:-4], ""), "data.", 1))
    elif name.endswith("SearchResult"):
        paths = sorted(["total_count"] + list(expand_paths(RETURNS.get(name[:-12], ""), "data.", 1)))
    else:
        paths = sorted(list(expand_paths(RETURNS.get(name, ""))) + ALWAYS_NULL.get(RETURNS.get(name, ""), []))
    if not paths:
        return {"type": "array", "maxItems": 0, "description": "Nothing in this response can be expanded"}
    return {"type": "array", "items": {"enum": paths}}

def add_expand_enums(document):
    """Gives each operation its own `expand` (operations share parameter and property dicts)."""
    for operations in document["paths"].values():
        for operation in operations.values():
            if "parameters" in operation:
                operation["parameters"] = [dict(p, schema=expand_schema(operation)) if p["name"] == "expand" else p
                                           for p in operation["parameters"]]
            for media in operation.get("requestBody", {}).get("content", {}).values():
                properties = media["schema"].get("properties", {})
                if "expand" in properties:
                    media["schema"] = dict(media["schema"], properties=dict(properties, expand=expand_schema(operation)))

add_expand_enums(doc)

# Stripe's convention, which Purse applies to every parameter: an empty value (`email=`, and in
# JSON also `null`) unsets an optional field, clears a list or hash, or leaves a filter out. So
# each optional parameter, at any depth of a body, also takes "" (and null in JSON); a required
# one does not (empty is "missing").
def emptyable(schema, json_body):
    plain_string = schema.get("type") == "string" and not ({"pattern", "minLength", "format", "enum"} & schema.keys())
    empty = ([] if plain_string else [{"const": ""}]) + ([{"type": "null"}] if json_body else [])
    return {"anyOf": [schema] + empty} if empty else schema

def with_empty_optionals(schema, json_body):
    if schema.get("type") != "object" or "properties" not in schema:
        return schema
    required = set(schema.get("required", []))
    properties = {}
    for name, child in schema["properties"].items():
        child = with_empty_optionals(child, json_body)
        properties[name] = child if name in required else emptyable(child, json_body)
    return dict(schema, properties=properties)

def add_empty_values(document):
    for operations in document["paths"].values():
        for operation in operations.values():
            if "parameters" in operation:
                operation["parameters"] = [
                    dict(p, schema=emptyable(p["schema"], False)) if p["in"] == "query" and not p.get("required") else p
                    for p in operation["parameters"]
                ]
            for media_type, media in operation.get("requestBody", {}).get("content", {}).items():
                media["schema"] = with_empty_optionals(media["schema"], media_type == "application/json")

add_empty_values(doc)

def main():
    target = pathlib.Path(__file__).resolve().parent.parent / "Sources/PurseServer/OpenAPI/OpenAPIDocument.swift"
    document = json.dumps(doc, indent=2)
    assert '"""#' not in document
    text = (
        "// Generated by scripts/openapi.py: edit the document there, then run it.\n"
        "// swift-format-ignore-file\n\n"
        "/// Purse's OpenAPI 3.1 document, served at `GET /openapi.json`.\n"
        "enum OpenAPIDocument {\n"
        "    static let json = #\"\"\"\n" + document + "\n\"\"\"#\n}\n"
    )
    if "--check" in sys.argv:
        if target.read_text() != text:
            sys.exit(f"{target} is out of date: run scripts/openapi.py")
        return
    target.write_text(text)


if __name__ == "__main__":
    main()
