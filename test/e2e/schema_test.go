package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
)

// TestToolSchemasArePortable: every tool's input schema passes the MCP
// Inspector's strict check, run as a user runs it (mcp-inspector --cli
// --strict --method tools/list, the real Inspector from the npm registry,
// pinned in scripts/test) over `barrhawk serve` listing all its tools
// (tools.listProfile all: the built-in ones, the front's own, the
// sub-agent and queue ones). Clients map tool schemas onto dialects
// narrower than JSON Schema: Gemini's function declarations take an
// OpenAPI subset with one type per schema, and reject a tool, or drop
// the constraint, whose schema has a type array or a bare true or false
// where a schema object belongs. So it fails on:
//   - any finding the Inspector rates an error (a bare boolean schema);
//   - any type array, which the Inspector rates a warning
//     (["object","null"] is written anyOf [{"type":"object"},{"type":"null"}],
//     as schema.Portable does for every tool built with package schema);
//   - a schema with no keyword at all (the Inspector's untyped-schema
//     warning) whose description does not say "any JSON value": such a
//     schema is left only where the argument is any JSON value
//     (assert_equals' actual, context_set's value), and says so;
//   - any other finding, and a schema jsonschema-go does not compile.
//
// It also checks the listed schemas itself for type arrays, as the
// Inspector names only arrays of known types.
func TestToolSchemasArePortable(t *testing.T) {
	t.Parallel()
	cli := filepath.Join(mcpInspector(t), ".bin", "mcp-inspector")
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "barrhawk.yaml"), []byte("tools:\n  listProfile: all\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The Inspector hands the server only a few variables of its own
	// (HOME, PATH and such) and those given with -e.
	cmd := exec.CommandContext(ctx, cli, "--cli", "--strict", "--format", "json", "--cwd", home,
		"-e", "BARRHAWK_HOME="+filepath.Join(home, ".barrhawk"), "-e", "BARRHAWK_LOG_LEVEL=warn",
		bin, "serve", "--method", "tools/list")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "NO_COLOR=1", "CI=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run() // exit 6: an error-severity finding, reported below
	var out struct {
		Result struct {
			Tools []struct {
				Name        string         `json:"name"`
				InputSchema map[string]any `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
		SchemaFindings []struct {
			ToolName string `json:"toolName"`
			Findings []struct {
				Rule, Severity, Schema, Path, Issue string
			} `json:"findings"`
		} `json:"schemaFindings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil || len(out.Result.Tools) == 0 {
		t.Fatalf("the Inspector's answer (%v): %v\nstdout: %.2000s\nstderr: %.4000s", runErr, err, stdout.String(), stderr.String())
	}

	// Every tool was listed: the Inspector saw what `barrhawk tools list` has.
	listed := map[string]map[string]any{}
	for _, tl := range out.Result.Tools {
		listed[tl.Name] = tl.InputSchema
	}
	defs, err := exec.Command(bin, "tools", "list", "--json").Output()
	if err != nil {
		t.Fatalf("barrhawk tools list --json: %v", err)
	}
	var all []struct{ Name string }
	if err := json.Unmarshal(defs, &all); err != nil {
		t.Fatal(err)
	}
	for _, d := range all {
		if listed[d.Name] == nil {
			t.Errorf("%s: not in the list the Inspector checked (%d tools)", d.Name, len(listed))
		}
	}

	untyped := 0
	unions := map[string]bool{} // tool and path of each type array the Inspector named
	for _, r := range out.SchemaFindings {
		for _, f := range r.Findings {
			where := fmt.Sprintf("%s: %s.%s (%s, %s)", r.ToolName, f.Schema, f.Path, f.Rule, f.Severity)
			switch {
			case f.Rule == "type-union":
				unions[r.ToolName+" "+f.Path] = true
				sentence, _, _ := strings.Cut(f.Issue, ". ")
				t.Errorf("%s: %s: write it as anyOf of single types (schema.Portable, which schema.Object applies)", where, sentence)
			case f.Severity == "error" || f.Rule != "untyped-schema" || f.Schema != "inputSchema":
				t.Errorf("%s: %s", where, f.Issue)
			default:
				node, ok := at(listed[r.ToolName], f.Path)
				desc, _ := node["description"].(string)
				if !ok || !strings.Contains(strings.ToLower(desc), "any json value") {
					t.Errorf("%s: a schema with no keyword, whose description does not say \"any JSON value\" (%q): give it a type, or say that it takes any JSON value", where, desc)
				} else {
					untyped++
				}
			}
		}
	}
	for name, s := range listed {
		b, _ := json.Marshal(s)
		if _, err := schema.Compile(b); err != nil {
			t.Errorf("%s: the input schema does not compile: %v", name, err)
		}
		walkSchemas(s, "", func(path string, node map[string]any) {
			if _, isArray := node["type"].([]any); isArray && !unions[name+" "+path] {
				t.Errorf("%s: inputSchema.%s: a type array, %v: write it as anyOf of single types (schema.Portable)", name, path, node["type"])
			}
		})
	}
	if runErr != nil && !t.Failed() {
		t.Errorf("the Inspector failed with no finding to show for it: %v\n%.4000s", runErr, stderr.String())
	}
	if t.Failed() {
		t.Logf("the Inspector's report:\n%.8000s", stderr.String())
	}
	t.Logf("%d tools checked; %d schemas of any JSON value", len(listed), untyped)
}

// mcpInspector is the node_modules directory holding the MCP Inspector,
// installed from the npm registry at the version scripts/test pins: the
// directory BARRHAWK_MCP_INSPECTOR names, else .cache/mcp-inspector of the
// repository, where scripts/test installs it. Not there fails the test,
// saying how to install it.
func mcpInspector(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("BARRHAWK_MCP_INSPECTOR")
	if dir == "" {
		_, file, _, _ := runtime.Caller(0) // test/e2e/schema_test.go
		dir = filepath.Join(filepath.Dir(file), "..", "..", ".cache", "mcp-inspector", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(dir, ".bin", "mcp-inspector")); err != nil {
		t.Fatalf("the MCP Inspector is not installed in %s: run scripts/test, which installs @modelcontextprotocol/inspector from the npm registry (or set BARRHAWK_MCP_INSPECTOR to a node_modules directory holding it): %v", dir, err)
	}
	return dir
}

// at is the schema at path in s, a path as the Inspector writes them:
// properties.env.additionalProperties, anyOf[1], properties["a-b"].
func at(s map[string]any, path string) (map[string]any, bool) {
	var cur any = s
	for path != "" {
		var next any
		switch {
		case path[0] == '.':
			path = path[1:]
			continue
		case strings.HasPrefix(path, `["`):
			dec := json.NewDecoder(strings.NewReader(path[1:]))
			var key string
			if dec.Decode(&key) != nil {
				return nil, false
			}
			path = strings.TrimPrefix(path[1+dec.InputOffset():], "]")
			m, _ := cur.(map[string]any)
			next = m[key]
		case path[0] == '[':
			end := strings.IndexByte(path, ']')
			i, err := strconv.Atoi(path[1:max(end, 1)])
			l, _ := cur.([]any)
			if end < 0 || err != nil || i < 0 || i >= len(l) {
				return nil, false
			}
			next, path = l[i], path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			m, _ := cur.(map[string]any)
			next, path = m[path[:end]], path[end:]
		}
		if next == nil {
			return nil, false
		}
		cur = next
	}
	m, ok := cur.(map[string]any)
	return m, ok
}

// walkSchemas calls visit for s and every schema object in it, by the
// keywords that hold schemas, with its path as the Inspector writes it
// for the usual names (properties.env.additionalProperties, anyOf[1]).
func walkSchemas(s any, path string, visit func(path string, node map[string]any)) {
	node, ok := s.(map[string]any)
	if !ok {
		return
	}
	visit(path, node)
	child := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	for k, v := range node {
		switch {
		case slices.Contains([]string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}, k):
			m, _ := v.(map[string]any)
			for name, sub := range m {
				walkSchemas(sub, child(k+"."+name), visit)
			}
		case slices.Contains([]string{"anyOf", "allOf", "oneOf", "prefixItems"}, k), k == "items":
			if l, isList := v.([]any); isList {
				for i, sub := range l {
					walkSchemas(sub, fmt.Sprintf("%s[%d]", child(k), i), visit)
				}
			} else {
				walkSchemas(v, child(k), visit)
			}
		case slices.Contains([]string{"additionalProperties", "not", "contains", "propertyNames", "if", "then", "else", "unevaluatedProperties", "unevaluatedItems", "additionalItems", "contentSchema"}, k):
			walkSchemas(v, child(k), visit)
		}
	}
}
