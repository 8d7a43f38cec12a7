package browserassert

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/closest"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// axeSource is axe-core, vendored from the npm registry by
// scripts/vendor-axe (axe/README.md says which version and how).
//
//go:embed axe/axe.min.js
var axeSource string

//go:embed axerun.js
var axeRunJS string

// AxeVersion is the version of the vendored axe-core, as its first line
// names it ("/*! axe v4.14.1").
var AxeVersion = axeVersionOf(axeSource)

func axeVersionOf(src string) string {
	m := regexp.MustCompile(`^/\*! axe v(\S+)`).FindStringSubmatch(src)
	if m == nil {
		panic("browserassert: axe/axe.min.js does not begin with /*! axe vX.Y.Z; re-vendor it with scripts/vendor-axe")
	}
	return m[1]
}

// injectAxe runs axe-core in the page and in each same-origin frame that
// lacks it. The page's own AMD loader (require.js) is hidden from it, so
// that axe sets window.axe instead of defining a module. A frame gets the
// same source through the loader function's text. Built when first needed:
// it holds all of axe's half megabyte.
var injectAxe = sync.OnceValue(func() string {
	return `(() => {
const load = function () { const define = undefined, module = undefined, exports = undefined;
` + axeSource + `
};
const walk = (w) => {
  try { if (!w.axe) { if (w === window) load(); else w.eval('(' + load + ')()'); } } catch (e) { return; }
  for (let i = 0; i < w.frames.length; i++) walk(w.frames[i]);
};
walk(window);
return window.axe ? window.axe.version : null;
})()`
})

// impacts are axe's impact levels, least severe first.
var impacts = []string{"minor", "moderate", "serious", "critical"}

// renamed maps rules of BarrHawk's former audit to the axe rule that
// checks the same thing under another id; the other 13 kept their ids.
var renamed = map[string]string{"aria-valid-role": "aria-roles"}

// Finding is one axe rule that failed (a violation) or needs a person to
// look (incomplete), with the elements it concerns.
type Finding struct {
	// Rule is axe's rule id (image-alt, color-contrast, ...).
	Rule string `json:"rule"`
	// Impact is minor, moderate, serious or critical ("" when axe gives
	// none, as for some incomplete results).
	Impact string `json:"impact"`
	// WCAG lists the success criteria the rule checks ("1.4.3"); empty
	// for a best practice.
	WCAG []string `json:"wcag"`
	// Count is how many elements failed; Selectors names the first few.
	Count     int      `json:"count"`
	Selectors []string `json:"selectors"`
	// Message is axe's summary of the first element's failure.
	Message string `json:"message"`
	Help    string `json:"help"`
	HelpURL string `json:"helpUrl"`
}

// axeResult is what axerun.js answers.
type axeResult struct {
	Missing      bool           `json:"missing"`
	Gone         bool           `json:"gone"`
	BadRules     []string       `json:"badRules"`
	BadTags      []string       `json:"badTags"`
	RuleIDs      []string       `json:"ruleIds"`
	Tags         []string       `json:"tags"`
	Version      string         `json:"version"`
	Ran          map[string]any `json:"ran"`
	Violations   []Finding      `json:"violations"`
	Incomplete   []Finding      `json:"incomplete"`
	Passes       int            `json:"passes"`
	Inapplicable int            `json:"inapplicable"`
}

// auditArgs are accessibility_audit's arguments.
type auditArgs struct {
	Selector     string   `json:"selector"`
	Level        string   `json:"level"`
	WCAGVersion  string   `json:"wcagVersion"`
	BestPractice *bool    `json:"bestPractice"`
	Tags         []string `json:"tags"`
	Rules        []string `json:"rules"`
	MinImpact    string   `json:"minImpact"`
	MaxNodes     int      `json:"maxNodes"`
	MaxBytes     int      `json:"maxBytes"`
}

// Defaults and bounds of the audit's arguments.
const (
	defaultLevel    = "AA"
	defaultVersion  = "2.2"
	defaultMaxNodes = 5
	maxMaxNodes     = 100
	defaultMaxBytes = 30_000
	minMaxBytes     = 2_000
	maxMaxBytes     = 90_000
	// textChars bounds each message and selector.
	textChars = 300
)

var (
	levels   = []string{"A", "AA", "AAA"}
	versions = []string{"2.0", "2.1", "2.2"}
)

// levelTags are the axe tags of WCAG version's criteria up to level, and
// best-practice if asked: 2.2 AA is wcag2a, wcag2aa, wcag21a, wcag21aa,
// wcag22a, wcag22aa. Tags axe has no rule for (wcag22a) are passed over
// in the page.
func levelTags(level, version string, bestPractice bool) []string {
	var tags []string
	for _, v := range versions[:slices.Index(versions, version)+1] {
		prefix := "wcag" + strings.TrimSuffix(strings.ReplaceAll(v, ".", ""), "0")
		for _, l := range levels[:slices.Index(levels, level)+1] {
			tags = append(tags, prefix+strings.ToLower(l))
		}
	}
	if bestPractice {
		tags = append(tags, "best-practice")
	}
	return tags
}

func audit() tool.Tool {
	d := tool.Def{Name: "accessibility_audit", Group: "Accessibility", Category: tool.CategoryBrowser, RequiresWorker: true,
		Phrases: []string{"a11y violations", "wcag compliance", "accessibility scan", "color contrast", "screen reader issues", "ada compliance", "lighthouse accessibility", "missing alt text", "section 508", "aria errors"},
		Description: "Check the active page for accessibility problems with axe-core " + AxeVersion + " (Deque's engine, as in Lighthouse), injected into the page when absent: " +
			"WCAG 2.0, 2.1 and 2.2 at level A, AA or AAA, and axe's best practices; by default WCAG 2.2 AA plus best practices. " +
			"Returns {url, axeVersion, ran (the axe tags or rules run), violations: [{rule, impact, wcag: [\"1.4.3\"], count, selectors, message, help, helpUrl}] most severe first, " +
			"incomplete (what axe could not decide and a person should check, same shape), count, nodes, summary (rules by impact), passes, inapplicable (rule counts), cut, notes}. " +
			"Every rule is axe's: the 14 rules of BarrHawk's former audit are all axe rules (aria-valid-role is axe's aria-roles), so none of its own remain.",
		Input: schema.Object(
			schema.String("selector", `Audit only this element and what it holds: any selector the browser tools take (CSS, text=..., role=main, role=form[name="Sign in"], A >> B, xpath=...) or a snapshot ref (e12). Page-wide rules (document-title, html-has-lang, landmarks) run only without it`),
			schema.String("level", "WCAG conformance level: A, AA (includes A) or AAA (includes both)").EnumStrings(levels...).Default(defaultLevel),
			schema.String("wcagVersion", "WCAG version: 2.2 includes the criteria of 2.1 and 2.0").EnumStrings(versions...).Default(defaultVersion),
			schema.Boolean("bestPractice", "Also run axe's best-practice rules (heading-order, landmark-one-main, region, ...), which are not WCAG criteria").Default(true),
			schema.Array("tags", "axe rule tags to run instead of level, wcagVersion and bestPractice: wcag2a, wcag2aa, wcag2aaa, wcag21a, wcag21aa, wcag22aa, best-practice, section508, EN-301-549, experimental, cat.color, wcag143, ...", schema.StringItems()).Min(1),
			schema.Array("rules", "Run only these axe rule ids (image-alt, label, color-contrast, ...), whatever their tags; not with tags", schema.StringItems()).Min(1),
			schema.String("minImpact", "Report only findings at least this severe").EnumStrings(impacts...).Default("minor"),
			schema.Integer("maxNodes", "Selectors shown per rule (count says how many elements failed)").Default(defaultMaxNodes).Min(1).Max(maxMaxNodes),
			schema.Integer("maxBytes", "Bound on the findings' JSON: past it the least severe rules are left out, named in notes").Default(defaultMaxBytes).Min(minMaxBytes).Max(maxMaxBytes),
		)}
	return tool.Tool{Def: d, Run: runOn(func(ctx context.Context, p *browser.Page, in auditArgs) (any, error) {
		var notes []string
		if len(in.Tags) > 0 && len(in.Rules) > 0 {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "arguments \"tags\" and \"rules\": give one of them (tags selects rules by tag, rules names them), not both")
		}
		for i, r := range in.Rules {
			if to, ok := renamed[r]; ok {
				in.Rules[i] = to
				notes = append(notes, fmt.Sprintf("rule %s is axe's %s: it ran under that id", r, to))
			}
		}
		in = in.withDefaults()
		if in.Selector != "" {
			// The scope is found as every browser tool finds its element:
			// the same waiting, errors and candidates.
			if _, err := p.Find(ctx, in.Selector, browser.FindOptions{State: "attached"}); err != nil {
				return nil, err
			}
		}
		res, err := runAxe(ctx, p, in)
		if err != nil {
			return nil, err
		}
		u, _ := p.URL(ctx)
		return answer(u, res, in, notes), nil
	})}
}

// answer is the audit's result: the findings at least as severe as asked,
// most severe first, bounded by maxNodes and maxBytes, with notes saying
// what was cut.
func answer(url string, res *axeResult, in auditArgs, notes []string) map[string]any {
	if res.Version != AxeVersion {
		notes = append(notes, fmt.Sprintf("the page has axe-core %s of its own (window.axe), which ran instead of the vendored %s", res.Version, AxeVersion))
	}
	violations, incomplete := filterImpact(res.Violations, in.MinImpact), filterImpact(res.Incomplete, in.MinImpact)
	nodes, manyNodes := 0, false
	summary := map[string]int{"critical": 0, "serious": 0, "moderate": 0, "minor": 0}
	for _, v := range violations {
		nodes += v.Count
		summary[v.Impact]++
	}
	for _, f := range slices.Concat(violations, incomplete) {
		manyNodes = manyNodes || f.Count > in.MaxNodes
	}
	if manyNodes {
		notes = append(notes, fmt.Sprintf("selectors name the first %d elements of each rule (maxNodes); count says how many failed", in.MaxNodes))
	}
	count := len(violations)
	violations, incomplete, cutNote := bound(violations, incomplete, in.MaxBytes)
	if cutNote != "" {
		notes = append(notes, cutNote)
	}
	out := map[string]any{"url": url, "axeVersion": res.Version, "ran": res.Ran, "violations": violations, "incomplete": incomplete,
		"count": count, "nodes": nodes, "summary": summary, "passes": res.Passes, "inapplicable": res.Inapplicable, "cut": cutNote != "" || manyNodes}
	if len(notes) > 0 {
		out["notes"] = notes
	}
	return out
}

// withDefaults fills in the defaults the schema states.
func (in auditArgs) withDefaults() auditArgs {
	in.Level = cmp.Or(in.Level, defaultLevel)
	in.WCAGVersion = cmp.Or(in.WCAGVersion, defaultVersion)
	in.MinImpact = cmp.Or(in.MinImpact, "minor")
	in.MaxNodes = cmp.Or(in.MaxNodes, defaultMaxNodes)
	in.MaxBytes = cmp.Or(in.MaxBytes, defaultMaxBytes)
	if in.BestPractice == nil {
		yes := true
		in.BestPractice = &yes
	}
	return in
}

// runAxe runs axerun.js, injecting axe-core first when the page lacks it.
func runAxe(ctx context.Context, p *browser.Page, in auditArgs) (*axeResult, error) {
	opts := map[string]any{"scope": in.Selector, "rules": in.Rules, "tags": in.Tags, "levelTags": levelTags(in.Level, in.WCAGVersion, *in.BestPractice),
		"maxNodes": in.MaxNodes, "textChars": textChars, "injected": false}
	var res axeResult
	for {
		arg, err := json.Marshal(opts)
		if err != nil {
			return nil, tool.Errorf(tool.CodeInternal, "audit options: %v", err)
		}
		raw, err := p.Evaluate(ctx, axeRunJS, arg)
		if err != nil {
			return nil, fmt.Errorf("run axe-core: %w", err)
		}
		res = axeResult{}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, tool.Errorf(tool.CodeInternal, "axe-core's answer %.200s: %v", raw, err)
		}
		if !res.Missing {
			break
		}
		if opts["injected"] == true {
			return nil, tool.Errorf(tool.CodeToolError, "axe-core %s was injected into the page, yet window.axe is missing: the page navigated meanwhile, or replaced window.axe; run the audit again once it has loaded", AxeVersion)
		}
		if _, err := p.Evaluate(ctx, injectAxe(), nil); err != nil {
			return nil, fmt.Errorf("inject axe-core %s: %w", AxeVersion, err)
		}
		opts["injected"] = true
	}
	switch {
	case len(res.BadRules) > 0:
		return nil, unknownNames("rules", "rule", res.BadRules, res.RuleIDs, res.RuleIDs)
	case len(res.BadTags) > 0:
		return nil, unknownNames("tags", "tag", res.BadTags, res.Tags, mainTags(res.Tags))
	case res.Gone:
		return nil, tool.Errorf(tool.CodeElementNotFound, "argument \"selector\": %q matched an element that was gone when the audit began (removed by the page's scripts); try again", in.Selector)
	}
	return &res, nil
}

// unknownNames is the INVALID_ARGS error for names axe does not know,
// with the nearest known ones and the accepted values.
func unknownNames(arg, what string, bad, known, shown []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "argument %q: axe-core %s has no %s", arg, AxeVersion, what)
	for i, n := range bad {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %q", n)
		if near := closest.Names(n, known, 1); len(near) > 0 {
			fmt.Fprintf(&b, " (did you mean %q?)", near[0])
		}
	}
	fmt.Fprintf(&b, "; accepted: %s", strings.Join(shown, ", "))
	if len(shown) < len(known) {
		b.WriteString(", or a criterion's tag such as wcag143, EN-9.1.4.3, RGAA-3.2.1")
	}
	return tool.Errorf(tool.CodeInvalidArgs, "%s", b.String())
}

// criterionTag is a tag naming one criterion of a standard (wcag143,
// EN-9.1.4.3, section508.22.a, TT13.c, RGAA-3.2.1), not a standard or a
// level.
var criterionTag = regexp.MustCompile(`^(wcag\d{3,}|EN-\d|RGAA-\d|TT\d|section508\.)`)

// mainTags are the tags that are not a criterion's.
func mainTags(tags []string) []string {
	return slices.DeleteFunc(slices.Clone(tags), criterionTag.MatchString)
}

// filterImpact keeps the findings at least as severe as min, most severe
// first (then the most elements, then by rule). A finding without impact
// (some incomplete ones) is kept only when min is minor, the least.
func filterImpact(fs []Finding, min string) []Finding {
	floor := slices.Index(impacts, min)
	out := slices.DeleteFunc(slices.Clone(fs), func(f Finding) bool {
		if f.Impact == "" {
			return floor > 0
		}
		return slices.Index(impacts, f.Impact) < floor
	})
	slices.SortStableFunc(out, func(a, b Finding) int {
		return cmp.Or(slices.Index(impacts, b.Impact)-slices.Index(impacts, a.Impact), b.Count-a.Count, strings.Compare(a.Rule, b.Rule))
	})
	return out
}

// bound keeps the findings, violations then incomplete ones, each most
// severe first, while their JSON fits in maxBytes. The first that does not
// fit keeps as many of its selectors as fit (one at least); the rest are
// left out. The note says what was cut.
func bound(violations, incomplete []Finding, maxBytes int) ([]Finding, []Finding, string) {
	room, full := maxBytes, false
	var shrunk string
	take := func(fs []Finding) ([]Finding, []string) {
		kept := []Finding{}
		var left []string
		for _, f := range fs {
			if !full {
				n, had := size(f), len(f.Selectors)
				for n > room && len(f.Selectors) > 1 {
					f.Selectors = f.Selectors[:len(f.Selectors)-1]
					n = size(f)
				}
				if n <= room {
					room -= n
					kept = append(kept, f)
					if full = len(f.Selectors) < had; full {
						shrunk = fmt.Sprintf(" %s names %d of its %d elements;", f.Rule, len(f.Selectors), f.Count)
					}
					continue
				}
				full = true
			}
			left = append(left, f.Rule)
		}
		return kept, left
	}
	v, leftV := take(violations)
	in, leftI := take(incomplete)
	if !full {
		return v, in, ""
	}
	note := fmt.Sprintf("the findings were cut at maxBytes %d:%s", maxBytes, shrunk)
	if len(leftV) > 0 {
		note += fmt.Sprintf(" %d violated rules left out (%s);", len(leftV), strings.Join(leftV, ", "))
	}
	if len(leftI) > 0 {
		note += fmt.Sprintf(" %d incomplete rules left out (%s);", len(leftI), strings.Join(leftI, ", "))
	}
	return v, in, note + fmt.Sprintf(" raise maxBytes (up to %d), lower maxNodes, or narrow the audit with selector, rules, tags or minImpact", maxMaxBytes)
}

// size is the length of a finding's JSON in a list (its comma included).
func size(f Finding) int {
	b, _ := json.Marshal(f)
	return len(b) + 1
}
