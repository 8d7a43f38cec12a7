package docs

import (
	"reflect"
	"testing"
)

func TestCodeBlocks(t *testing.T) {
	md := "text\n```json\n{\"a\": 1}\n```\n- item\n\n   ```yaml\n   a: 1\n     b: 2\n   ```\n````sh\nx\n```\n````\n"
	got := CodeBlocks(md)
	want := []Block{
		{Lang: "json", Text: "{\"a\": 1}", Line: 2},
		{Lang: "yaml", Text: "a: 1\n  b: 2", Line: 7},
		{Lang: "sh", Text: "x\n```", Line: 11},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("CodeBlocks = %#v, want %#v", got, want)
	}
}

func TestTranscripts(t *testing.T) {
	got := Transcripts("$ a 1\n{\n  \"x\": 1\n}\n$ b\nERR: no\n\n")
	want := []Transcript{{"a 1", "{\n  \"x\": 1\n}"}, {"b", "ERR: no"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Transcripts = %q, want %q", got, want)
	}
	if Transcripts("a\nb\n") != nil {
		t.Error("a block without prompts has transcripts")
	}
}

func TestShellCommands(t *testing.T) {
	text := `bin/barrhawk call hash_text '{"text":"a b"}'   # a comment
export T=$(openssl rand -hex 24)
bin/barrhawk serve --http 127.0.0.1:8765 --stdio=false &
claude mcp add --header "Authorization: Bearer \"$T\"" x | tee log && echo done; true
bin/barrhawk call swarm_run '{"s":[
  1]}'
scripts/test \
  -v`
	want := [][]string{
		{"bin/barrhawk", "call", "hash_text", `{"text":"a b"}`},
		{"export", "T=$(openssl rand -hex 24)"},
		{"bin/barrhawk", "serve", "--http", "127.0.0.1:8765", "--stdio=false"},
		{"claude", "mcp", "add", "--header", `Authorization: Bearer "$T"`, "x"},
		{"tee", "log"},
		{"echo", "done"},
		{"true"},
		{"bin/barrhawk", "call", "swarm_run", "{\"s\":[\n  1]}"},
		{"scripts/test", "-v"},
	}
	if got := ShellCommands(text); !reflect.DeepEqual(got, want) {
		t.Errorf("ShellCommands =\n%q\nwant\n%q", got, want)
	}
}
