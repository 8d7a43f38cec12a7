package record

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"math"
	"mime"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxInlineImage is the largest screenshot WriteHTML inlines in its
// report; a larger one gets a note instead.
const MaxInlineImage = 8 << 20

// WriteJUnit writes one run as JUnit XML, in the dialect Jenkins, GitLab
// and pytest's readers accept: a <testsuites> holding one <testsuite>
// named after the run, and a <testcase> per test, classname its Suite (or
// its Kind where it has none) and time in seconds.
//
// A failed test has a <failure> whose text tells its expected and actual
// values and its output; a skipped one has <skipped/>; a flaky one passes
// with a <flakyFailure>, as Maven Surefire writes a test that passed on a
// rerun. Each test's evidence files are [[ATTACHMENT|path]] lines in its
// <system-out> (the convention of Jenkins' junit-attachments plugin), and
// its tool, session and call are barrhawk.* properties. Characters XML 1.0
// cannot hold (control characters, invalid UTF-8) are dropped or replaced.
func WriteJUnit(w io.Writer, run Run, tests []Test) error {
	name := xmlClean(runTitle(run))
	suite := xjSuite{
		Name:  name,
		Cases: make([]xjCase, 0, len(tests)),
	}
	if !run.Started.IsZero() {
		suite.Timestamp = run.Started.Format(time.RFC3339)
	}
	if h, err := os.Hostname(); err == nil {
		suite.Hostname = xmlClean(h)
	}
	var sumMs float64
	for _, t := range tests {
		suite.Cases = append(suite.Cases, junitCaseOf(t))
		switch t.Status {
		case StatusFailed:
			suite.Failures++
		case StatusSkipped:
			suite.Skipped++
		}
		sumMs += finiteMs(t.DurationMs)
	}
	suite.Tests = len(tests)
	d := runDuration(run)
	if d <= 0 {
		d = time.Duration(sumMs * float64(time.Millisecond))
	}
	suite.Time = seconds(float64(d) / float64(time.Millisecond))
	doc := xjSuites{
		Name:     name,
		Tests:    suite.Tests,
		Failures: suite.Failures,
		Skipped:  suite.Skipped,
		Time:     suite.Time,
		Suites:   []xjSuite{suite},
	}

	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(xml.Header); err != nil {
		return fmt.Errorf("record: write JUnit XML of run %d: %w", run.ID, err)
	}
	enc := xml.NewEncoder(bw)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("record: write JUnit XML of run %d: %w", run.ID, err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("record: write JUnit XML of run %d: %w", run.ID, err)
	}
	if err := bw.WriteByte('\n'); err != nil {
		return fmt.Errorf("record: write JUnit XML of run %d: %w", run.ID, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("record: write JUnit XML of run %d: %w", run.ID, err)
	}
	return nil
}

// The JUnit XML document, as encoding/xml writes it.
type (
	xjSuites struct {
		XMLName  xml.Name  `xml:"testsuites"`
		Name     string    `xml:"name,attr"`
		Tests    int       `xml:"tests,attr"`
		Failures int       `xml:"failures,attr"`
		Errors   int       `xml:"errors,attr"`
		Skipped  int       `xml:"skipped,attr"`
		Time     string    `xml:"time,attr"`
		Suites   []xjSuite `xml:"testsuite"`
	}
	xjSuite struct {
		Name      string   `xml:"name,attr"`
		Tests     int      `xml:"tests,attr"`
		Failures  int      `xml:"failures,attr"`
		Errors    int      `xml:"errors,attr"`
		Skipped   int      `xml:"skipped,attr"`
		Time      string   `xml:"time,attr"`
		Timestamp string   `xml:"timestamp,attr,omitempty"`
		Hostname  string   `xml:"hostname,attr,omitempty"`
		Cases     []xjCase `xml:"testcase"`
	}
	xjCase struct {
		Name       string     `xml:"name,attr"`
		Classname  string     `xml:"classname,attr"`
		Time       string     `xml:"time,attr"`
		Properties *xjProps   `xml:"properties"`
		Failure    *xjText    `xml:"failure"`
		Skipped    *xjSkipped `xml:"skipped"`
		Flaky      *xjFlaky   `xml:"flakyFailure"`
		SystemOut  *xjText    `xml:"system-out"`
	}
	xjProps struct {
		Props []xjProp `xml:"property"`
	}
	xjProp struct {
		Name  string `xml:"name,attr"`
		Value string `xml:"value,attr"`
	}
	xjSkipped struct {
		Message string `xml:"message,attr,omitempty"`
	}
	// xjFlaky is Surefire's <flakyFailure>: the failure of an earlier
	// attempt, its details in <stackTrace>.
	xjFlaky struct {
		Message    string  `xml:"message,attr,omitempty"`
		Type       string  `xml:"type,attr,omitempty"`
		StackTrace *xjText `xml:"stackTrace"`
	}
)

// xjText is an element of text, with a message and type attribute where
// they are set (a <failure>); a <system-out> or <stackTrace> has none.
type xjText struct {
	Message, Type, Text string
}

// MarshalXML writes the element with its text as character data. The
// encoder escapes it all the same (&, <, >, quotes, CR), but unlike a
// ",chardata" field keeps line feeds as they are, so the failure text
// reads as lines, as other writers write it.
func (x xjText) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if x.Message != "" {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "message"}, Value: x.Message})
	}
	if x.Type != "" {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Local: "type"}, Value: x.Type})
	}
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	if x.Text != "" {
		if err := e.EncodeToken(xml.CharData(x.Text)); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}

// junitCaseOf is one test as a <testcase>.
func junitCaseOf(t Test) xjCase {
	c := xjCase{
		Name:      xmlClean(testTitle(t)),
		Classname: xmlClean(cmp.Or(t.Suite, t.Kind, "barrhawk")),
		Time:      seconds(t.DurationMs),
	}
	typ := xmlClean(cmp.Or(t.Kind, t.Tool))
	switch t.Status {
	case StatusFailed:
		c.Failure = &xjText{Message: xmlClean(t.Message), Type: typ, Text: xmlClean(failureBody(t))}
	case StatusSkipped:
		c.Skipped = &xjSkipped{Message: xmlClean(t.Message)}
	case StatusFlaky:
		c.Flaky = &xjFlaky{Message: xmlClean(cmp.Or(t.Message, "failed, then passed on retry")), Type: typ}
		if body := failureBody(t); body != "" {
			c.Flaky.StackTrace = &xjText{Text: xmlClean(body)}
		}
	}

	var props []xjProp
	add := func(name, value string) {
		if value != "" {
			props = append(props, xjProp{Name: name, Value: xmlClean(value)})
		}
	}
	add("barrhawk.tool", t.Tool)
	add("barrhawk.session", t.Session)
	if t.CallID != 0 {
		add("barrhawk.callId", strconv.FormatInt(t.CallID, 10))
	}
	var out strings.Builder
	for _, ev := range t.Evidence {
		p := ev.Path
		if p == "" {
			continue
		}
		if strings.ContainsAny(p, "]\r\n") || !utf8.ValidString(p) || xmlClean(p) != p {
			// The [[ATTACHMENT|path]] line cannot hold it; the
			// attachment property can (as far as XML can).
			add("attachment", p)
			continue
		}
		fmt.Fprintf(&out, "[[ATTACHMENT|%s]]\n", p)
	}
	if len(props) > 0 {
		c.Properties = &xjProps{Props: props}
	}
	if out.Len() > 0 {
		c.SystemOut = &xjText{Text: out.String()}
	}
	return c
}

// failureBody is the text of a failure: expected and actual values (JSON
// text) and the output.
func failureBody(t Test) string {
	var b strings.Builder
	if v := jsonText(t.Expected, false); v != "" {
		fmt.Fprintf(&b, "Expected: %s\n", v)
	}
	if v := jsonText(t.Actual, false); v != "" {
		fmt.Fprintf(&b, "Actual: %s\n", v)
	}
	if o := strings.TrimSpace(t.Output); o != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "Output:\n%s\n", o)
	}
	return b.String()
}

// jsonText is a JSON value as text, indented if asked; "" for none.
func jsonText(raw json.RawMessage, indent bool) string {
	s := strings.TrimSpace(string(raw))
	if s == "" {
		return ""
	}
	if indent {
		var b bytes.Buffer
		if err := json.Indent(&b, raw, "", "  "); err == nil {
			return b.String()
		}
	}
	return s
}

// xmlClean makes s safe to write as XML 1.0 text: invalid UTF-8 becomes
// U+FFFD and the characters XML 1.0 forbids (control characters other
// than tab, line feed and carriage return; U+FFFE, U+FFFF) are dropped.
func xmlClean(s string) string {
	ok := true
	for i, r := range s {
		if (r == utf8.RuneError && isBadByte(s, i)) || !xmlChar(r) {
			ok = false
			break
		}
	}
	if ok {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch {
		case r == utf8.RuneError && isBadByte(s, i):
			b.WriteRune(utf8.RuneError)
		case xmlChar(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isBadByte reports whether the U+FFFD decoded at s[i] is an invalid byte
// rather than an encoded U+FFFD.
func isBadByte(s string, i int) bool {
	_, n := utf8.DecodeRuneInString(s[i:])
	return n == 1
}

// xmlChar reports whether r is a Char of XML 1.0.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

// seconds is a duration in milliseconds as seconds with 3 decimals.
func seconds(ms float64) string {
	return strconv.FormatFloat(finiteMs(ms)/1000, 'f', 3, 64)
}

func finiteMs(ms float64) float64 {
	if math.IsNaN(ms) || math.IsInf(ms, 0) || ms < 0 {
		return 0
	}
	return ms
}

// runDuration is how long the run took, 0 when unknown.
func runDuration(run Run) time.Duration {
	if run.Started.IsZero() || run.Ended.IsZero() || run.Ended.Before(run.Started) {
		return 0
	}
	return run.Ended.Sub(run.Started)
}

// runTitle is the run's name, or one made of its kind and id.
func runTitle(run Run) string {
	if strings.TrimSpace(run.Name) != "" {
		return run.Name
	}
	return fmt.Sprintf("barrhawk %s run %d", cmp.Or(run.Kind, "test"), run.ID)
}

// testTitle is the test's name, or its tool or kind where it has none:
// a JUnit testcase needs a name.
func testTitle(t Test) string {
	if strings.TrimSpace(t.Name) != "" {
		return t.Name
	}
	if t.Tool != "" || t.Kind != "" {
		return cmp.Or(t.Tool, t.Kind)
	}
	return fmt.Sprintf("test %d", t.ID)
}

// WriteHTML writes one run as a self-contained HTML report: a single file
// with its CSS and script inline and no external URL, that reads the same
// with scripts off. Its header tells the run's name, kind, start, duration
// and counts, with a filter by status; a section per test (failed ones
// first, then flaky ones, then the rest in their order) tells its status,
// name, suite, kind and tool, duration, message, expected and actual
// values, output and evidence.
//
// Screenshots (evidence of an image/* type) are inlined as data: URIs of
// the bytes open reads; one larger than MaxInlineImage, or one open fails
// to read, gets a note naming its path instead, and the report goes on.
// Other evidence is listed by name and path. A nil open inlines nothing.
func WriteHTML(w io.Writer, run Run, tests []Test, open func(Evidence) ([]byte, error)) error {
	page := htmlPage{
		Title: htmlClean(runTitle(run)),
		Kind:  htmlClean(run.Kind),
	}
	if !run.Started.IsZero() {
		page.Started = run.Started.Format("2006-01-02 15:04:05 MST")
	}
	if d := runDuration(run); d > 0 {
		page.Duration = htmlDuration(float64(d) / float64(time.Millisecond))
	}

	order := make([]int, len(tests))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(statusRank(tests[a].Status), statusRank(tests[b].Status))
	})
	for _, i := range order {
		t := tests[i]
		switch t.Status {
		case StatusFailed:
			page.Failed++
		case StatusSkipped:
			page.Skipped++
		case StatusFlaky:
			page.Flaky++
		case StatusPassed:
			page.Passed++
		}
		page.Tests = append(page.Tests, htmlTestOf(t, open))
	}
	page.Total = len(tests)

	bw := bufio.NewWriter(w)
	if err := htmlExportTmpl.Execute(bw, page); err != nil {
		return fmt.Errorf("record: write HTML report of run %d: %w", run.ID, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("record: write HTML report of run %d: %w", run.ID, err)
	}
	return nil
}

// statusRank orders the report's sections: failed, flaky, the rest.
func statusRank(status string) int {
	switch status {
	case StatusFailed:
		return 0
	case StatusFlaky:
		return 1
	}
	return 2
}

// htmlPage is what the HTML report's template shows.
type htmlPage struct {
	Title, Kind, Started, Duration        string
	Total, Passed, Failed, Skipped, Flaky int
	Tests                                 []htmlTest
}

type htmlTest struct {
	Status, Name, Suite, Kind, Tool, Duration string
	Message, Expected, Actual, Output         string
	Evidence                                  []htmlEvidence
}

type htmlEvidence struct {
	Name, Kind, Path string
	// Image is the data: URI of an inlined screenshot.
	Image template.URL
	// Note tells why a screenshot is not inlined.
	Note string
}

// htmlTestOf is one test as the report shows it, its screenshots read.
func htmlTestOf(t Test, open func(Evidence) ([]byte, error)) htmlTest {
	h := htmlTest{
		Status:   htmlClean(cmp.Or(t.Status, "unknown")),
		Name:     htmlClean(testTitle(t)),
		Suite:    htmlClean(t.Suite),
		Kind:     htmlClean(t.Kind),
		Tool:     htmlClean(t.Tool),
		Duration: htmlDuration(t.DurationMs),
		Message:  htmlClean(t.Message),
		Expected: htmlClean(jsonText(t.Expected, true)),
		Actual:   htmlClean(jsonText(t.Actual, true)),
		Output:   htmlClean(strings.TrimRight(t.Output, "\n")),
	}
	for _, ev := range t.Evidence {
		e := htmlEvidence{
			Name: htmlClean(cmp.Or(ev.Name, filepath.Base(ev.Path))),
			Kind: htmlClean(ev.Kind),
			Path: htmlClean(ev.Path),
		}
		if typ, ok := imageType(ev.MIMEType); ok {
			e.Image, e.Note = inlineImage(ev, typ, open)
		}
		h.Evidence = append(h.Evidence, e)
	}
	return h
}

// imageType is the media type of an image MIME type, its parameters
// dropped; false for other types and ones that do not parse.
func imageType(mimeType string) (string, bool) {
	typ, _, err := mime.ParseMediaType(mimeType)
	if err != nil || !strings.HasPrefix(typ, "image/") || len(typ) == len("image/") {
		return "", false
	}
	return typ, true
}

// inlineImage reads a screenshot as a data: URI, or tells why it is not
// inlined.
func inlineImage(ev Evidence, typ string, open func(Evidence) ([]byte, error)) (template.URL, string) {
	if open == nil {
		return "", ""
	}
	b, err := open(ev)
	if err != nil {
		return "", htmlClean(fmt.Sprintf("could not read %s: %v", ev.Path, err))
	}
	if len(b) > MaxInlineImage {
		return "", htmlClean(fmt.Sprintf("%s is %d bytes, larger than the %d MiB inlined; open it from that path", ev.Path, len(b), MaxInlineImage>>20))
	}
	// typ is a parsed media type (a token/token), and base64 has no
	// character a URI or an attribute needs escaped: the URI is safe.
	return template.URL("data:" + typ + ";base64," + base64.StdEncoding.EncodeToString(b)), ""
}

// htmlClean drops the characters HTML text should not hold (NUL and the
// other control characters, as for XML) and repairs invalid UTF-8.
func htmlClean(s string) string { return xmlClean(s) }

// htmlDuration is a duration in milliseconds for people.
func htmlDuration(ms float64) string {
	ms = finiteMs(ms)
	switch {
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', -1, 64) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(ms/1000, 'f', 2, 64) + " s"
	}
	return time.Duration(ms * float64(time.Millisecond)).Round(time.Second).String()
}

var htmlExportTmpl = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · BarrHawk report</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header{background:#fff;border-bottom:1px solid #d0d7de;padding:16px 24px}
h1{font-size:20px;margin:0 0 6px}
.meta{color:#59636e}
.meta span{margin-right:14px}
.counts span{display:inline-block;margin:8px 8px 0 0;padding:2px 10px;border-radius:12px;background:#eaeef2}
nav{margin-top:10px}
nav button{font:inherit;padding:3px 12px;margin-right:6px;border:1px solid #d0d7de;border-radius:6px;background:#fff;cursor:pointer}
nav button[aria-pressed=true]{background:#0969da;border-color:#0969da;color:#fff}
main{padding:16px 24px}
section{background:#fff;border:1px solid #d0d7de;border-left-width:5px;border-radius:6px;margin:0 0 12px;padding:10px 14px}
section.failed{border-left-color:#cf222e}
section.flaky{border-left-color:#bf8700}
section.passed{border-left-color:#1a7f37}
section.skipped{border-left-color:#8c959f}
section h2{font-size:15px;margin:0;word-break:break-word}
.badge{display:inline-block;font-size:12px;font-weight:600;text-transform:uppercase;padding:1px 8px;border-radius:10px;color:#fff;background:#8c959f;margin-right:8px}
.failed .badge{background:#cf222e}
.flaky .badge{background:#bf8700}
.passed .badge{background:#1a7f37}
.msg{margin:8px 0;color:#cf222e;white-space:pre-wrap;word-break:break-word}
.cmp{display:grid;grid-template-columns:1fr 1fr;gap:10px}
h3{font-size:13px;margin:8px 0 4px;color:#59636e}
pre{margin:0;padding:8px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:6px;overflow:auto;max-height:400px;white-space:pre-wrap;word-break:break-word;font:12px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
figure{margin:8px 0}
figure img{max-width:100%;border:1px solid #d0d7de;border-radius:4px}
figcaption,.note,.path{color:#59636e;font-size:12px}
.note{color:#9a6700}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;word-break:break-all}
[hidden]{display:none!important}
</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<div class="meta">{{if .Kind}}<span>Kind: {{.Kind}}</span>{{end}}{{if .Started}}<span>Started: {{.Started}}</span>{{end}}{{if .Duration}}<span>Duration: {{.Duration}}</span>{{end}}<span>Tests: {{.Total}}</span></div>
<div class="counts"><span>Passed: {{.Passed}}</span><span>Failed: {{.Failed}}</span><span>Skipped: {{.Skipped}}</span><span>Flaky: {{.Flaky}}</span></div>
<nav id="filter" hidden>
<button type="button" data-show="all" aria-pressed="true">All</button>
<button type="button" data-show="failed" aria-pressed="false">Failed</button>
<button type="button" data-show="passed" aria-pressed="false">Passed</button>
{{- if .Flaky}}
<button type="button" data-show="flaky" aria-pressed="false">Flaky</button>{{end}}
{{- if .Skipped}}
<button type="button" data-show="skipped" aria-pressed="false">Skipped</button>{{end}}
</nav>
</header>
<main>
{{- if not .Tests}}
<p>This run has no tests.</p>
{{- end}}
{{- range .Tests}}
<section class="{{.Status}}" data-status="{{.Status}}">
<h2><span class="badge">{{.Status}}</span>{{.Name}}</h2>
<div class="meta">{{if .Suite}}<span>Suite: {{.Suite}}</span>{{end}}{{if .Kind}}<span>Kind: {{.Kind}}</span>{{end}}{{if .Tool}}<span>Tool: {{.Tool}}</span>{{end}}<span>Duration: {{.Duration}}</span></div>
{{- if .Message}}
<div class="msg">{{.Message}}</div>
{{- end}}
{{- if or .Expected .Actual}}
<div class="cmp"><div><h3>Expected</h3><pre>{{.Expected}}</pre></div><div><h3>Actual</h3><pre>{{.Actual}}</pre></div></div>
{{- end}}
{{- if .Output}}
<h3>Output</h3>
<pre>{{.Output}}</pre>
{{- end}}
{{- if .Evidence}}
<h3>Evidence</h3>
{{- range .Evidence}}
{{- if .Image}}
<figure><img src="{{.Image}}" alt="{{.Name}}"><figcaption>{{.Name}} — <code>{{.Path}}</code></figcaption></figure>
{{- else}}
<div>{{if .Kind}}[{{.Kind}}] {{end}}{{.Name}} — <code class="path">{{.Path}}</code>{{if .Note}}<div class="note">{{.Note}}</div>{{end}}</div>
{{- end}}
{{- end}}
{{- end}}
</section>
{{- end}}
</main>
<script>
(function(){
var nav=document.getElementById("filter"),bs=nav.querySelectorAll("button"),ss=document.querySelectorAll("main section");
nav.hidden=false;
bs.forEach(function(b){b.addEventListener("click",function(){
var want=b.getAttribute("data-show");
bs.forEach(function(x){x.setAttribute("aria-pressed",String(x===b));});
ss.forEach(function(s){var st=s.getAttribute("data-status");s.hidden=!(want==="all"||st===want||(want==="passed"&&st==="flaky"));});
});});
})();
</script>
</body>
</html>
`))
