package mcpconfig

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
)

// envFile reads the entry's envFile into its Env, under the variables
// that env sets itself, and clears EnvFile. Variables in the file's path
// are expanded in the client's flavor; a relative path is taken from the
// workspace.
func (p *fileParser) envFile(e *Entry) error {
	x := &expander{client: p.format.client(), lookup: Lookup(nil, p.workspace, p.home)}
	path := x.expand(e.EnvFile)
	if len(x.missing) > 0 {
		return fmt.Errorf(`"envFile" (%q) refers to %s, which is not set`, e.EnvFile, strings.Join(x.missing, ", "))
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok && p.home != "" {
		path = filepath.Join(p.home, rest)
	}
	if !filepath.IsAbs(path) && p.workspace != "" {
		path = filepath.Join(p.workspace, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf(`"envFile" cannot be read: %v`, err)
	}
	env, err := parseDotenv(data)
	if err != nil {
		return fmt.Errorf(`"envFile" %s: %v`, path, err)
	}
	maps.Copy(env, e.Env)
	e.Env, e.EnvFile = env, ""
	return nil
}

// parseDotenv reads NAME=value lines: blank lines and # comments skipped,
// an "export " before the name allowed, a value in double quotes with \n,
// \t, \" and \\ escapes, in single quotes as written, or bare up to a " #"
// comment.
func parseDotenv(data []byte) (map[string]string, error) {
	env := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export "); ok {
			line = strings.TrimSpace(rest)
		}
		name, value, ok := strings.Cut(line, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("line %d: want NAME=value", i+1)
		}
		switch {
		case strings.HasPrefix(value, `"`):
			v, ok := unquoteDouble(value[1:])
			if !ok {
				return nil, fmt.Errorf("line %d: the value's closing \" is missing", i+1)
			}
			value = v
		case strings.HasPrefix(value, "'"):
			end := strings.IndexByte(value[1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("line %d: the value's closing ' is missing", i+1)
			}
			value = value[1 : end+1]
		default:
			if c := strings.Index(value, " #"); c >= 0 {
				value = strings.TrimSpace(value[:c])
			}
		}
		env[name] = value
	}
	return env, nil
}

// unquoteDouble reads a double-quoted value after its opening quote, up to
// the closing one.
func unquoteDouble(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return b.String(), true
		case c == '\\' && i+1 < len(s):
			i++
			switch s[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	return "", false
}
