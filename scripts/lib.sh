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

# Debian packages the tests use (systemd-analyze, a real mosquitto broker, shellcheck, udevadm, mmdebstrap),
# installed when missing: CI runs as root; elsewhere with sudo.
ensure_debian_packages() {
    local missing=()
    command -v systemd-analyze >/dev/null || missing+=(systemd)
    command -v mosquitto >/dev/null || [ -x /usr/sbin/mosquitto ] || missing+=(mosquitto)
    command -v mosquitto_passwd >/dev/null || missing+=(mosquitto-clients)
    command -v shellcheck >/dev/null || missing+=(shellcheck)
    # The keypad's udev rule is run by udevadm; the installer's test builds a Debian root.
    command -v udevadm >/dev/null || missing+=(udev)
    command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
    # docs/hardware.md's wiring diagrams are rendered to check them.
    command -v rsvg-convert >/dev/null || missing+=(librsvg2-bin)
    command -v openssl >/dev/null || missing+=(openssl)
    # The results archive's tests run a throwaway PostgreSQL cluster (initdb, pg_ctl).
    compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql)
    # The venue screen's end-to-end tests: Debian's Chromium driven by playwright-core under node.
    [ -x /usr/bin/chromium ] || missing+=(chromium)
    command -v node >/dev/null || missing+=(nodejs)
    command -v npm >/dev/null || missing+=(npm)
    # The result sheet's print test: Chromium's PDF read back by poppler (pdfinfo, pdftotext, pdftoppm).
    command -v pdftoppm >/dev/null || missing+=(poppler-utils)
    has_cjk_font || missing+=(fonts-noto-cjk)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing Debian packages: ${missing[*]}" >&2
        local SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    fi
}

# The demo's MQTT broker: Debian's mosquitto (cueboard demo starts its own on a free loopback
# port; amqtt, the demo extra, only where mosquitto cannot be had).
ensure_demo_packages() {
    if ! command -v mosquitto >/dev/null && [ ! -x /usr/sbin/mosquitto ]; then
        echo "installing Debian packages: mosquitto" >&2
        local SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
        if ! { $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mosquitto; }; then
            echo "could not install mosquitto: the demo falls back to its embedded broker" >&2
        fi
        # Debian starts the packaged broker on port 1883; the demo runs its own.
    fi
}

# The venue screen shows players' names as they are written: Chinese, Japanese or Korean names
# (赵心童) need a CJK font, which Debian's Chromium does not bring (docs/screen.md).
has_cjk_font() {
    dpkg-query -W -f='${Status}' fonts-noto-cjk 2>/dev/null | grep -q "ok installed"
}

ensure_screen_fonts() {
    has_cjk_font && return 0
    command -v apt-get >/dev/null || return 0  # not Debian: the browser's own fonts
    echo "installing fonts-noto-cjk (Debian) for names in Chinese, Japanese or Korean on the venue screen" >&2
    local SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk
}
