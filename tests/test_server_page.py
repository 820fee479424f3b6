"""The table page's own logic (``server/static/table.js``), run in Node with the browser's
globals stubbed (no browser needed; tests/test_server_browser.py drives the whole page in
Chromium): what it shows for errors, partners, the 明牌 card and 百变 wilds, creating a
table on a server with a creation key, and the score breakdown's wrapping on a phone.
Needs the Debian package ``nodejs``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.conftest import require

require(program="node", apt="nodejs")

STATIC = Path(__file__).parent.parent / "src" / "shuangkou" / "server" / "static"

# The page's script in a context with the globals it touches; CHECKS runs after it (the
# page's top-level functions and `let`s are the context's globals) and prints JSON.
RUNNER = r"""
const fs = require("fs"), vm = require("vm");
const store = {};
const requests = [];
const answers = JSON.parse(process.argv[2]);
const ctx = {
  console, JSON, Promise, Error,
  localStorage: { getItem: (k) => (k in store ? store[k] : null),
                  setItem: (k, v) => { store[k] = String(v); } },
  window: { addEventListener() {} },
  document: { getElementById: () => null, querySelectorAll: () => [] },
  location: { hash: "", protocol: "http:", host: "x" },
  prompt: () => "s3cret",
  fetch: async (path, opts) => {
    requests.push({ path, headers: (opts && opts.headers) || {} });
    const [status, doc] = answers.shift();
    return { ok: status < 300, status, statusText: "", json: async () => doc };
  },
};
ctx.globalThis = ctx;
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), ctx);
ctx.__requests = requests;
Promise.resolve(vm.runInContext(process.argv[3], ctx))
  .then((out) => console.log(JSON.stringify(out)))
  .catch((e) => { console.log(JSON.stringify({ thrown: String(e.message) })); });
"""


def page(checks: str, answers: list[Any] | None = None) -> Any:
    """Run ``checks`` (a JavaScript expression, maybe a promise) after table.js; its value."""
    done = subprocess.run(
        ["node", "-e", RUNNER, str(STATIC / "table.js"), json.dumps(answers or []), checks],
        capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_errors_show_no_card_ids_and_speak_chinese():
    """Issue 34: the page showed the engine's message with card ids (``illegal play [5,
    50] by seat 3: ...``). Errors are shown without ids, in Chinese by their code."""
    msgs = [{"code": "illegal", "message":
             "illegal play [2, 94] by seat 1: 3c Kc is not a valid play under baibian"},
            {"code": "illegal", "message":
             "illegal play [2, 2] by seat 1: card 3c (id 2) is given twice"},
            {"code": "not_your_turn", "message": "it is seat 2's turn"}]
    got = page(f"""(() => {{ const m = {json.dumps(msgs)};
        const zh = m.map(errorText); lang = "en"; const en = m.map(errorText);
        return {{ zh, en }}; }})()""")
    for text in got["zh"] + got["en"]:
        assert "[" not in text and "(id" not in text, text
    assert got["zh"][0] == "不能这样出牌（3c Kc is not a valid play under baibian）"
    assert got["zh"][2] == "还没轮到你"
    assert got["en"][1] == "illegal play by seat 1: card 3c is given twice"


def test_partner_revealed_card_and_wilds_are_shown():
    """Issue 34: the page did not mark partners, did not show the 明牌 card (R7), and did
    not say in Chinese what a 百变 wild stood for (R3)."""
    got = page("""(() => {
        const who = [0, 1, 2, 3].map((s) => seatWho(s, 1, { name: "", kind: "greedy" }));
        const shown = revealedText({ revealed: 45 }), none = revealedText({ revealed: null });
        // 3♠ (id 0) and the big joker (id 107) as a pair of 3s; a straight 3-4-5 with a
        // wild for the 4
        const pair = wildText({ kind: "pair", top: 0, width: 2, length: 1, wilds: 1 }, [0, 107]);
        const run = wildText({ kind: "straight", top: 2, width: 1, length: 3, wilds: 1 },
                             [0, 107, 8]);
        const plain = wildText({ kind: "pair", top: 0, width: 2, length: 1, wilds: 0 }, [0, 1]);
        state = { table_cards: [0, 107], table_text: "pair of 3 (2 cards)" };
        const zh = playText({ kind: "pair", top: 0, width: 2, length: 1, stars: 0, wilds: 1 });
        lang = "en";
        const en = playText({ kind: "pair", top: 0, width: 2, length: 1, stars: 0, wilds: 1 });
        return { who, shown, none, pair, run, plain, zh, en, card: cardText(45) };
    })()""")
    assert got["who"][3] == "贪心 · 对家" and "对家" not in "".join(got["who"][:3])
    assert got["shown"] == f" · 明牌 {got['card']}" and got["none"] == ""
    assert (got["pair"], got["run"], got["plain"]) == ("百变当 3", "百变当 4", "")
    assert got["zh"] == "对子 (2张)，百变当 3"
    assert got["en"] == "pair of 3 (2 cards), wild as 3"


def test_a_table_can_be_created_on_a_server_with_a_creation_key():
    """Issue 34: on a server with ``Limits.create_key`` the page's create request was refused
    (401) for good. It asks for the key once, keeps it, and sends it."""
    answers = [[401, {"error": "unauthorized", "message": "creating tables needs..."}],
               [201, {"id": "0123456789abcdef"}], [201, {"id": "fedcba9876543210"}]]
    got = page("""(async () => {
        const first = await createWithKey({ seats: ["open", "greedy", "greedy", "greedy"] });
        const second = await createWithKey({ seats: ["open", "greedy", "greedy", "greedy"] });
        return { ids: [first.id, second.id],
                 auth: __requests.map((r) => r.headers.Authorization || null) };
    })()""", answers)
    assert got["ids"] == ["0123456789abcdef", "fedcba9876543210"]
    assert got["auth"] == [None, "Bearer s3cret", "Bearer s3cret"]


def test_the_score_breakdown_wraps_on_a_phone():
    """Issue 34: the R8 breakdown (``<pre>``) kept its long lines and was cut at phone
    width; it wraps."""
    css = (STATIC / "table.css").read_text()
    rule = next(line for line in css.splitlines() if line.startswith("#result pre"))
    assert "white-space: pre-wrap" in rule and "overflow-wrap: anywhere" in rule
