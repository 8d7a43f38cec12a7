package record

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"errors"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testreport"
)

// Names with the characters XML and HTML must escape, and one (\x01) XML
// 1.0 cannot hold at all.
const (
	passedName  = `passes <b> & "quotes" 'too'`
	failedName  = "fails <when> & \"asked\"\x01 ok"
	skippedName = `skipped & <later>`
	flakyName   = `flaky "sometimes" <x>`
	failedMsg   = `expected <div> & "title" to be visible`
	shotPath    = "/tmp/barrhawk/evidence/shot-1.png"
)

func exportRun() (Run, []Test) {
	start := time.Date(2026, 3, 4, 10, 20, 30, 0, time.UTC)
	run := Run{ID: 7, Kind: RunSession, Name: `session <s1> & "friends"`, Session: "s1",
		Started: start, Ended: start.Add(2500 * time.Millisecond), Passed: 2, Failed: 1, Skipped: 1}
	tests := []Test{
		{ID: 1, Name: passedName, Suite: "login", Kind: KindAssertion, Tool: "assert_equals",
			Status: StatusPassed, DurationMs: 12.5, Session: "s1", CallID: 41},
		{ID: 2, Name: failedName, Kind: KindBrowserAssertion, Tool: "assert_visible",
			Status: StatusFailed, DurationMs: 1234.5678, Message: failedMsg, Session: "s1", CallID: 42,
			Expected: json.RawMessage(`{"visible":true,"text":"<ok> & \"x\""}`),
			Actual:   json.RawMessage(`{"visible":false}`),
			Output:   "waited 5s for #title\nlast state: hidden & <detached>",
			Evidence: []Evidence{
				{ID: 9, Kind: "screenshot", Name: "shot-1.png", Path: shotPath, MIMEType: "image/png"},
				{ID: 10, Kind: "log", Name: "console.log", Path: "/tmp/barrhawk/evidence/console.log", MIMEType: "text/plain"},
			}},
		{ID: 3, Name: skippedName, Suite: "later", Kind: KindReport, Status: StatusSkipped, Message: "not yet"},
		{ID: 4, Name: flakyName, Suite: "login", Kind: KindAssertion, Tool: "assert_contains",
			Status: StatusFlaky, DurationMs: 3, Message: "timed out once"},
	}
	return run, tests
}

func writeJUnit(t *testing.T) []byte {
	t.Helper()
	run, tests := exportRun()
	var b bytes.Buffer
	if err := WriteJUnit(&b, run, tests); err != nil {
		t.Fatalf("WriteJUnit: %v", err)
	}
	return b.Bytes()
}

func TestWriteJUnitRoundTrip(t *testing.T) {
	out := writeJUnit(t)
	if !bytes.HasPrefix(out, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		t.Errorf("no XML header: %.80s", out)
	}
	if bytes.ContainsRune(out, '\x01') {
		t.Errorf("the output holds \\x01, which XML 1.0 forbids")
	}

	rep, err := testreport.Parse(context.Background(), bytes.NewReader(out), "export.xml", testreport.JUnit)
	if err != nil {
		t.Fatalf("testreport.Parse: %v\n%s", err, out)
	}
	if len(rep.Results) != 4 {
		t.Fatalf("read %d results, want 4:\n%s", len(rep.Results), out)
	}
	if want := time.Date(2026, 3, 4, 10, 20, 30, 0, time.UTC); !rep.Started.Equal(want) {
		t.Errorf("Started = %v, want %v", rep.Started, want)
	}
	want := []struct {
		name, suite string
		status      testreport.Status
		flaky       bool
	}{
		{passedName, "login", testreport.Passed, false},
		{strings.ReplaceAll(failedName, "\x01", ""), KindBrowserAssertion, testreport.Failed, false},
		{skippedName, "later", testreport.Skipped, false},
		{flakyName, "login", testreport.Passed, true},
	}
	for i, w := range want {
		r := rep.Results[i]
		if r.Name != w.name || r.Suite != w.suite || r.Status != w.status || r.Flaky != w.flaky {
			t.Errorf("result %d = {%q %q %s flaky=%v}, want {%q %q %s flaky=%v}",
				i, r.Name, r.Suite, r.Status, r.Flaky, w.name, w.suite, w.status, w.flaky)
		}
	}

	failed := rep.Results[1]
	if failed.Error != failedMsg {
		t.Errorf("failure message = %q, want %q", failed.Error, failedMsg)
	}
	if failed.ErrorType != KindBrowserAssertion {
		t.Errorf("failure type = %q, want %q", failed.ErrorType, KindBrowserAssertion)
	}
	for _, s := range []string{`Expected: {"visible":true,"text":"<ok> & \"x\""}`, `Actual: {"visible":false}`, "last state: hidden & <detached>"} {
		if !strings.Contains(failed.Stack, s) {
			t.Errorf("failure text lacks %q:\n%s", s, failed.Stack)
		}
	}
	if !failed.HasDuration || failed.DurationMs != 1235 { // 1.235 s: 3 decimals
		t.Errorf("duration = %v (has %v), want 1235 ms", failed.DurationMs, failed.HasDuration)
	}
	if got := failed.Screenshot(); got != shotPath {
		t.Errorf("screenshot = %q, want %q (attachments %+v)", got, shotPath, failed.Attachments)
	}
	if len(failed.Attachments) != 2 {
		t.Errorf("attachments = %+v, want the screenshot and the log", failed.Attachments)
	}
	if rep.Results[3].Retries != 1 || len(rep.Results[3].Attempts) != 1 || rep.Results[3].Attempts[0].Error != "timed out once" {
		t.Errorf("flaky test: retries %d, attempts %+v", rep.Results[3].Retries, rep.Results[3].Attempts)
	}
	if rep.Results[2].Error != "not yet" {
		t.Errorf("skip reason = %q, want %q", rep.Results[2].Error, "not yet")
	}
}

// TestWriteJUnitWellFormed reads the whole document with encoding/xml,
// and checks the counts and properties there.
func TestWriteJUnitWellFormed(t *testing.T) {
	out := writeJUnit(t)
	d := xml.NewDecoder(bytes.NewReader(out))
	d.Strict = true
	for {
		_, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, out)
		}
	}

	var doc struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Time     string `xml:"time,attr"`
		Suites   []struct {
			Name      string `xml:"name,attr"`
			Tests     int    `xml:"tests,attr"`
			Failures  int    `xml:"failures,attr"`
			Skipped   int    `xml:"skipped,attr"`
			Timestamp string `xml:"timestamp,attr"`
			Cases     []struct {
				Name      string `xml:"name,attr"`
				Classname string `xml:"classname,attr"`
				Time      string `xml:"time,attr"`
				Props     []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("xml.Unmarshal: %v", err)
	}
	if doc.Name != `session <s1> & "friends"` || doc.Tests != 4 || doc.Failures != 1 || doc.Skipped != 1 || doc.Time != "2.500" {
		t.Errorf("testsuites = %q tests=%d failures=%d skipped=%d time=%s", doc.Name, doc.Tests, doc.Failures, doc.Skipped, doc.Time)
	}
	if len(doc.Suites) != 1 {
		t.Fatalf("%d testsuites, want 1", len(doc.Suites))
	}
	s := doc.Suites[0]
	if s.Tests != 4 || s.Failures != 1 || s.Skipped != 1 || s.Timestamp != "2026-03-04T10:20:30Z" {
		t.Errorf("testsuite tests=%d failures=%d skipped=%d timestamp=%q", s.Tests, s.Failures, s.Skipped, s.Timestamp)
	}
	c := s.Cases[1]
	if c.Time != "1.235" || c.Classname != KindBrowserAssertion {
		t.Errorf("failed case time=%q classname=%q", c.Time, c.Classname)
	}
	props := map[string]string{}
	for _, p := range c.Props {
		props[p.Name] = p.Value
	}
	if props["barrhawk.tool"] != "assert_visible" || props["barrhawk.session"] != "s1" || props["barrhawk.callId"] != "42" {
		t.Errorf("properties = %v", props)
	}
	if !strings.Contains(c.SystemOut, "[["+"ATTACHMENT|"+shotPath+"]]") {
		t.Errorf("system-out = %q, want the attachment line", c.SystemOut)
	}
	if len(s.Cases[2].Props) != 0 || s.Cases[2].SystemOut != "" {
		t.Errorf("the skipped case has properties %v, system-out %q; want none", s.Cases[2].Props, s.Cases[2].SystemOut)
	}
}

// TestWriteJUnitPython has an outside reader, Python's ElementTree
// (expat), read the document.
func TestWriteJUnitPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3 is needed to check the XML with an outside reader: %v", err)
	}
	out := writeJUnit(t)
	const script = `
import json, sys
import xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.buffer.read())
suite = root.find("testsuite")
cases = []
for c in suite.findall("testcase"):
    f = c.find("failure")
    cases.append({
        "name": c.get("name"),
        "classname": c.get("classname"),
        "failure": None if f is None else f.get("message"),
        "skipped": c.find("skipped") is not None,
        "flaky": c.find("flakyFailure") is not None,
    })
json.dump({"root": root.tag, "tests": int(suite.get("tests")), "failures": int(suite.get("failures")),
           "skipped": int(suite.get("skipped")), "cases": cases}, sys.stdout)
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = bytes.NewReader(out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3 could not read the XML: %v\n%s\n%s", err, stderr.String(), out)
	}
	var res struct {
		Root                     string
		Tests, Failures, Skipped int
		Cases                    []struct {
			Name, Classname string
			Failure         *string
			Skipped, Flaky  bool
		}
	}
	if err := json.Unmarshal(got, &res); err != nil {
		t.Fatalf("python3's answer %q: %v", got, err)
	}
	if res.Root != "testsuites" || res.Tests != 4 || res.Failures != 1 || res.Skipped != 1 || len(res.Cases) != 4 {
		t.Fatalf("python3 read %+v", res)
	}
	names := []string{passedName, strings.ReplaceAll(failedName, "\x01", ""), skippedName, flakyName}
	for i, n := range names {
		if res.Cases[i].Name != n {
			t.Errorf("python3 case %d name %q, want %q", i, res.Cases[i].Name, n)
		}
	}
	if f := res.Cases[1].Failure; f == nil || *f != failedMsg {
		t.Errorf("python3 failure message %v, want %q", f, failedMsg)
	}
	if !res.Cases[2].Skipped || !res.Cases[3].Flaky || res.Cases[0].Failure != nil {
		t.Errorf("python3 cases %+v", res.Cases)
	}
}

func TestXMLClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain":               "plain",
		"a\x00b\x01c\x1fd":    "abcd",
		"tab\tnl\ncr\r":       "tab\tnl\ncr\r",
		"bad\xffbyte":         "bad\uFFFDbyte",
		"keep \uFFFD é 😀":     "keep \uFFFD é 😀",
		"no \uFFFE or \uFFFF": "no  or ",
	} {
		if got := xmlClean(in); got != want {
			t.Errorf("xmlClean(%q) = %q, want %q", in, got, want)
		}
	}
}

func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	for x := range 4 {
		for y := range 3 {
			img.Set(x, y, color.RGBA{R: uint8(60 * x), G: uint8(80 * y), B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var imgSrcRe = regexp.MustCompile(`<img src="([^"]*)"`)

func TestWriteHTML(t *testing.T) {
	run, tests := exportRun()
	pngBytes := smallPNG(t)
	var opened []string
	open := func(ev Evidence) ([]byte, error) {
		opened = append(opened, ev.Path)
		if ev.Path == shotPath {
			return pngBytes, nil
		}
		return nil, errors.New("unexpected open")
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, run, tests, open); err != nil {
		t.Fatalf("WriteHTML: %v", err)
	}
	out := b.String()

	if len(opened) != 1 || opened[0] != shotPath {
		t.Errorf("opened %v, want only the screenshot", opened)
	}
	for _, s := range []string{"http://", "https://"} {
		if strings.Contains(out, s) {
			t.Errorf("the report holds %q", s)
		}
	}
	for _, raw := range []string{passedName, failedMsg, "<ok>", "<detached>"} {
		if strings.Contains(out, raw) {
			t.Errorf("the report holds %q unescaped", raw)
		}
	}
	for _, esc := range []string{
		html.EscapeString(passedName), // &lt;b&gt; &amp; &#34;quotes&#34; &#39;too&#39;
		html.EscapeString(strings.ReplaceAll(failedName, "\x01", "")),
		html.EscapeString(failedMsg),
		html.EscapeString("hidden & <detached>"),
		html.EscapeString(`session <s1> & "friends"`),
		"/tmp/barrhawk/evidence/console.log",
	} {
		if !strings.Contains(out, esc) {
			t.Errorf("the report lacks %q", esc)
		}
	}
	if strings.Contains(out, "\x01") {
		t.Error("the report holds \\x01")
	}

	m := imgSrcRe.FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		t.Fatalf("%d <img> elements, want 1", len(m))
	}
	wantURI := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)
	if got := html.UnescapeString(m[0][1]); got != wantURI {
		t.Errorf("img src = %.80q..., want %.80q...", got, wantURI)
	}

	iFailed := strings.Index(out, html.EscapeString(strings.ReplaceAll(failedName, "\x01", "")))
	iFlaky := strings.Index(out, html.EscapeString(flakyName))
	iPassed := strings.Index(out, html.EscapeString(passedName))
	iSkipped := strings.Index(out, html.EscapeString(skippedName))
	if !(iFailed < iFlaky && iFlaky < iPassed && iPassed < iSkipped) {
		t.Errorf("order failed %d, flaky %d, passed %d, skipped %d; want failed, flaky, then the rest in order", iFailed, iFlaky, iPassed, iSkipped)
	}
	for _, s := range []string{"Passed: 1", "Failed: 1", "Skipped: 1", "Flaky: 1", "Duration: 2.50 s"} {
		if !strings.Contains(out, s) {
			t.Errorf("the header lacks %q", s)
		}
	}
	for _, s := range []string{"<script>", `data-show="failed"`, `data-status="failed"`} {
		if !strings.Contains(out, s) {
			t.Errorf("the report lacks %q", s)
		}
	}
}

func TestWriteHTMLEvidenceNotes(t *testing.T) {
	run, tests := exportRun()
	const missing = "/tmp/barrhawk/evidence/missing.png"
	const huge = "/tmp/barrhawk/evidence/huge.png"
	tests[0].Evidence = []Evidence{
		{Kind: "screenshot", Path: missing, MIMEType: "image/png"},
		{Kind: "screenshot", Path: huge, MIMEType: "image/png"},
	}
	open := func(ev Evidence) ([]byte, error) {
		switch ev.Path {
		case missing:
			return nil, errors.New("no such file")
		case huge:
			return make([]byte, MaxInlineImage+1), nil
		}
		return smallPNG(t), nil
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, run, tests, open); err != nil {
		t.Fatalf("WriteHTML with an evidence that does not open: %v", err)
	}
	out := b.String()
	if !strings.Contains(out, "could not read "+missing+": no such file") {
		t.Errorf("no note for the evidence that did not open")
	}
	if !strings.Contains(out, huge+" is 8388609 bytes, larger than the 8 MiB inlined") {
		t.Errorf("no note for the image too large")
	}
	if n := len(imgSrcRe.FindAllString(out, -1)); n != 1 {
		t.Errorf("%d <img> elements, want only the good screenshot's", n)
	}
	if strings.Contains(out, "http://") || strings.Contains(out, "https://") {
		t.Error("the report holds an http(s) URL")
	}
}

func TestWriteHTMLEmptyRun(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, Run{ID: 3, Kind: RunJob}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "barrhawk job run 3") || !strings.Contains(b.String(), "no tests") {
		t.Errorf("empty run report:\n%s", b.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestExportWriteErrors(t *testing.T) {
	run, tests := exportRun()
	if err := WriteJUnit(failWriter{}, run, tests); err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "JUnit") {
		t.Errorf("WriteJUnit to a failing writer: %v", err)
	}
	if err := WriteHTML(failWriter{}, run, tests, nil); err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), "HTML") {
		t.Errorf("WriteHTML to a failing writer: %v", err)
	}
}

// TestWriteJUnitEdges: a test without a name is named after its tool (a
// testcase needs a name); an evidence path the [[ATTACHMENT|...]] line
// cannot hold is an attachment property; text breaking CDATA or holding
// CR stays text.
func TestWriteJUnitEdges(t *testing.T) {
	odd := "/tmp/shots/a]]b.png"
	tests := []Test{{Kind: KindAssertion, Tool: "assert_equals", Status: StatusFailed,
		Message: "bad ]]> end\r\nnext", Output: "line1\r\nline2\x00",
		Evidence: []Evidence{{Kind: "screenshot", Path: odd, MIMEType: "image/png"}}}}
	var b bytes.Buffer
	if err := WriteJUnit(&b, Run{ID: 5, Kind: RunReport}, tests); err != nil {
		t.Fatal(err)
	}
	rep, err := testreport.Parse(context.Background(), &b, "edges.xml", testreport.JUnit)
	if err != nil {
		t.Fatalf("testreport.Parse: %v", err)
	}
	if len(rep.Results) != 1 {
		t.Fatalf("%d results", len(rep.Results))
	}
	r := rep.Results[0]
	if r.Name != "assert_equals" || r.Status != testreport.Failed || r.Error != "bad ]]> end\r\nnext" {
		t.Errorf("result %q %s %q", r.Name, r.Status, r.Error)
	}
	if !strings.HasSuffix(r.Stack, "line1\r\nline2") {
		t.Errorf("failure text %q, want the output with its CR and without NUL", r.Stack)
	}
	if len(r.Attachments) != 1 || r.Attachments[0].Path != odd {
		t.Errorf("attachments %+v, want %q", r.Attachments, odd)
	}
}
