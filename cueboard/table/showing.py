"""What the table shows and publishes (:class:`Showing`): the state on the boards and the feed,
the calls being keyed in, the devices' health, the match record, and the state as a question
is answered. The engine thread's, as the rest of the table.
"""

from __future__ import annotations

import logging
from functools import partial

from cueboard.contract.codes import Reason
from cueboard.contract.notices import Prompt
from cueboard.engine.json_value import JsonObject
from cueboard.engine.record import match_id
from cueboard.engine.state import State
from cueboard.table.guard import guard
from cueboard.table.health import OK, Health
from cueboard.table.keymap import Entry, Lapse
from cueboard.table.table_base import TableBase

log = logging.getLogger("cueboard")

__all__ = ["Showing"]


class Showing(TableBase):
    """The table's outputs (see the module's documentation)."""

    # -- what the people at the table see of a call being keyed in ----------------------------

    def _show_prompt(self, source: str, entry: Entry, lapse: Lapse | None = None) -> None:
        """Tell the boards and the feed what ``source`` has keyed so far (:meth:`show_call`)."""
        pending = entry.pending
        if lapse is not None:
            prompt: Prompt | None = Prompt(source, lapse.keys, lapse.needs, lapsed=True)
        elif pending.keys:
            prompt = Prompt(source, tuple(pending.keys), pending.needs)
        else:
            prompt = None
        self.show_call(source, prompt, entry.expires_at)

    def show_call(self, source: str, prompt: Prompt | None, expires: float | None = None) -> None:
        """Tell the boards and the feed what ``source`` (a device, a scorer) has keyed so far,
        once it changed; ``expires``: when it lapses (the engine loop's clock). A board shows one
        call: the newest one pending on any device (the referee box's stays up when the keypad's
        ends), or a lapse for its while."""
        if prompt == self._prompts.get(source):
            return
        self._prompts.pop(source, None)  # re-inserted last: the newest call is shown first
        self._prompts[source] = None if prompt is not None and prompt.lapsed else prompt
        shown = prompt if prompt is not None else next(
            (p for p in reversed(self._prompts.values()) if p is not None), None)
        for board in self.boards:
            guard(board.prompt, shown)
        if self.feed is not None:
            if prompt is None:
                guard(self.feed.publish_input, source, (), "")
            else:
                guard(partial(self.feed.publish_input, source, prompt.keys, prompt.needs,
                              expires_at=None if expires is None else self._wall() + expires - self._mono(),
                              expired=prompt.lapsed))

    def state_answer(self) -> JsonObject | None:
        """The latest state as a ``state`` question is answered (``cueboard match state``): with
        a shot clock, its ``clock`` as on MQTT but with the seconds ``left`` now, running or
        not (a person reads it, not a screen counting down). Safe from any thread."""
        latest, match = self.latest_state, self.match
        if latest is None:
            return None
        state = self.topics.dress(latest.to_json())
        if match is None:
            return state
        clock = self.clocks.answer(match.game.clock is not None, self._mono())
        state = self._with_light(state)
        return state if clock is None else {**state, "clock": clock}

    def clock_state(self) -> JsonObject | None:
        """The state payload's ``clock`` (docs/mqtt.md) when the match has a shot clock."""
        match = self.match
        if match is None or match.game.clock is None:
            return None
        return self.clocks.published(match.shot_time(), self._mono(), self._wall())


    # -- outputs ------------------------------------------------------------------------

    def _show(self) -> State:
        match = self.match
        assert match is not None
        state = match.state()
        shot_clocks = match.game.clock is not None
        shown, left = self.clocks.shown(self.topics.shown(state), match.shot_time() if shot_clocks else None,
                                        shot_clocks, self._mono())
        for board in self.boards:
            guard(board.show, shown, left)
        self.latest_state = state
        self.publish_devices()
        return state

    def show_and_publish(self) -> None:
        """Show the state and publish it again: what the topics add to it changed."""
        if self.match is not None:
            self._publish_state(self._show())

    def _publish_state(self, state: State | None = None) -> None:
        if self.feed is not None and self.match is not None:
            shown = self._with_light(self.topics.dress((state or self.match.state()).to_json()))
            clock = self.clock_state()
            guard(self.feed.publish_state, shown if clock is None else {**shown, "clock": clock})

    def _with_light(self, state: JsonObject) -> JsonObject:
        """The state with the light's ``light`` (docs/state.md) when the table has one."""
        light = self.light.to_json()
        return state if light is None else {**state, "light": light}

    def health(self) -> dict[str, Health]:
        """Each device's health, read from what it reports (:mod:`cueboard.table.health`)."""
        devices: dict[str, Health] = {"journal": self._journal_health}
        if self.config.referee_boxes:
            devices["buttons"] = OK if self.buttons is None else Health.of(self.buttons.health)
        if self.keypad is not None:
            devices["keypad"] = Health.of(self.keypad.health_report())
        for i, board in enumerate(self.boards):
            devices["matrix" if i == 0 else f"matrix{i}"] = Health.of(board.health)
        devices.update({name: Health.of(said) for name, said in self.topics.scorers.health().items()})
        devices.update({name: Health.of(link.health) for name, link in self.links.items()})
        if self.config.light is not None:
            devices["light"] = Health.of(self.light.health)
        if self.feed is not None:
            devices["mqtt"] = Health.of(self.feed.health)
        return devices

    def device_health(self) -> dict[str, str]:
        """:meth:`health` as ``<prefix>/devices`` says it (``{"keypad": "lost", ...}``)."""
        return {name: health.wire() for name, health in self.health().items()}

    def publish_devices(self, force: bool = False) -> None:
        health = self.health()
        devices = {name: h.wire() for name, h in health.items()}
        if devices != self.devices or force:
            for name, h in health.items():
                if name != "journal" and h.failed and self.devices.get(name) != devices[name]:
                    # On the boards too: the people at the table see what stopped working. (A
                    # journal that cannot be written shows itself: every input is refused saying so.)
                    for board in self.boards:
                        guard(board.flash, None, Reason(f"{name}: {devices[name]}", "device_failed",
                                                        name=name))
            self.devices = devices
            if self.feed is not None:
                seen = self.topics.scorers.last_seen()
                guard(partial(self.feed.publish_devices, {k: v for k, v in devices.items() if k != "mqtt"},
                              **({"last_seen": seen} if seen else {})))


    def _publish_record(self) -> None:
        feed, recorder, kept = self.feed, self.recorder, self.unarchived
        if feed is not None and recorder is not None:
            placed = self._placed(recorder.record())
            guard(lambda: feed.publish_record(placed))
            if kept is not None:  # each match's own, until an archive stored it (issue 38)
                guard(lambda: kept.keep(placed))

    def _placed(self, record: JsonObject) -> JsonObject:
        """``record`` with where it was played and its ``match_id`` (record.md): the venue, the
        table and the match's first event's time, the same after a restart and on every broker a
        record crosses, so an archive stores the match once. ``fixture`` and ``competition`` are
        null until the desk hands the table a match."""
        venue, table = self.config.venue, self.config.table
        started = None if self.recorder is None else self.recorder.started_at
        ident = None if started is None else match_id(venue, table, started)
        return {**record, "match_id": ident, "venue": venue, "table": table,
                "fixture": record.get("fixture"), "competition": record.get("competition")}
