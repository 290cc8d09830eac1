"""A season's numbers from the archive (issue 42): players' figures (``figures``), ratings
(``ratings``), handicap suggestions (``handicap``) and their printing (``show``). docs/league.md,
"Statistics, ratings and handicaps"."""
