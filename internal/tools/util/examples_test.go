package util

import (
	"fmt"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

func TestHelloWorld(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ args, want string }{
		{`{}`, "Hello, World!"},
		{`null`, "Hello, World!"},
		{`{"excited":true}`, "Hello, World!!!"},
		{`{"excited":false}`, "Hello, World!"},
		{`{"name":"Igor"}`, "Hello, Igor!"},
		{`{"name":"  Doctor  ","excited":true}`, "Hello, Doctor!!!"},
		{`{"name":"世界 🌍"}`, "Hello, 世界 🌍!"},
		{`{"name":"   "}`, "Hello, World!"},
	} {
		tooltest.WantJSON(t, "hello_world"+tc.args, run(t, "hello_world", tc.args), tooltest.Marshal(map[string]string{"greeting": tc.want}))
	}
}

func TestHelloWorldBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"hello_world", `{"name":5}`, []string{`"name"`, "expected string"}},
		{"hello_world", `{"excited":"yes"}`, []string{`"excited"`, "expected boolean"}},
		{"hello_world", `[]`, []string{"must be a JSON object"}},
	})
}

func TestJSONValidator(t *testing.T) {
	t.Parallel()
	person := `{"type":"object","properties":{"name":{"type":"string","minLength":1},"age":{"type":"integer","minimum":0}},"required":["name"]}`
	for _, tc := range []struct {
		data, schema string
		valid        bool
		mention      string
	}{
		{`{"name":"Ada","age":36}`, person, true, ""},
		{`{"name":"Ada","age":-1}`, person, false, "minimum"},
		{`{"name":"Ada","age":3.5}`, person, false, `want "integer"`},
		{`{"age":3}`, person, false, "name"},
		{`{"name":""}`, person, false, "minLength"},
		{`{"name":"Zoë 🚀"}`, person, true, ""},
		{`[1,2,3]`, `{"type":"array","items":{"type":"number"},"maxItems":3}`, true, ""},
		{`[1,2,3,4]`, `{"type":"array","maxItems":3}`, false, "maxItems"},
		{`null`, `{"type":"null"}`, true, ""},
		{`null`, `{"type":"string"}`, false, "null"},
		{`"x"`, `{"enum":["a","b"]}`, false, "enum"},
		{`"2024-01-15"`, `{"type":"string","pattern":"^\\d{4}-\\d{2}-\\d{2}$"}`, true, ""},
		{`5`, `true`, true, ""},
		{`5`, `false`, false, "not"},
		{`5`, `{}`, true, ""},
		// Local references, and draft-07.
		{`{"id":7}`, `{"$defs":{"pos":{"type":"integer","exclusiveMinimum":0}},"properties":{"id":{"$ref":"#/$defs/pos"}}}`, true, ""},
		{`{"id":0}`, `{"$defs":{"pos":{"type":"integer","exclusiveMinimum":0}},"properties":{"id":{"$ref":"#/$defs/pos"}}}`, false, "exclusiveMinimum"},
		{`{"a":1}`, `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s"}}}`, false, "string"},
		// A property named "type" is a property, not the keyword.
		{`{"type":"x"}`, `{"properties":{"type":{"type":"string"}},"enum":[{"type":"x"}]}`, true, ""},
	} {
		args := `{"data":` + tc.data + `,"schema":` + tc.schema + `}`
		got := run(t, "json_validator", args)
		errs, _ := got["errors"].([]any)
		if got["valid"] != tc.valid {
			t.Errorf("json_validator(%s): valid = %v (%v), want %v", args, got["valid"], errs, tc.valid)
			continue
		}
		if tc.valid && (errs == nil || len(errs) != 0) {
			t.Errorf("json_validator(%s): errors = %v, want []", args, got["errors"])
		}
		if !tc.valid && (len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0]), tc.mention)) {
			t.Errorf("json_validator(%s): errors = %v, want one mentioning %q", args, errs, tc.mention)
		}
	}
}

func TestJSONValidatorBadInput(t *testing.T) {
	t.Parallel()
	checkBad(t, []badInput{
		{"json_validator", `{"schema":{}}`, []string{`"data"`, "required"}},
		{"json_validator", `{"data":1}`, []string{`"schema"`, "required"}},
		{"json_validator", `{"data":1,"schema":"string"}`, []string{`"schema"`, "expected object or boolean"}},
		{"json_validator", `{"data":1,"schema":{"type":"text"}}`, []string{`"schema"`, `"text"`, "not a JSON type"}},
		{"json_validator", `{"data":1,"schema":{"properties":{"a":{"type":["string","int"]}}}}`, []string{`"schema"`, "/properties/a", `"int"`}},
		{"json_validator", `{"data":1,"schema":{"type":5}}`, []string{`"schema"`}},
		{"json_validator", `{"data":1,"schema":{"minimum":"zero"}}`, []string{`"schema"`, "minimum"}},
		{"json_validator", `{"data":1,"schema":{"$ref":"#/$defs/missing"}}`, []string{`"schema"`, "missing"}},
		{"json_validator", `{"data":1,"schema":{"$ref":"https://example.com/s.json"}}`, []string{`"schema"`, "remote"}},
		{"json_validator", `{"data":1,"schema":{"$schema":"http://json-schema.org/draft-04/schema#"}}`, []string{`"schema"`, "draft-04", "not supported"}},
		{"json_validator", `{"data":1,"schema":{"pattern":"("}}`, []string{`"schema"`}},
	})
}
