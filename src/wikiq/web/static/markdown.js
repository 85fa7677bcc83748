/* Answer Markdown to DOM, built node by node: no HTML string from an answer is ever parsed.
 *
 * Answers are written by a model that read untrusted pages, so text only ever becomes text
 * nodes. Supported: headings, paragraphs, bullet and numbered lists, block quotes, fenced
 * code, `code`, **bold**, *italic*, and Obsidian [[target|label]] links (made by `linkFor`).
 */
(function () {
  "use strict";

  // Underscores count only at word edges (snake_case and __dunder__ names stay as written).
  const INLINE =
    /(`[^`\n]+`)|(\[\[[^\[\]\n]+?\]\])|(\*\*[^*\n]+?\*\*)|((?<!\w)__[^_\n]+?__(?!\w))|(\*[^*\s][^*\n]*?\*)|((?<!\w)_[^_\s][^_\n]*?_(?!\w))/g;

  function el(tag, cls) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    return node;
  }

  function parseWikiLink(raw) {
    const inner = raw.slice(2, -2);
    const bar = inner.indexOf("|");
    const target = (bar >= 0 ? inner.slice(0, bar) : inner).trim();
    const label = (bar >= 0 ? inner.slice(bar + 1) : inner).trim();
    return { target: target.split("#")[0].trim(), label: label || target };
  }

  function inline(parent, text, linkFor) {
    let last = 0;
    INLINE.lastIndex = 0;
    let m;
    while ((m = INLINE.exec(text)) !== null) {
      if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
      const tok = m[0];
      if (m[1]) {
        const code = el("code");
        code.textContent = tok.slice(1, -1);
        parent.appendChild(code);
      } else if (m[2]) {
        const link = parseWikiLink(tok);
        parent.appendChild(linkFor(link.target, link.label));
      } else if (m[3] || m[4]) {
        const strong = el("strong");
        inline(strong, tok.slice(2, -2), linkFor);
        parent.appendChild(strong);
      } else {
        const em = el("em");
        inline(em, tok.slice(1, -1), linkFor);
        parent.appendChild(em);
      }
      last = m.index + tok.length;
      INLINE.lastIndex = last;
    }
    if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  }

  /* Replace `container`'s children with the rendered `text`. */
  function render(container, text, linkFor) {
    const frag = document.createDocumentFragment();
    const lines = text.replace(/\r\n?/g, "\n").split("\n");
    let para = null;
    let list = null;
    let quote = null;
    let fence = null;

    const closeBlocks = () => {
      para = null;
      list = null;
      quote = null;
    };

    for (const line of lines) {
      if (fence) {
        if (/^\s*(```|~~~)/.test(line)) {
          fence = null;
        } else {
          fence.textContent += line + "\n";
        }
        continue;
      }
      if (/^\s*(```|~~~)/.test(line)) {
        closeBlocks();
        const pre = el("pre");
        fence = el("code");
        pre.appendChild(fence);
        frag.appendChild(pre);
        continue;
      }
      if (!line.trim()) {
        closeBlocks();
        continue;
      }
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      if (heading) {
        closeBlocks();
        const level = Math.min(6, heading[1].length + 2); // an answer's "#" sits under the page's own headings
        const h = el("h" + level);
        inline(h, heading[2].replace(/\s+#+\s*$/, ""), linkFor);
        frag.appendChild(h);
        continue;
      }
      const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
      const numbered = /^\s*(\d+)[.)]\s+(.*)$/.exec(line);
      if (bullet || numbered) {
        const tag = bullet ? "UL" : "OL";
        if (!list || list.tagName !== tag) {
          para = null;
          quote = null;
          list = el(tag.toLowerCase());
          if (numbered && numbered[1] !== "1") list.start = Number(numbered[1]);
          frag.appendChild(list);
        }
        const li = el("li");
        inline(li, bullet ? bullet[1] : numbered[2], linkFor);
        list.appendChild(li);
        continue;
      }
      const quoted = /^\s*>\s?(.*)$/.exec(line);
      if (quoted) {
        if (!quote) {
          closeBlocks();
          quote = el("blockquote");
          frag.appendChild(quote);
        } else {
          quote.appendChild(document.createTextNode(" "));
        }
        inline(quote, quoted[1], linkFor);
        continue;
      }
      if (list && /^\s{2,}\S/.test(line)) {
        // a continuation line of the last list item
        const li = list.lastChild;
        li.appendChild(document.createTextNode(" "));
        inline(li, line.trim(), linkFor);
        continue;
      }
      list = null;
      quote = null;
      if (!para) {
        para = el("p");
        frag.appendChild(para);
      } else {
        para.appendChild(el("br"));
      }
      inline(para, line, linkFor);
    }
    container.replaceChildren(frag);
  }

  /* Every [[target]] written in `text`, in order, without duplicates. */
  function wikiTargets(text) {
    const out = [];
    const re = /\[\[[^\[\]\n]+?\]\]/g;
    let m;
    while ((m = re.exec(text)) !== null) {
      const t = parseWikiLink(m[0]).target;
      if (t && !out.includes(t)) out.push(t);
    }
    return out;
  }

  window.WikiqMarkdown = { render, wikiTargets };
})();
