package mcpconfig

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Expand substitutes variable references in s the way the server's client
// does, reading variables from lookup (os.LookupEnv when nil); it returns
// the names it could not resolve, each once, in the order met. A reference
// it cannot resolve is left as written.
//
// It expands Command, Args, Cwd, URL and the values of Env and Headers:
//
//   - Claude Code: ${VAR} and ${VAR:-default} (the default when VAR is
//     not set at all; it runs to the first "}").
//   - Cursor: ${env:VAR} and ${VAR}, and the predefined ${userHome},
//     ${workspaceFolder}, ${workspaceFolderBasename}, ${pathSeparator} and
//     ${/}.
//   - VS Code: ${env:VAR} and the same predefined variables; ${input:id}
//     (asked of the user by VS Code) and any other ${...} are reported
//     unresolved, as "input:id" and so on.
//   - Gemini CLI: $VAR and ${VAR}.
//   - A generic file: ${VAR}, ${VAR:-default} and ${env:VAR}.
//
// The predefined variables userHome, workspaceFolder and
// workspaceFolderBasename are asked of lookup by those names (Lookup
// answers them); workspaceFolderBasename falls back to the last element
// of workspaceFolder, and pathSeparator and / are the system's.
func (s Server) Expand(lookup func(string) (string, bool)) (Server, []string) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	x := &expander{client: s.Client, lookup: lookup}
	out := s
	out.Command = x.expand(s.Command)
	out.Cwd = x.expand(s.Cwd)
	out.URL = x.expand(s.URL)
	if s.Args != nil {
		out.Args = make([]string, len(s.Args))
		for i, a := range s.Args {
			out.Args[i] = x.expand(a)
		}
	}
	out.Env = x.expandValues(s.Env)
	out.Headers = x.expandValues(s.Headers)
	return out, x.missing
}

// Lookup returns a lookup for Expand that answers "workspaceFolder" and
// "userHome", VS Code's and Cursor's predefined variables, with the given
// folders when they are not empty, and every other name from env
// (os.LookupEnv when nil).
func Lookup(env func(string) (string, bool), workspaceFolder, userHome string) func(string) (string, bool) {
	if env == nil {
		env = os.LookupEnv
	}
	return func(name string) (string, bool) {
		switch {
		case name == "workspaceFolder" && workspaceFolder != "":
			return workspaceFolder, true
		case name == "userHome" && userHome != "":
			return userHome, true
		}
		return env(name)
	}
}

// expander expands the references of one client's flavor, remembering
// the names it could not resolve.
type expander struct {
	client  string
	lookup  func(string) (string, bool)
	missing []string
}

// expandValues expands the values of m into a new map.
func (x *expander) expandValues(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := maps.Clone(m)
	for k, v := range out {
		out[k] = x.expand(v)
	}
	return out
}

// expand expands the references in s.
func (x *expander) expand(s string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		s = s[i:]
		ref, value, ok := x.reference(s)
		switch {
		case ref == "": // a $ that starts no reference
			b.WriteByte('$')
			s = s[1:]
			continue
		case ok:
			b.WriteString(value)
		default:
			b.WriteString(ref)
		}
		s = s[len(ref):]
	}
}

// reference reads the reference at the start of s, which begins with $:
// it returns the reference as written ("" if there is none), its value,
// and whether it was resolved.
func (x *expander) reference(s string) (ref, value string, ok bool) {
	if strings.HasPrefix(s, "${") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return "", "", false
		}
		ref, inner := s[:end+1], s[2:end]
		value, ok = x.braced(inner)
		return ref, value, ok
	}
	if x.client != ClientGemini {
		return "", "", false
	}
	n := 1
	for n < len(s) && isNameByte(s[n], n == 1) {
		n++
	}
	if n == 1 {
		return "", "", false
	}
	ref = s[:n]
	value, ok = x.variable(ref[1:])
	return ref, value, ok
}

// braced resolves the inside of a ${...} reference.
func (x *expander) braced(inner string) (string, bool) {
	switch x.client {
	case ClientClaudeCode:
		return x.withDefault(inner)
	case ClientGemini:
		return x.variable(inner)
	case ClientCursor, ClientVSCode:
		if name, ok := strings.CutPrefix(inner, "env:"); ok {
			return x.variable(name)
		}
		if v, ok, predefined := x.predefined(inner); predefined {
			return v, ok
		}
		if x.client == ClientCursor {
			return x.variable(inner)
		}
		x.miss(inner) // ${input:id}, ${config:...}, ${command:...}: VS Code's to ask
		return "", false
	}
	if name, ok := strings.CutPrefix(inner, "env:"); ok {
		return x.variable(name)
	}
	return x.withDefault(inner)
}

// withDefault resolves NAME or NAME:-default.
func (x *expander) withDefault(inner string) (string, bool) {
	name, def, hasDefault := strings.Cut(inner, ":-")
	if v, ok := x.lookup(name); ok {
		return v, true
	}
	if hasDefault {
		return def, true
	}
	x.miss(name)
	return "", false
}

// predefined resolves VS Code's and Cursor's predefined variables; the
// last result says whether name is one.
func (x *expander) predefined(name string) (value string, ok, predefined bool) {
	switch name {
	case "pathSeparator", "/":
		return string(filepath.Separator), true, true
	case "userHome", "workspaceFolder":
		v, ok := x.variable(name)
		return v, ok, true
	case "workspaceFolderBasename":
		if v, ok := x.lookup(name); ok {
			return v, true, true
		}
		if v, ok := x.lookup("workspaceFolder"); ok {
			return filepath.Base(v), true, true
		}
		x.miss(name)
		return "", false, true
	}
	return "", false, false
}

// variable looks name up, noting it when it is not set.
func (x *expander) variable(name string) (string, bool) {
	if v, ok := x.lookup(name); ok {
		return v, true
	}
	x.miss(name)
	return "", false
}

// miss notes a name not resolved.
func (x *expander) miss(name string) {
	if !slices.Contains(x.missing, name) {
		x.missing = append(x.missing, name)
	}
}

// isNameByte reports whether c may be in a $NAME reference (first: begin
// it).
func isNameByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}
