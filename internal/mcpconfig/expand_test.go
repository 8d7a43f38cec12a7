package mcpconfig

import (
	"path/filepath"
	"reflect"
	"testing"
)

// env is a fixed environment for Expand.
func env(vars map[string]string) func(string) (string, bool) {
	return func(name string) (string, bool) {
		v, ok := vars[name]
		return v, ok
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TOKEN": "t0k", "HOST": "example.com", "EMPTY": "", "workspaceFolder": "/w/app", "userHome": "/home/me"}
	sep := string(filepath.Separator)
	tests := []struct {
		name    string
		client  string
		in      string
		want    string
		missing []string
	}{
		{"claude: braces", ClientClaudeCode, "Bearer ${TOKEN}", "Bearer t0k", nil},
		{"claude: default used", ClientClaudeCode, "${BASE:-https://api.example.com}/mcp", "https://api.example.com/mcp", nil},
		{"claude: default not used", ClientClaudeCode, "https://${HOST:-localhost}/mcp", "https://example.com/mcp", nil},
		{"claude: empty is set", ClientClaudeCode, "[${EMPTY:-x}]", "[]", nil},
		{"claude: empty default", ClientClaudeCode, "[${NOPE:-}]", "[]", nil},
		{"claude: unset stays", ClientClaudeCode, "${NOPE} and ${NOPE} and ${GONE}", "${NOPE} and ${NOPE} and ${GONE}", []string{"NOPE", "GONE"}},
		{"claude: bare $VAR stays", ClientClaudeCode, "$TOKEN costs $5", "$TOKEN costs $5", nil},
		{"claude: unclosed", ClientClaudeCode, "${TOKEN", "${TOKEN", nil},
		{"cursor: env:", ClientCursor, "${env:TOKEN}", "t0k", nil},
		{"cursor: plain", ClientCursor, "${TOKEN}", "t0k", nil},
		{"cursor: predefined", ClientCursor, "${userHome}${/}x ${workspaceFolder}${pathSeparator}y ${workspaceFolderBasename}",
			"/home/me" + sep + "x /w/app" + sep + "y app", nil},
		{"cursor: unset", ClientCursor, "${env:NOPE}", "${env:NOPE}", []string{"NOPE"}},
		{"vscode: env:", ClientVSCode, "Bearer ${env:TOKEN}", "Bearer t0k", nil},
		{"vscode: predefined", ClientVSCode, "${workspaceFolder}/db.sqlite", "/w/app/db.sqlite", nil},
		{"vscode: input", ClientVSCode, "Bearer ${input:github_token}", "Bearer ${input:github_token}", []string{"input:github_token"}},
		{"vscode: plain is not env", ClientVSCode, "${TOKEN}", "${TOKEN}", []string{"TOKEN"}},
		{"vscode: config", ClientVSCode, "${config:editor.fontSize}", "${config:editor.fontSize}", []string{"config:editor.fontSize"}},
		{"gemini: dollar", ClientGemini, "$TOKEN@$HOST:8080", "t0k@example.com:8080", nil},
		{"gemini: braces", ClientGemini, "${TOKEN}x", "t0kx", nil},
		{"gemini: unset", ClientGemini, "$NOPE and ${GONE}", "$NOPE and ${GONE}", []string{"NOPE", "GONE"}},
		{"gemini: lone dollars", ClientGemini, "$ 5 $1 $", "$ 5 $1 $", nil},
		{"generic: all env forms", ClientGeneric, "${TOKEN} ${env:HOST} ${NOPE:-d}", "t0k example.com d", nil},
		{"generic: no $VAR", ClientGeneric, "$TOKEN", "$TOKEN", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := Server{Name: "s", Transport: "stdio", Command: tt.in, Client: tt.client}
			got, missing := in.Expand(env(vars))
			if got.Command != tt.want {
				t.Errorf("Expand(%q) = %q, want %q", tt.in, got.Command, tt.want)
			}
			if !reflect.DeepEqual(missing, tt.missing) {
				t.Errorf("missing %q, want %q", missing, tt.missing)
			}
		})
	}
}

func TestExpandFields(t *testing.T) {
	t.Parallel()
	in := Server{Name: "s", Transport: "stdio", Client: ClientClaudeCode, Command: "${BIN}", Args: []string{"--key", "${KEY}"},
		Env: map[string]string{"${KEY}": "${KEY}"}, Cwd: "${DIR}", URL: "${URL}", Headers: map[string]string{"A": "${KEY}"}, Source: "${KEY}"}
	got, missing := in.Expand(env(map[string]string{"BIN": "b", "KEY": "k", "DIR": "d", "URL": "u"}))
	want := Server{Name: "s", Transport: "stdio", Client: ClientClaudeCode, Command: "b", Args: []string{"--key", "k"},
		Env: map[string]string{"${KEY}": "k"}, Cwd: "d", URL: "u", Headers: map[string]string{"A": "k"}, Source: "${KEY}"}
	if !reflect.DeepEqual(got, want) || missing != nil {
		t.Errorf("Expand = %+v, %q\nwant %+v", got, missing, want)
	}
	if in.Args[1] != "${KEY}" || in.Env["${KEY}"] != "${KEY}" || in.Headers["A"] != "${KEY}" {
		t.Errorf("Expand changed its receiver: %+v", in)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	lookup := Lookup(env(map[string]string{"A": "a", "workspaceFolder": "from-env"}), "/w/app", "/home/me")
	s := Server{Name: "s", Transport: "stdio", Client: ClientVSCode, Command: "${workspaceFolder} ${userHome} ${workspaceFolderBasename} ${env:A}"}
	got, missing := s.Expand(lookup)
	if want := "/w/app /home/me app a"; got.Command != want || missing != nil {
		t.Errorf("Expand = %q, %q; want %q", got.Command, missing, want)
	}
	got, missing = s.Expand(Lookup(env(nil), "", ""))
	if want := []string{"workspaceFolder", "userHome", "workspaceFolderBasename", "A"}; !reflect.DeepEqual(missing, want) {
		t.Errorf("missing %q, want %q (command %q)", missing, want, got.Command)
	}
}
