/* wikiq's page: ask, watch the answer stream in, follow its links, see the pages behind it. */
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const state = {
    info: null,
    turns: [], // {question, raw, el, graph, done}
    active: null, // the turn whose graph is shown
    controller: null, // AbortController of the answer being streamed
    previewStack: [],
  };
  let graph = null;

  // ---- links -----------------------------------------------------------------------------

  function pagePathFor(target) {
    const prefix = (state.info && state.info.link_prefix) || "";
    let t = target.replace(/\\/g, "/").replace(/^\/+/, "").replace(/\.md$/i, "");
    if (prefix && t.toLowerCase().startsWith(prefix.toLowerCase())) t = t.slice(prefix.length);
    return t;
  }

  function obsidianUrl(path) {
    const vault = (state.info && state.info.obsidian_vault) || "";
    const prefix = (state.info && state.info.link_prefix) || "";
    return (
      "obsidian://open?vault=" + encodeURIComponent(vault) + "&file=" + encodeURIComponent(prefix + path)
    );
  }

  function linkFor(target, label) {
    const path = pagePathFor(target);
    const a = document.createElement("a");
    a.className = "wikilink";
    a.href = obsidianUrl(path);
    a.dataset.page = path;
    a.dataset.target = target;
    a.title = "Preview " + path + " (the page opens in Obsidian from the preview)";
    // An unlabelled [[wiki/concepts/orbit]] reads better as its page name, as Obsidian shows it.
    a.textContent = label === target ? path.split("/").pop() : label;
    return a;
  }

  /* A source note opens in Obsidian by its vault path (notes live outside the wiki folder). */
  function noteUrl(path) {
    const vault = (state.info && state.info.obsidian_vault) || "";
    return "obsidian://open?vault=" + encodeURIComponent(vault) + "&file=" + encodeURIComponent(path);
  }

  /* A note wraps its paragraphs at a fixed width; shown in a narrow box, each of those line
     breaks would cut a sentence in two. A single line break inside a paragraph becomes a space,
     as Markdown reads it; blank lines, headings, list items, quotes, tables and code stay as
     they are. One character for one, so the marked passage's offsets still hold. */
  const BLOCK_LINE = /^\s*(#|[-*+>|]\s|\d+[.)]\s|\x60{3}|~~~|\|)/;  // \x60: a backtick
  const FENCE = /^\s*(\x60{3}|~~~)/;
  function reflow(text) {
    const lines = text.split("\n");
    let out = lines[0];
    let fenced = FENCE.test(lines[0]);
    for (let i = 1; i < lines.length; i++) {
      const prev = lines[i - 1];
      const line = lines[i];
      const joins = !fenced && prev.trim() && line.trim() && !BLOCK_LINE.test(prev) && !BLOCK_LINE.test(line);
      out += (joins ? " " : "\n") + line;
      if (FENCE.test(line)) fenced = !fenced;
    }
    return out;
  }

  /* Under the answer: the excerpts of the notes it cites, the passage that answers marked.
     Note text is untrusted: it only ever goes in as text, never as HTML. */
  function showExcerpts(turn, excerpts) {
    const box = turn.el.querySelector(".excerpts");
    box.replaceChildren();
    if (!Array.isArray(excerpts) || !excerpts.length) {
      box.hidden = true;
      return;
    }
    const heading = document.createElement("h3");
    heading.textContent = turn.words.excerpts;
    box.append(heading);
    for (const x of excerpts) {
      const item = document.createElement("figure");
      item.className = "excerpt";
      const caption = document.createElement("figcaption");
      const link = document.createElement("a");
      link.className = "note-link";
      link.href = noteUrl(x.path);
      link.title = turn.words.openNote;
      link.textContent = x.title || x.path;
      const path = document.createElement("span");
      path.className = "note-path";
      path.textContent = x.path;
      caption.append(link, " ", path);
      const quote = document.createElement("blockquote");
      const text = reflow(String(x.text || ""));
      const mark = Array.isArray(x.mark) ? x.mark : null;
      if (mark && mark[0] >= 0 && mark[1] > mark[0] && mark[1] <= text.length) {
        const passage = document.createElement("mark");
        passage.textContent = text.slice(mark[0], mark[1]);
        quote.append(text.slice(0, mark[0]), passage, text.slice(mark[1]));
      } else {
        quote.textContent = text;
      }
      item.append(caption, quote);
      box.append(item);
    }
    box.hidden = false;
    // A long excerpt scrolls inside its box: start at the marked passage.
    for (const passage of box.querySelectorAll("blockquote mark")) {
      const quote = passage.parentElement;
      quote.scrollTop = Math.max(0, passage.offsetTop - 8);  // the quote is the offset parent
    }
  }

  /* After the answer: point every link at the page it resolves to, and mark dead ones. */
  function fixLinks(container, links) {
    for (const a of container.querySelectorAll("a.wikilink")) {
      const target = a.dataset.target;
      if (!links || !(target in links)) continue;
      const page = links[target];
      if (page) {
        a.dataset.page = page.path;
        a.href = obsidianUrl(page.path);
        if (a.textContent === page.path.split("/").pop()) a.textContent = page.title;
      } else {
        const span = document.createElement("span");
        span.className = "wikilink dead";
        span.title = "not a page in this vault";
        span.textContent = a.textContent;
        a.replaceWith(span);
      }
    }
  }

  // ---- the page's own words, in the question's language --------------------------------

  const WORDS = {
    en: {
      searching: "Searching your vault…",
      nothingBehind: "No page of your vault is behind this answer.",
      writing: "writing…",
      found: (n) => `${n} page${n === 1 ? "" : "s"} found · writing…`,
      cited: (n, notes) =>
        (notes ? `${n ? `${n} page${n === 1 ? "" : "s"} and ` : ""}${notes} note${notes === 1 ? "" : "s"}` : `${n} page${n === 1 ? "" : "s"}`) + " cited",
      partial: "may be partial",
      searchedWith: " · searched with the earlier question",
      wrong: "Something went wrong.",
      excerpts: "From your source notes",
      openNote: "Open the note in Obsidian",
    },
    zh: {
      searching: "正在检索你的知识库…",
      nothingBehind: "这个回答没有来自你知识库的页面。",
      writing: "正在撰写…",
      found: (n) => `找到 ${n} 个页面 · 正在撰写…`,
      cited: (n, notes) => (notes ? `引用${n ? ` ${n} 个页面、` : " "}${notes} 篇原始笔记` : `引用 ${n} 个页面`),
      partial: "可能只部分涵盖",
      searchedWith: " · 结合上一个问题检索",
      wrong: "出错了。",
      excerpts: "原始笔记摘录",
      openNote: "在 Obsidian 中打开这篇笔记",
    },
  };

  /* A question mostly in Chinese (or Japanese) characters gets Chinese labels; else English. */
  function wordsFor(question) {
    const cjk = (question.match(/[\u3400-\u9fff\uf900-\ufaff]/g) || []).length;
    const latin = (question.match(/[A-Za-z]+/g) || []).length;
    return WORDS[cjk > latin ? "zh" : "en"];
  }

  // ---- asking ----------------------------------------------------------------------------

  function newTurn(question) {
    const node = $("turn-template").content.firstElementChild.cloneNode(true);
    node.querySelector(".question-bubble").textContent = question;
    $("empty-state").hidden = true;
    $("conversation").appendChild(node);
    const turn = { question, raw: null, el: node, graph: null, done: false, display: "", words: wordsFor(question) };
    node.addEventListener("click", (ev) => {
      if (ev.target.closest("a")) return;
      selectTurn(turn);
    });
    state.turns.push(turn);
    selectTurn(turn);
    node.scrollIntoView({ block: "end", behavior: "smooth" });
    return turn;
  }

  function selectTurn(turn) {
    for (const t of state.turns) t.el.classList.toggle("active", t === turn);
    state.active = turn;
    if (turn.graph) graph.show(turn.graph);
    else if (turn.done) graph.clear(turn.words.nothingBehind);
    else graph.clear(turn.words.searching);
  }

  function setStatus(turn, text) {
    turn.el.querySelector(".status").textContent = text;
  }

  function showArm(turn, arm, reason, pureLlm, covered) {
    const badge = turn.el.querySelector(".badge.arm");
    // "uncertain": answered from the pages, which may cover the question only in part.
    badge.textContent = covered === "uncertain" ? `${arm} · ${turn.words.partial}` : arm;
    badge.title = reason || "";
    badge.classList.toggle("pure", !!pureLlm);
    badge.classList.toggle("partial", covered === "uncertain");
    turn.el.querySelector(".purellm-banner").hidden = !pureLlm;
    turn.el.classList.toggle("pure-llm", !!pureLlm);
  }

  /* The answer's own "⚠ Not from your vault" notice (in the question's language) becomes the
   * banner's text, so a pureLLM answer does not show the warning twice. */
  function renderAnswer(turn) {
    const body = turn.el.querySelector(".answer-body");
    window.WikiqMarkdown.render(body, turn.display, linkFor);
    const banner = turn.el.querySelector(".purellm-banner");
    const first = body.firstElementChild;
    if (!banner.hidden && first && first.tagName === "BLOCKQUOTE" && first.textContent.trim().startsWith("⚠")) {
      banner.replaceChildren(...first.childNodes);
      first.remove();
    }
  }

  let renderPending = null;
  function scheduleRender(turn) {
    if (renderPending) return;
    renderPending = requestAnimationFrame(() => {
      renderPending = null;
      renderAnswer(turn);
    });
  }

  function showError(turn, message) {
    const box = turn.el.querySelector(".answer-error");
    box.textContent = message;
    box.hidden = false;
    setStatus(turn, "");
  }

  async function ask(question) {
    const history = state.turns
      .filter((t) => t.done && typeof t.raw === "string")
      .map((t) => ({ question: t.question, answer: t.raw }));
    const turn = newTurn(question);
    const started = performance.now();
    const controller = new AbortController();
    state.controller = controller;
    setBusy(true);
    try {
      const response = await fetch("/api/ask", {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({ question, history }),
        signal: controller.signal,
      });
      if (!response.ok) {
        let message = "The server refused the question (" + response.status + ").";
        try {
          message = (await response.json()).error || message;
        } catch (_) {
          /* not JSON */
        }
        showError(turn, message);
        return;
      }
      await readEvents(response, (event, data) => handleEvent(turn, event, data, started));
      if (!turn.done && !turn.el.querySelector(".answer-error").textContent) {
        showError(turn, "The answer stopped before it was complete.");
      }
    } catch (err) {
      if (err.name === "AbortError") {
        setStatus(turn, "stopped");
        turn.el.classList.add("stopped");
      } else {
        showError(turn, "Could not reach the wikiq server: " + err.message);
      }
    } finally {
      state.controller = null;
      setBusy(false);
    }
  }

  function handleEvent(turn, event, data, started) {
    if (event === "retrieval") {
      showArm(turn, data.arm, data.coverage ? data.coverage.reason : "", data.pure_llm, data.covered);
      setStatus(turn, data.pure_llm ? turn.words.writing : turn.words.found(data.results.length));
      turn.graph = data.graph;
      if (state.active === turn) {
        if (data.graph && data.graph.nodes.length) graph.show(data.graph);
        else graph.clear("No page of your vault matches this question.");
      }
    } else if (event === "token") {
      turn.display += data.text;
      scheduleRender(turn);
    } else if (event === "done") {
      const answer = data.answer || {};
      turn.done = true;
      // `raw_answer` (placeholder form) is what the next question sends back as history.
      turn.raw = typeof answer.raw_answer === "string" ? answer.raw_answer : turn.display;
      turn.display = typeof answer.answer === "string" ? answer.answer : turn.display;
      if (renderPending) {
        cancelAnimationFrame(renderPending);
        renderPending = null;
      }
      const body = turn.el.querySelector(".answer-body");
      renderAnswer(turn);
      fixLinks(body, data.links);
      showExcerpts(turn, data.excerpts);
      const badge = turn.el.querySelector(".badge.arm");
      showArm(turn, answer.arm || badge.textContent, badge.title, answer.pure_llm, answer.covered);
      const modelBadge = turn.el.querySelector(".badge.model");
      modelBadge.hidden = false;
      modelBadge.textContent = answer.extractive ? "no model: quoted from pages" : answer.model || "model";
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const notesCited = (data.cited_notes || []).length;
      const n = (data.cited || []).length - notesCited;
      // A follow-up searched with the question before it says so (the searched text is the
      // badge's tooltip); a not-covered answer names the closest pages the same way.
      const notes = Array.isArray(answer.notes) ? answer.notes : [];
      const searched = notes.find((note) => note.startsWith("Searched together") || note.startsWith("Searched as"));
      const closest = notes.find((note) => note.startsWith("Closest in your vault"));
      if (searched || closest) badge.title = [searched, closest].filter(Boolean).join("\n");
      const how = searched ? turn.words.searchedWith : "";
      setStatus(turn, (answer.pure_llm ? `${seconds} s` : `${turn.words.cited(n, notesCited)} · ${seconds} s`) + how);
      turn.el.classList.add("done");
      // The finished answer may have grown past the fold: bring its end into view.
      if (state.turns[state.turns.length - 1] === turn) turn.el.scrollIntoView({ block: "nearest", behavior: "smooth" });
      if (data.graph) turn.graph = data.graph;
      if (state.active === turn && turn.graph) graph.show(turn.graph);
    } else if (event === "error") {
      showError(turn, data.message || turn.words.wrong);
    }
  }

  /* Server-sent events from a fetch body (EventSource cannot POST). */
  async function readEvents(response, onEvent) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let event = "message";
        const data = [];
        for (const line of block.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          const field = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          if (field === "event") event = value;
          else if (field === "data") data.push(value);
        }
        if (!data.length) continue;
        let parsed;
        try {
          parsed = JSON.parse(data.join("\n"));
        } catch (_) {
          continue;
        }
        onEvent(event, parsed);
      }
    }
  }

  function setBusy(busy) {
    const button = $("ask-button");
    button.textContent = busy ? "Stop" : "Ask";
    button.classList.toggle("busy", busy);
    button.type = busy ? "button" : "submit";
  }

  // ---- page preview ----------------------------------------------------------------------

  async function openPreview(path, { push = true } = {}) {
    const panel = $("preview");
    panel.hidden = false;
    panel.classList.add("loading");
    document.body.classList.add("previewing");
    try {
      const response = await fetch("/api/page?path=" + encodeURIComponent(path));
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || "Could not open the page.");
      if (push) state.previewStack.push(data.path);
      $("preview-back").hidden = state.previewStack.length < 2;
      $("preview-title").textContent = data.title;
      $("preview-type").textContent = data.type || "page";
      $("preview-obsidian").href = data.obsidian_url;
      $("preview-aliases").textContent = data.aliases.length ? "Also: " + data.aliases.join(", ") : "";
      const list = $("preview-fm-list");
      list.replaceChildren();
      for (const [key, value] of Object.entries(data.frontmatter || {})) {
        const dt = document.createElement("dt");
        dt.textContent = key;
        const dd = document.createElement("dd");
        dd.textContent = typeof value === "string" ? value : JSON.stringify(value);
        list.append(dt, dd);
      }
      $("preview-frontmatter").hidden = !list.children.length;
      // Rendered on the server with raw HTML escaped and links allow-listed (render.py).
      $("preview-body").innerHTML = data.html;
      $("preview-truncated").hidden = !data.truncated;
      fillLinks($("preview-out"), data.links_out);
      fillLinks($("preview-in"), data.links_in);
      panel.dataset.path = data.path;
      panel.scrollTop = 0;
      if (window.matchMedia("(max-width: 860px)").matches) panel.scrollIntoView({ block: "start" });
    } catch (err) {
      $("preview-title").textContent = "Page not available";
      $("preview-body").textContent = err.message;
    } finally {
      panel.classList.remove("loading");
    }
  }

  function fillLinks(ul, paths) {
    ul.replaceChildren();
    for (const path of paths || []) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.className = "wikilink";
      a.href = obsidianUrl(path);
      a.dataset.page = path;
      a.textContent = path;
      li.appendChild(a);
      ul.appendChild(li);
    }
    if (!ul.children.length) {
      const li = document.createElement("li");
      li.className = "none";
      li.textContent = "none";
      ul.appendChild(li);
    }
  }

  function closePreview() {
    $("preview").hidden = true;
    state.previewStack = [];
    document.body.classList.remove("previewing");
  }

  // ---- wiring ----------------------------------------------------------------------------

  async function loadInfo() {
    try {
      const response = await fetch("/api/info");
      const info = await response.json();
      if (!response.ok) throw new Error(info.error || response.statusText);
      state.info = info;
      const types = Object.entries(info.by_type)
        .map(([t, n]) => `${n} ${t}`)
        .join(", ");
      const parts = [`${info.name}`, `${info.pages} pages (${types})`];
      if (info.model_error) parts.push(info.model_error);
      else parts.push(info.model ? `answers by ${info.model}` : "no model: answers quote your pages");
      // A background index build says how far it is; the tooltip has the index's whole line.
      if (info.embeddings && info.embeddings.startsWith("building now")) parts.push(info.embeddings.split(";")[0]);
      $("vault-info").textContent = parts.join(" · ");
      $("vault-info").title = info.vault + (info.embeddings ? "\nEmbeddings: " + info.embeddings : "");
      document.title = `wikiq — ${info.name}`;
    } catch (err) {
      $("vault-info").textContent = "Could not read the vault: " + err.message;
    }
  }

  function init() {
    graph = new window.WikiqGraph($("graph"), (path) => openPreview(path));
    loadInfo();
    const form = $("ask-form");
    const input = $("question");
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      if (state.controller) return;
      const question = input.value.trim();
      if (!question) return;
      input.value = "";
      autosize();
      ask(question);
    });
    $("ask-button").addEventListener("click", (ev) => {
      if (state.controller) {
        ev.preventDefault();
        state.controller.abort();
      }
    });
    input.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
        ev.preventDefault();
        form.requestSubmit();
      }
    });
    const autosize = () => {
      input.style.height = "auto";
      input.style.height = Math.min(input.scrollHeight, 160) + "px";
    };
    input.addEventListener("input", autosize);
    document.addEventListener("click", (ev) => {
      const link = ev.target.closest("a.wikilink[data-page]");
      if (!link || ev.ctrlKey || ev.metaKey || ev.shiftKey) return; // modified click: Obsidian
      ev.preventDefault();
      openPreview(link.dataset.page);
    });
    $("preview-close").addEventListener("click", closePreview);
    $("preview-back").addEventListener("click", () => {
      state.previewStack.pop();
      const previous = state.previewStack[state.previewStack.length - 1];
      if (previous) openPreview(previous, { push: false });
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" && !$("preview").hidden) closePreview();
    });
    $("new-chat").addEventListener("click", () => {
      if (state.controller) state.controller.abort();
      for (const t of state.turns) t.el.remove();
      state.turns = [];
      state.active = null;
      $("empty-state").hidden = false;
      graph.clear("Ask a question: the pages its answer stands on appear here.");
      closePreview();
      input.focus();
    });
    input.focus();
  }

  document.addEventListener("DOMContentLoaded", init);
})();
