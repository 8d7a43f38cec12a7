package gateway

import (
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpTransport is the streamable HTTP transport to an upstream at url:
// every request carries headers, and no response body is read past
// maxBody bytes (the stream of server-sent events, one event at a time).
func httpTransport(url string, headers map[string]string, maxBody int) *mcp.StreamableClientTransport {
	return &mcp.StreamableClientTransport{
		Endpoint: url,
		HTTPClient: &http.Client{Transport: &boundedTransport{
			base: http.DefaultTransport, headers: headers, maxBody: int64(maxBody),
		}},
		MaxRetries:   2,
		MaxEventSize: maxBody,
	}
}

// boundedTransport adds an upstream's headers and bounds its JSON bodies.
type boundedTransport struct {
	base    http.RoundTripper
	headers map[string]string
	maxBody int64
}

// RoundTrip implements http.RoundTripper.
func (t *boundedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		req.Header.Set(k, v)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.Header.Get("Content-Type") != "text/event-stream" { // events are bounded one by one (MaxEventSize)
		resp.Body = &limitedBody{r: resp.Body, left: t.maxBody, limit: t.maxBody}
	}
	return resp, nil
}

// limitedBody fails a read past limit bytes.
type limitedBody struct {
	r           io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fmt.Errorf("the upstream's answer is over the %d bytes the gateway reads (tools.maxResultHardBytes and 1 MiB for the message)", b.limit)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.r.Close() }
