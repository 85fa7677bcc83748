/* The graph view: pages behind an answer as an SVG force layout, in plain JS.
 *
 * Nodes are sized by score (`weight`), coloured by role (cited, found, nearby) and clickable.
 * The layout is computed up front (a few hundred steps of springs, repulsion and gravity),
 * seeded from each page's path so the same answer draws the same picture. Pages already on
 * screen keep their place when the graph is updated (the answer's citations arrive last).
 */
(function () {
  "use strict";

  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 640;
  const HEIGHT = 440;

  function hash(text) {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    return (h >>> 0) / 4294967296;
  }

  function radius(node) {
    return 7 + 17 * Math.sqrt(Math.max(0, Math.min(1, node.weight || 0)));
  }

  function shorten(text, max) {
    return text.length > max ? text.slice(0, max - 1) + "…" : text;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
    return node;
  }

  class Graph {
    constructor(container, onSelect) {
      this.container = container;
      this.onSelect = onSelect;
      this.positions = new Map();
    }

    clear(message) {
      this.positions.clear();
      const p = document.createElement("p");
      p.className = "graph-empty";
      p.textContent = message;
      this.container.replaceChildren(p);
    }

    show(graph) {
      const nodes = (graph && graph.nodes) || [];
      if (!nodes.length) {
        this.clear("No page of your vault is behind this answer.");
        return;
      }
      const byPath = new Map(nodes.map((n) => [n.path, n]));
      const edges = ((graph && graph.edges) || []).filter(
        (e) => byPath.has(e.source) && byPath.has(e.target) && e.source !== e.target
      );
      this.layout(nodes, edges);
      this.draw(nodes, edges);
    }

    layout(nodes, edges) {
      const cx = WIDTH / 2;
      const cy = HEIGHT / 2;
      const pos = new Map();
      const fresh = [];
      for (const n of nodes) {
        const old = this.positions.get(n.path);
        if (old) {
          pos.set(n.path, { x: old.x, y: old.y, vx: 0, vy: 0 });
        } else {
          const a = hash(n.path) * Math.PI * 2;
          const r = 60 + 140 * (1 - Math.min(1, n.weight || 0)) + 30 * hash(n.path + "r");
          pos.set(n.path, { x: cx + r * Math.cos(a), y: cy + r * Math.sin(a), vx: 0, vy: 0 });
          fresh.push(n.path);
        }
      }
      // Only a layout with new pages needs to move; a re-draw with the same pages stays put.
      const steps = fresh.length ? 400 : 0;
      const list = nodes.map((n) => ({
        n,
        p: pos.get(n.path),
        r: radius(n),
        lw: 3.2 * shorten(n.title, 24).length, // half a label's width at 11px
      }));
      // Dense neighbourhoods (every page links every other) would collapse into a ball.
      const springK = 0.02 / Math.max(1, Math.sqrt(edges.length / Math.max(1, nodes.length)));
      for (let step = 0; step < steps; step++) {
        const alpha = 1 - step / steps;
        for (let i = 0; i < list.length; i++) {
          const a = list[i];
          for (let j = i + 1; j < list.length; j++) {
            const b = list[j];
            let dx = b.p.x - a.p.x;
            let dy = b.p.y - a.p.y;
            let d2 = dx * dx + dy * dy;
            if (d2 < 0.01) {
              dx = 0.1;
              dy = 0.1;
              d2 = 0.02;
            }
            const d = Math.sqrt(d2);
            const minGap = a.r + b.r + 34;
            let f = 7000 / d2;
            if (d < minGap) f += (minGap - d) * 0.6;
            const fx = (dx / d) * f * alpha;
            const fy = (dy / d) * f * alpha;
            a.p.vx -= fx;
            a.p.vy -= fy;
            b.p.vx += fx;
            b.p.vy += fy;
            // Labels sit under their discs: two labels on one line must not overlap.
            const gapY = b.p.y + b.r - (a.p.y + a.r);
            const overlapX = a.lw + b.lw - Math.abs(dx);
            if (Math.abs(gapY) < 15 && overlapX > 0) {
              const push = (15 - Math.abs(gapY)) * 0.25 * alpha * (gapY >= 0 ? 1 : -1);
              a.p.vy -= push;
              b.p.vy += push;
            }
          }
        }
        for (const e of edges) {
          const a = pos.get(e.source);
          const b = pos.get(e.target);
          const dx = b.x - a.x;
          const dy = b.y - a.y;
          const d = Math.sqrt(dx * dx + dy * dy) || 1;
          const f = (d - 130) * springK * alpha;
          a.vx += (dx / d) * f;
          a.vy += (dy / d) * f;
          b.vx -= (dx / d) * f;
          b.vy -= (dy / d) * f;
        }
        for (const item of list) {
          const p = item.p;
          const pull = 0.006 + 0.012 * (item.n.weight || 0);
          p.vx += (cx - p.x) * pull * alpha;
          p.vy += (cy - p.y) * pull * alpha;
          p.vx *= 0.6;
          p.vy *= 0.6;
          p.x += Math.max(-20, Math.min(20, p.vx));
          p.y += Math.max(-20, Math.min(20, p.vy));
        }
      }
      this.positions = new Map([...pos].map(([k, p]) => [k, { x: p.x, y: p.y }]));
    }

    draw(nodes, edges) {
      let minX = Infinity;
      let minY = Infinity;
      let maxX = -Infinity;
      let maxY = -Infinity;
      for (const n of nodes) {
        const p = this.positions.get(n.path);
        const r = radius(n);
        minX = Math.min(minX, p.x - r - 70);
        maxX = Math.max(maxX, p.x + r + 70);
        minY = Math.min(minY, p.y - r - 10);
        maxY = Math.max(maxY, p.y + r + 24);
      }
      // A graph of one or two pages should not fill the panel with giant discs.
      const minW = 420;
      const minH = 260;
      if (maxX - minX < minW) {
        const mid = (minX + maxX) / 2;
        minX = mid - minW / 2;
        maxX = mid + minW / 2;
      }
      if (maxY - minY < minH) {
        const mid = (minY + maxY) / 2;
        minY = mid - minH / 2;
        maxY = mid + minH / 2;
      }
      const root = svg("svg", {
        viewBox: `${minX.toFixed(1)} ${minY.toFixed(1)} ${(maxX - minX).toFixed(1)} ${(maxY - minY).toFixed(1)}`,
        preserveAspectRatio: "xMidYMid meet",
        class: "graph-svg",
      });
      const edgeLayer = svg("g", { class: "edges" });
      const nodeLayer = svg("g", { class: "nodes" });
      root.appendChild(edgeLayer);
      root.appendChild(nodeLayer);
      const byPath = new Map(nodes.map((n) => [n.path, n]));
      const lines = [];
      for (const e of edges) {
        const a = this.positions.get(e.source);
        const b = this.positions.get(e.target);
        const lit = byPath.get(e.source).cited && byPath.get(e.target).cited;
        const line = svg("line", {
          x1: a.x.toFixed(1),
          y1: a.y.toFixed(1),
          x2: b.x.toFixed(1),
          y2: b.y.toFixed(1),
          class: lit ? "edge lit" : "edge",
          "data-source": e.source,
          "data-target": e.target,
        });
        lines.push(line);
        edgeLayer.appendChild(line);
      }
      // Draw small nodes first so big (relevant) ones sit on top.
      const ordered = [...nodes].sort((a, b) => (a.weight || 0) - (b.weight || 0));
      for (const n of ordered) {
        const p = this.positions.get(n.path);
        const r = radius(n);
        const role = n.cited ? "cited" : n.role === "neighbour" ? "neighbour" : "result";
        const g = svg("g", {
          class: `node ${role} type-${(n.type || "page").replace(/[^a-z0-9-]/gi, "")}`,
          transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`,
          tabindex: "0",
          role: "button",
          "data-path": n.path,
          "aria-label": `${n.title} (${role === "neighbour" ? "nearby" : role})`,
        });
        const tip = svg("title");
        tip.textContent = `${n.title} — ${n.path}` + (n.cited ? " (cited)" : "");
        g.appendChild(tip);
        if (n.cited) g.appendChild(svg("circle", { r: (r + 5).toFixed(1), class: "halo" }));
        g.appendChild(svg("circle", { r: r.toFixed(1), class: "disc" }));
        const label = svg("text", { y: (r + 13).toFixed(1), "text-anchor": "middle", class: "label" });
        label.textContent = shorten(n.title, 24);
        g.appendChild(label);
        const select = () => this.onSelect(n.path);
        g.addEventListener("click", select);
        g.addEventListener("keydown", (ev) => {
          if (ev.key === "Enter" || ev.key === " ") {
            ev.preventDefault();
            select();
          }
        });
        g.addEventListener("mouseenter", () => {
          for (const l of lines) {
            if (l.dataset.source === n.path || l.dataset.target === n.path) l.classList.add("hover");
          }
        });
        g.addEventListener("mouseleave", () => {
          for (const l of lines) l.classList.remove("hover");
        });
        nodeLayer.appendChild(g);
      }
      this.container.replaceChildren(root);
    }
  }

  window.WikiqGraph = Graph;
})();
