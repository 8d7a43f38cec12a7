package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/barrhawk/barrhawk/internal/version"
)

// harData is what the HAR of a request needs beyond the fields browser_
// network_requests shows.
type harData struct {
	reqHeaders  network.Headers
	postData    []byte
	respHeaders network.Headers
	respSet     bool
	protocol    string
	remoteIP    string
	timing      *network.ResourceTiming
	size        float64
	finished    bool
	// mock is the answer of the route that fulfilled the request.
	mock *mockAnswer
}

// harBodyMax bounds one response body written into a HAR, harTotalMax
// all of them: past it, the entries keep their sizes without text.
const (
	harBodyMax  = 10 << 20
	harTotalMax = 64 << 20
)

func (r *Request) noteRequest(req *network.Request) {
	r.har.reqHeaders = req.Headers
	for _, e := range req.PostDataEntries {
		r.har.postData = append(r.har.postData, e.Bytes...)
	}
}

func (r *Request) noteResponse(resp *network.Response) {
	r.Status, r.StatusText, r.MimeType = resp.Status, resp.StatusText, resp.MimeType
	r.har.respHeaders, r.har.respSet = resp.Headers, true
	r.har.protocol, r.har.remoteIP, r.har.timing = resp.Protocol, resp.RemoteIPAddress, resp.Timing
}

// mock marks the request as answered by a route.
func (r *Request) mock(m *mockAnswer) {
	r.Mocked, r.har.mock = true, m
}

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the subset
// Playwright's routeFromHAR reads and its recorder writes.
type (
	harLog struct {
		Log harLogBody `json:"log"`
	}
	harLogBody struct {
		Version string     `json:"version"`
		Creator harCreator `json:"creator"`
		Pages   []harPage  `json:"pages"`
		Entries []harEntry `json:"entries"`
	}
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harPage struct {
		StartedDateTime string         `json:"startedDateTime"`
		ID              string         `json:"id"`
		Title           string         `json:"title"`
		PageTimings     map[string]int `json:"pageTimings"`
	}
	harEntry struct {
		PageRef         string      `json:"pageref,omitempty"`
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"`
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
		ServerIPAddress string      `json:"serverIPAddress,omitempty"`
		ResourceType    string      `json:"_resourceType,omitempty"`
		Mocked          bool        `json:"_mocked,omitempty"`
		FailureText     string      `json:"_failureText,omitempty"`
	}
	harRequest struct {
		Method      string         `json:"method"`
		URL         string         `json:"url"`
		HTTPVersion string         `json:"httpVersion"`
		Cookies     []harNameValue `json:"cookies"`
		Headers     []harNameValue `json:"headers"`
		QueryString []harNameValue `json:"queryString"`
		PostData    *harPostData   `json:"postData,omitempty"`
		HeadersSize int            `json:"headersSize"`
		BodySize    int            `json:"bodySize"`
	}
	harPostData struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	harResponse struct {
		Status      int64          `json:"status"`
		StatusText  string         `json:"statusText"`
		HTTPVersion string         `json:"httpVersion"`
		Cookies     []harNameValue `json:"cookies"`
		Headers     []harNameValue `json:"headers"`
		Content     harContent     `json:"content"`
		RedirectURL string         `json:"redirectURL"`
		HeadersSize int            `json:"headersSize"`
		BodySize    int            `json:"bodySize"`
	}
	harContent struct {
		Size     int    `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text,omitempty"`
		Encoding string `json:"encoding,omitempty"`
	}
	harNameValue struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	harTimings struct {
		Blocked float64 `json:"blocked"`
		DNS     float64 `json:"dns"`
		Connect float64 `json:"connect"`
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
		SSL     float64 `json:"ssl"`
	}
)

// HAR writes the tab's network record as HAR 1.2, the response bodies
// included where the browser still holds them (and a mocked request's
// always): the format of Playwright's recordHar, which its routeFromHAR
// replays. keep (nil: all) picks the requests written. It returns the HAR
// and how many entries it has.
func (p *Page) HAR(ctx context.Context, keep func(Request) bool) ([]byte, int, error) {
	p.mu.Lock()
	var reqs []*Request
	for _, r := range p.requests {
		if c := *r; keep == nil || keep(c) {
			reqs = append(reqs, &c)
		}
	}
	p.mu.Unlock()
	title, _ := p.Title(ctx)
	log := harLog{Log: harLogBody{Version: "1.2", Creator: harCreator{Name: "BarrHawk", Version: version.Version}, Entries: []harEntry{}}}
	pageID := "page@" + string(p.frame)
	started := time.Now()
	if len(reqs) > 0 {
		started = reqs[0].start
	}
	log.Log.Pages = []harPage{{StartedDateTime: started.UTC().Format(time.RFC3339Nano), ID: pageID, Title: title, PageTimings: map[string]int{"onContentLoad": -1, "onLoad": -1}}}
	total := 0
	for _, r := range reqs {
		e := harEntryOf(r, pageID)
		body, ok := []byte(nil), false
		switch {
		case r.har.mock != nil:
			body, ok = r.har.mock.body, true
		case r.har.finished && e.Response.Status > 0 && (e.Response.Status < 300 || e.Response.Status >= 400) && total < harTotalMax:
			body, ok = p.responseBody(ctx, network.RequestID(r.ID))
		}
		if ok {
			e.Response.Content.Size = len(body)
			if len(body) <= harBodyMax && total+len(body) <= harTotalMax {
				total += len(body)
				if utf8.Valid(body) {
					e.Response.Content.Text = string(body)
				} else {
					e.Response.Content.Text, e.Response.Content.Encoding = base64.StdEncoding.EncodeToString(body), "base64"
				}
			}
		}
		log.Log.Entries = append(log.Log.Entries, e)
	}
	out, err := json.MarshalIndent(log, "", "  ")
	if err != nil {
		return nil, 0, fmt.Errorf("encode the HAR: %w", err)
	}
	return out, len(log.Log.Entries), nil
}

// responseBody asks the browser for a response's body; false when it has
// it no more (evicted, or the document that made it is gone).
func (p *Page) responseBody(ctx context.Context, id network.RequestID) ([]byte, bool) {
	var body []byte
	err := p.cdpCall(ctx, func(ctx context.Context) error {
		res, err := chromedp.Call(ctx, network.GetResponseBody, network.GetResponseBodyParams{RequestID: id})
		body = res.Body
		return err
	})
	return body, err == nil
}

// harEntryOf is the entry of one request, without its response body.
func harEntryOf(r *Request, pageID string) harEntry {
	e := harEntry{PageRef: pageID, StartedDateTime: r.start.UTC().Format(time.RFC3339Nano), ResourceType: strings.ToLower(r.ResourceType), Mocked: r.Mocked, ServerIPAddress: r.har.remoteIP}
	httpVersion := httpVersionOf(r.har.protocol)
	e.Request = harRequest{Method: r.Method, URL: r.URL, HTTPVersion: httpVersion, Cookies: []harNameValue{}, Headers: headerList(r.har.reqHeaders), QueryString: queryOf(r.URL), HeadersSize: -1, BodySize: len(r.har.postData)}
	if len(r.har.postData) > 0 {
		e.Request.PostData = &harPostData{MimeType: headerValue(r.har.reqHeaders, "content-type"), Text: string(r.har.postData)}
	}
	resp := harResponse{Status: r.Status, StatusText: r.StatusText, HTTPVersion: httpVersion, Cookies: []harNameValue{}, Headers: headerList(r.har.respHeaders), HeadersSize: -1, BodySize: -1}
	if m := r.har.mock; m != nil && !r.har.respSet {
		resp.Status, resp.Headers = m.status, nil
		for _, h := range m.headers {
			resp.Headers = append(resp.Headers, harNameValue{Name: h.Name, Value: h.Value})
		}
	}
	if resp.Headers == nil {
		resp.Headers = []harNameValue{}
	}
	if resp.Status == 0 {
		// No answer came (a failure, or still waiting): Playwright's
		// recorder writes -1 and the reason.
		resp.Status = -1
		e.FailureText = r.Failed
		if e.FailureText == "" {
			e.FailureText = "no response"
		}
	}
	resp.RedirectURL = headerValue(r.har.respHeaders, "location")
	resp.Content = harContent{Size: -1, MimeType: r.MimeType}
	if resp.Content.MimeType == "" {
		resp.Content.MimeType = headerValue(r.har.respHeaders, "content-type")
	}
	if resp.Content.MimeType == "" {
		resp.Content.MimeType = "x-unknown"
	}
	if r.har.finished {
		resp.BodySize = int(r.har.size)
	}
	e.Response = resp
	e.Timings, e.Time = timingsOf(r)
	return e
}

// timingsOf splits the request's time as HAR does, from the browser's
// resource timing when it gave one (-1: not applicable).
func timingsOf(r *Request) (harTimings, float64) {
	t := harTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Send: 0, Wait: r.DurationMs, Receive: 0}
	if rt := r.har.timing; rt != nil && rt.ReceiveHeadersEnd > 0 {
		span := func(a, b float64) float64 {
			if a < 0 || b < 0 {
				return -1
			}
			return b - a
		}
		first := rt.SendStart
		for _, v := range []float64{rt.DNSStart, rt.ConnectStart} {
			if v >= 0 && v < first {
				first = v
			}
		}
		t.Blocked = max(first, 0)
		t.DNS = span(rt.DNSStart, rt.DNSEnd)
		t.Connect = span(rt.ConnectStart, rt.ConnectEnd)
		t.SSL = span(rt.SslStart, rt.SslEnd)
		t.Send = max(rt.SendEnd-rt.SendStart, 0)
		t.Wait = max(rt.ReceiveHeadersEnd-rt.SendEnd, 0)
		t.Receive = max(r.DurationMs-rt.ReceiveHeadersEnd, 0)
	}
	total := t.Send + t.Wait + t.Receive
	for _, v := range []float64{t.Blocked, t.DNS, t.Connect} {
		if v > 0 {
			total += v
		}
	}
	return t, total
}

func httpVersionOf(protocol string) string {
	switch strings.ToLower(protocol) {
	case "", "http/1.1":
		return "HTTP/1.1"
	case "h2":
		return "HTTP/2.0"
	case "h3", "h3-29":
		return "HTTP/3.0"
	}
	return strings.ToUpper(protocol)
}

// headerList is a header map as HAR's list, sorted by name. A header the
// browser folded from several lines (Set-Cookie) becomes one entry per line.
func headerList(h network.Headers) []harNameValue {
	out := []harNameValue{}
	for k, v := range h {
		for _, line := range strings.Split(fmt.Sprint(v), "\n") {
			out = append(out, harNameValue{Name: k, Value: line})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

func headerValue(h network.Headers, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return fmt.Sprint(v)
		}
	}
	return ""
}

func queryOf(raw string) []harNameValue {
	out := []harNameValue{}
	u, err := url.Parse(raw)
	if err != nil {
		return out
	}
	for _, kv := range strings.Split(u.RawQuery, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		ku, err1 := url.QueryUnescape(k)
		vu, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil {
			ku, vu = k, v
		}
		out = append(out, harNameValue{Name: ku, Value: vu})
	}
	return out
}
