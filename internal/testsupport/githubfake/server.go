// Package githubfake is a local, in-process stand-in for api.github.com,
// for tests: an HTTP server on 127.0.0.1 answering a set of GitHub's REST
// endpoints (repositories, contents, branches and refs, pull requests and
// reviews, issues and comments, Actions workflows and runs, compare, the
// authenticated user, the rate limit) from a small git-like model of each
// repository.
//
// It is built from what GitHub publishes rather than from memory: every
// request is matched to its operation in GitHub's OpenAPI description
// (@octokit/openapi) and checked against it, and every JSON answer is
// shaped from that description's example and checked against its schema;
// what does not match is kept in Violations. Headers, error bodies and
// pagination follow the exchanges recorded from the real service in
// @octokit/fixtures. Both come from testbin.GitHubAPI.
package githubfake

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/barrhawk/barrhawk/internal/testsupport/testbin"
)

// DefaultToken is the token a Server accepts: the shape of a classic
// personal access token.
const DefaultToken = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

// DefaultLogin is the login of the token's user.
const DefaultLogin = "octocat"

// apiVersion is what X-GitHub-Api-Version-Selected says, as recorded.
const apiVersion = "2022-11-28"

// Options configures a Server. It accepts one token, DefaultToken (sent
// as "Authorization: Bearer T" or "token T"), of the user DefaultLogin,
// with a rate limit of 5000 requests an hour (60 without a token).
type Options struct {
	// Orgs are the other owners whose repositories the token's user may
	// see when private and write to. Repositories of any other owner are
	// visible only when public, and read-only for contents, refs, merges
	// and workflow dispatches (GitHub answers 404, hiding them).
	Orgs []string
}

// Repo seeds a repository in AddRepo.
type Repo struct {
	Private       bool
	DefaultBranch string            // default "main"
	Files         map[string]string // path → content of the first commit
	Description   string
}

// Request is one request the server answered.
type Request struct {
	Method      string
	Path        string // with the query, as sent
	Operation   string // the OpenAPI operationId, "" when none matched
	Status      int
	IfNoneMatch string
	Auth        bool // whether the valid token came with it
}

// Server is a running fake api.github.com.
type Server struct {
	srv   *httptest.Server
	spec  *spec
	token string
	login string
	orgs  map[string]bool
	limit int

	mu         sync.Mutex
	repos      map[string]*repoState // "owner/name"
	byID       map[int64]*repoState
	nextID     int64
	clock      time.Time
	requests   []Request
	violations []string
	used       map[bool]int // by whether authenticated
	window     time.Time
	limited    []string // kinds of the next injected rate-limit answers
	retryAfter time.Duration
	requestSeq int
}

// Start starts a fake api.github.com on 127.0.0.1, closed when the test
// ends. It loads GitHub's OpenAPI description (once per process) from
// testbin.GitHubAPI, failing the test when it is not installed.
func Start(t testing.TB, o Options) *Server {
	t.Helper()
	dir := testbin.GitHubAPI(t, specFile)
	sp, err := loadSpec(filepath.Join(dir, filepath.FromSlash(specFile)))
	if err != nil {
		t.Fatalf("githubfake: %v", err)
	}
	s := &Server{
		spec:  sp,
		token: DefaultToken,
		login: DefaultLogin,
		orgs:  map[string]bool{},
		limit: 5000,
		repos: map[string]*repoState{},
		byID:  map[int64]*repoState{},
		// A fixed clock, advanced a second per change, keeps shas stable.
		clock:  time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC),
		used:   map[bool]int{},
		window: time.Now().Truncate(time.Second),
		nextID: 1296269,
	}
	s.orgs[s.login] = true
	for _, org := range o.Orgs {
		s.orgs[org] = true
	}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the base of the API, such as http://127.0.0.1:PORT, without a
// trailing slash: what GITHUB_API_URL names.
func (s *Server) URL() string { return s.srv.URL }

// Token is the one token the server accepts.
func (s *Server) Token() string { return s.token }

// Login is the token's user.
func (s *Server) Login() string { return s.login }

// Requests lists the requests answered so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Violations lists every request and every answer so far that did not
// match GitHub's OpenAPI description; a test of a client asserts it is
// empty.
func (s *Server) Violations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.violations...)
}

// RateLimitNext makes the next n requests answer as rate limited. kind
// "primary" answers 403 with X-RateLimit-Remaining: 0 and an
// X-RateLimit-Reset retryAfter from now; "secondary" answers 403 with
// Retry-After (whole seconds) and GitHub's secondary-limit message.
// Answers to a request with a matching If-None-Match are rate limited
// too, as they would be.
func (s *Server) RateLimitNext(n int, kind string, retryAfter time.Duration) {
	if kind != "primary" && kind != "secondary" {
		panic(fmt.Sprintf("githubfake: rate limit kind %q is neither primary nor secondary", kind))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.limited = append(s.limited, kind)
	}
	s.retryAfter = retryAfter
}

// now advances the fake clock a second and returns it.
func (s *Server) now() time.Time {
	s.clock = s.clock.Add(time.Second)
	return s.clock
}

// call is one request being answered.
type call struct {
	s     *Server
	r     *http.Request
	op    *operation
	path  map[string]string
	query url.Values
	body  map[string]any
	auth  bool
	repo  *repoState
}

// reply is what a handler answers.
type reply struct {
	status int
	body   any    // encoded as JSON unless raw is set
	raw    []byte // a body of another media type
	ctype  string // Content-Type of raw
	header http.Header
}

func jsonReply(status int, body any) reply { return reply{status: status, body: body} }

// errorReply is GitHub's error body: message, documentation_url and
// status (a string, as GitHub sends it).
func (c *call) errorReply(status int, message string) reply {
	return jsonReply(status, c.errorBody(status, message))
}

func (c *call) errorBody(status int, message string) map[string]any {
	return map[string]any{"message": message, "documentation_url": c.docURL(), "status": strconv.Itoa(status)}
}

// validationFailed is GitHub's 422 "Validation Failed" with its errors.
func (c *call) validationFailed(errs ...map[string]any) reply {
	list := make([]any, len(errs))
	for i, e := range errs {
		list[i] = e
	}
	b := c.errorBody(http.StatusUnprocessableEntity, "Validation Failed")
	b["errors"] = list
	return jsonReply(http.StatusUnprocessableEntity, b)
}

func (c *call) docURL() string {
	if c.op != nil && c.op.DocURL != "" {
		return c.op.DocURL
	}
	return "https://docs.github.com/rest"
}

func (c *call) notFound() reply { return c.errorReply(http.StatusNotFound, "Not Found") }

// serve answers one request: it authenticates, applies the rate limit,
// finds the operation, checks the request against it, runs the handler,
// checks the answer, and adds what every GitHub answer carries.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requestSeq++
	c := &call{s: s, r: r, query: r.URL.Query()}
	token, hasToken := bearer(r.Header.Get("Authorization"))
	c.auth = hasToken && token == s.token

	if time.Since(s.window) >= time.Hour {
		s.window = time.Now().Truncate(time.Second)
		s.used = map[bool]int{}
	}
	c.op, c.path = s.spec.find(r.Method, s.canonical(r.URL.EscapedPath()))

	var rep reply
	limited := ""
	switch {
	case hasToken && !c.auth:
		// GitHub refuses a bad token before it looks at the path.
		rep = jsonReply(http.StatusUnauthorized, map[string]any{"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest", "status": "401"})
	case len(s.limited) > 0:
		limited, s.limited = s.limited[0], s.limited[1:]
		rep = s.rateLimited(c, limited)
	case s.used[c.auth] >= s.limitFor(c.auth):
		limited = "primary"
		rep = s.rateLimited(c, limited)
	default:
		rep = s.handle(c)
	}

	var data []byte
	if rep.raw != nil {
		data = rep.raw
	} else if rep.body != nil {
		var err error
		if data, err = json.Marshal(rep.body); err != nil {
			panic(fmt.Sprintf("githubfake: encode the answer to %s %s: %v", r.Method, r.URL, err))
		}
		s.checkResponse(c, rep.status, data)
	}

	h := w.Header()
	for k, v := range rep.header {
		h[k] = v
	}
	notModified := false
	if (rep.status == http.StatusOK || rep.status == http.StatusCreated) && data != nil {
		sum := sha256.Sum256(data)
		etag := `"` + hex.EncodeToString(sum[:]) + `"`
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, max-age=60, s-maxage=60")
		h.Set("Vary", "Accept, Authorization, Cookie, X-GitHub-OTP")
		notModified = r.Method == http.MethodGet && etagMatches(r.Header.Get("If-None-Match"), etag)
	}
	if !notModified && limited == "" && !(c.op != nil && c.op.ID == "rate-limit/get") {
		s.used[c.auth]++
	}
	s.rateHeaders(h, c.auth, limited)
	h.Set("X-GitHub-Api-Version-Selected", apiVersion)
	if h.Get("X-GitHub-Media-Type") == "" {
		h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	}
	h.Set("X-GitHub-Request-Id", fmt.Sprintf("%04X:%04X:%07X:%07X:%08X", s.requestSeq, 0x5DDC, s.requestSeq*7, s.requestSeq*13, s.requestSeq))
	h.Set("Access-Control-Expose-Headers", "ETag, Link, Location, Retry-After, X-GitHub-OTP, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Used, X-RateLimit-Resource, X-RateLimit-Reset, X-OAuth-Scopes, X-Accepted-OAuth-Scopes, X-Poll-Interval, X-GitHub-Media-Type, X-GitHub-SSO, X-GitHub-Request-Id, Deprecation, Sunset")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Server", "GitHub.com")
	if c.auth {
		h.Set("X-OAuth-Scopes", "repo, workflow")
	}

	status := rep.status
	if notModified {
		status = http.StatusNotModified
		data = nil
	} else if data != nil {
		ctype := rep.ctype
		if ctype == "" {
			ctype = "application/json; charset=utf-8"
		}
		h.Set("Content-Type", ctype)
		h.Set("Content-Length", strconv.Itoa(len(data)))
	}
	s.requests = append(s.requests, Request{
		Method: r.Method, Path: r.URL.RequestURI(), Operation: opID(c.op), Status: status,
		IfNoneMatch: r.Header.Get("If-None-Match"), Auth: c.auth,
	})
	w.WriteHeader(status)
	if data != nil && r.Method != http.MethodHead {
		w.Write(data)
	}
}

func opID(op *operation) string {
	if op == nil {
		return ""
	}
	return op.ID
}

// bearer is the token of an Authorization header, "Bearer T" or "token T".
func bearer(h string) (string, bool) {
	scheme, token, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || (!strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token")) {
		return "", h != ""
	}
	return strings.TrimSpace(token), true
}

// etagMatches says whether an If-None-Match header names etag, weakly
// compared as RFC 9110 asks for If-None-Match.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// canonical rewrites /repositories/{id}/... (the form GitHub's Link
// headers use) to /repos/{owner}/{name}/....
func (s *Server) canonical(path string) string {
	rest, ok := strings.CutPrefix(path, "/repositories/")
	if !ok {
		return path
	}
	idText, tail, _ := strings.Cut(rest, "/")
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || s.byID[id] == nil {
		return path
	}
	r := s.byID[id]
	out := "/repos/" + r.owner + "/" + r.name
	if tail != "" {
		out += "/" + tail
	}
	return out
}

func (s *Server) limitFor(auth bool) int {
	if auth {
		return s.limit
	}
	return 60
}

// rateHeaders adds X-RateLimit-*, as every GitHub answer carries them.
func (s *Server) rateHeaders(h http.Header, auth bool, limited string) {
	limit := s.limitFor(auth)
	used := min(s.used[auth], limit)
	reset := s.window.Add(time.Hour)
	if limited == "primary" {
		used = limit
		reset = time.Now().Add(s.retryAfter).Truncate(time.Second)
		if s.retryAfter%time.Second != 0 {
			reset = reset.Add(time.Second)
		}
	}
	h.Set("X-RateLimit-Limit", strconv.Itoa(limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(limit-used))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	h.Set("X-RateLimit-Used", strconv.Itoa(used))
	h.Set("X-RateLimit-Resource", "core")
}

// rateLimited is GitHub's answer to a request over a rate limit.
func (s *Server) rateLimited(c *call, kind string) reply {
	if kind == "secondary" {
		rep := jsonReply(http.StatusForbidden, map[string]any{
			"message":           "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID " + fmt.Sprintf("%04X:%04X", s.requestSeq, 0x5DDC) + ".",
			"documentation_url": "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits",
			"status":            "403",
		})
		secs := int((s.retryAfter + time.Second - 1) / time.Second)
		rep.header = http.Header{"Retry-After": {strconv.Itoa(secs)}}
		return rep
	}
	who := "user ID 1"
	if !c.auth {
		who = "127.0.0.1"
	}
	return jsonReply(http.StatusForbidden, map[string]any{
		"message":           "API rate limit exceeded for " + who + ".",
		"documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits",
		"status":            "403",
	})
}

// handle checks the request against its operation and runs the handler.
func (s *Server) handle(c *call) reply {
	if c.op == nil {
		return c.notFound()
	}
	rt, ok := routes[c.op.Method+" "+c.op.Template]
	if !ok {
		return c.notFound()
	}
	if owner, ok := c.path["owner"]; ok {
		repo := s.repos[owner+"/"+c.path["repo"]]
		switch {
		case repo == nil:
			return c.notFound()
		case repo.private && !(c.auth && s.orgs[repo.owner]):
			return c.notFound()
		case rt.write && !c.auth:
			return c.errorReply(http.StatusUnauthorized, "Requires authentication")
		case rt.push && !s.orgs[repo.owner]:
			return c.notFound()
		}
		c.repo = repo
	} else if rt.write && !c.auth {
		return c.errorReply(http.StatusUnauthorized, "Requires authentication")
	}
	if msg := s.checkRequest(c); msg != "" {
		s.violations = append(s.violations, fmt.Sprintf("request %s %s (%s): %s", c.r.Method, c.r.URL.RequestURI(), c.op.ID, msg))
		if strings.HasPrefix(msg, "Problems parsing JSON") {
			return c.errorReply(http.StatusBadRequest, "Problems parsing JSON")
		}
		return c.errorReply(http.StatusUnprocessableEntity, "Invalid request.\n\n"+msg)
	}
	return rt.fn(c)
}

// checkRequest checks the parameters and the JSON body of a request
// against its operation; "" when they hold, else why not, in the words
// GitHub uses.
func (s *Server) checkRequest(c *call) string {
	for _, p := range c.op.Params {
		var text string
		var present bool
		switch p.In {
		case "path":
			text, present = c.path[p.Name]
		case "query":
			if vs, ok := c.query[p.Name]; ok {
				text, present = vs[0], true
			}
		default:
			continue
		}
		if !present {
			if p.Required {
				return fmt.Sprintf("%q wasn't supplied.", p.Name)
			}
			continue
		}
		v, err := paramValue(p.Schema, text)
		if err == nil {
			err = s.spec.validate("param "+c.op.Method+" "+c.op.Template+" "+p.In+" "+p.Name, p.Schema, v)
		}
		if err != nil {
			return fmt.Sprintf("%q is not a valid value for %s parameter %q: %v", text, p.In, p.Name, err)
		}
	}
	raw, err := readBody(c.r)
	if err != nil {
		return "Problems parsing JSON: " + err.Error()
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		if c.op.BodyReq {
			return "Request body is required."
		}
		return ""
	}
	if c.op.Body == nil {
		return ""
	}
	var body any
	if err := json.Unmarshal(raw, &body); err != nil {
		return "Problems parsing JSON: " + err.Error()
	}
	c.body, _ = body.(map[string]any)
	schema, _ := c.op.Body.(map[string]any)
	// GitHub names a missing or mistyped top-level field plainly.
	if req, ok := schema["required"].([]any); ok && c.body != nil {
		for _, name := range req {
			if _, ok := c.body[name.(string)]; !ok {
				return fmt.Sprintf("%q wasn't supplied.", name)
			}
		}
	}
	if err := s.spec.validate("body "+c.op.Method+" "+c.op.Template, c.op.Body, body); err != nil {
		return "For 'the request body', " + err.Error()
	}
	return ""
}

func readBody(r *http.Request) ([]byte, error) {
	if r.Body == nil {
		return nil, nil
	}
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r.Body)
	return buf.Bytes(), err
}

// checkResponse checks a JSON answer, as encoded (what a client decodes),
// against the schema the operation gives for its status, keeping what does
// not match.
func (s *Server) checkResponse(c *call, status int, data []byte) {
	if c.op == nil {
		return
	}
	code := strconv.Itoa(status)
	schema, ok := c.op.Response[code]
	if !ok || schema == nil {
		return
	}
	var v any
	_ = json.Unmarshal(data, &v)
	if err := s.spec.validate("response "+c.op.Method+" "+c.op.Template+" "+code, schema, v); err != nil {
		s.violations = append(s.violations, fmt.Sprintf("response %d to %s %s (%s): %v", status, c.r.Method, c.r.URL.RequestURI(), c.op.ID, err))
	}
}

// page is one page of a list of n items, as ?page= and ?per_page= ask
// (30 by default, at most 100), with GitHub's Link header.
func (c *call) page(n int) (lo, hi int, h http.Header) {
	per := 30
	if v, err := strconv.Atoi(c.query.Get("per_page")); err == nil && v > 0 {
		per = min(v, 100)
	}
	pg := 1
	if v, err := strconv.Atoi(c.query.Get("page")); err == nil && v > 0 {
		pg = v
	}
	last := max(1, (n+per-1)/per)
	lo, hi = min(n, (pg-1)*per), min(n, pg*per)
	link := func(p int, rel string) string {
		return fmt.Sprintf("<%s%s?%s>; rel=%q", c.s.URL(), c.linkPath(), withPage(c.r.URL.RawQuery, p), rel)
	}
	var links []string
	if pg > 1 {
		links = append(links, link(min(pg-1, last), "prev"))
	}
	if pg < last {
		links = append(links, link(pg+1, "next"), link(last, "last"))
	}
	if pg > 1 {
		links = append(links, link(1, "first"))
	}
	h = http.Header{}
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
	return lo, hi, h
}

// linkPath is the path Link headers name: /repositories/{id}/... for a
// repository's lists, as GitHub writes them.
func (c *call) linkPath() string {
	p := c.r.URL.EscapedPath()
	if c.repo != nil {
		if rest, ok := strings.CutPrefix(p, "/repos/"+c.repo.owner+"/"+c.repo.name); ok {
			return "/repositories/" + strconv.FormatInt(c.repo.id, 10) + rest
		}
	}
	return p
}

// withPage is query with page set to p, in place when there, else last.
func withPage(query string, p int) string {
	var parts []string
	found := false
	for _, kv := range strings.Split(query, "&") {
		if kv == "" {
			continue
		}
		if k, _, _ := strings.Cut(kv, "="); k == "page" {
			kv = "page=" + strconv.Itoa(p)
			found = true
		}
		parts = append(parts, kv)
	}
	if !found {
		parts = append(parts, "page="+strconv.Itoa(p))
	}
	return strings.Join(parts, "&")
}

// pageOf is the page of items the call asks for, each rendered, with its
// Link header.
func pageOf[T any](c *call, items []T, render func(T) any) ([]any, http.Header) {
	lo, hi, h := c.page(len(items))
	out := make([]any, 0, hi-lo)
	for _, it := range items[lo:hi] {
		out = append(out, render(it))
	}
	return out, h
}

// sortedKeys is the keys of m in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
