// Package githubapi is BarrHawk's one client of GitHub's REST API, shared
// by the GitHub tools (gh_*) and by spawn, which opens pull requests. It is
// Google's go-github with what a real API needs around it: the API and the
// token found as gh finds them (endpoint.go), conditional requests and one
// retry after a secondary rate limit (transport.go), GitHub's answers
// turned into our error codes with the token never shown (errors.go), and
// lists read page by page up to a limit (pages.go).
package githubapi

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/redact"
	"github.com/barrhawk/barrhawk/internal/version"
	"github.com/google/go-github/v75/github"
)

// Options say which API to speak to, and as whom.
type Options struct {
	// API is the REST API's base URL; "" finds it (FindAPI).
	API string
	// APIFrom says where API came from, for messages (default "the
	// connection").
	APIFrom string
	// Token authenticates; "" finds it as gh does (FindToken).
	Token string
	// Timeout bounds each request (default 60 s); a call's context bounds
	// it further.
	Timeout time.Duration
}

// Client is a GitHub API client: go-github's, and where its API and token
// came from.
type Client struct {
	*github.Client
	// API is the REST API's base URL, without a trailing slash.
	API string
	// APIFrom and TokenFrom say where each was found, for messages.
	APIFrom, TokenFrom string

	token string
	red   *redact.Redactor
}

// New returns a client of o.API (or the one found) authenticated with
// o.Token (or the one found); without a token it makes anonymous requests,
// which GitHub allows for public data at a lower rate limit.
func New(o Options) (*Client, error) {
	api, apiFrom := o.API, o.APIFrom
	if apiFrom == "" {
		apiFrom = "the connection"
	}
	if api == "" {
		api, apiFrom = FindAPI("")
	}
	base, err := url.Parse(strings.TrimSuffix(api, "/") + "/")
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("GitHub API %q (from %s) is not an http(s) URL; write https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server", api, apiFrom)
	}
	token, tokenFrom := o.Token, "the connection"
	if token == "" {
		token, tokenFrom = FindToken(base.String())
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	c := &Client{API: strings.TrimSuffix(base.String(), "/"), APIFrom: apiFrom, TokenFrom: tokenFrom, token: token, red: redact.New(token)}
	gh := github.NewClient(&http.Client{Timeout: timeout, Transport: newTransport(http.DefaultTransport)})
	if token != "" {
		gh = gh.WithAuthToken(token)
	}
	gh.BaseURL = base
	gh.UploadURL = base
	gh.UserAgent = "barrhawk/" + version.Version
	c.Client = gh
	return c, nil
}

// Authenticated reports whether the client has a token.
func (c *Client) Authenticated() bool { return c.token != "" }

// Redact removes the client's token from s.
func (c *Client) Redact(s string) string { return c.red.String(s) }
