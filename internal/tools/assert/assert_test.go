package assert

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/barrhawk/barrhawk/internal/tool/tooltest"
)

// result is one assertion outcome to check: passed and the exact message.
type result struct {
	passed  bool
	message string
}

func run(t *testing.T, name, args string) map[string]any {
	t.Helper()
	return tooltest.MustRunObject(t, Tools(), name, args)
}

func check(t *testing.T, name, args string, want result) map[string]any {
	t.Helper()
	got := run(t, name, args)
	if got["passed"] != want.passed || got["message"] != want.message {
		t.Errorf("%s(%s) = passed %v, message %q\nwant passed %v, message %q",
			name, args, got["passed"], got["message"], want.passed, want.message)
	}
	return got
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
	tooltest.CheckFamily(t, Tools(), tooltest.Group("Assertions"),
		"assert_equals", "assert_contains", "assert_truthy", "assert_type", "assert_range", "assert_json_schema")
}

func TestAssertEquals(t *testing.T) {
	t.Parallel()
	many := `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1,"j":1,"k":1,"l":1}`
	for _, tc := range []struct {
		args string
		want result
	}{
		{`{"actual":{"user":{"name":"alice","age":30}},"expected":{"user":{"age":30,"name":"bob"}}}`,
			result{false, `1 difference: $.user.name: expected "bob", got "alice"`}},
		{`{"actual":{"a":1,"b":[1,{"c":null}]},"expected":{"b":[1,{"c":null}],"a":1},"strict":true}`,
			result{true, "values are equal"}},
		{`{"actual":1,"expected":"1"}`, result{true, "values are equal (loose comparison)"}},
		{`{"actual":"1.0","expected":1}`, result{true, "values are equal (loose comparison)"}},
		{`{"actual":"true","expected":true}`, result{true, "values are equal (loose comparison)"}},
		{`{"actual":{"id":1},"expected":{"id":"1"},"strict":true}`,
			result{false, `1 difference: $.id: expected string "1", got number 1 (they are equal under loose comparison, strict=false)`}},
		{`{"actual":"01","expected":1}`, result{false, `1 difference: $: expected number 1, got string "01"`}},
		{`{"actual":1,"expected":1.0,"strict":true}`, result{true, "values are equal"}},
		{`{"actual":9007199254740993,"expected":9007199254740992,"strict":true}`,
			result{false, `1 difference: $: expected 9007199254740992, got 9007199254740993`}},
		{`{"actual":null,"expected":null}`, result{true, "values are equal (loose comparison)"}},
		{`{"actual":"null","expected":null}`, result{false, `1 difference: $: expected null, got string "null"`}},
		{`{"actual":0,"expected":false}`, result{false, `1 difference: $: expected boolean false, got number 0`}},
		{`{"actual":"","expected":""}`, result{true, "values are equal (loose comparison)"}},
		{`{"actual":[],"expected":{}}`, result{false, `1 difference: $: expected object {}, got array []`}},
		{`{"actual":[1,2,3],"expected":[1,2]}`, result{false, `1 difference: $[2]: unexpected, got 3`}},
		{`{"actual":[2,1],"expected":[1,2]}`, result{false, `2 differences: $[0]: expected 1, got 2; $[1]: expected 2, got 1`}},
		{`{"actual":{},"expected":{"a b":{"x":1}}}`, result{false, `1 difference: $["a b"]: missing, expected {"x":1}`}},
		{`{"actual":"héllo wörld","expected":"hello world"}`, result{false, `1 difference: $: expected "hello world", got "héllo wörld"`}},
		{`{"actual":{"tag":"<b>"},"expected":{"tag":"<i>"}}`, result{false, `1 difference: $.tag: expected "<i>", got "<b>"`}},
		{`{"actual":{},"expected":` + many + `}`,
			result{false, "12 differences: $.a: missing, expected 1; $.b: missing, expected 1; $.c: missing, expected 1; " +
				"$.d: missing, expected 1; $.e: missing, expected 1; $.f: missing, expected 1; $.g: missing, expected 1; " +
				"$.h: missing, expected 1; $.i: missing, expected 1; $.j: missing, expected 1; and 2 more"}},
	} {
		check(t, "assert_equals", tc.args, tc.want)
	}
}

func TestAssertEqualsDetails(t *testing.T) {
	t.Parallel()
	got := run(t, "assert_equals", `{"actual":{"a":1,"c":null,"d":[1]},"expected":{"a":2,"b":3,"c":null,"d":[1,null]},"strict":true}`)
	want := tooltest.JSON(t, `{
		"passed": false, "strict": true,
		"message": "3 differences: $.a: expected 2, got 1; $.b: missing, expected 3; $.d[1]: missing, expected null",
		"expected": {"a":2,"b":3,"c":null,"d":[1,null]},
		"actual": {"a":1,"c":null,"d":[1]},
		"differences": [
			{"path":"$.a","type":"changed","expected":2,"actual":1},
			{"path":"$.b","type":"removed","expected":3},
			{"path":"$.d[1]","type":"removed","expected":null}
		]}`)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assert_equals = %v\nwant %v", got, want)
	}
	// Passing: an empty list, not null; large numbers come back exactly.
	got = run(t, "assert_equals", `{"actual":12345678901234567890,"expected":12345678901234567890}`)
	if d, ok := got["differences"].([]any); !ok || len(d) != 0 || got["passed"] != true {
		t.Errorf("assert_equals equal values = %v", got)
	}
	// tooltest decodes results into float64; read the handler's own result
	// to see that large numbers come back exactly.
	tl, _ := tool.NewRegistry(Tools()...).Get("assert_equals")
	out, err := tl.Run(context.Background(), &tool.Call{Args: json.RawMessage(`{"actual":12345678901234567890,"expected":1e400}`)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(out)
	if !strings.Contains(string(b), `"actual":12345678901234567890`) || !strings.Contains(string(b), `"expected":1e400`) {
		t.Errorf("numbers not kept exactly: %s", b)
	}
}

func TestAssertEqualsBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "assert_equals", []struct{ args, mention string }{
		{`{}`, `"actual"`},
		{`{"actual":1}`, `"expected"`},
		{`{"actual":1,"expected":1,"strict":"yes"}`, `"strict"`},
		{`{"actual":1,"expected":1,"strict":"yes"}`, "expected boolean"},
	})
}

func TestAssertContains(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args  string
		want  result
		index float64
	}{
		{`{"text":"hello world","substring":"world"}`, result{true, `text contains "world" at index 6`}, 6},
		{`{"text":"hello world","substring":"World"}`,
			result{false, `text "hello world" does not contain "World" (it does ignoring case, at index 6; set caseSensitive=false)`}, -1},
		{`{"text":"hello world","substring":"World","caseSensitive":false}`, result{true, `text contains "World" at index 6`}, 6},
		{`{"text":"hello world","substring":"planet"}`, result{false, `text "hello world" does not contain "planet"`}, -1},
		{`{"text":"naïve café","substring":"café"}`, result{true, `text contains "café" at index 6`}, 6},
		{`{"text":"NAÏVE CAFÉ","substring":"café","caseSensitive":false}`, result{true, `text contains "café" at index 6`}, 6},
		{`{"text":"日本語のテキスト","substring":"テキスト"}`, result{true, `text contains "テキスト" at index 4`}, 4},
		{`{"text":"abc","substring":""}`, result{true, `text contains "" at index 0`}, 0},
		{`{"text":"","substring":""}`, result{true, `text contains "" at index 0`}, 0},
		{`{"text":"","substring":"","caseSensitive":false}`, result{true, `text contains "" at index 0`}, 0},
		{`{"text":"","substring":"a"}`, result{false, `text "" does not contain "a"`}, -1},
		{`{"text":"ab","substring":"abc","caseSensitive":false}`, result{false, `text "ab" does not contain "abc"`}, -1},
	} {
		got := check(t, "assert_contains", tc.args, tc.want)
		if got["index"] != tc.index {
			t.Errorf("assert_contains(%s) index = %v, want %v", tc.args, got["index"], tc.index)
		}
	}
	got := run(t, "assert_contains", `{"text":"x","substring":"y"}`)
	if got["caseSensitive"] != true || got["substring"] != "y" {
		t.Errorf("assert_contains defaults = %v", got)
	}
}

func TestAssertContainsBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "assert_contains", []struct{ args, mention string }{
		{`{"substring":"a"}`, `"text"`},
		{`{"text":"a"}`, `"substring"`},
		{`{"text":"a","substring":5}`, `"substring"`},
		{`{"text":"a","substring":5}`, "expected string"},
		{`{"text":"a","substring":"a","caseSensitive":"no"}`, `"caseSensitive"`},
	})
}

func TestAssertTruthy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value, typ string
		truthy     bool
	}{
		{`false`, "boolean", false},
		{`0`, "number", false},
		{`-0`, "number", false},
		{`0.0e10`, "number", false},
		{`""`, "string", false},
		{`null`, "null", false},
		{`true`, "boolean", true},
		{`1`, "number", true},
		{`-0.5`, "number", true},
		{`1e-400`, "number", true},
		{`"0"`, "string", true},
		{`"false"`, "string", true},
		{`" "`, "string", true},
		{`[]`, "array", true},
		{`{}`, "object", true},
		{`[0]`, "array", true},
	} {
		args := `{"value":` + tc.value + `}`
		got := run(t, "assert_truthy", args)
		if got["passed"] != tc.truthy || got["type"] != tc.typ {
			t.Errorf("assert_truthy(%s) = passed %v, type %v; want %v, %s", args, got["passed"], got["type"], tc.truthy, tc.typ)
		}
	}
	check(t, "assert_truthy", `{"value":0}`, result{false, `value 0 (number) is falsy; the falsy values are false, 0, "" and null`})
	check(t, "assert_truthy", `{"value":"ok"}`, result{true, `value "ok" (string) is truthy`})
	check(t, "assert_truthy", `{"value":{"a":[1]}}`, result{true, `value {"a":[1]} (object) is truthy`})
}

func TestAssertTruthyBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "assert_truthy", []struct{ args, mention string }{
		{`{}`, `"value"`},
		{`null`, `"value"`},
	})
}

func TestAssertType(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value, expected, actual string
		passed                  bool
	}{
		{`"x"`, "string", "string", true},
		{`""`, "string", "string", true},
		{`3`, "integer", "integer", true},
		{`3`, "number", "integer", true},
		{`3.0`, "integer", "integer", true},
		{`3.5`, "number", "number", true},
		{`3.5`, "integer", "number", false},
		{`12345678901234567890`, "integer", "integer", true},
		{`1.5e1`, "integer", "integer", true},
		{`"1"`, "number", "string", false},
		{`true`, "boolean", "boolean", true},
		{`null`, "null", "null", true},
		{`null`, "object", "null", false},
		{`[]`, "array", "array", true},
		{`{}`, "object", "object", true},
		{`[]`, "object", "array", false},
	} {
		args := `{"value":` + tc.value + `,"expectedType":"` + tc.expected + `"}`
		got := run(t, "assert_type", args)
		if got["passed"] != tc.passed || got["actualType"] != tc.actual || got["expectedType"] != tc.expected {
			t.Errorf("assert_type(%s) = %v; want passed %v, actualType %s", args, got, tc.passed, tc.actual)
		}
	}
	check(t, "assert_type", `{"value":3.5,"expectedType":"integer"}`, result{false, "expected type integer, got number 3.5"})
	check(t, "assert_type", `{"value":"3","expectedType":"number"}`, result{false, `expected type number, got string "3"`})
	check(t, "assert_type", `{"value":3,"expectedType":"number"}`, result{true, "value 3 has type number (an integer)"})
	check(t, "assert_type", `{"value":[1],"expectedType":"array"}`, result{true, "value [1] has type array"})
}

func TestAssertTypeBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "assert_type", []struct{ args, mention string }{
		{`{"expectedType":"string"}`, `"value"`},
		{`{"value":1}`, `"expectedType"`},
		{`{"value":1,"expectedType":"float"}`, `"expectedType"`},
		{`{"value":1,"expectedType":"float"}`, `"integer"`},
		{`{"value":1,"expectedType":3}`, "expected string"},
	})
}

func TestAssertRange(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args string
		want result
		rng  string
	}{
		{`{"value":5,"min":1,"max":10}`, result{true, "value 5 is within [1, 10]"}, "[1, 10]"},
		{`{"value":1,"min":1,"max":10}`, result{true, "value 1 is within [1, 10]"}, "[1, 10]"},
		{`{"value":10,"min":1,"max":10}`, result{true, "value 10 is within [1, 10]"}, "[1, 10]"},
		{`{"value":0,"min":1,"max":10}`, result{false, "value 0 is less than min 1; range is [1, 10]"}, "[1, 10]"},
		{`{"value":10.5,"min":1,"max":10}`, result{false, "value 10.5 is greater than max 10; range is [1, 10]"}, "[1, 10]"},
		{`{"value":10,"min":1,"max":10,"inclusive":false}`,
			result{false, "value 10 equals max 10, which is excluded (inclusive=false); range is (1, 10)"}, "(1, 10)"},
		{`{"value":1,"min":1,"max":10,"inclusive":false}`,
			result{false, "value 1 equals min 1, which is excluded (inclusive=false); range is (1, 10)"}, "(1, 10)"},
		{`{"value":0.1,"min":0.1,"inclusive":false}`,
			result{false, "value 0.1 equals min 0.1, which is excluded (inclusive=false); range is (0.1, +∞)"}, "(0.1, +∞)"},
		{`{"value":-5,"max":0}`, result{true, "value -5 is within (-∞, 0]"}, "(-∞, 0]"},
		{`{"value":1e300,"min":0}`, result{true, "value 1e300 is within [0, +∞)"}, "[0, +∞)"},
		{`{"value":9007199254740993,"max":9007199254740992}`,
			result{false, "value 9007199254740993 is greater than max 9007199254740992; range is (-∞, 9007199254740992]"}, "(-∞, 9007199254740992]"},
		{`{"value":5,"min":5,"max":5}`, result{true, "value 5 is within [5, 5]"}, "[5, 5]"},
	} {
		got := check(t, "assert_range", tc.args, tc.want)
		if got["range"] != tc.rng {
			t.Errorf("assert_range(%s) range = %v, want %s", tc.args, got["range"], tc.rng)
		}
	}
	got := run(t, "assert_range", `{"value":2,"min":1}`)
	want := map[string]any{"passed": true, "message": "value 2 is within [1, +∞)", "value": 2.0, "min": 1.0, "inclusive": true, "range": "[1, +∞)"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("assert_range = %v, want %v", got, want)
	}
}

func TestAssertRangeBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "assert_range", []struct{ args, mention string }{
		{`{"value":5}`, `"min" and "max"`},
		{`{"value":5,"min":10,"max":1}`, `"min" (10) is greater than "max" (1)`},
		{`{"min":1}`, `"value"`},
		{`{"value":"5","min":1}`, `"value"`},
		{`{"value":"5","min":1}`, "expected number"},
		{`{"value":5,"min":"1"}`, `"min"`},
		{`{"value":5,"min":1,"inclusive":"yes"}`, `"inclusive"`},
	})
}

const personSchema = `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer","minimum":0}},"required":["name"]}`

func TestAssertJSONSchema(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args    string
		passed  bool
		mention string
	}{
		{`{"data":{"name":"ann","age":3},"schema":` + personSchema + `}`, true, "data matches the schema"},
		{`{"data":{"age":3},"schema":` + personSchema + `}`, false, `required: missing properties: ["name"]`},
		{`{"data":{"name":"ann","age":-1},"schema":` + personSchema + `}`, false, "/properties/age: minimum"},
		{`{"data":{"name":"ann","age":1.5},"schema":` + personSchema + `}`, false, `want "integer"`},
		{`{"data":"x","schema":` + personSchema + `}`, false, `want "object"`},
		{`{"data":null,"schema":{"type":"null"}}`, true, "data matches"},
		{`{"data":[],"schema":{"type":"array","minItems":1}}`, false, "minItems"},
		{`{"data":"ünïcödé","schema":{"type":"string","maxLength":7}}`, true, "data matches"},
		{`{"data":"ünïcödé","schema":{"type":"string","maxLength":6}}`, false, "maxLength"},
		{`{"data":{"a":{"b":"x"}},"schema":{"$defs":{"b":{"type":"integer"}},"properties":{"a":{"properties":{"b":{"$ref":"#/$defs/b"}}}}}}`,
			false, "integer"},
		{`{"data":1,"schema":true}`, true, "data matches"},
		{`{"data":1,"schema":false}`, false, "the schema is false, which no value matches"},
		{`{"data":{"a":1},"schema":{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"a":{"type":"string"}}}}`, false, "string"},
		{`{"data":{"type":"x"},"schema":{"properties":{"type":{"type":"string"}},"const":{"type":"x"}}}`, true, "data matches"},
	} {
		got := run(t, "assert_json_schema", tc.args)
		msg, _ := got["message"].(string)
		if got["passed"] != tc.passed || !strings.Contains(msg, tc.mention) {
			t.Errorf("assert_json_schema(%s) = %v; want passed %v and a message mentioning %s", tc.args, got, tc.passed, tc.mention)
		}
		if _, hasErr := got["error"]; hasErr == tc.passed {
			t.Errorf("assert_json_schema(%s): error present %v, passed %v", tc.args, hasErr, tc.passed)
		}
	}
}

func TestAssertJSONSchemaBadInput(t *testing.T) {
	t.Parallel()
	badInput(t, "assert_json_schema", []struct{ args, mention string }{
		{`{"data":1}`, `"schema"`},
		{`{"schema":{}}`, `"data"`},
		{`{"data":1,"schema":"string"}`, `"schema"`},
		{`{"data":1,"schema":{"type":"strin"}}`, `/type: "strin" is not a JSON type`},
		{`{"data":1,"schema":{"properties":{"a":{"type":["string","int"]}}}}`, `/properties/a/type: "int" is not a JSON type`},
		{`{"data":1,"schema":{"minimum":"x"}}`, `keyword "minimum" must be a number, got JSON string`},
		{`{"data":1,"schema":{"properties":{"a":{"required":"a"}}}}`, `keyword "required" must be an array, got JSON string`},
		{`{"data":1,"schema":{"$ref":"#/$defs/nope"}}`, "nope"},
		{`{"data":1,"schema":{"pattern":"[("}}`, "pattern"},
		{`{"data":1,"schema":{"$schema":"http://json-schema.org/draft-04/schema#"}}`, "draft-04"},
	})
}
