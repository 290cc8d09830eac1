# apt-get as root (sudo elsewhere), waiting up to 10 minutes for another apt or dpkg
# (unattended-upgrades, a second install) to let go of the package lock instead of failing
# at once: DPkg::Lock::Timeout covers the dpkg lock and, since apt 2.x, the lists' lock too.
apt_get() {
    local SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 "$@"
}

# Install Debian packages; when that fails, say plainly which were not installed and why.
apt_install() {
    echo "installing Debian packages: $*" >&2
    if apt_get update -qq && apt_get install -y -qq "$@"; then
        return 0
    fi
    echo "COULD NOT INSTALL: $* (apt-get failed above, or another apt or dpkg held the package lock for" \
        "10 minutes: see 'ps aux | grep -e apt -e dpkg', then run this again)" >&2
    return 1
}

# Shared by scripts/demo and scripts/test: make .venv with Python 3.11 or newer.
# On a fresh Debian machine python3 -m venv needs the python3-venv package.
ensure_venv() {
    if [ ! -x .venv/bin/python ]; then
        if ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
            apt_install python3-venv || exit 1
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
    # The scorer card's test reads its QR codes back from the printed picture.
    command -v zbarimg >/dev/null || missing+=(zbar-tools)
    if [ ${#missing[@]} -gt 0 ]; then
        apt_install "${missing[@]}"
    fi
}

# The demo's MQTT broker: Debian's mosquitto (cueboard demo starts its own on a free loopback
# port; amqtt, the demo extra, only where mosquitto cannot be had).
ensure_demo_packages() {
    if ! command -v mosquitto >/dev/null && [ ! -x /usr/sbin/mosquitto ]; then
        if ! apt_install mosquitto; then
            echo "the demo runs WITHOUT mosquitto: on its embedded broker (amqtt), which is slower" \
                "and has no access control; install mosquitto and start the demo again for the real one" >&2
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
    echo "fonts-noto-cjk (Debian): for names in Chinese, Japanese or Korean on the venue screen" >&2
    apt_install fonts-noto-cjk
}
