package browser

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/barrhawk/barrhawk/internal/browser"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// findSnapshotBytes caps the snapshot browser_find searches: far more than
// browser_snapshot shows, since only the matching lines are answered.
const findSnapshotBytes = 4 << 20

// refIn finds a line's ref.
var refIn = regexp.MustCompile(`\[ref=(e\d+)\]`)

// FindMatch is one line of the snapshot that matched, with the lines
// around it.
type FindMatch struct {
	Line  int    `json:"line"`
	Ref   string `json:"ref,omitempty"`
	Text  string `json:"text"`
	Above string `json:"above,omitempty"`
	Below string `json:"below,omitempty"`
}

// snapshotMatcher reads browser_find's text or regex: text matches any
// case as a substring; a regex is Go's syntax (RE2, as JavaScript's for
// the common forms), and "/re/flags" takes the flags i, m and s.
func snapshotMatcher(text, re string) (func(string) bool, string, error) {
	switch {
	case text != "" && re != "":
		return nil, "", tool.Errorf(tool.CodeInvalidArgs, "arguments \"text\" and \"regex\": give one of them")
	case text != "":
		low := strings.ToLower(text)
		return func(s string) bool { return strings.Contains(strings.ToLower(s), low) }, "text " + fmt.Sprintf("%q", text), nil
	case re == "":
		return nil, "", tool.Errorf(tool.CodeInvalidArgs, "browser_find needs text (a substring, any case) or regex (a regular expression, \"/sign ?in/i\" for any case)")
	}
	pat := re
	if len(re) > 2 && re[0] == '/' {
		if end := strings.LastIndexByte(re, '/'); end > 0 {
			flags := re[end+1:]
			if strings.Trim(flags, "ims") != "" {
				return nil, "", tool.Errorf(tool.CodeInvalidArgs, "argument \"regex\": %q has flags %q; the flags taken are i, m and s", re, flags)
			}
			pat = re[1:end]
			if flags != "" {
				pat = "(?" + flags + ")" + pat
			}
		}
	}
	rx, err := regexp.Compile(pat)
	if err != nil {
		return nil, "", tool.Errorf(tool.CodeInvalidArgs, "argument \"regex\": %q is not a regular expression: %v", re, err)
	}
	return rx.MatchString, "regex " + re, nil
}

// findLines returns up to limit matching lines of a snapshot, each with
// the line above and below, and how many matched in all.
func findLines(snap string, match func(string) bool, limit int) ([]FindMatch, int) {
	lines := strings.Split(strings.TrimRight(snap, "\n"), "\n")
	out := []FindMatch{}
	total := 0
	for i, l := range lines {
		if !match(l) {
			continue
		}
		total++
		if len(out) == limit {
			continue
		}
		m := FindMatch{Line: i + 1, Text: l}
		if r := refIn.FindStringSubmatch(l); r != nil {
			m.Ref = r[1]
		}
		if i > 0 {
			m.Above = lines[i-1]
		}
		if i+1 < len(lines) {
			m.Below = lines[i+1]
		}
		out = append(out, m)
	}
	return out, total
}

func find() tool.Tool {
	type args struct {
		Text  string `json:"text"`
		Regex string `json:"regex"`
		Limit int    `json:"limit"`
	}
	return tool.Tool{
		Def: def("browser_find", "Search the page's accessibility snapshot (browser_snapshot's tree) for text or a regular expression: only the matching lines, each with its ref (e12, which any selector argument takes) and the line above and below, far smaller than the whole snapshot. "+
			"Returns {url, query, matches, shown, results: [{line, ref, text, above, below}]}.", false,
			schema.Object(schema.String("text", "A substring to find, any case"),
				schema.String("regex", "A regular expression (RE2: as JavaScript's for the usual forms); \"/sign ?in/i\" gives flags"),
				schema.Integer("limit", "Most matching lines answered").Default(20).Min(1).Max(500))).
			WithPhrases("search the page", "find text on page", "find element ref", "grep the snapshot", "where is the button", "locate element by text", "ctrl+f in page", "find in page"),
		Run: pageRun(func(ctx context.Context, p *browser.Page, in args) (any, error) {
			match, query, err := snapshotMatcher(in.Text, in.Regex)
			if err != nil {
				return nil, err
			}
			if in.Limit <= 0 {
				in.Limit = 20
			}
			s, err := p.Snapshot(ctx, "", false, findSnapshotBytes)
			if err != nil {
				return nil, err
			}
			results, total := findLines(s.Text, match, in.Limit)
			u, _ := p.URL(ctx)
			out := map[string]any{"url": u, "query": query, "matches": total, "shown": len(results), "results": results}
			switch {
			case total == 0:
				out["note"] = fmt.Sprintf("no line of the snapshot (%d elements) matches; browser_snapshot shows them all", s.Elements)
			case total > len(results):
				out["note"] = fmt.Sprintf("%d of %d matching lines shown: raise limit, or narrow the search", len(results), total)
			}
			if s.Cut {
				out["cut"] = fmt.Sprintf("the page is larger than %d bytes of snapshot: only its first part was searched", findSnapshotBytes)
			}
			return out, nil
		}),
	}
}
