// BarrHawk's locator generator: for one element, the locator Playwright's
// generator would write, as Playwright code (getByRole('button', { name:
// 'Save' })) and as a selector of Playwright's language that the engine
// above reads (internal:role=button[name="Save"i]). It follows the helper
// (helper.js) in the same function body and adds window.__bh.locator.
//
// The kinds are tried in this order, each loose first and then exact:
// role and accessible name, label, placeholder, alt text, title, test id,
// text; then CSS #id, the role alone and CSS (tag[name], tag). The first that
// matches the element alone wins. When none does, the element is looked
// for inside an ancestor (a test id, role and name, or role or tag with
// the ancestor's text, as getByRole('listitem').filter({ hasText: 'Buy
// milk' }).getByRole('checkbox')); when that fails too, the first kind
// that matches it is narrowed with nth.
(() => {
  const bh = window.__bh;
  if (!bh || bh.locator) return;
  const { role, accessibleName, query, withMemo } = selectors;
  const norm = (s) => String(s || '').replace(/\u200b/g, '').trim().replace(/\s+/g, ' ');
  const testIdAttr = () => (typeof window.__bhTestIdAttribute === 'string' && window.__bhTestIdAttribute) || 'data-testid';

  // js quotes s as a JavaScript string in single quotes, as Playwright's
  // code generator does.
  const js = (s) => "'" + s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029') + "'";
  // attr and txt quote a value in a selector as Playwright's escapers do
  // (escapeForAttributeSelector, escapeForTextSelector): i loose, s exact.
  const attr = (s, exact) => '"' + s.replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"' + (exact ? 's' : 'i');
  const txt = (s, exact) => JSON.stringify(s) + (exact ? 's' : 'i');
  const exactOpt = (exact) => (exact ? ', { exact: true }' : '');

  // A token is one part of a locator: its selector and its code.
  const roleTok = (r, name, exact) => name
    ? { sel: 'internal:role=' + r + '[name=' + attr(name, exact) + ']', code: 'getByRole(' + js(r) + ', { name: ' + js(name) + (exact ? ', exact: true' : '') + ' })' }
    : { sel: 'internal:role=' + r, code: 'getByRole(' + js(r) + ')' };
  const labelTok = (s, exact) => ({ sel: 'internal:label=' + txt(s, exact), code: 'getByLabel(' + js(s) + exactOpt(exact) + ')' });
  const attrTok = (a, method) => (s, exact) => ({ sel: 'internal:attr=[' + a + '=' + attr(s, exact) + ']', code: method + '(' + js(s) + exactOpt(exact) + ')' });
  const placeholderTok = attrTok('placeholder', 'getByPlaceholder');
  const altTok = attrTok('alt', 'getByAltText');
  const titleTok = attrTok('title', 'getByTitle');
  const testIdTok = (s) => ({ sel: 'internal:testid=[' + testIdAttr() + '=' + attr(s, true) + ']', code: 'getByTestId(' + js(s) + ')' });
  const textTok = (s, exact) => ({ sel: 'internal:text=' + txt(s, exact), code: 'getByText(' + js(s) + exactOpt(exact) + ')' });
  const hasTextTok = (s) => ({ sel: 'internal:has-text=' + txt(s, false), code: 'filter({ hasText: ' + js(s) + ' })' });
  const cssTok = (s) => ({ sel: s, code: 'locator(' + js(s) + ')' });
  const nthTok = (i) => ({ sel: 'nth=' + i, code: i === 0 ? 'first()' : 'nth(' + i + ')' });

  // textOf is the element's text as Playwright's text engines read it:
  // every text node under it, shadow roots included, scripts and styles
  // left out; an input button's value.
  const textOf = (el) => {
    if (el.tagName === 'INPUT') return ['submit', 'button'].includes((el.type || '').toLowerCase()) ? norm(el.value) : '';
    let s = '';
    const walk = (n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) s += c.data;
        else if (c.nodeType === 1 && !['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(c.nodeName)) {
          walk(c);
          if (c.shadowRoot) walk(c.shadowRoot);
        }
      }
    };
    walk(el);
    if (el.shadowRoot) walk(el.shadowRoot);
    return norm(s);
  };
  // short cuts a long text at a word, for a filter by text.
  const short = (s) => {
    if (s.length <= 80) return s;
    const cut = s.slice(0, 50);
    const sp = cut.lastIndexOf(' ');
    return sp > 20 ? cut.slice(0, sp) : cut;
  };
  const cssId = (el) => (el.id && !/^\d/.test(el.id) && el.getRootNode() === document ? '#' + CSS.escape(el.id) : '');
  const tag = (el) => CSS.escape(el.localName);
  const meaningful = (r) => r && !['presentation', 'none', 'generic'].includes(r);

  // kinds lists the element's candidate locators in the order of
  // preference, each one [kind, token].
  const kinds = (el) => {
    const out = [];
    const both = (kind, make, v) => {
      if (v) out.push([kind, make(v, false)], [kind, make(v, true)]);
    };
    const r = role(el);
    if (meaningful(r)) both('role', (n, exact) => roleTok(r, n, exact), accessibleName(el, false));
    if (el.labels && el.labels.length) both('label', labelTok, norm(el.labels[0].textContent));
    if (['INPUT', 'TEXTAREA'].includes(el.tagName)) both('placeholder', placeholderTok, norm(el.getAttribute('placeholder')));
    if (['IMG', 'INPUT', 'AREA'].includes(el.tagName)) both('alt', altTok, norm(el.getAttribute('alt')));
    both('title', titleTok, norm(el.getAttribute('title')));
    const tid = el.getAttribute(testIdAttr());
    if (tid) out.push(['testid', testIdTok(tid)]);
    if (el.tagName !== 'SELECT') {
      const t = textOf(el);
      if (t && t.length <= 80) both('text', textTok, t);
    }
    // An id before the role alone, as Playwright scores them.
    const id = cssId(el);
    if (id) out.push(['css', cssTok(id)]);
    if (meaningful(r)) {
      // A role with no name, told apart by its text (a list item).
      const t = textOf(el);
      if (t && !accessibleName(el, false)) out.push(['role', [roleTok(r, '', false), hasTextTok(short(t))]]);
      out.push(['role', roleTok(r, '', false)]);
    }
    const nm = el.getAttribute('name');
    if (nm && ['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON'].includes(el.tagName)) out.push(['css', cssTok(tag(el) + '[name=' + JSON.stringify(nm) + ']')]);
    if (el.tagName === 'INPUT' && el.getAttribute('type')) out.push(['css', cssTok('input[type=' + JSON.stringify(el.getAttribute('type')) + ']')]);
    out.push(['css', cssTok(tag(el))]);
    if (el.classList && el.classList.length) out.push(['css', cssTok(tag(el) + [...el.classList].map((c) => '.' + CSS.escape(c)).join(''))]);
    return out;
  };
  // scopes lists the ways to name an ancestor to look inside, each
  // [rank, tokens]: its test id (0), role and name (1), role and text (2),
  // id (3), tag and text (4).
  const scopes = (el) => {
    const out = [];
    const tid = el.getAttribute(testIdAttr());
    if (tid) out.push([0, [testIdTok(tid)]]);
    const r = role(el);
    const t = textOf(el);
    if (meaningful(r)) {
      const n = accessibleName(el, false);
      if (n && n.length <= 80) out.push([1, [roleTok(r, n, false)]]);
      if (t) out.push([2, [roleTok(r, '', false), hasTextTok(short(t))]]);
    }
    const id = cssId(el);
    if (id) out.push([3, [cssTok(id)]]);
    if (t && !meaningful(r)) out.push([4, [cssTok(tag(el)), hasTextTok(short(t))]]);
    return out;
  };

  const selOf = (toks) => toks.map((t) => t.sel).join(' >> ');
  const codeOf = (toks) => toks.map((t) => t.code).join('.');
  const matches = (toks) => {
    try {
      return query(selOf(toks));
    } catch (e) {
      return [];
    }
  };
  const result = (el, kind, toks) => {
    const n = matches(toks).length;
    return { kind, selector: selOf(toks), code: codeOf(toks), count: n, unique: n === 1 };
  };

  // generate answers {kind, selector, code, count, unique} for el.
  const generate = (el) => withMemo(() => {
    const own = kinds(el);
    const found = [];
    for (const [kind, tok] of own) {
      const toks = Array.isArray(tok) ? tok : [tok];
      const m = matches(toks);
      if (m.includes(el)) {
        if (m.length === 1) return result(el, kind, toks);
        found.push([kind, toks, m]);
      }
    }
    // Inside an ancestor: the best way to name one first, the nearest
    // first among equals.
    const outer = [];
    let depth = 0;
    for (let a = el.parentElement; a && a !== document.documentElement && a !== document.body && depth < 8; a = a.parentElement, depth++) {
      for (const [rank, scope] of scopes(a)) outer.push({ rank, depth, a, scope });
    }
    outer.sort((x, y) => x.rank - y.rank || x.depth - y.depth);
    for (const { a, scope } of outer) {
      if (!matches(scope).includes(a)) continue;
      for (const [kind, own] of found) {
        const toks = [...scope, ...own];
        const m = matches(toks);
        if (m.length === 1 && m[0] === el) return result(el, kind + ' in ancestor', toks);
      }
    }
    // The first kind that matches it, narrowed with nth.
    if (found.length) {
      const [kind, toks, m] = found[0];
      return result(el, kind + ' nth', [...toks, nthTok(m.indexOf(el))]);
    }
    return { kind: 'none', selector: '', code: '', count: 0, unique: false };
  });

  // locate picks the element sel matches (the one an action takes) and
  // generates its locator; count is how many sel matched.
  const locate = (sel) => {
    const els = bh.resolve(sel);
    if (!els.length) return { count: 0 };
    return Object.assign(generate(bh.pick(sel)), { matched: els.length });
  };

  // ambiguous is the locator of sel's element when sel means nothing in
  // a test file (a snapshot ref) or matches several elements; else null.
  const ambiguous = (sel) => {
    const els = bh.resolve(sel);
    if (!els.length || (els.length === 1 && !/^(?:ref=)?e\d+$/.test(String(sel).trim()))) return null;
    return generate(bh.pick(sel));
  };

  bh.locator = generate;
  bh.locate = locate;
  bh.ambiguous = ambiguous;
})();
