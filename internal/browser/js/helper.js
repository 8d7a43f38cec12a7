// BarrHawk's page helper: selectors, actionability probes, candidates for
// a selector that matched nothing, and the accessibility snapshot with its
// element refs. Installed once per document as window.__bh.
(() => {
  if (window.__bh) return;
  const refs = new Map(); // "e12" -> element
  const refOfEl = new WeakMap(); // element -> "e12"
  let nextRef = 1;
  // SelectorError is a selector that cannot be read: its message is
  // shown to the user as it is (no stack).
  class SelectorError extends Error {}
  SelectorError.prototype.name = 'SelectorError';

  const implicitRole = (el) => {
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute('type') || '').toLowerCase();
    switch (tag) {
      case 'a': return el.hasAttribute('href') ? 'link' : null;
      case 'button': return 'button';
      case 'input':
        if (['button', 'submit', 'reset', 'image'].includes(type)) return 'button';
        if (type === 'checkbox') return 'checkbox';
        if (type === 'radio') return 'radio';
        if (type === 'range') return 'slider';
        if (type === 'hidden') return null;
        if (type === 'search') return 'searchbox';
        if (type === 'number') return 'spinbutton';
        if (type === 'file' || type === 'color') return 'button';
        return 'textbox';
      case 'textarea': return 'textbox';
      case 'select': return el.multiple ? 'listbox' : 'combobox';
      case 'option': return 'option';
      case 'img': return el.getAttribute('alt') === '' ? 'presentation' : 'img';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'ul': case 'ol': return 'list';
      case 'li': return 'listitem';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'header': return 'banner';
      case 'footer': return 'contentinfo';
      case 'aside': return 'complementary';
      case 'form': return 'form';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return 'columnheader';
      case 'dialog': return 'dialog';
      case 'label': return null;
      case 'p': return 'paragraph';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : null;
    }
    if (el.isContentEditable && el.hasAttribute('contenteditable')) return 'textbox';
    return null;
  };
  const role = (el) => (el.getAttribute('role') || '').trim().split(/\s+/)[0] || implicitRole(el);

  const text = (el) => (el.innerText !== undefined ? el.innerText : el.textContent || '').replace(/\s+/g, ' ').trim();
  const name = (el) => {
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const t = by.split(/\s+/).map((id) => document.getElementById(id)).filter(Boolean).map(text).join(' ');
      if (t) return t;
    }
    const aria = el.getAttribute('aria-label');
    if (aria && aria.trim()) return aria.trim();
    const tag = el.tagName.toLowerCase();
    if (['input', 'select', 'textarea'].includes(tag)) {
      if (el.id) {
        const l = document.querySelector('label[for="' + CSS.escape(el.id) + '"]');
        if (l && text(l)) return text(l);
      }
      const wrap = el.closest('label');
      if (wrap && text(wrap)) return text(wrap);
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type)) return el.value || (type === 'submit' ? 'Submit' : '');
      if (el.getAttribute('placeholder')) return el.getAttribute('placeholder');
      if (type === 'file') return el.getAttribute('title') || (el.multiple ? 'Choose Files' : 'Choose File');
      return el.getAttribute('title') || '';
    }
    if (tag === 'img') return el.getAttribute('alt') || el.getAttribute('title') || '';
    if (['button', 'a', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'option', 'td', 'th', 'label', 'summary'].includes(tag) || ['button', 'link', 'tab', 'menuitem', 'heading', 'option', 'cell'].includes(role(el))) {
      const t = text(el);
      if (t) return t;
    }
    return el.getAttribute('title') || '';
  };

  const visible = (el) => {
    if (!el.isConnected) return false;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || st.display === 'none' || Number(st.opacity) === 0) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };

  const unquote = (s) => {
    s = s.trim();
    if ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))) return { v: s.slice(1, -1), exact: true };
    return { v: s, exact: false };
  };

  // actionable matches the elements a user clicks or types into.
  const actionable = 'a[href],button,input:not([type=hidden]),select,textarea,summary,label,[role=button],[role=link],[role=checkbox],[role=radio],[role=switch],[role=tab],[role=menuitem],[role=option],[onclick],[contenteditable]:not([contenteditable=false]),[tabindex]:not([tabindex="-1"])';

  const byText = (t) => {
    const { v, exact } = unquote(t);
    const want = v.replace(/\s+/g, ' ').trim().toLowerCase();
    const match = (s) => (exact ? s.toLowerCase() === want : s.toLowerCase().includes(want));
    const out = [];
    for (const el of document.body ? document.body.querySelectorAll('*') : []) {
      if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) continue;
      const own = el.tagName === 'INPUT' && ['button', 'submit', 'reset'].includes((el.type || '').toLowerCase()) ? el.value : text(el);
      if (!match(own || '')) continue;
      // The deepest element holding the text: no child holds it too.
      let child = false;
      for (const c of el.children) if (match(text(c))) { child = true; break; }
      if (!child) out.push(el);
    }
    // text= names what a user sees, and the heading "Sign in" is seen
    // before the button "Sign in": the visible elements a user acts on
    // (or inside one) come first, then the other visible ones, then the
    // rest, each in page order.
    if (out.length < 2) return out;
    const rank = (el) => (visible(el) ? (el.closest(actionable) ? 0 : 1) : 2);
    return out.map((el, i) => ({ el, i, r: rank(el) })).sort((a, b) => a.r - b.r || a.i - b.i).map((x) => x.el);
  };

  const byRole = (spec) => {
    const m = spec.match(/^([a-z]+)\s*(?:\[\s*name\s*=\s*(.+?)\s*\])?$/i);
    if (!m) {
      let why = '';
      if (!/^[a-z]/i.test(spec.trim())) why = 'the role is missing; ';
      else if (spec.includes('[') && !spec.trim().endsWith(']')) why = 'the [ is not closed; ';
      else if (spec.includes('[') && !/\[\s*name\s*=/i.test(spec)) why = 'only name is taken inside [...]; ';
      throw new SelectorError(why + 'a role selector is role=ROLE or role=ROLE[name="Accessible name"], as role=button or role=button[name="Save"]');
    }
    const want = m[1].toLowerCase();
    const nm = m[2] ? unquote(m[2]) : null;
    return [...document.querySelectorAll('*')].filter((el) => {
      if (role(el) !== want) return false;
      if (!nm) return true;
      const n = name(el).toLowerCase();
      return nm.exact ? n === nm.v.toLowerCase() : n.includes(nm.v.toLowerCase());
    });
  };

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

  const resolve = (sel) => {
    sel = String(sel).trim();
    let m;
    if ((m = sel.match(/^(?:ref=)?(e\d+)$/))) {
      const el = refs.get(m[1]);
      return el && el.isConnected ? [el] : [];
    }
    if (sel.startsWith('text=')) return byText(sel.slice(5));
    if (sel.startsWith('role=')) return byRole(sel.slice(5));
    if (sel.startsWith('xpath=') || sel.startsWith('//') || sel.startsWith('(//')) {
      const x = sel.startsWith('xpath=') ? sel.slice(6) : sel;
      let r;
      try {
        r = document.evaluate(x, document, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      } catch (e) {
        throw new SelectorError('not a valid XPath expression; an XPath selector is as xpath=//form//button[@type="submit"]');
      }
      const out = [];
      for (let i = 0; i < r.snapshotLength; i++) if (r.snapshotItem(i).nodeType === 1) out.push(r.snapshotItem(i));
      return out;
    }
    if (sel.startsWith('css=')) sel = sel.slice(4);
    try {
      return [...document.querySelectorAll(sel)];
    } catch (e) {
      let hint = '';
      if (sel.includes('>>')) hint = '; chaining with >> is not supported: give one CSS selector (form button), or text=, role= or xpath=';
      else if (/^[a-z]+=/i.test(sel)) hint = '; the prefixes are css=, text=, role= and xpath=';
      throw new SelectorError('not a valid CSS selector' + hint);
    }
  };

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
    let matched = sel;
    if (!els.length && opts.heal) {
      const h = heal(sel);
      if (h) { els = h.els; matched = h.selector; }
    }
    if (!els.length) return { count: 0, ref: refState(sel) };
    let el = els[0];
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
  const snapshot = (rootSel, includeHidden, maxBytes) => {
    const root = rootSel ? resolve(rootSel)[0] : document.body;
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
    const shown = (el) => includeHidden || visible(el) || getComputedStyle(el).display === 'contents';
    // inlineText is the text of an element with no role and no element
    // children (a <b>, a <span>): it joins the text around it.
    const inlineText = (el) => {
      if (el.children.length || skipTags.has(el.tagName) || role(el)) return null;
      const d = getComputedStyle(el).display;
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

  window.__bh = { resolve, probe, heal, candidates, snapshot, name, role, visible, text, describe };
})();
