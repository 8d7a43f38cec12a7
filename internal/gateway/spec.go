package gateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/config"
	"github.com/barrhawk/barrhawk/internal/mcpconfig"
	"github.com/barrhawk/barrhawk/internal/redact"
)

// Spec is one upstream MCP server: how to reach it and how to run it.
type Spec struct {
	Name string `json:"name"`
	// Type is "stdio" or "http" (streamable HTTP).
	Type    string            `json:"type"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// AutoStart starts it with the front and keeps it running.
	AutoStart bool `json:"autoStart,omitempty"`
	Disabled  bool `json:"disabled,omitempty"`
	// Timeout bounds one call to it; 0: gateway.callTimeout.
	Timeout time.Duration `json:"timeoutNs,omitempty"`
	// Metadata is free-form (mcp_register's metadata): tags, a
	// description, whatever helps a person tell servers apart.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Origin is "config" (gateway.servers) or "registered" (mcp_register,
	// kept in gateway.stateFile).
	Origin string `json:"origin"`
	// Source is the client file it was discovered in, if any.
	Source string `json:"source,omitempty"`
}

// Origins of a Spec.
const (
	OriginConfig     = "config"
	OriginRegistered = "registered"
)

// FromConfig is the Spec of the configured server called name.
func FromConfig(name string, s config.GatewayServer) Spec {
	return Spec{Name: name, Type: config.TransportType(s.Type, s.Command, s.URL), Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
		URL: s.URL, Headers: s.Headers, AutoStart: s.AutoStart, Disabled: s.Disabled, Timeout: s.Timeout, Origin: OriginConfig}
}

// Check reports what is wrong with the spec, in the words of the config
// it could have come from.
func (s Spec) Check() error {
	return config.GatewayServer{Type: s.Type, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL, Headers: s.Headers, Timeout: s.Timeout}.Check(s.Name)
}

// secrets are the values of its environment and headers, any of which
// may be a secret: masked wherever the upstream's words are shown.
func (s Spec) secrets() []string {
	var out []string
	for _, m := range []map[string]string{s.Env, s.Headers} {
		for _, v := range m {
			out = append(out, v)
			if _, tok, ok := strings.Cut(v, " "); ok { // "Bearer <token>"
				out = append(out, tok)
			}
		}
	}
	return out
}

// Public is the spec as the mcp_* tools show it: the values of its
// environment and headers masked, for any of them may be a secret.
func (s Spec) Public() map[string]any {
	out := map[string]any{"name": s.Name, "type": s.Type, "origin": s.Origin}
	if s.Type == "stdio" {
		out["command"] = s.Command
		out["args"] = s.Args
		if s.Cwd != "" {
			out["cwd"] = s.Cwd
		}
	} else {
		out["url"] = redact.URLs(s.URL)
	}
	mask := func(m map[string]string) map[string]string {
		out := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out[k] = redact.Mask
		}
		return out
	}
	if len(s.Env) > 0 {
		out["env"] = mask(s.Env)
	}
	if len(s.Headers) > 0 {
		out["headers"] = mask(s.Headers)
	}
	if s.AutoStart {
		out["autoStart"] = true
	}
	if s.Disabled {
		out["disabled"] = true
	}
	if s.Timeout > 0 {
		out["timeout"] = s.Timeout.String()
	}
	if len(s.Metadata) > 0 {
		out["metadata"] = s.Metadata
	}
	if s.Source != "" {
		out["source"] = s.Source
	}
	return out
}

// inheritedEnv are the variables an stdio upstream gets from the front's
// environment, as the official SDKs' stdio clients pass them: enough to
// find and run a program, nothing that could be a secret. Its own env is
// added to them.
var inheritedEnv = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "TMPDIR"}

// environ is the environment of the upstream's process.
func (s Spec) environ(lookup func(string) (string, bool)) []string {
	var env []string
	for _, k := range inheritedEnv {
		if _, own := s.Env[k]; own {
			continue
		}
		if v, ok := lookup(k); ok {
			env = append(env, k+"="+v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		env = append(env, k+"="+s.Env[k])
	}
	return env
}

// describe is a one-line description for logs: the command or the URL.
func (s Spec) describe() string {
	if s.Type == "http" {
		return redact.URLs(s.URL)
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s", s.Command, strings.Join(s.Args, " ")))
}

// expand substitutes the variables in the spec's command, args, env,
// cwd, url and headers from lookup, as a generic mcpServers file does
// (${VAR}, ${VAR:-default}, ${env:VAR}): at start, so that a secret can
// stay in BarrHawk's environment and out of every file and message. A
// variable that is not set is an error naming it.
func (s Spec) expand(lookup func(string) (string, bool)) (Spec, error) {
	x, missing := mcpconfig.Server{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, URL: s.URL, Headers: s.Headers}.Expand(lookup)
	if len(missing) > 0 {
		return s, fmt.Errorf("its configuration names variables that are not set in BarrHawk's environment: %s (set them, or write ${NAME:-default})", strings.Join(missing, ", "))
	}
	return s.withExpanded(x), nil
}

// withExpanded is the spec with what x, its server with the variables
// substituted, runs and reaches.
func (s Spec) withExpanded(x mcpconfig.Server) Spec {
	s.Command, s.Args, s.Env, s.Cwd, s.URL, s.Headers = x.Command, x.Args, x.Env, x.Cwd, x.URL, x.Headers
	return s
}
