// Package mcpconfig reads the MCP server definitions that MCP clients
// write, so that the gateway can host the same servers (mcp_discover).
//
// The files read, and what in them:
//
//   - Claude Code, project scope: .mcp.json, {"mcpServers": {name: entry}};
//     an entry is {"type": "stdio"|"http"|"sse", "command", "args", "env",
//     "url", "headers"}, type stdio when left out.
//   - Claude Code, user and local scope: ~/.claude.json, its top-level
//     "mcpServers" (user) and "projects": {"/abs/dir": {"mcpServers": ...}}
//     (local: only the project that is the project directory).
//   - Cursor: .cursor/mcp.json and ~/.cursor/mcp.json, {"mcpServers": ...};
//     a url without type is streamable HTTP (Cursor falls back to SSE).
//   - VS Code: .vscode/mcp.json and the user mcp.json, {"servers": ...,
//     "inputs": [...]}, with "type", "command", "args", "env" (numbers and
//     null allowed), "envFile", "cwd", "url", "headers".
//   - Gemini CLI: .gemini/settings.json and ~/.gemini/settings.json,
//     {"mcpServers": ...} beside other settings; "url" is an SSE endpoint,
//     "httpUrl" a streamable HTTP one; "mcp": {"allowed", "excluded"}
//     marks servers disabled.
//   - Any other file with a top-level "mcpServers" object (Claude Desktop's
//     claude_desktop_config.json, Windsurf, Cline and the like).
//
// Every file may be JSON with comments and trailing commas (JSONC), as VS
// Code and Gemini allow: see StripJSONC. An entry's "disabled": true
// (Cline, Windsurf) is kept; other fields beyond these (timeout, trust,
// oauth, includeTools, autoApprove, ...) are ignored.
//
// Values are kept as written, variable references included: Server.Expand
// substitutes them the way the server's client does.
package mcpconfig

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/barrhawk/barrhawk/internal/rawjson"
)

// Server is one MCP server as a client configures it. Its values are as
// written, variable references included (see Expand), except that a
// relative Cwd is made absolute when Parse knows the project.
type Server struct {
	// Name is the entry's key, as written.
	Name string `json:"name"`
	// Transport is "stdio", "http" (streamable HTTP) or "sse" (the legacy
	// HTTP+SSE transport, for entries that name only an SSE endpoint).
	Transport string            `json:"transport"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Cwd       string            `json:"cwd,omitempty"`
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
	// Disabled is an entry's "disabled": true, or a Gemini CLI server
	// that mcp.excluded names or mcp.allowed leaves out.
	Disabled bool `json:"disabled,omitempty"`
	// Source says where it was found: the file, and for ~/.claude.json
	// the scope, as in "/home/me/.claude.json (user)" or
	// "/home/me/.claude.json (project /home/me/app)".
	Source string `json:"source,omitempty"`
	// Client is the client whose file it came from: "claude-code",
	// "cursor", "vscode", "gemini", or "" for a generic mcpServers file.
	// It says how Expand reads the variable references.
	Client string `json:"client,omitempty"`
}

// Clients, as Server.Client names them.
const (
	ClientClaudeCode = "claude-code"
	ClientCursor     = "cursor"
	ClientVSCode     = "vscode"
	ClientGemini     = "gemini"
	ClientGeneric    = ""
)

// Format is the kind of config file Parse reads.
type Format string

// Formats Parse reads.
const (
	// FormatAuto guesses the format from the file's name, its folder
	// (.cursor, .vscode, .gemini) and then its content. The empty Format
	// means the same.
	FormatAuto Format = "auto"
	// FormatClaudeProject is Claude Code's project file, .mcp.json.
	FormatClaudeProject Format = "claude-project"
	// FormatClaudeUser is Claude Code's ~/.claude.json: user and local
	// (per-project) servers.
	FormatClaudeUser Format = "claude-user"
	// FormatCursor is Cursor's .cursor/mcp.json or ~/.cursor/mcp.json.
	FormatCursor Format = "cursor"
	// FormatVSCode is VS Code's .vscode/mcp.json or user mcp.json.
	FormatVSCode Format = "vscode"
	// FormatGemini is Gemini CLI's .gemini/settings.json or
	// ~/.gemini/settings.json.
	FormatGemini Format = "gemini"
	// FormatGeneric is any file with a top-level "mcpServers" object.
	FormatGeneric Format = "generic"
)

// formats lists the formats Parse reads, FormatAuto first.
var formats = []Format{FormatAuto, FormatClaudeProject, FormatClaudeUser, FormatCursor, FormatVSCode, FormatGemini, FormatGeneric}

// client is the Server.Client of servers read in format f.
func (f Format) client() string {
	switch f {
	case FormatClaudeProject, FormatClaudeUser:
		return ClientClaudeCode
	case FormatCursor:
		return ClientCursor
	case FormatVSCode:
		return ClientVSCode
	case FormatGemini:
		return ClientGemini
	}
	return ClientGeneric
}

// FileError is a config file that could not be read or parsed, or one
// server entry in it that is not valid.
type FileError struct {
	Path string `json:"path"`
	// Server is the entry at fault; "" when the whole file is.
	Server  string `json:"server,omitempty"`
	Message string `json:"message"`
}

// Error reads "path: message" or "path: server "name": message".
func (e *FileError) Error() string {
	if e.Server != "" {
		return fmt.Sprintf("%s: server %q: %s", e.Path, e.Server, e.Message)
	}
	return e.Path + ": " + e.Message
}

// Parse reads one config file's bytes. format is one of the Format
// constants; FormatAuto guesses from the path's base name and content.
// projectDir is the project the client would be working in: it picks the
// local-scope servers of ~/.claude.json, and is the workspace folder that
// the files in the home directory are read for.
//
// A file found in a project (.mcp.json, .cursor/mcp.json, .vscode/mcp.json,
// .gemini/settings.json outside the home directory) belongs to the folder
// that holds it: a relative "cwd" is taken from there, as is the
// "envFile" of a VS Code, Cursor or generic file, whose variables Parse
// reads into Env (the entry's own "env" wins over them).
//
// The servers are returned in the order the file lists them. Entries that
// are not valid are left out and reported in the error, one *FileError per
// entry joined with errors.Join, beside the valid ones; an error without
// servers can also mean the whole file could not be parsed.
func Parse(path string, data []byte, format Format, projectDir string) ([]Server, error) {
	home, _ := os.UserHomeDir()
	in := input{path: path, data: data, format: format, projectDir: projectDir, home: home}
	in.workspace = workspaceOf(path, projectDir, home)
	servers, errs := parse(in)
	var joined []error
	for i := range errs {
		joined = append(joined, &errs[i])
	}
	return servers, errors.Join(joined...)
}

// input is one file to parse and what it is read for.
type input struct {
	path       string
	data       []byte
	format     Format
	projectDir string // picks ~/.claude.json's local scope
	workspace  string // what a relative cwd or envFile is taken from
	home       string // ${userHome} in envFile
}

// workspaceOf is the folder a client reads the file at path for: the
// project that holds it, or projectDir for a file in home.
func workspaceOf(path, projectDir, home string) string {
	dir := filepath.Dir(path)
	switch filepath.Base(dir) {
	case ".cursor", ".vscode", ".gemini":
		if root := filepath.Dir(dir); home == "" || filepath.Clean(root) != filepath.Clean(home) {
			return root
		}
		return projectDir
	}
	if filepath.Base(path) == ".mcp.json" {
		return dir
	}
	return projectDir
}

// parse reads the servers of one file.
func parse(in input) ([]Server, []FileError) {
	fileErr := func(format string, a ...any) []FileError {
		return []FileError{{Path: in.path, Message: fmt.Sprintf(format, a...)}}
	}
	format := in.format
	switch {
	case format == "" || format == FormatAuto:
		format = detectName(in.path)
	case !slices.Contains(formats, format):
		return nil, fileErr("format %q is not one of %q", in.format, formats)
	}
	data := StripJSONC(in.data)
	if len(bytes.TrimSpace(data)) == 0 {
		if format == FormatClaudeUser || format == FormatGemini {
			return nil, nil // a client's settings file it has not written to yet
		}
		return nil, fileErr("is empty; want a JSON object such as {\"mcpServers\": {}}")
	}
	if err := json.Unmarshal(data, new(any)); err != nil {
		return nil, fileErr("%s", syntaxMessage(in.data, err))
	}
	top, err := members(data)
	if err != nil {
		return nil, fileErr("is %s; want a JSON object such as {\"mcpServers\": {}}", rawjson.Kind(data))
	}
	if format == "" || format == FormatAuto {
		if format = detectContent(top); format == "" {
			return nil, fileErr(`has neither "mcpServers" nor "servers": it is not an MCP client's config file`)
		}
	}
	p := fileParser{input: in, format: format}
	switch format {
	case FormatClaudeProject, FormatCursor, FormatGeneric:
		block, ok := lookupMember(top, "mcpServers")
		if !ok && format == FormatGeneric {
			return nil, fileErr(`has no "mcpServers" object, the servers by name`)
		}
		p.block(block, "mcpServers", in.path)
	case FormatClaudeUser:
		p.claudeUser(top)
	case FormatVSCode:
		block, ok := lookupMember(top, "servers")
		if !ok {
			block, _ = lookupMember(top, "mcpServers") // VS Code reads it too, for compatibility
		}
		p.block(block, "servers", in.path)
	case FormatGemini:
		p.gemini(top)
	}
	return p.servers, p.errs
}

// detectName guesses the format of the file at path from its name and
// folder, or returns "".
func detectName(path string) Format {
	base, parent := filepath.Base(path), filepath.Base(filepath.Dir(path))
	switch {
	case base == ".mcp.json":
		return FormatClaudeProject
	case base == ".claude.json":
		return FormatClaudeUser
	case base == "settings.json" && parent == ".gemini":
		return FormatGemini
	case base == "mcp.json" && parent == ".cursor":
		return FormatCursor
	case base == "mcp.json" && (parent == ".vscode" || parent == "User"):
		return FormatVSCode
	}
	return ""
}

// detectContent guesses the format of a file from its top-level members
// top, or returns "".
func detectContent(top []member) Format {
	_, servers := lookupMember(top, "servers")
	_, mcpServers := lookupMember(top, "mcpServers")
	projects, _ := lookupMember(top, "projects")
	switch {
	case servers && !mcpServers:
		return FormatVSCode
	case isObject(projects) && bytes.Contains(projects, []byte(`"mcpServers"`)):
		return FormatClaudeUser
	case mcpServers:
		return FormatGeneric
	}
	return ""
}

// fileParser gathers the servers and errors of one file.
type fileParser struct {
	input
	format  Format
	servers []Server
	errs    []FileError
}

// block reads the servers of one object of servers by name, called key in
// the file, with source as their Source.
func (p *fileParser) block(raw json.RawMessage, key, source string) {
	if len(raw) == 0 || string(raw) == "null" {
		return
	}
	entries, err := members(raw)
	if err != nil {
		p.errs = append(p.errs, FileError{Path: p.path, Message: fmt.Sprintf("%q is %s; want an object of servers by name, such as {%q: {\"command\": \"npx\", \"args\": [\"-y\", \"some-mcp-server\"]}}", key, rawjson.Kind(raw), "name")})
		return
	}
	for _, m := range entries {
		s, err := p.entry(m.name, m.value)
		if err != nil {
			p.errs = append(p.errs, FileError{Path: p.path, Server: m.name, Message: err.Error()})
			continue
		}
		s.Source, s.Client = source, p.format.client()
		p.servers = append(p.servers, s)
	}
}

// entry reads one server entry the way the file's client does.
func (p *fileParser) entry(name string, raw json.RawMessage) (Server, error) {
	if p.format == FormatVSCode {
		raw = vscodeEnv(raw)
	}
	var e Entry
	if err := json.Unmarshal(raw, &e); err != nil {
		return Server{}, err
	}
	if p.format == FormatGemini && e.Type == "" && e.HTTPURL == "" && e.URL != "" {
		e.Type = "sse" // Gemini CLI's url is an SSE endpoint; httpUrl is streamable HTTP
	}
	switch p.format {
	case FormatVSCode, FormatCursor, FormatGeneric:
		if e.EnvFile != "" {
			if err := p.envFile(&e); err != nil {
				return Server{}, err
			}
		}
	default:
		e.EnvFile = "" // not a field this client reads
	}
	s, err := e.toServer(name)
	if err != nil {
		return Server{}, err
	}
	if s.Cwd != "" && p.workspace != "" && !filepath.IsAbs(s.Cwd) && !strings.HasPrefix(s.Cwd, "$") && !strings.HasPrefix(s.Cwd, "~") {
		s.Cwd = filepath.Join(p.workspace, s.Cwd)
	}
	return s, nil
}

// claudeUser reads ~/.claude.json: the user-scope servers and those of
// the project at projectDir.
func (p *fileParser) claudeUser(top []member) {
	if projects, ok := lookupMember(top, "projects"); ok && p.projectDir != "" && isObject(projects) {
		list, _ := members(projects)
		want := filepath.Clean(p.projectDir)
		real, _ := filepath.EvalSymlinks(want)
		for _, proj := range list {
			if dir := filepath.Clean(proj.name); dir != want && dir != real {
				continue
			}
			fields, err := members(proj.value)
			if err != nil {
				continue // not ours to judge: Claude Code keeps much else here
			}
			if block, ok := lookupMember(fields, "mcpServers"); ok {
				p.block(block, "mcpServers", fmt.Sprintf("%s (project %s)", p.path, proj.name))
			}
		}
	}
	if block, ok := lookupMember(top, "mcpServers"); ok {
		p.block(block, "mcpServers", p.path+" (user)")
	}
}

// gemini reads Gemini CLI's settings.json: mcpServers, less those that
// mcp.allowed leaves out or mcp.excluded names, which are marked
// disabled.
func (p *fileParser) gemini(top []member) {
	block, _ := lookupMember(top, "mcpServers")
	p.block(block, "mcpServers", p.path)
	mcp, ok := lookupMember(top, "mcp")
	if !ok || !isObject(mcp) {
		return
	}
	var policy struct {
		Allowed  *[]string `json:"allowed"`
		Excluded []string  `json:"excluded"`
	}
	if err := json.Unmarshal(mcp, &policy); err != nil {
		p.errs = append(p.errs, FileError{Path: p.path, Message: `"mcp.allowed" and "mcp.excluded" must be lists of server names`})
		return
	}
	for i, s := range p.servers {
		if slices.Contains(policy.Excluded, s.Name) || (policy.Allowed != nil && !slices.Contains(*policy.Allowed, s.Name)) {
			p.servers[i].Disabled = true
		}
	}
}

// vscodeEnv rewrites the numbers in an entry's env as strings and its
// nulls (VS Code: unset the variable) as empty strings.
func vscodeEnv(raw json.RawMessage) json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || len(fields["env"]) == 0 {
		return raw
	}
	var env map[string]any
	dec := json.NewDecoder(bytes.NewReader(fields["env"]))
	dec.UseNumber()
	if dec.Decode(&env) != nil {
		return raw
	}
	changed := false
	for k, v := range env {
		switch v := v.(type) {
		case json.Number:
			env[k], changed = v.String(), true
		case nil:
			env[k], changed = "", true
		}
	}
	if !changed {
		return raw
	}
	fields["env"], _ = json.Marshal(env)
	out, err := json.Marshal(fields)
	if err != nil {
		return raw
	}
	return out
}
