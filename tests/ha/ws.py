"""Home Assistant's WebSocket API, as its frontend speaks it: one connection, commands with ids,
and a mirror of what the test follows (the states, the device and entity registries) kept up
to date by Home Assistant's own events, so a test awaits a change instead of polling for it.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from typing import Any

import aiohttp

TIMEOUT = 300.0
"""Bounds a broken Home Assistant only: every wait here ends on one of its events."""


class WsError(RuntimeError):
    """Home Assistant refused a command or did not send what was awaited."""


class HassSocket:
    """``async with HassSocket(url, token) as ha``: authenticated; ``await ha.call(type, ...)``;
    ``await ha.until(check)`` re-reads the mirror on every event until ``check()`` is true."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.token = token
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._changed = asyncio.Condition()
        self.states: dict[str, dict[str, Any]] = {}
        self.devices: list[dict[str, Any]] = []
        self.entities: list[dict[str, Any]] = []
        self._session: aiohttp.ClientSession | None = None
        self._ws: aiohttp.ClientWebSocketResponse | None = None
        self._reader: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> HassSocket:
        self._session = aiohttp.ClientSession()
        self._ws = await self._session.ws_connect(self.url, max_msg_size=0)
        hello = await self._ws.receive_json()
        assert hello["type"] == "auth_required", hello
        await self._ws.send_json({"type": "auth", "access_token": self.token})
        answer = await self._ws.receive_json()
        if answer["type"] != "auth_ok":
            raise WsError(f"Home Assistant refused the token: {answer}")
        self._reader = asyncio.create_task(self._read())
        # Subscribed before the first reads: nothing between them is missed.
        for event in ("state_changed", "device_registry_updated", "entity_registry_updated"):
            await self.call("subscribe_events", event_type=event)
        await self._refresh_registries()
        self.states = {s["entity_id"]: s for s in await self.call("get_states")}
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._ws is not None:
            await self._ws.close()
        if self._session is not None:
            await self._session.close()

    async def call(self, kind: str, **fields: Any) -> Any:
        assert self._ws is not None
        ident = next(self._ids)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        await self._ws.send_json({"id": ident, "type": kind, **fields})
        return await asyncio.wait_for(future, TIMEOUT)

    async def _refresh_registries(self) -> None:
        self.devices = await self.call("config/device_registry/list")
        self.entities = await self.call("config/entity_registry/list")

    async def _read(self) -> None:
        assert self._ws is not None
        async for message in self._ws:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            data = message.json()
            if data["type"] == "result":
                future = self._pending.pop(data["id"])
                if data["success"]:
                    future.set_result(data["result"])
                else:
                    future.set_exception(WsError(f"{data['error']}"))
            elif data["type"] == "event":
                event = data["event"]
                if event["event_type"] == "state_changed":
                    new = event["data"]["new_state"]
                    if new is None:
                        self.states.pop(event["data"]["entity_id"], None)
                    else:
                        self.states[new["entity_id"]] = new
                else:
                    # A registry changed: read it again (its events carry ids only).
                    task = asyncio.create_task(self._registries_then_notify())
                    self._tasks.add(task)
                    task.add_done_callback(self._tasks.discard)
                    continue
                async with self._changed:
                    self._changed.notify_all()

    async def _registries_then_notify(self) -> None:
        await self._refresh_registries()
        async with self._changed:
            self._changed.notify_all()

    async def until(self, check: Callable[[], bool], what: str) -> None:
        """Until ``check()`` holds, re-checked on every event; WsError naming ``what`` if it
        never does (Home Assistant stopped sending)."""
        async def wait() -> None:
            async with self._changed:
                await self._changed.wait_for(check)
        try:
            await asyncio.wait_for(wait(), TIMEOUT)
        except TimeoutError as error:
            raise WsError(f"Home Assistant never showed {what}") from error

    def device(self, identifier: str) -> dict[str, Any] | None:
        """The device whose identifiers hold ("mqtt", ``identifier``)."""
        return next((d for d in self.devices if ["mqtt", identifier] in d["identifiers"]), None)

    def entity_ids(self, device_id: str) -> dict[str, str]:
        """The device's entities: unique_id -> entity_id."""
        return {e["unique_id"]: e["entity_id"] for e in self.entities if e["device_id"] == device_id}
