// BarrHawk's accessibility audit: WCAG 2.x checks run in the page. It
// returns {violations: [{rule, wcag, impact, selector, message, html}],
// passes, checked}. Called as a function of {scope, rules}.
(opts) => {
  // The scope is any selector the browser tools take (the page helper
  // reads it: CSS, text=, role=, xpath= or a snapshot ref).
  let scope = document.documentElement;
  if (opts.scope) {
    try {
      scope = (window.__bh ? window.__bh.resolve(opts.scope) : [...document.querySelectorAll(opts.scope)])[0];
    } catch (e) {
      return { invalid: String(e.message || e).split('\n')[0] };
    }
  }
  if (!scope) return { error: 'no element matches the scope ' + JSON.stringify(opts.scope) };
  const only = opts.rules && opts.rules.length ? new Set(opts.rules) : null;
  const violations = [];
  let passes = 0;
  const checked = [];

  const cssPath = (el) => {
    if (el.id && document.querySelectorAll('#' + CSS.escape(el.id)).length === 1) return '#' + CSS.escape(el.id);
    const parts = [];
    for (let e = el; e && e.nodeType === 1 && e !== document.documentElement; e = e.parentElement) {
      if (e.id && document.querySelectorAll('#' + CSS.escape(e.id)).length === 1) { parts.unshift('#' + CSS.escape(e.id)); break; }
      let i = 1;
      for (let s = e.previousElementSibling; s; s = s.previousElementSibling) if (s.tagName === e.tagName) i++;
      parts.unshift(e.tagName.toLowerCase() + ':nth-of-type(' + i + ')');
    }
    return parts.length ? parts.join(' > ') : 'html';
  };
  const html = (el) => { const h = el.outerHTML; const end = h.indexOf('>') + 1; return (end > 0 ? h.slice(0, end) : h).slice(0, 200); };
  const visible = (el) => {
    const st = getComputedStyle(el);
    if (st.display === 'none' || st.visibility === 'hidden') return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  // rendered: not display: none nor visibility: hidden (an empty link has
  // no box, yet a keyboard reaches it).
  const rendered = (el) => { const st = getComputedStyle(el); return st.display !== 'none' && st.visibility !== 'hidden'; };
  // The scope element counts too: a scope of one button checks that button.
  const inScope = (sel) => [...(scope.matches(sel) ? [scope] : []), ...scope.querySelectorAll(sel)].filter((el) => !el.closest('[aria-hidden="true"]'));
  const nameOf = (el) => (window.__bh ? window.__bh.name(el) : (el.getAttribute('aria-label') || el.textContent || '')).trim();

  const rule = (id, wcag, impact, run) => {
    if (only && !only.has(id)) return;
    checked.push(id);
    const found = [];
    run((el, message, selector) => found.push({ rule: id, wcag, impact, selector: selector || (el ? cssPath(el) : 'html'), message, html: el ? html(el) : '' }));
    if (found.length) violations.push(...found); else passes++;
  };

  rule('image-alt', '1.1.1', 'critical', (report) => {
    for (const el of inScope('img')) if (!el.hasAttribute('alt') && !el.getAttribute('aria-label') && !el.getAttribute('aria-labelledby') && el.getAttribute('role') !== 'presentation') report(el, 'Image has no alt text: add alt="..." (or alt="" if it is decorative)');
    for (const el of inScope('input[type=image]')) if (!el.getAttribute('alt') && !el.getAttribute('aria-label')) report(el, 'Image button has no alt text');
  });

  rule('label', '1.3.1, 4.1.2', 'critical', (report) => {
    for (const el of inScope('input, select, textarea')) {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (['hidden', 'submit', 'button', 'reset', 'image'].includes(t)) continue;
      let named = !!(el.getAttribute('aria-label') || '').trim() || !!el.getAttribute('aria-labelledby') || !!(el.getAttribute('title') || '').trim();
      if (!named && el.id) { const l = document.querySelector('label[for="' + CSS.escape(el.id) + '"]'); named = !!(l && l.textContent.trim()); }
      if (!named) { const l = el.closest('label'); named = !!(l && l.textContent.trim()); }
      if (!named) report(el, 'Form field has no label: add <label for>, wrap it in a <label>, or give aria-label' + (el.getAttribute('placeholder') ? ' (a placeholder is not a label)' : ''));
    }
  });

  const lum = (c) => {
    const v = c / 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
  };
  const parse = (s) => { const m = s.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(',').map((x) => parseFloat(x)); return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 }; };
  const blend = (top, bottom) => ({ r: top.r * top.a + bottom.r * (1 - top.a), g: top.g * top.a + bottom.g * (1 - top.a), b: top.b * top.a + bottom.b * (1 - top.a), a: 1 });
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (let i = layers.length - 1; i >= 0; i--) bg = blend(layers[i], bg);
    return bg;
  };
  const ratio = (a, b) => {
    const la = 0.2126 * lum(a.r) + 0.7152 * lum(a.g) + 0.0722 * lum(a.b);
    const lb = 0.2126 * lum(b.r) + 0.7152 * lum(b.g) + 0.0722 * lum(b.b);
    return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
  };
  rule('color-contrast', '1.4.3', 'serious', (report) => {
    for (const el of inScope('*')) {
      if (['SCRIPT', 'STYLE', 'NOSCRIPT', 'TITLE', 'HEAD', 'META', 'OPTION'].includes(el.tagName)) continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      if (!own || !visible(el)) continue;
      const st = getComputedStyle(el);
      let fg = parse(st.color);
      if (!fg) continue;
      const bg = background(el);
      if (fg.a < 1) fg = blend(fg, bg);
      const size = parseFloat(st.fontSize);
      const bold = parseInt(st.fontWeight, 10) >= 700;
      const large = size >= 24 || (bold && size >= 18.66);
      const need = large ? 3 : 4.5;
      const r = ratio(fg, bg);
      if (r < need) report(el, 'Text contrast is ' + r.toFixed(2) + ':1, below ' + need + ':1 (' + st.color + ' on rgb(' + [bg.r, bg.g, bg.b].map(Math.round).join(', ') + '))');
    }
  });

  rule('heading-order', '1.3.1', 'moderate', (report) => {
    let last = 0;
    for (const el of inScope('h1, h2, h3, h4, h5, h6, [role=heading]')) {
      const level = parseInt(el.getAttribute('aria-level') || el.tagName.slice(1), 10) || 2;
      if (last && level > last + 1) report(el, 'Heading level jumps from h' + last + ' to h' + level + '; do not skip levels');
      last = level;
    }
  });

  rule('page-has-heading-one', '1.3.1', 'moderate', (report) => {
    if (!document.querySelector('h1, [role=heading][aria-level="1"]')) report(null, 'The page has no h1 heading');
  });

  rule('landmark-one-main', '1.3.1', 'moderate', (report) => {
    if (!document.querySelector('main, [role=main]')) report(null, 'The page has no main landmark: wrap the main content in <main>');
  });

  rule('duplicate-id', '4.1.1', 'minor', (report) => {
    const seen = new Map();
    for (const el of scope.querySelectorAll('[id]')) seen.set(el.id, (seen.get(el.id) || 0) + 1);
    for (const [id, n] of seen) if (n > 1) report(document.getElementById(id), 'The id "' + id + '" is used ' + n + ' times; ids must be unique', '[id="' + id + '"]');
  });

  rule('button-name', '4.1.2', 'critical', (report) => {
    for (const el of inScope('button, [role=button], input[type=submit], input[type=button], input[type=reset]')) {
      if (!rendered(el)) continue;
      const n = el.tagName === 'INPUT' ? (el.value || el.getAttribute('aria-label') || (el.type === 'submit' || el.type === 'reset' ? 'default' : '')) : nameOf(el);
      if (!String(n).trim()) report(el, 'Button has no accessible name: give it text or aria-label');
    }
  });

  rule('link-name', '2.4.4, 4.1.2', 'serious', (report) => {
    for (const el of inScope('a[href]')) {
      if (!rendered(el)) continue;
      let n = nameOf(el);
      if (!n) for (const img of el.querySelectorAll('img[alt]')) n += img.alt;
      if (!n.trim()) report(el, 'Link has no accessible name: give it text, aria-label, or an image with alt');
    }
  });

  rule('html-has-lang', '3.1.1', 'serious', (report) => {
    if (!(document.documentElement.getAttribute('lang') || '').trim()) report(document.documentElement, 'The <html> element has no lang attribute');
  });

  rule('document-title', '2.4.2', 'serious', (report) => {
    if (!document.title.trim()) report(null, 'The document has no <title>');
  });

  rule('tabindex', '2.4.3', 'serious', (report) => {
    for (const el of inScope('[tabindex]')) if (parseInt(el.getAttribute('tabindex'), 10) > 0) report(el, 'tabindex="' + el.getAttribute('tabindex') + '" changes the tab order; use 0 or -1');
  });

  rule('frame-title', '4.1.2', 'serious', (report) => {
    for (const el of inScope('iframe, frame')) if (!(el.getAttribute('title') || '').trim() && !el.getAttribute('aria-label')) report(el, 'Frame has no title');
  });

  const roles = new Set(('alert alertdialog application article banner blockquote button caption cell checkbox code columnheader combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form generic grid gridcell group heading img insertion link list listbox listitem log main marquee math menu menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem').split(' '));
  rule('aria-valid-role', '4.1.2', 'critical', (report) => {
    for (const el of inScope('[role]')) {
      const bad = el.getAttribute('role').trim().split(/\s+/).filter((r) => r && !roles.has(r));
      if (bad.length) report(el, 'Unknown ARIA role "' + bad.join(' ') + '"');
    }
  });

  return { violations, passes, checked };
}
