"""``cueboard venue`` and ``cueboard league``: a venue's (or a league's) mosquitto set up by one
command, and kept up to date by a few more (docs/security.md).

- :mod:`.plan`: the venue's own record (``venue.json``): its tables, its logins and their roles.
- :mod:`.pki`: the venue's CA and the broker's certificate (``openssl``).
- :mod:`.passwords`: mosquitto's password files, hashed as ``mosquitto_passwd`` does.
- :mod:`.broker_files`: the broker's configuration and ACL, written from the record: a role's
  rights come from the ACL alone.
- :mod:`.league`: the same for a league's broker and its venues' bridges.
- :mod:`.command`: the command lines, and the broker's reload.
"""
