package schema

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Portable writes type arrays as anyOf of single types, the keywords of
// one type inside its branch, wherever they are, and leaves the schema it
// was given as it was.
func TestPortable(t *testing.T) {
	t.Parallel()
	shared := &jsonschema.Schema{Types: []string{"integer", "string"}}
	cmd := Array("cmd", "The command", StringItems()).Max(2).Types("array", "string").Required()
	cmd.Schema.Default = json.RawMessage(`"ls"`)
	args := Any("args", "Its arguments").Types("object", "null")
	args.Schema.AdditionalProperties = &jsonschema.Schema{Type: "number"}
	env := Map("env", "Variables")
	env.Schema.AdditionalProperties = &jsonschema.Schema{Types: []string{"string", "number"}}
	s := Object(cmd, args, env, Of("ref", "A workflow", shared), Any("only", "One type").Types("string"), Any("value", "any JSON value"))
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{` +
		`"cmd":{"description":"The command","default":"ls","anyOf":[{"type":"array","items":{"type":"string"},"maxItems":2},{"type":"string"}]},` +
		`"args":{"description":"Its arguments","anyOf":[{"type":"object","additionalProperties":{"type":"number"}},{"type":"null"}]},` +
		`"env":{"type":"object","description":"Variables","additionalProperties":{"anyOf":[{"type":"string"},{"type":"number"}]}},` +
		`"ref":{"description":"A workflow","anyOf":[{"type":"integer"},{"type":"string"}]},` +
		`"only":{"type":"string","description":"One type"},` +
		`"value":{"description":"any JSON value"}},` +
		`"required":["cmd"],"additionalProperties":false}`
	if string(b) != want {
		t.Errorf("Object's properties, made portable:\n got %s\nwant %s", b, want)
	}
	if len(shared.Types) != 2 || shared.AnyOf != nil || len(env.Schema.AdditionalProperties.Types) != 2 {
		t.Errorf("the schemas given were changed: %+v %+v", shared, env.Schema.AdditionalProperties)
	}
	if plain := StringItems(); Portable(plain) != plain {
		t.Error("a schema with no type array is not returned as it is")
	}
	if _, err := s.Resolve(nil); err != nil {
		t.Errorf("the portable schema does not resolve: %v", err)
	}
}
