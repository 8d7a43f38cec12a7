package record

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

// AssertionGroup is the docs group of the assertion tools, browser ones
// included (tools/assert.Group).
const AssertionGroup = "Assertions"

// AuditTool is the accessibility audit's tool.
const AuditTool = "accessibility_audit"

// KindOf says what kind of test a tool's calls are: an assertion, a
// browser assertion, an accessibility audit, or "" for a tool whose calls
// are not tests.
func KindOf(d *tool.Def) string {
	switch {
	case d.Name == AuditTool:
		return KindAccessibility
	case d.Group != AssertionGroup:
		return ""
	case d.Category == tool.CategoryBrowser:
		return KindBrowserAssertion
	default:
		return KindAssertion
	}
}

// TestNameArg is the argument every tool whose calls are tests takes to
// name its test in the record: its history is kept under that name.
const TestNameArg = "testName"

// WithTestName gives each tool whose calls are tests (KindOf) the
// TestNameArg argument; the tools themselves ignore it. Their schemas are
// copied, not changed in place.
func WithTestName(tools []tool.Tool) []tool.Tool {
	for i := range tools {
		t := &tools[i]
		if KindOf(&t.Def) == "" || t.Input == nil {
			continue
		}
		in := *t.Input
		in.Properties = maps.Clone(in.Properties)
		if in.Properties == nil {
			in.Properties = map[string]*jsonschema.Schema{}
		}
		in.Properties[TestNameArg] = &jsonschema.Schema{Type: "string", MaxLength: new(200),
			Description: "Dashboard history name; default: tool and what it checks"}
		in.PropertyOrder = append(slices.Clone(in.PropertyOrder), TestNameArg)
		t.Input = &in
	}
	return tools
}

// observed are the arguments that carry what a test looked at rather than
// what it checks: they vary from run to run, so a test's name leaves them
// out.
var observed = []string{"actual", "value", "text", "data", "timeout", "maxBytes", "maxNodes"}

// TestName is the name a call of tool with args is recorded under: the tool
// and what it checks ("assert_text selector=\"h1\" expected=\"Welcome\""),
// the same from run to run so that its history is one line.
//
// A call that names its test (TestNameArg) is recorded under that name.
func TestName(toolName string, args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return toolName
	}
	var given string
	if json.Unmarshal(m[TestNameArg], &given) == nil && strings.TrimSpace(given) != "" {
		return tool.Shorten(strings.TrimSpace(given), 200)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(observed, k) && k != TestNameArg {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteString(toolName)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, tool.Shorten(compact(m[k]), 80))
	}
	return tool.Shorten(b.String(), 200)
}

// compact is v as json.Marshal writes it (no spaces, keys sorted), so that
// one value names one test however it was written.
func compact(v json.RawMessage) string {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return string(v)
	}
	out, err := json.Marshal(x)
	if err != nil {
		return string(v)
	}
	return string(out)
}

// testOf is the test result a call of kind holds.
func testOf(e *Entry, kind string, red *redact.Redactor) *Test {
	t := &Test{Name: redactKeys(red.String(TestName(e.Tool, e.Args))), Kind: kind, Tool: e.Tool, Time: e.Start, Session: e.Session,
		DurationMs: float64(e.Duration.Microseconds()) / 1000}
	if e.Code != "" {
		t.Status, t.Message = StatusFailed, tool.Shorten(red.String(e.Code+": "+e.Message), OutputCut)
		return t
	}
	var res struct {
		Passed     *bool           `json:"passed"`
		Expected   json.RawMessage `json:"expected"`
		Actual     json.RawMessage `json:"actual"`
		Message    string          `json:"message"`
		Screenshot string          `json:"screenshot"`
		// accessibility_audit
		URL        string `json:"url"`
		Count      *int   `json:"count"`
		Violations []struct {
			Rule   string `json:"rule"`
			Impact string `json:"impact"`
			Count  int    `json:"count"`
		} `json:"violations"`
	}
	if err := json.Unmarshal(e.Value, &res); err != nil {
		t.Status, t.Message = StatusFailed, "the result is not a JSON object: "+err.Error()
		return t
	}
	switch {
	case kind == KindAccessibility && res.Count != nil:
		t.Name += " url=" + res.URL
		t.Status = StatusPassed
		t.Message = "no violations"
		if *res.Count > 0 {
			t.Status = StatusFailed
			var rules []string
			for _, v := range res.Violations {
				rules = append(rules, fmt.Sprintf("%s (%s, %d)", v.Rule, v.Impact, v.Count))
			}
			t.Message = fmt.Sprintf("%d violations: %s", *res.Count, strings.Join(rules, ", "))
		}
	case res.Passed != nil:
		t.Status = StatusFailed
		if *res.Passed {
			t.Status = StatusPassed
		}
		t.Message = red.String(res.Message)
		t.Expected = cutJSON(res.Expected, red)
		t.Actual = cutJSON(res.Actual, red)
	default:
		t.Status, t.Message = StatusFailed, "the result says neither passed nor count"
	}
	if res.Screenshot != "" {
		t.Evidence = append(t.Evidence, Evidence{Kind: "screenshot", Name: filepath.Base(res.Screenshot), Path: res.Screenshot, MIMEType: mimeOf(res.Screenshot)})
	}
	t.Message = tool.Shorten(t.Message, OutputCut)
	return t
}

// cutJSON keeps a JSON value whole when short, else as a JSON string of
// its cut text.
func cutJSON(v json.RawMessage, red *redact.Redactor) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return nil
	}
	s := red.String(string(v))
	if len(s) <= OutputCut && json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(tool.Shorten(s, OutputCut))
	return b
}

// mimeOf is the type of an evidence file, from its extension.
func mimeOf(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".webp":
		return "image/webp"
	case ".gif":
		return "image/gif"
	case ".zip":
		return "application/zip"
	case ".txt", ".log":
		return "text/plain"
	case ".json":
		return "application/json"
	}
	return "application/octet-stream"
}
