package mcpconfig

import "github.com/barrhawk/barrhawk/internal/rawjson"

// StripJSONC turns JSON with comments (JSONC, as VS Code and Gemini CLI
// read their settings) into JSON: it blanks out // and /* */ comments
// outside strings, commas before a closing } or ], and a leading UTF-8
// byte order mark. What it blanks out becomes spaces, newlines kept, so
// the result has the length of data and a JSON error in it is at the same
// line and column as in data. Plain JSON comes back unchanged; data is
// never modified.
func StripJSONC(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	if len(out) >= 3 && out[0] == 0xEF && out[1] == 0xBB && out[2] == 0xBF {
		out[0], out[1], out[2] = ' ', ' ', ' '
	}
	blank := func(from, to int) {
		for i := from; i < to; i++ {
			if out[i] != '\n' && out[i] != '\r' {
				out[i] = ' '
			}
		}
	}
	lastComma := -1 // a comma outside strings with only blanks after it so far
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			lastComma = -1
			i = rawjson.SkipString(out, i)
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			end := i
			for end < len(out) && out[end] != '\n' {
				end++
			}
			blank(i, end)
			i = end - 1
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			end := i + 2
			for end < len(out) && !(out[end] == '*' && end+1 < len(out) && out[end+1] == '/') {
				end++
			}
			end = min(end+2, len(out)) // an unclosed comment runs to the end
			blank(i, end)
			i = end - 1
		case c == ',':
			lastComma = i
		case c == '}' || c == ']':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}
