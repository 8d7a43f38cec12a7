// Package web holds http_request: an HTTP client for API tests, run in the
// Igors like every tool that touches the outside world.
package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/barrhawk/barrhawk/internal/schema"
	"github.com/barrhawk/barrhawk/internal/tool"
	"github.com/google/jsonschema-go/jsonschema"
)

// Group is the heading the tool is listed under.
const Group = "HTTP"

// Bounds of a request.
const (
	defaultTimeout  = 30 * time.Second
	defaultMaxBytes = 1 << 20
	hardMaxBytes    = 16 << 20
	maxRedirects    = 10
)

// client serves every request; connections are kept between calls.
var client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}

// Tools returns the family.
func Tools() []tool.Tool {
	return []tool.Tool{{
		Def: tool.Def{
			Name: "http_request",
			Description: "Send an HTTP request and return {status, statusText, ok, url, headers, body, bodyBytes, timing: " +
				"{totalMs, ttfbMs, dnsMs, connectMs, tlsMs}}; a JSON body comes back parsed, a body past maxBytes is cut with a note. " +
				"For API tests: pair it with assert_equals or assert_json_schema.",
			Phrases:  []string{"curl", "call an api", "rest api call", "GET endpoint", "POST json", "fetch url", "postman", "hit endpoint", "wget", "api response time", "dns and tls timing", "download html source", "raw html of a url"},
			Group:    Group,
			Category: tool.CategoryUtility,
			Input: schema.Object(
				schema.String("url", "http or https URL").Required().Min(1),
				schema.String("method", "HTTP method").Enum("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS").Default("GET"),
				headersProp(),
				schema.Any("body", "Request body, any JSON value: a string is sent as is; anything else as JSON (Content-Type application/json unless set)"),
				schema.Integer("timeout", "Milliseconds for the whole exchange").Default(defaultTimeout.Milliseconds()).Min(1).Max(300000),
				schema.Integer("maxBytes", "Longest response body kept, in bytes").Default(defaultMaxBytes).Min(1).Max(hardMaxBytes),
				schema.Boolean("followRedirects", "Follow redirects (up to 10)").Default(true),
			),
			RequiresWorker: true,
			Retries:        -1, // a request may change the server: never sent twice
		},
		Run: tool.Typed(run),
	}}
}

// headersProp is an object of header name → value.
func headersProp() schema.Prop {
	p := schema.Of("headers", "Request headers, name → value", &jsonschema.Schema{Type: "object"})
	p.Schema.AdditionalProperties = &jsonschema.Schema{Type: "string", Description: "Value of the header named by the key"}
	return p
}

type input struct {
	URL             string            `json:"url"`
	Method          string            `json:"method"`
	Headers         map[string]string `json:"headers"`
	Body            json.RawMessage   `json:"body"`
	Timeout         int64             `json:"timeout"`
	MaxBytes        int64             `json:"maxBytes"`
	FollowRedirects *bool             `json:"followRedirects"`
}

func run(ctx context.Context, in input, _ *tool.Call) (any, error) {
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q is not an http or https URL with a host", in.URL)
	}
	if in.Method == "" {
		in.Method = http.MethodGet
	}
	timeout := defaultTimeout
	if in.Timeout > 0 {
		timeout = time.Duration(in.Timeout) * time.Millisecond
	}
	if in.MaxBytes <= 0 {
		in.MaxBytes = defaultMaxBytes
	}
	body, contentType, err := requestBody(in.Body)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var t timing
	ctx = httptrace.WithClientTrace(ctx, t.trace())
	req, err := http.NewRequestWithContext(ctx, in.Method, u.String(), body)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArgs, "http_request: %v", err)
	}
	for k, v := range in.Headers {
		req.Header.Set(k, v)
	}
	if contentType != "" && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", contentType)
	}
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", "barrhawk-http_request")
	}
	c := *client
	c.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
		if in.FollowRedirects != nil && !*in.FollowRedirects {
			return http.ErrUseLastResponse
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	t.start = time.Now()
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, tool.Errorf(tool.CodeTimeout, "http_request %s %s: no answer within %s (argument \"timeout\")", in.Method, u.Redacted(), timeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, tool.Errorf(tool.CodeToolError, "http_request %s %s: %v", in.Method, u.Redacted(), err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, in.MaxBytes+1))
	if err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, tool.Errorf(tool.CodeTimeout, "http_request %s %s: the body did not arrive within %s", in.Method, u.Redacted(), timeout)
		}
		return nil, tool.Errorf(tool.CodeToolError, "http_request %s %s: reading the body: %v", in.Method, u.Redacted(), err)
	}
	total := time.Since(t.start)
	out := map[string]any{
		"status":     resp.StatusCode,
		"statusText": strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode))),
		"ok":         resp.StatusCode >= 200 && resp.StatusCode < 300,
		"url":        resp.Request.URL.String(),
		"headers":    headers(resp.Header),
		"timing":     t.result(total),
	}
	truncated := int64(len(data)) > in.MaxBytes
	if truncated {
		data = data[:in.MaxBytes]
		out["truncated"] = true
		out["note"] = fmt.Sprintf("the body was cut to its first %d bytes (argument \"maxBytes\", at most %d)", in.MaxBytes, hardMaxBytes)
	}
	out["bodyBytes"] = len(data)
	out["body"] = decodeBody(data, resp.Header.Get("Content-Type"), truncated)
	return out, nil
}

// requestBody turns the body argument into a reader and, for JSON, its
// content type.
func requestBody(raw json.RawMessage) (io.Reader, string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, "", nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, "", tool.Errorf(tool.CodeInvalidArgs, "argument \"body\": %v", err)
		}
		return strings.NewReader(s), "", nil
	}
	return bytes.NewReader(raw), "application/json", nil
}

// decodeBody returns a JSON body parsed, anything else as text.
func decodeBody(data []byte, contentType string, truncated bool) any {
	mt, _, _ := mime.ParseMediaType(contentType)
	if !truncated && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		var v any
		if json.Unmarshal(data, &v) == nil {
			return v
		}
	}
	return string(data)
}

// headers flattens response headers: lower-case names, values joined.
func headers(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out[strings.ToLower(k)] = strings.Join(h[k], ", ")
	}
	return out
}

// timing records the phases of one request.
type timing struct {
	start, dnsStart, connStart, tlsStart, firstByte time.Time
	dns, connect, tls                               time.Duration
}

func (t *timing) trace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		DNSStart:             func(httptrace.DNSStartInfo) { t.dnsStart = time.Now() },
		DNSDone:              func(httptrace.DNSDoneInfo) { t.dns = time.Since(t.dnsStart) },
		ConnectStart:         func(string, string) { t.connStart = time.Now() },
		ConnectDone:          func(string, string, error) { t.connect = time.Since(t.connStart) },
		TLSHandshakeStart:    func() { t.tlsStart = time.Now() },
		TLSHandshakeDone:     func(tls.ConnectionState, error) { t.tls = time.Since(t.tlsStart) },
		GotFirstResponseByte: func() { t.firstByte = time.Now() },
	}
}

func (t *timing) result(total time.Duration) map[string]any {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	out := map[string]any{"totalMs": ms(total), "dnsMs": ms(t.dns), "connectMs": ms(t.connect), "tlsMs": ms(t.tls)}
	if !t.firstByte.IsZero() {
		out["ttfbMs"] = ms(t.firstByte.Sub(t.start))
	}
	return out
}
