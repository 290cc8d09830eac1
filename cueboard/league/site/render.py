"""Writing the site: every page from its Jinja2 template (autoescape on, so a name is always
text), into a new folder that then takes the old one's place, so a web server never serves a
half-written site. A folder is only ever replaced when it holds :data:`MARKER` (a site written
here), never a folder of someone's files."""

from __future__ import annotations

import os
import shutil
import tempfile
from importlib.resources import files
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from cueboard.common.errors import SiteError
from cueboard.league.site import figures, paths
from cueboard.league.site.model import Site
from cueboard.league.site.words import Words
from cueboard.league.standings import Rules

MARKER = ".cueboard-site"


def environment() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("cueboard.league.site", "templates"),
                             autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True,
                             lstrip_blocks=True, keep_trailing_newline=True,
                             extensions=["jinja2.ext.do"])
    env.globals.update(match_page=paths.match_page, player_page=paths.player_page, cell=figures.cell,
                       stats_columns=figures.TABLE, Markup=markupsafe.Markup)
    return env


def pages(site: Site, words: Words, rules: Rules, title: str, least: int) -> dict[str, str]:
    """Every page's path (relative to the site's root) and its HTML."""
    env = environment()
    common: dict[str, Any] = {"w": words, "lang": words.language, "site": site, "title": title, "rules": rules,
                              "least": least, "players": site.players}
    out = {"index.html": env.get_template("index.html").render(common, root="")}
    for competition in site.competitions:
        out[competition.page] = env.get_template("competition.html").render(common, root="../", c=competition)
    for record in site.matches:
        out[paths.match_page(str(record["match_id"]))] = env.get_template("match.html").render(
            common, root="../", m=record, competition_page=paths.competition_page(record.get("competition")))
    for player in site.players.values():
        out[player.page] = env.get_template("player.html").render(common, root="../", p=player)
    return out


def write(out: Path, written: dict[str, str]) -> None:
    """The pages and the style sheet into ``out`` (replacing a site written there before)."""
    out = out.absolute()
    if out.exists() and not (out / MARKER).exists() and (not out.is_dir() or any(out.iterdir())):
        raise SiteError(f"--out {out}: not empty and not a site cueboard wrote ({MARKER} missing); "
                        "give a new or empty folder")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        new = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
        for name, text in {**written, "style.css": _style(), MARKER: ""}.items():
            (new / name).parent.mkdir(parents=True, exist_ok=True)
            (new / name).write_text(text, encoding="utf-8")
        os.chmod(new, 0o755)  # mkdtemp's 0700 would hide the site from a web server's user
        old = out.with_name(f".{out.name}.old")
        if out.exists():
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
        new.rename(out)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        raise SiteError(f"--out {out}: {exc.strerror or exc}") from exc


def _style() -> str:
    return files("cueboard.league.site").joinpath("templates", "style.css").read_text("utf-8")
