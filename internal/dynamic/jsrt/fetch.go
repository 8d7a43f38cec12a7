package jsrt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// httpClient serves every ctx.fetch; it shares connections across calls.
var httpClient = &http.Client{Transport: func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = dialGuarded
	t.Proxy = proxyGuarded
	return t
}()}

const fetchUserAgent = "barrhawk-dynamic-tool"

type fetchRequest struct {
	method  string
	url     *url.URL
	header  http.Header
	body    *string
	timeout time.Duration
}

type fetchResult struct {
	status     int
	statusText string
	url        string
	header     http.Header
	body       string
	err        string
}

// fetch implements ctx.fetch(url, {method, headers, body, timeout}). It
// returns a Promise of {status, statusText, ok, url, headers, text(),
// json()}; headers is a plain object of lower-cased names (with non-enumerable
// get(name) and has(name)), text() and json() return the body synchronously.
func (rt *jsRuntime) fetch(call goja.FunctionCall) goja.Value {
	vm := rt.vm
	m := rt.m
	if !m.perms.Network {
		panic(rt.forbidden(`network permission not declared: add permissions: ["network"] to the tool`))
	}
	cs := rt.cur
	if cs == nil {
		panic(rt.newError("ctx.fetch can only be used during a call"))
	}
	req := rt.parseFetch(call)
	p, resolve, reject := vm.NewPromise()
	if scheme := strings.ToLower(req.url.Scheme); scheme != "http" && scheme != "https" {
		if err := reject(rt.forbidden(fmt.Sprintf("ctx.fetch: only http and https URLs are allowed, got a %q URL", scheme))); err != nil {
			panic(err)
		}
		return vm.ToValue(p)
	}
	cs.prepareAsync()
	cs.pending++
	rctx := cs.requestCtx()
	if len(m.own) > 0 {
		rctx = context.WithValue(rctx, ownAddrsKey{}, m.own)
	}
	maxBytes := m.opts.FetchMaxBytes
	go func() {
		res := doFetch(rctx, req, maxBytes)
		cs.enqueue(func() error {
			cs.pending--
			if res.err != "" {
				return reject(rt.newError(res.err))
			}
			return resolve(rt.response(res))
		})
	}()
	return vm.ToValue(p)
}

func (rt *jsRuntime) parseFetch(call goja.FunctionCall) *fetchRequest {
	vm := rt.vm
	arg := call.Argument(0)
	if goja.IsUndefined(arg) || goja.IsNull(arg) {
		panic(vm.NewTypeError("ctx.fetch: a URL is required"))
	}
	raw := arg.String()
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		panic(vm.NewTypeError(fmt.Sprintf("ctx.fetch: invalid URL %q: an absolute http or https URL is required", raw)))
	}
	req := &fetchRequest{method: http.MethodGet, url: u, header: http.Header{}, timeout: rt.m.opts.FetchTimeout}
	opts, ok := call.Argument(1).(*goja.Object)
	if !ok {
		return req
	}
	if v := opts.Get("method"); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
		req.method = strings.ToUpper(v.String())
	}
	if h, ok := opts.Get("headers").(*goja.Object); ok {
		for _, k := range h.Keys() {
			if v := h.Get(k); v != nil && !goja.IsUndefined(v) {
				req.header.Add(k, v.String())
			}
		}
	}
	if v := opts.Get("body"); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
		var s string
		if o, ok := v.(*goja.Object); ok {
			out, err := rt.jsonStringify(goja.Undefined(), o)
			if err != nil {
				panic(err)
			}
			s = out.String()
			if req.header.Get("Content-Type") == "" {
				req.header.Set("Content-Type", "application/json")
			}
		} else {
			s = v.String()
		}
		req.body = &s
	}
	if v := opts.Get("timeout"); v != nil && !goja.IsUndefined(v) && !goja.IsNull(v) {
		ms := v.ToFloat()
		if math.IsNaN(ms) || ms <= 0 {
			panic(vm.NewTypeError("ctx.fetch: timeout must be a positive number of milliseconds"))
		}
		req.timeout = time.Duration(min(ms, float64(math.MaxInt64/int64(time.Millisecond))) * float64(time.Millisecond))
	}
	return req
}

// doFetch performs the request off the call's goroutine.
func doFetch(parent context.Context, fr *fetchRequest, maxBytes int64) *fetchResult {
	what := fr.method + " " + fr.url.Redacted()
	fail := func(format string, args ...any) *fetchResult {
		return &fetchResult{err: "ctx.fetch " + what + ": " + fmt.Sprintf(format, args...)}
	}
	ctx, cancel := context.WithTimeout(parent, fr.timeout)
	defer cancel()
	var body io.Reader
	if fr.body != nil {
		body = strings.NewReader(*fr.body)
	}
	req, err := http.NewRequestWithContext(ctx, fr.method, fr.url.String(), body)
	if err != nil {
		return fail("%v", err)
	}
	req.Header = fr.header
	if req.Header.Get("User-Agent") == "" {
		req.Header.Set("User-Agent", fetchUserAgent)
	}
	timedOut := func() bool {
		return errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		if timedOut() {
			return fail("timed out after %s", fr.timeout)
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fail("%v", err)
	}
	defer resp.Body.Close()
	tooBig := func() *fetchResult {
		return fail("response body exceeds the %d-byte limit", maxBytes)
	}
	if resp.ContentLength > maxBytes {
		return tooBig()
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if int64(len(data)) > maxBytes {
		return tooBig()
	}
	if err != nil {
		if timedOut() {
			return fail("timed out after %s reading the response body", fr.timeout)
		}
		return fail("reading the response body: %v", err)
	}
	text := strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode)))
	if text == "" {
		text = http.StatusText(resp.StatusCode)
	}
	return &fetchResult{
		status:     resp.StatusCode,
		statusText: text,
		url:        resp.Request.URL.String(),
		header:     resp.Header,
		body:       string(data),
	}
}

// response builds the JS response object, on the call's goroutine.
func (rt *jsRuntime) response(r *fetchResult) *goja.Object {
	vm := rt.vm
	o := vm.NewObject()
	_ = o.Set("status", r.status)
	_ = o.Set("statusText", r.statusText)
	_ = o.Set("ok", r.status >= 200 && r.status <= 299)
	_ = o.Set("url", r.url)

	flat := make(map[string]string, len(r.header))
	for k, v := range r.header {
		flat[strings.ToLower(k)] = strings.Join(v, ", ")
	}
	h := vm.NewObject()
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		_ = h.Set(k, flat[k])
	}
	_ = h.DefineDataProperty("get", vm.ToValue(func(call goja.FunctionCall) goja.Value {
		if v, ok := flat[strings.ToLower(call.Argument(0).String())]; ok {
			return vm.ToValue(v)
		}
		return goja.Null()
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = h.DefineDataProperty("has", vm.ToValue(func(call goja.FunctionCall) goja.Value {
		_, ok := flat[strings.ToLower(call.Argument(0).String())]
		return vm.ToValue(ok)
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = o.Set("headers", h)

	body := r.body
	_ = o.Set("text", func(goja.FunctionCall) goja.Value { return vm.ToValue(body) })
	_ = o.Set("json", func(goja.FunctionCall) goja.Value {
		v, err := rt.jsonParse(goja.Undefined(), vm.ToValue(body))
		if err != nil {
			panic(err)
		}
		return v
	})
	return o
}
