# Installs what Purse needs on a Debian machine when it is missing: PostgreSQL's server and
# libpq headers, pkg-config, and the Python packages of the tests and tools, into a virtual
# environment of the project's own (`.venv`), never into the system interpreter; for the
# browser tests alone, Debian's Chromium and its chromedriver; and, for the pg_auto_failover
# formation (scripts/formation) alone, Debian's pg_auto_failover.
# Sourced by the scripts; safe to run again.

purse_have_system_packages() {
    pkg-config --exists libpq 2>/dev/null &&
        compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null &&
        compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null
}

purse_install_system_packages() {
    purse_have_system_packages && return 0
    echo "==> Installing PostgreSQL, libpq-dev and pkg-config"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        postgresql libpq-dev pkg-config >/dev/null
    # Debian's package starts a cluster of its own; Purse runs its own clusters and needs none.
    purse_have_system_packages
}

purse_have_browser() {
    [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]
}

# Debian's Chromium and the chromedriver built with it, which the browser tests drive through
# Selenium (never a browser or driver downloaded by Selenium Manager). Only the browser stage
# calls this: the rest of Purse needs no browser.
purse_install_browser() {
    purse_have_browser && return 0
    echo "==> Installing Chromium and chromedriver"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        chromium chromium-driver >/dev/null
    purse_have_browser
}

# Debian 12's package puts pg_autoctl in /usr/bin; a build from source puts it in PostgreSQL's
# own bin folder. Either will do.
purse_have_failover() {
    [ -x /usr/lib/postgresql/15/bin/pg_autoctl ] || [ -x /usr/bin/pg_autoctl ]
}

# pg_auto_failover 2.0 for PostgreSQL 15 (pg_autoctl and the monitor's extension), which
# scripts/formation builds its formation from. Nothing else in Purse needs it.
purse_install_failover() {
    purse_have_failover && return 0
    echo "==> Installing pg_auto_failover (postgresql-15-auto-failover)"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        postgresql-15-auto-failover >/dev/null
    purse_have_failover
}

# The project's virtual environment; `purse_python` runs its interpreter.
PURSE_VENV="${PURSE_VENV:-$PWD/.venv}"

purse_python() {
    "$PURSE_VENV/bin/python" "$@"
}

# Creates the virtual environment if needed and installs the pinned packages of each
# requirements file given, when they are not there yet.
purse_install_python_packages() {
    if [ ! -x "$PURSE_VENV/bin/python" ]; then
        echo "==> Creating the Python virtual environment in $PURSE_VENV"
        python3 -m venv "$PURSE_VENV"
    fi
    local requirements
    for requirements in "$@"; do
        purse_python - "$requirements" <<'PY' && continue
import sys, importlib.metadata as md
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, _, version = line.partition("==")
    try:
        if md.version(name) != version:
            raise SystemExit(1)
    except md.PackageNotFoundError:
        raise SystemExit(1)
PY
        echo "==> Installing Python packages from $requirements"
        purse_python -m pip install -q --disable-pip-version-check -r "$requirements"
    done
}

# The folder tests keep their clusters and data folders in: the test command's, or, for a stage
# run alone, a new one removed when the stage ends.
purse_test_root() {
    [ -n "${PURSE_TEST_ROOT:-}" ] && return 0
    PURSE_TEST_ROOT="$(mktemp -d /tmp/purse-test.XXXXXX)"
    chmod 755 "$PURSE_TEST_ROOT"
    export PURSE_TEST_ROOT
    trap 'pkill -f -- "-D $PURSE_TEST_ROOT" 2>/dev/null || true; rm -rf "$PURSE_TEST_ROOT"' EXIT
}
