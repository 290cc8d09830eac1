"""The results archive: every finished match's record stored once, and the league's tables.

``database`` (SQLite or PostgreSQL), ``schema`` (the tables and their migrations),
``records`` (a record checked and its match id settled), ``store`` (:class:`Archive`),
``service`` (``cueboard archive run``: records from a broker), ``importer`` (from logs),
``standings`` (the league's tables), ``export`` (other systems' shapes), ``http`` (the tables
as JSON for a league's web site), ``command`` (the CLI). docs/league.md.
"""
