"""Customer search through stripe-python 16.1.0, as a merchant backend finds its customer.

Read in stripe-python 16.1.0 (and 15.3.1, identical here): `CustomerService.search`
(`stripe/_customer_service.py`) and `Customer.search` / `Customer.search_auto_paging_iter`
(`stripe/_customer.py`) send GET /v1/customers/search with `query`, `limit`, `page` and
`expand[0]=...` in the query string; `SearchableAPIResource._search` refuses an answer whose
`object` is not `search_result`; `SearchResultObject.next_search_result_page` resends the first
request's params with `page=<next_page>` to the answer's `url`, and auto-paging stops when
`has_more` is false.
"""
import json
import urllib.error
import urllib.request

import pytest
import stripe


@pytest.fixture
def people(client):
    """Five customers of a fresh account, oldest first."""
    made = [
        {"email": "jenny.rosen@example.com", "name": "Jenny Rosen", "phone": "+14155550100", "metadata": {"plan": "pro", "region": "eu"}},
        {"email": "jenny@shop.example", "name": "Jenny Appleseed", "metadata": {"plan": "free"}},
        {"email": "ruth@example.com", "name": "Ruth Rosen Lee", "phone": "+14155550199", "metadata": {"plan": "Pro"}},
        {"email": "sam@example.org", "name": "Sam O'Brien"},
        {"name": "No Email", "metadata": {"region": "us"}},
    ]
    return [client.v1.customers.create(params=fields) for fields in made]


def search(client, query, **params):
    return client.v1.customers.search(params={"query": query, **params})


def names(result):
    return sorted(customer.name for customer in result.data)


def test_the_answer_is_a_search_result(client, people):
    result = search(client, "email:'jenny.rosen@example.com'")
    assert result.object == "search_result"
    assert result.url == "/v1/customers/search"
    assert result.has_more is False and result.next_page is None
    assert [customer.id for customer in result.data] == [people[0].id]
    assert "total_count" not in result
    assert result.data[0].discount is None


@pytest.mark.parametrize("query, expected", [
    # `:` on a string field: the value's words in order, case-insensitive.
    ("name:'jenny rosen'", ["Jenny Rosen"]),
    ("name:\"ROSEN\"", ["Jenny Rosen", "Ruth Rosen Lee"]),
    ("name:'rosen lee'", ["Ruth Rosen Lee"]),
    ("name:'jen'", []),
    ("email:'jenny@shop.example'", ["Jenny Appleseed"]),
    ("phone:'+14155550100'", ["Jenny Rosen"]),
    ("name:'Sam O\\'Brien'", ["Sam O'Brien"]),
    # `~`: a substring of three characters or more.
    ("email~'example.com'", ["Jenny Rosen", "Ruth Rosen Lee"]),
    ("name~'ppleSE'", ["Jenny Appleseed"]),
    ("phone~'5550'", ["Jenny Rosen", "Ruth Rosen Lee"]),
    # metadata: a token, exact and case-insensitive; null for an absent key.
    ("metadata['plan']:'pro'", ["Jenny Rosen", "Ruth Rosen Lee"]),
    ("metadata[\"region\"]:'us'", ["No Email"]),
    ("-metadata['plan']:null", ["Jenny Appleseed", "Jenny Rosen", "Ruth Rosen Lee"]),
    ("metadata['plan']:null", ["No Email", "Sam O'Brien"]),
    # null and negation: a negated clause also holds where the field is absent.
    ("email:null", ["No Email"]),
    ("-email~'example.com'", ["Jenny Appleseed", "No Email", "Sam O'Brien"]),
    # AND (or a space) and OR.
    ("name:'jenny' AND metadata['plan']:'free'", ["Jenny Appleseed"]),
    ("name:'jenny' metadata['plan']:'pro'", ["Jenny Rosen"]),
    ("name:'sam' or email:null", ["No Email", "Sam O'Brien"]),
])
def test_each_operator(client, people, query, expected):
    assert names(search(client, query)) == expected


def test_created_compares_numbers(client, people):
    created = people[2].created
    older = {c.name for c in people if c.created < created}
    newer = {c.name for c in people if c.created > created}
    same = {c.name for c in people if c.created == created}
    assert set(names(search(client, f"created>{created}"))) == newer
    assert set(names(search(client, f"created>={created}"))) == newer | same
    assert set(names(search(client, f"created<'{created}'"))) == older
    assert set(names(search(client, f"created<={created}"))) == older | same
    assert set(names(search(client, f"created:{created}"))) == same


def test_pages_and_the_total(client, people):
    first = search(client, "-name:'nobody'", limit=2, expand=["total_count"])
    assert first.total_count == 5
    assert first.has_more is True and first.next_page
    assert [c.id for c in first.data] == [people[4].id, people[3].id]
    second = search(client, "-name:'nobody'", limit=2, page=first.next_page)
    assert [c.id for c in second.data] == [people[2].id, people[1].id]
    # The SDK's own paging: every result once, newest first.
    everything = [c.id for c in search(client, "-name:'nobody'", limit=2).auto_paging_iter()]
    assert everything == [c.id for c in reversed(people)]


def test_the_legacy_resource_api(purse, account, people):
    stripe.api_key = account["secret_key"]
    stripe.api_base = purse.base
    try:
        result = stripe.Customer.search(query="metadata['plan']:'pro'", limit=1)
        assert result.object == "search_result" and len(result.data) == 1 and result.has_more is True
        found = [c.name for c in stripe.Customer.search_auto_paging_iter(query="metadata['plan']:'pro'", limit=1)]
        assert sorted(found) == ["Jenny Rosen", "Ruth Rosen Lee"]
    finally:
        stripe.api_base = "https://api.stripe.com"
        stripe.api_key = None


@pytest.mark.parametrize("query, says", [
    ("", "Missing required param: query."),
    ("   ", "empty"),
    ("email:'a' AND name:'b' OR phone:'c'", "cannot combine AND with OR"),
    ("email:'a' name:'b' OR phone:'c'", "cannot combine AND with OR"),
    ("nickname:'x'", "not a field you can search customers by"),
    ("email:'unterminated", "not closed"),
    ("email~'ab'", "at least 3 characters"),
    ("email:jenny", "must be quoted"),
    ("email>'a'", "cannot be used on email"),
    ("metadata['plan']~'pro'", "cannot be used on metadata"),
    ("created~'123'", "cannot be used on created"),
    ("created>yesterday", "whole number"),
    ("metadata:'x'", "needs a key"),
    ("name['x']:'y'", "Only metadata takes a key"),
    ("email='a'", "Expected one of"),
    ("created>null", "null can only be used with ':'"),
    (" ".join(f"name:'n{i}'" for i in range(11)), "at most 10 clauses"),
    ("(email:'a')", "Expected a field name"),
])
def test_malformed_queries_are_refused(client, people, query, says):
    with pytest.raises(stripe.InvalidRequestError) as error:
        search(client, query)
    assert error.value.http_status == 400
    assert error.value.error.type == "invalid_request_error"
    assert error.value.param == "query"
    assert says in error.value.user_message


def test_other_refusals(client, people):
    with pytest.raises(stripe.InvalidRequestError) as error:
        client.v1.customers.search(params={})
    assert error.value.param == "query" and error.value.code == "parameter_missing"
    with pytest.raises(stripe.InvalidRequestError) as error:
        search(client, "name:'jenny'", limit=101)
    assert error.value.param == "limit"
    with pytest.raises(stripe.InvalidRequestError) as error:
        search(client, "name:'jenny'", page="not-a-page")
    assert error.value.param == "page"
    first = search(client, "-name:'nobody'", limit=1)
    with pytest.raises(stripe.InvalidRequestError) as error:
        search(client, "name:'jenny'", limit=1, page=first.next_page)
    assert error.value.param == "page" and "another search" in error.value.user_message


def test_search_needs_the_secret_key(purse, account, people):
    publishable = purse.client(account["publishable_key"], max_network_retries=0)
    with pytest.raises(stripe.PermissionError):
        search(publishable, "name:'jenny'")


def test_other_accounts_are_not_searched(purse, client, people):
    other = purse.client(purse.create_account()["secret_key"], max_network_retries=0)
    assert search(other, "name:'jenny'").data == []
    assert search(other, "-name:'nobody'", expand=["total_count"]).total_count == 0


def test_deleted_customers_are_not_found(client, people):
    client.v1.customers.delete(people[0].id)
    assert names(search(client, "name:'rosen'")) == ["Ruth Rosen Lee"]


def test_an_unserved_path_is_an_unrecognized_url(purse, account):
    for path in ["/v1/customers/search/more", "/v1/customers/cus_123/nothing_here", "/v1/nope"]:
        request = urllib.request.Request(purse.base + path, headers={"Authorization": f"Bearer {account['secret_key']}"})
        with pytest.raises(urllib.error.HTTPError) as error:
            urllib.request.urlopen(request)
        assert error.value.code == 404
        body = json.loads(error.value.read())
        assert body["error"]["type"] == "invalid_request_error"
        assert body["error"]["message"].startswith(f"Unrecognized request URL (GET: {path}).")
