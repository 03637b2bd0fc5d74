#!/usr/bin/env python3
"""Writes Purse's OpenAPI 3.1 document, Sources/PurseServer/OpenAPI/openapi.json, which the server
compiles in and serves at /openapi.json. Edit the document here and run this script; `--check`
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
address_param = {"type": "object", "properties": {k: STR for k in ["city", "country", "line1", "line2", "postal_code", "state"]}, "additionalProperties": False}
metadata_param = {"type": "object", "additionalProperties": {"type": "string", "maxLength": 500}, "maxProperties": 50}
customer_props = {
    "address": address_param,
    "description": STR, "email": {"type": "string", "maxLength": 512}, "name": {"type": "string", "maxLength": 256},
    "phone": {"type": "string", "maxLength": 50},
    "metadata": metadata_param,
    "preferred_locales": {"type": "array", "items": {"type": "string", "maxLength": 20}, "maxItems": 10},
    "shipping": {"type": "object", "properties": {"address": address_param, "name": STR, "phone": STR}, "required": ["address", "name"], "additionalProperties": False},
    "invoice_settings": {"type": "object", "properties": {"default_payment_method": S}, "additionalProperties": False},
    "expand": {"type": "array", "items": S},
}
doc = {
  "openapi": "3.1.0",
  "info": {"title": "Purse", "version": "1.0.0", "description": "A self-hosted payment-method settings service that speaks Stripe's API. Request bodies are form-encoded (Stripe's bracket nesting) or JSON; every error is Stripe's envelope."},
  "servers": [{"url": "/"}],
  "security": [{"bearerAuth": []}, {"basicAuth": []}],
  "paths": {
    "/healthz": {"get": {"operationId": "healthz", "summary": "The process answers", "security": [], "responses": {"200": ok(ref("Health"))}}},
    "/readyz": {"get": {"operationId": "readyz", "summary": "The database is reachable and its schema current", "security": [], "responses": {"200": ok(ref("Health")), "503": ok(ref("Health"), "Not ready")}}},
    "/openapi.json": {"get": {"operationId": "openapi", "summary": "This document", "security": [], "responses": {"200": {"description": "The OpenAPI document", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
    "/v1/customers": {
      "post": {"operationId": "createCustomer", "summary": "Create a customer (secret key)", "requestBody": body(customer_props), "responses": resp(ref("Customer"))},
      "get": {"operationId": "listCustomers", "summary": "List customers, newest first (secret key)", "parameters": [q("email", {"type": "string", "maxLength": 512}), CREATED] + PAGE + [EXPAND], "responses": resp(ref("CustomerList"))},
    },
    "/v1/customers/{id}": {
      "get": {"operationId": "retrieveCustomer", "summary": "Retrieve a customer (secret key, or the customer's own ephemeral key)", "parameters": [pathid(), EXPAND], "responses": resp({"anyOf": [ref("Customer"), ref("DeletedObject")]})},
      "post": {"operationId": "updateCustomer", "summary": "Update a customer: only what is sent changes; an empty value unsets (secret key)", "parameters": [pathid()], "requestBody": body(customer_props), "responses": resp(ref("Customer"))},
      "delete": {"operationId": "deleteCustomer", "summary": "Delete a customer (secret key)", "parameters": [pathid()], "responses": resp(ref("DeletedObject"))},
    },
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
          "description": nullable("string"), "email": nullable("string"), "invoice_prefix": S,
          "invoice_settings": {"type": "object", "properties": {"custom_fields": {"type": ["array", "null"]}, "default_payment_method": {"anyOf": [S, {"type": "object"}, {"type": "null"}]}, "footer": nullable("string"), "rendering_options": {"type": ["object", "null"]}}},
          "livemode": {"type": "boolean"}, "metadata": ref("Metadata"), "name": nullable("string"), "next_invoice_sequence": {"type": "integer"},
          "phone": nullable("string"), "preferred_locales": {"type": "array", "items": S}, "shipping": nref("Shipping"),
          "tax_exempt": S, "test_clock": nullable("string")}},
      "CustomerList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("Customer")}}}]},
      "ListBase": {"type": "object", "required": ["object", "data", "has_more", "url"], "properties": {"object": {"const": "list"}, "data": {"type": "array"}, "has_more": {"type": "boolean"}, "url": S}},
      "Event": {"type": "object", "required": ["id", "object", "api_version", "created", "data", "livemode", "pending_webhooks", "type"], "properties": {
          "id": S, "object": {"const": "event"}, "account": S, "api_version": S, "created": {"type": "integer"},
          "data": {"type": "object", "required": ["object"], "properties": {"object": {"type": "object"}, "previous_attributes": {"type": "object"}}},
          "livemode": {"type": "boolean"}, "pending_webhooks": {"type": "integer"},
          "request": {"type": ["object", "null"], "properties": {"id": nullable("string"), "idempotency_key": nullable("string")}},
          "type": S}},
      "EventList": {"allOf": [ref("ListBase"), {"properties": {"data": {"type": "array", "items": ref("Event")}}}]},
    },
  },
}

def main():
    target = pathlib.Path(__file__).resolve().parent.parent / "Sources/PurseServer/OpenAPI/openapi.json"
    text = json.dumps(doc, indent=2) + "\n"
    if "--check" in sys.argv:
        if target.read_text() != text:
            sys.exit(f"{target} is out of date: run scripts/openapi.py")
        return
    target.write_text(text)


if __name__ == "__main__":
    main()
