"""Fixtures for the compatibility tests: a live `purse serve` on its local default PostgreSQL,
driven through Stripe's official Python SDK exactly as its users drive api.stripe.com."""
import contextlib
import itertools
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse

import pytest
import stripe

REPOSITORY = pathlib.Path(__file__).resolve().parents[2]


def purse_binary():
    return os.environ.get("PURSE_BINARY") or str(REPOSITORY / ".build" / "debug" / "purse")


@pytest.fixture(scope="session")
def purse():
    """One server for the session, with its own PostgreSQL in a temporary data folder."""
    root = os.environ.get("PURSE_TEST_ROOT") or tempfile.gettempdir()
    data = tempfile.mkdtemp(prefix="compat-", dir=root)
    os.chmod(data, 0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PURSE_") and k != "DATABASE_URL"}
    env["PURSE_DATA_DIR"] = data
    log = open(os.path.join(data, "serve.log"), "w+")
    process = subprocess.Popen(
        [purse_binary(), "serve", "--port", "0"], stdout=log, stderr=subprocess.STDOUT, env=env
    )
    port = wait_for_port(process, log)
    server = Server(f"http://127.0.0.1:{port}", data, env, log)
    yield server
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=60)
    log.close()
    shutil.rmtree(data, ignore_errors=True)


class Server:
    def __init__(self, base, data, env, log, log_name="serve.log", database="purse", process=None):
        self.base = base
        self.data = data
        self.env = env
        self.log = log
        self.log_name = log_name
        self.database = database
        self.process = process

    def create_account(self, name="Compat"):
        """`purse accounts create --json`, against the server's own database."""
        output = subprocess.run(
            [purse_binary(), "accounts", "create", "--name", name, "--json"],
            env=self.env, check=True, capture_output=True, text=True, timeout=120,
        ).stdout
        keys = json.loads(output)
        SECRETS_SEEN.add(keys["secret_key"])
        SECRETS_SEEN.add(keys["publishable_key"])
        return keys

    def client(self, key, **options):
        options.setdefault("http_client", RecordingHTTPClient())
        return stripe.StripeClient(key, base_addresses={"api": self.base}, **options)

    def log_text(self):
        self.log.flush()
        return pathlib.Path(self.data, self.log_name).read_text()

    @contextlib.contextmanager
    def sibling(self, *flags):
        """A second `purse serve` with extra flags (`--ephemeral-key-lifetime 1`) on this server's
        data folder, so on the same database, master key and accounts; stopped on exit. Its log
        stays in the data folder, where test_zz_card_data.py looks for card data too. Its `process`
        is there for a test that stops it itself (a SIGTERM in the middle of its work)."""
        name = f"serve-sibling-{next(_SIBLINGS)}.log"
        log = open(os.path.join(self.data, name), "w+")
        process = subprocess.Popen(
            [purse_binary(), "serve", "--port", "0", *flags], stdout=log, stderr=subprocess.STDOUT, env=self.env
        )
        try:
            port = wait_for_port(process, log)
            yield Server(
                f"http://127.0.0.1:{port}", self.data, self.env, log, log_name=name, database=self.database,
                process=process,
            )
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            log.close()

    def fresh_database(self):
        """A new, migrated database on this server's PostgreSQL, as a Server with no process of its
        own: its `sibling()`s all serve that database (same data folder and master key), and its
        `create_account()` and `psql()` use it. For tests that must know every server of their
        database, such as webhook delivery, which any server on a database may make."""
        name = f"isolated_{next(_DATABASES)}"
        psql(self, 'CREATE DATABASE :"name"', name=name)
        cluster = pathlib.Path(self.data, "postgres")
        password = urllib.parse.quote((cluster / "password").read_text().strip(), safe="")
        port = (cluster / "port").read_text().strip()
        env = dict(self.env, DATABASE_URL=f"postgres://postgres:{password}@127.0.0.1:{port}/{name}")
        subprocess.run([purse_binary(), "migrate"], env=env, check=True, capture_output=True, text=True, timeout=120)
        return Server(None, self.data, env, self.log, log_name=self.log_name, database=name)


_SIBLINGS = itertools.count(1)
_DATABASES = itertools.count(1)


def wait_for_port(process, log, timeout=120):
    """The port a starting `purse serve` reports in its log; raises if it exits or takes too long."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        log.seek(0)
        match = re.search(r"listening on port (\d+)", log.read())
        if match:
            return int(match.group(1))
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError("purse serve exited early:\n" + log.read())
        time.sleep(0.1)
    # A start this slow is a hang: what it printed and where its threads stand say where.
    stacks = thread_stacks(process.pid)
    process.kill()
    log.seek(0)
    raise RuntimeError(
        f"purse serve did not start in {timeout} s. Its output:\n{log.read()[-4000:]}\nIts threads:\n{stacks}"
    )


def thread_stacks(pid):
    """Every thread's backtrace in a live process, from gdb; or why there is none."""
    gdb = shutil.which("gdb")
    if not gdb:
        return "(no backtraces: gdb is not installed)"
    try:
        result = subprocess.run(
            [gdb, "-p", str(pid), "-batch", "-nx", "-ex", "thread apply all bt 40"],
            capture_output=True, text=True, timeout=60,
        )
    except subprocess.TimeoutExpired:
        return "(no backtraces: gdb took over 60 s)"
    return result.stdout[-30000:] or result.stderr[-2000:]


@pytest.fixture
def account(purse):
    """A fresh account per test, so tests never see each other's objects."""
    return purse.create_account()


@pytest.fixture
def client(purse, account):
    """A StripeClient on the account's secret key, with retries off so every status is seen."""
    return purse.client(account["secret_key"], max_network_retries=0)


class SentCardData:
    """Every card number, CVC, IBAN and US bank account number the compat tests send, and every
    test token (`pm_card_visa`, `tok_visa`, ...) standing for one, so that test_zz_card_data.py can
    prove none of them is kept. Filled in by `RecordingHTTPClient` from the requests themselves,
    so no test can forget to register what it sends."""

    FIELDS = {
        "card[number]": "card_numbers",
        "card[cvc]": "cvcs",
        "sepa_debit[iban]": "ibans",
        "us_bank_account[account_number]": "account_numbers",
    }
    TOKEN = re.compile(r"\b(?:pm_card_|tok_|pm_usBankAccount_|pm_sepaDebit_)[A-Za-z0-9_]+")

    def __init__(self):
        self.card_numbers = set()
        self.cvcs = set()
        self.ibans = set()
        self.account_numbers = set()
        self.tokens = set()

    def record(self, url, body):
        split = urllib.parse.urlsplit(url)
        self.tokens.update(self.TOKEN.findall(urllib.parse.unquote(split.path)))
        for form in (split.query, body or ""):
            if isinstance(form, bytes):
                form = form.decode()
            for key, value in urllib.parse.parse_qsl(form, keep_blank_values=True):
                field = self.field_of(key)
                if field and value:
                    getattr(self, self.FIELDS[field]).add(value)
                self.tokens.update(self.TOKEN.findall(value))

    @classmethod
    def field_of(cls, key):
        """The card-data field a form key sends, also when nested (a setup intent's
        `payment_method_data[card][number]` is `card[number]`); None for any other key."""
        for field in cls.FIELDS:
            if key == field or key.endswith("[" + field.replace("[", "][", 1)):
                return field
        return None


SENT_CARD_DATA = SentCardData()


class SecretsSeen(set):
    """Every API key, ephemeral-key secret, customer-session secret, client secret and webhook
    signing secret the compat tests were given or presented, so that test_zz_card_data.py can prove
    none of them is kept in clear (keys and secrets are stored hashed or derived, spec §2)."""

    PATTERN = re.compile(
        r"\b(?:sk_test_|pk_test_|ek_test_|cuss_secret_|whsec_)[A-Za-z0-9]{16,}|\bseti_[A-Za-z0-9]+_secret_[A-Za-z0-9]+"
    )

    def record(self, text):
        self.update(self.PATTERN.findall(text or ""))


SECRETS_SEEN = SecretsSeen()


class RecordingHTTPClient(stripe.RequestsClient):
    """stripe-python's own HTTP client, noting the card data of each request in SENT_CARD_DATA."""

    def request(self, method, url, headers, post_data=None, **kwargs):
        SENT_CARD_DATA.record(url, post_data)
        SECRETS_SEEN.record((headers or {}).get("Authorization"))
        content, status, response_headers = super().request(method, url, headers, post_data, **kwargs)
        SECRETS_SEEN.record(content.decode("utf-8", "replace") if isinstance(content, bytes) else content)
        return content, status, response_headers


def pg_dump(server):
    """The server's whole database as SQL text, from the newest pg_dump installed, over TCP with
    the password of its local cluster."""
    binaries = sorted(
        pathlib.Path("/usr/lib/postgresql").glob("*/bin/pg_dump"),
        key=lambda path: int(re.sub(r"\D", "", path.parts[-3]) or 0),
    )
    assert binaries, "pg_dump not found under /usr/lib/postgresql/*/bin"
    cluster = pathlib.Path(server.data, "postgres")
    env = dict(os.environ, PGPASSWORD=(cluster / "password").read_text().strip())
    port = (cluster / "port").read_text().strip()
    return subprocess.run(
        [str(binaries[-1]), "--host", "127.0.0.1", "--port", port, "--username", "postgres", "--dbname", "purse"],
        env=env, check=True, capture_output=True, text=True, timeout=120,
    ).stdout


def psql(server, statement, **variables):
    """Runs SQL on the server's database with the newest psql installed, for a state no request can
    make (a card saved while valid that has expired since). Values travel as psql variables
    (`:'name'` in the statement, quoted by psql), never pasted into the SQL."""
    binaries = sorted(
        pathlib.Path("/usr/lib/postgresql").glob("*/bin/psql"),
        key=lambda path: int(re.sub(r"\D", "", path.parts[-3]) or 0),
    )
    assert binaries, "psql not found under /usr/lib/postgresql/*/bin"
    cluster = pathlib.Path(server.data, "postgres")
    env = dict(os.environ, PGPASSWORD=(cluster / "password").read_text().strip())
    port = (cluster / "port").read_text().strip()
    arguments = [
        str(binaries[-1]), "--host", "127.0.0.1", "--port", port, "--username", "postgres", "--dbname", server.database,
        "--no-psqlrc", "--quiet", "--tuples-only", "--no-align", "--set", "ON_ERROR_STOP=1",
    ]
    for name, value in variables.items():
        arguments += ["--set", f"{name}={value}"]
    return subprocess.run(
        arguments, input=statement, env=env, check=True, capture_output=True, text=True, timeout=120,
    ).stdout
