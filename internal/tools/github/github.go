// Package github holds the GitHub tools (gh_*): repositories and files,
// branches, pull requests, issues and Actions, through GitHub's REST API
// with the client spawn shares (package githubapi).
//
// A call uses the connection its alias names: one gh_connect made, or, for
// no alias, the token found as gh finds it (GH_TOKEN, GITHUB_TOKEN, gh's
// login) on the API github.api or GITHUB_API_URL names. Connections live
// in the Igor's Resources (GitHub calls all go to one Igor, see the
// doctor's affinity), each with its kept answers for conditional requests.
// The token never appears in a result: each one is cleaned of it.
package github

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/githubapi"
	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/go-github/v75/github"
	"github.com/google/jsonschema-go/jsonschema"
)

// Tools returns the family.
func Tools() []tool.Tool {
	var ts []tool.Tool
	ts = append(ts, connectionTools()...)
	ts = append(ts, repoTools()...)
	ts = append(ts, pullTools()...)
	ts = append(ts, issueTools()...)
	return append(ts, actionTools()...)
}

// Settings are the github.* configuration keys, set once per Igor.
type Settings struct {
	// API is the REST API ("": GITHUB_API_URL, else api.github.com).
	API string
}

var settings tool.Setting[Settings]

// Configure sets the family's settings (the Igor calls it at init).
func Configure(s Settings) { settings.Set(s) }

// Groups of the family in tool_search and the README.
const (
	groupRepos   = "GitHub repositories"
	groupPulls   = "GitHub pull requests"
	groupIssues  = "GitHub issues"
	groupActions = "GitHub Actions"
)

// defaultAlias is the connection of a call that names none.
const defaultAlias = "default"

// def fills the fields every GitHub tool shares; a tool that writes is
// never run twice after its Igor dies.
func def(name, group, desc string, writes bool, input *jsonschema.Schema) tool.Def {
	d := tool.Def{Name: name, Description: desc, Group: group, Category: tool.CategoryGitHub, Input: input, RequiresWorker: true}
	if writes {
		d.Retries = -1
	}
	return d
}

// repoArgs are the arguments naming a repository and a connection.
type repoArgs struct {
	Owner string `json:"owner"`
	Repo  string `json:"repo"`
	Alias string `json:"alias"`
}

// connAlias is the connection a call names.
func (r repoArgs) connAlias() string { return r.Alias }

// full is owner/repo.
func (r repoArgs) full() string { return r.Owner + "/" + r.Repo }

// repoProps are the schema properties of repoArgs, then more.
func repoProps(more ...schema.Prop) *jsonschema.Schema {
	props := []schema.Prop{
		schema.String("owner", "The repository's owner (user or organization)").Required(),
		schema.String("repo", "The repository's name").Required(),
	}
	props = append(props, more...)
	return schema.Object(append(props, aliasProp())...)
}

func aliasProp() schema.Prop {
	return schema.String("alias", "The connection gh_connect made (default: the token found as gh finds it: GH_TOKEN, GITHUB_TOKEN, gh's login)")
}

func limitProp(what string) schema.Prop {
	return schema.Integer("limit", "The most "+what+" to answer (default 30, up to 1000); pages of up to 100 are read as needed").Min(1).Max(1000)
}

// conn is one connection: a client and where its token came from.
type conn struct {
	*githubapi.Client
	explicit bool // made by gh_connect, not from the environment
}

// connOf returns the connection alias names: the default one is made on
// first use from the environment and the configuration.
func connOf(call *tool.Call, alias string) (*conn, error) {
	if err := call.NeedResources("GitHub tools"); err != nil {
		return nil, err
	}
	if alias == "" {
		alias = defaultAlias
	}
	if v, ok := call.Resources.Get(tool.KindGitHub, alias); ok {
		return v.(*conn), nil
	}
	if alias != defaultAlias {
		return nil, tool.Errorf(tool.CodeNotFound, "no GitHub connection %q: gh_connect {token, alias: %q} makes it (a worker replaced since forgets its connections), or leave alias out to use the token found in the environment", alias, alias)
	}
	v, err := call.Resources.GetOrCreate(tool.KindGitHub, alias, func() (any, func() error, error) {
		api, from := githubapi.FindAPI(settings.Get().API)
		c, err := githubapi.New(githubapi.Options{API: api, APIFrom: from})
		if err != nil {
			return nil, nil, tool.Errorf(tool.CodeInvalidArgs, "%v", err)
		}
		return &conn{Client: c}, nil, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*conn), nil
}

// DefaultConnections is how many of the Igor's GitHub connections were
// made from the environment, not by gh_connect (they are not state worth
// keeping an Igor for).
func DefaultConnections(res *tool.Resources) int {
	if v, ok := res.Get(tool.KindGitHub, defaultAlias); ok && !v.(*conn).explicit {
		return 1
	}
	return 0
}

// run is a tool's handler: it binds the arguments, finds the connection,
// and answers the result cleaned of the connection's token (GitHub may
// echo it, in a file a user committed, say).
func run[In interface{ connAlias() string }](f func(ctx context.Context, in In, c *conn) (any, error)) tool.Handler {
	return tool.Typed(func(ctx context.Context, in In, call *tool.Call) (any, error) {
		c, err := connOf(call, in.connAlias())
		if err != nil {
			return nil, err
		}
		out, err := f(ctx, in, c)
		if err != nil {
			return nil, c.Err("GitHub", err)
		}
		return cleaned(c.Client, out)
	})
}

// cleaned is v as JSON with the token masked wherever it appears.
func cleaned(c *githubapi.Client, v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode the result: %w", err)
	}
	return json.RawMessage(c.Redact(string(b))), nil
}

// Helpers for the compact rows.

// short is a commit sha's first 7 characters.
func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}

// ts is a GitHub time as RFC 3339 in UTC, "" when absent.
func ts(t *github.Timestamp) string {
	if t == nil || t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// firstLine is a commit message's subject.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// listAnswer is a list's answer: its rows, how many, and whether more were
// left out (with the total when GitHub says it).
func listAnswer[T any](key string, l githubapi.Listed[T]) map[string]any {
	out := map[string]any{key: l.Items, "count": len(l.Items)}
	if l.Total >= 0 {
		out["total"] = l.Total
	}
	if l.More() || l.Total < 0 {
		out["more"] = true
		out["note"] = "cut at the limit; raise limit (up to 1000) to see more"
	}
	return out
}
