"""The league: the results archive (every finished match's record stored once), its tables and reports.

``database`` (SQLite or PostgreSQL), ``schema`` (the tables and their migrations),
``records`` (a record checked and its match id settled), ``store`` (:class:`Archive`),
``archive_service`` (``cueboard archive run``: records from a broker), ``importer`` (from logs),
``standings`` (the league's tables), ``export`` (other systems' shapes), ``http`` (the tables
as JSON for a league's web site), ``archive_command`` (the CLI); a league's match day
(``match_day``), the printed result sheet (``result_sheet``) and ``report``. docs/league.md.
"""
