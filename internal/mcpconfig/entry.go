package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/barrhawk/barrhawk/internal/rawjson"
)

// Entry is one server entry as clients write it, the union of the fields
// of the formats this package reads; toServer turns it into a Server
// (validating it). Decoding an Entry from JSON checks the type of each
// field and names every one that is wrong; fields it does not know are
// ignored.
type Entry struct {
	// Type is "stdio", "http" (streamable HTTP) or "sse";
	// "streamable-http" and "streamableHttp" mean "http". Left out, it is
	// stdio for an entry with a command and http for one with a url.
	Type    string            `json:"type,omitempty"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// EnvFile is a file of NAME=value lines (VS Code, Cursor). Parse reads
	// it into Env; an entry that still has one is refused.
	EnvFile string `json:"envFile,omitempty"`
	Cwd     string `json:"cwd,omitempty"`
	// URL is the server's endpoint: streamable HTTP, or SSE with type sse.
	URL string `json:"url,omitempty"`
	// HTTPURL is Gemini CLI's name for a streamable HTTP endpoint.
	HTTPURL  string            `json:"httpUrl,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
}

// UnmarshalJSON decodes an entry, naming each field that has the wrong
// type and what it should be.
func (e *Entry) UnmarshalJSON(data []byte) error {
	fields, err := members(data)
	if err != nil {
		return fmt.Errorf(`is %s; want an object such as {"command": "npx", "args": ["-y", "some-mcp-server"]} or {"type": "http", "url": "https://example.com/mcp"}`, rawjson.Kind(data))
	}
	var out Entry
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	for _, f := range fields {
		if rawjson.Kind(f.value) == "null" {
			continue // as good as left out
		}
		switch f.name {
		case "type":
			out.Type = stringField(f, bad)
		case "command":
			out.Command = stringField(f, bad)
		case "args":
			out.Args = stringList(f, bad)
		case "env":
			out.Env = stringMap(f, bad)
		case "envFile":
			out.EnvFile = stringField(f, bad)
		case "cwd":
			out.Cwd = stringField(f, bad)
		case "url":
			out.URL = stringField(f, bad)
		case "httpUrl":
			out.HTTPURL = stringField(f, bad)
		case "headers":
			out.Headers = stringMap(f, bad)
		case "disabled":
			if json.Unmarshal(f.value, &out.Disabled) != nil {
				bad("%q is %s; want true or false", f.name, rawjson.Kind(f.value))
			}
		}
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	*e = out
	return nil
}

// toServer validates the entry and returns it as the Server called name.
// A url whose scheme or host is a variable reference passes (Expand fills
// it in). Its errors leave the name to the caller.
func (e Entry) toServer(name string) (Server, error) {
	if e.EnvFile != "" {
		return Server{}, fmt.Errorf(`"envFile" (%q) is read only from a client's file; put its variables in "env"`, e.EnvFile)
	}
	typ := strings.ToLower(e.Type)
	if typ == "streamable-http" || typ == "streamablehttp" {
		typ = "http"
	}
	address, key := e.URL, "url"
	if e.HTTPURL != "" {
		if e.URL != "" {
			return Server{}, fmt.Errorf(`has both "url" (%q, an SSE endpoint) and "httpUrl" (%q, a streamable HTTP one); keep one`, e.URL, e.HTTPURL)
		}
		if typ == "sse" {
			return Server{}, fmt.Errorf(`"httpUrl" is a streamable HTTP endpoint but "type" is "sse"; for an SSE endpoint use "url"`)
		}
		address, key, typ = e.HTTPURL, "httpUrl", "http"
	}
	switch {
	case e.Command != "" && address != "":
		return Server{}, fmt.Errorf(`has both "command" (%q, a server to run) and %q (%q, a server to reach); keep one`, e.Command, key, address)
	case e.Command == "" && address == "":
		return Server{}, fmt.Errorf(`has neither "command" nor "url": give "command" (and "args") to run a stdio server, or "url" to reach an HTTP one`)
	}
	switch typ {
	case "":
		typ = "stdio"
		if address != "" {
			typ = "http"
		}
	case "stdio":
		if e.Command == "" {
			return Server{}, fmt.Errorf(`"type" is "stdio" but it has no "command", only %q; a stdio server needs "command", an HTTP one "type": "http"`, key)
		}
	case "http", "sse":
		if address == "" {
			return Server{}, fmt.Errorf(`"type" is %q but it has no "url", only "command"; an HTTP server needs "url", a stdio one "type": "stdio"`, e.Type)
		}
	default:
		return Server{}, fmt.Errorf(`"type" is %q; want "stdio", "http" (streamable HTTP) or "sse"`, e.Type)
	}
	if address != "" {
		if err := checkURL(key, address); err != nil {
			return Server{}, err
		}
	}
	return Server{Name: name, Transport: typ, Command: e.Command, Args: e.Args, Env: e.Env, Cwd: e.Cwd, URL: address,
		Headers: e.Headers, Disabled: e.Disabled}, nil
}

// checkURL reports whether address, the value of key, is an http or https
// URL; one whose scheme or host comes from a variable passes.
func checkURL(key, address string) error {
	if strings.HasPrefix(address, "$") {
		return nil
	}
	lower := strings.ToLower(address)
	if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") {
		return fmt.Errorf(`%q is %q; want an http:// or https:// address, such as "https://example.com/mcp"`, key, address)
	}
	if strings.Contains(address, "$") {
		return nil
	}
	u, err := url.Parse(address)
	if err != nil {
		return fmt.Errorf(`%q is not a valid address: %v`, key, err)
	}
	if u.Host == "" {
		return fmt.Errorf(`%q (%q) has no host; want an address such as "https://example.com/mcp"`, key, address)
	}
	return nil
}

// member is one member of a JSON object.
type member struct {
	name  string
	value json.RawMessage
}

// errNotObject is members' answer for JSON that is not an object.
var errNotObject = errors.New("not a JSON object")

// members returns the members of the JSON object data in the order
// written; of two with one name the later value wins, as in JavaScript.
func members(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var out []member
	index := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		if i, ok := index[name]; ok {
			out[i].value = value
			continue
		}
		index[name] = len(out)
		out = append(out, member{name: name, value: value})
	}
	return out, nil
}

// lookupMember returns the value of the member called name.
func lookupMember(ms []member, name string) (json.RawMessage, bool) {
	for _, m := range ms {
		if m.name == name {
			return m.value, true
		}
	}
	return nil, false
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool { return rawjson.Kind(raw) == "an object" }

// stringField decodes a string member.
func stringField(f member, bad func(string, ...any)) string {
	var s string
	if json.Unmarshal(f.value, &s) != nil {
		bad("%q is %s; want a string", f.name, rawjson.Kind(f.value))
	}
	return s
}

// stringList decodes a member that is a list of strings.
func stringList(f member, bad func(string, ...any)) []string {
	var items []json.RawMessage
	if json.Unmarshal(f.value, &items) != nil {
		bad(`%q is %s; want a list of strings, such as ["-y", "some-mcp-server"]`, f.name, rawjson.Kind(f.value))
		return nil
	}
	out := make([]string, 0, len(items))
	for i, item := range items {
		var s string
		if rawjson.Kind(item) != "a string" || json.Unmarshal(item, &s) != nil {
			bad("%q item %d is %s; want a string%s", f.name, i+1, rawjson.Kind(item), quoteHint(item))
			continue
		}
		out = append(out, s)
	}
	return out
}

// stringMap decodes a member that is an object of strings.
func stringMap(f member, bad func(string, ...any)) map[string]string {
	ms, err := members(f.value)
	if err != nil {
		bad(`%q is %s; want an object of strings, such as {"NAME": "value"}`, f.name, rawjson.Kind(f.value))
		return nil
	}
	out := make(map[string]string, len(ms))
	for _, m := range ms {
		var s string
		if rawjson.Kind(m.value) != "a string" || json.Unmarshal(m.value, &s) != nil {
			bad("%q value of %q is %s; want a string%s", f.name, m.name, rawjson.Kind(m.value), quoteHint(m.value))
			continue
		}
		out[m.name] = s
	}
	return out
}

// quoteHint suggests the quoted form of a number or boolean.
func quoteHint(raw json.RawMessage) string {
	switch rawjson.Kind(raw) {
	case "a number", "a boolean":
		v := string(bytes.TrimSpace(raw))
		return fmt.Sprintf(`: write "%s"`, v)
	}
	return ""
}

// syntaxMessage describes the JSON error err in data with its line and
// column.
func syntaxMessage(data []byte, err error) string {
	var syntax *json.SyntaxError
	if !errors.As(err, &syntax) {
		return "invalid JSON: " + err.Error()
	}
	at := min(max(int(syntax.Offset)-1, 0), len(data))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Sprintf("line %d, column %d: invalid JSON: %s", line, col, syntax.Error())
}
