package front

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// parseCallParams reads what json.Unmarshal would, for every params object
// a frame can carry (valid JSON, valid UTF-8):
// the same name, arguments and progress token, and an error exactly when
// json.Unmarshal gives one.
func FuzzParseCallParams(f *testing.F) {
	for _, seed := range []string{
		`{"name":"hash_text","arguments":{"text":"hello"}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"x","arguments":{}}`,
		`{"_meta":{"progressToken":7},"name":"x"}`,
		`{"name":"h\u0061sh","arguments":null}`,
		`{"NAME":"x","Arguments":[1]}`,
		`{"name":5}`,
		`{"name":"a","name":"b"}`,
		`{"_meta":null,"name":"x"}`,
		`{"_meta":[],"name":"x"}`,
		`{"n\u0061me":"x"}`,
		`{"name":"é ✓","arguments":"s"}`,
		`{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		params = bytes.TrimSpace(params)
		if len(params) == 0 || params[0] != '{' || !json.Valid(params) || !utf8.Valid(params) {
			// checkSyntax refuses both before a frame is read.
			return
		}
		var want callParams
		wantErr := json.Unmarshal(params, &want)
		got, err := parseCallParams(params)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: error %v, json.Unmarshal's %v", params, err, wantErr)
		}
		if wantErr != nil {
			return
		}
		if got.Name != want.Name || !bytes.Equal(got.Arguments, want.Arguments) || !reflect.DeepEqual(got.Meta.ProgressToken, want.Meta.ProgressToken) {
			t.Fatalf("%s:\n got %q %s %v\nwant %q %s %v", params, got.Name, got.Arguments, got.Meta.ProgressToken, want.Name, want.Arguments, want.Meta.ProgressToken)
		}
	})
}
