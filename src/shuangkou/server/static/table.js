// The table page of the shuangkou reference server (docs/protocol.md). No build step.
"use strict";

const LABELS = {
  zh: {
    title: "双扣", new_table: "新牌桌", rules: "规则", deals: "局数", timer: "限时(秒, 0=不限)",
    bots: "机器人", greedy: "贪心", random: "随机", heuristic: "启发式", learned: "学习型",
    default: "默认(最强)", sit_with_bots: "与三个机器人开局",
    tables: "牌桌", on_table: "桌面", partner_hand: "对家手牌", play: "出牌", pass: "不要",
    hint: "提示", clear: "重选", result: "结果", lobby: "返回大厅", seat: "座位", you: "你",
    cards_left: "剩余", to_act: "轮到", your_turn: "轮到你出牌", waiting: "等待",
    lead: "你领出", join: "加入", spectate: "观战", over: "本局结束", finished: "比赛结束",
    totals: "总分", score: "得分", deal: "第{n}局", places: "名次", open: "空位",
    human: "玩家", passed: "不要", abandoned: "逃跑", no_hint: "没有能打过的牌，只能不要",
    connected: "在线", offline: "离线", timer_left: "剩余时间", partner: "对家",
    revealed: "明牌", wild_as: "百变当", create_key: "创建牌桌需要服务器的密钥：",
  },
  en: {
    title: "Shuangkou", new_table: "New table", rules: "Rules", deals: "Deals",
    timer: "Turn timer (s, 0 = none)", bots: "Bots", greedy: "greedy", random: "random",
    heuristic: "heuristic", learned: "learned", default: "default (strongest)",
    sit_with_bots: "Sit with three bots", tables: "Tables", on_table: "On the table",
    partner_hand: "Partner's hand", play: "Play", pass: "Pass", hint: "Hint", clear: "Clear",
    result: "Result", lobby: "Back to the lobby", seat: "Seat", you: "you", cards_left: "cards",
    to_act: "to act", your_turn: "Your turn", waiting: "Waiting for", lead: "You lead",
    join: "Join", spectate: "Watch", over: "Deal over", finished: "Match over",
    totals: "Totals", score: "score", deal: "Deal {n}", places: "Places", open: "open",
    human: "player", passed: "pass", abandoned: "abandoned", no_hint: "Nothing beats it: pass",
    connected: "online", offline: "offline", timer_left: "time left", partner: "partner",
    revealed: "revealed card", wild_as: "wild as",
    create_key: "Creating a table on this server needs its key:",
  },
};
// the kinds of RULES.md R2 in Chinese (the engine's table_text is English)
const KIND_ZH = {
  single: "单张", pair: "对子", triple: "三张", straight: "顺子", pair_chain: "连对",
  triple_chain: "连三张", bomb: "{w}相炸弹", three_jokers: "三王炸弹", four_jokers: "天王炸弹",
  chain_bomb: "{w}相{l}连环炸弹",
};
const PRESET_ZH = { classic: "经典", baibian: "百变", jj: "JJ", qianbian: "千变" };
// the protocol's error codes people meet at the table (docs/protocol.md "Errors")
const ERROR_ZH = {
  illegal: "不能这样出牌", not_your_turn: "还没轮到你", stale: "牌局已变，请重试",
  match_over: "比赛已结束", expired: "牌桌已过期", flood: "消息太多，连接已断开",
  rate: "请求太频繁，请稍后再试", busy: "观战人数已满", bad_token: "座位凭证无效",
  no_table: "没有这个牌桌", taken: "这个座位已有人", full: "服务器牌桌已满",
  too_many: "你开的牌桌或连接太多", unauthorized: "需要服务器的密钥", server: "服务器出错，请重试",
};
const OUTCOME_EN = { "双扣": "double win", "单扣": "single win", "平扣": "tie", "逃跑": "escape" };
const RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "SJ", "BJ"];
const SUITS = ["♠", "♥", "♣", "♦"];

let lang = localStorage.getItem("sk-lang") || "zh";
let ws = null;
let me = { table: null, player: null };
let state = null;
let selected = new Set();
let hintN = 0;
let msgId = 0;
let log = [];
let placesInfo = null;
let lastResult = null;

const $ = (id) => document.getElementById(id);
const t = (key, vars) => {
  let s = (LABELS[lang] && LABELS[lang][key]) || key;
  for (const k in vars || {}) s = s.replace("{" + k + "}", vars[k]);
  return s;
};

function applyLabels() {
  document.documentElement.lang = lang === "zh" ? "zh" : "en";
  document.querySelectorAll("[data-t]").forEach((el) => { el.textContent = t(el.dataset.t); });
  $("lang").textContent = lang === "zh" ? "English" : "中文";
  if (lastResult && !$("result").hidden) showResult(lastResult);
  if (state) render();
}

// -- cards ----------------------------------------------------------------------------------
function rankOf(id) { return id >= 106 ? 14 : id >= 104 ? 13 : (id % 52) >> 2; }
function suitOf(id) { return id >= 104 ? null : id % 4; }
function cardOrder(a, b) {
  return rankOf(a) - rankOf(b) || (suitOf(a) ?? 0) - (suitOf(b) ?? 0) || a - b;
}
function cardText(id) {
  const r = rankOf(id);
  return r >= 13 ? RANKS[r] : RANKS[r] + SUITS[suitOf(id)];
}
function cardEl(id) {
  const el = document.createElement("div");
  const r = rankOf(id);
  el.className = "card";
  el.dataset.id = id;
  if (r >= 13) {
    el.classList.add("joker");
    if (r === 14) el.classList.add("red");
    el.innerHTML = (r === 14 ? "大<br>王" : "小<br>王");
    el.title = RANKS[r];
  } else {
    const s = suitOf(id);
    if (s === 1 || s === 3) el.classList.add("red");
    el.innerHTML = RANKS[r] + "<br>" + SUITS[s];
  }
  return el;
}
function showCards(box, ids) {
  box.replaceChildren(...[...ids].sort(cardOrder).map(cardEl));
}

// -- HTTP -----------------------------------------------------------------------------------
async function api(path, body, headers) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", body: JSON.stringify(body),
    headers: { "Content-Type": "application/json", ...(headers || {}) },
  });
  const doc = await res.json();
  if (!res.ok) {
    const err = new Error(errorText({ code: doc.error, message: doc.message || res.statusText }));
    err.code = doc.error;
    throw err;
  }
  return doc;
}

// An error for people: the code's own words in Chinese (with the engine's reason for an
// illegal play), else the server's message; never the card ids an engine message holds
// ("illegal play [5, 50] by seat 3: ...", "card 3c (id 2) is given twice").
function errorText(m) {
  const text = (m.message || m.code || "").replace(/\s*\[[\d,\s]*\]|\s*\(id \d+\)/g, "");
  if (lang === "zh" && ERROR_ZH[m.code]) {
    const why = m.code === "illegal" ? text.split(": ").slice(1).join(": ") : "";
    return ERROR_ZH[m.code] + (why ? `（${why}）` : "");
  }
  return text;
}

// POST /api/tables; a server with a creation key (Limits.create_key) answers 401: ask for
// the key once, keep it for this browser, and send it (Authorization: Bearer).
async function createWithKey(config) {
  for (let asked = false; ; asked = true) {
    const key = localStorage.getItem("sk-create-key");
    try {
      return await api("/api/tables", config, key ? { Authorization: "Bearer " + key } : {});
    } catch (e) {
      if (e.code !== "unauthorized" || asked) throw e;
      const given = prompt(t("create_key"));
      if (!given) throw e;
      localStorage.setItem("sk-create-key", given);
    }
  }
}

async function refreshTables() {
  const { tables } = await api("/api/tables");
  const list = $("table-list");
  list.replaceChildren();
  for (const tb of tables) {
    const li = document.createElement("li");
    const kinds = tb.places.map((p) => t(p.kind)).join(" · ");
    li.textContent = `${tb.id} · ${presetName(tb.config.rules)} · ${t("deal", { n: tb.deal + 1 })}/${tb.config.deals} · ${kinds}`;
    const box = document.createElement("span");
    if (!tb.finished && tb.places.some((p) => p.kind === "open")) {
      const b = document.createElement("button");
      b.textContent = t("join");
      b.onclick = () => joinTable(tb.id, null);
      box.append(b);
    }
    const w = document.createElement("button");
    w.textContent = t("spectate");
    w.onclick = () => openSocket(tb.id, null);
    box.append(" ", w);
    li.append(box);
    list.append(li);
  }
}

// the lobby offers every bot the server has (GET /api/bots), greedy first chosen as before
async function loadBots() {
  const { bots } = await api("/api/bots");
  const box = document.querySelector('#create select[name="bot"]');
  const chosen = box.value;
  box.replaceChildren(...bots.map((name) => {
    const o = document.createElement("option");
    o.value = name;
    o.dataset.t = name;
    o.textContent = t(name);
    return o;
  }));
  if (bots.includes(chosen)) box.value = chosen;
}

async function createTable(ev) {
  ev.preventDefault();
  const f = new FormData($("create"));
  const bot = f.get("bot");
  const timer = Number(f.get("timer"));
  try {
    const tb = await createWithKey({
      rules: f.get("rules"), deals: Number(f.get("deals")), timer: timer > 0 ? timer : null,
      seats: ["open", bot, bot, bot],
    });
    await joinTable(tb.id, 0);
  } catch (e) { alert(e.message); }
}

async function joinTable(id, player) {
  const j = await api(`/api/tables/${id}/join`, player === null ? {} : { player });
  localStorage.setItem("sk-token-" + id, j.token);
  openSocket(id, j.token);
}

// -- WebSocket ------------------------------------------------------------------------------
function send(msg) {
  msg.id = ++msgId;
  ws.send(JSON.stringify(msg));
}

function openSocket(id, token) {
  if (ws) ws.close();
  me = { table: id, player: null };
  location.hash = id;
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  // ?table= lets a proxy route the socket to the table's node (docs/server.md "Scale-out")
  ws = new WebSocket(`${proto}//${location.host}/ws?table=${encodeURIComponent(id)}`);
  ws.onopen = () => ws.send(JSON.stringify(
    token ? { type: "join", table: id, token } : { type: "spectate", table: id }));
  ws.onmessage = (ev) => onMessage(JSON.parse(ev.data));
  ws.onclose = (ev) => {
    if (ev.code === 4000) return;  // replaced by a newer tab
    if (me.table === id) setTimeout(() => openSocket(id, token), 1500);  // reconnect
  };
  $("lobby").hidden = true;
  $("game").hidden = false;
}

function onMessage(m) {
  if (m.type === "welcome") {
    me.player = m.player;
    log = m.log;
    state = m.state;
    if (m.results.length) showResult(m.results[m.results.length - 1]);
    selected.clear();
  } else if (m.type === "update") {
    log.push(m.action);
    const newDeal = m.state.deal !== state.deal;
    state = m.state;
    selected = new Set([...selected].filter((c) => (state.hand || []).includes(c)));
    hintN = 0;
    if (m.result) showResult(m.result);
    else if (newDeal) $("result").hidden = true;
    $("message").textContent = "";
  } else if (m.type === "places") {
    placesInfo = m.places;
  } else if (m.type === "hint") {
    if (m.pass) $("message").textContent = t("no_hint");
    else { selected = new Set(m.cards); $("message").textContent = m.text; }
  } else if (m.type === "error") {
    $("message").textContent = errorText(m);
  }
  render();
}

function showResult(r) {
  lastResult = r;
  $("result").hidden = false;
  const mySeat = state ? state.seat : null;
  const rows = r.places.map((s, i) => `${i + 1}. ${t("seat")} ${s}${s === mySeat ? " (" + t("you") + ")" : ""}`);
  $("result-summary").textContent =
    `${r.outcome}${lang === "en" ? " " + (OUTCOME_EN[r.outcome] || "") : ""} — ${t("places")}: ${rows.join(", ")} — ` +
    `${t("score")}: ${r.scores.map((v) => (v > 0 ? "+" : "") + v).join(" / ")}`;
  $("result-breakdown").textContent = r.breakdown;
}

// -- rendering ------------------------------------------------------------------------------
function render() {
  if (!state) return;
  const mine = state.seat;
  const myTurn = mine !== null && state.to_act === mine && !state.is_over;
  let status;
  if (state.finished) status = t("finished");
  else if (myTurn) status = state.table ? t("your_turn") : t("lead");
  else status = `${t("waiting")} ${t("seat")} ${state.to_act}`;
  if (state.timer_left !== null && !state.finished) status += ` · ${t("timer_left")} ${Math.round(state.timer_left)}s`;
  $("status").textContent = `${presetName(state.rules)} · ${t("deal", { n: state.deal + 1 })}/${state.deals} · ${status}` +
    revealedText(state);

  const seats = $("seats");
  seats.replaceChildren();
  for (let s = 0; s < 4; s++) {
    const d = document.createElement("div");
    d.className = "seat" + (s === state.to_act ? " to-act" : "") + (s === mine ? " me" : "");
    const player = state.players[s];
    const info = placesInfo ? placesInfo[player] : null;
    const who = seatWho(s, mine, info);
    d.innerHTML = `<div>${t("seat")} ${s} ${who ? "· " + escapeHtml(who) : ""}</div>` +
      `<div class="count">${state.card_counts[s]}</div><div>${t("cards_left")}</div>`;
    if (s === state.to_act) d.title = t("to_act");
    seats.append(d);
  }

  if (state.table) {
    showCards($("board-cards"), state.table_cards);
    $("board-text").textContent = `${t("seat")} ${state.table_owner}: ${playText(state.table)}`;
  } else {
    $("board-cards").replaceChildren();
    $("board-text").textContent = "";
  }

  $("partner").hidden = !state.partner_hand;
  if (state.partner_hand) showCards($("partner-cards"), state.partner_hand);

  const hand = $("hand");
  showCards(hand, state.hand || []);
  hand.querySelectorAll(".card").forEach((el) => {
    const id = Number(el.dataset.id);
    if (selected.has(id)) el.classList.add("selected");
    el.onclick = () => {
      if (selected.has(id)) selected.delete(id); else selected.add(id);
      el.classList.toggle("selected");
    };
  });

  $("play").disabled = !myTurn;
  $("pass").disabled = !(myTurn && state.can_pass);
  $("hint").disabled = !myTurn;
  $("clear").disabled = !myTurn;
  $("actions").hidden = mine === null || state.finished;
  $("totals").textContent = `${t("totals")}: ` + state.players  // seat order
    .map((p, s) => `${t("seat")} ${s}: ${state.totals[p]}`).join(" · ");

  const hist = $("history");
  hist.replaceChildren(...log.filter((a) => a.deal === state.deal).slice(-12).map((a) => {
    const li = document.createElement("li");
    const what = a.kind === "play" ? a.cards.slice().sort(cardOrder).map(cardText).join(" ")
      : t(a.kind === "pass" ? "passed" : "abandoned");
    li.textContent = `${t("seat")} ${a.seat}: ${what}`;
    return li;
  }));
}

// Who sits at a seat: you, or the place's name or kind; your partner (the seat across, R1)
// is marked, and a spectator sees the two sides (seats 0 and 2 against 1 and 3).
function seatWho(s, mine, info) {
  const who = s === mine ? t("you") : info ? (info.name || t(info.kind)) : "";
  if (mine !== null && mine !== undefined && s === (mine ^ 2)) return `${who} · ${t("partner")}`;
  return who;
}

// The 明牌 card (R7), once the deal has revealed it.
function revealedText(st) {
  return st.revealed === null || st.revealed === undefined ? ""
    : ` · ${t("revealed")} ${cardText(st.revealed)}`;
}

// What the wild cards of a play stood for (R3: a 百变 wild takes any rank): the reading's
// ranks less the natural cards played; "" when the play has no wild or it cannot be told.
function wildText(play, ids) {
  if (!play.wilds) return "";
  const need = [];
  const kind = play.kind;
  if (["single", "pair", "triple", "bomb"].includes(kind)) {
    for (let i = 0; i < play.width; i++) need.push(play.top);
  } else if (["straight", "pair_chain", "triple_chain", "chain_bomb"].includes(kind)) {
    for (let r = play.top - play.length + 1; r <= play.top; r++)
      for (let i = 0; i < play.width; i++) need.push(r);
  } else return "";
  for (const id of ids) {
    const at = need.indexOf(rankOf(id));
    if (at >= 0) need.splice(at, 1);
  }
  if (need.length !== play.wilds) return "";
  return `${t("wild_as")} ${need.map((r) => RANKS[r]).join(" ")}`;
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// -- wiring ---------------------------------------------------------------------------------
window.addEventListener("DOMContentLoaded", () => {
  applyLabels();
  $("lang").onclick = () => {
    lang = lang === "zh" ? "en" : "zh";
    localStorage.setItem("sk-lang", lang);
    applyLabels();
    refreshTables().catch(() => {});
  };
  $("create").onsubmit = createTable;
  loadBots().catch(() => {});
  $("play").onclick = () => {
    if (selected.size) send({ type: "play", cards: [...selected], seq: state.seq });
  };
  $("pass").onclick = () => send({ type: "pass", seq: state.seq });
  $("hint").onclick = () => send({ type: "hint", n: hintN++ });
  $("clear").onclick = () => { selected.clear(); render(); };
  $("back").onclick = (ev) => {
    ev.preventDefault();
    me.table = null;
    if (ws) ws.close();
    history.replaceState(null, "", "/");
    $("game").hidden = true;
    $("lobby").hidden = false;
    refreshTables().catch(() => {});
  };
  const id = location.hash.slice(1);
  if (/^[0-9a-f]{1,64}$/.test(id)) openSocket(id, localStorage.getItem("sk-token-" + id));
  else refreshTables().catch(() => {});
  setInterval(() => {  // the turn timer counts down between updates
    if (state && state.timer_left !== null && state.timer_left > 0) {
      state.timer_left = Math.max(0, state.timer_left - 1);
      render();
    }
  }, 1000);
});

// A play of the table for people: the engine's text in English, the R2 kind name in Chinese,
// with what its wilds stood for.
function playText(play) {
  const wild = wildText(play, state.table_cards);
  if (lang !== "zh") return state.table_text + (wild ? `, ${wild}` : "");
  const kind = KIND_ZH[play.kind].replace("{w}", play.width).replace("{l}", play.length);
  return `${kind} (${play.stars ? play.stars + "★, " : ""}${state.table_cards.length}张)` +
    (wild ? `，${wild}` : "");
}

function presetName(name) {
  return lang === "zh" ? (PRESET_ZH[name] || name) : name;
}

