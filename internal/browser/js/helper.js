// BarrHawk's page helper: selectors, actionability probes, candidates for
// a selector that matched nothing, and the accessibility snapshot with its
// element refs. Installed once per document as window.__bh.
(() => {
  if (window.__bh) return;
  const refs = new Map(); // "e12" -> element
  const refOfEl = new WeakMap(); // element -> "e12"
  let nextRef = 1;
  const { role, visible } = selectors;
  const text = (el) => (el.innerText !== undefined ? el.innerText : el.textContent || '').replace(/\s+/g, ' ').trim();
  // name is the element's accessible name (its hidden content counts only
  // when it is hidden itself).
  const name = (el) => selectors.accessibleName(el, selectors.hiddenForAria(el));

  // actionable matches the elements a user clicks or types into.
  const actionable = 'a[href],button,input:not([type=hidden]),select,textarea,summary,label,[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[onclick],[contenteditable]:not([contenteditable=false]),[tabindex]:not([tabindex="-1"])';

  // refState says why a snapshot ref finds nothing: unknown (no snapshot
  // of this document gave it: another page, or none taken) or gone (its
  // element left the document). Waiting mends neither.
  const refState = (sel) => {
    const m = String(sel).trim().match(/^(?:ref=)?(e\d+)$/);
    if (!m) return undefined;
    const el = refs.get(m[1]);
    if (!el) return 'unknown';
    return el.isConnected ? undefined : 'gone';
  };
  selectors.hooks.ref = (id) => {
    const el = refs.get(id);
    return el && el.isConnected ? el : null;
  };

  // resolve lists the elements sel matches, in document order.
  const resolve = (sel) => selectors.query(String(sel).trim());

  // first is the element an action takes when els holds several: the
  // first visible one (for a selector ending in text, the first a user
  // acts on, or inside one: the button "Sign in" before the heading
  // "Sign in"), else the first. One pass, ending at the first of the best
  // rank there can be.
  const first = (els, byText) => {
    if (els.length < 2) return els[0];
    const top = byText ? 0 : 1;
    let best = els[0], bestRank = 3;
    for (const el of els) {
      const r = visible(el) ? (byText && el.closest(actionable) ? 0 : 1) : 2;
      if (r < bestRank) {
        best = el;
        bestRank = r;
        if (r === top) break;
      }
    }
    return best;
  };
  const byText = (sel) => selectors.endsWithText(String(sel).trim());
  const pick = (sel) => first(resolve(sel), byText(sel));

  // The other ways to find what a selector meant: data-testid, id,
  // aria-label, name and visible text, from the words in it.
  const heal = (sel) => {
    const words = [];
    const add = (w) => { if (w && !words.includes(w)) words.push(w); };
    let m;
    const re = /["']([^"']+)["']|#([\w-]+)|=([\w-]+)\]/g;
    while ((m = re.exec(sel))) add(m[1] || m[2] || m[3]);
    if (!words.length) add(sel.replace(/^(css=|text=|role=|xpath=)/, '').replace(/[^\w -]/g, ' ').trim());
    const tries = [];
    for (const w of words) {
      const q = JSON.stringify(w);
      tries.push('[data-testid=' + q + ']', '[data-test=' + q + ']', '#' + CSS.escape(w), '[aria-label=' + q + ']', '[name=' + q + ']', 'text=' + w);
      const spaced = w.replace(/[-_]+/g, ' ');
      if (spaced !== w) tries.push('[aria-label=' + JSON.stringify(spaced) + ' i]', 'text=' + spaced);
    }
    // Then the same attributes holding the word as a part.
    for (const w of words) {
      const q = JSON.stringify(w);
      tries.push('[data-testid*=' + q + ']', '[id*=' + q + ']', '[aria-label*=' + q + ' i]', '[name*=' + q + ']');
    }
    for (const t of tries) {
      let els;
      try { els = resolve(t); } catch (e) { continue; }
      if (els.length) return { selector: t, els };
    }
    return null;
  };

  const describe = (el) => {
    const tag = el.tagName.toLowerCase();
    const tid = el.getAttribute('data-testid');
    let sel = tag;
    if (el.id) sel = '#' + el.id;
    else if (tid) sel = '[data-testid="' + tid + '"]';
    const n = name(el) || text(el);
    return { selector: sel, tag, role: role(el) || undefined, name: n ? n.slice(0, 60) : undefined };
  };

  const grams = (s) => {
    s = s.toLowerCase().replace(/[^a-z0-9]+/g, ' ');
    const g = new Set();
    for (let i = 0; i + 3 <= s.length; i++) g.add(s.slice(i, i + 3));
    return g;
  };

  const candidates = (sel, limit) => {
    const want = grams(sel.replace(/^(css=|text=|role=|xpath=)/, ''));
    const pool = document.querySelectorAll('a,button,input,select,textarea,label,h1,h2,h3,[role],[data-testid],[id],[aria-label]');
    const scored = [];
    for (const el of pool) {
      if (!visible(el)) continue;
      const d = describe(el);
      const hay = grams([el.id, el.getAttribute('data-testid'), el.getAttribute('aria-label'), el.getAttribute('name'), d.name, el.className && String(el.className)].filter(Boolean).join(' '));
      let common = 0;
      for (const g of want) if (hay.has(g)) common++;
      const score = want.size ? common / want.size : 0;
      scored.push({ score, d });
    }
    scored.sort((a, b) => b.score - a.score);
    const close = scored.filter((s) => s.score > 0).slice(0, limit).map((s) => s.d);
    if (close.length) return close;
    // Nothing alike: the elements a user could act on, in page order.
    const act = [];
    for (const el of document.querySelectorAll('a[href],button,input:not([type=hidden]),select,textarea,[role=button],[role=link],[contenteditable]')) {
      if (act.length >= limit) break;
      if (visible(el)) act.push(Object.assign(describe(el), { unrelated: true }));
    }
    return act;
  };

  // probe reports the first element of sel: how many match, whether it is
  // visible and enabled, and its box (after scrolling it into view when
  // scroll is set). With heal, a selector matching nothing is healed.
  const probe = (sel, opts) => {
    opts = opts || {};
    let els = resolve(sel);
    let matched = sel, textual = byText(sel);
    if (!els.length && opts.heal) {
      const h = heal(sel);
      if (h) { els = h.els; matched = h.selector; textual = h.selector.startsWith('text='); }
    }
    if (!els.length) return { count: 0, ref: refState(sel) };
    let el = first(els, textual);
    // Typing into a label types into its field.
    if (opts.field && el.tagName === 'LABEL' && el.control) el = el.control;
    if (opts.scroll) el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    const r = el.getBoundingClientRect();
    const nm = name(el) || text(el);
    const kind = el.tagName.toLowerCase() + (el.tagName === 'INPUT' ? ' type=' + (el.type || 'text') : '') + (el.readOnly ? ' readonly' : '');
    return {
      count: els.length, matched, visible: visible(el),
      element: kind + (nm ? ' ' + JSON.stringify(nm.length > 60 ? nm.slice(0, 60) + '…' : nm) : ''),
      enabled: !(el.disabled || el.getAttribute('aria-disabled') === 'true'),
      animating: typeof el.getAnimations === 'function' && el.getAnimations({ subtree: false }).some((a) => a.playState === 'running'),
      editable: el.isContentEditable || (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT' && !['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'range', 'color', 'hidden'].includes((el.type || '').toLowerCase())) && !el.readOnly,
      kind,
      x: r.left + r.width / 2, y: r.top + r.height / 2, w: r.width, h: r.height,
      // A snapshot ref, or a selector matching several elements, means
      // nothing in a test file: the generated locator of the element
      // (locator.js) does, computed here to save a round trip.
      locator: (els.length > 1 || /^(?:ref=)?e\d+$/.test(String(sel).trim())) && window.__bh.locator ? window.__bh.locator(el) : undefined,
    };
  };

  // The accessibility snapshot: one line per element that matters to a
  // user, indented by nesting, each with a ref usable as a selector.
  // utf8 is the length of s in UTF-8 bytes (the cap counts bytes, as the
  // result bound does).
  const utf8 = (s) => {
    let n = s.length;
    for (let i = 0; i < s.length; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7ff) n += c >= 0xd800 && c <= 0xdbff ? 0 : 2; else if (c > 0x7f) n++;
    }
    return n;
  };
  const refOf = (el) => {
    let k = refOfEl.get(el);
    if (k && refs.get(k) === el) return k;
    k = 'e' + nextRef++;
    refs.set(k, el);
    refOfEl.set(el, k);
    return k;
  };
  // Forget refs of elements gone from the document.
  const pruneRefs = () => {
    for (const [k, el] of refs) if (!el.isConnected) refs.delete(k);
  };
  const skipTags = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
  const leafRoles = new Set(['button', 'link', 'heading', 'option', 'img', 'textbox', 'searchbox', 'spinbutton', 'checkbox', 'radio', 'slider', 'switch', 'menuitem', 'tab']);

  // The accessibility snapshot: one line per element that matters to a
  // user, indented by nesting, each with a ref usable as a selector, and
  // the text between them. At most maxBytes (UTF-8) long.
  const snapshot = (rootSel, includeHidden, maxBytes) => selectors.withMemo(() => snapshotOf(rootSel, includeHidden, maxBytes));
  const snapshotOf = (rootSel, includeHidden, maxBytes) => {
    const root = rootSel ? pick(rootSel) : document.body;
    if (!root) return { error: 'no element matches ' + JSON.stringify(rootSel) };
    pruneRefs();
    const lines = [];
    let bytes = 0, cut = false, count = 0;
    const push = (s) => {
      if (cut) return;
      const n = utf8(s) + 1;
      if (bytes + n > maxBytes) { cut = true; return; }
      lines.push(s); bytes += n;
    };
    const pushText = (depth, t) => {
      t = t.replace(/\s+/g, ' ').trim();
      if (t) { push('  '.repeat(depth) + '- text ' + JSON.stringify(t.length > 200 ? t.slice(0, 200) + '…' : t)); count++; }
    };
    const shown = (el) => includeHidden || visible(el) || selectors.style(el).display === 'contents';
    // inlineText is the text of an element with no role and no element
    // children (a <b>, a <span>): it joins the text around it.
    const inlineText = (el) => {
      if (el.children.length || skipTags.has(el.tagName) || role(el)) return null;
      const d = selectors.style(el).display;
      if (d !== 'inline' && d !== 'inline-block') return null;
      return shown(el) ? el.textContent : '';
    };
    const walk = (el, depth) => {
      if (cut || skipTags.has(el.tagName)) return;
      if (el !== root && !shown(el)) return;
      if (el.getAttribute('aria-hidden') === 'true' && !includeHidden) return;
      const r = role(el);
      let next = depth;
      if (r && r !== 'presentation' && r !== 'none' && r !== 'generic') {
        const n = name(el);
        let line = '  '.repeat(depth) + '- ' + r + (n ? ' ' + JSON.stringify(n.length > 120 ? n.slice(0, 120) + '…' : n) : '');
        if (r === 'heading') line += ' [level=' + (el.getAttribute('aria-level') || el.tagName.slice(1)) + ']';
        if (el.type === 'checkbox' || el.type === 'radio') line += el.checked ? ' [checked]' : '';
        if (el.getAttribute('aria-checked') === 'true') line += ' [checked]';
        if (el.getAttribute('aria-expanded')) line += ' [expanded=' + el.getAttribute('aria-expanded') + ']';
        if (el.disabled || el.getAttribute('aria-disabled') === 'true') line += ' [disabled]';
        if (el.required) line += ' [required]';
        if (['textbox', 'searchbox', 'combobox', 'spinbutton'].includes(r) && el.tagName !== 'SELECT') {
          const v = el.isContentEditable ? text(el) : el.value;
          if (v && el.type !== 'password') line += ' value=' + JSON.stringify(String(v).slice(0, 80));
        }
        if (r === 'link' && el.getAttribute('href')) line += ' href=' + JSON.stringify(el.getAttribute('href').slice(0, 120));
        line += ' [ref=' + refOf(el) + ']';
        push(line);
        count++;
        next = depth + 1;
        if (el.tagName === 'SELECT') {
          // The options of a closed select have no box: list them anyway.
          let i = 0;
          for (const o of el.options) {
            if (i++ >= 50) { push('  '.repeat(next) + '- text "… ' + (el.options.length - 50) + ' more options"'); break; }
            push('  '.repeat(next) + '- option ' + JSON.stringify(o.text.trim().slice(0, 80)) + (o.selected ? ' [selected]' : '') + ' [ref=' + refOf(o) + ']');
            count++;
          }
          return;
        }
        if (leafRoles.has(r)) return;
      }
      let buf = '';
      for (const c of el.childNodes) {
        if (cut) return;
        if (c.nodeType === 3) { buf += c.textContent; continue; }
        if (c.nodeType !== 1) continue;
        const t = inlineText(c);
        if (t !== null) { buf += t; continue; }
        pushText(next, buf); buf = '';
        walk(c, next);
        if (c.shadowRoot) for (const sc of c.shadowRoot.children) walk(sc, next);
      }
      pushText(next, buf);
    };
    walk(root, 0);
    return { text: lines.join('\n'), cut, elements: count };
  };

  window.__bh = { resolve, pick, probe, heal, candidates, snapshot, name, role, visible, text, describe };
})();
