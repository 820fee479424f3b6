"""Run the game server in-process on a free localhost port, create a table with two WebSocket
bot clients and two server bots, play the match out, and print each deal's R8 breakdown.

    python examples/server_bots.py

The same clients work against ``shuangkou serve`` (give its URL as ``base``).
"""

from __future__ import annotations

import asyncio
import tempfile

import aiohttp
from aiohttp import web

from shuangkou.server import Server, make_app, open_store
from shuangkou.server.client import TableClient, create_table, join_table


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(open_store(f"sqlite://{tmp}/example.db"), bot_delay=0.0)
        runner = web.AppRunner(make_app(server))
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        base = f"http://127.0.0.1:{runner.addresses[0][1]}"
        try:
            async with aiohttp.ClientSession() as http:
                table = await create_table(http, base, rules="baibian", deals=2,
                                           seats=["open", "greedy", "open", "random"])
                clients = []
                for place in (0, 2):
                    joined = await join_table(http, base, table["id"], place, name=f"bot{place}")
                    clients.append(await TableClient.connect(http, base, table["id"],
                                                             joined["token"]))
                await asyncio.gather(*(c.play_out() for c in clients))
                for i, result in enumerate(clients[0].results):
                    print(f"deal {i}: {result['outcome']} ({result['outcome_en']})")
                    print(result["breakdown"], end="\n\n")
                print("totals per place:", clients[0].state["totals"])
                for c in clients:
                    await c.close()
        finally:
            await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
