package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// fastSchemas are the shapes tools use: required and optional members of
// every type, enums, bounds, nested objects, arrays, closed objects, and a
// member of several types.
var fastSchemas = []*jsonschema.Schema{
	Object(
		String("text", "t").Required().Min(1).Max(5),
		Integer("count", "c").Min(1).Max(10),
		Number("ratio", "r").Min(-1.5),
		Boolean("flag", "f"),
		String("mode", "m").Enum("a", "b"),
		Array("tags", "t", StringItems()).Max(2),
		Of("user", "u", Object(String("name", "n").Required())),
		Any("value", "v").Types("string", "null"),
	),
	Object(String("text", "t").Required(), String("algorithm", "a").EnumStrings("md5", "sha256"), Number("n", "n").Enum(1, 2.5), Boolean("b", "b").Enum(true)),
	Object(Array("rows", "r", ObjectItems(Integer("id", "i").Required(), Map("data", "d"))).Min(1)),
	{Type: "object", AdditionalProperties: &jsonschema.Schema{Type: "number"}},
	{Type: "object", Properties: map[string]*jsonschema.Schema{"a": {Type: "string"}}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}}},
	{Types: []string{"object", "null"}},
	Object(
		Array("cmd", "c", StringItems()).Max(2).Types("array", "string").Required(),
		Integer("tail", "t").Min(0).Types("integer", "string"),
	),
}

// accepts never calls valid what Validate refuses (numbersFit, checked
// first, keeps numbers out of float64's range out; a test below holds it).
func FuzzAcceptsOnlyWhatValidateAccepts(f *testing.F) {
	for _, seed := range []string{
		`{"text":"hi"}`, `{"text":"héllo"}`, `{"text":"héllo!"}`, `{"text":"a\u00e9"}`, `{"text":"a","count":2.0}`, `{"text":"a","count":2.5}`,
		`{"text":"a","count":1e400}`, `{"text":"a","ratio":-1.5}`, `{"text":"a","mode":"a"}`, `{"text":"a","mode":"\u0061"}`, `{"text":"a","mode":"c"}`,
		`{"text":"a","tags":["x","y"]}`, `{"text":"a","tags":["x",1]}`, `{"text":"a","user":{"name":"n"}}`, `{"text":"a","user":{}}`,
		`{"text":"a","value":null}`, `{"text":"a","value":1}`, `{"text":"a","text":5}`, `{"te\u0078t":"a"}`, `{"algorithm":"md5","text":"x","n":2.5,"b":true}`,
		`{"cmd":["a"]}`, `{"cmd":"a b"}`, `{"cmd":["a",1]}`, `{"cmd":["a","b","c"]}`, `{"cmd":true}`, `{"cmd":"x","tail":-1}`, `{"cmd":"x","tail":"all"}`,
		`{"rows":[{"id":1,"data":{}}]}`, `{"rows":[]}`, `{"x":1,"y":2}`, `{"x":"1"}`, `{"a":"s"}`, `{"a":"s","b":1}`, `null`, `[]`, `{}`, ` {"text" : "hi" } `,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, args string) {
		raw := []byte(args)
		if !json.Valid(raw) || !numbersFit(raw) {
			return
		}
		for i, s := range fastSchemas {
			if accepts(s, raw) && validateDecoded(s, raw) != nil {
				t.Errorf("schema %d: accepts %s, which Validate refuses: %v", i, args, validateDecoded(s, raw))
			}
		}
	})
}

// validateDecoded is Validate without the fast path.
func validateDecoded(s *jsonschema.Schema, raw []byte) error {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	return ValidateValue(s, v)
}

// The usual arguments are accepted without decoding; the cases left to
// Validate are the ones its doc names.
func TestAcceptsTheUsualArguments(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		schema int
		args   string
		want   bool
	}{
		{0, `{"text":"hi","count":3,"ratio":0.5,"flag":false,"mode":"b","tags":["x"],"user":{"name":"n"},"value":"v"}`, true},
		{0, `{"text":"a","value":null}`, true},
		{1, `{"text":"hello","algorithm":"sha256","n":2.5,"b":true}`, true},
		{2, `{"rows":[{"id":1,"data":{"k":[1,2]}},{"id":2}]}`, true},
		{3, `{"x":1,"y":-2e3}`, true},
		{4, `{"a":"s"}`, true},
		{5, `null`, true},
		{5, `{}`, true},
		{6, `{"cmd":["ls","-l"],"tail":3}`, true},
		{6, `{"cmd":"ls -l","tail":"all"}`, true},
		{6, `{"cmd":["a","b","c"]}`, false},
		{6, `{"cmd":"x","tail":-1}`, false},
		// Left to Validate: invalid, or not shown valid here.
		{0, `{"text":"a\u00e9"}`, false},         // an escape under a length bound
		{0, `{"text":"a","text":"b"}`, false},    // a repeated name
		{0, `{"text":"a","count":1e400}`, false}, // out of float64's range
		{0, `{"text":"a","mode":"c"}`, false},
		{0, `{"count":1}`, false},
		{4, `{"b":1}`, false},
		{2, `{"rows":[]}`, false},
	} {
		if got := accepts(fastSchemas[c.schema], []byte(c.args)); got != c.want {
			t.Errorf("schema %d, %s: accepts %v, want %v", c.schema, c.args, got, c.want)
		}
	}
}

// numbersFit finds a number out of float64's range anywhere, and only
// numbers: not one in a string.
func TestNumbersFit(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]bool{
		`{"a":1,"b":[2.5e10,-3]}`: true, `{"a":"1e400"}`: true, `{"a":{"b":[1e400]}}`: false, `1E-400`: true, `-1e309`: false, `{"e":1}`: true,
	} {
		if got := numbersFit([]byte(args)); got != want {
			t.Errorf("numbersFit(%s) = %v, want %v", args, got, want)
		}
		var v any
		if decodes := json.Unmarshal([]byte(args), &v) == nil; decodes != want {
			t.Errorf("%s: decodes %v, but numbersFit says %v", args, decodes, want)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	s := fastSchemas[1]
	raw := []byte(`{"text":"hello","algorithm":"sha256"}`)
	for b.Loop() {
		if err := Validate(s, raw); err != nil {
			b.Fatal(err)
		}
	}
}
