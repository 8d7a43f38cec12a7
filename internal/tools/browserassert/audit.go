package browserassert

import (
	"context"
	_ "embed"
	"encoding/json"
	"slices"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

//go:embed audit.js
var auditJS string

// Rules are the audit's checks, in the order they run.
var Rules = []string{"image-alt", "label", "color-contrast", "heading-order", "page-has-heading-one", "landmark-one-main",
	"duplicate-id", "button-name", "link-name", "html-has-lang", "document-title", "tabindex", "frame-title", "aria-valid-role"}

var impacts = []string{"minor", "moderate", "serious", "critical"}

// Violation is one failed check on one element.
type Violation struct {
	Rule     string `json:"rule"`
	WCAG     string `json:"wcag"`
	Impact   string `json:"impact"`
	Selector string `json:"selector"`
	Message  string `json:"message"`
	HTML     string `json:"html"`
}

func audit() tool.Tool {
	type args struct {
		Selector  string   `json:"selector"`
		Rules     []string `json:"rules"`
		MinImpact string   `json:"minImpact"`
	}
	d := tool.Def{Name: "accessibility_audit", Group: "Accessibility", Category: tool.CategoryBrowser, RequiresWorker: true,
		Description: "Check the active page against WCAG rules: images without alt, fields without labels, low text contrast, heading order, missing h1 and main landmark, " +
			"duplicate ids, buttons and links without names, html without lang, missing title, positive tabindex, frames without title, invalid ARIA roles. " +
			"Returns {url, violations: [{rule, wcag, impact, selector, message, html}], summary by impact, passes}.",
		Input: schema.Object(
			schema.String("selector", `Audit only this part of the page: CSS, text=..., role=main, role=form[name="Sign in"], xpath=... or a snapshot ref (e12)`),
			schema.Array("rules", "Only these rules (default all)", ruleItems()).Min(1),
			schema.String("minImpact", "Report only violations at least this severe").Enum("minor", "moderate", "serious", "critical").Default("minor"),
		)}
	return tool.Tool{Def: d, Run: runOn(func(ctx context.Context, p *browser.Page, in args) (any, error) {
		for _, r := range in.Rules {
			if !slices.Contains(Rules, r) {
				return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"rules\": unknown rule %q; rules: %v", r, Rules)
			}
		}
		// The helper gives the same accessible names as the snapshot.
		if _, err := p.Snapshot(ctx, "", false, 1); err != nil {
			return nil, err
		}
		arg, _ := json.Marshal(map[string]any{"scope": in.Selector, "rules": in.Rules})
		raw, err := p.Evaluate(ctx, auditJS, arg)
		if err != nil {
			return nil, err
		}
		var res struct {
			Error      string      `json:"error"`
			Invalid    string      `json:"invalid"`
			Violations []Violation `json:"violations"`
			Passes     int         `json:"passes"`
			Checked    []string    `json:"checked"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, tool.Errorf(tool.CodeInternal, "audit result: %v", err)
		}
		if res.Invalid != "" {
			return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"selector\": %q is not valid: %s", in.Selector, res.Invalid)
		}
		if res.Error != "" {
			return nil, tool.Errorf(tool.CodeElementNotFound, "argument \"selector\": %s", res.Error)
		}
		min := slices.Index(impacts, in.MinImpact)
		out := []Violation{}
		summary := map[string]int{"critical": 0, "serious": 0, "moderate": 0, "minor": 0}
		for _, v := range res.Violations {
			if slices.Index(impacts, v.Impact) < min {
				continue
			}
			out = append(out, v)
			summary[v.Impact]++
		}
		u, _ := p.URL(ctx)
		return map[string]any{"url": u, "violations": out, "count": len(out), "summary": summary, "passes": res.Passes, "rulesChecked": res.Checked}, nil
	})}
}

func ruleItems() *jsonschema.Schema {
	enum := make([]any, len(Rules))
	for i, r := range Rules {
		enum[i] = r
	}
	return &jsonschema.Schema{Type: "string", Enum: enum}
}
