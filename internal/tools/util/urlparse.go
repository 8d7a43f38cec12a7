package util

import (
	"context"
	"net"
	"net/url"
	"strings"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
)

// defaultPorts are the ports implied by the schemes that have one.
var defaultPorts = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}

// urlParts is the result of url_parse. Field names follow the WHATWG URL API.
type urlParts struct {
	Href           string         `json:"href"`
	Protocol       string         `json:"protocol"`
	Scheme         string         `json:"scheme"`
	Host           string         `json:"host"`
	Hostname       string         `json:"hostname"`
	HostType       string         `json:"hostType"`
	Port           string         `json:"port"`
	PortIsExplicit bool           `json:"portIsExplicit"`
	Pathname       string         `json:"pathname"`
	Search         string         `json:"search"`
	Query          map[string]any `json:"query"`
	Hash           string         `json:"hash"`
	Username       string         `json:"username"`
	Password       string         `json:"password"`
	Origin         string         `json:"origin"`
	IsAbsolute     bool           `json:"isAbsolute"`
}

func urlParse() tool.Tool {
	type args struct {
		URL string `json:"url"`
	}
	return tool.Tool{
		Def: tool.Def{
			Name: "url_parse",
			Description: "Split a URL (absolute, or a relative reference such as \"/a?b=1\") into its parts, named as in the WHATWG URL API. " +
				"Returns {href, protocol (\"https:\"), scheme (\"https\"), host (with port), hostname (IPv6 in brackets), " +
				"hostType (name|ipv4|ipv6, empty without a host), port (explicit, else the default of http/https/ws/wss/ftp, else empty), " +
				"portIsExplicit, pathname (percent-encoded), search (\"?a=1\" or empty), query (object of decoded values; a repeated key gives an array), " +
				"hash (\"#frag\" or empty), username, password, origin (\"scheme://host[:port]\" for http/https/ws/wss/ftp, else \"null\"), isAbsolute (has a scheme)}. " +
				"An unparseable URL is INVALID_ARGS.",
			Phrases:  []string{"query string params", "get hostname from url", "extract domain", "url components", "parse query params", "new URL()", "url origin"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("url", "The URL to parse, such as \"https://user@example.com:8080/p?a=1&a=2#top\"").Min(1).Required(),
			),
			RequiresWorker: true,
			Quick:          true,
		},
		Run: tool.Typed(func(_ context.Context, in args, _ *tool.Call) (any, error) {
			raw := strings.TrimSpace(in.URL)
			if raw == "" {
				return nil, invalid("url", "is empty; want a URL such as \"https://example.com/path\"")
			}
			u, err := url.Parse(raw)
			if err != nil {
				return nil, invalid("url", "not a valid URL: %v", err)
			}
			return splitURL(u), nil
		}),
	}
}

func splitURL(u *url.URL) urlParts {
	p := urlParts{
		Href:       u.String(),
		Scheme:     u.Scheme,
		Host:       u.Host,
		IsAbsolute: u.IsAbs(),
		Query:      map[string]any{},
		Origin:     "null",
	}
	if u.Scheme != "" {
		p.Protocol = u.Scheme + ":"
	}
	name := u.Hostname()
	p.Hostname = name
	switch ip := net.ParseIP(strings.SplitN(name, "%", 2)[0]); {
	case name == "":
	case strings.Contains(name, ":"):
		p.HostType = "ipv6"
		p.Hostname = "[" + name + "]"
	case ip != nil:
		p.HostType = "ipv4"
	default:
		p.HostType = "name"
	}
	p.Port = u.Port()
	p.PortIsExplicit = p.Port != ""
	def, special := defaultPorts[u.Scheme]
	if p.Port == "" {
		p.Port = def
	}
	switch {
	case u.Opaque != "":
		p.Pathname = u.Opaque
	default:
		p.Pathname = u.EscapedPath()
		if p.Pathname == "" && u.Host != "" {
			p.Pathname = "/"
		}
	}
	if u.RawQuery != "" {
		p.Search = "?" + u.RawQuery
		// Malformed pairs (a bad %-escape, say) are skipped; the rest are kept.
		values, _ := url.ParseQuery(u.RawQuery)
		for k, vs := range values {
			if len(vs) == 1 {
				p.Query[k] = vs[0]
			} else {
				p.Query[k] = vs
			}
		}
	}
	if u.Fragment != "" {
		p.Hash = "#" + u.EscapedFragment()
	}
	if u.User != nil {
		p.Username = u.User.Username()
		p.Password, _ = u.User.Password()
	}
	if special && name != "" {
		host := p.Hostname
		if p.Port != def {
			host = net.JoinHostPort(name, p.Port)
		}
		p.Origin = u.Scheme + "://" + host
	}
	return p
}
