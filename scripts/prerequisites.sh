# Installs what Purse needs on a Debian machine when it is missing: PostgreSQL's server and
# libpq headers, pkg-config, and (with --python) the compatibility tests' Python packages.
# Sourced by scripts/run and scripts/test; safe to run again.

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

purse_install_python_packages() {
    local requirements="$1"
    python3 - "$requirements" <<'PY' && return 0
import sys, importlib.metadata as md
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if not line:
        continue
    name, _, version = line.partition("==")
    if md.version(name) != version:
        raise SystemExit(1)
PY
    echo "==> Installing Python packages from $requirements"
    python3 -m pip install -q -r "$requirements"
}
