"""A reference game server on the engine (docs/server.md, docs/protocol.md): tables of people
and bots over WebSockets, a table page for the browser, every accepted action committed to a
real database (SQLite by default, PostgreSQL by URL) before it is broadcast.

Needs the ``server`` extra (``pip install 'shuangkou[server]'``); run it with
``shuangkou serve`` or::

    from shuangkou.server import serve
    serve("sqlite:///var/lib/shuangkou.db", host="127.0.0.1", port=8000)
"""

from .app import Limits, Server, make_app, serve
from .config import TableConfig
from .protocol import PROTOCOL_VERSION
from .store import Store, open_store
from .table import Table

__all__ = [
    "PROTOCOL_VERSION", "Limits", "Server", "Store", "Table", "TableConfig", "make_app",
    "open_store", "serve",
]
