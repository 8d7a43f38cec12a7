package testreport

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func parseText(t *testing.T, text string) *Report {
	t.Helper()
	rep, err := Parse(context.Background(), strings.NewReader(text), "report", "")
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// Maven Surefire with rerunFailingTestsCount: a test that failed, then
// passed on a rerun (flakyFailure), and one that failed every rerun
// (rerunFailure). Written as Surefire's reports document it: no Maven
// runs here.
const surefireReport = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="com.example.CartTest" time="1.2" tests="3" errors="0" skipped="0" failures="1">
  <properties>
    <property name="java.version" value="17"/>
  </properties>
  <testcase name="addsItem" classname="com.example.CartTest" time="0.010">
    <flakyFailure message="expected: &lt;1&gt; but was: &lt;0&gt;" type="org.opentest4j.AssertionFailedError">
      <stackTrace>org.opentest4j.AssertionFailedError: expected: &lt;1&gt; but was: &lt;0&gt;
	at com.example.CartTest.addsItem(CartTest.java:12)</stackTrace>
      <system-out>attempt 1 [[ATTACHMENT|target/shots/addsItem.png]]</system-out>
    </flakyFailure>
    <flakyFailure message="expected: &lt;1&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError">
      <stackTrace>org.opentest4j.AssertionFailedError: expected: &lt;1&gt; but was: &lt;2&gt;</stackTrace>
    </flakyFailure>
  </testcase>
  <testcase name="removesItem" classname="com.example.CartTest" time="0.020">
    <failure message="item 42 not found" type="java.lang.AssertionError">java.lang.AssertionError: item 42 not found
	at com.example.CartTest.removesItem(CartTest.java:20)</failure>
    <rerunFailure message="item 43 not found" type="java.lang.AssertionError">
      <stackTrace>java.lang.AssertionError: item 43 not found
	at com.example.CartTest.removesItem(CartTest.java:20)</stackTrace>
    </rerunFailure>
  </testcase>
  <testcase name="lists" classname="com.example.CartTest" time="0.003"/>
</testsuite>
`

func TestJUnitSurefireReruns(t *testing.T) {
	t.Parallel()
	rep := parseText(t, surefireReport)
	if got := countsOf(rep); got.Total != 3 || got.Passed != 2 || got.Failed != 1 {
		t.Errorf("counts %+v", got)
	}
	a := find(t, rep, "addsItem")
	if a.Status != Passed || !a.Flaky || a.Retries != 2 || len(a.Attempts) != 2 || a.Attempts[0].Error != "expected: <1> but was: <0>" ||
		!strings.Contains(a.Attempts[0].Stack, "CartTest.java:12") || a.Screenshot() != "target/shots/addsItem.png" {
		t.Errorf("addsItem (flakyFailure twice, then passed): %+v", a)
	}
	r := find(t, rep, "removesItem")
	if r.Status != Failed || r.Flaky || r.Retries != 1 || r.Error != "item 43 not found" || len(r.Attempts) != 1 ||
		r.Attempts[0].Error != "item 42 not found" || r.ErrorType != "java.lang.AssertionError" || r.Suite != "com.example.CartTest" {
		t.Errorf("removesItem (failed, then its rerun failed): %+v", r)
	}
	if l := find(t, rep, "lists"); l.Status != Passed || l.DurationMs != 3 {
		t.Errorf("lists: %+v", l)
	}
}

// The JUnit shapes of writers that do not run here, as they write them:
// gotestsum (go test's output as the failure text, the skip reason in
// the message) and Jest's jest-junit (the failure as text only, no
// message attribute).
func TestJUnitWriters(t *testing.T) {
	t.Parallel()
	gotestsum := parseText(t, `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="1" errors="0" time="0.512">
	<testsuite tests="3" failures="1" time="0.004" name="example.com/cart" timestamp="2026-01-02T10:00:00Z">
		<properties>
			<property name="go.version" value="go1.26.8 linux/amd64"></property>
		</properties>
		<testcase classname="example.com/cart" name="TestAdd" time="0.000"></testcase>
		<testcase classname="example.com/cart" name="TestRemove" time="0.120">
			<failure message="Failed" type="">=== RUN   TestRemove&#xA;    cart_test.go:11: item 42 not found&#xA;--- FAIL: TestRemove (0.12s)&#xA;</failure>
		</testcase>
		<testcase classname="example.com/cart" name="TestCheckout" time="0.000">
			<skipped message="=== RUN   TestCheckout&#xA;    cart_test.go:15: no payment provider here&#xA;--- SKIP: TestCheckout (0.00s)&#xA;"></skipped>
		</testcase>
	</testsuite>
</testsuites>`)
	if got := countsOf(gotestsum); got.Total != 3 || got.Passed != 1 || got.Failed != 1 || got.Skipped != 1 {
		t.Errorf("gotestsum counts %+v", got)
	}
	if r := find(t, gotestsum, "TestRemove"); r.Suite != "example.com/cart" || !strings.Contains(r.Stack, "item 42 not found") || r.DurationMs != 120 {
		t.Errorf("TestRemove: %+v", r)
	}
	if gotestsum.Started.Format("2006-01-02") != "2026-01-02" {
		t.Errorf("started %v", gotestsum.Started)
	}
	jest := parseText(t, `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="3" failures="1" errors="0" time="0.5">
  <testsuite name="cart" errors="0" failures="1" skipped="1" timestamp="2026-01-02T10:00:00" time="0.3" tests="3" file="src/cart.test.js">
    <testcase classname="cart adds an item" name="cart adds an item" time="0.002">
    </testcase>
    <testcase classname="cart removes an item" name="cart removes an item" time="0.003">
      <failure>Error: expect(received).toEqual(expected) // deep equality

Expected: [1]
Received: [1, 2]
    at Object.toEqual (/src/cart.test.js:5:40)</failure>
    </testcase>
    <testcase classname="cart checks out" name="cart checks out" time="0">
      <skipped/>
    </testcase>
  </testsuite>
</testsuites>`)
	r := find(t, jest, "cart removes an item")
	if r.Error != "Error: expect(received).toEqual(expected) // deep equality\n\nExpected: [1]\nReceived: [1, 2]" ||
		r.Stack != "at Object.toEqual (/src/cart.test.js:5:40)" && r.Stack != "    at Object.toEqual (/src/cart.test.js:5:40)" || r.File != "src/cart.test.js" {
		t.Errorf("a failure without a message is split where its stack begins: %+v", r)
	}
	if s := find(t, jest, "cart checks out"); s.Status != Skipped {
		t.Errorf("skipped: %+v", s)
	}
}

func TestDetect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		head string
		want Format
	}{
		{"<?xml version=\"1.0\"?>\n<testsuites>", JUnit},
		{"\xef\xbb\xbf  <testsuite name=\"x\">", JUnit},
		{"TAP version 14\n1..2\n", TAP},
		{"1..3\nok 1 - a\n", TAP},
		{"# a comment\nnot ok 1 - a\n", TAP},
		{"ok\n", TAP},
		{`{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"p"}` + "\n", GoTest},
		{"# example.com/p\n" + `{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"p"}`, GoTest},
		{`{"numFailedTestSuites":0,"numTotalTests":3,"testResults":[]}`, Jest},
		{"{\n  \"config\": {},\n  \"suites\": []\n}", Playwright},
	} {
		got, err := Detect([]byte(tc.head))
		if err != nil || got != tc.want {
			t.Errorf("Detect(%q) = %q, %v; want %q", tc.head, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ head, mention string }{
		{"", "empty"},
		{"<html><body>", "not JUnit"},
		{`{"a": 1}`, "neither go test -json"},
		{"okay then\nall good", "cannot tell the format"},
		{"PASS\nok  \texample.com/p\t0.1s\n", "cannot tell the format"},
	} {
		_, err := Detect([]byte(tc.head))
		var pe *ParseError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.mention) || !strings.Contains(err.Error(), "sourceFormat") {
			t.Errorf("Detect(%q) = %v; want a ParseError mentioning %q and sourceFormat", tc.head, err, tc.mention)
		}
	}
}

// What does not read is told with its line and what was expected.
func TestMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		format     Format
		line       int
		mention    string
	}{
		{"junit cut", "<testsuites>\n<testsuite name=\"a\">\n<testcase name=\"x\">\n<failure message=\"m\">boom\n", "", 5, "the XML ends inside an element"},
		{"junit mismatched", "<testsuites>\n<testsuite name=\"a\">\n</testcase>\n</testsuites>\n", "", 3, "element <testsuite> closed by </testcase>"},
		{"junit time", "<testsuite name=\"a\">\n  <testcase name=\"x\" time=\"fast\"/>\n</testsuite>\n", "", 2, `time="fast"; expected a number of seconds`},
		{"junit no name", "<testsuite>\n<testcase classname=\"c\"/>\n</testsuite>", "", 2, "without a name attribute"},
		{"junit root", "<results><testsuite/></results>", JUnit, 1, "the root element is <results>"},
		{"tap yaml open", "TAP version 13\nnot ok 1 - a\n  ---\n  message: boom\n", "", 3, "not closed by ..."},
		{"tap yaml bad", "TAP version 13\nnot ok 1 - a\n  ---\n  message: [boom\n  ...\n", "", 4, "does not parse"},
		{"gotest line", `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Action":"pass","Package":"p","Test":` + "\n", "", 2, "expected a go test -json event"},
		{"gotest action", `{"Action":"run","Package":"p","Test":"TestA"}` + "\n" + `{"Package":"p"}` + "\n", "", 2, `without "Action"`},
		{"playwright cut", "{\n  \"config\": {},\n  \"suites\": [\n    {\n      \"title\": \"a.spec.ts\",\n      \"specs\": [\n", "", 6, "the JSON ends inside"},
		{"playwright type", "{\n  \"config\": {},\n  \"suites\": [\n    {\"title\": \"a\", \"specs\": [\n      {\"title\": 5}\n    ]}\n  ]\n}\n", "", 5, "not the string expected in a spec"},
		{"playwright syntax", "{\n  \"config\": {},\n  \"suites\": [\n    {\"title\": \"a\",, \"specs\": []}\n  ]\n}\n", "", 4, "invalid character ','"},
		{"jest status", "{\n \"numTotalTests\": 1,\n \"testResults\": [{\n  \"assertionResults\": [\n   {\"title\": \"a\", \"status\": \"exploded\"}\n  ],\n  \"name\": \"a.test.js\"\n }]\n}\n", "", 5, `status "exploded"; expected passed, failed`},
		{"jest not a report", "[1, 2]", Jest, 1, "expected the Jest report ({)"},
	} {
		_, err := Parse(context.Background(), strings.NewReader(tc.text), "bad.txt", tc.format)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a ParseError", tc.name, err)
			continue
		}
		if pe.Line != tc.line || !strings.Contains(pe.Msg, tc.mention) || !strings.HasPrefix(err.Error(), "bad.txt:") {
			t.Errorf("%s: %v (line %d); want line %d mentioning %q", tc.name, err, pe.Line, tc.line, tc.mention)
		}
	}
}

// A stream cut short: the subtests keep the suite their announcement
// named, and a test still running is failed, saying so.
func TestCutStreams(t *testing.T) {
	t.Parallel()
	tap := parseText(t, "TAP version 14\n# Subtest: cart\n    ok 1 - adds\n    not ok 2 - removes\n")
	if got := tap.Results; len(got) != 2 || got[1].ID() != "cart > removes" || got[1].Status != Failed {
		t.Errorf("cut TAP: %+v", got)
	}
	goRep := parseText(t, `{"Action":"run","Package":"p","Test":"TestA"}`+"\n"+`{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: working\n"}`+"\n")
	if r := goRep.Results; len(r) != 1 || r[0].Status != Failed || !strings.Contains(r[0].Error, "never ended") || !strings.Contains(r[0].Error, "a_test.go:3: working") {
		t.Errorf("cut go test -json: %+v", r)
	}
	bail := parseText(t, "1..3\nok 1 - a\nBail out! database down\n")
	if len(bail.Errors) != 1 || bail.Errors[0] != "Bail out! database down" {
		t.Errorf("bail out: %+v", bail.Errors)
	}
}

func TestTAPDirectives(t *testing.T) {
	t.Parallel()
	rep := parseText(t, `TAP version 13
1..5
ok 1 - adds \# of items # SKIP no cart
not ok 2 - removes # TODO not written
ok 3
ok 4 - checks out
  ---
  duration_ms: 12.5
  at:
    file: cart.js
    line: 7
  ...
not ok 5 - pays
  ---
  message: "card declined"
  severity: fail
  stack: |-
    at pay (cart.js:9:3)
  ...
`)
	want := []struct {
		id     string
		status Status
	}{{"adds # of items", Skipped}, {"removes", Pending}, {"test 3", Passed}, {"checks out", Passed}, {"pays", Failed}}
	for i, w := range want {
		if r := rep.Results[i]; r.ID() != w.id || r.Status != w.status {
			t.Errorf("result %d: %q %s, want %q %s", i, r.ID(), r.Status, w.id, w.status)
		}
	}
	if c := rep.Results[3]; c.DurationMs != 12.5 || c.File != "cart.js" || c.Line != 7 {
		t.Errorf("checks out: %+v", c)
	}
	if p := rep.Results[4]; p.Error != "card declined" || p.Stack != "at pay (cart.js:9:3)" {
		t.Errorf("pays: %+v", p)
	}
	if rep.Results[0].Error != "no cart" {
		t.Errorf("a skip's reason: %q", rep.Results[0].Error)
	}
}

func TestLongTextsAreCut(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", MaxTextBytes)
	rep := parseText(t, `<testsuite><testcase name="a"><failure message="`+long+`">x</failure></testcase></testsuite>`)
	e := rep.Results[0].Error
	if len(e) > MaxTextBytes+64 || !strings.Contains(e, "more bytes cut") || !strings.HasPrefix(e, "éé") {
		t.Errorf("a message of %d bytes kept as %d bytes: ...%q", 2*MaxTextBytes, len(e), e[len(e)-40:])
	}
}
