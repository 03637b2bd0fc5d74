#!/usr/bin/env python3
"""Purse's benchmark: throughput and latency of the customer-sheet workloads against a release
`purse serve` on its own PostgreSQL, beside the PostgreSQL floor (the same SQL run by pgbench)
and a peer (localstripe), with peak memory. Loopback only, bounded in time.

    python3 Benchmarks/bench.py run            # the workloads, the floor and the peer (~15 min)
    python3 Benchmarks/bench.py scale          # list/retrieve/search latency at 10k, 100k, 1M customers
    python3 Benchmarks/bench.py compare --baseline OTHER/purse   # two builds side by side, alternating

With PURSE_BENCH_PERF=FOLDER set, `compare` also records each measured window of each build with
`perf record -g` into FOLDER (one file per workload, build and round), to see where a difference
goes: `perf report -i FOLDER/FILE --no-children`, or as a flame graph:
`python3 Benchmarks/flamegraph.py FOLDER/FILE OUT.svg` (Benchmarks/profiles holds the list's, the
confirmation's and the elements session's).

scripts/bench builds the release binaries first and is the command to use. Figures go to
Benchmarks/results.md (the table) and Benchmarks/results.json (everything measured).
"""

import argparse
import concurrent.futures
import csv
import datetime
import json
import os
import pathlib
import re
import secrets
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
# PURSE_BENCH_QUICK=FOLDER is the test command's form: the same run on the debug binaries, short
# and once, its results written to FOLDER. It shows that every part of the benchmark works; its
# figures measure nothing.
QUICK = os.environ.get("PURSE_BENCH_QUICK")
BINARIES = ROOT / ".build" / ("debug" if QUICK else "release")
RESULTS = pathlib.Path(QUICK) if QUICK else ROOT / "Benchmarks"
RESULTS_MD = RESULTS / "results.md"
RESULTS_JSON = RESULTS / "results.json"

CONNECTIONS = 32
# Input rows the floor's scripts spread over (as many as the service's run uses at most).
FLOOR_ROWS = 64
WARMUP = 1 if QUICK else 3
DURATION = 1 if QUICK else 10
# Each workload is measured this many times, Purse and its floor in turn: one pair of runs moved
# by as much as the gaps it should show (the same binary measured 53 % and 64 % of its floor).
ROUNDS = 1 if QUICK else 3
# The `/healthz` target compares Purse with bare Hummingbird in pairs of short runs back to back,
# taking turns at going first, judged by the pairs' median: on one build the ratio moved from
# 1.10× to 1.74× between pairs (2026-11-28), more than the rounds' three can settle.
HEALTHZ_PAIRS = 1 if QUICK else 9
HEALTHZ_PAIR_DURATION = 1 if QUICK else 4
# The scale runs: rounds that take every size in turn, each run this long after its warm-up.
SCALE_ROUNDS = 1 if QUICK else 3
SCALE_DURATION = 1 if QUICK else 5
CARD = {
    "type": "card", "card[number]": "4242424242424242", "card[exp_month]": "12", "card[exp_year]": "2034",
    "card[cvc]": "123",
}
# What a request costs before Purse's own work: HTTP/1.1, routing, the response middleware
# and the metrics, with no authentication and no database.
HTTP_STACK = {"name": "http_stack", "title": "the HTTP stack alone (GET /healthz)",
              "steps": [{"method": "GET", "path": "/healthz", "headers": {}}], "rows": [{}]}
# Issue 35's targets, judged from one run (`targets`).
SINGLE_STATEMENT_READS = ["list_payment_methods", "retrieve_customer", "elements_session"]
# Purse's CPU per operation before issue 35, and its `/healthz`'s (results.md of 2026-11-23 03:33,
# commit c6507df): a write's target is half of it. This machine's speed drifts from day to day
# (`/healthz` cost 50 µs then and 91 µs on 2026-11-27), so the write is judged by its ratio to the
# same run's `/healthz`: at most half of the ratio then.
WRITE_CPU_BEFORE_US = {"create_customer": 235, "confirm_setup_intent": 1506, "attach_detach": 949, "set_default": 966}
HEALTHZ_CPU_BEFORE_US = 50
# Latency without queueing: one connection, one request in flight, this many operations.
UNQUEUED_OPERATIONS = {"read": 20, "write": 10} if QUICK else {"read": 1000, "write": 300}
UNQUEUED_P99_LIMIT_MS = {"read": 1.0, "write": 5.0}
RSS_LIMIT_MB = 64
ID_PATTERN = re.compile(r"^(cus|pm|seti|evt|req|ephkey|cuss|css|we|whdel)_[A-Za-z0-9]+$")


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def parent_pid(stat_file):
    try:
        return int(stat_file.read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def children_cpu_seconds():
    """User + system CPU of this script's finished children (pgbench, once it has been waited for)."""
    times = os.times()
    return times.children_user + times.children_system


def cpu_seconds(pids):
    """User + system CPU the processes have used so far; one that has exited counts nothing."""
    total = 0
    for pid in pids:
        try:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


class Cluster:
    """A PostgreSQL of the benchmark's own in a temporary folder, with the durability settings a
    production server keeps (fsync and synchronous commit on). Statement logging goes to a CSV
    log, switched on only while the SQL of one operation is captured."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        self.data = self.folder / "data"
        self.logs = self.folder / "log"
        self.port = free_port()
        self.password = secrets.token_hex(16)
        self.bin = pathlib.Path(sorted(pathlib.Path("/usr/lib/postgresql").glob("*/bin/initdb"))[-1]).parent
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def run(self, tool, *arguments, **options):
        return subprocess.run(self.as_postgres + [str(self.bin / tool), *arguments], check=True, **options)

    def start(self):
        self.folder.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir()
        password_file = self.folder / "password"
        password_file.write_text(self.password)
        if self.as_postgres:
            shutil.chown(self.folder, "postgres")
            shutil.chown(self.logs, "postgres")
            shutil.chown(password_file, "postgres")
        self.run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=scram-sha-256",
                 f"--pwfile={password_file}", capture_output=True)
        settings = {
            "listen_addresses": "127.0.0.1", "port": str(self.port), "unix_socket_directories": str(self.folder),
            "max_connections": "200", "shared_buffers": "256MB", "logging_collector": "on",
            "log_destination": "csvlog", "log_directory": str(self.logs), "log_filename": "postgresql",
            "log_parameter_max_length": "-1",
        }
        options = " ".join(f"-c {name}={value}" for name, value in settings.items())
        self.run("pg_ctl", "-D", str(self.data), "-w", "-o", options, "-l", str(self.folder / "server.log"),
                 "start", capture_output=True)
        self.psql("CREATE DATABASE purse", database="postgres")

    def stop(self):
        subprocess.run(self.as_postgres + [str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"],
                       capture_output=True)

    def cpu_seconds(self):
        """CPU used so far by the postmaster and every process it started, ended ones included
        (the postmaster collects theirs when it reaps them: pgbench's backends end with it)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        # Not pathlib's glob: it stats each match, and a backend ending meanwhile makes it
        # raise ProcessLookupError.
        children = [int(name) for name in os.listdir("/proc")
                    if name.isdigit() and parent_pid(pathlib.Path("/proc", name, "stat")) == postmaster]
        fields = pathlib.Path(f"/proc/{postmaster}/stat").read_text().rsplit(")", 1)[1].split()
        reaped = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
        return cpu_seconds([postmaster, *children]) + reaped

    def url(self, database="purse"):
        return f"postgres://postgres:{self.password}@127.0.0.1:{self.port}/{database}"

    def env(self):
        return dict(os.environ, PGPASSWORD=self.password, PGHOST="127.0.0.1", PGPORT=str(self.port),
                    PGUSER="postgres")

    def psql(self, sql, database="purse", input=None):
        result = subprocess.run(
            [str(self.bin / "psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", database, "-c", sql],
            env=self.env(), input=input, capture_output=True, text=True, check=True,
        )
        return result.stdout.strip()

    def copy_in(self, table, columns, lines, database="purse"):
        """Streams rows (COPY text format lines) into `table`."""
        process = subprocess.Popen(
            [str(self.bin / "psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database,
             "-c", f"COPY {table} ({', '.join(columns)}) FROM STDIN"],
            env=self.env(), stdin=subprocess.PIPE, text=True,
        )
        batch = []
        for line in lines:
            batch.append(line)
            if len(batch) >= 10000:
                process.stdin.write("\n".join(batch) + "\n")
                batch = []
        if batch:
            process.stdin.write("\n".join(batch) + "\n")
        process.stdin.close()
        if process.wait() != 0:
            raise SystemExit(f"COPY into {table} failed")

    def set_statement_logging(self, enabled):
        value = "'all'" if enabled else "DEFAULT"
        self.psql(f"ALTER SYSTEM SET log_statement = {value}", database="postgres")
        self.psql("SELECT pg_reload_conf()", database="postgres")
        time.sleep(0.3)  # backends apply the reload between statements

    def csv_log(self):
        return self.logs / "postgresql.csv"


class Server:
    """A server process on loopback that prints "listening on port N" once it listens."""

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = None
        self.base = None

    def launch(self, command, log_name, env=None, limit=60):
        self.output = open(self.folder / log_name, "w+")
        self.process = subprocess.Popen(command, env=env, stdout=self.output, stderr=subprocess.STDOUT)
        deadline = time.time() + limit
        while time.time() < deadline:
            self.output.seek(0)
            found = re.search(r"listening on port (\d+)", self.output.read())
            if found:
                self.base = f"http://127.0.0.1:{found.group(1)}"
                return
            if self.process.poll() is not None:
                raise SystemExit(f"{command[0]} exited:\n" + (self.folder / log_name).read_text())
            time.sleep(0.1)
        raise SystemExit(f"{command[0]} did not start")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=30)


class Purse(Server):
    """A release `purse serve` on the benchmark's database."""

    def __init__(self, cluster, folder, database="purse", binary=BINARIES / "purse", env=None):
        super().__init__(folder)
        self.cluster = cluster
        self.binary = pathlib.Path(binary)
        self.env = env or dict(os.environ, DATABASE_URL=cluster.url(database), PURSE_MASTER_KEY=secrets.token_hex(32),
                               PURSE_LOG_LEVEL="warning")

    def command(self, *arguments):
        result = subprocess.run([str(self.binary), *arguments], env=self.env, capture_output=True,
                                text=True, check=True)
        return result.stdout

    def start(self, *flags):
        self.command("migrate")
        self.launch([str(self.binary), "serve", "--port", "0", *flags], "serve.log", env=self.env)

    def peak_rss_mb(self):
        status = pathlib.Path(f"/proc/{self.process.pid}/status").read_text()
        return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024


class BareHTTP(Server):
    """The HTTP floor: `bare-http`, Hummingbird alone answering `GET /healthz`; given a database
    and the workloads' statements, also the read and write floors (`sql_floor_workload`)."""

    def start(self, *flags):
        self.launch([str(BINARIES / "bare-http"), *flags], "bare-http.log")


def sql_floor_workload(workload, count):
    """The read or write floor of a workload: `bare-http` running, for each of the workload's
    requests, the statements the floor's pgbench runs for it, through libpq and nothing else. A
    write's first request answers the token its ids are made from; the later ones pass it back."""
    steps = []
    for number, step in enumerate(workload["steps"]):
        path = f"/sql/{workload['name']}/{{index}}/{number}" + ("?token={token}" if number else "")
        steps.append({"method": step["method"], "path": path, "headers": {},
                      **({"body": ""} if step["method"] == "POST" else {}),
                      **({"capture": {"token": "token"}} if number == 0 and len(workload["steps"]) > 1 else {})})
    return {"name": f"{workload['name']}_floor", "title": f"{workload['title']}: the {kind_of(workload['name'])} floor",
            "steps": steps, "rows": [{"index": str(index)} for index in range(count)]}


def floor_requests(script, requests):
    """A floor script's statements split into the operation's requests, for the SQL floor: each
    request ends at its transaction's COMMIT (or at the script's end), and the ids the operation
    makes take their number from `$1`, where pgbench's take it from `:n`."""
    statements = [line.removesuffix(";").replace(" || :n || ", " || $1 || ")
                  for line in script.splitlines() if line and not line.startswith("\\")]
    split, current = [], []
    for statement in statements:
        current.append(statement)
        if statement == "COMMIT":
            split.append(current)
            current = []
    if current:
        split.append(current)
    if len(split) != requests:
        raise SystemExit(f"the floor's script splits into {len(split)} requests at its COMMITs, not {requests}")
    return split


def two_processes_floor(cluster, purse, second, folder):
    """What splitting the load between two processes costs where Purse runs none of its own code
    per request: `GET /healthz` on one Purse process then on both, and bare Hummingbird on one
    then on two, each pair run back to back. The ratios are CPU per request on two ÷ on one."""
    def healthz(bases, pids):
        settle(cluster)
        return run_load(bases, HTTP_STACK, folder, cpu_of={"server": lambda: cpu_seconds(pids)})

    floor = {"purse": [healthz(purse.base, [purse.process.pid]),
                       healthz([purse.base, second.base], [purse.process.pid, second.process.pid])]}
    first, other = BareHTTP(folder / "bare-http-one"), BareHTTP(folder / "bare-http-two")
    try:
        first.start()
        other.start()
        floor["bare_http"] = [healthz(first.base, [first.process.pid]),
                              healthz([first.base, other.base], [first.process.pid, other.process.pid])]
    finally:
        first.stop()
        other.stop()
    for name, (one, two) in floor.items():
        log(f"GET /healthz, {name}: {one['cpu_us_per_operation']['server']:.0f} µs per request on one process, "
            f"{two['cpu_us_per_operation']['server']:.0f} µs on two, {one['errors'] + two['errors']} errors")
    return floor


def healthz_pairs(purse, bare, folder):
    """`GET /healthz` on Purse and on bare Hummingbird back to back, HEALTHZ_PAIRS times, the
    first of each pair alternating. Nothing touches the database, so no run waits to settle."""
    pairs = []
    for number in range(HEALTHZ_PAIRS):
        sides = [("purse", purse), ("bare_http", bare)]
        pair = {}
        for name, server in sides if number % 2 == 0 else reversed(sides):
            pid = server.process.pid
            pair[name] = run_load(server.base, HTTP_STACK, folder, duration=HEALTHZ_PAIR_DURATION,
                                  cpu_of={"server": lambda: cpu_seconds([pid])})
        pairs.append(pair)
        log(f"GET /healthz pair {number + 1}: Purse {pair['purse']['cpu_us_per_operation']['server']:.0f} µs, "
            f"bare Hummingbird {pair['bare_http']['cpu_us_per_operation']['server']:.0f} µs per request")
    return pairs


def healthz_ratios(run):
    """Purse's `/healthz` CPU per request ÷ bare Hummingbird's, pair by pair."""
    return [pair["purse"]["cpu_us_per_operation"]["server"] / pair["bare_http"]["cpu_us_per_operation"]["server"]
            for pair in run.get("healthz_pairs", [])]


def counted(number, noun):
    """"1 pair", "9 pairs": a count and its noun for the report."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def two_processes_ratio(floor, name):
    """CPU per request on two processes ÷ on one, from `two_processes_floor`."""
    one, two = floor[name]
    return two["cpu_us_per_operation"]["server"] / one["cpu_us_per_operation"]["server"]


class Api:
    """Form-encoded calls for seeding, as the SDKs make them."""

    def __init__(self, base, key, version=None):
        self.base = base
        self.key = key
        self.version = version

    def call(self, method, path, params=None, headers=None):
        data = urllib.parse.urlencode(params or {}).encode()
        url = self.base + path
        if method == "GET" and params:
            url, data = f"{url}?{data.decode()}", None
        request = urllib.request.Request(url, data=data if method != "GET" else None, method=method)
        request.add_header("Authorization", f"Bearer {self.key}")
        if self.version:
            request.add_header("Stripe-Version", self.version)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            raise SystemExit(f"{method} {path} failed: {error.code} {error.read().decode()[:500]}")


def parallel(function, items, workers=8):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, items))


def clone_rows(cluster, table, template_id, count, changes, database="purse"):
    """`count` copies of one row, made with COPY: `changes(i)` gives the columns to replace."""
    columns = cluster.psql(
        "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns "
        f"WHERE table_name = '{table}' AND is_identity = 'NO'", database=database
    ).split(",")
    template = subprocess.run(
        [str(cluster.bin / "psql"), "-X", "-q", "-d", database, "-c",
         f"COPY (SELECT {', '.join(columns)} FROM {table} WHERE id = '{template_id}') TO STDOUT"],
        env=cluster.env(), capture_output=True, text=True, check=True,
    ).stdout.rstrip("\n").split("\t")
    index = {name: position for position, name in enumerate(columns)}

    def lines():
        for i in range(count):
            row = list(template)
            for name, value in changes(i).items():
                row[index[name]] = value
            yield "\t".join(row)

    cluster.copy_in(table, columns, lines(), database=database)


def random_id(prefix):
    return prefix + "_" + secrets.token_hex(12)


# The workloads

# The quick form's stock of cards for attach + detach. Its one- and two-process runs last a time,
# not a count, and with 2,000 cards each had under 500: a CI run's two-process run had 3 errors,
# most likely cards it reached twice (a detached card cannot be attached again).
QUICK_UNATTACHED = 6000
# The email of create + confirm's customers, whose cards `settle` detaches.
CONFIRMING_EMAIL = "confirm{}@example.com"


def purse_fixtures(purse, customers=64, methods_per_customer=10, unattached=QUICK_UNATTACHED if QUICK else 100000,
                   confirming=256):
    """An account; customers with saved cards, each with an ephemeral key and a customer session;
    a stock of unattached cards (cloned with COPY) for attach + detach; and customers of their own
    for create + confirm, which attaches a card each time: over three rounds it gave the shared
    customers hundreds, up to the limit of 500 an attach then met (and every read of their cards
    paid for them)."""
    keys = json.loads(purse.command("accounts", "create", "--name", "Bench", "--json"))
    secret = Api(purse.base, keys["secret_key"])
    publishable = Api(purse.base, keys["publishable_key"])

    def make_customer(i):
        customer = secret.call("POST", "/v1/customers", {"email": f"bench{i}@example.com"})["id"]
        methods = []
        for _ in range(methods_per_customer):
            method = publishable.call("POST", "/v1/payment_methods", CARD)["id"]
            secret.call("POST", f"/v1/payment_methods/{method}/attach", {"customer": customer})
            methods.append(method)
        ephemeral = Api(purse.base, keys["secret_key"], version="2020-08-27").call(
            "POST", "/v1/ephemeral_keys", {"customer": customer})["secret"]
        session = secret.call("POST", "/v1/customer_sessions", {
            "customer": customer, "components[customer_sheet][enabled]": "true"})["client_secret"]
        return {"customer": customer, "ek": ephemeral, "session": session, "pm_a": methods[0], "pm_b": methods[1]}

    rows = parallel(make_customer, range(customers))
    template = publishable.call("POST", "/v1/payment_methods", CARD)["id"]
    stock = [random_id("pm") for _ in range(unattached)]
    created = int(time.time())
    clone_rows(purse.cluster, "payment_methods", template, unattached,
               lambda i: {"id": stock[i], "created": str(created)})
    purse.cluster.psql("VACUUM ANALYZE")
    for i, row in enumerate(rows):
        row.update(sk=keys["secret_key"], pk=keys["publishable_key"])
    attach_rows = [dict(rows[i % len(rows)], stock=method) for i, method in enumerate(stock)]
    confirm_rows = [dict(rows[0], customer=customer) for customer in parallel(
        lambda i: secret.call("POST", "/v1/customers", {"email": CONFIRMING_EMAIL.format(i)})["id"], range(confirming))]
    return rows, attach_rows, confirm_rows


def purse_workloads(rows, attach_rows, confirm_rows):
    secret = {"Authorization": "Bearer {sk}"}
    publishable = {"Authorization": "Bearer {pk}"}
    card = urllib.parse.urlencode({"payment_method_data[" + key.replace("[", "][", 1).rstrip("]") + "]"
                                   if "[" in key else f"payment_method_data[{key}]": value
                                   for key, value in CARD.items()}, safe="[]")
    return [
        {"name": "list_payment_methods", "title": "list a customer's 10 payment methods (ephemeral key)",
         "steps": [{"method": "GET", "path": "/v1/payment_methods?customer={customer}&type=card&limit=100",
                    "headers": {"Authorization": "Bearer {ek}"}}], "rows": rows},
        {"name": "retrieve_customer", "title": "retrieve a customer",
         "steps": [{"method": "GET", "path": "/v1/customers/{customer}", "headers": secret}], "rows": rows},
        {"name": "create_customer", "title": "create a customer",
         "steps": [{"method": "POST", "path": "/v1/customers", "headers": secret, "body": "email=c{n}%40example.com"}],
         "rows": rows},
        {"name": "confirm_setup_intent", "title": "create + confirm a setup intent (test card)",
         "steps": [
             {"method": "POST", "path": "/v1/setup_intents", "headers": secret,
              "body": "customer={customer}&payment_method_types[]=card", "capture": {"seti": "id", "secret": "client_secret"}},
             {"method": "POST", "path": "/v1/setup_intents/{seti}/confirm", "headers": publishable,
              "body": "client_secret={secret}&" + card},
         ], "rows": confirm_rows},
        {"name": "attach_detach", "title": "attach + detach a payment method",
         "steps": [
             {"method": "POST", "path": "/v1/payment_methods/{stock}/attach", "headers": secret, "body": "customer={customer}"},
             {"method": "POST", "path": "/v1/payment_methods/{stock}/detach", "headers": secret, "body": ""},
         ], "rows": attach_rows, "consumes_rows": True},
        {"name": "set_default", "title": "set the default payment method (two alternating updates)",
         "steps": [
             {"method": "POST", "path": "/v1/customers/{customer}", "headers": secret,
              "body": "invoice_settings[default_payment_method]={pm_a}"},
             {"method": "POST", "path": "/v1/customers/{customer}", "headers": secret,
              "body": "invoice_settings[default_payment_method]={pm_b}"},
         ], "rows": rows},
        {"name": "elements_session", "title": "the elements session (customer session)",
         "steps": [{"method": "GET",
                    "path": "/v1/elements/sessions?type=deferred_intent&deferred_intent[mode]=setup"
                            "&deferred_intent[payment_method_types][]=card&customer_session_client_secret={session}",
                    "headers": publishable}], "rows": rows},
    ]


def run_load(base, workload, folder, connections=CONNECTIONS, warmup=WARMUP, duration=DURATION, operations=None,
             cpu_of=None, profile=None):
    """Runs `purse-load` against `base` (a URL, or a list whose servers the connections take in
    turn) and returns its report. With `cpu_of` (a name for each process group, and
    a function giving the CPU seconds it has used), the report also gives each group's CPU per
    operation over the measured seconds, the load generator's own as "load". With `profile` (a
    process id and a file), that process is recorded by `perf` over the measured seconds."""
    spec = folder / f"{workload['name']}.json"
    spec.write_text(json.dumps({key: workload[key] for key in ("name", "steps", "rows")}))
    report = folder / f"{workload['name']}.report.json"
    arguments = [str(BINARIES / "purse-load"), "--workload", str(spec), "--connections", str(connections),
                 "--output", str(report)]
    for url in [base] if isinstance(base, str) else base:
        arguments += ["--url", url]
    if operations is None:
        arguments += ["--warmup", str(warmup), "--duration", str(duration)]
    else:
        arguments += ["--operations", str(operations)]
    load = subprocess.Popen(arguments)
    if cpu_of is not None:
        clocks = dict(cpu_of, load=lambda: cpu_seconds([load.pid]))
        time.sleep(warmup)
        before = {name: clock() for name, clock in clocks.items()}
        recorder = None
        if profile is not None:
            pid, output = profile
            recorder = subprocess.Popen(["perf", "record", "-F", "999", "-g", "-o", str(output), "-p", str(pid), "--",
                                         "sleep", str(duration)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(duration)
        if recorder is not None:
            recorder.wait()
        spent = {name: clock() - before[name] for name, clock in clocks.items()}
    if load.wait() != 0:
        raise SystemExit(f"{workload['name']}: purse-load failed")
    result = json.loads(report.read_text())
    if cpu_of is not None:
        operations_measured = result["operations_per_second"] * duration
        result["cpu_us_per_operation"] = {name: 1e6 * seconds / operations_measured if operations_measured else None
                                          for name, seconds in spent.items()}
    return result


# The floor: the SQL of one operation, captured from PostgreSQL's log, run by pgbench

PARAMETER = re.compile(r"\$(\d+) = (NULL|'(?:[^']|'')*')")


def capture_statements(cluster, purse, workload, folder):
    """Runs one operation with statement logging on and returns the API's statements in order,
    parameters filled in."""
    # One operation first, unlogged, so what is captured is the steady state the measured run
    # sees (keys already in the credential cache), not a cold start.
    warm_rows = workload["rows"][-2:-1] if workload.get("consumes_rows") else workload["rows"][-1:]
    run_load(purse.base, dict(workload, rows=warm_rows), folder, connections=1, operations=1)
    log_file = cluster.csv_log()
    offset = log_file.stat().st_size if log_file.exists() else 0
    cluster.set_statement_logging(True)
    # The last row, which the measured run reaches last (attach + detach uses up its row).
    report = run_load(purse.base, dict(workload, rows=workload["rows"][-1:]), folder, connections=1, operations=1)
    cluster.set_statement_logging(False)
    if report["errors"]:
        raise SystemExit(f"{workload['name']}: the captured operation failed: {report['error_samples']}")
    with open(log_file, newline="") as handle:
        handle.seek(offset)
        records = list(csv.reader(handle))
    statements = []
    for record in records:
        message, detail, application = record[13], record[14], record[22]
        found = re.match(r"(?:statement|execute [^:]+): (.*)", message, re.S)
        # Only the API's connections: background work (webhook delivery, sweeps) runs as
        # purse-background, the cache's change feed as purse-change-feed, psql as psql.
        if application == "purse" and found:
            parameters = {int(n): value for n, value in PARAMETER.findall(detail)}
            statements.append((found.group(1).strip(), parameters))
    return statements


def pgbench_script(statements, existing):
    """The captured statements as a pgbench script. Ids the operation created (written by an
    INSERT and not among the `existing` ones its input named) are made fresh in every
    transaction, so inserts do not collide."""
    created = set()
    for sql, parameters in statements:
        if sql.lstrip().upper().startswith(("INSERT", "WITH")):
            for value in parameters.values():
                literal = value.strip("'")
                if ID_PATTERN.match(literal) and literal not in existing:
                    created.add(literal)
    lines = ["\\set n random(1, 9000000000000000000)"]
    for sql, parameters in statements:
        def literal(match):
            value = parameters[int(match.group(1))]
            bare = value[1:-1] if value != "NULL" else None
            if bare in created:
                return f"('{bare.split('_')[0]}_b' || :n || '{bare[-6:]}')"
            # pgbench reads ":name" anywhere as a variable, even in a string (JSON's ":false").
            return re.sub(r":(?=[A-Za-z_])", ": ", value)
        # Comments go before the lines are joined, or one would swallow the rest of the statement.
        code = re.sub(r"--[^\n]*", "", sql)
        lines.append(re.sub(r"\$(\d+)\b", literal, " ".join(code.split())) + ";")
    return "\n".join(lines) + "\n"


def for_row(template, captured_row, row):
    """The script of the captured row, with another row's ids in place of its ids."""
    text = template
    for key, value in captured_row.items():
        if isinstance(value, str) and row.get(key) != value:
            text = text.replace(value, str(row[key]))
    return text


def settle(cluster):
    """Gives the next measured run the state every run starts from: no dead rows from the runs
    before it (measured after attach + detach, a list cost Purse 40 % more CPU; pgbench vacuums
    before its runs too), and a checkpoint just taken, so no run pays for one the run before it
    set off, and each pays the same full-page writes after it. The cards create + confirm
    attached are detached again: otherwise its customers gather cards run after run, each attach
    counts them, and its floors' customers, which every run of the floors shares, reach the limit
    of 500 cards that Purse's attach then meets."""
    cluster.psql("UPDATE payment_methods SET state = 'detached', customer_id = NULL WHERE state = 'attached' "
                 f"AND customer_id IN (SELECT id FROM customers WHERE email LIKE '{CONFIRMING_EMAIL.format('%')}')")
    cluster.psql("VACUUM")
    cluster.psql("CHECKPOINT")


def run_pgbench(cluster, scripts, folder, name, warmup=WARMUP, duration=DURATION, connections=CONNECTIONS,
                transactions=None, database="purse"):
    """pgbench at the same concurrency (or `connections`, for `transactions` in all instead of
    `duration` seconds) on `database`; returns transactions/s and latency percentiles (ms)."""
    base = [str(cluster.bin / "pgbench"), "-n", "-M", "prepared", "-c", str(connections),
            "-j", str(min(2, connections))]
    for script in scripts:
        base += ["-f", str(script)]
    base.append(database)
    script_path = scripts[0]
    warm = subprocess.run(base + ["-T", str(warmup)], env=cluster.env(), capture_output=True, text=True)
    if warm.returncode != 0:
        raise SystemExit(f"{name}: pgbench failed on the captured SQL ({script_path}):\n{warm.stderr[-3000:]}")
    logs = folder / f"pgbench-{name}"
    logs.mkdir()
    postgres_before, pgbench_before = cluster.cpu_seconds(), children_cpu_seconds()
    length = ["-t", str(transactions)] if transactions else ["-T", str(duration)]
    result = subprocess.run(base + length + ["--log", f"--log-prefix={logs}/tx"], env=cluster.env(),
                            check=True, capture_output=True, text=True, cwd=folder)
    # A moment for the postmaster to reap pgbench's backends, whose CPU it then holds.
    time.sleep(0.5)
    postgres_spent, pgbench_spent = cluster.cpu_seconds() - postgres_before, children_cpu_seconds() - pgbench_before
    failed = re.search(r"number of failed transactions: (\d+)", result.stdout)
    tps = float(re.search(r"tps = ([\d.]+)", result.stdout).group(1))
    latencies = []
    for log_file in logs.iterdir():
        for line in log_file.read_text().splitlines():
            latencies.append(int(line.split()[2]))
    latencies.sort()
    return {"tps": tps, "p50_ms": percentile(latencies, 0.50) / 1000, "p99_ms": percentile(latencies, 0.99) / 1000,
            "failed": int(failed.group(1)) if failed else 0, "transactions": len(latencies),
            "cpu_us_per_transaction": {"postgres": 1e6 * postgres_spent / len(latencies) if latencies else None,
                                       "pgbench": 1e6 * pgbench_spent / len(latencies) if latencies else None}}


def percentile(values, fraction):
    if not values:
        return 0
    return values[min(len(values) - 1, max(0, int(len(values) * fraction + 0.999999) - 1))]


# The peer

class LocalStripe:
    # localstripe rewrites its whole store to this fixed file after every write and reloads it
    # when it starts, so a run would inherit (and be slowed by) every earlier run's objects.
    STORE = pathlib.Path("/tmp/localstripe.pickle")

    def __init__(self, folder):
        self.folder = pathlib.Path(folder)
        self.output = open(self.folder / "localstripe.log", "w+")
        self.process = None
        self.saved_store = self.folder / "localstripe.pickle.saved"

    def start(self):
        # The peer starts empty every run; a store already there is put back afterwards.
        if self.STORE.exists():
            shutil.move(self.STORE, self.saved_store)
        # The port is chosen now: one chosen minutes earlier may have become a client's meanwhile.
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen([sys.executable, "-m", "localstripe", "--port", str(self.port)],
                                        stdout=self.output, stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                if self.process.poll() is not None:
                    break
                time.sleep(0.2)
        self.output.seek(0)
        raise SystemExit("localstripe did not start:\n" + self.output.read()[-2000:])

    def stop(self):
        if self.process:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.STORE.unlink(missing_ok=True)
        if self.saved_store.exists():
            shutil.move(self.saved_store, self.STORE)


def localstripe_workloads(peer):
    """The workloads localstripe supports, with the secret key where Purse uses a client credential
    (localstripe has no ephemeral keys or elements sessions)."""
    secret = Api(peer.base, "sk_test_bench")

    def make_customer(i):
        customer = secret.call("POST", "/v1/customers", {"email": f"bench{i}@example.com"})["id"]
        methods = []
        for _ in range(10):
            method = secret.call("POST", "/v1/payment_methods", CARD)["id"]
            secret.call("POST", f"/v1/payment_methods/{method}/attach", {"customer": customer})
            methods.append(method)
        stock = secret.call("POST", "/v1/payment_methods", CARD)["id"]
        return {"customer": customer, "pm_a": methods[0], "pm_b": methods[1], "stock": stock, "sk": "sk_test_bench"}

    rows = parallel(make_customer, range(64), workers=4)
    workloads = {workload["name"]: workload for workload in purse_workloads(rows, rows, rows)}
    workloads["list_payment_methods"]["steps"][0]["headers"] = {"Authorization": "Bearer {sk}"}
    confirm = workloads["confirm_setup_intent"]["steps"][1]
    confirm["headers"] = {"Authorization": "Bearer {sk}"}
    del workloads["elements_session"]
    return list(workloads.values())


# Reports

def machine():
    return {
        "nproc": os.cpu_count(),
        # Passed on to every `purse serve` the run starts: a pool other than the default moves
        # PostgreSQL's CPU per read (Benchmarks/README.md, "The pool's size").
        "pool_size": os.environ.get("PURSE_POOL_SIZE"),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                 text=True).stdout.strip(),
        # The results files a run just wrote do not count: a scale run after a workload run is not "local changes".
        "dirty": bool(subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no", "--",
                                      ".", ":!Benchmarks/results.md", ":!Benchmarks/results.json"],
                                     capture_output=True, text=True).stdout.strip()),
    }


def machine_words(m):
    """How a results section names the machine and the run's settings, in its heading."""
    pool = f", PURSE_POOL_SIZE={m['pool_size']}" if m.get("pool_size") else ""
    return f"nproc {m['nproc']}{pool}"


def command_run(arguments):
    folder = pathlib.Path(tempfile.mkdtemp(prefix="purse-bench-"))
    os.chmod(folder, 0o755)
    cluster = Cluster(folder / "postgres")
    purse = Purse(cluster, folder)
    peer = LocalStripe(folder)
    bare = BareHTTP(folder / "bare-http")
    results = {"machine": machine(), "connections": CONNECTIONS, "warmup_s": WARMUP, "duration_s": DURATION,
               "rounds": ROUNDS,
               "workloads": []}
    try:
        log(f"PostgreSQL and purse serve in {folder}")
        cluster.start()
        purse.start()
        log("Seeding: 64 customers with 10 cards each, 100k unattached cards")
        rows, attach_rows, confirm_rows = purse_fixtures(purse)
        workloads = purse_workloads(rows, attach_rows, confirm_rows)
        processes = {"purse": lambda: cpu_seconds([purse.process.pid]), "postgres": cluster.cpu_seconds}
        selected = [w for w in workloads if not arguments.only or w["name"] in arguments.only]
        later = {}
        # Each workload's floor scripts (a script per row), and their statements split into the
        # workload's requests, for the read and write floors.
        floor_scripts, sql_floors = {}, {}
        for workload in selected:
            statements = capture_statements(cluster, purse, workload, folder)
            captured_row = workload["rows"][-1]
            template = pgbench_script(statements, existing=set(map(str, captured_row.values())))
            # One script per input row (as the service's run spreads over the rows), which pgbench
            # picks among at random: the floor does not pile every write onto one customer.
            # A workload that uses its rows up (attach + detach) gives the floor rows of its own,
            # before the two the capture used: the floor attaches and detaches them over and
            # over, and a card Purse later attached after that would be refused.
            consumed = workload.get("consumes_rows")
            floor_rows = workload["rows"][-(FLOOR_ROWS + 2):-2] if consumed else workload["rows"][:FLOOR_ROWS]
            service_rows = workload["rows"][:-(FLOOR_ROWS + 2)] if consumed else workload["rows"]
            # The later runs (one process then two, one connection) of a workload that uses its
            # rows up take the second half, which no round reaches (each uses under a sixth).
            if consumed:
                spare = service_rows[len(service_rows) // 2:]
                service_rows = service_rows[:len(service_rows) // 2]
                later[workload["name"]] = {"pair": spare[:-UNQUEUED_OPERATIONS["write"]],
                                           "unqueued": spare[-UNQUEUED_OPERATIONS["write"]:]}
            scripts = []
            for index, row in enumerate(floor_rows):
                script = folder / f"{workload['name']}.{index}.sql"
                script.write_text(for_row(template, captured_row, row))
                scripts.append(script)
            floor_scripts[workload["name"]] = scripts
            sql_floors[workload["name"]] = [floor_requests(script.read_text(), len(workload["steps"]))
                                            for script in scripts]
            log(f"{workload['name']}: {len(statements)} statements per operation")
            rounds = []
            for number in range(1, ROUNDS + 1):
                # ... and takes every third of the rest in each round.
                measured = dict(workload, rows=service_rows[number - 1::ROUNDS]) if consumed else workload
                settle(cluster)
                service = run_load(purse.base, measured, folder, cpu_of=processes)
                log(f"{workload['name']} round {number}: Purse {service['operations_per_second']:.0f} op/s, "
                    f"p99 {service['p99_ms']:.2f} ms, {service['errors']} errors")
                settle(cluster)
                floor = run_pgbench(cluster, scripts, folder, f"{workload['name']}-{number}")
                log(f"{workload['name']} round {number}: floor {floor['tps']:.0f} tx/s, p99 {floor['p99_ms']:.2f} ms")
                rounds.append({
                    "purse": service, "floor": floor,
                    "throughput_ratio": service["operations_per_second"] / floor["tps"] if floor["tps"] else None,
                    "p99_ratio": service["p99_ms"] / floor["p99_ms"] if floor["p99_ms"] else None,
                })
            # The median round by throughput ratio stands for the workload; the others show the spread.
            median = sorted(rounds, key=lambda entry: entry["throughput_ratio"] or 0)[len(rounds) // 2]
            results["workloads"].append({
                "name": workload["name"], "title": workload["title"], "statements": len(statements),
                "sql": template, **median, "rounds": rounds,
            })
        # The HTTP, read and write floors run beside Purse and PostgreSQL, in rounds alternating
        # with Purse's /healthz: the same machine state for both sides of the ratio.
        statements_file = folder / "floors.json"
        statements_file.write_text(json.dumps(sql_floors))
        bare.start("--database-url", cluster.url(), "--statements", str(statements_file))
        bare_cpu = {"server": lambda: cpu_seconds([bare.process.pid]), "postgres": cluster.cpu_seconds}
        stack_rounds, bare_rounds = [], []
        sql_floor_rounds = {name: [] for name in sql_floors}
        for number in range(1, ROUNDS + 1):
            settle(cluster)
            stack_rounds.append(run_load(purse.base, HTTP_STACK, folder, cpu_of=processes))
            settle(cluster)
            bare_rounds.append(run_load(bare.base, HTTP_STACK, folder, cpu_of=bare_cpu))
            log(f"GET /healthz round {number}: Purse {stack_rounds[-1]['cpu_us_per_operation']['purse']:.0f} µs, "
                f"bare Hummingbird {bare_rounds[-1]['cpu_us_per_operation']['server']:.0f} µs per request")
            for workload in selected:
                settle(cluster)
                report = run_load(bare.base, sql_floor_workload(workload, len(sql_floors[workload["name"]])),
                                  folder, cpu_of=bare_cpu)
                sql_floor_rounds[workload["name"]].append(report)
                log(f"{workload['name']} round {number}: the {kind_of(workload['name'])} floor "
                    f"{report['cpu_us_per_operation']['server']:.0f} µs per operation, {report['errors']} errors")
        results["healthz_pairs"] = healthz_pairs(purse, bare, folder)
        bare.stop()
        for workload in selected:
            rounds = sql_floor_rounds[workload["name"]]
            results["workloads"][selected.index(workload)]["sql_floor"] = dict(
                median_by(rounds, lambda r: r["cpu_us_per_operation"]["server"]), rounds=rounds)
        results["http_stack"] = dict(median_by(stack_rounds, lambda r: r["cpu_us_per_operation"]["purse"]),
                                     rounds=stack_rounds)
        results["bare_http"] = dict(median_by(bare_rounds, lambda r: r["cpu_us_per_operation"]["server"]),
                                    rounds=bare_rounds)
        for workload in selected:
            results["workloads"][selected.index(workload)]["unqueued"] = run_unqueued(
                purse, cluster, workload, later.get(workload["name"], {}).get("unqueued"), floor_scripts[workload["name"]],
                folder)
        results["peak_rss_mb"] = purse.peak_rss_mb()
        log(f"purse serve peak RSS {results['peak_rss_mb']:.1f} MB")
        second = Purse(cluster, folder / "second", env=purse.env)
        second.start()
        both = {"purse": lambda: cpu_seconds([purse.process.pid, second.process.pid]), "postgres": cluster.cpu_seconds}
        for workload in selected:
            # One process, then both, back to back: the rounds ran minutes earlier, and the
            # machine drifts by more than the target allows in that time. A workload that uses
            # its rows up gives each run half of its spare ones.
            rows = later.get(workload["name"], {}).get("pair")
            halves = [rows[:len(rows) // 2], rows[len(rows) // 2:]] if rows else [None, None]
            reports = []
            for bases, clocks, part in [([purse.base], processes, halves[0]), ([purse.base, second.base], both, halves[1])]:
                settle(cluster)
                reports.append(run_load(bases, dict(workload, rows=part) if part else workload, folder, cpu_of=clocks))
            entry = results["workloads"][selected.index(workload)]
            entry["one_process"], entry["two_processes"] = reports
            log(f"{workload['name']}: Purse {reports[0]['cpu_us_per_operation']['purse']:.0f} µs per operation on one "
                f"process, {reports[1]['cpu_us_per_operation']['purse']:.0f} µs on two, "
                f"{reports[0]['errors'] + reports[1]['errors']} errors")
        results["two_processes_floor"] = two_processes_floor(cluster, purse, second, folder)
        second.stop()
    finally:
        bare.stop()
        purse.stop()
        cluster.stop()
    if not arguments.skip_peer:
        try:
            peer.start()
            log("localstripe: seeding")
            for workload in localstripe_workloads(peer):
                if arguments.only and workload["name"] not in arguments.only:
                    continue
                report = run_load(peer.base, workload, folder)
                log(f"localstripe {workload['name']}: {report['operations_per_second']:.0f} op/s, "
                    f"p99 {report['p99_ms']:.2f} ms, {report['errors']} errors")
                for entry in results["workloads"]:
                    if entry["name"] == workload["name"]:
                        entry["localstripe"] = report
                        entry["peer_ratio"] = (entry["purse"]["operations_per_second"] / report["operations_per_second"]
                                               if report["operations_per_second"] else None)
        finally:
            peer.stop()
    save(results, "run")
    if QUICK:
        log("The quick form: debug binaries, a second a run; the verdicts below judge nothing")
    for line in target_lines(targets(results, json.loads(RESULTS_JSON.read_text()).get("scale"))):
        print(line)
    if QUICK:
        # The quick form measures nothing, but every request it sent must have succeeded.
        failed = [f"{w['name']}: {run['errors']} errors" for w in results["workloads"]
                  for run in [w["purse"], w.get("unqueued"), w.get("one_process"), w.get("two_processes")]
                  if run and run["errors"]]
        failed += [f"{w['name']}'s {kind_of(w['name'])} floor: {run['errors']} errors" for w in results["workloads"]
                   for run in w.get("sql_floor", {}).get("rounds", []) if run["errors"]]
        failed += [f"GET /healthz, {name}: {run['errors']} errors"
                   for name, runs in results.get("two_processes_floor", {}).items() for run in runs if run["errors"]]
        failed += [f"GET /healthz pair, {name}: {run['errors']} errors"
                   for pair in results["healthz_pairs"] for name, run in pair.items() if run["errors"]]
        if failed:
            raise SystemExit("error: requests failed in the quick run: " + "; ".join(failed))
    if not arguments.keep:
        shutil.rmtree(folder, ignore_errors=True)


def kind_of(name):
    return "read" if name in SINGLE_STATEMENT_READS else "write"


def run_unqueued(purse, cluster, workload, rows, scripts, folder):
    """Latency without queueing: one connection, one request in flight, a fixed number of
    operations on a settled database; then the floor's scripts the same way (pgbench, one
    connection, as many transactions), which is the least that latency can be."""
    kind = kind_of(workload["name"])
    settle(cluster)
    report = run_load(purse.base, dict(workload, rows=rows) if rows else workload, folder, connections=1,
                      operations=UNQUEUED_OPERATIONS[kind])
    log(f"{workload['name']}, one request in flight: p50 {report['p50_ms']:.2f} ms, p99 {report['p99_ms']:.2f} ms, "
        f"{report['errors']} errors")
    settle(cluster)
    report["floor"] = run_pgbench(cluster, scripts, folder, f"{workload['name']}-unqueued", warmup=1, connections=1,
                                  transactions=UNQUEUED_OPERATIONS[kind])
    log(f"{workload['name']}, one transaction in flight: the floor's p50 {report['floor']['p50_ms']:.2f} ms, "
        f"p99 {report['floor']['p99_ms']:.2f} ms")
    return report


def median_by(reports, key):
    """The report whose `key` is the median of the reports'."""
    return sorted(reports, key=key)[len(reports) // 2]


def median_and_range(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2], ordered[0], ordered[-1]


def targets(run, scale=None):
    """Issue 35's targets from one run (and the stored scale run): each as (what, measured, limit,
    met), met None when the run did not measure it. Per-round figures are the rounds' median, with
    their range."""
    rows = []
    workloads = {w["name"]: w for w in run["workloads"]}
    stack = run.get("http_stack", {}).get("cpu_us_per_operation", {}).get("purse")

    def cpu(entry, group):
        return entry["purse"]["cpu_us_per_operation"][group]

    for name in SINGLE_STATEMENT_READS:
        w = workloads.get(name)
        if not w:
            continue
        if stack:
            med, low, high = median_and_range([cpu(r, "purse") / stack for r in w["rounds"]])
            measured = f"{med * stack:.0f} ÷ {stack:.0f} µs = {med:.2f}× ({low:.2f}–{high:.2f}×)"
            rows.append((f"{w['title']}: Purse CPU ÷ `/healthz`'s", measured + sql_floor_beside(run, w), "≤ 2×",
                         med <= 2))
        floor_postgres = [r["floor"]["cpu_us_per_transaction"]["postgres"] for r in w["rounds"]]
        med, low, high = median_and_range([cpu(r, "postgres") / f for r, f in zip(w["rounds"], floor_postgres)])
        measured = f"{med:.2f}× ({low:.2f}–{high:.2f}×)"
        if w.get("sql_floor"):
            # The same statements, prepared, with an HTTP server sharing the cores as Purse does.
            beside = w["sql_floor"]["cpu_us_per_operation"]["postgres"] / median_and_range(floor_postgres)[0]
            measured += f"; under the read floor {beside:.2f}×"
        rows.append((f"{w['title']}: PostgreSQL CPU ÷ the floor's", measured, "≤ 1.2×", med <= 1.2))
    for name, before in WRITE_CPU_BEFORE_US.items():
        w = workloads.get(name)
        if not w:
            continue
        if stack:
            limit = before / HEALTHZ_CPU_BEFORE_US / 2
            med, low, high = median_and_range([cpu(r, "purse") / stack for r in w["rounds"]])
            rows.append((f"{w['title']}: Purse CPU ÷ `/healthz`'s",
                         f"{med * stack:.0f} ÷ {stack:.0f} µs = {med:.2f}× ({low:.2f}–{high:.2f}×)"
                         + sql_floor_beside(run, w),
                         f"≤ {limit:.2f}× (half of {before} ÷ {HEALTHZ_CPU_BEFORE_US} µs at c6507df)", med <= limit))
        med, low, high = median_and_range(
            [cpu(r, "postgres") / r["floor"]["cpu_us_per_transaction"]["postgres"] for r in w["rounds"]])
        rows.append((f"{w['title']}: PostgreSQL CPU ÷ the floor's", f"{med:.2f}× ({low:.2f}–{high:.2f}×)", "≤ 1×",
                     med <= 1))
    for w in run["workloads"]:
        unqueued = w.get("unqueued")
        if unqueued:
            limit = UNQUEUED_P99_LIMIT_MS[kind_of(w["name"])]
            measured = f"{unqueued['p99_ms']:.2f} ms (p50 {unqueued['p50_ms']:.2f}, {unqueued['errors']} errors)"
            if "floor" in unqueued:
                floor = unqueued["floor"]
                measured += f"; the floor's SQL alone {floor['p99_ms']:.2f} ms (p50 {floor['p50_ms']:.2f})"
            rows.append((f"{w['title']}: p99, one request in flight", measured,
                         f"≤ {limit:g} ms", unqueued["p99_ms"] <= limit and unqueued["errors"] == 0))
    rows.append(("peak RSS of `purse serve` over the run", f"{run['peak_rss_mb']:.1f} MB", f"≤ {RSS_LIMIT_MB} MB",
                 run["peak_rss_mb"] <= RSS_LIMIT_MB))
    if scale:
        peaks = [size.get("peak_rss_mb") for size in scale["sizes"]]
        measured = None not in peaks
        rows.append(("peak RSS of `purse serve` in the scale run (each size)",
                     ", ".join(f"{p:.1f}" for p in peaks) + " MB" if measured else "not recorded by that run",
                     f"≤ {RSS_LIMIT_MB} MB", max(peaks) <= RSS_LIMIT_MB if measured else None))
        first, last = scale["sizes"][0], scale["sizes"][-1]
        for kind in SCALE_FLOOR_KINDS:
            grown = growth(first[kind], last[kind])
            floor = (f"; the floor's SQL alone {ratio(growth(first['floor'][kind], last['floor'][kind]))}"
                     if "floor" in first and "floor" in last else "")
            rows.append((f"{kind} p50 at {last['customers']:,} ÷ at {first['customers']:,} customers",
                         ratio(grown) + floor, "≤ 1.2×", grown is not None and grown <= 1.2))
    ratios = healthz_ratios(run)
    if ratios:
        med, low, high = median_and_range(ratios)
        bare = run["bare_http"]["cpu_us_per_operation"]["server"]
        rows.append(("`/healthz`: Purse CPU ÷ bare Hummingbird's",
                     f"{counted(len(ratios), 'pair')} back to back {med:.2f}× "
                     f"({low:.2f}–{high:.2f}×); the rounds' medians "
                     f"{stack:.0f} ÷ {bare:.0f} µs", "≤ 1.3×", med <= 1.3))
    for w in run["workloads"]:
        pair, one = w.get("two_processes"), w.get("one_process")
        if pair and one:
            single, both = one["cpu_us_per_operation"]["purse"], pair["cpu_us_per_operation"]["purse"]
            errors = one["errors"] + pair["errors"]
            measured = f"{both:.0f} ÷ {single:.0f} µs = {both / single:.2f}×, {errors} errors"
            floor = run.get("two_processes_floor")
            if floor:
                measured += (f"; `/healthz` two ÷ one {two_processes_ratio(floor, 'purse'):.2f}×, bare Hummingbird's "
                             f"{two_processes_ratio(floor, 'bare_http'):.2f}×")
            rows.append((f"{w['title']}: two processes' Purse CPU ÷ one's", measured, "≤ 1.1×, no errors",
                         both / single <= 1.1 and errors == 0))
    return rows


def sql_floor_ratio(run, workload):
    """The read or write floor's CPU per operation ÷ Purse's `/healthz`'s, round by round (both
    are measured in the same rounds): its median and range, or None when the run has no such
    floor."""
    floor = workload.get("sql_floor")
    if not floor or "http_stack" not in run:
        return None
    pairs = zip(run["http_stack"]["rounds"], floor["rounds"])
    return median_and_range([f["cpu_us_per_operation"]["server"] / s["cpu_us_per_operation"]["purse"]
                             for s, f in pairs])


def sql_floor_beside(run, workload):
    """"; the read floor alone 1.88× (1.72–1.90×)", or nothing when the run has no such floor."""
    floor = sql_floor_ratio(run, workload)
    if not floor:
        return ""
    return f"; the {kind_of(workload['name'])} floor alone {floor[0]:.2f}× ({floor[1]:.2f}–{floor[2]:.2f}×)"


def target_lines(rows):
    verdict = {True: "met", False: "**missed**", None: "unknown"}
    met = sum(1 for row in rows if row[3])
    return [f"{met} of {len(rows)} targets met.", "", "| target | measured | limit | verdict |", "|---|---|---|---|",
            *[f"| {what} | {measured} | {limit} | {verdict[ok]} |" for what, measured, limit, ok in rows]]


def command_compare(arguments):
    """Two builds of `purse serve` on one database and one master key, measured in alternating
    rounds (which goes first alternates too), so the machine's drift falls on both alike: op/s,
    latency and CPU per operation of each, for the change between them."""
    folder = pathlib.Path(tempfile.mkdtemp(prefix="purse-compare-"))
    os.chmod(folder, 0o755)
    cluster = Cluster(folder / "postgres")
    candidate = Purse(cluster, folder / "candidate")
    baseline = Purse(cluster, folder / "baseline", binary=pathlib.Path(arguments.baseline).resolve(), env=candidate.env)
    builds = {"baseline": baseline, "candidate": candidate}
    results = {"machine": machine(), "baseline": str(arguments.baseline),
               "baseline_commit": arguments.baseline_commit, "connections": CONNECTIONS, "warmup_s": WARMUP,
               "duration_s": DURATION, "rounds": arguments.rounds, "workloads": []}
    try:
        cluster.start()
        candidate.start()
        log("Seeding: 64 customers with 10 cards each, 100k unattached cards")
        rows, attach_rows, confirm_rows = purse_fixtures(candidate)
        candidate.stop()
        workloads = purse_workloads(rows, attach_rows, confirm_rows) + [HTTP_STACK]
        selected = [w for w in workloads if not arguments.only or w["name"] in arguments.only]
        for workload in selected:
            runs = {name: [] for name in builds}
            consumed = workload.get("consumes_rows")
            slices = 2 * arguments.rounds
            for number in range(arguments.rounds):
                order = ["baseline", "candidate"] if number % 2 == 0 else ["candidate", "baseline"]
                for position, name in enumerate(order):
                    purse = builds[name]
                    part = number * 2 + position
                    measured = dict(workload, rows=workload["rows"][part::slices]) if consumed else workload
                    settle(cluster)
                    purse.start()
                    try:
                        profile = None
                        if os.environ.get("PURSE_BENCH_PERF"):
                            output = pathlib.Path(os.environ["PURSE_BENCH_PERF"]) / f"{workload['name']}-{name}-{number + 1}.data"
                            profile = (purse.process.pid, output)
                        report = run_load(purse.base, measured, folder, cpu_of={
                            "purse": lambda: cpu_seconds([purse.process.pid]), "postgres": cluster.cpu_seconds},
                            profile=profile)
                    finally:
                        purse.stop()
                    cpu = report["cpu_us_per_operation"]
                    log(f"{workload['name']} round {number + 1} {name}: {report['operations_per_second']:.0f} op/s, "
                        f"p99 {report['p99_ms']:.2f} ms, Purse {cpu['purse']:.0f} µs/op, PostgreSQL "
                        f"{cpu['postgres']:.0f} µs/op, {report['errors']} errors")
                    runs[name].append(report)
            results["workloads"].append({"name": workload["name"], "title": workload["title"], "runs": runs})
    finally:
        for purse in builds.values():
            purse.stop()
        cluster.stop()
    save(results, "compare")
    shutil.rmtree(folder, ignore_errors=True)


def compare_table(compare):
    """The compare section: each build's median over the rounds, and candidate ÷ baseline."""
    m = compare["machine"]
    lines = [f"## Two builds side by side ({m['date']}, candidate {m['commit']}"
             f"{' + local changes' if m['dirty'] else ''}, baseline {compare.get('baseline_commit') or compare['baseline']}, "
             f"{machine_words(m)})", "",
             f"`scripts/bench compare`: one database, {compare['rounds']} alternating rounds per workload "
             f"({compare['connections']} connections, {compare['warmup_s']} s warm-up, {compare['duration_s']} s "
             "measured); each cell is the median over the rounds, the ratio candidate ÷ baseline.", "",
             "| workload | op/s baseline | op/s candidate | ratio | p99 ms baseline | p99 ms candidate | "
             "Purse µs/op baseline | Purse µs/op candidate | ratio | PostgreSQL µs/op baseline | "
             "PostgreSQL µs/op candidate | ratio | errors |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]

    def median(values):
        ordered = sorted(values)
        return ordered[len(ordered) // 2]

    for w in compare["workloads"]:
        figures = {}
        for name, runs in w["runs"].items():
            figures[name] = {
                "ops": median([r["operations_per_second"] for r in runs]), "p99": median([r["p99_ms"] for r in runs]),
                "purse": median([r["cpu_us_per_operation"]["purse"] for r in runs]),
                "postgres": median([r["cpu_us_per_operation"]["postgres"] for r in runs]),
                "errors": sum(r["errors"] for r in runs),
            }
        b, c = figures["baseline"], figures["candidate"]
        lines.append(
            f"| {w['title']} | {b['ops']:.0f} | {c['ops']:.0f} | {ratio(c['ops'] / b['ops'] if b['ops'] else None)} | "
            f"{b['p99']:.2f} | {c['p99']:.2f} | {b['purse']:.0f} | {c['purse']:.0f} | "
            f"{ratio(c['purse'] / b['purse'] if b['purse'] else None)} | {b['postgres']:.0f} | {c['postgres']:.0f} | "
            # Under a microsecond (the HTTP stack alone) PostgreSQL did no work for the workload: no ratio.
            f"{ratio(c['postgres'] / b['postgres'] if b['postgres'] >= 1 else None)} | {b['errors'] + c['errors']} |")
    return lines + [""]


def save(results, section):
    stored = json.loads(RESULTS_JSON.read_text()) if RESULTS_JSON.exists() else {}
    stored[section] = results
    RESULTS_JSON.write_text(json.dumps(stored, indent=2, sort_keys=True) + "\n")
    write_markdown(stored)
    log(f"Wrote {RESULTS_MD} and {RESULTS_JSON}")


def write_markdown(stored):
    lines = ["# Benchmark results", "",
             "Written by `scripts/bench` (Benchmarks/bench.py); every figure below comes from its last run.",
             "Client and server share the machine; ratios matter more than absolute figures.", ""]
    run = stored.get("run")
    if run:
        m = run["machine"]
        lines += [f"## Workloads ({m['date']}, commit {m['commit']}{' + local changes' if m['dirty'] else ''}, "
                  f"{machine_words(m)})", "",
                  f"{run['connections']} connections, {run['warmup_s']} s warm-up, {run['duration_s']} s measured. "
                  "An operation is the whole workload step list; the floor is pgbench running the SQL that one "
                  "operation executes (captured from PostgreSQL's statement log) at the same concurrency, "
                  "`-M prepared`, on the same database. Each workload is measured in "
                  f"{run.get('rounds', 1)} rounds of Purse then its floor, each run on a freshly vacuumed and "
                  "checkpointed database; a row shows the median round by Purse ÷ floor, and the last two "
                  "columns the range over the rounds.", "",
                  "| workload | Purse op/s | p50 ms | p99 ms | errors, all rounds | floor tx/s | floor p99 ms | "
                  "Purse ÷ floor | p99 ÷ floor p99 | localstripe op/s | Purse ÷ localstripe | "
                  "Purse ÷ floor, all rounds | p99 ÷ floor p99, all rounds |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for w in run["workloads"]:
            peer = w.get("localstripe")
            rounds = w.get("rounds", [w])
            throughput = sorted(entry["throughput_ratio"] for entry in rounds)
            tails = sorted(entry["p99_ratio"] for entry in rounds)
            errors = sum(entry["purse"]["errors"] for entry in rounds)
            peer_cells = f"{peer['operations_per_second']:.0f} | {ratio(w.get('peer_ratio'))}" if peer else "– | –"
            lines.append(
                f"| {w['title']} | {w['purse']['operations_per_second']:.0f} | {w['purse']['p50_ms']:.2f} | "
                f"{w['purse']['p99_ms']:.2f} | {errors} | {w['floor']['tps']:.0f} | "
                f"{w['floor']['p99_ms']:.2f} | {percent(w['throughput_ratio'])} | {ratio(w['p99_ratio'])} | "
                f"{peer_cells} | {percent(throughput[0])} – {percent(throughput[-1])} | "
                f"{ratio(tails[0])} – {ratio(tails[-1])} |")
        lines += ["", f"Peak RSS of `purse serve` over the run: **{run['peak_rss_mb']:.1f} MB**.", ""]
        lines += cpu_table(run)
        lines += ["### Targets (issue 35)", "",
                  "Judged from this run (the per-round figures are the rounds' median, with their range) and the "
                  "scale run below. Latency without queueing is one connection with one request in flight, "
                  f"{UNQUEUED_OPERATIONS['read']} operations of a read and {UNQUEUED_OPERATIONS['write']} of a write, "
                  "beside the floor's SQL alone (pgbench, one connection, as many transactions); a CPU target of "
                  "Purse's shows its read or write floor's ratio beside it (see the CPU table); "
                  "the two-process figures are one 32-connection run with the connections split between two "
                  "`purse serve` on the same database, against one process's run just before it.", ""]
        lines += target_lines(targets(run, stored.get("scale"))) + [""]
        lines += ["Statements per operation (the floor's scripts are in results.json):", ""]
        lines += [f"- {w['name']}: {w['statements']}" for w in run["workloads"]]
        lines.append("")
    scale = stored.get("scale")
    if scale:
        m = scale["machine"]
        lines += [f"## Scale ({m['date']}, commit {m['commit']}{' + local changes' if m['dirty'] else ''}, "
                  f"{machine_words(m)})", "",
                  f"Customers with 5 cards each, loaded with COPY, each size in a database and `purse serve` of its "
                  f"own. The sizes are measured in turn, {counted(SCALE_ROUNDS, 'round')} of 32-connection runs ({WARMUP} s "
                  f"warm-up, {SCALE_DURATION} s measured), so the machine's drift falls on every size alike; each "
                  "figure is the size's median round by p50.", "",
                  "| customers | payment methods | load time s | list p50 ms | list p99 ms | list op/s | "
                  "retrieve p50 ms | retrieve p99 ms | retrieve op/s |", "|---|---|---|---|---|---|---|---|---|"]
        for size in scale["sizes"]:
            lines.append(
                f"| {size['customers']:,} | {size['payment_methods']:,} | {size['load_s']:.0f} | "
                f"{size['list']['p50_ms']:.2f} | {size['list']['p99_ms']:.2f} | {size['list']['operations_per_second']:.0f} | "
                f"{size['retrieve']['p50_ms']:.2f} | {size['retrieve']['p99_ms']:.2f} | "
                f"{size['retrieve']['operations_per_second']:.0f} |")
        # Runs from before the searches were measured have none.
        searches = [kind for kind in SEARCH_KINDS if all(kind in size for size in scale["sizes"])]
        lines += scale_floor_table(scale) + search_table(scale, searches)
        first, last = scale["sizes"][0], scale["sizes"][-1]
        flatness = [f"{SCALE_KINDS[kind][1]} {ratio(growth(first[kind], last[kind]))}"
                    for kind in SCALE_FLOOR_KINDS + searches]
        if all("floor" in size for size in scale["sizes"]):
            flatness += [f"the {SCALE_KINDS[kind][1]}'s floor {ratio(growth(first['floor'][kind], last['floor'][kind]))}"
                         for kind in SCALE_FLOOR_KINDS]
        lines += ["", f"p50 at {last['customers']:,} vs {first['customers']:,}: {', '.join(flatness)}.", ""]
    compare = stored.get("compare")
    if compare:
        lines += compare_table(compare)
    RESULTS_MD.write_text("\n".join(lines))


def growth(first, last):
    """p50 at the largest size ÷ at the smallest."""
    return last["p50_ms"] / first["p50_ms"] if first["p50_ms"] else None


def scale_floor_table(scale):
    """Where a size's list and retrieve spend: Purse's and PostgreSQL's CPU per operation, and
    the floor's latency and PostgreSQL CPU at that size."""
    # Runs from before the floors were measured have none.
    if not all("floor" in size for size in scale["sizes"]):
        return []
    def figures(size, kind):
        cpu, floor = size[kind]["cpu_us_per_operation"], size["floor"][kind]
        return (f"{cpu['purse']:.0f} | {cpu['postgres']:.0f} | {floor['p50_ms']:.2f} | "
                f"{floor['cpu_us_per_transaction']['postgres']:.0f}")
    columns = [f"{SCALE_KINDS[kind][1]}: {column}" for kind in SCALE_FLOOR_KINDS
               for column in ["Purse µs/op", "PostgreSQL µs/op", "floor p50 ms", "floor's PostgreSQL µs/op"]]
    lines = ["", "The list and the retrieve beside their floor, in the same rounds: Purse's and PostgreSQL's CPU "
                 "per operation in the median round, and pgbench running the statement Purse sent at that size, "
                 f"for {FLOOR_ROWS} of the sampled customers, at the same concurrency and for as long.", "",
             "| customers | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
    for size in scale["sizes"]:
        lines.append(f"| {size['customers']:,} | " + " | ".join(figures(size, kind) for kind in SCALE_FLOOR_KINDS) + " |")
    return lines


def search_table(scale, searches):
    """The searches beside their errors: purse-load leaves a failed operation out of the latencies,
    so a search slow enough to time out would otherwise look fast."""
    if not searches:
        return []
    lines = ["", "Customer search (`GET /v1/customers/search`, the secret key) in the same rounds, over the "
                 "same 128 customers, each with an email, a name (\"Customer\" and a word of 7 letters) and a "
                 "`user_id` metadata value of its own: `email:'…'` its whole email, `name~'…'` 5 letters from "
                 "the middle of its name's word (one customer or few have them), `metadata['user_id']:'…'` "
                 "its user_id, a key every customer has.", "",
             "| customers | " + " | ".join(f"{SCALE_KINDS[kind][1]} p50 ms | {SCALE_KINDS[kind][1]} p99 ms | "
                                          f"{SCALE_KINDS[kind][1]} op/s" for kind in searches)
             + f" | errors, all rounds ({' / '.join(SCALE_KINDS[kind][1] for kind in searches)}) |",
             "|---|" + "---|---|---|" * len(searches) + "---|"]
    for size in scale["sizes"]:
        errors = " / ".join(str(sum(run["errors"] for run in size["rounds"][kind])) for kind in searches)
        lines.append(f"| {size['customers']:,} | " + " | ".join(
            f"{size[kind]['p50_ms']:.2f} | {size[kind]['p99_ms']:.2f} | {size[kind]['operations_per_second']:.0f}"
            for kind in searches) + f" | {errors} |")
    return lines


def cpu_table(run):
    """Where each operation's CPU went, beside the floor's, and what the HTTP stack alone costs:
    on a machine this busy a ratio to the floor is close to the ratio of these sums."""
    measured = [w for w in run["workloads"] if "cpu_us_per_operation" in w["purse"]]
    if not measured:
        return []
    lines = ["CPU per operation in µs, over the measured seconds (from /proc; the floor's per transaction, "
             "pgbench included). \"cores busy\" is the sum times the rate: near nproc, the run was bound by "
             "the machine's CPU.", "",
             "| workload | Purse | PostgreSQL | load generator | sum | cores busy | floor: PostgreSQL | "
             "floor: pgbench | floor sum |", "|---|---|---|---|---|---|---|---|---|"]
    for w in measured:
        cpu, floor = w["purse"]["cpu_us_per_operation"], w["floor"]["cpu_us_per_transaction"]
        total, floor_total = sum(cpu.values()), sum(floor.values())
        lines.append(f"| {w['title']} | {cpu['purse']:.0f} | {cpu['postgres']:.0f} | {cpu['load']:.0f} | {total:.0f} | "
                     f"{total * w['purse']['operations_per_second'] / 1e6:.2f} | {floor['postgres']:.0f} | "
                     f"{floor['pgbench']:.0f} | {floor_total:.0f} |")
    stack = run.get("http_stack")
    if stack:
        cpu = stack["cpu_us_per_operation"]
        lines += ["", f"The HTTP stack alone (`GET /healthz`: HTTP/1.1, routing, the response middleware and the "
                      f"metrics; no authentication, no database): {stack['operations_per_second']:.0f} op/s, p99 "
                      f"{stack['p99_ms']:.2f} ms, {stack['errors']} errors; Purse {cpu['purse']:.0f} µs and the load "
                      f"generator {cpu['load']:.0f} µs per request."]
        ratios = healthz_ratios(run)
        if ratios:
            lines[-1] += (f" Against bare Hummingbird, in {counted(len(ratios), 'pair')} of "
                          f"{HEALTHZ_PAIR_DURATION}-second runs "
                          f"back to back: " + ", ".join(f"{r:.2f}×" for r in ratios) + ".")
    pair = run.get("two_processes_floor")
    if pair:
        def described(name):
            one, two = (r["cpu_us_per_operation"]["server"] for r in pair[name])
            return f"{one:.0f} µs per request on one process and {two:.0f} µs on two ({two / one:.2f}×)"
        lines += ["", "Two processes where Purse runs none of its own code per request, each pair back to back after "
                      f"the two-process workloads: `/healthz` cost Purse {described('purse')}; bare Hummingbird "
                      f"{described('bare_http')}."]
    floors = [w for w in run["workloads"] if w.get("sql_floor")]
    if floors and stack:
        lines += ["", "The read and write floors: `bare-http` (Hummingbird alone) answering each of an operation's "
                      "requests by running the statements the pgbench floor runs for it through libpq's "
                      "`PQexecPrepared` (prepared once per connection), one statement per round trip, blocking, "
                      "and the last statement's rows as text (a write's first request, the token its ids are made "
                      "from): no authentication, no decoding, no JSON, no events built. Its CPU per operation, "
                      "median round, against Purse's `/healthz` and Purse's operation in the same run:", "",
                  "| workload | floor µs | PostgreSQL µs | floor ÷ Purse's `/healthz`, rounds | "
                  "Purse ÷ the floor | errors |", "|---|---|---|---|---|---|"]
        for w in floors:
            floor = w["sql_floor"]
            med, low, high = sql_floor_ratio(run, w)
            purse = median_and_range([r["purse"]["cpu_us_per_operation"]["purse"] for r in w["rounds"]])[0]
            lines.append(f"| {w['title']} | {floor['cpu_us_per_operation']['server']:.0f} | "
                         f"{floor['cpu_us_per_operation']['postgres']:.0f} | {med:.2f}× ({low:.2f}–{high:.2f}×) | "
                         f"{purse / floor['cpu_us_per_operation']['server']:.2f}× | "
                         f"{sum(r['errors'] for r in floor['rounds'])} |")
    return lines + [""]


def percent(value):
    return f"{value * 100:.0f} %" if value is not None else "–"


def ratio(value):
    return f"{value:.2f}×" if value is not None else "–"


# Scale

# What the scale run measures at each size: the kind results.json files it under, its workload,
# and its name in results.md.
SCALE_KINDS = {"list": ("list_payment_methods", "list"), "retrieve": ("retrieve_customer", "retrieve"),
               "search_email": ("search_email", "email search"), "search_name": ("search_name", "name search"),
               "search_metadata": ("search_metadata", "metadata search")}
SEARCH_KINDS = [kind for kind in SCALE_KINDS if kind.startswith("search_")]
# The scale runs' kinds measured against their floor, and judged by issue 35's flat latency.
SCALE_FLOOR_KINDS = ["list", "retrieve"]
# One seed per field (see scale_word), so a customer's email and name are different words.
EMAIL_WORDS, NAME_WORDS = 0x2545F491, 0x6C8E9CF5


def scale_word(i, seed):
    """A word of 7 lower-case letters, a different one for each i below 2 ** 32: murmur3's
    finalizer, a bijection of 32-bit numbers, gives every i unrelated letters, so a trigram index
    holds as many distinct trigrams as real names would give it (a multiplication alone repeats a
    word's last letters every 26 i, and a number's digits are ten letters)."""
    value = i ^ seed
    for shift, factor in ((16, 0x85EBCA6B), (13, 0xC2B2AE35)):
        value = (value ^ value >> shift) * factor & 0xFFFFFFFF
    value ^= value >> 16
    letters = []
    for _ in range(7):  # 26 ** 7 > 2 ** 32
        value, letter = divmod(value, 26)
        letters.append(chr(ord("a") + letter))
    return "".join(letters)


def scale_customer(i):
    """The searched columns of the i-th loaded customer, as COPY takes them: each customer's own."""
    return {"email": f"{scale_word(i, EMAIL_WORDS)}@example.com",
            "name": f"Customer {scale_word(i, NAME_WORDS).capitalize()}",
            "metadata": json.dumps({"user_id": str(i)})}


def scale_queries(i):
    """The searches that find the i-th loaded customer. The name's is five letters from the middle
    of its word, which one customer or few share at any size: three letters would match about 3
    customers at 10k and 300 at 1M, and the sizes would differ in how much they return rather than
    in how long finding it takes."""
    return {"search_email": f"email:'{scale_word(i, EMAIL_WORDS)}@example.com'",
            "search_name": f"name~'{scale_word(i, NAME_WORDS)[1:6]}'",
            "search_metadata": f"metadata['user_id']:'{i}'"}


def search_workloads(rows):
    return [{"name": kind, "title": SCALE_KINDS[kind][1],
             "steps": [{"method": "GET", "path": f"/v1/customers/search?query={{{kind}}}",
                        "headers": {"Authorization": "Bearer {sk}"}}], "rows": rows}
            for kind in SEARCH_KINDS]


def check_searches(secret, index, customer):
    """A search that finds nothing answers 200 too, and fast: make sure each one finds its customer
    before its latency is taken for that of a search that does."""
    for kind, query in scale_queries(index).items():
        found = [match["id"] for match in secret.call("GET", "/v1/customers/search", {"query": query})["data"]]
        if customer not in found:
            raise SystemExit(f"scale: {kind} ({query}) did not find {customer}, found {found}")


def load_scale(cluster, purse, size):
    """Fills `purse`'s database with `size` customers of 5 cards each (COPY of one template each);
    returns the list, retrieve and search workloads over a sample of them."""
    database = f"purse_{size}"
    keys = json.loads(purse.command("accounts", "create", "--name", "Scale", "--json"))
    secret = Api(purse.base, keys["secret_key"])
    publishable = Api(purse.base, keys["publishable_key"])
    template_customer = secret.call("POST", "/v1/customers", {"email": "template@example.com"})["id"]
    template_method = publishable.call("POST", "/v1/payment_methods", CARD)["id"]
    secret.call("POST", f"/v1/payment_methods/{template_method}/attach", {"customer": template_customer})
    new = size - 1
    ids = [random_id("cus") for _ in range(new)]
    created = str(int(time.time()))
    log(f"scale: loading {new:,} customers and {5 * new:,} cards with COPY")
    clone_rows(cluster, "customers", template_customer, new,
               lambda i: {"id": ids[i], "created": created, **scale_customer(i)}, database=database)
    clone_rows(cluster, "payment_methods", template_method, 5 * new,
               lambda i: {"id": random_id("pm"), "customer_id": ids[i // 5], "created": created}, database=database)
    # Also merges the GIN indexes' pending lists (the rows COPY added), which a search would
    # otherwise read row by row, and gives the planner the statistics of the trigrams.
    cluster.psql("VACUUM ANALYZE", database=database)
    # Flushed now, not by the checkpointer during the measurement: the question is the latency at
    # this size, not in the wake of a bulk load.
    cluster.psql("CHECKPOINT", database=database)
    sample = [(i * 7919) % len(ids) for i in range(128)]
    check_searches(secret, sample[0], ids[sample[0]])
    versioned = Api(purse.base, keys["secret_key"], version="2020-08-27")
    rows = [{"customer": ids[index], "sk": keys["secret_key"],
             "ek": versioned.call("POST", "/v1/ephemeral_keys", {"customer": ids[index]})["secret"],
             **{kind: urllib.parse.quote(query, safe="") for kind, query in scale_queries(index).items()}}
            for index in sample]
    return {w["name"]: w for w in purse_workloads(rows, rows, rows) + search_workloads(rows)}


def scale_floor_scripts(cluster, purse, workloads, size, folder):
    """The floor of each size's list and retrieve: the statement Purse sent, captured as in the
    main run, as a pgbench script for each of the first sampled customers."""
    scripts = {}
    for kind in SCALE_FLOOR_KINDS:
        workload = workloads[SCALE_KINDS[kind][0]]
        captured_row = workload["rows"][-1]
        template = pgbench_script(capture_statements(cluster, purse, workload, folder),
                                  existing=set(map(str, captured_row.values())))
        scripts[kind] = []
        for index, row in enumerate(workload["rows"][:FLOOR_ROWS]):
            script = folder / f"scale-{size}-{kind}.{index}.sql"
            script.write_text(for_row(template, captured_row, row))
            scripts[kind].append(script)
    return scripts


def median_by_p50(runs):
    return sorted(runs, key=lambda run: run["p50_ms"])[len(runs) // 2]


def scale_summary(label, run):
    errors = f" ({run['errors']} errors)" if run["errors"] else ""
    return f"{label} p50 {run['p50_ms']:.2f} ms{errors}"


def command_scale(arguments):
    sizes = [int(size) for size in arguments.sizes.split(",")]
    folder = pathlib.Path(tempfile.mkdtemp(prefix="purse-bench-scale-"))
    os.chmod(folder, 0o755)
    cluster = Cluster(folder / "postgres")
    servers = []
    results = {"machine": machine(), "sizes": []}
    try:
        cluster.start()
        loaded = []
        for size in sizes:
            purse = Purse(cluster, folder / f"purse_{size}", database=f"purse_{size}")
            cluster.psql(f"CREATE DATABASE purse_{size}", database="postgres")
            purse.start()
            servers.append(purse)
            started = time.time()
            workloads = load_scale(cluster, purse, size)
            load_s = time.time() - started
            loaded.append((size, purse, workloads, load_s, scale_floor_scripts(cluster, purse, workloads, size, folder)))
        # Measured in rounds that take every size in turn: the loads take minutes, over which this
        # machine's speed drifts by a fifth, so measuring each size right after its load compared
        # the sizes at different speeds. Each list and retrieve is followed by its floor, so a p50
        # that grows with the data says whether PostgreSQL's statement grew with it.
        rounds = {size: {kind: [] for kind in SCALE_KINDS} for size in sizes}
        floor_rounds = {size: {kind: [] for kind in SCALE_FLOOR_KINDS} for size in sizes}
        for number in range(SCALE_ROUNDS):
            for size, purse, workloads, _, floor_scripts in loaded:
                processes = {"purse": lambda pid=purse.process.pid: cpu_seconds([pid]), "postgres": cluster.cpu_seconds}
                for kind, (name, _) in SCALE_KINDS.items():
                    rounds[size][kind].append(run_load(purse.base, workloads[name], folder, duration=SCALE_DURATION,
                                                       cpu_of=processes))
                    if kind in floor_scripts:
                        floor_rounds[size][kind].append(run_pgbench(
                            cluster, floor_scripts[kind], folder, f"scale-{size}-{kind}-{number + 1}",
                            duration=SCALE_DURATION, database=f"purse_{size}"))
                log(f"scale round {number + 1}, {size:,}: " + ", ".join(
                    scale_summary(label, rounds[size][kind][-1]) for kind, (_, label) in SCALE_KINDS.items())
                    + "; floor " + ", ".join(f"{kind} p50 {floor_rounds[size][kind][-1]['p50_ms']:.2f} ms"
                                             for kind in SCALE_FLOOR_KINDS))
        for size, purse, _, load_s, _ in loaded:
            median = {kind: median_by_p50(runs) for kind, runs in rounds[size].items()}
            floor = {kind: {**median_by_p50(runs), "rounds": runs} for kind, runs in floor_rounds[size].items()}
            results["sizes"].append({"customers": size, "payment_methods": 5 * size, "load_s": load_s, **median,
                                     "floor": floor, "rounds": rounds[size], "peak_rss_mb": purse.peak_rss_mb()})
    finally:
        for purse in servers:
            purse.stop()
        cluster.stop()
    save(results, "scale")
    shutil.rmtree(folder, ignore_errors=True)
    if QUICK:
        # As in the quick run: the figures measure nothing, but every request must have succeeded.
        failed = [f"{size['customers']:,} {kind}: {run['errors']} errors"
                  for size in results["sizes"] for kind, runs in size["rounds"].items() for run in runs if run["errors"]]
        failed += [f"{size['customers']:,} {kind}'s floor: {run['failed']} failed transactions"
                   for size in results["sizes"] for kind, floor in size["floor"].items()
                   for run in floor["rounds"] if run["failed"]]
        if failed:
            raise SystemExit("error: requests failed in the quick scale run: " + "; ".join(failed))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="the workloads, their floor and the peer")
    run.add_argument("--only", nargs="*", help="workload names to run")
    run.add_argument("--skip-peer", action="store_true", help="do not run localstripe")
    run.add_argument("--keep", action="store_true", help="keep the temporary folder (logs, scripts)")
    scale = commands.add_parser("scale", help="latency at growing data sizes")
    scale.add_argument("--sizes", default="10000,100000,1000000")
    compare = commands.add_parser("compare", help="this build and another, side by side in alternating rounds")
    compare.add_argument("--baseline", required=True, help="the other build's purse binary (release)")
    compare.add_argument("--baseline-commit", help="what the other build is, for the report")
    compare.add_argument("--rounds", type=int, default=3)
    compare.add_argument("--only", nargs="*", help="workload names to run")
    arguments = parser.parse_args()
    {"run": command_run, "scale": command_scale, "compare": command_compare}[arguments.command](arguments)


if __name__ == "__main__":
    main()
