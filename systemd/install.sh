#!/usr/bin/env bash
# Install (or update) cueboard as a systemd service on Raspberry Pi OS Bookworm.
#
#   sudo bash systemd/install.sh              install or update, enable and (re)start
#   sudo bash systemd/install.sh --uninstall  stop and remove the service and the code;
#                                             keeps the config, the journal and the user
#
# Run from a clone of the repository; safe to run again (that is how to update).
# What it does is in docs/install.md.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PREFIX=/opt/cueboard
VENV=$PREFIX/venv
CONF_DIR=/etc/cueboard
CONF=$CONF_DIR/cueboard.toml
EXAMPLE_CONF=$REPO/examples/snooker-table.toml
UNIT=/etc/systemd/system/cueboard.service
SERVICE_USER=cueboard
# Debian's Python, never one under a home directory (pyenv and the like): the
# service cannot see /home or /root (ProtectHome=yes), so the venv's python
# must not point there.
PYTHON=/usr/bin/python3
# gpio: /dev/gpiochip* and /dev/gpiomem; spi: /dev/spidev*; dialout: /dev/ttyACM*, /dev/ttyUSB*.
DEVICE_GROUPS=(gpio spi dialout)

say() { printf '==> %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# systemctl talks to a running systemd only when the machine booted with it
# (not in a chroot or an image build): then enabling is all that can be done.
systemd_running() { [ -d /run/systemd/system ]; }

uninstall() {
    if systemd_running; then
        systemctl disable --now cueboard.service 2>/dev/null || true
    else
        systemctl disable cueboard.service 2>/dev/null || true
    fi
    rm -f "$UNIT" /usr/local/bin/cueboard
    if systemd_running; then systemctl daemon-reload; fi
    rm -rf "$PREFIX"
    say "cueboard removed. Kept: $CONF_DIR (config), /var/lib/cueboard (the journal) and the user $SERVICE_USER."
    say "To remove those too: rm -rf $CONF_DIR /var/lib/cueboard && userdel $SERVICE_USER"
}

[ "$(id -u)" -eq 0 ] || die "run as root: sudo bash $0 $*"
case "${1:-}" in
    "") ;;
    --uninstall) uninstall; exit 0 ;;
    *) die "unknown option '$1' (use --uninstall, or nothing to install)" ;;
esac

command -v apt-get >/dev/null || die "this installer is for Raspberry Pi OS (Debian); apt-get not found"
[ -f "$REPO/pyproject.toml" ] || die "run it from a clone of the cueboard repository ($REPO has no pyproject.toml)"
[ -x "$PYTHON" ] || die "$PYTHON not found: apt-get install python3"
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "cueboard needs Python 3.11 or newer (Raspberry Pi OS Bookworm has it)"

# 1. Debian packages: only venv (with pip). lgpio and the rest come from PyPI
#    (piwheels on Raspberry Pi OS) as wheels, into the service's own venv.
if ! "$PYTHON" -c 'import ensurepip, venv' 2>/dev/null; then
    say "installing python3-venv"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv
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

# 3. The code: a venv in /opt/cueboard, built from a copy of the checkout so
#    that pip's build files (build/, *.egg-info) owned by root do not land in
#    the clone.
say "installing cueboard into $VENV"
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
src=$(mktemp -d)
trap 'rm -rf "$src"' EXIT
tar -C "$REPO" --exclude=./.git --exclude=./.venv --exclude=./node_modules \
    --exclude=./build --exclude='*.egg-info' -cf - . | tar -C "$src" -xf -
# pip always rebuilds and reinstalls a project given as a directory, so an update
# with the same version number still replaces the code; dependencies already
# there are kept.
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${src}[pi]"
ln -sfn "$VENV/bin/cueboard" /usr/local/bin/cueboard
install -D -m 0644 "$REPO/docs/install.md" "$PREFIX/install.md"

# 4. The configuration and its keymaps: root's to edit, readable by the service
#    (and group cueboard) only.
install -d -m 0750 -o root -g "$SERVICE_USER" "$CONF_DIR"
if [ ! -e "$CONF" ]; then
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

# 5. The unit. A restart picks up new code; between matches, please (the
#    journal brings the frame back, but the board blinks).
install -m 0644 "$REPO/systemd/cueboard.service" "$UNIT"
if ! ls /dev/spidev* >/dev/null 2>&1; then
    say "note: SPI is off (no /dev/spidev*); LED boards on SPI need: raspi-config nonint do_spi 0, then reboot"
fi
if systemd_running; then
    systemctl daemon-reload
    systemd-analyze verify "$UNIT" || say "warning: systemd-analyze verify complained (see above)"
    systemctl enable cueboard.service
    say "starting cueboard (waits for the first frame on the board)"
    if ! systemctl restart cueboard.service; then
        systemctl --no-pager --lines=30 status cueboard.service || true
        die "cueboard did not start: see journalctl -u cueboard"
    fi
    systemctl --no-pager --lines=0 status cueboard.service || true
else
    systemctl enable cueboard.service
    say "systemd is not running here (chroot or image build): enabled, starts at boot"
fi
say "done. Logs: journalctl -u cueboard -f    Config: $CONF    Journal: /var/lib/cueboard"
