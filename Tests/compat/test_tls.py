"""HTTPS served by `purse serve` with a development certificate from `purse certificates create`
(issue 26): a client that trusts the development CA reaches Purse, one that does not is refused,
and loopback tools may still use plain http beside it."""
import datetime
import http.client
import json
import os
import re
import socket
import ssl
import stat
import subprocess
import urllib.error
import urllib.request

import pytest
import stripe

from conftest import purse_binary


def certificates(purse, *hosts, out=None):
    arguments = [purse_binary(), "certificates", "create", "--json", "--data-dir", purse.data]
    for host in hosts:
        arguments += ["--host", host]
    if out:
        arguments += ["--out", out]
    result = subprocess.run(arguments, env=purse.env, check=True, capture_output=True, text=True, timeout=60)
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def issued(purse):
    return certificates(purse, "localhost", "127.0.0.1", "api.stripe.com")


@pytest.fixture(scope="module")
def https(purse, issued):
    """A second `purse serve` on the same database, serving https with the development
    certificate and plain http on a loopback port beside it."""
    with purse.sibling("--tls-certificate", issued["certificate"], "--tls-key", issued["key"], "--loopback-http-port", "0") as server:
        port = int(server.base.rsplit(":", 1)[1])
        server.https_port = port
        server.loopback_port = int(
            re.search(r"listening for plain http on 127\.0\.0\.1 port (\d+)", server.log_text()).group(1)
        )
        yield server


def trusting(issued):
    return ssl.create_default_context(cafile=issued["ca_certificate"])


def get(url, context=None):
    with urllib.request.urlopen(url, context=context, timeout=10) as response:
        return response.status, response.read()


def test_the_certificate_names_what_was_asked_and_lasts_at_most_398_days(https, issued):
    with socket.create_connection(("127.0.0.1", https.https_port), timeout=10) as raw:
        with trusting(issued).wrap_socket(raw, server_hostname="localhost") as tls:
            certificate = tls.getpeercert()
    assert ("DNS", "localhost") in certificate["subjectAltName"]
    assert ("IP Address", "127.0.0.1") in certificate["subjectAltName"]
    assert ("DNS", "api.stripe.com") in certificate["subjectAltName"]
    lasts = ssl.cert_time_to_seconds(certificate["notAfter"]) - ssl.cert_time_to_seconds(certificate["notBefore"])
    assert lasts <= 398 * 86400, "Apple refuses TLS server certificates valid for longer"
    expires = datetime.datetime.fromisoformat(issued["expires"].replace("Z", "+00:00"))
    assert expires > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=390)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_a_client_that_trusts_the_development_ca_reaches_purse(https, issued, host):
    status, body = get(f"https://{host}:{https.https_port}/healthz", trusting(issued))
    assert (status, json.loads(body)) == (200, {"status": "ok"})


def test_a_client_that_does_not_trust_it_is_refused(https):
    with pytest.raises(urllib.error.URLError) as refused:
        get(f"https://localhost:{https.https_port}/healthz", ssl.create_default_context())
    assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)


def test_a_name_the_certificate_does_not_carry_is_refused(https, issued):
    with socket.create_connection(("127.0.0.1", https.https_port), timeout=10) as raw:
        with pytest.raises(ssl.SSLCertVerificationError):
            trusting(issued).wrap_socket(raw, server_hostname="purse.example.com")


def test_the_stripe_api_host_name_verifies_for_a_device_that_resolves_it_to_purse(https, issued):
    """stripe-android's route (docs/mobile.md): a debug build resolves api.stripe.com to Purse and
    trusts the development CA; the certificate must then verify under that name."""
    with socket.create_connection(("127.0.0.1", https.https_port), timeout=10) as raw:
        with trusting(issued).wrap_socket(raw, server_hostname="api.stripe.com") as tls:
            tls.sendall(b"GET /healthz HTTP/1.1\r\nHost: api.stripe.com\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := tls.recv(4096):
                answer += chunk
    assert answer.startswith(b"HTTP/1.1 200")


def test_stripe_python_works_over_https_with_the_development_ca(purse, https, issued):
    account = purse.create_account()
    saved = stripe.ca_bundle_path
    stripe.ca_bundle_path = issued["ca_certificate"]
    try:
        client = stripe.StripeClient(
            account["secret_key"], base_addresses={"api": f"https://localhost:{https.https_port}"}, max_network_retries=0
        )
        customer = client.v1.customers.create(params={"email": "tls@example.com"})
        assert client.v1.customers.retrieve(customer.id).email == "tls@example.com"
    finally:
        stripe.ca_bundle_path = saved
    # With the SDK's own bundle (public CAs only) the same call is refused before it is sent.
    client = stripe.StripeClient(
        account["secret_key"], base_addresses={"api": f"https://localhost:{https.https_port}"}, max_network_retries=0
    )
    with pytest.raises(stripe.APIConnectionError):
        client.v1.customers.create(params={"email": "refused@example.com"})


def test_the_setup_intent_page_links_use_https(purse, https, issued):
    """The 3D Secure URL Purse hands out is built from the https listening address when TLS is on
    (and no --public-url says otherwise)."""
    account = purse.create_account()
    saved = stripe.ca_bundle_path
    stripe.ca_bundle_path = issued["ca_certificate"]
    try:
        client = stripe.StripeClient(
            account["secret_key"], base_addresses={"api": f"https://localhost:{https.https_port}"}, max_network_retries=0
        )
        customer = client.v1.customers.create()
        intent = client.v1.setup_intents.create(
            params={"customer": customer.id, "payment_method": "pm_card_authenticationRequired", "confirm": True}
        )
    finally:
        stripe.ca_bundle_path = saved
    assert intent.status == "requires_action"
    assert intent.next_action.redirect_to_url.url.startswith(f"https://127.0.0.1:{https.https_port}/")


def test_plain_http_is_served_on_the_loopback_port_only(https, issued):
    status, _ = get(f"http://127.0.0.1:{https.loopback_port}/healthz")
    assert status == 200
    # The https port does not speak plain http.
    with pytest.raises((urllib.error.URLError, ConnectionError, http.client.HTTPException)):
        get(f"http://127.0.0.1:{https.https_port}/healthz")


def test_the_ca_is_made_once_and_keys_are_private(purse, issued, tmp_path):
    again = certificates(purse, "purse.local", "192.168.1.20", out=str(tmp_path))
    assert again["ca_created"] is False
    assert again["ca_certificate"] == issued["ca_certificate"]
    assert again["hosts"] == ["purse.local", "192.168.1.20"]
    for key in (issued["key"], again["key"], os.path.join(os.path.dirname(issued["ca_certificate"]), "purse-development-ca-key.pem")):
        assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    # Both server certificates chain to the same authority.
    for chain in (issued["certificate"], again["certificate"]):
        text = open(chain).read()
        assert text.count("BEGIN CERTIFICATE") == 2
        assert open(issued["ca_certificate"]).read().strip() in text


@pytest.mark.parametrize("hosts", [["not a host"], ["-bad.example.com"], ["a..b"]])
def test_hosts_that_are_neither_names_nor_addresses_are_refused(purse, hosts):
    arguments = [purse_binary(), "certificates", "create", "--data-dir", purse.data]
    arguments += [f"--host={host}" for host in hosts]
    result = subprocess.run(arguments, env=purse.env, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "neither a host name nor an IP address" in result.stderr


def test_serve_refuses_a_key_that_does_not_match_its_certificate(purse, issued, tmp_path):
    other = certificates(purse, "localhost", out=str(tmp_path))
    result = subprocess.run(
        [purse_binary(), "serve", "--port", "0", "--tls-certificate", issued["certificate"], "--tls-key", other["key"]],
        env=purse.env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert "TLS private key" in result.stderr + result.stdout


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--tls-certificate", "/nonexistent.pem", "--tls-key", "/nonexistent-key.pem"], "/nonexistent.pem"),
        (["--tls-certificate", "/nonexistent.pem"], "go together"),
        (["--loopback-http-port", "0"], "--loopback-http-port"),
    ],
)
def test_serve_explains_tls_settings_it_cannot_use(purse, flags, message):
    result = subprocess.run(
        [purse_binary(), "serve", "--port", "0", *flags], env=purse.env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode != 0
    assert message in result.stderr + result.stdout
