package mcpconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeFile writes content to path, making its directory.
func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// fileErrors returns the *FileErrors joined in err.
func fileErrors(t *testing.T, err error) []*FileError {
	t.Helper()
	if err == nil {
		return nil
	}
	var list []error
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		list = joined.Unwrap()
	} else {
		list = []error{err}
	}
	var out []*FileError
	for _, e := range list {
		var fe *FileError
		if !errors.As(e, &fe) {
			t.Fatalf("error %v is not a *FileError", e)
		}
		out = append(out, fe)
	}
	return out
}

// Fixtures as each client's docs write them.
const (
	claudeProjectFile = `{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "${HOME}/projects"],
      "env": {"DEBUG": "${DEBUG:-false}"}
    },
    "remote-api": {
      "type": "sse",
      "url": "https://api.example.com/mcp/sse",
      "headers": {"Authorization": "Bearer ${API_TOKEN}"}
    },
    "http-service": {
      "type": "http",
      "url": "${API_BASE_URL:-https://api.example.com}/mcp",
      "headers": {"X-API-Key": "${API_KEY}"}
    }
  }
}`
	cursorFile = `{
  "mcpServers": {
    "server-name": {
      "command": "npx",
      "args": ["-y", "mcp-server"],
      "env": {"API_KEY": "${env:API_KEY}"}
    },
    "remote": {
      "url": "https://mcp.example.com/mcp",
      "headers": {"Authorization": "Bearer ${env:MY_SERVICE_TOKEN}"}
    },
  }
}`
	vscodeFile = `{
  // 💡 Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true
    }
  ],
  "servers": {
    // https://github.com/ppl-ai/modelcontextprotocol/
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {
        "PERPLEXITY_API_KEY": "${input:perplexity-key}",
        "PORT": 8080,
        "NODE_OPTIONS": null,
      },
      "cwd": "${workspaceFolder}"
    },
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer ${input:github_token}"}
    },
    "legacy": {"type": "sse", "url": "http://localhost:3001/sse"}
  }
}`
	geminiFile = `{
  "theme": "GitHub",
  "mcp": {"excluded": ["experimental"]},
  "mcpServers": {
    "pythonTools": {
      "command": "python",
      "args": ["-m", "my_mcp_server", "--port", "8080"],
      "cwd": "./mcp-servers/python",
      "env": {
        "DATABASE_URL": "$DB_CONNECTION_STRING",
        "API_KEY": "${EXTERNAL_API_KEY}"
      },
      "timeout": 15000,
      "trust": false,
      "includeTools": ["safe_tool"]
    },
    "sseServer": {"url": "https://api.example.com/sse", "headers": {"Authorization": "Bearer token"}},
    "httpServerWithAuth": {
      "httpUrl": "http://localhost:3000/mcp",
      "headers": {"Authorization": "Bearer your-api-token"},
      "timeout": 5000
    },
    "experimental": {"command": "node", "args": ["dist/server.js"]}
  }
}`
	genericFile = `{
  "mcpServers": {
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "disabled": true}
  }
}`
)

func TestParseFormats(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		file   string // the file's path under the project
		data   string
		format Format
		want   func(path, project string) []Server
	}{
		{"claude code .mcp.json", ".mcp.json", claudeProjectFile, FormatClaudeProject, func(path, _ string) []Server {
			return []Server{
				{Name: "filesystem", Transport: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "${HOME}/projects"},
					Env: map[string]string{"DEBUG": "${DEBUG:-false}"}, Source: path, Client: "claude-code"},
				{Name: "remote-api", Transport: "sse", URL: "https://api.example.com/mcp/sse",
					Headers: map[string]string{"Authorization": "Bearer ${API_TOKEN}"}, Source: path, Client: "claude-code"},
				{Name: "http-service", Transport: "http", URL: "${API_BASE_URL:-https://api.example.com}/mcp",
					Headers: map[string]string{"X-API-Key": "${API_KEY}"}, Source: path, Client: "claude-code"},
			}
		}},
		{"cursor", ".cursor/mcp.json", cursorFile, FormatCursor, func(path, _ string) []Server {
			return []Server{
				{Name: "server-name", Transport: "stdio", Command: "npx", Args: []string{"-y", "mcp-server"},
					Env: map[string]string{"API_KEY": "${env:API_KEY}"}, Source: path, Client: "cursor"},
				{Name: "remote", Transport: "http", URL: "https://mcp.example.com/mcp",
					Headers: map[string]string{"Authorization": "Bearer ${env:MY_SERVICE_TOKEN}"}, Source: path, Client: "cursor"},
			}
		}},
		{"vscode", ".vscode/mcp.json", vscodeFile, FormatVSCode, func(path, _ string) []Server {
			return []Server{
				{Name: "Perplexity", Transport: "stdio", Command: "npx", Args: []string{"-y", "server-perplexity-ask"},
					Env: map[string]string{"PERPLEXITY_API_KEY": "${input:perplexity-key}", "PORT": "8080", "NODE_OPTIONS": ""},
					Cwd: "${workspaceFolder}", Source: path, Client: "vscode"},
				{Name: "github", Transport: "http", URL: "https://api.githubcopilot.com/mcp/",
					Headers: map[string]string{"Authorization": "Bearer ${input:github_token}"}, Source: path, Client: "vscode"},
				{Name: "legacy", Transport: "sse", URL: "http://localhost:3001/sse", Source: path, Client: "vscode"},
			}
		}},
		{"gemini", ".gemini/settings.json", geminiFile, FormatGemini, func(path, project string) []Server {
			return []Server{
				{Name: "pythonTools", Transport: "stdio", Command: "python", Args: []string{"-m", "my_mcp_server", "--port", "8080"},
					Cwd: filepath.Join(project, "mcp-servers", "python"),
					Env: map[string]string{"DATABASE_URL": "$DB_CONNECTION_STRING", "API_KEY": "${EXTERNAL_API_KEY}"}, Source: path, Client: "gemini"},
				{Name: "sseServer", Transport: "sse", URL: "https://api.example.com/sse",
					Headers: map[string]string{"Authorization": "Bearer token"}, Source: path, Client: "gemini"},
				{Name: "httpServerWithAuth", Transport: "http", URL: "http://localhost:3000/mcp",
					Headers: map[string]string{"Authorization": "Bearer your-api-token"}, Source: path, Client: "gemini"},
				{Name: "experimental", Transport: "stdio", Command: "node", Args: []string{"dist/server.js"}, Disabled: true, Source: path, Client: "gemini"},
			}
		}},
		{"generic", "claude_desktop_config.json", genericFile, FormatGeneric, func(path, _ string) []Server {
			return []Server{{Name: "memory", Transport: "stdio", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-memory"},
				Disabled: true, Source: path}}
		}},
	}
	for _, tt := range tests {
		for _, format := range []Format{tt.format, FormatAuto} {
			t.Run(tt.name+"/"+string(format), func(t *testing.T) {
				t.Parallel()
				project := t.TempDir()
				path := writeFile(t, filepath.Join(project, tt.file), tt.data)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				got, err := Parse(path, data, format, project)
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if want := tt.want(path, project); !reflect.DeepEqual(got, want) {
					t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
				}
			})
		}
	}
}

func TestParseClaudeUser(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	project := filepath.Join(home, "code", "app")
	other := filepath.Join(home, "code", "other")
	path := writeFile(t, filepath.Join(home, ".claude.json"), `{
  "numStartups": 12,
  "mcpServers": {
    "user-tool": {"type": "stdio", "command": "/usr/local/bin/tool", "args": [], "env": {}}
  },
  "projects": {
    "`+other+`": {
      "allowedTools": [],
      "mcpServers": {"other-only": {"type": "stdio", "command": "other"}}
    },
    "`+project+`": {
      "allowedTools": [],
      "history": [{"display": "hi"}],
      "mcpServers": {
        "local-db": {"type": "stdio", "command": "npx", "args": ["-y", "@bytebase/dbhub"], "env": {"DSN": "postgres://localhost/app"}},
        "local-http": {"type": "http", "url": "http://127.0.0.1:9000/mcp"}
      }
    },
    "`+project+`/sub": {"mcpServers": {"sub-only": {"command": "sub"}}},
    "/elsewhere": {"mcpServers": "not even an object"}
  }
}`)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		projectDir string
		want       []Server
	}{
		{"one project", project, []Server{
			{Name: "local-db", Transport: "stdio", Command: "npx", Args: []string{"-y", "@bytebase/dbhub"},
				Env: map[string]string{"DSN": "postgres://localhost/app"}, Source: path + " (project " + project + ")", Client: "claude-code"},
			{Name: "local-http", Transport: "http", URL: "http://127.0.0.1:9000/mcp", Source: path + " (project " + project + ")", Client: "claude-code"},
			{Name: "user-tool", Transport: "stdio", Command: "/usr/local/bin/tool", Args: []string{}, Env: map[string]string{},
				Source: path + " (user)", Client: "claude-code"},
		}},
		{"the other project", other + string(filepath.Separator), []Server{
			{Name: "other-only", Transport: "stdio", Command: "other", Source: path + " (project " + other + ")", Client: "claude-code"},
			{Name: "user-tool", Transport: "stdio", Command: "/usr/local/bin/tool", Args: []string{}, Env: map[string]string{},
				Source: path + " (user)", Client: "claude-code"},
		}},
		{"no project", "", []Server{
			{Name: "user-tool", Transport: "stdio", Command: "/usr/local/bin/tool", Args: []string{}, Env: map[string]string{},
				Source: path + " (user)", Client: "claude-code"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(path, data, FormatAuto, tt.projectDir)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseBadEntries(t *testing.T) {
	t.Parallel()
	data := []byte(`{
  "mcpServers": {
    "good": {"command": "npx", "args": ["-y", "good-server"]},
    "empty": {},
    "both": {"command": "npx", "url": "https://example.com/mcp"},
    "websocket": {"type": "ws", "url": "wss://example.com/mcp"},
    "flag-args": {"command": "server", "args": "--port 8080"},
    "number-arg": {"command": "server", "args": ["--port", 8080]},
    "bool-env": {"command": "server", "env": {"DEBUG": true, "NAME": "x"}},
    "ftp": {"type": "http", "url": "ftp://example.com/mcp"},
    "stdio-url": {"type": "stdio", "url": "https://example.com/mcp"},
    "not-an-object": ["npx"],
    "also-good": {"type": "http", "url": "https://example.com/mcp"}
  }
}`)
	got, err := Parse("/p/.mcp.json", data, FormatAuto, "/p")
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	if want := []string{"good", "also-good"}; !reflect.DeepEqual(names, want) {
		t.Errorf("servers %q, want %q", names, want)
	}
	wantErrs := map[string][]string{
		"empty":         {`has neither "command" nor "url"`, `give "command"`},
		"both":          {`has both "command"`, `keep one`},
		"websocket":     {`"type" is "ws"`, `want "stdio", "http" (streamable HTTP) or "sse"`},
		"flag-args":     {`"args" is a string; want a list of strings`},
		"number-arg":    {`"args" item 2 is a number; want a string: write "8080"`},
		"bool-env":      {`"env" value of "DEBUG" is a boolean; want a string: write "true"`},
		"ftp":           {`"url" is "ftp://example.com/mcp"; want an http:// or https:// address`},
		"stdio-url":     {`"type" is "stdio" but it has no "command"`},
		"not-an-object": {`is an array; want an object`},
	}
	errs := fileErrors(t, err)
	if len(errs) != len(wantErrs) {
		t.Errorf("%d errors, want %d: %v", len(errs), len(wantErrs), err)
	}
	for _, fe := range errs {
		if fe.Path != "/p/.mcp.json" {
			t.Errorf("error path %q", fe.Path)
		}
		for _, want := range wantErrs[fe.Server] {
			if !contains(fe.Message, want) {
				t.Errorf("server %q: message %q does not contain %q", fe.Server, fe.Message, want)
			}
		}
		if contains(fe.Message, `server "`+fe.Server) {
			t.Errorf("message %q names the server again", fe.Message)
		}
		if want := `/p/.mcp.json: server "` + fe.Server + `": `; !strings.HasPrefix(fe.Error(), want) {
			t.Errorf("Error() = %q, want it to begin %q", fe.Error(), want)
		}
		delete(wantErrs, fe.Server)
	}
	for name := range wantErrs {
		t.Errorf("no error for server %q", name)
	}
}

func TestParseBadFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		path   string
		data   string
		format Format
		want   string // in the error
	}{
		{"invalid JSON", "/p/.mcp.json", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\"}}\n  }\n}", FormatAuto, "/p/.mcp.json: line 5, column 1: invalid JSON"},
		{"a list", "/p/.mcp.json", `["a"]`, FormatAuto, `/p/.mcp.json: is an array; want a JSON object`},
		{"servers not an object", "/p/.cursor/mcp.json", `{"mcpServers": ["a"]}`, FormatAuto, `"mcpServers" is an array; want an object of servers by name`},
		{"unknown content", "/p/servers.json", `{"tools": {}}`, FormatAuto, `has neither "mcpServers" nor "servers"`},
		{"generic without servers", "/p/x.json", `{"tools": {}}`, FormatGeneric, `has no "mcpServers" object`},
		{"empty", "/p/.mcp.json", "  \n", FormatAuto, "is empty"},
		{"unknown format", "/p/x.json", `{}`, Format("zed"), `format "zed" is not one of`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.path, []byte(tt.data), tt.format, "/p")
			if len(got) != 0 {
				t.Errorf("servers %+v", got)
			}
			if err == nil || !contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseNoServers(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, path, data string }{
		{"gemini settings without servers", "/p/.gemini/settings.json", `{"theme": "Dracula", // mine
}`},
		{"claude.json without servers", "/h/.claude.json", `{"numStartups": 3, "projects": {}}`},
		{"empty claude.json", "/h/.claude.json", ``},
		{"vscode without servers", "/p/.vscode/mcp.json", `{"inputs": []}`},
		{"empty cursor servers", "/p/.cursor/mcp.json", `{"mcpServers": {}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.path, []byte(tt.data), FormatAuto, "/p")
			if len(got) != 0 || err != nil {
				t.Errorf("Parse = %+v, %v; want nothing", got, err)
			}
		})
	}
}

func TestParseDetect(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, data string
		client     string
	}{
		{"/p/.mcp.json", `{"mcpServers": {"a": {"command": "x"}}}`, "claude-code"},
		{"/p/.cursor/mcp.json", `{"mcpServers": {"a": {"command": "x"}}}`, "cursor"},
		{"/p/.vscode/mcp.json", `{"servers": {"a": {"command": "x"}}}`, "vscode"},
		{"/h/.config/Code/User/mcp.json", `{"servers": {"a": {"command": "x"}}}`, "vscode"},
		{"/p/.gemini/settings.json", `{"mcpServers": {"a": {"command": "x"}}}`, "gemini"},
		{"/p/mine.json", `{"servers": {"a": {"command": "x"}}}`, "vscode"},
		{"/p/mine.json", `{"mcpServers": {"a": {"command": "x"}}}`, ""},
		{"/p/settings.json", `{"mcpServers": {"a": {"command": "x"}}}`, ""},
		{"/h/backup.json", `{"projects": {"/p": {"mcpServers": {"a": {"command": "x"}}}}}`, "claude-code"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.path, []byte(tt.data), FormatAuto, "/p")
			if err != nil || len(got) != 1 {
				t.Fatalf("Parse = %+v, %v", got, err)
			}
			if got[0].Client != tt.client {
				t.Errorf("client %q, want %q", got[0].Client, tt.client)
			}
		})
	}
}

func TestParseEnvFile(t *testing.T) {
	t.Parallel()
	project := t.TempDir()
	writeFile(t, filepath.Join(project, ".env"), `# secrets
export API_KEY="abc \"123\""
PORT=8080 # the port
EMPTY=
SINGLE='a $b'
`)
	path := writeFile(t, filepath.Join(project, ".vscode", "mcp.json"), `{
  "servers": {
    "with-env": {"type": "stdio", "command": "server", "envFile": "${workspaceFolder}/.env", "env": {"PORT": "9090"}},
    "relative": {"command": "server", "envFile": ".env"},
    "missing": {"command": "server", "envFile": "${workspaceFolder}/nope.env"},
    "unset": {"command": "server", "envFile": "${env:MCPCONFIG_TEST_UNSET_DIR}/.env"}
  }
}`)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(path, data, FormatAuto, project)
	fromFile := map[string]string{"API_KEY": `abc "123"`, "PORT": "8080", "EMPTY": "", "SINGLE": "a $b"}
	want := []Server{
		{Name: "with-env", Transport: "stdio", Command: "server", Env: map[string]string{"API_KEY": `abc "123"`, "PORT": "9090", "EMPTY": "", "SINGLE": "a $b"},
			Source: path, Client: "vscode"},
		{Name: "relative", Transport: "stdio", Command: "server", Env: fromFile, Source: path, Client: "vscode"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse:\n got %+v\nwant %+v", got, want)
	}
	errs := fileErrors(t, err)
	if len(errs) != 2 {
		t.Fatalf("errors %v, want 2", err)
	}
	if errs[0].Server != "missing" || !contains(errs[0].Message, `"envFile" cannot be read`) {
		t.Errorf("error %v", errs[0])
	}
	if errs[1].Server != "unset" || !contains(errs[1].Message, `refers to MCPCONFIG_TEST_UNSET_DIR, which is not set`) {
		t.Errorf("error %v", errs[1])
	}
}

func TestParseDotenvErrors(t *testing.T) {
	t.Parallel()
	for _, data := range []string{"just words\n", "A=\"open\n", "A='open\n", "=value\n"} {
		if _, err := parseDotenv([]byte(data)); err == nil || !contains(err.Error(), "line 1") {
			t.Errorf("parseDotenv(%q) = %v, want an error at line 1", data, err)
		}
	}
}

// parseEntry reads one server entry, called name, from its JSON as the
// client files' readers do, and validates it; its errors begin with the
// server's name.
func parseEntry(name string, raw json.RawMessage) (Server, error) {
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return Server{}, fmt.Errorf("server %q: %s", name, syntaxMessage(raw, err))
		}
		return Server{}, fmt.Errorf("server %q: %w", name, err)
	}
	s, err := e.toServer(name)
	if err != nil {
		return Server{}, fmt.Errorf("server %q: %w", name, err)
	}
	return s, nil
}

func TestParseEntry(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		raw     string
		want    Server
		wantErr string
	}{
		{"stdio", `{"command": "npx", "args": ["-y", "x"], "env": {"A": "b"}, "cwd": "/tmp"}`,
			Server{Name: "s", Transport: "stdio", Command: "npx", Args: []string{"-y", "x"}, Env: map[string]string{"A": "b"}, Cwd: "/tmp"}, ""},
		{"url means http", `{"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer t"}}`,
			Server{Name: "s", Transport: "http", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer t"}}, ""},
		{"streamable-http", `{"type": "streamable-http", "url": "http://127.0.0.1:8080/mcp"}`,
			Server{Name: "s", Transport: "http", URL: "http://127.0.0.1:8080/mcp"}, ""},
		{"httpUrl", `{"httpUrl": "http://127.0.0.1:8080/mcp"}`, Server{Name: "s", Transport: "http", URL: "http://127.0.0.1:8080/mcp"}, ""},
		{"url from a variable", `{"type": "http", "url": "${BASE}/mcp"}`, Server{Name: "s", Transport: "http", URL: "${BASE}/mcp"}, ""},
		{"host from a variable", `{"type": "http", "url": "https://${HOST}/mcp"}`, Server{Name: "s", Transport: "http", URL: "https://${HOST}/mcp"}, ""},
		{"nulls are left out", `{"command": "x", "url": null, "args": null}`, Server{Name: "s", Transport: "stdio", Command: "x"}, ""},
		{"unknown fields ignored", `{"command": "x", "timeout": 5, "autoApprove": ["a"], "oauth": {}}`, Server{Name: "s", Transport: "stdio", Command: "x"}, ""},
		{"url and httpUrl", `{"url": "http://a/sse", "httpUrl": "http://a/mcp"}`, Server{}, `server "s": has both "url"`},
		{"httpUrl with sse", `{"type": "sse", "httpUrl": "http://a/mcp"}`, Server{}, `"httpUrl" is a streamable HTTP endpoint but "type" is "sse"`},
		{"http with command", `{"type": "http", "command": "x"}`, Server{}, `"type" is "http" but it has no "url"`},
		{"no host", `{"url": "http:///mcp"}`, Server{}, `"url" ("http:///mcp") has no host`},
		{"envFile", `{"command": "x", "envFile": ".env"}`, Server{}, `"envFile" (".env") is read only from a client's file`},
		{"several problems", `{"command": 3, "env": "A=b", "disabled": "yes"}`, Server{},
			`server "s": "command" is a number; want a string; "env" is a string; want an object of strings, such as {"NAME": "value"}; "disabled" is a string; want true or false`},
		{"not JSON", `{"command": }`, Server{}, `server "s": line 1, column 13: invalid JSON`},
		{"header not a string", `{"url": "https://a/mcp", "headers": {"X-N": 1}}`, Server{}, `"headers" value of "X-N" is a number; want a string: write "1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseEntry("s", []byte(tt.raw))
			if tt.wantErr != "" {
				if err == nil || !contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseEntry: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("parseEntry:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseGeminiPolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, mcp    string
		wantDisabled []string
		wantErr      string
	}{
		{"allowed", `{"allowed": ["a"]}`, []string{"b", "c"}, ""},
		{"excluded", `{"excluded": ["c"]}`, []string{"c"}, ""},
		{"both", `{"allowed": ["a", "c"], "excluded": ["c"]}`, []string{"b", "c"}, ""},
		{"none", `{"serverCommand": "x"}`, nil, ""},
		{"bad", `{"excluded": "c"}`, nil, `"mcp.allowed" and "mcp.excluded" must be lists of server names`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data := `{"mcp": ` + tt.mcp + `, "mcpServers": {"a": {"command": "a"}, "b": {"command": "b"}, "c": {"httpUrl": "https://c.example.com/mcp"}}}`
			got, err := Parse("/p/.gemini/settings.json", []byte(data), FormatAuto, "/p")
			if tt.wantErr != "" {
				if err == nil || !contains(err.Error(), tt.wantErr) {
					t.Errorf("error %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			var disabled []string
			for _, s := range got {
				if s.Disabled {
					disabled = append(disabled, s.Name)
				}
			}
			if !reflect.DeepEqual(disabled, tt.wantDisabled) {
				t.Errorf("disabled %q, want %q", disabled, tt.wantDisabled)
			}
		})
	}
}
