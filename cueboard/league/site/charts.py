"""A player's two charts as SVG drawn here, on the server, with pygal (docs/league.md, "Player
pages"): the page needs no script to show them, works from a folder with no server, and the
archive's pages keep their no-script Content-Security-Policy.

pygal writes a ``<script>`` (its tooltips' configuration) into every chart even with ``js=[]``:
it is taken out, as are its comments (a build date, so a site rebuilt from the same archive is
the same). Each chart kind has a fixed id (pygal's is a fresh uuid) so that its ``<style>`` is
the same text on every page, and the archive's CSP can name it by its hash (:func:`style_hashes`)."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Sequence
from typing import Any

import pygal  # type: ignore[import-untyped]  # pygal ships no types
from pygal.style import Style  # type: ignore[import-untyped]

GREEN = "#0b5d2a"
STYLE = Style(background="#fff", plot_background="#fff", foreground="#111", foreground_strong="#111",
              foreground_subtle="#bbb", colors=(GREEN,), font_family="system-ui, sans-serif",
              guide_stroke_color="#ddd", major_guide_stroke_color="#bbb", label_font_size=14,
              major_label_font_size=14, title_font_size=15, value_font_size=13)
WIDTH, HEIGHT = 480, 260
"""The drawing's size: it is scaled to the page's width (at most 36rem), so a phone (390 px)
shows its labels at about 10 px and a laptop at 16."""
MOST_BARS = 30
"""The breaks chart shows a player's last 30 listed breaks; the table under it lists them all."""

_SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_STYLE = re.compile(r"(<style[^>]*>)(.*?)(</style>)", re.S)


def _config(kind: str) -> dict[str, object]:
    return {"js": [], "disable_xml_declaration": True, "width": WIDTH, "height": HEIGHT, "style": STYLE,
            "show_legend": False, "explicit_size": False, "margin": 8, "x_label_rotation": 0,
            "show_minor_x_labels": False, "truncate_label": -1}


def _svg(chart: Any, kind: str, title: str) -> str:
    chart.uuid = kind  # the id its style is scoped to: the same on every page
    svg: str = chart.render(is_unicode=True)
    svg = _COMMENT.sub("", _SCRIPT.sub("", svg))
    # Its one inline style attribute (the hidden tooltip) as a presentation attribute, which
    # a CSP with no 'unsafe-inline' lets through.
    svg = svg.replace(' style="opacity: 0"', ' opacity="0"')
    # Drawn inside an HTML page, where the svg element needs no namespace (and the site's
    # pages name no address of any host).
    svg = svg.replace(' xmlns="http://www.w3.org/2000/svg"', "", 1)
    # An HTML parser reads an svg's <style> as markup (it decodes pygal's "&gt;"), and a CSP
    # hashes the text it read: so the style is written as that text.
    svg = _STYLE.sub(lambda m: m.group(1) + html.unescape(m.group(2)) + m.group(3), svg)
    svg = svg.replace("<title>Pygal</title>", f"<title>{_attr(title)}</title>", 1)
    # A name for screen readers; the figures themselves are in the table under the chart.
    return svg.replace("<svg ", f'<svg role="img" aria-label="{_attr(title)}" ', 1)


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def _numbers(n: int) -> list[str]:
    # The x axis counts (frames rated, breaks listed): pygal picks its major labels by value,
    # so dates (many frames a night) would all be major and overlap. The dates are in the
    # table under each chart.
    return [str(i) for i in range(1, n + 1)]


def rating_chart(ordinals: Sequence[float], x_title: str, title: str) -> str:
    """The rating (openskill's ordinal, mu - 3 sigma) after each frame rated, oldest first."""
    chart = pygal.Line(**_config("rating"), show_dots=len(ordinals) <= 40, dots_size=2, x_title=x_title,
                       x_labels_major_count=min(5, len(ordinals)), show_only_major_dots=False)
    chart.x_labels = _numbers(len(ordinals))
    chart.add(title, [round(v, 2) for v in ordinals])
    return _svg(chart, "rating", title)


def breaks_chart(points: Sequence[int], x_title: str, title: str) -> str:
    """The player's listed breaks, oldest first (the last :data:`MOST_BARS`)."""
    labels = _numbers(len(points))
    top = max(147, *points) if points else 147  # a 147 is the top of the scale (more: a free ball's)
    chart = pygal.Bar(**_config("breaks"), range=(0, top), y_labels=[0, 50, 100, top],
                      x_labels_major_count=min(5, len(labels)), x_title=x_title)
    chart.x_labels = list(labels[-MOST_BARS:])
    chart.add(title, list(points[-MOST_BARS:]))
    return _svg(chart, "breaks", title)


def style_hashes() -> list[str]:
    """The CSP sources (``'sha256-...'``) of the two charts' ``<style>`` elements."""
    out = []
    for svg in (rating_chart([1.0, 2.0], "x", "x"), breaks_chart([50], "x", "x")):
        for _, style, _ in _STYLE.findall(svg):
            out.append("'sha256-" + base64.b64encode(hashlib.sha256(style.encode()).digest()).decode() + "'")
    return out
