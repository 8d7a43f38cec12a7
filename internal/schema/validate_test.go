package schema

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	s := Object(
		String("text", "t").Required().Min(1).Max(5),
		Integer("count", "c").Min(1).Max(10),
		Number("ratio", "r"),
		Boolean("flag", "f"),
		String("mode", "m").Enum("a", "b"),
		Array("tags", "t", StringItems()).Max(2),
		Of("user", "u", Object(String("name", "n").Required())),
		Any("value", "v").Types("string", "null"),
	)
	for _, tc := range []struct {
		args, field, want string // want "" means valid
	}{
		{`{"text":"hi"}`, "", ""},
		{``, "text", "is required (a string)"},
		{`null`, "text", "is required"},
		{`[1]`, "", "must be a JSON object, got array"},
		{`{"text":`, "", "not valid JSON"},
		{`{"text":"a"} {"text":5}`, "", "not valid JSON"},
		{`{"text":5}`, "text", "expected string, got number"},
		{`{"text":""}`, "text", "at least 1 characters"},
		{`{"text":"héllo!"}`, "text", "at most 5 characters, got 6"},
		{`{"text":"a","count":2.5}`, "count", "expected integer, got number"},
		{`{"text":"a","count":2.0}`, "", ""},
		{`{"text":"a","count":0}`, "count", "expected a number >= 1"},
		{`{"text":"a","count":11}`, "count", "<= 10"},
		{`{"text":"a","ratio":"1"}`, "ratio", "expected number, got string"},
		{`{"text":"a","flag":"true"}`, "flag", "expected boolean, got string"},
		{`{"text":"a","mode":"c"}`, "mode", `expected one of "a", "b", got "c"`},
		{`{"text":"a","tags":["x","y","z"]}`, "tags", "at most 2 items"},
		{`{"text":"a","tags":["x",3]}`, "tags[1]", "expected string, got number"},
		{`{"text":"a","user":{}}`, "user.name", "is required"},
		{`{"text":"a","user":{"name":1}}`, "user.name", "expected string"},
		{`{"text":"a","value":null}`, "", ""},
		{`{"text":"a","value":1}`, "value", "expected string or null, got number"},
		{`{"text":"a","value":[]}`, "value", "expected string or null, got array"},
		{`{"text":"a","unknown":1}`, "unknown", "is not a known argument; known: text, count"},
		{`{"text":"a","cuont":1}`, "cuont", `(did you mean "count"?)`},
		{`{"text":"a","user":{"name":"x","nmae":"y"}}`, "user.nmae", `did you mean "name"?`},
	} {
		err := Validate(s, json.RawMessage(tc.args))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tc.args, err)
			}
			continue
		}
		ve, ok := err.(*ValidationError)
		if !ok {
			t.Errorf("%s: want a *ValidationError, got %v", tc.args, err)
			continue
		}
		if ve.Field != tc.field || !strings.Contains(ve.Message, tc.want) {
			t.Errorf("%s: got field %q message %q; want field %q message containing %q", tc.args, ve.Field, ve.Message, tc.field, tc.want)
		}
	}
}

func TestBuilderOrderAndDefaults(t *testing.T) {
	t.Parallel()
	s := Object(String("b", "b").Default("x"), Integer("a", "a").Required())
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if strings.Index(got, `"b"`) > strings.Index(got, `"a"`) || !strings.Contains(got, `"default":"x"`) || !strings.Contains(got, `"required":["a"]`) {
		t.Fatalf("schema JSON keeps order, defaults and required: %s", got)
	}
}

func TestEnumComparesJSONValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		member, value any
		equal         bool
	}{
		{"a", "a", true}, {"a", "b", false}, {"1", 1.0, false},
		{1.0, 1.0, true}, {1.0, json.Number("1"), true}, {1, 1.0, true}, {2.5, 2.0, false},
		{true, true, true}, {true, "true", false}, {nil, nil, true},
		{map[string]any{"k": []any{1.0}}, map[string]any{"k": []any{1.0}}, true},
		{[]any{"x"}, []any{"y"}, false},
	} {
		if got := jsonEqual(c.member, c.value); got != c.equal {
			t.Errorf("jsonEqual(%#v, %#v) = %v, want %v", c.member, c.value, got, c.equal)
		}
	}
}

// A member of several types is checked by the branch of its value's type,
// and an error names that branch's problem, or the types taken.
func TestValidateUnion(t *testing.T) {
	t.Parallel()
	s := Object(
		Array("cmd", "c", StringItems()).Max(2).Types("array", "string").Required(),
		Integer("tail", "t").Min(0).Types("integer", "string"),
	)
	for _, tc := range []struct {
		args, field, want string // want "" means valid
	}{
		{`{"cmd":["ls","-l"]}`, "", ""},
		{`{"cmd":"ls -l","tail":"all"}`, "", ""},
		{`{"cmd":"x","tail":3}`, "", ""},
		{`{}`, "cmd", "is required (an array or a string)"},
		{`{"cmd":true}`, "cmd", "expected array or string, got boolean"},
		{`{"cmd":["a",1]}`, "cmd[1]", "expected string, got number"},
		{`{"cmd":["a","b","c"]}`, "cmd", "at most 2 items"},
		{`{"cmd":"x","tail":-1}`, "tail", "expected a number >= 0"},
		{`{"cmd":"x","tail":1.5}`, "tail", "expected integer or string, got number"},
	} {
		err := Validate(s, json.RawMessage(tc.args))
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: unexpected error %v", tc.args, err)
			}
			continue
		}
		ve, ok := err.(*ValidationError)
		if !ok || ve.Field != tc.field || !strings.Contains(ve.Message, tc.want) {
			t.Errorf("%s: got %v; want field %q message containing %q", tc.args, err, tc.field, tc.want)
		}
	}
}
