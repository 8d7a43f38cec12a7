package transform

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func run(t *testing.T, name, args string) map[string]any {
	t.Helper()
	return tooltest.MustRunObject(t, Tools(), name, args)
}

// expect checks that name(args) returns exactly the JSON object want.
func expect(t *testing.T, name, args, want string) {
	t.Helper()
	tooltest.WantJSON(t, name+"("+args+")", run(t, name, args), want)
}

// badInput checks that each args fails with INVALID_ARGS naming mention.
func badInput(t *testing.T, name string, cases []struct{ args, mention string }) {
	t.Helper()
	for _, tc := range cases {
		tooltest.MustFailWith(t, Tools(), name, tc.args, tool.CodeInvalidArgs, tc.mention)
	}
}

func TestDefinitions(t *testing.T) {
	t.Parallel()
	tooltest.CheckFamily(t, Tools(), tooltest.Group("Data Transformation"),
		"base64_encode", "json_format", "object_diff", "array_operations")
}

func TestBase64(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"text":"hello"}`, `{"action":"encode","urlSafe":false,"result":"aGVsbG8="}`},
		{`{"text":"","action":"encode"}`, `{"action":"encode","urlSafe":false,"result":""}`},
		{`{"text":"héllo?>"}`, `{"action":"encode","urlSafe":false,"result":"aMOpbGxvPz4="}`},
		{`{"text":"héllo?>","urlSafe":true}`, `{"action":"encode","urlSafe":true,"result":"aMOpbGxvPz4"}`},
		{`{"text":"日本"}`, `{"action":"encode","urlSafe":false,"result":"5pel5pys"}`},
		{`{"text":"aGVsbG8=","action":"decode"}`,
			`{"action":"decode","urlSafe":false,"result":"hello","resultEncoding":"utf8","validUtf8":true,"byteLength":5}`},
		{`{"text":"aGVsbG8","action":"decode"}`,
			`{"action":"decode","urlSafe":false,"result":"hello","resultEncoding":"utf8","validUtf8":true,"byteLength":5}`},
		{`{"text":" aGVs\nbG8=\n","action":"decode"}`,
			`{"action":"decode","urlSafe":false,"result":"hello","resultEncoding":"utf8","validUtf8":true,"byteLength":5}`},
		{`{"text":"aMOpbGxvPz4","action":"decode","urlSafe":true}`,
			`{"action":"decode","urlSafe":true,"result":"héllo?>","resultEncoding":"utf8","validUtf8":true,"byteLength":8}`},
		{`{"text":"","action":"decode"}`,
			`{"action":"decode","urlSafe":false,"result":"","resultEncoding":"utf8","validUtf8":true,"byteLength":0}`},
		{`{"text":"/w==","action":"decode"}`,
			`{"action":"decode","urlSafe":false,"result":"ff","resultEncoding":"hex","validUtf8":false,"byteLength":1}`},
		{`{"text":"AP8A","action":"decode"}`,
			`{"action":"decode","urlSafe":false,"result":"00ff00","resultEncoding":"hex","validUtf8":false,"byteLength":3}`},
		{`{"text":"AAE=","action":"decode"}`,
			`{"action":"decode","urlSafe":false,"result":"\u0000\u0001","resultEncoding":"utf8","validUtf8":true,"byteLength":2}`},
	} {
		expect(t, "base64_encode", tc.args, tc.want)
	}
}

func TestBase64RoundTrip(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "a", "ab", "abc", "héllo wörld ✓ 日本語", "<<???>>", strings.Repeat("xyz", 100)} {
		for _, urlSafe := range []string{"false", "true"} {
			arg, _ := json.Marshal(text)
			enc := run(t, "base64_encode", `{"text":`+string(arg)+`,"urlSafe":`+urlSafe+`}`)
			encoded, _ := json.Marshal(enc["result"])
			dec := run(t, "base64_encode", `{"action":"decode","text":`+string(encoded)+`,"urlSafe":`+urlSafe+`}`)
			if dec["result"] != text {
				t.Errorf("round trip of %q (urlSafe %s) via %s = %q", text, urlSafe, encoded, dec["result"])
			}
		}
	}
}

func TestBase64BadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "base64_encode", []struct{ args, mention string }{
		{`{}`, `"text"`},
		{`{"text":5}`, `"text"`},
		{`{"text":"a","action":"encrypt"}`, `"action"`},
		{`{"text":"a","action":"encrypt"}`, `"decode"`},
		{`{"text":"a","urlSafe":"yes"}`, `"urlSafe"`},
		{`{"text":"QUJD!","action":"decode"}`, `argument "text" is not valid base64: byte offset 4: '!' is not in the standard`},
		{`{"text":"QUJDé","action":"decode"}`, `byte offset 4: 'é'`},
		{`{"text":"ab-_","action":"decode"}`, "byte offset 2: '-' is not in the standard alphabet; it is URL-safe base64: set urlSafe=true"},
		{`{"text":"ab+/","action":"decode","urlSafe":true}`, "byte offset 2: '+' is not in the URL-safe alphabet; it is standard base64: set urlSafe=false"},
		{`{"text":"QU=JD","action":"decode"}`, "byte offset 2: '=' padding may only come at the end"},
		{`{"text":"QUJDR","action":"decode"}`, "byte offset 4: the input looks truncated: it has 5 base64 characters"},
		{`{"text":"QQ===","action":"decode"}`, "byte offset 4: too much padding"},
		{`{"text":"  QUJ DRA==","action":"decode"}`, "byte offset 5: ' '"},
	})
}

func TestJSONFormat(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{"json":"{\"b\":1,\"a\":[1,2.50,{}],\"c\":{\"d\":null}}"}`,
			`{"action":"format","indent":2,"result":"{\n  \"b\": 1,\n  \"a\": [\n    1,\n    2.50,\n    {}\n  ],\n  \"c\": {\n    \"d\": null\n  }\n}"}`},
		{`{"json":"[1,[2]]","indent":4}`, `{"action":"format","indent":4,"result":"[\n    1,\n    [\n        2\n    ]\n]"}`},
		{`{"json":"  \"x\"  \n","action":"format"}`, `{"action":"format","indent":2,"result":"\"x\""}`},
		{`{"json":"{\"n\":12345678901234567890123,\"s\":\"ü ✓ <>&\"}"}`,
			`{"action":"format","indent":2,"result":"{\n  \"n\": 12345678901234567890123,\n  \"s\": \"ü ✓ <>&\"\n}"}`},
		{`{"json":"[]"}`, `{"action":"format","indent":2,"result":"[]"}`},
		{`{"json":" {\"b\": 1, \"a\" : [ 1, null ] } ","action":"minify"}`, `{"action":"minify","result":"{\"b\":1,\"a\":[1,null]}"}`},
		{`{"json":"\"a b\"","action":"minify"}`, `{"action":"minify","result":"\"a b\""}`},
		{`{"json":"[1,2]","action":"validate"}`, `{"action":"validate","valid":true,"type":"array"}`},
		{`{"json":"null","action":"validate"}`, `{"action":"validate","valid":true,"type":"null"}`},
		{`{"json":"{\"a\":1,}","action":"validate"}`,
			`{"action":"validate","valid":false,"error":"invalid character '}' looking for beginning of object key string","line":1,"column":8,"offset":7}`},
		{`{"json":"{\n  \"a\": 1\n  \"b\": 2\n}","action":"validate"}`,
			`{"action":"validate","valid":false,"error":"invalid character '\"' after object key:value pair","line":3,"column":3,"offset":13}`},
		{`{"json":"[\"é\", x]","action":"validate"}`,
			`{"action":"validate","valid":false,"error":"invalid character 'x' looking for beginning of value","line":1,"column":7,"offset":7}`},
		{`{"json":"[1,2","action":"validate"}`,
			`{"action":"validate","valid":false,"error":"unexpected end of JSON input","line":1,"column":5,"offset":4}`},
		{`{"json":"","action":"validate"}`,
			`{"action":"validate","valid":false,"error":"unexpected end of JSON input","line":1,"column":1,"offset":0}`},
		{`{"json":"{} {}","action":"validate"}`,
			`{"action":"validate","valid":false,"error":"invalid character '{' after top-level value","line":1,"column":4,"offset":3}`},
	} {
		expect(t, "json_format", tc.args, tc.want)
	}
}

func TestJSONFormatBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "json_format", []struct{ args, mention string }{
		{`{}`, `"json"`},
		{`{"json":{"a":1}}`, `"json"`},
		{`{"json":{"a":1}}`, "expected string"},
		{`{"json":"1","action":"prettify"}`, `"action"`},
		{`{"json":"1","indent":0}`, `"indent"`},
		{`{"json":"1","indent":11}`, `"indent"`},
		{`{"json":"1","indent":1.5}`, `"indent"`},
		{`{"json":"{\"a\":1,}"}`, `argument "json" is not valid JSON: line 1, column 8: invalid character '}'`},
		{`{"json":"[1,\n2","action":"minify"}`, `line 2, column 2: unexpected end of JSON input`},
		{`{"json":""}`, `line 1, column 1`},
	})
}
