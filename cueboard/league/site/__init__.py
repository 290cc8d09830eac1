"""The league's static web site (``cueboard archive site --out DIR``): standings, fixtures and
results, matches with their frames and breaks, players, a knockout's bracket, written from the
archive as plain HTML files (Jinja2 templates, no script). docs/league.md, "The league's web site".
"""
