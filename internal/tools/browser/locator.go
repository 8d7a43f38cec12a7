package browser

import (
	"cmp"
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// refPattern is a snapshot ref: e12, or ref=e12.
var refPattern = regexp.MustCompile(`^(?:ref=)?e\d+$`)

func generateLocator() tool.Tool {
	type args struct {
		Selector string `json:"selector"`
		Ref      string `json:"ref"`
		Target   string `json:"target"`
		Element  string `json:"element"`
		Timeout  *int64 `json:"timeout"`
	}
	return tool.Tool{
		Def: def("browser_generate_locator", "Generate the locator Playwright's own generator would write for an element (given by selector or by a snapshot ref): "+
			"role and accessible name first, then label, placeholder, alt text, title, test id, text, then CSS, narrowed by an ancestor or nth when needed, and checked to match that element alone. "+
			"Returns {code, locator, selector, kind, unique, count, element}: code as Playwright code (page.getByRole('button', { name: 'Save' })), selector as Playwright's selector language, which every selector argument here takes too.", false,
			schema.Object(selectorArg(false),
				schema.String("ref", "The element's ref from browser_snapshot (e12), instead of a selector"),
				schema.String("target", "Same as selector or ref (playwright-mcp's name)"),
				schema.String("element", "A description of the element, for the record (playwright-mcp's argument)"),
				timeoutArg())).
			WithPhrases("create locator for element", "getByRole for this element", "playwright locator", "locator for test", "best selector for element", "stable selector", "selector from ref",
				"what locator should my test use", "codegen locator", "pick locator"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			sel, arg, err := locatorTarget(in.Selector, in.Ref, in.Target)
			if err != nil {
				return nil, err
			}
			o := findOpts(in.Timeout, false)
			o.Arg = arg
			loc, matched, err := p.GenerateLocator(ctx, sel, o)
			if err != nil {
				return nil, err
			}
			out := map[string]any{"code": "page." + loc.Code, "locator": loc.Code, "selector": loc.Selector, "kind": loc.Kind, "unique": loc.Unique, "count": loc.Count}
			if in.Element != "" {
				out["element"] = in.Element
			}
			if matched > 1 {
				out["matches"] = matched
				out["note"] = fmt.Sprintf("%q matched %d elements; the locator is for the one an action takes (the first visible)", sel, matched)
			}
			if !loc.Unique {
				out["note"] = fmt.Sprintf("no unique locator was found: the best, %s, matches %d elements", cmp.Or(loc.Code, "none"), loc.Count)
			}
			return out, nil
		}),
	}
}

// locatorTarget is the selector browser_generate_locator is given, and
// the argument it came in.
func locatorTarget(sel, ref, target string) (string, string, error) {
	given := 0
	for _, s := range []string{sel, ref, target} {
		if strings.TrimSpace(s) != "" {
			given++
		}
	}
	switch {
	case given == 0:
		return "", "", tool.Errorf(tool.CodeInvalidArgs, "browser_generate_locator needs the element: selector (Playwright's selector language, as #save or role=button[name=\"Save\"]) or ref (e12, from browser_snapshot)")
	case given > 1:
		return "", "", tool.Errorf(tool.CodeInvalidArgs, "browser_generate_locator takes one of selector, ref and target; %d were given", given)
	case strings.TrimSpace(ref) != "":
		ref = strings.TrimSpace(ref)
		if !refPattern.MatchString(ref) {
			return "", "", tool.Errorf(tool.CodeInvalidArgs, "argument \"ref\": %q is not a snapshot ref; a ref is as e12, from browser_snapshot (pass a selector in selector)", ref)
		}
		return ref, "ref", nil
	case strings.TrimSpace(target) != "":
		return strings.TrimSpace(target), "target", nil
	}
	return sel, "selector", nil
}
