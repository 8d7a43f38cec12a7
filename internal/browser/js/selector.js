// BarrHawk's selector engine: Playwright's selector language, as its
// documentation defines it (docs/other-locators, "selector engines"),
// written for BarrHawk. It is the first part of the page helper (helper.js
// follows it in the same function body) and defines `selectors`.
//
// A selector is parts joined by >>; each part is engine=body, or CSS, or
// XPath (// or ..), or quoted text. Each part is queried inside each
// element the part before it matched. CSS and text pierce open shadow
// roots; XPath does not. Parsed selectors are cached; a selector that
// cannot be read throws a SelectorError whose message names the form and
// what to write instead (shown to the user as it is, without a stack).
const selectors = (() => {
  class SelectorError extends Error {}
  SelectorError.prototype.name = 'SelectorError';
  const fail = (msg) => { throw new SelectorError(msg); };

  const normalize = (s) => s.replace(/\u200b/g, '').trim().replace(/\s+/g, ' ');

  // ---------------------------------------------------------------- tree

  // parentOf is the element's parent, or the host of the shadow root it
  // is a child of: CSS combinators cross into shadow roots.
  const parentOf = (el) => {
    if (el.parentElement) return el.parentElement;
    const p = el.parentNode;
    return p && p.nodeType === 11 && p.host ? p.host : null;
  };
  // descendants lists the elements under root (an element, a document or
  // a shadow root) in tree order, each host's shadow tree before its
  // light children, piercing open shadow roots when pierce is set.
  const descendants = (root, pierce) => {
    const out = [];
    const visit = (node) => {
      for (let c = node.firstElementChild; c; c = c.nextElementSibling) {
        out.push(c);
        if (pierce && c.shadowRoot) visit(c.shadowRoot);
        visit(c);
      }
    };
    if (pierce && root.nodeType === 1 && root.shadowRoot) visit(root.shadowRoot);
    visit(root);
    return out;
  };
  // hasShadow says whether an open shadow root is under root.
  const hasShadow = (root) => {
    if (root.nodeType === 1 && root.shadowRoot) return true;
    const w = (root.ownerDocument || root).createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let n = w.nextNode(); n; n = w.nextNode()) if (n.shadowRoot) return true;
    return false;
  };
  const contains = (a, b) => {
    for (let n = b; n; n = parentOf(n)) if (n === a) return true;
    return false;
  };

  // ---------------------------------------------------------------- memo

  // memo holds what one snapshot or query computes more than once
  // (styles, hidden checks, names): the document does not change while
  // it runs. Outside withMemo nothing is kept.
  let memo = null;
  const withMemo = (fn) => {
    if (memo) return fn();
    memo = { style: new Map(), hidden: new Map(), ariaHidden: new Map(), name: [new Map(), new Map()], sub: [new Map(), new Map()] };
    try {
      return fn();
    } finally {
      memo = null;
    }
  };
  const style = (el) => {
    if (!memo) return getComputedStyle(el);
    let st = memo.style.get(el);
    if (!st) memo.style.set(el, (st = getComputedStyle(el)));
    return st;
  };
  const remember = (map, key, fn) => {
    if (!map) return fn();
    let v = map.get(key);
    if (v === undefined) map.set(key, (v = fn()));
    return v;
  };
  // mayHavePseudoContent says whether a ::before or ::after of the
  // document may generate text: a style sheet with such a rule (or one
  // that cannot be read, from another origin), a shadow root's, or a <q>.
  const mayHavePseudoContent = () => {
    const scan = (rules) => {
      for (const r of rules) {
        if (r.selectorText !== undefined && /:(before|after)/i.test(r.selectorText)) return true;
        if (r.styleSheet && sheet(r.styleSheet)) return true; // @import
        if (r.cssRules && scan(r.cssRules)) return true; // @media, @supports, @layer, nesting
      }
      return false;
    };
    const sheet = (sh) => {
      try {
        return scan(sh.cssRules);
      } catch (e) {
        return true;
      }
    };
    for (const sh of document.styleSheets) if (sheet(sh)) return true;
    for (const sh of document.adoptedStyleSheets || []) if (sheet(sh)) return true;
    return !!document.querySelector('q') || hasShadow(document);
  };
  // pseudoPossible is mayHavePseudoContent, looked at once per task (one
  // evaluation from BarrHawk): style sheets do not change within it.
  let pseudoThisTask;
  const pseudoPossible = () => {
    if (pseudoThisTask === undefined) {
      pseudoThisTask = mayHavePseudoContent();
      queueMicrotask(() => { pseudoThisTask = undefined; });
    }
    return pseudoThisTask;
  };

  // ---------------------------------------------------------------- visibility

  // visible is Playwright's: a non-empty box and not visibility:hidden
  // (opacity 0 counts as visible); display:contents is visible when a
  // child is.
  const visible = (el) => {
    if (!el.isConnected) return false;
    const st = style(el);
    if (st.display === 'contents') {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 1 && visible(c)) return true;
        if (c.nodeType === 3 && c.data.trim()) {
          const r = document.createRange();
          r.selectNodeContents(c);
          const b = r.getBoundingClientRect();
          if (b.width > 0 && b.height > 0) return true;
        }
      }
      return false;
    }
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
    if (st.visibility !== 'visible') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };

  // hiddenForAria says the element is out of the accessibility tree:
  // not rendered, visibility:hidden, or aria-hidden on it or an ancestor.
  const hiddenForAria = (el) => {
    if (['STYLE', 'SCRIPT', 'NOSCRIPT', 'TEMPLATE'].includes(el.tagName)) return true;
    // The options of a closed select have no box, and are no less there.
    if ((el.tagName === 'OPTION' || el.tagName === 'OPTGROUP') && el.closest('select')) return hiddenForAria(el.closest('select'));
    return remember(memo && memo.hidden, el, () => {
      const st = style(el);
      if (st.display !== 'contents' && typeof el.checkVisibility === 'function' && !el.checkVisibility()) return true;
      if (st.visibility === 'hidden' || st.visibility === 'collapse') return true;
      return ariaHidden(el);
    });
  };
  // ariaHidden: aria-hidden="true" on the element or an ancestor.
  const ariaHidden = (el) => {
    if (!el) return false;
    return remember(memo && memo.ariaHidden, el, () => el.getAttribute('aria-hidden') === 'true' || ariaHidden(parentOf(el)));
  };

  // ---------------------------------------------------------------- roles

  const ariaRoles = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox ' +
    'complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid gridcell group heading img ' +
    'insertion link list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none ' +
    'note option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider ' +
    'spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));

  const inSectioning = (el) => {
    for (let p = parentOf(el); p; p = parentOf(p)) {
      if (['ARTICLE', 'ASIDE', 'MAIN', 'NAV', 'SECTION'].includes(p.tagName)) return true;
      const r = p.getAttribute('role');
      if (r && ['article', 'complementary', 'main', 'navigation', 'region'].includes(r)) return true;
    }
    return false;
  };
  const named = (el) => !!((el.getAttribute('aria-label') || '').trim() || el.getAttribute('aria-labelledby') || el.getAttribute('title'));
  const inputRole = (el) => {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    const list = el.hasAttribute('list');
    switch (type) {
      case 'button': case 'image': case 'reset': case 'submit': case 'file': case 'color': return 'button';
      case 'checkbox': return 'checkbox';
      case 'radio': return 'radio';
      case 'range': return 'slider';
      case 'number': return 'spinbutton';
      case 'hidden': return null;
      case 'search': return list ? 'combobox' : 'searchbox';
      case 'email': case 'tel': case 'text': case 'url': return list ? 'combobox' : 'textbox';
      default: return list ? 'combobox' : 'textbox';
    }
  };
  // implicitRole is the role HTML gives an element (HTML-AAM).
  const implicitRole = (el) => {
    switch (el.tagName) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : null;
      case 'ARTICLE': return 'article';
      case 'ASIDE': return 'complementary';
      case 'BLOCKQUOTE': return 'blockquote';
      case 'BUTTON': return 'button';
      case 'CAPTION': return 'caption';
      case 'CODE': return 'code';
      case 'DATALIST': return 'listbox';
      case 'DD': return 'definition';
      case 'DEL': case 'S': return 'deletion';
      case 'DETAILS': return 'group';
      case 'DFN': case 'DT': return 'term';
      case 'DIALOG': return 'dialog';
      case 'EM': return 'emphasis';
      case 'FIELDSET': return 'group';
      case 'FIGURE': return 'figure';
      case 'FOOTER': return inSectioning(el) ? null : 'contentinfo';
      case 'FORM': return named(el) ? 'form' : null;
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'HEADER': return inSectioning(el) ? null : 'banner';
      case 'HR': return 'separator';
      case 'HTML': return 'document';
      case 'IMG': return el.getAttribute('alt') === '' && !named(el) ? 'presentation' : 'img';
      case 'INPUT': return inputRole(el);
      case 'INS': return 'insertion';
      case 'LI': return 'listitem';
      case 'MAIN': return 'main';
      case 'MARK': return 'mark';
      case 'MATH': return 'math';
      case 'MENU': case 'OL': case 'UL': return 'list';
      case 'METER': return 'meter';
      case 'NAV': return 'navigation';
      case 'OPTGROUP': return 'group';
      case 'OPTION': return 'option';
      case 'OUTPUT': return 'status';
      case 'P': return 'paragraph';
      case 'PROGRESS': return 'progressbar';
      case 'SEARCH': return 'search';
      case 'SECTION': return named(el) ? 'region' : null;
      case 'SELECT': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'STRONG': return 'strong';
      case 'SUB': return 'subscript';
      case 'SUP': return 'superscript';
      case 'SVG': case 'svg': return 'img';
      case 'TABLE': return 'table';
      case 'TBODY': case 'THEAD': case 'TFOOT': return 'rowgroup';
      case 'TD': {
        const t = el.closest('table');
        const r = t && t.getAttribute('role');
        return r === 'grid' || r === 'treegrid' ? 'gridcell' : 'cell';
      }
      case 'TEXTAREA': return 'textbox';
      case 'TH': {
        const scope = (el.getAttribute('scope') || '').toLowerCase();
        if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
        if (scope === 'col' || scope === 'colgroup') return 'columnheader';
        const tr = el.parentElement;
        return tr && tr.parentElement && tr.parentElement.tagName === 'TBODY' && el === tr.firstElementChild && el.nextElementSibling && el.nextElementSibling.tagName === 'TD' ? 'rowheader' : 'columnheader';
      }
      case 'TIME': return 'time';
      case 'TR': return 'row';
    }
    if (el.isContentEditable && el.hasAttribute('contenteditable')) return 'textbox';
    return null;
  };
  // role is the element's ARIA role: the first role of its role attribute
  // that ARIA knows, else the one HTML gives it.
  const role = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().toLowerCase();
    if (explicit) {
      for (const r of explicit.split(/\s+/)) if (ariaRoles.has(r)) return r === 'none' ? 'presentation' : r;
    }
    return implicitRole(el);
  };

  // ---------------------------------------------------------------- accessible name

  const nameFromContent = new Set(['button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'radio', 'row', 'rowheader', 'switch', 'tab', 'tooltip', 'treeitem']);
  const byId = (el, id) => (el.getRootNode().getElementById ? el.getRootNode().getElementById(id) : null) || document.getElementById(id);
  // noPseudo are the elements whose ::before and ::after give no text to
  // a name, as Playwright reads them (TodoMVC's checkbox styled with a ✔
  // after it has no name from the mark): void and replaced elements.
  const noPseudo = new Set(['INPUT', 'IMG', 'BR', 'HR', 'AREA', 'EMBED', 'SOURCE', 'TRACK', 'WBR', 'COL', 'SELECT', 'TEXTAREA']);
  const pseudoText = (el, which) => {
    if (!pseudoPossible() || noPseudo.has(el.tagName)) return '';
    const c = getComputedStyle(el, which).content;
    if (!c || c === 'none' || c === 'normal') return '';
    const m = c.match(/^"(.*)"$/s);
    return m ? m[1].replace(/\\(.)/g, '$1') : '';
  };
  const isBlock = (el) => {
    const d = style(el).display;
    return d !== 'inline' && d !== 'contents' && !d.startsWith('inline');
  };
  // textAlternative computes an element's text alternative (accname 1.2,
  // the steps Chromium and Playwright follow): aria-labelledby,
  // aria-label, the host language's label, content, title.
  const textAlternative = (el, st) => {
    if (st.seen.has(el)) return '';
    st.seen.add(el);
    if (!st.includeHidden && !st.referenced && hiddenForAria(el)) return '';
    if (!st.inLabelledBy) {
      const by = el.getAttribute('aria-labelledby');
      if (by) {
        const t = by.trim().split(/\s+/).map((id) => byId(el, id)).filter(Boolean)
          .map((r) => textAlternative(r, { ...st, seen: new Set(), inLabelledBy: true, referenced: true, recursing: true })).join(' ');
        if (t.trim()) return t;
      }
    }
    const r = role(el);
    if (st.recursing && !st.top) {
      // A control inside a label names itself by its value.
      if (r === 'textbox' || r === 'searchbox') return el.value !== undefined && el.tagName !== 'DIV' ? el.value : el.textContent;
      if (r === 'combobox' || r === 'listbox') {
        if (el.tagName === 'SELECT') return Array.from(el.selectedOptions).map((o) => o.text).join(' ');
      }
      if (r === 'slider' || r === 'spinbutton' || r === 'progressbar' || r === 'meter') return el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || el.value || '';
    }
    const label = el.getAttribute('aria-label');
    if (label && label.trim()) return label;
    if (r !== 'presentation') {
      const n = nativeName(el, st);
      if (n) return n;
    }
    if (st.recursing || nameFromContent.has(r)) {
      let t = pseudoText(el, '::before');
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === 3) t += c.data;
        else if (c.nodeType === 1) {
          // A child's text in the plain descent is the same wherever it
          // is asked from: remembered.
          const plain = !st.referenced && !st.inLabelledBy;
          const sub = plain && memo
            ? remember(memo.sub[st.includeHidden ? 1 : 0], c, () => textAlternative(c, { seen: new Set(), includeHidden: st.includeHidden, top: false, recursing: true }))
            : textAlternative(c, { ...st, top: false, recursing: true });
          t += isBlock(c) ? ' ' + sub + ' ' : sub;
        }
      }
      if (el.shadowRoot) for (const c of el.shadowRoot.children) t += textAlternative(c, { ...st, top: false, recursing: true });
      t += pseudoText(el, '::after');
      if (t.trim()) return t;
    }
    const title = el.getAttribute('title');
    if (title && title.trim()) return title;
    if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && el.getAttribute('placeholder')) return el.getAttribute('placeholder');
    return '';
  };
  // nativeName is the name HTML gives: a field's labels, a button's
  // value, an image's alt, a fieldset's legend, a table's caption.
  const nativeName = (el, st) => {
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const type = (el.type || '').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type)) return el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
      if (type === 'image') return el.getAttribute('alt') || el.value || 'Submit';
    }
    if (['INPUT', 'TEXTAREA', 'SELECT', 'METER', 'PROGRESS', 'OUTPUT'].includes(tag) || (tag === 'BUTTON')) {
      const labels = el.labels ? Array.from(el.labels) : [];
      if (labels.length) {
        const t = labels.map((l) => textAlternative(l, { ...st, seen: new Set([el]), recursing: true, top: false, referenced: true })).join(' ');
        if (t.trim()) return t;
      }
      if (tag === 'INPUT' && (el.type || '').toLowerCase() === 'file') return el.getAttribute('title') || (el.multiple ? 'Choose Files' : 'Choose File');
    }
    if (tag === 'IMG' || tag === 'AREA') return el.getAttribute('alt') || '';
    if (tag === 'FIELDSET') {
      const lg = Array.from(el.children).find((c) => c.tagName === 'LEGEND');
      if (lg) return textAlternative(lg, { ...st, recursing: true, top: false });
    }
    if (tag === 'FIGURE') {
      const fc = Array.from(el.children).find((c) => c.tagName === 'FIGCAPTION');
      if (fc) return textAlternative(fc, { ...st, recursing: true, top: false });
    }
    if (tag === 'TABLE') {
      const cap = Array.from(el.children).find((c) => c.tagName === 'CAPTION');
      if (cap) return textAlternative(cap, { ...st, recursing: true, top: false });
      return el.getAttribute('summary') || '';
    }
    if (tag === 'OPTGROUP') return el.getAttribute('label') || '';
    if (tag.toLowerCase() === 'svg') {
      const ti = Array.from(el.children).find((c) => c.tagName.toLowerCase() === 'title');
      if (ti) return ti.textContent;
    }
    return '';
  };
  // accessibleName is the element's accessible name, whitespace
  // normalized; hidden content counts only with includeHidden.
  const accessibleName = (el, includeHidden) => remember(memo && memo.name[includeHidden ? 1 : 0], el, () => normalize(textAlternative(el, { seen: new Set(), includeHidden, top: true })));

  // ---------------------------------------------------------------- ARIA states

  const checkedRoles = ['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem'];
  const pressedRoles = ['button'];
  const selectedRoles = ['row', 'gridcell', 'option', 'tab', 'columnheader', 'rowheader', 'treeitem'];
  const levelRoles = ['heading', 'listitem', 'row', 'treeitem'];
  const ariaBool = (v) => (v === 'true' ? true : v === 'false' ? false : undefined);
  const checked = (el) => {
    if (el.tagName === 'INPUT' && ['checkbox', 'radio'].includes((el.type || '').toLowerCase())) return el.indeterminate ? 'mixed' : el.checked;
    const a = el.getAttribute('aria-checked');
    if (a === 'mixed') return 'mixed';
    return a === 'true';
  };
  const pressed = (el) => {
    const a = el.getAttribute('aria-pressed');
    return a === 'mixed' ? 'mixed' : a === 'true';
  };
  const selected = (el) => (el.tagName === 'OPTION' ? el.selected : el.getAttribute('aria-selected') === 'true');
  const expanded = (el) => {
    const a = ariaBool(el.getAttribute('aria-expanded'));
    if (a !== undefined) return a;
    if (el.tagName === 'DETAILS') return el.open;
    if (el.tagName === 'SUMMARY' && el.parentElement && el.parentElement.tagName === 'DETAILS') return el.parentElement.open;
    return undefined;
  };
  const level = (el) => {
    const a = Number(el.getAttribute('aria-level'));
    if (Number.isInteger(a) && a > 0) return a;
    const m = el.tagName.match(/^H([1-6])$/);
    return m ? Number(m[1]) : undefined;
  };
  const nativeDisabled = ['BUTTON', 'INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'OPTGROUP', 'FIELDSET'];
  // disabled: natively (a disabled control, or one in a disabled fieldset
  // outside its legend), or aria-disabled on it or an ancestor.
  const disabled = (el) => {
    if (nativeDisabled.includes(el.tagName) && el.matches(':disabled')) return true;
    for (let n = el; n; n = parentOf(n)) if (n.getAttribute('aria-disabled') === 'true') return true;
    return false;
  };

  // ---------------------------------------------------------------- text

  // elementText is an element's text as Playwright reads it: full (all
  // text under it, shadow roots included), normalized, and its own text
  // nodes' runs (immediate). An input button's text is its value.
  const skipText = (el) => ['SCRIPT', 'NOSCRIPT', 'STYLE'].includes(el.nodeName) || (document.head && document.head.contains(el));
  const elementText = (cache, el) => {
    let v = cache.get(el);
    if (v) return v;
    v = { full: '', normalized: '', immediate: [] };
    if (el.nodeType !== 1 || !skipText(el)) {
      if (el.tagName === 'INPUT' && ['submit', 'button'].includes((el.type || '').toLowerCase())) {
        v = { full: el.value, normalized: normalize(el.value), immediate: [el.value] };
      } else {
        let run = '';
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === 3) { v.full += c.data; run += c.data; continue; }
          if (c.nodeType === 8) continue;
          if (run) v.immediate.push(run);
          run = '';
          if (c.nodeType === 1) v.full += elementText(cache, c).full;
        }
        if (run) v.immediate.push(run);
        if (el.shadowRoot) v.full += elementText(cache, el.shadowRoot).full;
        v.normalized = normalize(v.full);
      }
    }
    cache.set(el, v);
    return v;
  };
  // matchText says whether the element's text matches: 'self' when no
  // child's text matches too (the smallest element), 'selfAndChildren'
  // when one does, 'none' when it does not.
  const matchText = (cache, el, m) => {
    if (skipText(el) || !m(elementText(cache, el))) return 'none';
    for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === 1 && m(elementText(cache, c))) return 'selfAndChildren';
    if (el.shadowRoot && m(elementText(cache, el.shadowRoot))) return 'selfAndChildren';
    return 'self';
  };
  const laxMatcher = (s) => {
    s = normalize(s).toLowerCase();
    return (t) => t.normalized.toLowerCase().includes(s);
  };
  const strictNodeMatcher = (s) => {
    s = normalize(s);
    return (t) => (!s && !t.immediate.length) || t.immediate.some((x) => normalize(x) === s);
  };
  const fullMatcher = (s) => {
    s = normalize(s);
    return (t) => t.normalized === s;
  };
  const regexMatcher = (re) => (t) => { re.lastIndex = 0; return re.test(t.full); };
  const makeRegex = (source, flags, what) => {
    try {
      return new RegExp(source, flags);
    } catch (e) {
      fail(what + ': ' + e.message.replace(/^Invalid regular expression: /, 'not a valid regular expression: ') + '; a regular expression is as /sign ?in/i');
    }
  };
  // unquote reads a quoted string ("..." or '...', backslash escapes).
  const unquote = (s) => s.slice(1, -1).replace(/\\(.)/gs, '$1');
  const quoted = (s) => s.length > 1 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0];

  // textSpec reads a text= body: /regex/flags, "exact" or 'exact' (its own
  // text nodes, case-sensitive), else a case-insensitive substring. With
  // internal (internal:text=, Playwright's getByText), "x"i is a substring
  // and "x"s or "x" the whole text, case-sensitive.
  const textSpec = (body, internal, what) => {
    const b = body.trim();
    if (b.length > 1 && b[0] === '/' && b.lastIndexOf('/') > 0) {
      const last = b.lastIndexOf('/');
      const flags = b.slice(last + 1);
      if (/[^dgimsuvy]/.test(flags)) fail(what + ': "' + flags + '" are not regular expression flags; write ' + b.slice(0, last + 1) + 'i');
      return { kind: 'regex', m: regexMatcher(makeRegex(b.slice(1, last), flags, what)) };
    }
    if (internal && b.length > 2 && b[0] === '"' && b[b.length - 2] === '"' && (b.endsWith('i') || b.endsWith('s'))) {
      const s = unquote(b.slice(0, -1));
      return b.endsWith('i') ? { kind: 'lax', m: laxMatcher(s) } : { kind: 'strict', m: fullMatcher(s) };
    }
    if (quoted(b)) return { kind: 'strict', m: internal ? fullMatcher(unquote(b)) : strictNodeMatcher(unquote(b)) };
    if (b[0] === '"' || b[0] === "'") fail(what + ': the quote is not closed; write text="Exact text" or text=part of the text');
    return { kind: 'lax', m: laxMatcher(b) };
  };
  // queryText finds the smallest elements whose text matches (the root
  // itself included), piercing shadow roots.
  const queryText = (q, root, spec) => {
    const out = [];
    let skip = null;
    const consider = (el) => {
      if (spec.kind === 'lax' && skip && skip.contains(el)) return;
      const r = matchText(q.text, el, spec.m);
      if (r === 'none') skip = el;
      if (r === 'self' || (r === 'selfAndChildren' && spec.kind === 'strict' && !spec.internal)) out.push(el);
    };
    if (root.nodeType === 1) consider(root);
    for (const el of descendants(root, true)) consider(el);
    return out;
  };

  // ---------------------------------------------------------------- CSS

  // Pseudo-classes BarrHawk evaluates itself (Playwright's extensions, and
  // the functional ones that may hold them); the rest is the browser's.
  const customPseudo = new Set(['has-text', 'text', 'text-is', 'text-matches', 'visible', 'nth-match', 'has', 'is', 'not', 'where', 'scope']);
  const layoutPseudo = new Set(['left-of', 'right-of', 'above', 'below', 'near']);
  const jqueryPseudo = {
    contains: 'Playwright writes :has-text("x") (any element holding the text) or :text("x") (the smallest one)',
    eq: 'Playwright picks the Nth match with >> nth=N (from 0) or :nth-match(selector, N) (from 1)',
    first: 'Playwright picks the first match with >> nth=0',
    last: 'Playwright picks the last match with >> nth=-1',
    hidden: 'write :not(:visible)',
    button: 'write button, or role=button',
    input: 'write input, textarea, select',
    selected: 'write option:checked',
  };
  const isIdent = (c) => /[\w\u00a0-\uffff-]/.test(c);

  // parseCSS reads a CSS selector list with Playwright's pseudo-classes
  // into complex selectors: [{comb, native, customs, scope}] from left to
  // right, comb being the combinator before each compound (a leading one
  // when relative, as inside :has(> img)).
  const parseCSS = (src, what) => {
    let i = 0;
    const err = (msg) => fail(what + ': ' + msg);
    // balanced reads up to the ) closing the ( just read.
    const balanced = () => {
      const start = i;
      let depth = 1;
      while (i < src.length) {
        const c = src[i];
        if (c === '\\') { i += 2; continue; }
        if (c === '"' || c === "'") {
          const q = c;
          for (i++; i < src.length && src[i] !== q; i++) if (src[i] === '\\') i++;
          if (i >= src.length) err('a quote is not closed');
          i++;
          continue;
        }
        if (c === '(') depth++;
        if (c === ')' && --depth === 0) { i++; return src.slice(start, i - 1); }
        i++;
      }
      return err('a ( is not closed');
    };
    const ident = () => {
      const start = i;
      while (i < src.length && (isIdent(src[i]) || src[i] === '\\')) i += src[i] === '\\' ? 2 : 1;
      return src.slice(start, i);
    };
    const compound = () => {
      let native = '';
      const customs = [];
      let scope = false;
      const start = i;
      while (i < src.length) {
        const c = src[i];
        if (/\s/.test(c) || c === ',' || c === ')' || c === '>' || c === '+' || c === '~') break;
        if (c === '*' || isIdent(c) || c === '|') { native += c === '*' || c === '|' ? (i++, c) : ident(); continue; }
        if (c === '#' || c === '.') { i++; native += c + ident(); continue; }
        if (c === '[') {
          const s = i;
          for (i++; i < src.length && src[i] !== ']'; i++) {
            if (src[i] === '"' || src[i] === "'") { const q = src[i]; for (i++; i < src.length && src[i] !== q; i++) if (src[i] === '\\') i++; }
          }
          if (i >= src.length) err('the [ of an attribute is not closed; write [name="value"]');
          i++;
          native += src.slice(s, i);
          continue;
        }
        if (c === ':') {
          if (src[i + 1] === ':') err('pseudo-elements (' + src.slice(i).split(/[\s,)]/)[0] + ') are not elements a selector can find; drop them');
          i++;
          const name = ident().toLowerCase();
          let args = null;
          if (src[i] === '(') { i++; args = balanced(); }
          if (!name) err('a : is followed by no pseudo-class name');
          if (layoutPseudo.has(name)) err(':' + name + '() is a layout selector Playwright no longer documents and BarrHawk does not take; find the element by its own text, role or test id, or scope it with >> (section >> button)');
          if (jqueryPseudo[name] !== undefined) err(':' + name + (args !== null ? '()' : '') + ' is jQuery, not CSS: ' + jqueryPseudo[name]);
          if (name === 'light') err(':light is gone from Playwright; CSS already pierces shadow roots');
          if (!customPseudo.has(name)) { native += ':' + name + (args !== null ? '(' + args + ')' : ''); continue; }
          if (name === 'scope') { scope = true; continue; }
          if (name === 'visible') {
            if (args !== null) err(':visible takes no argument; write :visible');
            customs.push({ name });
            continue;
          }
          if (args === null) err(':' + name + ' needs an argument, as :' + name + '(' + (name === 'nth-match' ? 'button, 2' : name.startsWith('text') || name === 'has-text' ? '"Sign in"' : '.item') + ')');
          const cu = customArgs(name, args);
          // Plain CSS inside :is(), :where() and :not() is the browser's.
          if ((name === 'is' || name === 'where' || name === 'not') && isNative(cu.list)) native += ':' + name + '(' + args + ')';
          else customs.push(cu);
          continue;
        }
        err('"' + c + '" cannot start a part of a CSS selector' + (c === '=' ? ' (an engine is css=, text=, role=, xpath=, id=, data-testid=)' : ''));
      }
      if (i === start) return null;
      return { native, customs, scope };
    };
    const customArgs = (name, args) => {
      const inner = what + ' in :' + name + '()';
      const str = (a) => {
        a = a.trim();
        if (quoted(a)) return unquote(a);
        if (a[0] === '"' || a[0] === "'") fail(inner + ': the quote is not closed');
        return a;
      };
      switch (name) {
        case 'has-text': return { name, m: laxMatcher(str(args)) };
        case 'text': return { name, m: laxMatcher(str(args)) };
        case 'text-is': return { name, m: strictNodeMatcher(str(args)) };
        case 'text-matches': {
          const parts = splitTop(args, ',');
          if (parts.length > 2) fail(inner + ': takes a regular expression and its flags, as :text-matches("sign ?in", "i")');
          return { name, m: regexMatcher(makeRegex(str(parts[0]), parts[1] ? str(parts[1]) : '', inner)) };
        }
        case 'nth-match': {
          const parts = splitTop(args, ',');
          const n = Number(parts.length > 1 ? parts.pop().trim() : NaN);
          if (!Number.isInteger(n) || n < 1) fail(inner + ': takes a selector and a position from 1, as :nth-match(li, 2)');
          return { name, list: parseCSS(parts.join(','), inner), n };
        }
        default: { // has, is, not, where
          if (!args.trim()) fail(inner + ': is empty; give a selector, as :' + name + '(.item)');
          const list = parseCSS(args, inner);
          if (name !== 'has' && list.some((cx) => cx[0].comb)) fail(inner + ': a combinator cannot start it; only :has() takes a relative selector');
          if (name !== 'has') return { name, list };
          // :has(X) is :scope X (X relative: :scope > X, :scope + X, ...),
          // matched with the element as :scope.
          const anchor = { native: '', customs: [], scope: true, comb: null };
          return { name, list: list.map((cx) => [anchor, { ...cx[0], comb: cx[0].comb || ' ' }, ...cx.slice(1)]) };
        }
      }
    };
    const complex = () => {
      const out = [];
      let comb = null;
      for (;;) {
        let ws = false;
        while (i < src.length && /\s/.test(src[i])) { i++; ws = true; }
        if (i >= src.length || src[i] === ',' || src[i] === ')') break;
        if ('>+~'.includes(src[i])) {
          if (comb) err('two combinators in a row (' + comb + ' ' + src[i] + ')');
          comb = src[i++];
          continue;
        }
        if (ws && out.length && !comb) comb = ' ';
        const cp = compound();
        if (!cp) err('"' + src[i] + '" is out of place');
        out.push(Object.assign(cp, { comb: out.length || comb ? comb : null }));
        comb = null;
      }
      if (comb && out.length) err('the selector ends with the combinator ' + comb);
      if (!out.length) err(src.trim() ? 'a selector of the list is empty' : 'the CSS is empty; write one, as css=button.primary');
      return out;
    };
    const list = [complex()];
    while (i < src.length && src[i] === ',') { i++; list.push(complex()); }
    if (i < src.length) err('")" is out of place');
    // The native part of each compound must be CSS the browser reads.
    for (const cx of list) {
      for (const cp of cx) {
        if (!cp.native) continue;
        try {
          document.documentElement.matches(cp.native);
        } catch (e) {
          fail(what + ': ' + JSON.stringify(cp.native) + ' is not valid CSS' + cssHint(cp.native));
        }
      }
    }
    return list;
  };
  const cssHint = (s) => {
    if (/^\d/.test(s)) return ' (an id or class cannot start with a digit: write [id="' + s.replace(/^#/, '') + '"])';
    if (/#\d/.test(s)) return ' (an id starting with a digit is written [id="1x"] or id=1x)';
    return '; CSS is as form#login button.primary[type="submit"]';
  };
  // splitTop splits s at sep outside quotes, brackets and parentheses.
  const splitTop = (s, sep) => {
    const out = [];
    let depth = 0, start = 0;
    for (let i = 0; i < s.length; i++) {
      const c = s[i];
      if (c === '\\') { i++; continue; }
      if (c === '"' || c === "'") { for (i++; i < s.length && s[i] !== c; i++) if (s[i] === '\\') i++; continue; }
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (depth === 0 && s.startsWith(sep, i)) { out.push(s.slice(start, i)); start = i + sep.length; i += sep.length - 1; }
    }
    out.push(s.slice(start));
    return out;
  };
  const isNative = (list) => list.every((cx) => cx.every((cp) => !cp.customs.length && !cp.scope));

  // matchesCompound checks one compound on el; scope is what :scope is.
  const matchesCompound = (q, el, cp, scope) => {
    if (cp.scope && el !== (scope.nodeType === 9 ? scope.documentElement : scope)) return false;
    if (cp.native && !el.matches(cp.native)) return false;
    for (const c of cp.customs) if (!matchesCustom(q, el, c, scope)) return false;
    return true;
  };
  // matchesFrom checks compounds 0..k of cx, compound k on el, walking
  // left through the combinators (across shadow roots).
  const matchesFrom = (q, el, cx, k, scope) => {
    if (!matchesCompound(q, el, cx[k], scope)) return false;
    if (k === 0) return true;
    switch (cx[k].comb) {
      case '>': { const p = parentOf(el); return !!p && matchesFrom(q, p, cx, k - 1, scope); }
      case '+': { const s = el.previousElementSibling; return !!s && matchesFrom(q, s, cx, k - 1, scope); }
      case '~':
        for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (matchesFrom(q, s, cx, k - 1, scope)) return true;
        return false;
      default:
        for (let p = parentOf(el); p; p = parentOf(p)) if (matchesFrom(q, p, cx, k - 1, scope)) return true;
        return false;
    }
  };
  const matchesList = (q, el, list, scope) => list.some((cx) => matchesFrom(q, el, cx, cx.length - 1, scope));
  const matchesCustom = (q, el, c, scope) => {
    switch (c.name) {
      case 'visible': return visible(el);
      case 'has-text': return matchText(q.text, el, c.m) !== 'none';
      case 'text': case 'text-matches': return matchText(q.text, el, c.m) === 'self';
      case 'text-is': return matchText(q.text, el, c.m) !== 'none';
      case 'is': case 'where': return matchesList(q, el, c.list, scope);
      case 'not': return !matchesList(q, el, c.list, scope);
      case 'has': {
        // Among el's descendants, or its following siblings for + and ~.
        for (const cx of c.list) {
          let pool;
          if (cx[1].comb === '+' || cx[1].comb === '~') {
            pool = [];
            for (let s = el.nextElementSibling; s; s = s.nextElementSibling) pool.push(s, ...descendants(s, true));
          } else pool = descendants(el, true);
          for (const d of pool) if (matchesFrom(q, d, cx, cx.length - 1, el)) return true;
        }
        return false;
      }
      case 'nth-match': {
        let all = q.nth.get(c);
        if (!all) { all = queryCSS(q, q.root, c.list); q.nth.set(c, all); }
        return all[c.n - 1] === el;
      }
    }
    return false;
  };
  // queryCSS finds the elements under root matching list: the browser's
  // querySelectorAll when the list is plain CSS and no shadow root is in
  // the way, else BarrHawk's own walk.
  const queryCSS = (q, root, list, text) => {
    if (text !== undefined && isNative(list) && !q.shadow(root)) return Array.from(root.querySelectorAll(text));
    return descendants(root, true).filter((el) => matchesList(q, el, list, root));
  };

  // ---------------------------------------------------------------- role=

  const roleAttrs = ['checked', 'disabled', 'expanded', 'include-hidden', 'level', 'name', 'pressed', 'selected'];
  // parseRole reads role=ROLE[attr=value]...: the attributes of
  // Playwright's role selector (name as "text" (substring, any case),
  // "text"s (exact), /regex/; checked, disabled, expanded, pressed,
  // selected as booleans; level as a number; include-hidden).
  const parseRole = (body, what) => {
    const src = body.trim();
    let i = 0;
    const m = src.match(/^[A-Za-z-]*/)[0];
    i = m.length;
    const example = 'role=button[name="Save"], role=checkbox[checked], role=heading[level=2]';
    if (!m) fail(what + ': the role is missing; a role selector is as ' + example);
    const r = m.toLowerCase();
    if (!ariaRoles.has(r)) {
      const near = [...ariaRoles].map((x) => [x, editDistance(x, r)]).sort((a, b) => a[1] - b[1])[0];
      fail(what + ': "' + m + '" is not an ARIA role' + (near[1] <= 3 ? ' (did you mean ' + near[0] + '?)' : '') + '; roles are button, link, textbox, checkbox, heading, listitem, ... as ARIA names them');
    }
    const attrs = {};
    while (i < src.length) {
      while (/\s/.test(src[i])) i++;
      if (i >= src.length) break;
      if (src[i] !== '[') fail(what + ': "' + src.slice(i) + '" follows the role; attributes go in [...], as ' + example);
      const close = (() => {
        for (let j = i + 1; j < src.length; j++) {
          if (src[j] === '"' || src[j] === "'") { const q = src[j]; for (j++; j < src.length && src[j] !== q; j++) if (src[j] === '\\') j++; continue; }
          if (src[j] === '/' && /=\s*$/.test(src.slice(i, j))) { for (j++; j < src.length && src[j] !== '/'; j++) if (src[j] === '\\') j++; continue; }
          if (src[j] === ']') return j;
        }
        return -1;
      })();
      if (close < 0) fail(what + ': the [ is not closed; write ' + example);
      const inner = src.slice(i + 1, close).trim();
      i = close + 1;
      const am = inner.match(/^([A-Za-z-]+)\s*(?:([*^$|~]?=)\s*([\s\S]*))?$/);
      if (!am) fail(what + ': [' + inner + '] is not an attribute; write [name="Save"] or [checked]');
      const key = am[1].toLowerCase();
      if (!roleAttrs.includes(key)) fail(what + ': role selectors take no "' + am[1] + '" attribute; they take ' + roleAttrs.join(', '));
      if (am[2] && am[2] !== '=') fail(what + ': [' + inner + ']: role attributes compare with = only ("' + am[2] + '" is CSS); a name part is matched by [name="part"] already');
      let raw = am[3] === undefined ? undefined : am[3].trim();
      let value, flag = '';
      if (raw === '') fail(what + ': [' + inner + '] has no value after =; write [' + key + '="..."], or [' + key + '] alone for true');
      if (raw === undefined) value = true;
      else if (raw[0] === '/' && raw.lastIndexOf('/') > 0) {
        const last = raw.lastIndexOf('/');
        value = makeRegex(raw.slice(1, last), raw.slice(last + 1), what + ' [' + key + ']');
      } else if (raw[0] === '"' || raw[0] === "'") {
        const q = raw[0];
        let j = 1;
        for (; j < raw.length && raw[j] !== q; j++) if (raw[j] === '\\') j++;
        if (j >= raw.length) fail(what + ': the quote of [' + inner + '] is not closed');
        value = unquote(raw.slice(0, j + 1));
        flag = raw.slice(j + 1).trim().toLowerCase();
        if (flag && flag !== 'i' && flag !== 's') fail(what + ': [' + inner + ']: after the quoted value only i (any case, the default) or s (exact) may follow');
      } else if (raw === 'true' || raw === 'false') value = raw === 'true';
      else if (/^-?\d+$/.test(raw)) value = Number(raw);
      else value = raw;
      const bool = (extra) => {
        if (typeof value === 'boolean' || (extra && value === extra)) return;
        fail(what + ': [' + key + '] takes true or false' + (extra ? ' or "' + extra + '"' : '') + ', as [' + key + '] or [' + key + '=false]');
      };
      switch (key) {
        case 'name':
          if (value === true) fail(what + ': [name] needs a value, as [name="Save"], [name="Save"s] (exact) or [name=/save/i]');
          if (typeof value !== 'string' && !(value instanceof RegExp)) value = String(value);
          attrs.name = value;
          attrs.exact = flag === 's';
          continue;
        case 'checked': bool('mixed'); if (!checkedRoles.includes(r)) fail(what + ': [checked] is for the roles ' + checkedRoles.join(', ') + ', not ' + r); break;
        case 'pressed': bool('mixed'); if (!pressedRoles.includes(r)) fail(what + ': [pressed] is for the role button, not ' + r); break;
        case 'selected': bool(); if (!selectedRoles.includes(r)) fail(what + ': [selected] is for the roles ' + selectedRoles.join(', ') + ', not ' + r); break;
        case 'level':
          if (typeof value !== 'number' || value < 1) fail(what + ': [level] takes a number from 1, as role=heading[level=2]');
          if (!levelRoles.includes(r)) fail(what + ': [level] is for the roles ' + levelRoles.join(', ') + ', not ' + r);
          break;
        default: bool();
      }
      attrs[key] = value;
    }
    return { role: r, attrs };
  };
  const queryRole = (q, root, spec) => {
    const a = spec.attrs;
    const out = [];
    for (const el of descendants(root, true)) {
      if (role(el) !== spec.role) continue;
      if (a.checked !== undefined && checked(el) !== a.checked) continue;
      if (a.pressed !== undefined && pressed(el) !== a.pressed) continue;
      if (a.selected !== undefined && selected(el) !== a.selected) continue;
      if (a.expanded !== undefined && expanded(el) !== a.expanded) continue;
      if (a.disabled !== undefined && disabled(el) !== a.disabled) continue;
      if (a.level !== undefined && level(el) !== a.level) continue;
      if (!a['include-hidden'] && hiddenForAria(el)) continue;
      if (a.name !== undefined) {
        const n = accessibleName(el, !!a['include-hidden']);
        if (a.name instanceof RegExp) { a.name.lastIndex = 0; if (!a.name.test(n)) continue; } else if (a.exact ? n !== normalize(a.name) : !n.toLowerCase().includes(normalize(a.name).toLowerCase())) continue;
      }
      out.push(el);
    }
    return out;
  };
  const editDistance = (a, b) => {
    const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
    for (let j = 1; j <= b.length; j++) d[0][j] = j;
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    return d[a.length][b.length];
  };

  // ---------------------------------------------------------------- attribute engines, labels

  // attrSpec reads [attr="value"i] (internal:attr=, internal:testid=):
  // i a case-insensitive substring, s or none the exact value.
  const attrSpec = (body, what) => {
    const m = body.trim().match(/^\[\s*([\w:-]+)\s*=\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\/.+\/[a-z]*)\s*([is]?)\s*\]$/);
    if (!m) fail(what + ': takes [attribute="value"], as [placeholder="Email"i]');
    const v = m[2][0] === '/' ? makeRegex(m[2].slice(1, m[2].lastIndexOf('/')), m[2].slice(m[2].lastIndexOf('/') + 1), what) : unquote(m[2]);
    return { attr: m[1], test: valueTest(v, m[3] !== 'i') };
  };
  const valueTest = (v, exact) => {
    if (v instanceof RegExp) return (s) => { v.lastIndex = 0; return v.test(s); };
    if (exact) return (s) => s === v;
    const low = normalize(v).toLowerCase();
    return (s) => normalize(s).toLowerCase().includes(low);
  };
  const queryAttr = (root, attr, test) => descendants(root, true).filter((el) => el.hasAttribute(attr) && test(el.getAttribute(attr)));
  // labelText is what names a control for getByLabel: its labels,
  // aria-labelledby and aria-label.
  const labelTexts = (el) => {
    const out = [];
    if (el.labels) for (const l of el.labels) out.push(normalize(l.textContent || ''));
    const by = el.getAttribute('aria-labelledby');
    if (by) out.push(normalize(by.split(/\s+/).map((id) => byId(el, id)).filter(Boolean).map((x) => x.textContent).join(' ')));
    const al = el.getAttribute('aria-label');
    if (al) out.push(normalize(al));
    return out;
  };

  // ---------------------------------------------------------------- parts

  const testIdAttr = () => (typeof window.__bhTestIdAttribute === 'string' && window.__bhTestIdAttribute) || 'data-testid';
  const engineNames = 'css=, xpath=, text=, role=, id=, data-testid=, data-test-id=, data-test=, nth=, visible=, and Playwright\'s internal:text=, internal:role=, internal:label=, internal:testid=, internal:attr=, internal:has-text=, internal:has-not-text=, internal:has=, internal:has-not=, internal:and=, internal:or=';
  const engineHints = {
    label: 'for a field by its label write internal:label="Email" or role=textbox[name="Email"]',
    placeholder: 'write [placeholder="Email"] (CSS) or internal:attr=[placeholder="Email"i]',
    alt: 'write [alt="Logo"] or role=img[name="Logo"]',
    title: 'write [title="Close"]',
    testid: 'write data-testid=x (or the configured test id attribute: ' + testIdAttr() + '=x)',
    'test-id': 'write data-testid=x',
    name: 'write [name="email"] (CSS)',
    class: 'write .name (CSS)',
    _react: 'React component selectors are experimental in Playwright and not taken here; use role=, text= or data-testid=',
    _vue: 'Vue component selectors are experimental in Playwright and not taken here; use role=, text= or data-testid=',
    'css:light': 'light engines are gone from Playwright; css= pierces shadow roots',
    'text:light': 'light engines are gone from Playwright; text= pierces shadow roots',
    'id:light': 'light engines are gone from Playwright',
  };

  // compilePart turns one part into {kind, ...}: 'query' parts find
  // elements under each root; 'filter' parts keep or drop the elements
  // so far; 'nth' and the set operations act on the whole list.
  const compilePart = (raw, index) => {
    let part = raw.trim();
    const what = 'part ' + (index + 1) + ' ' + JSON.stringify(part);
    let capture = false;
    if (part.startsWith('*') && /^\*[\w:-]+=/.test(part)) { capture = true; part = part.slice(1); }
    if (!part) fail('part ' + (index + 1) + ' is empty: >> must have a selector on both sides, as form >> text=Submit');
    let engine = 'css', body = part;
    const eq = part.indexOf('=');
    if (eq > 0 && /^[\w:+-]+$/.test(part.slice(0, eq).trim())) {
      engine = part.slice(0, eq).trim().toLowerCase();
      body = part.slice(eq + 1);
    } else if (part.startsWith('//') || part.startsWith('..') || part.startsWith('(//')) engine = 'xpath';
    else if (part[0] === '"' || part[0] === "'") engine = 'text';
    else if (/^e\d+$/.test(part)) engine = 'ref';
    const p = compileEngine(engine, body, what);
    p.capture = capture;
    return p;
  };
  const nested = (body, what) => {
    const b = body.trim();
    if (!quoted(b) || b[0] !== '"') fail(what + ': takes a quoted selector, as internal:has="text=Sign in"');
    let s;
    try { s = JSON.parse(b); } catch (e) { fail(what + ': the quoted selector is not a JSON string'); }
    return parse(s);
  };
  const compileEngine = (engine, body, what) => {
    switch (engine) {
      case 'css': {
        const list = parseCSS(body, what);
        if (list.some((cx) => cx[0].comb)) fail(what + ': a CSS selector cannot start with the combinator ' + list.find((cx) => cx[0].comb)[0].comb + '; write the element before it, as form > button, or :has(> button) to ask for a child');
        return { kind: 'query', run: (q, root) => queryCSS(q, root, list, body) };
      }
      case 'xpath': {
        const x = body.trim();
        if (!x) fail(what + ': the XPath is empty; write xpath=//form//button[@type="submit"]');
        try {
          document.createExpression(x);
        } catch (e) {
          fail(what + ': not a valid XPath expression; an XPath selector is as xpath=//form//button[@type="submit"]');
        }
        return {
          kind: 'query',
          run: (q, root) => {
            const rel = root.nodeType !== 9 && x.startsWith('/') ? '.' + x : x;
            const r = (root.ownerDocument || root).evaluate(rel, root, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
            const out = [];
            for (let i = 0; i < r.snapshotLength; i++) if (r.snapshotItem(i).nodeType === 1) out.push(r.snapshotItem(i));
            return out;
          },
        };
      }
      case 'text': case 'internal:text': {
        if (!body.trim()) fail(what + ': the text is empty; write text=Sign in, text="Sign in" (exact) or text=/sign ?in/i');
        const spec = Object.assign(textSpec(body, engine !== 'text', what), { internal: engine !== 'text' });
        return { kind: 'query', run: (q, root) => queryText(q, root, spec), text: true };
      }
      case 'role': case 'internal:role': {
        const spec = parseRole(body, what);
        return { kind: 'query', run: (q, root) => queryRole(q, root, spec) };
      }
      case 'id': case 'data-testid': case 'data-test-id': case 'data-test': {
        const v = quoted(body.trim()) ? unquote(body.trim()) : body.trim();
        if (!v) fail(what + ': the value is empty; write ' + engine + '=submit');
        return { kind: 'query', run: (q, root) => queryAttr(root, engine, (s) => s === v) };
      }
      case 'internal:testid': case 'internal:attr': {
        const spec = attrSpec(body, what);
        return { kind: 'query', run: (q, root) => queryAttr(root, spec.attr, spec.test) };
      }
      case 'internal:label': {
        const spec = textSpec(body, true, what);
        const test = (s) => spec.m({ full: s, normalized: normalize(s), immediate: [s] });
        return { kind: 'query', run: (q, root) => descendants(root, true).filter((el) => labelTexts(el).some(test)) };
      }
      case 'ref': {
        const id = body.trim();
        if (!/^e\d+$/.test(id)) fail(what + ': a ref is as e12, from browser_snapshot');
        return { kind: 'query', run: (q, root) => { const el = hooks.ref(id); return el && (root === el || contains(root.nodeType === 9 ? root.documentElement : root, el)) ? [el] : []; } };
      }
      case 'nth': {
        const n = Number(body.trim());
        if (!/^-?\d+$/.test(body.trim())) fail(what + ': nth= takes a whole number from 0 (nth=0 is the first, nth=-1 the last)');
        return { kind: 'nth', n };
      }
      case 'visible': {
        const v = body.trim();
        if (v !== 'true' && v !== 'false') fail(what + ': visible= takes true or false');
        return { kind: 'filter', keep: (q, el) => visible(el) === (v === 'true') };
      }
      case 'internal:has-text': case 'internal:has-not-text': {
        const spec = textSpec(body, true, what);
        const not = engine === 'internal:has-not-text';
        return { kind: 'filter', keep: (q, el) => (matchText(q.text, el, spec.m) !== 'none') !== not };
      }
      case 'internal:has': case 'internal:has-not': {
        const inner = nested(body, what);
        const not = engine === 'internal:has-not';
        return { kind: 'filter', keep: (q, el) => (run(q, inner, el).length > 0) !== not };
      }
      case 'internal:and': case 'internal:or': {
        const inner = nested(body, what);
        return { kind: engine.slice(9), inner };
      }
    }
    if (engine === testIdAttr()) {
      const v = quoted(body.trim()) ? unquote(body.trim()) : body.trim();
      return { kind: 'query', run: (q, root) => queryAttr(root, engine, (s) => s === v) };
    }
    const hint = engineHints[engine];
    fail(what + ': "' + engine + '=" is not a selector engine' + (hint ? ': ' + hint : '') + '. The engines are ' + engineNames + '; a part without one is CSS');
  };

  // parse reads a whole selector (cached).
  const cache = new Map();
  const parse = (sel) => {
    let c = cache.get(sel);
    if (c) return c;
    const api = sel.trim().match(/^(?:page\.)?(getBy(?:Role|Text|Label|Placeholder|TestId|AltText|Title)|locator)\(/);
    if (api) fail('this is Playwright\'s JavaScript API (' + api[1] + '), not a selector: ' + translateAPI(sel.trim()));
    const raw = splitTop(sel, '>>');
    const parts = raw.map((r, i) => compilePart(r, i));
    if (parts[0].kind === 'nth') fail('nth= picks among the matches of the part before it, as li >> nth=0; it cannot come first');
    if (parts.filter((p) => p.capture).length > 1) fail('only one part may be marked * (the element to act on)');
    c = { parts };
    if (cache.size > 500) cache.clear();
    cache.set(sel, c);
    return c;
  };
  // translateAPI says which selector a getBy... call is.
  const translateAPI = (s) => {
    const str = (x) => (x ? x.replace(/^['"`]|['"`]$/g, '') : '');
    let m;
    if ((m = s.match(/getByRole\(\s*(['"`][^'"`]+['"`])\s*(?:,\s*\{\s*name\s*:\s*(['"`][^'"`]*['"`]|\/[^/]+\/[a-z]*)\s*(,\s*exact\s*:\s*true)?)?/))) {
      return 'write role=' + str(m[1]) + (m[2] ? '[name=' + (m[2][0] === '/' ? m[2] : JSON.stringify(str(m[2])) + (m[3] ? 's' : '')) + ']' : '');
    }
    if ((m = s.match(/getByText\(\s*(['"`][^'"`]*['"`])/))) return 'write text=' + str(m[1]) + ' (or text="' + str(m[1]) + '" for the exact text)';
    if ((m = s.match(/getByLabel\(\s*(['"`][^'"`]*['"`])/))) return 'write internal:label=' + JSON.stringify(str(m[1])) + 'i';
    if ((m = s.match(/getByPlaceholder\(\s*(['"`][^'"`]*['"`])/))) return 'write [placeholder="' + str(m[1]) + '"]';
    if ((m = s.match(/getByTestId\(\s*(['"`][^'"`]*['"`])/))) return 'write ' + testIdAttr() + '=' + str(m[1]);
    if ((m = s.match(/getByAltText\(\s*(['"`][^'"`]*['"`])/))) return 'write [alt="' + str(m[1]) + '"]';
    if ((m = s.match(/getByTitle\(\s*(['"`][^'"`]*['"`])/))) return 'write [title="' + str(m[1]) + '"]';
    if ((m = s.match(/locator\(\s*(['"`])(.*)\1\s*\)$/))) return 'write ' + m[2];
    return 'write its selector, as role=button[name="Save"], text=Save or #save';
  };

  // run evaluates parsed selector c under root.
  const run = (q, c, root) => {
    let cur = [root];
    const roots = [];
    let captured = null;
    for (let k = 0; k < c.parts.length; k++) {
      const p = c.parts[k];
      const before = cur;
      switch (p.kind) {
        case 'nth': {
          const i = p.n < 0 ? cur.length + p.n : p.n;
          cur = i >= 0 && i < cur.length ? [cur[i]] : [];
          break;
        }
        case 'filter': cur = cur.filter((el) => p.keep(q, el)); break;
        case 'and': case 'or': {
          const scopes = roots[k - 1] || [root];
          const other = new Set();
          for (const r of scopes) for (const el of run(q, p.inner, r)) other.add(el);
          if (p.kind === 'and') cur = cur.filter((el) => other.has(el));
          else {
            const all = new Set([...cur, ...other]);
            cur = [...all].sort((a, b) => (a === b ? 0 : a.compareDocumentPosition(b) & 2 ? 1 : -1));
          }
          break;
        }
        default: {
          const next = new Set();
          for (const r of cur) for (const el of p.run(q, r)) next.add(el);
          cur = [...next];
        }
      }
      roots[k] = before;
      if (p.capture) {
        // The elements of this part that lead to a match of the rest.
        const rest = { parts: c.parts.slice(k + 1) };
        if (rest.parts.length) cur = cur.filter((el) => run(newQuery(el), rest, el).length > 0);
        captured = cur;
        break;
      }
    }
    return captured || cur;
  };
  const newQuery = (root) => {
    let sh;
    return { root, text: new Map(), nth: new Map(), shadow: (r) => (r === root ? (sh === undefined ? (sh = hasShadow(r)) : sh) : hasShadow(r)) };
  };

  // query finds the elements sel matches under root (the document).
  const query = (sel, root) => {
    root = root || document;
    const c = parse(String(sel));
    return withMemo(() => run(newQuery(root), c, root));
  };
  // endsWithText says whether the selector's last part finds by text.
  const endsWithText = (sel) => {
    const c = parse(String(sel));
    return !!c.parts[c.parts.length - 1].text;
  };

  // hooks lets the helper resolve snapshot refs (ref=e12, e12).
  const hooks = { ref: () => null };

  return { hooks, withMemo, style, query, endsWithText, visible, role, accessibleName, hiddenForAria };
})();
