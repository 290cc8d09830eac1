"""A table's scorer card (``cueboard venue card --table t1``): a printable A6 or A5 card, PNG
or PDF, with the scorer page's QR code (its login in the fragment) and the venue CA's.
What is on it and why: docs/scorer.md, "The scorer card".
"""

from __future__ import annotations

import hashlib
import ssl
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from urllib.parse import quote, urlencode, urlsplit

import segno
from PIL import Image, ImageDraw, ImageFont

from cueboard.common.errors import VenueError
from cueboard.venue.plan import Venue

__all__ = ["DPI", "PAPER", "Card", "card_for", "check_card_options", "draw_card", "scorer_url", "write_card"]

DPI = 300
PAPER = {"a6": (105.0, 148.0), "a5": (148.0, 210.0)}
"""Portrait paper sizes in millimetres (ISO 216)."""
SCREEN_PORT = 8443
"""The port docs/scorer.md serves ``cueboard screen`` on; ``--page`` for another address."""


def scorer_url(page: str, broker: str, venue: str, table: str, user: str, password: str,
               expires: str | None = None) -> str:
    """The scorer page's address for ``table``, the login in the fragment (``trust=1``: the
    phone keeps it, as a device left at the table should; ``exp``: when the login stops
    working, UTC, which the page forgets it at)."""
    query = urlencode({"broker": broker, "venue": venue, "table": table}, safe=":/", quote_via=quote)
    fields = {"user": user, "pass": password, "trust": "1"} | ({"exp": expires} if expires else {})
    fragment = urlencode(fields, safe=":", quote_via=quote)
    return f"{page.rstrip('/')}/score?{query}#{fragment}"


def fingerprint(ca_pem: str) -> str:
    """The certificate's SHA-256 fingerprint, as phones show it (pairs of hex digits)."""
    digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(ca_pem)).hexdigest().upper()
    return " ".join(digest[i:i + 2] for i in range(0, len(digest), 2))


@dataclass(frozen=True)
class Card:
    venue: str
    table: str
    user: str
    url: str  # QR code 1: the scorer page with the login in the fragment
    ca_url: str  # QR code 2: the venue's CA certificate
    ca_fingerprint: str
    expires: str | None = None  # the login's expiry (UTC), also in the link's fragment


def card_for(directory: Path, table: str, user: str | None = None, *, page: str | None = None,
             broker: str | None = None) -> Card:
    """The card of ``table`` from the venue in ``directory``: the scorer login ``user`` (the
    table's only scorer when not given) and its password from ``logins/<user>.password``."""
    venue = Venue.load(directory)
    if table not in venue.tables:
        raise VenueError(f"--table: no table {table} at {venue.name} (tables: {', '.join(venue.tables) or 'none'})")
    scorers = [lg.name for lg in venue.logins.values() if lg.role == "scorer" and lg.table == table]
    if user is None:
        if len(scorers) != 1:
            why = "has no scorer login" if not scorers else f"has {len(scorers)} scorer logins ({', '.join(scorers)})"
            hint = (f"cueboard venue add-user scorer-{table} --role scorer --table {table}" if not scorers
                    else "say which with --user")
            raise VenueError(f"--table: {table} {why}: {hint}")
        user = scorers[0]
    elif user not in scorers:
        raise VenueError(f"--user: {user!r} is not a scorer of {table} at {venue.name} "
                         f"(its scorers: {', '.join(scorers) or 'none'})")
    password_file = directory / "logins" / f"{user}.password"
    try:
        password = password_file.read_text().strip()
    except OSError as exc:
        raise VenueError(f"{password_file}: cannot read {user}'s password ({exc.strerror}): it is written only "
                         f"where the login was made; revoke it and add it again here for a new card") from None
    ca_file = directory / "ca" / "venue-ca.crt"
    try:
        ca_pem = ca_file.read_text()
    except OSError as exc:
        raise VenueError(f"{ca_file}: cannot read the venue's CA ({exc.strerror})") from None
    host = venue.hosts[0]
    page = page or f"https://{host}:{SCREEN_PORT}"
    broker = broker or f"wss://{host}:{venue.ports.pages}"
    check_card_options(page=page, broker=broker)
    expires = venue.logins[user].expires
    return Card(venue=venue.name, table=table, user=user,
                url=scorer_url(page, broker, venue.name, table, user, password, expires),
                ca_url=f"{page.rstrip('/')}/venue-ca.crt", ca_fingerprint=fingerprint(ca_pem), expires=expires)


def check_card_options(*, page: str | None = None, broker: str | None = None, out: str | None = None,
                       paper: str | None = None) -> None:
    """Refuse what no card can carry, before anything is written (``add-user --card``)."""
    if page is not None:
        split = urlsplit(page)
        if split.scheme != "https" or not split.netloc or split.query or split.fragment:
            raise VenueError(f"--page: {page!r}: the scorer pages' address is https://host[:port] (a browser sends a "
                             "password only to a secure page)")
    if broker is not None and (urlsplit(broker).scheme != "wss" or not urlsplit(broker).netloc):
        raise VenueError(f"--broker: {broker!r}: the pages' broker is wss://host:port (secure WebSockets)")
    if out and Path(out).suffix.lower() not in (".pdf", ".png"):
        raise VenueError(f"--out: {out}: a card is a .pdf or a .png")
    if paper is not None and paper not in PAPER:
        raise VenueError(f"--paper: {paper!r}: {' or '.join(PAPER)}")


# -- drawing ---------------------------------------------------------------------------------

INK = (0, 0, 0)
FELT = (11, 61, 30)
ANDROID = ("Android: open the downloaded file and choose \"CA certificate\" (or Settings > Security > "
           "Install a certificate > CA certificate).")
IOS = ("iPhone, iPad: Settings > General > VPN & Device Management: install the profile; then General > About > "
       "Certificate Trust Settings: turn it on.")


def _mm(mm: float) -> int:
    return round(mm / 25.4 * DPI)


def _font(size_mm: float) -> ImageFont.FreeTypeFont:
    font = resources.files("cueboard.boards").joinpath("ttf", "DejaVuSansCondensed-Bold.ttf")
    with resources.as_file(font) as path:
        return ImageFont.truetype(str(path), _mm(size_mm))


def _qr(text: str, side: int) -> Image.Image:
    """``text`` as a QR code (level M, 4 modules of quiet zone) drawn ``side`` pixels square,
    each module a whole number of pixels (a scanner reads sharp squares best)."""
    code = segno.make(text, error="m", micro=False, boost_error=False)
    rows = [list(row) for row in code.matrix]
    border = 4
    n = len(rows) + 2 * border
    scale = max(1, side // n)
    image = Image.new("1", (n * scale, n * scale), 1)
    draw = ImageDraw.Draw(image)
    for y, row in enumerate(rows):
        for x, dark in enumerate(row):
            if dark:
                left, top = (x + border) * scale, (y + border) * scale
                draw.rectangle((left, top, left + scale - 1, top + scale - 1), fill=0)
    return image


def _wrap(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont, width: int) -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if draw.textlength(trial, font=font) <= width or not line:
            line = trial
        else:
            lines.append(line)
            line = word
    return [*lines, line] if line else lines


def draw_card(card: Card, paper: str = "a6") -> Image.Image:
    """The card as a Pillow image (RGB, 300 dpi, portrait ``paper``)."""
    check_card_options(paper=paper)
    w_mm, h_mm = PAPER[paper]
    k = w_mm / PAPER["a6"][0]  # everything grows with the paper
    width, height = _mm(w_mm), _mm(h_mm)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    margin = _mm(7 * k)
    inner = width - 2 * margin
    y = margin
    band = _mm(14 * k)
    draw.rectangle((0, 0, width, band), fill=FELT)
    big, mid, small = _font(8.5 * k), _font(3.4 * k), _font(2.5 * k)
    step = _mm(3.2 * k)
    draw.text((margin, band // 2), f"Table {card.table}", font=big, fill="white", anchor="lm")
    draw.text((width - margin, band // 2), card.venue, font=mid, fill="white", anchor="rm")
    y = band + _mm(4 * k)
    draw.text((width // 2, y), "Scan to score this table", font=mid, fill=INK, anchor="ma")
    y += _mm(4.5 * k)
    code = _qr(card.url, _mm(58 * k))
    image.paste(code, ((width - code.width) // 2, y))
    y += code.height
    until = f" Works until {card.expires.replace('T', ' ').removesuffix('Z')} UTC." if card.expires else ""
    for line in _wrap(draw, f"Signs in as {card.user}, for table {card.table} only.{until} Lost card? "
                      f"cueboard venue revoke {card.user}", small, inner):
        draw.text((width // 2, y), line, font=small, fill=INK, anchor="ma")
        y += step
    y += _mm(1.5 * k)
    draw.line((margin, y, width - margin, y), fill=(160, 160, 160), width=_mm(0.3))
    y += _mm(1.5 * k)
    ca = _qr(card.ca_url, _mm(27 * k))
    image.paste(ca, (margin - _mm(2.5 * k), y))
    left = margin + ca.width - _mm(1 * k)
    text_width = width - margin - left
    ty = y + _mm(2 * k)
    draw.text((left, ty), "First time on this phone?", font=mid, fill=INK)
    ty += _mm(5 * k)
    words = ("Scan this first: it installs the venue's certificate, so the phone trusts the scorer page "
             "(the browser warns this once). Check its SHA-256 starts " + card.ca_fingerprint[:23] + ".")
    for line in _wrap(draw, words, small, text_width):
        draw.text((left, ty), line, font=small, fill=INK)
        ty += step
    y = max(ty, y + ca.height) + _mm(0.5 * k)
    for text in (ANDROID, IOS):
        for line in _wrap(draw, text, small, inner):
            draw.text((margin, y), line, font=small, fill=INK)
            y += step
        y += _mm(1 * k)
    if y > height - _mm(2):
        raise VenueError(f"--paper: the card does not fit on {paper.upper()} (a longer address than expected): "
                         "try --paper a5")
    return image


def write_card(card: Card, path: Path, paper: str = "a6") -> Path:
    """The card into ``path``: a PDF (a page the size of ``paper``) or a PNG, by its suffix."""
    check_card_options(out=str(path))
    suffix = path.suffix.lower()
    image = draw_card(card, paper)
    # The card carries a password: only its owner reads the file (as logins/*.password).
    path.unlink(missing_ok=True)
    path.touch(mode=0o600)
    if suffix == ".pdf":
        image.save(path, "PDF", resolution=float(DPI))
    else:
        image.save(path, "PNG", dpi=(DPI, DPI))
    return path
