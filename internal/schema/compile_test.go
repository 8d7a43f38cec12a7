package schema

import (
	"strings"
	"testing"
)

func TestCompile(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema, data string
		valid        bool
	}{
		{`{"type":"integer","minimum":0}`, `3`, true},
		{`{"type":"integer","minimum":0}`, `-1`, false},
		{`{"type":["string","null"]}`, `null`, true},
		{`true`, `{"a":1}`, true},
		{`false`, `1`, false},
		{`{"$defs":{"n":{"type":"number"}},"items":{"$ref":"#/$defs/n"}}`, `[1,"x"]`, false},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s"}`, `"x"`, true},
		// A property named "type" is a property, and const holds data.
		{`{"properties":{"type":{"type":"string"}},"const":{"type":"x"}}`, `{"type":"x"}`, true},
	} {
		rs, err := Compile([]byte(tc.schema))
		if err != nil {
			t.Errorf("Compile(%s): %v", tc.schema, err)
			continue
		}
		v, err := Instance([]byte(tc.data))
		if err != nil {
			t.Fatalf("Instance(%s): %v", tc.data, err)
		}
		if err := rs.Validate(v); (err == nil) != tc.valid {
			t.Errorf("Compile(%s).Validate(%s) = %v, want valid %v", tc.schema, tc.data, err, tc.valid)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ schema, want string }{
		{`{"type":"strin"}`, `/type: "strin" is not a JSON type`},
		{`{"properties":{"a":{"type":["string","int"]}}}`, `/properties/a/type: "int" is not a JSON type`},
		{`{"$defs":{"a/b":{"type":"x"}}}`, `/$defs/a~1b/type: "x"`},
		{`{"minimum":"x"}`, `keyword "minimum" must be a number, got JSON string`},
		{`{"required":"a"}`, `keyword "required" must be an array, got JSON string`},
		{`{"$ref":"#/$defs/nope"}`, "nope"},
		{`{"$ref":"https://example.com/s.json"}`, "remote"},
		{`{"pattern":"[("}`, "pattern"},
		{`{"$schema":"http://json-schema.org/draft-04/schema#"}`, `"http://json-schema.org/draft-04/schema#" is not supported`},
		{`{`, "unexpected end"},
	} {
		_, err := Compile([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%s) = %v, want an error mentioning %s", tc.schema, err, tc.want)
		}
	}
}

func TestInstance(t *testing.T) {
	t.Parallel()
	if v, err := Instance(nil); v != nil || err != nil {
		t.Errorf("Instance(nil) = %v, %v; want null", v, err)
	}
	if v, err := Instance([]byte(`12`)); v != float64(12) || err != nil {
		t.Errorf("Instance(12) = %#v, %v; want float64 12", v, err)
	}
	if _, err := Instance([]byte(`{`)); err == nil {
		t.Error("Instance({) gave no error")
	}
}
