package githubapi

import (
	"bytes"
	"crypto/sha256"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// transport sits under go-github: it makes repeated reads conditional
// (If-None-Match with the ETag GitHub sent; a 304 costs no rate limit and
// answers what was kept), and retries a request once after a secondary
// rate limit that names its wait (Retry-After), when the call's deadline
// leaves room for it.
type transport struct {
	next http.RoundTripper

	mu    sync.Mutex
	kept  map[[32]byte]*keptAnswer
	order [][32]byte // oldest first, for eviction
}

// keptAnswer is a read's answer kept for its ETag.
type keptAnswer struct {
	etag   string
	header http.Header
	body   []byte
}

const (
	// maxKept bounds the answers kept per client, and maxKeptBody each
	// one's body.
	maxKept     = 256
	maxKeptBody = 2 << 20
	// maxRetryWait is the longest secondary-limit wait retried when the
	// call has no deadline.
	maxRetryWait = time.Minute
)

func newTransport(next http.RoundTripper) *transport {
	return &transport{next: next, kept: map[[32]byte]*keptAnswer{}}
}

// RoundTrip implements http.RoundTripper.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || req.Header.Get("Range") != "" {
		return t.send(req)
	}
	// The token is part of the key: two tokens may see different things.
	key := sha256.Sum256([]byte(req.URL.String() + "\x00" + req.Header.Get("Authorization") + "\x00" + req.Header.Get("Accept")))
	t.mu.Lock()
	k := t.kept[key]
	t.mu.Unlock()
	if k != nil {
		req = req.Clone(req.Context())
		req.Header.Set("If-None-Match", k.etag)
	}
	resp, err := t.send(req)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && k != nil:
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		h := k.header.Clone()
		for name, v := range resp.Header { // the rate limit as it is now
			h[name] = v
		}
		return &http.Response{Status: "200 OK", StatusCode: http.StatusOK, Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
			Header: h, Body: io.NopCloser(bytes.NewReader(k.body)), ContentLength: int64(len(k.body)), Request: req}, nil
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "" && resp.ContentLength <= maxKeptBody:
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeptBody+1))
		resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if len(body) <= maxKeptBody {
			t.keep(key, &keptAnswer{etag: resp.Header.Get("ETag"), header: resp.Header.Clone(), body: body})
		}
	}
	return resp, nil
}

// keep stores an answer, evicting the oldest past maxKept.
func (t *transport) keep(key [32]byte, k *keptAnswer) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.kept[key]; !ok {
		t.order = append(t.order, key)
	}
	t.kept[key] = k
	for len(t.order) > maxKept {
		delete(t.kept, t.order[0])
		t.order = t.order[1:]
	}
}

// send sends req, and once more after a secondary rate limit's wait.
func (t *transport) send(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	wait, ok := secondaryWait(resp)
	if !ok || (req.Body != nil && req.GetBody == nil) {
		return resp, nil
	}
	limit := maxRetryWait
	if d, ok := req.Context().Deadline(); ok {
		limit = time.Until(d) - time.Second // room for the retry itself
	}
	if wait > limit {
		return resp, nil
	}
	retry := req.Clone(req.Context())
	if req.GetBody != nil {
		if retry.Body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-req.Context().Done():
		return resp, nil
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return t.next.RoundTrip(retry)
}

// secondaryWait is the wait a secondary rate limit names: a 403 or 429
// with Retry-After while the primary limit is not spent.
func secondaryWait(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		return 0, false
	}
	s, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || s < 0 {
		return 0, false
	}
	return time.Duration(s) * time.Second, true
}
