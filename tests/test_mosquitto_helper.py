"""The tests' own broker helper (tests/helpers/mosquitto.py) survives a port taken under it.

CI once failed a set-up with "Unable to create websockets listener on port 34307": a port
found free was taken before mosquitto bound it. These show the cause gone (no port from the
range outgoing connections draw from) and the start retrying when it happens anyway.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from tests.helpers.mosquitto import _EPHEMERAL, HOST, Mosquitto, Subscriber, free_port, port_taken
from tests.helpers.venue import running_venue

pytestmark = pytest.mark.system


def test_free_ports_are_outside_the_ephemeral_range_and_never_given_twice() -> None:
    ports = [free_port() for _ in range(200)]
    assert len(set(ports)) == len(ports)
    assert not any(port in _EPHEMERAL for port in ports)


def occupy(port: int) -> socket.socket:
    s = socket.socket()
    s.bind((HOST, port))
    s.listen()
    return s


def test_a_broker_whose_ports_were_taken_starts_on_new_ones(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path / "broker", websockets=True)
    taken = broker.port, broker.ws_port
    assert taken[1] is not None
    with occupy(taken[0]), occupy(taken[1]), broker:
        assert (broker.port, broker.ws_port) != taken
        assert any(port_taken(RuntimeError(line)) for line in broker.log)  # it did fail once
        with Subscriber("ping", port=broker.port) as sub:
            sub.wait_subscribed()


def test_a_given_port_taken_is_an_error_naming_it(tmp_path: Path) -> None:
    port = free_port()
    with occupy(port), pytest.raises(RuntimeError) as error:
        Mosquitto(tmp_path / "broker", port=port).start()
    assert port_taken(error.value) and str(port) in str(error.value)


def test_a_venue_whose_port_was_taken_is_written_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.helpers import venue as venue_helpers

    first: dict[str, int] = {}
    real_init = venue_helpers.init_venue

    def init_then_take(directory: Path, tables: int, scorers: tuple[str, ...] = (),
                       venue: str = "club", desks: tuple[str, ...] = ()) -> dict[str, int]:
        ports = real_init(directory, tables, scorers, venue, desks=desks)
        if not first:
            first.update(ports)
            held.append(occupy(ports["pages"]))
        return ports

    held: list[socket.socket] = []
    monkeypatch.setattr(venue_helpers, "init_venue", init_then_take)
    try:
        with running_venue(tmp_path, tables=1) as venue:
            assert venue.ports["pages"] != first["pages"] and venue.broker.running
    finally:
        for s in held:
            s.close()
