"""Files that hold a secret, refused when other users can read them, by ssh's and PostgreSQL's
rule (:func:`exposure`). The rule: docs/security.md ("Files with a secret in them"). A leaf module:
the standard library only.
"""

from __future__ import annotations

import grp
import os
import pwd
import stat
import struct
from pathlib import Path

__all__ = ["exposure"]

# The Linux xattr that holds a file's POSIX access ACL (acl_ea.h): a 4-byte version (2),
# then 8-byte entries (tag, permissions, id), little-endian.
_ACL_XATTR = "system.posix_acl_access"
_ACL_USER, _ACL_GROUP, _ACL_MASK = 0x02, 0x08, 0x10
_READ = 0o4


def exposure(path: str | Path, *, user: int | None = None) -> str | None:
    """Who other than ``user`` (the daemon's; this process's effective user by default) and
    root can read the file ``path``, with the command that stops it; None when nobody can.
    OSError when the file cannot be looked at.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as f:
    ...     os.chmod(f.name, 0o600)
    ...     print(exposure(f.name))
    None
    """
    name = str(path)
    st = os.stat(name)
    me = os.geteuid() if user is None else user
    mode = stat.S_IMODE(st.st_mode)
    if st.st_uid not in (me, 0):
        owners = "root" if me == 0 else f"{_user(me)} or root"
        return (f"it belongs to {_user(st.st_uid)}, who can read and change it; it must belong to {owners}: "
                f"chown {_user(me)} {name}")
    if st.st_uid == me and me != 0 and mode & 0o077:
        return f"mode {mode:04o} gives {_whom(mode)} access; it must be 0600 or less: chmod 600 {name}"
    if st.st_uid == 0 and mode & 0o037:
        return (f"mode {mode:04o} gives {_whom(mode & 0o037)} access; owned by root it must be 0640 or less "
                f"(readable by its group, {_group(st.st_gid)}, at most): chmod 640 {name}")
    return _acl_exposure(name, me)


def _whom(mode: int) -> str:
    who = [w for w, bits in (("its group", 0o070), ("every user", 0o007)) if mode & bits]
    return " and ".join(who)


def _acl_exposure(name: str, me: int) -> str | None:
    """Named users (not ``me``) and named groups that the file's ACL lets read it."""
    try:
        data = os.getxattr(name, _ACL_XATTR)
    except (OSError, AttributeError):  # no ACL, a file system without them, or not Linux
        return None
    if len(data) < 4 or (len(data) - 4) % 8:
        return f"its access ACL cannot be read ({len(data)} bytes); remove it: setfacl -b {name}"
    entries = [struct.unpack_from("<HHI", data, offset) for offset in range(4, len(data), 8)]
    mask = next((perm for tag, perm, _ in entries if tag == _ACL_MASK), 0o7)
    readers = [_user(i) if tag == _ACL_USER else f"group {_group(i)}" for tag, perm, i in entries
               if tag in (_ACL_USER, _ACL_GROUP) and perm & mask & _READ and not (tag == _ACL_USER and i in (me, 0))]
    if not readers:
        return None
    return f"its access ACL lets {', '.join(readers)} read it: setfacl -b {name}"


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def _group(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)
