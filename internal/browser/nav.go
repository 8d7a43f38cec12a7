package browser

import (
	"context"
	"errors"
	"net/url"
	"regexp"
	"strings"

	"github.com/barrhawk/barrhawk/internal/tool"
)

// schemes are the URL schemes a tab opens.
var schemes = map[string]bool{"http": true, "https": true, "file": true, "data": true, "about": true, "blob": true, "view-source": true, "chrome": true}

// checkURL refuses an address a browser cannot open, saying what would be
// right: "localhost:3000" and "example.com/x" lack their scheme.
func checkURL(raw string) error {
	s := strings.TrimSpace(raw)
	if s == "" {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": empty; give an absolute URL such as http://localhost:3000/ or https://example.com/")
	}
	u, err := url.Parse(s)
	if err != nil {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q is not a URL (%v); give an absolute URL such as http://localhost:3000/", raw, err)
	}
	// host:port parses as a scheme with a number after it; any other
	// scheme (ftp://, javascript:, mailto:) is one a tab does not open.
	hostPort := u.Opaque != "" && u.Opaque[0] >= '0' && u.Opaque[0] <= '9'
	if u.Scheme != "" && !hostPort && !schemes[strings.ToLower(u.Scheme)] {
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q: a browser tab does not open %s: URLs; give an http, https, file, data or about URL", raw, u.Scheme)
	}
	if u.Scheme == "" || !schemes[strings.ToLower(u.Scheme)] {
		hint := ""
		if !strings.ContainsAny(s, " \t") {
			hint = "; did you mean \"http://" + strings.TrimPrefix(s, "//") + "\"?"
		}
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": %q is not an absolute URL a browser opens (http, https, file, data, about)%s", raw, hint)
	}
	return nil
}

// netError finds Chromium's net::ERR_... code in a navigation's error.
var netError = regexp.MustCompile(`net::ERR_[A-Z_]+`)

// navError explains a navigation that failed: what went wrong, in words,
// and what to check.
func navError(u string, err error) error {
	var te *tool.Error
	if errors.As(err, &te) {
		return te
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	host := u
	if pu, perr := url.Parse(u); perr == nil && pu.Host != "" {
		host = pu.Host
	}
	code := netError.FindString(err.Error())
	var why string
	switch {
	case code == "net::ERR_CONNECTION_REFUSED":
		why = "nothing listens at " + host + ": is the server running, and is the port right?"
	case code == "net::ERR_NAME_NOT_RESOLVED":
		why = "the host name of " + host + " does not resolve: check its spelling, or use an IP address"
	case code == "net::ERR_UNSAFE_PORT":
		why = "Chromium refuses to connect to the port of " + host + " (a port it deems unsafe, as 1, 25 or 6000): serve on another port, such as 8080"
	case code == "net::ERR_CONNECTION_TIMED_OUT" || code == "net::ERR_TIMED_OUT":
		why = host + " did not answer in time: is it reachable from this machine?"
	case code == "net::ERR_ADDRESS_UNREACHABLE" || code == "net::ERR_INTERNET_DISCONNECTED":
		why = host + " cannot be reached from this machine (no route or no network)"
	case code == "net::ERR_FILE_NOT_FOUND":
		why = "no such file: give the absolute path of an existing file (file:///path/to/page.html)"
	case strings.HasPrefix(code, "net::ERR_CERT_"):
		why = "the TLS certificate of " + host + " is not trusted"
	case code == "net::ERR_ABORTED":
		why = "the navigation was cancelled: the address answered with no page to show (a download, or a 204), or another navigation replaced it"
	case code == "net::ERR_CONNECTION_RESET" || code == "net::ERR_EMPTY_RESPONSE" || code == "net::ERR_CONNECTION_CLOSED":
		why = host + " closed the connection without an answer: is it an HTTP server (not HTTPS, or another protocol)?"
	case strings.Contains(err.Error(), "invalid URL"):
		return tool.Errorf(tool.CodeInvalidArgs, "argument \"url\": Chromium cannot open %q (an invalid URL); give an absolute URL such as http://localhost:3000/", u)
	}
	if why != "" {
		return tool.Errorf(tool.CodeToolError, "could not open %s (%s): %s", u, code, why)
	}
	return tool.Errorf(tool.CodeToolError, "could not open %s: %v", u, err)
}
