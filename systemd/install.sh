#!/usr/bin/env bash
# Install (or update) cueboard as a systemd service on Raspberry Pi OS Trixie (Debian 13,
# Python 3.13) or Bookworm (Debian 12, Python 3.11) (Lite is enough; 64-bit or 32-bit;
# Pi 4, Pi 5, Zero 2 W).
#
#   sudo bash systemd/install.sh              install or update, enable and (re)start
#   sudo bash systemd/install.sh --uninstall  stop and remove the service and the code;
#                                             keeps the config, the journal and the user
#   sudo bash systemd/install.sh --join FILE  install, and make this Pi the table of FILE, the
#                                             venue's join bundle (cueboard venue add-table):
#                                             cueboard join writes /etc/cueboard from it
#   sudo bash systemd/install.sh --hub75      install, and the library for a HUB75 board:
#                                             rpi-rgb-led-matrix built from source on a Pi 2-4,
#                                             piomatter's wheel on a Pi 5 (docs/boards.md)
#
# Run from a clone of the repository (cd cueboard && sudo bash systemd/install.sh, or from
# anywhere with its path); safe to run again (that is how to update). What it does is in
# docs/install.md; tests/install/test_install.py runs it as docs/install.md says, in a Debian
# Bookworm root and in a Trixie one, without python3-dev or a compiler, twice.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# --join's bundle, named from where the installer was started (it cds to / below).
JOIN_BUNDLE=
if [ "${1:-}" = --join ] && [ -n "${2:-}" ]; then JOIN_BUNDLE=$(realpath -m -- "$2"); fi
# Every Python below runs from / and isolated (-I: no current directory or script folder
# on sys.path, no PYTHON* variables, no user site): run from the clone, `import cueboard`
# would otherwise find the checkout's cueboard/ (which has no hw/: package-dir maps it)
# instead of the venv's (issue 24).
cd /
PREFIX=/opt/cueboard
VENV=$PREFIX/venv
CONF_DIR=/etc/cueboard
CONF=$CONF_DIR/cueboard.toml
EXAMPLE_CONF=$REPO/examples/snooker-table.toml
UNIT=/etc/systemd/system/cueboard.service
UDEV_RULE=/etc/udev/rules.d/99-cueboard-keypad.rules
SPIDEV_CONF=/etc/modprobe.d/cueboard-spidev.conf
SERVICE_USER=cueboard
DROP_IN_DIR=/etc/systemd/system/cueboard.service.d
# HUB75 (--hub75): which Pi this is, from the device tree (a test points this elsewhere).
DEVICE_TREE=${CUEBOARD_DEVICE_TREE:-/proc/device-tree/compatible}
RGBMATRIX_GIT=https://github.com/hzeller/rpi-rgb-led-matrix
# The library has no releases: a known commit (master of 2026-05-19, Pi 5 support merged),
# so that every Pi builds the same code and an update changes it only when this line does.
RGBMATRIX_COMMIT=cf60d08f9b77c7216a51964602f8d9fc6d96d7c7
RGBMATRIX_SRC=/opt/cueboard/src/rpi-rgb-led-matrix
HUB75_MODPROBE=/etc/modprobe.d/cueboard-hub75.conf
# Debian's Python, never one under a home directory (pyenv and the like): the
# service cannot see /home or /root (ProtectHome=yes), so the venv's python
# must not point there.
PYTHON=/usr/bin/python3
# gpio: /dev/gpiochip* and /dev/gpiomem; spi: /dev/spidev*; dialout: /dev/ttyACM*, /dev/ttyUSB*.
DEVICE_GROUPS=(gpio spi dialout)
# The compiled libraries come from Debian, built for this Pi's architecture, so that
# nothing is compiled here (Raspberry Pi OS Lite has no python3-dev, and spidev has no
# wheel on PyPI): the venv sees them through --system-site-packages. Pillow and cbor2
# (luma's) have no 32-bit ARM wheels on PyPI either. lgpio: Debian's where the archive
# has it (Raspberry Pi OS does), else its wheel from PyPI (armv7l, aarch64, x86_64; none
# for Python 3.13, so on Trixie it must come from Raspberry Pi's archive).
DEBIAN_PACKAGES=(python3-venv python3-spidev python3-pil python3-cbor2)
# A full WS2812 frame goes in one SPI transfer (hw/ws2812_spi.py): 65536 bytes is 5,441 LEDs.
SPIDEV_BUFSIZ=131072
# WS2812 on SPI on a Pi 4: the SPI clock is the core clock divided, and the driver reads
# the core clock once: it must not drop below 500 MHz while a frame goes out
# (docs/hardware.md, "WS2812 timing").
CORE_FREQ_MIN=500

say() { printf '==> %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# systemctl talks to a running systemd only when the machine booted with it
# (not in a chroot or an image build): then enabling is all that can be done.
systemd_running() { [ -d /run/systemd/system ]; }
# udevadm control needs a running udevd (not in a chroot).
udev_running() { [ -S /run/udev/control ]; }

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

uninstall() {
    if systemd_running; then
        systemctl disable --now cueboard.service 2>/dev/null || true
    else
        systemctl disable cueboard.service 2>/dev/null || true
    fi
    rm -f "$UNIT" /usr/local/bin/cueboard "$UDEV_RULE" "$DROP_IN_DIR/hub75.conf"
    if systemd_running; then systemctl daemon-reload; fi
    if udev_running; then udevadm control --reload || true; fi
    rm -rf "$PREFIX"
    say "cueboard removed. Kept: $CONF_DIR (config), /var/lib/cueboard (the journal), the user $SERVICE_USER,"
    say "SPI on in config.txt and $SPIDEV_CONF (other SPI devices may need them)."
    say "To remove those too: rm -rf $CONF_DIR /var/lib/cueboard $SPIDEV_CONF && userdel $SERVICE_USER"
}

# The Pi's generation by its chip (5: BCM2712 ... 1: BCM2835), or nothing off a Pi.
pi_generation() {
    local names
    [ -r "$DEVICE_TREE" ] || return 0
    names=$(tr '\0' '\n' < "$DEVICE_TREE") || return 0
    grep -q '^raspberrypi,' <<<"$names" || return 0
    case "$names" in
        *brcm,bcm2712*) echo 5 ;; *brcm,bcm2711*) echo 4 ;; *brcm,bcm2837*) echo 3 ;;
        *brcm,bcm2836*) echo 2 ;; *brcm,bcm2835*) echo 1 ;;
    esac
}

[ "$(id -u)" -eq 0 ] || die "run as root: sudo bash $0 $*"
hub75=no
case "${1:-}" in
    "") ;;
    --uninstall) uninstall; exit 0 ;;
    --hub75) hub75=yes ;;
    --join)
        [ -n "$JOIN_BUNDLE" ] || die "--join: name the table's bundle: --join cueboard-join-<venue>-<table>.json (cueboard venue add-table writes it). Nothing was changed."
        # Only that it is a JSON object here: the venue, the table and the rest are checked by
        # cueboard join, once cueboard is installed.
        /usr/bin/python3 -I -c 'import json, sys; sys.exit(not isinstance(json.load(open(sys.argv[1])), dict))' \
            "$JOIN_BUNDLE" 2>/dev/null \
            || die "--join: $JOIN_BUNDLE is not a readable join bundle (a JSON file from cueboard venue add-table). Nothing was changed." ;;
    *) die "unknown option '$1' (use --uninstall, --hub75, --join FILE, or nothing to install)" ;;
esac
pi_model=$(pi_generation)
if [ "$hub75" = yes ] && [ -z "$pi_model" ]; then
    die "--hub75: this is not a Raspberry Pi (no raspberrypi,* in $DEVICE_TREE); off a Pi a HUB75 board is drawn by RGBMatrixEmulator (pip install 'cueboard[demo]'). Nothing was changed."
fi

command -v apt-get >/dev/null || die "this installer is for Raspberry Pi OS (Debian); apt-get not found"
[ -f "$REPO/pyproject.toml" ] || die "run it from a clone of the cueboard repository ($REPO has no pyproject.toml)"
[ -x "$PYTHON" ] || die "$PYTHON not found: apt-get install python3"
"$PYTHON" -I -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "cueboard needs Python 3.11 or newer (Raspberry Pi OS Bookworm has 3.11, Trixie 3.13)"

# 1. Debian packages, only those missing (a second run asks apt nothing).
missing=()
for package in "${DEBIAN_PACKAGES[@]}"; do
    installed "$package" || missing+=("$package")
done
lgpio_from_debian=no
if ! "$PYTHON" -I -c 'import lgpio' 2>/dev/null && ! { [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -I -c 'import lgpio' 2>/dev/null; }; then
    lgpio_from_debian=ask
fi
if [ ${#missing[@]} -gt 0 ] || [ "$lgpio_from_debian" = ask ]; then
    say "updating the package lists"
    apt-get update -qq
    if [ "$lgpio_from_debian" = ask ] && apt-cache show python3-lgpio >/dev/null 2>&1; then
        missing+=(python3-lgpio)
    elif [ "$lgpio_from_debian" = ask ] && ! "$PYTHON" -I -c 'import sys; sys.exit(sys.version_info >= (3, 13))'; then
        # PyPI's lgpio has no wheel for Python 3.13 and Debian has no python3-lgpio: a Debian
        # Trixie that is not Raspberry Pi OS. Say so before anything is installed.
        die "lgpio (GPIO, the referee buttons) is in no archive this system uses, and PyPI has no wheel of it for Python 3.13: on Raspberry Pi OS Trixie python3-lgpio comes from Raspberry Pi's archive (http://archive.raspberrypi.com/debian trixie main, in /etc/apt/sources.list.d/): add it, then run this again (docs/install.md). Nothing was installed."
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing Debian packages: ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
else
    say "Debian packages: all there (${DEBIAN_PACKAGES[*]})"
fi

# 2. The service user: a system account with no login and no home of its own,
#    in the groups udev gives the table's devices to.
for group in "${DEVICE_GROUPS[@]}"; do
    getent group "$group" >/dev/null || { say "creating group $group"; groupadd --system "$group"; }
done
if ! id "$SERVICE_USER" >/dev/null 2>&1; then
    say "creating user $SERVICE_USER"
    useradd --system --user-group --home-dir /var/lib/cueboard --no-create-home \
        --shell /usr/sbin/nologin --comment "cueboard scoreboard" "$SERVICE_USER"
fi
usermod --append --groups "$(IFS=,; echo "${DEVICE_GROUPS[*]}")" "$SERVICE_USER"

# 3. The code: a venv in /opt/cueboard that also sees Debian's packages, built from a
#    copy of the checkout so that pip's build files (build/, *.egg-info) owned by root
#    do not land in the clone. A venv made without the system's packages (by an older
#    install.sh) is made again.
say "installing cueboard into $VENV"
if [ -x "$VENV/bin/python" ] && ! grep -qx 'include-system-site-packages = true' "$VENV/pyvenv.cfg"; then
    say "remaking $VENV with the system's site-packages"
    rm -rf "$VENV"
fi
[ -x "$VENV/bin/python" ] || "$PYTHON" -I -m venv --system-site-packages "$VENV"
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
tar -C "$REPO" --exclude=./.git --exclude=./.venv --exclude=./node_modules --exclude=./.cache \
    --exclude=./build --exclude='*.egg-info' -cf - . | tar -C "$src" -xf -
# Wheels only (--only-binary): never a compiler. pip always rebuilds and reinstalls a
# project given as a directory, so an update with the same version number still
# replaces the code; dependencies already there (Debian's included) are kept.
if ! "$VENV/bin/python" -I -m pip install --quiet --disable-pip-version-check --only-binary=:all: "${src}[pi]"; then
    die "pip could not install cueboard from wheels (above). Nothing is compiled on purpose: see docs/install.md"
fi
# The installed cueboard, whole (its hw package included), and the libraries it needs on a Pi.
"$VENV/bin/python" -I -c 'import lgpio, spidev, PIL, cueboard.hw.ws2812_spi, cueboard.cli' \
    || die "the venv cannot import lgpio, spidev, Pillow or the installed cueboard (above)"
# mpremote flashes the keypad's Pico (cueboard firmware flash; docs/firmware.md): Bookworm's
# pip refuses installs outside a venv, so it lives in this one.
"$VENV/bin/python" -I -m pip install --quiet --disable-pip-version-check --only-binary=:all: mpremote \
    || die "pip could not install mpremote (above)"
ln -sfn "$VENV/bin/cueboard" /usr/local/bin/cueboard
install -D -m 0644 "$REPO/docs/install.md" "$PREFIX/install.md"
install -D -m 0644 "$REPO/docs/hardware.md" "$PREFIX/hardware.md"

# 4. The configuration and its keymaps: root's to edit, readable by the service
#    (and group cueboard) only.
install -d -m 0750 -o root -g "$SERVICE_USER" "$CONF_DIR"
if [ -n "$JOIN_BUNDLE" ]; then
    say "joining the venue: cueboard join $JOIN_BUNDLE"
    # cueboard join writes the keymaps its configuration names (where missing); step 4's loop the rest.
    "$VENV/bin/cueboard" join --no-restart "$JOIN_BUNDLE" \
        || die "cueboard join refused the bundle (above): cueboard is installed, the service not restarted; run sudo cueboard join FILE with the right bundle"
elif [ ! -e "$CONF" ]; then
    [ -f "$EXAMPLE_CONF" ] || die "no $CONF and no example to start from ($EXAMPLE_CONF)"
    say "writing $CONF from $(basename "$EXAMPLE_CONF"): edit it for this table"
    install -m 0640 -o root -g "$SERVICE_USER" "$EXAMPLE_CONF" "$CONF"
else
    say "keeping $CONF"
fi
# The keymaps the config names (keymaps/... is relative to $CONF_DIR): the
# example ones, each only where there is none yet, so local edits survive.
install -d -m 0750 -o root -g "$SERVICE_USER" "$CONF_DIR/keymaps"
for keymap in "$REPO"/examples/keymaps/*.toml; do
    [ -e "$keymap" ] || continue
    target=$CONF_DIR/keymaps/$(basename "$keymap")
    [ -e "$target" ] || install -m 0640 -o root -g "$SERVICE_USER" "$keymap" "$target"
done

# 5. The keypad's udev rule: a Pico on MicroPython is /dev/cueboard-keypad (and
#    /dev/cueboard-keypad-<serial>), group dialout, left alone by ModemManager.
install -D -m 0644 "$REPO/systemd/99-cueboard-keypad.rules" "$UDEV_RULE"
if udev_running; then
    udevadm control --reload
    # A keypad plugged in already gets its names now.
    udevadm trigger --action=add --subsystem-match=tty --property-match=ID_VENDOR_ID=2e8a || true
fi

# 6. SPI (LED boards): on at the next boot, with room for a whole WS2812 frame; on a Pi 4
#    with a WS2812 board, a core clock that does not drop. Each takes effect at the next
#    boot: what needs the reboot is said at the end.
reboot_for=()
config_txt=
for candidate in /boot/firmware/config.txt /boot/config.txt; do
    if [ -f "$candidate" ]; then config_txt=$candidate; break; fi
done
if command -v raspi-config >/dev/null; then
    if [ "$(raspi-config nonint get_spi)" != 0 ]; then
        say "turning SPI on (raspi-config nonint do_spi 0)"
        raspi-config nonint do_spi 0
        reboot_for+=("SPI (raspi-config)")
    fi
elif [ -n "$config_txt" ]; then
    if ! grep -qE '^[[:space:]]*dtparam=spi=on[[:space:]]*$' "$config_txt"; then
        say "turning SPI on in $config_txt (dtparam=spi=on)"
        if grep -qE '^[[:space:]]*#[[:space:]]*dtparam=spi=on[[:space:]]*$' "$config_txt"; then
            sed -i -E '0,/^[[:space:]]*#[[:space:]]*dtparam=spi=on[[:space:]]*$/s//dtparam=spi=on/' "$config_txt"
        else
            printf '\n[all]\ndtparam=spi=on\n' >> "$config_txt"
        fi
        reboot_for+=("SPI (dtparam=spi=on)")
    fi
else
    say "note: no raspi-config and no config.txt (not a Raspberry Pi?): turn SPI on yourself for LED boards"
fi
spidev_options="options spidev bufsiz=$SPIDEV_BUFSIZ"
if [ "$(cat "$SPIDEV_CONF" 2>/dev/null)" != "$spidev_options" ]; then
    say "spidev: $SPIDEV_CONF ($spidev_options)"
    install -d -m 0755 "$(dirname "$SPIDEV_CONF")"
    printf '%s\n' "$spidev_options" > "$SPIDEV_CONF"
    chmod 0644 "$SPIDEV_CONF"
    reboot_for+=("spidev's buffer (bufsiz=$SPIDEV_BUFSIZ)")
fi
# A WS2812 board on SPI on a Pi 4: core_freq_min (the [display] tables of the config).
ws2812_spi=$("$VENV/bin/python" -I - "$CONF" <<'PYTHON' || true
import sys, tomllib
try:
    with open(sys.argv[1], "rb") as f:
        display = tomllib.load(f).get("display", [])
except (OSError, tomllib.TOMLDecodeError):
    display = []  # cueboard itself says what is wrong with the file when it starts
boards = [display] if isinstance(display, dict) else display if isinstance(display, list) else []
print("yes" if any(isinstance(b, dict) and b.get("device") == "ws2812" and b.get("driver", "spi") == "spi"
                   for b in boards) else "no")
PYTHON
)
if [ "$ws2812_spi" = yes ] && [ "$pi_model" = 4 ]; then
    if [ -z "$config_txt" ]; then
        say "note: a WS2812 board on a Pi 4 needs core_freq_min=$CORE_FREQ_MIN in config.txt, and there is none here"
    elif ! grep -qE "^[[:space:]]*core_freq_min=${CORE_FREQ_MIN}[[:space:]]*\$" "$config_txt"; then
        say "WS2812 on a Pi 4: core_freq_min=$CORE_FREQ_MIN in $config_txt (a steady SPI clock)"
        printf '\n[pi4]\n# cueboard: WS2812 on SPI needs a steady core clock (docs/hardware.md)\ncore_freq_min=%s\n[all]\n' \
            "$CORE_FREQ_MIN" >> "$config_txt"
        reboot_for+=("core_freq_min=$CORE_FREQ_MIN")
    fi
fi
if [ ${#reboot_for[@]} -eq 0 ] && ! ls /dev/spidev* >/dev/null 2>&1; then
    say "note: no /dev/spidev* yet: SPI is on from the next boot"
fi

# 6b. HUB75 (--hub75): the library for this Pi and the unit's drop-in for its privileges.
if [ "$hub75" = yes ]; then
    install -d -m 0755 "$DROP_IN_DIR"
    if [ "$pi_model" = 5 ]; then
        # Adafruit's piomatter: wheels on PyPI for the Pi 5 (aarch64); /dev/pio0, no root.
        say "HUB75 on a Raspberry Pi 5: piomatter (adafruit-blinka-raspberry-pi5-piomatter)"
        "$VENV/bin/python" -I -m pip install --quiet --disable-pip-version-check --only-binary=:all: \
            adafruit-blinka-raspberry-pi5-piomatter
        install -m 0644 "$REPO/systemd/hub75-pio.conf" "$DROP_IN_DIR/hub75.conf"
    else
        # hzeller's rpi-rgb-led-matrix: no wheel anywhere, so built here (a compiler and
        # Cython from Debian), into the service's venv.
        say "HUB75 on a Raspberry Pi $pi_model: building rpi-rgb-led-matrix's Python binding (a few minutes)"
        hub75_packages=(git g++ make python3-dev cython3)
        need=()
        for package in "${hub75_packages[@]}"; do installed "$package" || need+=("$package"); done
        if [ ${#need[@]} -gt 0 ]; then
            apt-get update -qq
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
        fi
        # The pinned commit (RGBMATRIX_COMMIT), fetched alone; built again only when it changed.
        if [ "$(git -C "$RGBMATRIX_SRC" rev-parse HEAD 2>/dev/null)" != "$RGBMATRIX_COMMIT" ] \
                || ! "$VENV/bin/python" -I -c 'import rgbmatrix' 2>/dev/null; then
            install -d -m 0755 "$RGBMATRIX_SRC"
            [ -d "$RGBMATRIX_SRC/.git" ] || git -C "$RGBMATRIX_SRC" init --quiet
            git -C "$RGBMATRIX_SRC" fetch --quiet --depth 1 "$RGBMATRIX_GIT" "$RGBMATRIX_COMMIT"
            git -C "$RGBMATRIX_SRC" checkout --quiet --force --detach "$RGBMATRIX_COMMIT"
            make -C "$RGBMATRIX_SRC" build-python PYTHON="$VENV/bin/python" >/dev/null
            make -C "$RGBMATRIX_SRC" install-python PYTHON="$VENV/bin/python" >/dev/null
        fi
        "$VENV/bin/python" -I -c 'import rgbmatrix' || die "rpi-rgb-led-matrix built, but the venv cannot import rgbmatrix"
        install -m 0644 "$REPO/systemd/hub75-rgbmatrix.conf" "$DROP_IN_DIR/hub75.conf"
        # The library stops when the on-board sound is loaded (it shares the PWM hardware).
        if [ "$(cat "$HUB75_MODPROBE" 2>/dev/null)" != "blacklist snd_bcm2835" ]; then
            printf 'blacklist snd_bcm2835\n' > "$HUB75_MODPROBE"
            chmod 0644 "$HUB75_MODPROBE"
            reboot_for+=("the on-board sound off (rpi-rgb-led-matrix)")
        fi
    fi
fi

# 7. The unit. A restart picks up new code; between matches, please (the
#    journal brings the frame back, but the board blinks).
install -m 0644 "$REPO/systemd/cueboard.service" "$UNIT"
if systemd_running; then
    systemctl daemon-reload
    systemd-analyze verify "$UNIT" || say "warning: systemd-analyze verify complained (see above)"
    systemctl enable cueboard.service
    say "starting cueboard (waits until it says it is ready: the board's first frame, where SPI is on already)"
    if ! systemctl restart cueboard.service; then
        systemctl --no-pager --lines=30 status cueboard.service || true
        die "cueboard did not start: see journalctl -u cueboard"
    fi
    systemctl --no-pager --lines=0 status cueboard.service || true
else
    systemctl enable cueboard.service
    say "systemd is not running here (chroot or image build): enabled, starts at boot"
fi
if [ ${#reboot_for[@]} -gt 0 ]; then
    reasons=$(IFS=';'; echo "${reboot_for[*]}")
    say "REBOOT NEEDED (sudo reboot) for: ${reasons//;/, }."
    say "Until then the LED boards stay dark (cueboard runs and keeps score; its devices line says why);"
    say "after it cueboard starts by itself and the board shows its first frame."
fi
say "done. Logs: journalctl -u cueboard -f    Config: $CONF    Journal: /var/lib/cueboard"
say "Wiring and a hardware check: $PREFIX/hardware.md"
