# Shared by scripts/demo and scripts/test: make .venv with Python 3.11 or newer.
# On a fresh Debian machine python3 -m venv needs the python3-venv package.
ensure_venv() {
    if [ ! -x .venv/bin/python ]; then
        if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
            echo "installing python3-venv (Debian)" >&2
            SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
            $SUDO apt-get update -qq && $SUDO apt-get install -y -qq python3-venv
        fi
        python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
            echo "cueboard needs Python 3.11 or newer (Raspberry Pi OS Bookworm has it)" >&2; exit 1; }
        python3 -m venv .venv
    fi
}
