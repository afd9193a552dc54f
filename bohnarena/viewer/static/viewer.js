// The match viewer (bohnarena/viewer): steps through a film of a match, the
// table after every move as the game's replay computed it. Everything shown
// comes from the log, so it is text (textContent) only, never markup.
"use strict";
(() => {
  const data = JSON.parse(document.getElementById("film").textContent);
  const { pool, frames, moves, texts, meta } = data;
  // what a seat that plays in words said, by the record its decision became
  const replies = data.replies || {};
  const said = (i) => {
    const all = replies[String(i)];
    if (!all || !all.length) return "";
    const refused = all.length - 1;
    const before = refused ? `(after ${refused} refused repl${refused === 1 ? "y" : "ies"}) ` : "";
    return `${before}“${all[refused]}”`;
  };
  const last = frames.length - 1;
  const $ = (id) => document.getElementById(id);
  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };
  const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

  // -- the header: the match, its seats and (folded) its result --------------
  $("title").textContent = `${meta.name}: ${meta.rules}`;
  $("where").textContent = `${meta.where}; ${plural(meta.turns, "turn")}, ` +
    `moves 0-${meta.moves - 1}`;
  const result = $("result-rows");
  const order = meta.seats.map((_, s) => s).sort((a, b) => meta.ranks[a] - meta.ranks[b] || a - b);
  for (const s of order) {
    const tr = el("tr");
    for (const v of [meta.ranks[s], `seat ${s}`, meta.seats[s], meta.coins[s], meta.faults[s]]) {
      tr.append(el("td", null, String(v)));
    }
    result.append(tr);
  }

  // -- zones, drawn once each and kept ---------------------------------------
  function zone(z) {
    const box = el("div", `zone ${z.kind}`);
    box.dataset.zone = z.key;
    if (z.label) box.append(el("h3", null, z.label));
    const items = z.items || [];
    if (z.kind === "value") {
      box.append(el("span", "value", z.value));
      if (z.sub) box.append(el("span", "sub", z.sub));
    } else if (z.kind === "cards") {
      if (z.secret) {
        box.classList.add("secret");
        const back = el("div", "back");
        back.append(el("span", "count", plural(items.length, "card")), el("span", "sub", " face down"));
        const backs = el("ol", "cards");
        backs.setAttribute("aria-hidden", "true");
        for (let k = 0; k < items.length; k++) backs.append(el("li", "card down", "?"));
        back.append(backs);
        box.append(back);
      }
      const list = el("ol", "cards face");
      if (!items.length) list.append(el("li", "none", "none"));
      for (const c of items) list.append(el("li", "card", c));
      box.append(list);
    } else if (z.kind === "slots") {
      const list = el("ol", "slots");
      for (const [title, n, note] of items) {
        const li = el("li", "slot");
        li.append(el("span", "t", title));
        if (n !== null) {
          const count = el("span", "count");
          count.append(el("span", "n", String(n)), el("span", "unit", n === 1 ? " card" : " cards"));
          li.append(count);
        }
        if (note) li.append(el("span", "note", note));
        list.append(li);
      }
      box.append(list);
      if (z.sub) box.append(el("p", "sub", z.sub));
    } else if (z.kind === "lines") {
      const list = el("ul", "lines");
      if (!items.length) list.append(el("li", "none", "none"));
      for (const t of items) list.append(el("li", null, typeof t === "number" ? texts[moves[t][0]] : t));
      box.append(list);
    } else if (z.kind === "badges") {
      for (const t of items) box.append(el("span", "badge", t));
    }
    return box;
  }
  const drawn = new Map();
  function panel(box, id) {
    if (box.panel === id) return;
    box.panel = id;
    box.body.replaceChildren(...pool[id].map((z) => {
      const key = `${box.name}:${z}`;
      if (!drawn.has(key)) drawn.set(key, zone(pool[z]));
      return drawn.get(key);
    }));
  }
  const table = { name: "t", body: $("table-zones"), panel: -1 };
  const seats = meta.seats.map((name, s) => {
    const sec = el("section", "seat");
    sec.dataset.seat = s;
    sec.setAttribute("aria-label", `Seat ${s}: ${name}`);
    const head = el("h2");
    head.append(el("span", null, `Seat ${s}: ${name}`), el("span", "here", " ◆ this move"));
    const body = el("div", "zones");
    sec.append(head, body);
    $("seats").append(sec);
    return { name: `s${s}`, sec, body, panel: -1 };
  });

  // -- the move list: every record as text (decisions only when asked: a
  // match has thousands, and a list drawn whole opens slowly) ---------------
  const list = $("moves");
  const items = new Array(moves.length);
  function item(i) {
    if (!items[i]) {
      const li = el("li", `move ${moves[i][1]}`);
      li.dataset.i = i;
      li.append(el("span", "no", String(i)), texts[moves[i][0]]);
      const reply = said(i);
      if (reply) li.append(el("span", "reply", reply));
      items[i] = li;
    }
    return items[i];
  }
  list.addEventListener("click", (e) => {
    const li = e.target.closest("li.move");
    if (li) go(Number(li.dataset.i));
  });
  const turns = [];
  moves.forEach(([, tag], i) => { if (tag === "turn") turns.push(i); });
  let shown = [];
  function reshow() {
    const all = $("all-moves").checked;
    shown = [];
    moves.forEach(([, tag], i) => { if (all || tag !== "quiet") shown.push(i); });
    list.replaceChildren(...shown.map(item));
    $("scrub").max = String(shown.length - 1);
  }

  // -- where we are --------------------------------------------------------------
  let pos = -1;
  // the last index of xs (sorted) with xs[k] <= i, or -1
  function below(xs, i) {
    let lo = 0, hi = xs.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (xs[mid] <= i) lo = mid + 1; else hi = mid; }
    return lo - 1;
  }
  // Scrolls the move list alone (scrollIntoView would scroll the page too),
  // before the next paint: reading a position now would lay the page out twice.
  let toShow = null;
  function show(li) {
    if (toShow === null) requestAnimationFrame(() => {
      const top = toShow.offsetTop, bottom = top + toShow.offsetHeight;
      if (top < list.scrollTop) list.scrollTop = top;
      else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight;
      toShow = null;
    });
    toShow = li;
  }
  function go(i, again = false) {
    i = Math.max(0, Math.min(last, i));
    if (i === pos && !again) return;
    if (pos >= 0) item(pos).removeAttribute("aria-current");
    pos = i;
    const [turn, head, tableId, seatIds, who] = frames[i];
    $("head").textContent = pool[head];
    $("move-no").textContent = String(i);
    $("move-text").textContent = texts[moves[i][0]];
    $("move-tag").textContent = moves[i][1];
    $("move-reply").textContent = said(i);
    panel(table, tableId);
    seats.forEach((box, s) => {
      panel(box, seatIds[s]);
      box.sec.classList.toggle("concerned", who.includes(s));
    });
    const li = item(i);
    li.setAttribute("aria-current", "step");
    if (li.isConnected) show(li);
    else show(item(shown[Math.max(0, below(shown, i))]));
    $("scrub").value = String(Math.max(0, below(shown, i)));
    document.body.dataset.move = String(i);
    document.body.dataset.turn = String(turn);
    history.replaceState(null, "", `#move-${i}`);
  }
  const step = {
    next: () => { const k = below(shown, pos) + 1; if (k < shown.length) go(shown[k]); },
    prev: () => { const k = below(shown, pos - 1); if (k >= 0) go(shown[k]); },
    nextTurn: () => { const k = below(turns, pos) + 1; go(k < turns.length ? turns[k] : last); },
    prevTurn: () => { const k = below(turns, pos - 1); go(k >= 0 ? turns[k] : shown[0]); },
    first: () => go(shown[0]),
    last: () => go(last),
  };

  // -- playing -------------------------------------------------------------------
  let timer = null;
  function play(on) {
    clearInterval(timer);
    timer = null;
    if (on) {
      if (pos === last) step.first();
      timer = setInterval(() => { if (pos === last) play(false); else step.next(); },
        1000 / Number($("speed").value));
    }
    $("play").textContent = on ? "Pause" : "Play";
    $("play").setAttribute("aria-pressed", String(on));
  }

  // -- controls and keys ---------------------------------------------------------
  for (const [id, what] of Object.entries({
    first: step.first, "prev-turn": step.prevTurn, prev: step.prev,
    next: step.next, "next-turn": step.nextTurn, last: step.last,
  })) $(id).addEventListener("click", () => { play(false); what(); });
  $("play").addEventListener("click", () => play(timer === null));
  $("speed").addEventListener("change", () => { if (timer !== null) play(true); });
  $("scrub").addEventListener("input", () => { play(false); go(shown[Number($("scrub").value)]); });
  // (a game with no hidden cards has no switch to show them)
  $("hands-switch").hidden = !pool.some((z) => z.secret);
  $("hands").addEventListener("change", () => {
    document.body.classList.toggle("show-hands", $("hands").checked);
  });
  $("all-moves").addEventListener("change", () => { reshow(); go(pos, true); });
  const keys = {
    ArrowRight: step.next, ArrowLeft: step.prev, ArrowDown: step.nextTurn,
    PageDown: step.nextTurn, ArrowUp: step.prevTurn, PageUp: step.prevTurn,
    Home: step.first, End: step.last,
  };
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || e.target.tagName === "SELECT") return;
    if (e.key === " ") {
      e.preventDefault();
      play(timer === null);
    } else if (keys[e.key]) {
      e.preventDefault();
      play(false);
      keys[e.key]();
    }
  });

  reshow();
  const asked = /^#move-(\d+)$/.exec(location.hash);
  go(asked ? Number(asked[1]) : shown[0]);
  document.body.dataset.ready = performance.now().toFixed(1);
})();
