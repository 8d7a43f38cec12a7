// accessibility_audit's run of axe-core (window.axe) in the page, called as
// a function of {scope, rules, tags, levelTags, maxNodes, textChars,
// injected}. It answers one of:
//   {missing: true}: the page or one of its same-origin frames lacks axe
//     (the caller injects it and calls again with injected: true), or
//     after that the page still lacks it;
//   {badRules, badTags, ruleIds, tags}: names axe does not know;
//   {gone: true}: the scope element went away after the caller found it;
//   {version, ran, violations, incomplete, passes, inapplicable}: the
//     results, each rule as {rule, impact, wcag, count, selectors, message,
//     help, helpUrl}, with at most maxNodes selectors.
async (o) => {
  const lacks = (w) => {
    try {
      if (!w.axe) return true;
    } catch (e) {
      return false; // a cross-origin frame: axe reports it as frame-tested
    }
    for (let i = 0; i < w.frames.length; i++) if (lacks(w.frames[i])) return true;
    return false;
  };
  if (o.injected ? !window.axe : lacks(window)) return { missing: true };

  const known = axe.getRules();
  const ids = new Set(known.map((r) => r.ruleId));
  const tags = new Set(known.flatMap((r) => r.tags));
  const badRules = (o.rules || []).filter((r) => !ids.has(r));
  const badTags = (o.tags || []).filter((t) => !tags.has(t));
  if (badRules.length || badTags.length) return { badRules, badTags, ruleIds: [...ids].sort(), tags: [...tags].sort() };

  // The scope was found by the tool's selector engine just before.
  let context = document;
  if (o.scope) {
    context = window.__bh && window.__bh.pick(o.scope);
    if (!context) return { gone: true };
  }
  const runOnly = o.rules && o.rules.length
    ? { type: 'rule', values: o.rules }
    : { type: 'tag', values: o.tags && o.tags.length ? o.tags : o.levelTags.filter((t) => tags.has(t)) };
  const r = await axe.run(context, { runOnly, resultTypes: ['violations', 'incomplete'], iframes: true, elementRef: false, ancestry: false, xpath: false });

  const cut = (s) => {
    s = String(s || '').replace(/\s+/g, ' ').trim();
    return s.length > o.textChars ? s.slice(0, o.textChars) + '…' : s;
  };
  // A target is one selector per frame, the frame first; a selector into
  // a shadow root is one selector per shadow host, the host first.
  const target = (t) => cut(t.map((part) => (Array.isArray(part) ? part.join(' >>> ') : part)).join(' >> '));
  // wcag143 is success criterion 1.4.3; wcag21aa (a level) is not one.
  const wcag = (ts) => ts.map((t) => /^wcag(\d)(\d)(\d{1,2})$/.exec(t)).filter(Boolean).map((m) => m[1] + '.' + m[2] + '.' + m[3]);
  const compact = (results) => results.map((v) => ({
    rule: v.id,
    impact: v.impact || '',
    wcag: wcag(v.tags),
    count: v.nodes.length,
    selectors: v.nodes.slice(0, o.maxNodes).map((n) => target(n.target)),
    message: cut((v.nodes[0] && v.nodes[0].failureSummary) || v.description),
    help: v.help,
    helpUrl: v.helpUrl,
  }));
  return {
    version: r.testEngine.version,
    ran: runOnly,
    violations: compact(r.violations),
    incomplete: compact(r.incomplete),
    passes: r.passes.length,
    inapplicable: r.inapplicable.length,
  };
}
