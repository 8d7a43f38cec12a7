package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Gateway configures the MCP gateway: other MCP servers ("upstreams")
// hosted and supervised behind the front, their tools joined to ours.
type Gateway struct {
	// Enabled offers the mcp_* tools and starts the configured and
	// registered upstreams. Default true.
	Enabled bool `koanf:"enabled"`
	// Servers are upstreams by name, in the shape of the mcpServers
	// blocks clients write (command, args, env, cwd; or type http, url,
	// headers), plus autoStart and timeout.
	Servers map[string]GatewayServer `koanf:"servers"`
	// StateFile keeps the upstreams registered with mcp_register, and the
	// tools each offered, across restarts. Default <home>/gateway.json.
	StateFile string `koanf:"stateFile"`
	// StartTimeout bounds an upstream's start: its process started and
	// its initialize answered. Default 60s (npx may install on first use).
	StartTimeout time.Duration `koanf:"startTimeout"`
	// CallTimeout bounds one call to an upstream unless its server sets
	// timeout. Default: tools.defaultTimeout.
	CallTimeout time.Duration `koanf:"callTimeout"`
	// HealthInterval is how often a running upstream is pinged; one that
	// misses three pings in a row is restarted. Default 15s.
	HealthInterval time.Duration `koanf:"healthInterval"`
	// IdleTimeout stops an upstream without autoStart that has had no call
	// for this long; the next call starts it again. Default 10m.
	IdleTimeout time.Duration `koanf:"idleTimeout"`
	// RestartDelay is the wait before restarting an upstream that died,
	// doubling per death in a row up to MaxRestartDelay. Defaults 500ms and
	// 30s.
	RestartDelay    time.Duration `koanf:"restartDelay"`
	MaxRestartDelay time.Duration `koanf:"maxRestartDelay"`
	// StopGrace is what an upstream gets after its stdin closes, then after
	// SIGTERM, before SIGKILL to its process group. Default 3s.
	StopGrace time.Duration `koanf:"stopGrace"`
}

// GatewayServer is one upstream MCP server.
type GatewayServer struct {
	// Type is stdio (the default when command is set) or http (streamable
	// HTTP, the default when url is set).
	Type string `koanf:"type"`
	// Command starts a stdio server (npx, a path), with Args.
	Command string `koanf:"command"`
	// Args are the arguments of Command.
	Args []string `koanf:"args"`
	// Env adds variables to the few a stdio server gets from BarrHawk's
	// environment (HOME, LOGNAME, PATH, SHELL, TERM, USER, LANG, TMPDIR);
	// its values are masked wherever BarrHawk shows them.
	Env map[string]string `koanf:"env"`
	// Cwd is the working directory of a stdio server.
	Cwd string `koanf:"cwd"`
	// URL is the MCP endpoint of an http server (streamable HTTP).
	URL string `koanf:"url"`
	// Headers are sent with every request to an http server (a bearer
	// token, say); their values are masked wherever BarrHawk shows them.
	Headers map[string]string `koanf:"headers"`
	// AutoStart starts it with the front and keeps it running; otherwise
	// it starts on its first call and stops when idle.
	AutoStart bool `koanf:"autoStart"`
	// Disabled keeps it registered but never started.
	Disabled bool `koanf:"disabled"`
	// Timeout bounds each call to it; 0 is gateway.callTimeout.
	Timeout time.Duration `koanf:"timeout"`
}

// serverName is what an upstream may be called: its tools are named
// <name>__<tool>, which clients want within ^[a-zA-Z0-9_-]{1,64}$; and
// "__" stays the separator (ValidServerName).
var serverName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9_-]{0,23}$`)

// ValidServerName reports whether an upstream may be called name: 1 to 24
// letters, digits, '-' or '_', starting with a letter or digit, without
// "__" and not ending in '_'.
func ValidServerName(name string) bool {
	return serverName.MatchString(name) && !strings.Contains(name, "__") && !strings.HasSuffix(name, "_")
}

func defaultGateway() Gateway {
	return Gateway{Enabled: true, StartTimeout: time.Minute, HealthInterval: 15 * time.Second, IdleTimeout: 10 * time.Minute,
		RestartDelay: 500 * time.Millisecond, MaxRestartDelay: 30 * time.Second, StopGrace: 3 * time.Second}
}

// fillGateway derives the gateway's defaults that follow other keys.
func (c *Config) fillGateway() {
	if c.Gateway.StateFile == "" {
		c.Gateway.StateFile = filepath.Join(c.Home, "gateway.json")
	}
	if c.Gateway.CallTimeout == 0 {
		c.Gateway.CallTimeout = c.Tools.DefaultTimeout
	}
}

// validateGateway checks the gateway section.
func (c *Config) validateGateway(bad func(key, format string, a ...any)) {
	g := c.Gateway
	for key, d := range map[string]time.Duration{"startTimeout": g.StartTimeout, "callTimeout": g.CallTimeout, "healthInterval": g.HealthInterval,
		"idleTimeout": g.IdleTimeout, "restartDelay": g.RestartDelay, "maxRestartDelay": g.MaxRestartDelay, "stopGrace": g.StopGrace} {
		if d <= 0 {
			bad("gateway."+key, "%s must be above 0 (a duration such as 30s)", d)
		}
	}
	if g.MaxRestartDelay < g.RestartDelay {
		bad("gateway.maxRestartDelay", "%s must be at least gateway.restartDelay (%s)", g.MaxRestartDelay, g.RestartDelay)
	}
	for name, s := range g.Servers {
		if err := s.Check(name); err != nil {
			bad("gateway.servers."+name, "%v", err)
		}
	}
}

// TransportType names the transport a server entry means: its type
// (streamable-http and streamableHttp are http), or stdio when it has a
// command and http when it has only a url.
func TransportType(typ, command, url string) string {
	switch typ {
	case "streamable-http", "streamableHttp":
		return "http"
	case "":
		if command == "" && url != "" {
			return "http"
		}
		return "stdio"
	}
	return typ
}

// Check reports what is wrong with the server called name, or nil.
func (s GatewayServer) Check(name string) error {
	if !ValidServerName(name) {
		return fmt.Errorf("the name %q is not one an upstream can have: use 1 to 24 letters, digits, '-' or '_', starting with a letter or digit, without \"__\" and not ending in '_' (its tools are named <name>__<tool>)", name)
	}
	switch TransportType(s.Type, s.Command, s.URL) {
	case "stdio":
		if s.Command == "" {
			return fmt.Errorf("a stdio server needs command (and args), such as command: npx, args: [-y, @modelcontextprotocol/server-everything]")
		}
		if s.URL != "" || len(s.Headers) > 0 {
			return fmt.Errorf("a stdio server takes no url or headers; for an HTTP server set type: http and url")
		}
	case "http":
		u, err := url.Parse(s.URL)
		if s.URL == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("an http server needs url, an http:// or https:// address of its MCP endpoint, such as http://127.0.0.1:8080/mcp; got %q", s.URL)
		}
		if s.Command != "" {
			return fmt.Errorf("an http server takes no command; for a stdio server leave out type and url")
		}
	case "sse":
		return fmt.Errorf("type sse (the HTTP+SSE transport of protocol 2024-11-05) is not served by the gateway; use the server's streamable HTTP endpoint with type: http")
	default:
		return fmt.Errorf("type %q is not one the gateway speaks; use stdio or http", s.Type)
	}
	if s.Timeout < 0 {
		return fmt.Errorf("timeout %s must not be negative", s.Timeout)
	}
	return nil
}
